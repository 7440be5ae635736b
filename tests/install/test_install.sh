#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make install` and `make uninstall` (deploy/install.mk), never touching the
# machine: a staged install into a scratch DESTDIR must lay down exactly the
# expected files with the unit's paths filled in, keep an edited options file
# on reinstall and uninstall, and leave nothing else behind; a second install
# with a scratch PREFIX gives a unit `systemd-analyze verify` accepts (where
# the tool exists; it checks ExecStart's binary on the real file system).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-$PWD/ovlperf}
WORK=$(mktemp -d /tmp/ovlperf-install.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CHECKS=0
fail() { echo "FAIL [test_install]: $*" >&2; exit 1; }
ok() { CHECKS=$((CHECKS + 1)); echo "ok $CHECKS - $*"; }
mk() { make --no-print-directory BIN="$BIN" "$@"; }

D=$WORK/dest
mk install DESTDIR="$D" PREFIX=/usr >"$WORK/install.out"
{
	echo ./etc/ovlperf/server.env
	echo ./etc/ovlperf/run@.env
	echo ./usr/bin/ovlperf
	echo ./usr/lib/systemd/system/ovlperf-server.service
	echo ./usr/lib/systemd/system/ovlperf-run@.service
	echo ./usr/lib/systemd/system/ovlperf-run@.timer
	for f in scenarios/*.ini; do echo "./usr/share/ovlperf/$f"; done
	echo ./usr/share/ovlperf/prometheus/ovlperf.rules.yml
	echo ./usr/share/doc/ovlperf/README.md
	echo ./usr/share/doc/ovlperf/SECURITY.md
	for f in docs/*.md; do echo "./usr/share/doc/ovlperf/$f"; done
	for f in docs/man/*.[15]; do echo "./usr/share/man/man${f##*.}/${f##*/}"; done
} | sort >"$WORK/want"
(cd "$D" && find . -type f | sort) >"$WORK/got"
diff -u "$WORK/want" "$WORK/got" >&2 || fail "installed files differ from the list"
ok "install PREFIX=/usr DESTDIR: exactly the binary, units, options files, scenarios, docs, manual pages"
[ -x "$D/usr/bin/ovlperf" ] || fail "the binary is not executable"
"$D/usr/bin/ovlperf" --version | grep -q '^ovlperf ' || fail "the installed binary does not run"
ok "the installed binary runs"
unit=$D/usr/lib/systemd/system/ovlperf-server.service
grep -q '^ExecStart=/usr/bin/ovlperf \$OVLPERF_GLOBAL_ARGS server \$OVLPERF_SERVER_ARGS$' "$unit" ||
	fail "ExecStart not filled in: $(grep ExecStart "$unit")"
grep -q '^EnvironmentFile=-/etc/ovlperf/server.env$' "$unit" || fail "EnvironmentFile not /etc/ovlperf"
run=$D/usr/lib/systemd/system/ovlperf-run@.service
grep -qx 'ExecStart=/usr/bin/ovlperf $OVLPERF_GLOBAL_ARGS run --no-progress --results /var/lib/ovlperf/results $OVLPERF_RUN_ARGS /etc/ovlperf/scenarios/%i.ini' "$run" ||
	fail "the run unit's ExecStart not filled in: $(grep ExecStart "$run")"
grep -qx 'EnvironmentFile=-/etc/ovlperf/run@.env' "$run" && grep -qx 'EnvironmentFile=-/etc/ovlperf/run@%i.env' "$run" ||
	fail "the run unit's EnvironmentFiles are not /etc/ovlperf/run@.env and run@%i.env"
! grep -q '@[A-Z]*@' "$unit" "$run" "$D/usr/lib/systemd/system/ovlperf-run@.timer" \
	"$D/etc/ovlperf/server.env" "$D/etc/ovlperf/run@.env" || fail "a @...@ placeholder is left"
ok "the units' and the options files' paths are filled in"
for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
	Restart=on-failure "CapabilityBoundingSet=CAP_NET_ADMIN CAP_SETPCAP"; do
	grep -qx "$k" "$unit" || fail "the unit lacks $k"
