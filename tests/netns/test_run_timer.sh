#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The scheduled run (deploy/systemd/ovlperf-run@.service) once as systemd
# would start it: the units installed into a scratch DESTDIR by `make
# install`, ExecStart read from the installed unit, its environment from the
# installed run@.env and a per-instance run@NAME.env (what a variable set
# there does: replace the shared file's), $VAR expanded and split as systemd
# does, %i the instance, and the process started with the unit's
# CapabilityBoundingSet, NoNewPrivileges and UMask (setpriv). Only the
# unit's fixed paths move into the scratch directory: /usr/bin/ovlperf,
# /etc/ovlperf (its scenarios/NAME.ini: tests/netns/timer.ini, a lab
# "h27st" shaped by tbf) and /var/lib/ovlperf/results; the textfile
# directory is the per-instance file's --textfile-dir.
#
# Checks: the run's directory appears under the results root; with --keep 3
# the retention removed exactly the oldest runs of the scenario beyond 3
# (planted copies of the first real run, older) and nothing else: a run of
# another scenario, a run under a name `run` does not give, a directory
# named like a run without run.json, a foreign directory and a file all
# survive; the textfile is whole (ends "# EOF"), parses (promtool check
# metrics) and carries the run's start time; no temporary file is left;
# and a refused run (its lab taken by `lab up`) prunes nothing and leaves
# the textfile as it was.
source "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || fail "promtool not installed (scripts/deps.sh check)"
command -v setpriv >/dev/null || fail "setpriv not installed"

W=$(mktemp -d /tmp/h27s-timer.XXXXXX)
on_exit "rm -rf '$W'"
on_exit "\"$OVLPERF\" lab down h27st >/dev/null 2>&1"
"$OVLPERF" lab down h27st >/dev/null 2>&1 || true
NAME=h27s-timer
D=$W/dest
make --no-print-directory -o "$OVLPERF" install BIN="$OVLPERF" PREFIX=/usr DESTDIR="$D" \
	>"$W/install.out" 2>&1 || { cat "$W/install.out" >&2; fail "make install DESTDIR failed"; }
UNIT=$D/usr/lib/systemd/system/ovlperf-run@.service
[ -f "$UNIT" ] && [ -f "$D/etc/ovlperf/run@.env" ] || fail "the run unit or run@.env was not installed"
mkdir -p "$D/etc/ovlperf/scenarios" "$W/textfile" "$W/state"
cp "$(dirname "$0")/timer.ini" "$D/etc/ovlperf/scenarios/$NAME.ini"
ROOT=$W/state/results
cat >"$D/etc/ovlperf/run@$NAME.env" <<EOT
OVLPERF_RUN_ARGS="--keep 3 --no-plots --textfile-dir $W/textfile"
EOT

caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
umask_=$(sed -n 's/^UMask=//p' "$UNIT")
[ -n "$caps" ] && [ -n "$umask_" ] || fail "the unit has no CapabilityBoundingSet or UMask"
grep -qx NoNewPrivileges=yes "$UNIT" || fail "the unit lacks NoNewPrivileges=yes"
bset="-all$(for c in $caps; do printf ',+%s' "$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done)"
exec_line=$(sed -n 's/^ExecStart=//p' "$UNIT")
[ -n "$exec_line" ] || fail "the unit has no ExecStart"

