#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stopping `ovlperf run` (a run stopped for any
# reason removes what it built and keeps what it measured): SIGINT in the middle of the trials,
# SIGINT while the paths come up, and a far-end server that dies mid-run.
# Each time: the documented exit status, no lab namespace, state file,
# tunnel daemon or server left, and run.json kept with "complete": false,
# the reason, and the trials measured before the stop.
source "$(dirname "$0")/lib.sh"

TAG="ovlperf-run-int-$$"
OUT=$(mktemp -d /tmp/ovlperf-run-int.XXXXXX)
on_exit "rm -rf '$OUT'"
on_exit "\"$OVLPERF\" lab down ri2"
on_exit "\"$OVLPERF\" lab down ri3"
RUNPID=
on_exit '[ -n "$RUNPID" ] && kill -KILL $RUNPID'

tagged() { grep -l "OVLPERF_TEST_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null | grep -v "/proc/$$/" || true; }

# scenario LAB: tiny.ini on another lab, with enough trials to interrupt,
# plus an "external" path (the far host's underlay address standing in for a
# VPN) whose setup and teardown commands leave marks in $OUT/LAB.ext-*.
# A second argument replaces the setup command.
scenario()
{
	local setup=${2:-"echo \"\$OVLPERF_LAB \$OVLPERF_NS_CLIENT \$OVLPERF_NS_SERVER\" > $OUT/$1.ext-up"}
	sed -e "s/^name = ru$/name = $1/" -e 's/^repetitions = 1$/repetitions = 3/' \
		tests/netns/tiny.ini >"$OUT/$1.ini"
	cat >>"$OUT/$1.ini" <<-INI

	[path.vpn]
	type = external
	address = 198.18.0.2
	setup = $setup
	teardown = touch $OUT/$1.ext-down
	INI
}

# trials_in DIR: trials recorded in DIR/run.json so far (0 if none yet)
trials_in() { python3 -c 'import json,sys
try: print(len(json.load(open(sys.argv[1]))["trials"]))
except Exception: print(0)' "$1/run.json"; }

# start LAB [SETUP]: runs the scenario in the background as RUNPID, results in $OUT/LAB
start()
{
	scenario "$@"
	OVLPERF_TEST_TAG=$TAG "$OVLPERF" run --no-progress --no-plots --out "$OUT/$1" "$OUT/$1.ini" \
		>"$OUT/$1.stdout" 2>"$OUT/$1.stderr" &
	RUNPID=$!
}

# finish: waits for the run; its exit status in rc
finish()
{
	rc=0
	wait "$RUNPID" || rc=$?
	RUNPID=
}

check_clean()
{
	local lab=$1
	expect_eq "$lab: namespaces left" "$(ip netns list 2>/dev/null | grep -c "^ovp-$lab-" || true)" 0
	[ ! -e "/run/ovlperf/labs/$lab" ] || fail "$lab: lab state file left behind"
	expect_eq "$lab: processes of the run left (server, tunnel daemons)" "$(tagged | wc -l)" 0
}

# 1. SIGINT after some trials.
"$OVLPERF" lab down ri2 >/dev/null 2>&1 || true
start ri2
for _ in $(seq 1 300); do
	[ "$(trials_in "$OUT/ri2")" -ge 4 ] && break
	kill -0 "$RUNPID" 2>/dev/null || break
	sleep 0.1
done
[ "$(trials_in "$OUT/ri2")" -ge 4 ] || fail "the run never reached 4 trials"
# A tunnel daemon and the server run inside the lab now.
[ "$(tagged | wc -l)" -ge 3 ] || fail "expected the server and 2 tunnel daemons while running"
kill -INT "$RUNPID"
finish
expect_eq "mid-run SIGINT: exit status" "$rc" 130
check_clean ri2
python3 - "$OUT/ri2/run.json" <<'PY' || fail "run.json after SIGINT"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False, "complete must be false"
assert "interrupted" in d["stop_reason"], d["stop_reason"]
ok = [t for t in d["trials"] if t["status"] == 0]
assert len(ok) >= 3, "measured trials kept: %d" % len(ok)
assert any(t["kind"] == "tcp" for t in ok)
PY
ok "mid-run SIGINT: run.json kept, complete=false, reason, measured trials"
expect_eq "external setup ran with the lab's names" "$(cat "$OUT/ri2.ext-up")" "ri2 ovp-ri2-0 ovp-ri2-1"
[ -e "$OUT/ri2.ext-down" ] || fail "the external path's teardown did not run after SIGINT"
ok "external path: teardown ran after SIGINT"
grep -q "INCOMPLETE" "$OUT/ri2.stdout" || fail "the summary does not say INCOMPLETE"
[ -s "$OUT/ri2/report.md" ] || fail "no report.md for the interrupted run"
ok "interrupted run still prints its summary and writes report.md"

# 2. SIGINT while the paths come up: an external path's setup command hangs.
"$OVLPERF" lab down ri3 >/dev/null 2>&1 || true
start ri3 "sleep 60"
for _ in $(seq 1 300); do
	for e in $(tagged); do
		p=${e#/proc/}; p=${p%%/*}
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^sleep 60' && break 2
	done
	sleep 0.05
done
kill -INT "$RUNPID"
finish
expect_eq "SIGINT during set-up: exit status" "$rc" 130
check_clean ri3
[ "$(json_get "$OUT/ri3/run.json" complete)" = false ] || fail "run.json complete after SIGINT in set-up"
grep -q "while setting up" "$OUT/ri3/run.json" || fail "stop reason does not say set-up"
[ -e "$OUT/ri3.ext-down" ] || fail "teardown did not run after an interrupted setup"
ok "SIGINT during a hanging setup: stopped, torn down, run.json incomplete"

# 3. The far end's server dies mid-run: a failed host.
rm -rf "$OUT/ri3" "$OUT"/ri3.ext-*
start ri3
for _ in $(seq 1 300); do
	[ "$(trials_in "$OUT/ri3")" -ge 2 ] && break
	sleep 0.1
done
srv=
for e in $(tagged); do
	p=${e#/proc/}; p=${p%%/*}
	tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q ' server' && srv=$p
done
[ -n "$srv" ] || fail "no server process found in the lab"
kill -KILL "$srv"
finish
expect_eq "dead server: exit status" "$rc" 1
check_clean ri3
python3 - "$OUT/ri3/run.json" <<'PY' || fail "run.json after the server died"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False
assert "server" in d["stop_reason"], d["stop_reason"]
assert sum(t["status"] == 0 for t in d["trials"]) >= 2
PY
ok "dead server: the run stops, says why, keeps what it measured"
[ -e "$OUT/ri3.ext-down" ] || fail "the external path's teardown did not run after the failure"
ok "external path: teardown ran after the failure"
echo "$TEST_NAME: $CHECKS checks passed"
