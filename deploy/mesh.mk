# SPDX-License-Identifier: MIT
# The mesh and the package (included by the Makefile; docs/mesh.md):
#   make mesh-demo     the Ansible mesh on 3 namespace hosts (and a 4th cut
#                      off), the matrix printed; tests/mesh/mesh_demo.sh
#   make ansible-lint  ansible-lint on deploy/ansible (role and playbooks), and
#                      the mesh plan's filters (tests/mesh/test_plan.py)
#   make deb           the Debian package (debian/, dh) into $(DEB_OUT)
#   make deb-check     make deb, then deb-test: lintian (no errors), dpkg -i
#                      and dpkg -r of the package built
#   make rules-check   the Prometheus alert rules (deploy/prometheus/,
#                      docs/monitoring.md): promtool check rules, and
#                      promtool test rules on tests/prometheus/

DEB_OUT ?= build-deb

.PHONY: mesh-demo ansible-lint deb deb-check deb-test rules-check
mesh-demo: $(BIN)
	@OVLPERF=$(abspath $(BIN)) bash tests/mesh/mesh_demo.sh

ansible-lint:
	/usr/bin/python3 -B tests/mesh/test_plan.py
	cd deploy/ansible && ansible-lint --nocolor roles/ovlperf install.yml mesh.yml uninstall.yml

rules-check:
	promtool check rules deploy/prometheus/ovlperf.rules.yml
	promtool test rules tests/prometheus/ovlperf.rules.test.yml

deb:
	@DEB_OUT=$(abspath $(DEB_OUT)) bash deploy/deb.sh

# deb-check builds the package and tests it; deb-test tests the one built.
deb-check: deb
	@$(MAKE) --no-print-directory deb-test
deb-test:
	@DEB_OUT=$(abspath $(DEB_OUT)) bash tests/install/test_deb.sh