# as_unit: ExecStart once, in a subshell with only the unit's environment
# files read, in their order; prints its exit status
as_unit()
{
	(
		set -f -a
		for f in $(sed -n 's/^EnvironmentFile=-\?//p' "$UNIT"); do
			f=${f//%i/$NAME}
			f=${f/#\/etc\/ovlperf/$D/etc/ovlperf}
			[ -f "$f" ] && . "$f"
		done
		set +a
		argv=()
		for w in $exec_line; do
			w=${w//%i/$NAME}
			case $w in
			\$[A-Z_]*) v=${w#\$} && argv+=(${!v}) ;; # unquoted: split on blanks
			/usr/bin/ovlperf) argv+=("$D/usr/bin/ovlperf") ;;
			/var/lib/ovlperf/results) argv+=("$ROOT") ;;
			/etc/ovlperf/*) argv+=("$D$w") ;;
			*) argv+=("$w") ;;
			esac
		done
		echo "${argv[*]}" >"$W/argv"
		umask "$umask_"
		rc=0
		setpriv --no-new-privs --bounding-set="$bset" "${argv[@]}" >"$W/run.out" 2>"$W/run.err" ||
			rc=$?
		echo "$rc"
	)
}

rc=$(as_unit)
[ "$rc" = 0 ] || { cat "$W/run.err" >&2; fail "the unit's run exited $rc ($(cat "$W/argv"))"; }
grep -q -- "run --no-progress --results $ROOT --keep 3 --no-plots --textfile-dir $W/textfile $D/etc/ovlperf/scenarios/$NAME.ini" "$W/argv" ||
	fail "not the command line the unit and its env files give: $(cat "$W/argv")"
mapfile -t runs < <(cd "$ROOT" && ls -d 20*-"$NAME")
[ "${#runs[@]}" = 1 ] && [ -f "$ROOT/${runs[0]}/run.json" ] || fail "no run directory under $ROOT: $(ls "$ROOT")"
R1=${runs[0]}
ok "ExecStart as the unit gives it (bounding set $caps, no new privileges, umask $umask_): the run $R1 under the results root"

# older runs: copies of R1 started in 2020, planted in an order ls does not give
plant() { # NAME STARTED [SCENARIO]
	mkdir "$ROOT/$1"
	python3 - "$ROOT/$R1/run.json" "$ROOT/$1/run.json" "$2" "${3:-$NAME}" <<'PY' || fail "could not plant $1"
import json, sys
d = json.load(open(sys.argv[1]))
d["started_utc"], d["scenario"]["name"] = sys.argv[3], sys.argv[4]
json.dump(d, open(sys.argv[2], "w"))
PY
}
plant 20200103T000000Z-$NAME 2020-01-03T00:00:00Z
plant 20200101T000000Z-$NAME 2020-01-01T00:00:00Z
plant 20200104T000000Z-$NAME 2020-01-04T00:00:00Z
plant 20200102T000000Z-$NAME 2020-01-02T00:00:00Z
plant 20190101T000000Z-other 2019-01-01T00:00:00Z other
plant mine 2019-01-01T00:00:00Z
mkdir "$ROOT/20180101T000000Z-$NAME" "$ROOT/keep-me"
echo mine >"$ROOT/keep-me/notes"
echo mine >"$ROOT/notes.txt"
sleep 1 # the second run's directory gets another second's name
rc=$(as_unit)
[ "$rc" = 0 ] || { cat "$W/run.err" >&2; fail "the second run exited $rc"; }
left=$(cd "$ROOT" && ls | sort | tr '\n' ' ')
R2=$(cd "$ROOT" && ls -d 2026*-"$NAME" 2>/dev/null | grep -vx "$R1" || true)
[ -n "$R2" ] || fail "the second run's directory is missing: $left"
want=$(printf '%s\n' 20180101T000000Z-$NAME 20190101T000000Z-other 20200104T000000Z-$NAME \
	"$R1" "$R2" keep-me mine notes.txt | sort | tr '\n' ' ')
[ "$left" = "$want" ] || fail "after --keep 3: $left; want $want"
[ "$(cat "$ROOT/keep-me/notes")" = mine ] && [ "$(cat "$ROOT/notes.txt")" = mine ] ||
	fail "a foreign file changed"
grep -q "retention: removed 3 runs of '$NAME'" "$W/run.err" || fail "the retention did not say what it removed"
ok "--keep 3: the 3 oldest runs of the scenario removed, the newest 3 and everything foreign kept"

PROM=$W/textfile/ovlperf-$NAME.prom
[ -f "$PROM" ] || fail "no textfile $PROM: $(ls -A "$W/textfile")"
[ "$(ls -A "$W/textfile")" = "ovlperf-$NAME.prom" ] || fail "temporary files left: $(ls -A "$W/textfile")"
[ "$(tail -1 "$PROM")" = "# EOF" ] || fail "the textfile does not end in # EOF"
promtool check metrics <"$PROM" >"$W/promtool.out" 2>&1 || { cat "$W/promtool.out" >&2; fail "promtool check metrics"; }
started=$(python3 -c 'import json,sys,calendar,time; print(calendar.timegm(time.strptime(json.load(open(sys.argv[1]))["started_utc"], "%Y-%m-%dT%H:%M:%SZ")))' "$ROOT/$R2/run.json")
grep -Eq "^ovlperf_run_start_timestamp_seconds\{scenario=\"$NAME\"\} $started(\.0+)?$" "$PROM" ||
	fail "the textfile's start time is not the second run's ($started): $(grep start_timestamp "$PROM")"
grep -q "^ovlperf_tcp_goodput_bytes_per_second{" "$PROM" || fail "the textfile has no goodput"
[ -z "$(find "$W" -name '.*.prom.*')" ] || fail "a temporary file is left: $(find "$W" -name '.*.prom.*')"
ok "the textfile: the second run's, whole, promtool check metrics passes, no temporary file"

# a refused run (the lab name taken by `lab up`) prunes nothing, keeps the textfile
cp "$PROM" "$W/prom.before"
plant 20170101T000000Z-$NAME 2017-01-01T00:00:00Z
"$OVLPERF" lab up h27st >"$W/labup.out" 2>&1 || { cat "$W/labup.out" >&2; fail "lab up h27st"; }
before=$(cd "$ROOT" && ls | sort | tr '\n' ' ')
rc=$(as_unit)
[ "$rc" = 1 ] || { cat "$W/run.err" >&2; fail "the run in a lab made by lab up exited $rc, not 1"; }
[ "$(cd "$ROOT" && ls | sort | tr '\n' ' ')" = "$before" ] || fail "a refused run changed the results root"
cmp -s "$PROM" "$W/prom.before" || fail "a refused run replaced the textfile"
ok "a refused run: nothing pruned (a run beyond --keep planted before it stays), the textfile as it was"
echo "$TEST_NAME: $CHECKS checks passed"
