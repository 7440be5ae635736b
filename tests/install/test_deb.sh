#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make deb-check`: the package `make deb` built passes lintian without
# errors, installs with dpkg -i (the binary runs, the units, the options files
# as conffiles, the scenarios and the docs are where they belong; the
# server is neither enabled nor started: it needs a key first, nor is a run
# timer: it needs a scenario), and dpkg -r
# then dpkg -P leave none of its files. It refuses to run where an ovlperf
# package is installed already (that one is the machine's, not the test's).
set -euo pipefail
cd "$(dirname "$0")/../.."
DEB_OUT=${DEB_OUT:-$PWD/build-deb}
CHECKS=0
fail() { echo "FAIL [test_deb]: $*" >&2; exit 1; }
ok() { CHECKS=$((CHECKS + 1)); echo "ok $CHECKS - $*"; }

V=$(dpkg-parsechangelog -S Version)
DEB=$(ls "$DEB_OUT"/ovlperf_"$V"_*.deb 2>/dev/null | head -1)
[ -n "$DEB" ] || fail "no ovlperf_${V}_*.deb in $DEB_OUT (make deb)"
[ "$(id -u)" = 0 ] || fail "dpkg -i needs root"
if dpkg-query -W -f='${Status}' ovlperf 2>/dev/null | grep -q installed; then
	fail "an ovlperf package is installed on this machine already; not touching it"
fi
WORK=$(mktemp -d /tmp/ovlperf-deb.XXXXXX)
INSTALLED=
cleanup()
{
	[ -n "$INSTALLED" ] && dpkg -P ovlperf >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT

lintian --fail-on error --tag-display-limit 0 "$DEB" >"$WORK/lintian.txt" 2>&1 ||
	{ cat "$WORK/lintian.txt" >&2; fail "lintian reports errors"; }
ok "lintian: no errors ($(grep -c '^W:' "$WORK/lintian.txt" || true) warnings)"

dpkg-deb -c "$DEB" | awk '{print $6}' >"$WORK/contents"
for f in ./usr/bin/ovlperf ./lib/systemd/system/ovlperf-server.service ./etc/ovlperf/server.env \
	./lib/systemd/system/ovlperf-run@.service ./lib/systemd/system/ovlperf-run@.timer \
	./etc/ovlperf/run@.env ./usr/share/ovlperf/prometheus/ovlperf.rules.yml \
	./usr/share/ovlperf/scenarios/default.ini ./usr/share/doc/ovlperf/README.md \
	./usr/share/doc/ovlperf/docs/mesh.md ./usr/share/doc/ovlperf/copyright; do
	grep -qx "$f" "$WORK/contents" || fail "the package lacks $f"
done
for f in docs/man/*.[1-8]; do
	[ -e "$f" ] || continue
	n=${f##*/}
	grep -qx "./usr/share/man/man${n##*.}/$n.gz" "$WORK/contents" || fail "the package lacks the manual page $n"
done
ok "the package holds the binary, the units, the options files, the scenarios, the docs and the manual pages"
dpkg-deb -f "$DEB" Package | grep -qx ovlperf || fail "the package is not named ovlperf"
dpkg-deb -I "$DEB" conffiles | grep -qx /etc/ovlperf/server.env || fail "server.env is no conffile"
dpkg-deb -I "$DEB" conffiles | grep -qx /etc/ovlperf/run@.env || fail "run@.env is no conffile"
ok "/etc/ovlperf/server.env and run@.env are conffiles"

INSTALLED=1
dpkg -i "$DEB" >"$WORK/install.txt" 2>&1 || { cat "$WORK/install.txt" >&2; fail "dpkg -i failed"; }
dpkg-query -W -f='${Status}\n' ovlperf | grep -qx 'install ok installed' || fail "not installed"
/usr/bin/ovlperf --help >/dev/null 2>&1 || /usr/bin/ovlperf report --help >/dev/null || fail "the installed ovlperf does not run"
grep -q '^ExecStart=/usr/bin/ovlperf ' /lib/systemd/system/ovlperf-server.service ||
	fail "the unit does not start /usr/bin/ovlperf"
grep -q '^EnvironmentFile=-/etc/ovlperf/server.env' /lib/systemd/system/ovlperf-server.service ||
	fail "the unit does not read /etc/ovlperf/server.env"
[ ! -e /etc/systemd/system/multi-user.target.wants/ovlperf-server.service ] ||
	fail "the package enabled the service (it needs a key first)"
grep -q '^ExecStart=/usr/bin/ovlperf .* run .*/etc/ovlperf/scenarios/%i.ini$' /lib/systemd/system/ovlperf-run@.service ||
	fail "the run unit does not run /usr/bin/ovlperf on /etc/ovlperf/scenarios/%i.ini"
[ -z "$(ls /etc/systemd/system/timers.target.wants/ovlperf-run@* 2>/dev/null)" ] ||
	fail "the package enabled a run timer (a scenario must be chosen first)"
ok "dpkg -i: /usr/bin/ovlperf runs; the units point at it and at /etc/ovlperf, none enabled"
dpkg -L ovlperf | sort >"$WORK/files"

dpkg -r ovlperf >"$WORK/remove.txt" 2>&1 || { cat "$WORK/remove.txt" >&2; fail "dpkg -r failed"; }
left=$(while read -r f; do [ -f "$f" ] && echo "$f"; done <"$WORK/files" | grep -vx '/etc/ovlperf/server.env\|/etc/ovlperf/run@.env' || true)
[ -z "$left" ] || fail "dpkg -r left: $left"
ok "dpkg -r: every file gone but the conffile"
dpkg -P ovlperf >"$WORK/purge.txt" 2>&1 || { cat "$WORK/purge.txt" >&2; fail "dpkg -P failed"; }
INSTALLED=
[ ! -e /etc/ovlperf/server.env ] && [ ! -e /etc/ovlperf/run@.env ] || fail "dpkg -P left an options file"
[ ! -e /etc/ovlperf ] || fail "dpkg -P left /etc/ovlperf"
! dpkg-query -W ovlperf >/dev/null 2>&1 || dpkg-query -W -f='${Status}\n' ovlperf | grep -q not-installed ||
	fail "dpkg still knows the package"
ok "dpkg -P: nothing left"
echo "test_deb: $CHECKS checks passed"