done
ok "the unit is hardened (no new privileges, read-only system, two capabilities, restarts)"
for k in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes Type=oneshot \
	StateDirectory=ovlperf/results RestrictNamespaces=net \
	"CapabilityBoundingSet=CAP_SYS_ADMIN CAP_NET_ADMIN CAP_SETPCAP"; do
	grep -qx "$k" "$run" || fail "the run unit lacks $k"
done
! grep -q '^Environment=' "$run" || fail "the run unit sets options itself (Environment=)"
grep -qx 'WantedBy=timers.target' "$D/usr/lib/systemd/system/ovlperf-run@.timer" ||
	fail "the timer is not wanted by timers.target"
ok "the run unit is hardened (no new privileges, read-only system, three capabilities, network namespaces only), its options only in env files"

# an edited options file survives a reinstall and an uninstall
echo 'OVLPERF_SERVER_ARGS="--psk-file /etc/ovlperf/mine"' >>"$D/etc/ovlperf/server.env"
mk install DESTDIR="$D" PREFIX=/usr >"$WORK/install2.out"
grep -q mine "$D/etc/ovlperf/server.env" || fail "reinstall overwrote the edited options file"
ok "reinstall keeps the edited options file"
mk uninstall DESTDIR="$D" PREFIX=/usr >"$WORK/uninstall.out" 2>&1
(cd "$D" && find . -type f | sort) >"$WORK/left"
[ "$(cat "$WORK/left")" = ./etc/ovlperf/server.env ] ||
	fail "uninstall left: $(tr '\n' ' ' <"$WORK/left")"
grep -q "kept .*server.env (edited)" "$WORK/uninstall.out" || fail "uninstall did not say it kept it"
ok "uninstall removes everything but the edited options file, and says so"
rm "$D/etc/ovlperf/server.env"
mk install DESTDIR="$D" PREFIX=/usr >/dev/null
mk uninstall DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
[ -z "$(cd "$D" && find . -type f)" ] || fail "uninstall of an untouched install left files"
[ ! -e "$D/usr/share/ovlperf" ] && [ ! -e "$D/usr/share/doc/ovlperf" ] ||
	fail "uninstall left ovlperf's own directories"
ok "uninstall of an untouched install leaves no file and no ovlperf directory"

# PREFIX=/usr/local: the options file under PREFIX/etc
P=$WORK/p
mk install PREFIX="$P" >/dev/null
[ -f "$P/etc/ovlperf/server.env" ] && [ -f "$P/lib/systemd/system/ovlperf-server.service" ] &&
	[ -f "$P/etc/ovlperf/run@.env" ] && [ -f "$P/lib/systemd/system/ovlperf-run@.service" ] ||
	fail "PREFIX install lacks the unit or the options file"
grep -q "^ExecStart=$P/bin/ovlperf " "$P/lib/systemd/system/ovlperf-server.service" ||
	fail "PREFIX not in ExecStart"
ok "install PREFIX=DIR puts everything under DIR"
if command -v systemd-analyze >/dev/null; then
	# a template is verified as an instance of it: copies named so
	U=$P/lib/systemd/system
	cp "$U/ovlperf-run@.service" "$U/ovlperf-run@check.service"
	cp "$U/ovlperf-run@.timer" "$U/ovlperf-run@check.timer"
	for u in ovlperf-server.service ovlperf-run@.service ovlperf-run@.timer \
		ovlperf-run@check.service ovlperf-run@check.timer; do
		out=$(systemd-analyze verify "$U/$u" 2>&1) || fail "systemd-analyze verify $u: $out"
		[ -z "$(grep -v 'network-online.target\|Failed to connect\|System has not been booted' <<<"$out")" ] ||
			fail "systemd-analyze verify $u says: $out"
	done
	rm "$U/ovlperf-run@check.service" "$U/ovlperf-run@check.timer"
	ok "systemd-analyze verify accepts the units (the run unit and its timer as the template and an instance)"
else
	echo "# systemd-analyze not installed: unit not verified"
fi
mk uninstall PREFIX="$P" >/dev/null 2>&1
[ -z "$(find "$P" -type f)" ] || fail "uninstall PREFIX=DIR left: $(find "$P" -type f)"
ok "uninstall PREFIX=DIR leaves no file"
echo "test_install: $CHECKS checks passed"
