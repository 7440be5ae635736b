# SPDX-License-Identifier: MIT
# `make install` / `make uninstall` (included by the Makefile). GNU
# conventions: PREFIX (default /usr/local) and the directories below it, and
# DESTDIR for staged installs (packages):
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
# Installs the binary, the systemd units (`ovlperf server`; `ovlperf run`
# of a scenario on a timer), their options files (each kept when it exists:
# it is the user's), the scenarios, the Prometheus alert rules and the docs.
#
# Hooks: a rule file that installs more (man pages) adds its targets to
# INSTALL_HOOKS and UNINSTALL_HOOKS (e.g. INSTALL_HOOKS += install-man); they
# run after the files below, whatever order the Makefile includes them in.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/ovlperf
DOCDIR     ?= $(PREFIX)/share/doc/ovlperf
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
INSTALL    ?= install
INSTALL_HOOKS   ?=
UNINSTALL_HOOKS ?=

INSTALL_SCENARIOS := $(wildcard scenarios/*.ini)
INSTALL_DOCS      := README.md SECURITY.md $(wildcard docs/*.md)
UNIT_NAMES        := ovlperf-server.service ovlperf-run@.service ovlperf-run@.timer
ENV_NAMES         := server.env run@.env
UNIT_SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
		 -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g'

.PHONY: install uninstall install-check
install: $(BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/scenarios $(DESTDIR)$(DATADIR)/prometheus \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/ovlperf
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/ovlperf
	$(INSTALL) -m 644 $(INSTALL_SCENARIOS) $(DESTDIR)$(DATADIR)/scenarios/
	$(INSTALL) -m 644 deploy/prometheus/ovlperf.rules.yml $(DESTDIR)$(DATADIR)/prometheus/
	$(INSTALL) -m 644 README.md SECURITY.md $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 644 $(wildcard docs/*.md) $(DESTDIR)$(DOCDIR)/docs/
	@for u in $(UNIT_NAMES); do \
		$(UNIT_SUBST) deploy/systemd/$$u >$(DESTDIR)$(UNITDIR)/$$u.tmp && \
		chmod 644 $(DESTDIR)$(UNITDIR)/$$u.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$$u.tmp $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	@# An options file is the user's once installed: never overwritten.
	@for e in $(ENV_NAMES); do \
		f=$(DESTDIR)$(SYSCONFDIR)/ovlperf/$$e; \
		if [ -e $$f ]; then echo "kept $$f (yours)"; \
		else $(UNIT_SUBST) deploy/systemd/$$e >$$f && chmod 644 $$f || exit 1; fi; \
	done
	@[ -z "$(strip $(INSTALL_HOOKS))" ] || $(MAKE) $(INSTALL_HOOKS)

# Removes what install put there; the options file only while it is the one
# shipped (an edited one is the user's and stays, with a note).
uninstall:
	@[ -z "$(strip $(UNINSTALL_HOOKS))" ] || $(MAKE) $(UNINSTALL_HOOKS)
	rm -f $(DESTDIR)$(BINDIR)/ovlperf $(UNIT_NAMES:%=$(DESTDIR)$(UNITDIR)/%)
	rm -f $(INSTALL_SCENARIOS:scenarios/%=$(DESTDIR)$(DATADIR)/scenarios/%)
	rm -f $(DESTDIR)$(DATADIR)/prometheus/ovlperf.rules.yml
	rm -f $(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/SECURITY.md \
		$(patsubst docs/%,$(DESTDIR)$(DOCDIR)/docs/%,$(wildcard docs/*.md))
	@for e in $(ENV_NAMES); do \
		env=$(DESTDIR)$(SYSCONFDIR)/ovlperf/$$e; \
		if [ -e $$env ] && $(UNIT_SUBST) deploy/systemd/$$e | cmp -s - $$env; then \
			rm -f $$env; \
		elif [ -e $$env ]; then echo "kept $$env (edited)"; fi; \
	done
	-rmdir $(DESTDIR)$(DATADIR)/scenarios $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)/docs \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/ovlperf 2>/dev/null

# Installs into a scratch DESTDIR and PREFIX, checks the file list and the
# unit (systemd-analyze verify where it exists), uninstalls, checks nothing
# is left.
install-check: $(BIN)
	@BIN=$(abspath $(BIN)) bash tests/install/test_install.sh
