#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A lab made by `ovlperf lab up` is the user's: `ovlperf run` of a scenario
# naming it refuses (exit 1, a message naming the lab and the way out) and
# touches nothing (the lab, a process in it, no results directory) unless
# --force; a lab a run made for itself and whose run was SIGKILLed is
# removed by the next run. A results directory that holds a run is refused
# the same way. Lab: hxc.
. "$(dirname "$0")/lib.sh"

LAB=hxc
OUT=$(mktemp -d /tmp/ovlperf-clobber.XXXXXX)
on_exit "rm -rf '$OUT'"
"$OVLPERF" lab down $LAB >/dev/null 2>&1 || true
on_exit "\"$OVLPERF\" lab down $LAB"
SLEEPER= RUNPID=
on_exit '[ -n "$SLEEPER" ] && kill -KILL $SLEEPER'
on_exit '[ -n "$RUNPID" ] && kill -KILL $RUNPID'
STATE=/run/ovlperf/labs/$LAB

# scenario FILE DURATION: one underlay path, one short TCP trial
scenario()
{
	cat >"$1" <<-INI
	[scenario]
	name = clobber
	repetitions = 1
	duration = $2

	[lab]
	name = $LAB

	[path.underlay]
	type = underlay

	[tcp]
	streams = 1
	duration = $2
	INI
}
scenario "$OUT/s.ini" 300ms
scenario "$OUT/long.ini" 30s
ino() { stat -L -c %i "/run/netns/ovp-$LAB-$1"; }
owner() { sed -n 's/^owner //p' "$STATE"; }

# --- a lab the user made, with something of theirs running in it
"$OVLPERF" lab up $LAB >/dev/null
ino0=$(ino 0) ino1=$(ino 1)
ip netns exec "ovp-$LAB-1" sleep 300 &
SLEEPER=$!

rc=0
"$OVLPERF" run --no-progress --no-plots --out "$OUT/r1" "$OUT/s.ini" >"$OUT/r1.out" \
	2>"$OUT/r1.err" || rc=$?
expect_eq "run on a lab made by lab up: exit status" "$rc" 1
grep -q "lab '$LAB' was made by 'ovlperf lab up'" "$OUT/r1.err" ||
	{ cat "$OUT/r1.err" >&2; fail "the refusal does not name the lab and its maker"; }
grep -q -- "--force" "$OUT/r1.err" && grep -q "ovlperf lab down $LAB" "$OUT/r1.err" ||
	{ cat "$OUT/r1.err" >&2; fail "the refusal does not say how to proceed"; }
ok "the refusal names the lab, lab down and --force"
kill -0 "$SLEEPER" 2>/dev/null || fail "the process in the user's lab was killed"
ok "the process in the user's lab is alive"
expect_eq "namespace 0 untouched (inode)" "$(ino 0)" "$ino0"
expect_eq "namespace 1 untouched (inode)" "$(ino 1)" "$ino1"
expect_eq "the state file says the lab is the user's" "$(owner)" user
"$OVLPERF" lab show $LAB --json >"$OUT/show.json"
expect_eq "lab show --json: owner" "$(json_get "$OUT/show.json" owner)" "lab up"
[ ! -e "$OUT/r1" ] || fail "a refused run created its results directory"
ok "a refused run created no results directory"
[ ! -s "$OUT/r1.out" ] || fail "a refused run printed on stdout: $(cat "$OUT/r1.out")"
ok "a refused run printed nothing on stdout"

# --- with --force the run replaces the lab (and what ran in it)
rc=0
"$OVLPERF" run --no-progress --no-plots --force --out "$OUT/r2" "$OUT/s.ini" >"$OUT/r2.out" \
	2>"$OUT/r2.err" || rc=$?
[ "$rc" = 0 ] || { cat "$OUT/r2.err" >&2; fail "run --force exited $rc"; }
ok "run --force on the user's lab completes"
grep -q "removed lab '$LAB' made by 'ovlperf lab up' (--force)" "$OUT/r2.err" ||
	fail "run --force did not say it removed the user's lab"
ok "run --force says it removed the user's lab"
wait "$SLEEPER" 2>/dev/null || true
SLEEPER=
[ ! -e "$STATE" ] || fail "the run's own lab is left after it completed"
ok "the run removed its own lab at the end"

# --- --out DIR holding a run: refused without --force, nothing lost
before=$(md5sum <"$OUT/r2/run.json")
rc=0
"$OVLPERF" run --no-progress --no-plots --out "$OUT/r2" "$OUT/s.ini" >/dev/null 2>"$OUT/r3.err" ||
	rc=$?
expect_eq "run --out DIR that holds a run: exit status" "$rc" 1
grep -q "$OUT/r2 already holds a run" "$OUT/r3.err" || fail "the refusal does not name the directory"
expect_eq "the earlier run.json is untouched" "$(md5sum <"$OUT/r2/run.json")" "$before"
[ ! -e "$STATE" ] || fail "a run refused for --out built a lab"
ok "a run refused for --out built no lab"
rc=0
"$OVLPERF" run --no-progress --no-plots --force --out "$OUT/r2" "$OUT/s.ini" >/dev/null \
	2>"$OUT/r4.err" || rc=$?
[ "$rc" = 0 ] || { cat "$OUT/r4.err" >&2; fail "run --force --out DIR exited $rc"; }
ok "run --force overwrites the run in --out DIR"

# --- a lab a run made, left behind by SIGKILL: the next run removes it
"$OVLPERF" run --no-progress --no-plots --out "$OUT/k" "$OUT/long.ini" >/dev/null 2>&1 &
RUNPID=$!
# until both namespaces are made and recorded (inode known): the lab is the
# run's from then on, whatever phase the kill lands in
for _ in $(seq 300); do
	[ "$(grep -c '^netns .* [1-9]' "$STATE" 2>/dev/null)" = 2 ] && break
	kill -0 "$RUNPID" 2>/dev/null || fail "the long run ended before it could be killed"
	sleep 0.1
done
expect_eq "a run records itself as the owner" "$(owner)" run
kill -KILL "$RUNPID"
wait "$RUNPID" 2>/dev/null || true
RUNPID=
[ -e "$STATE" ] || fail "the SIGKILLed run left no lab (nothing to test)"
ok "the SIGKILLed run left its lab behind"
rc=0
"$OVLPERF" run --no-progress --no-plots --out "$OUT/r5" "$OUT/s.ini" >/dev/null \
	2>"$OUT/r5.err" || rc=$?
[ "$rc" = 0 ] || { cat "$OUT/r5.err" >&2; fail "the run after a SIGKILLed one exited $rc"; }
grep -q "removed lab '$LAB' left behind by an earlier run" "$OUT/r5.err" ||
	fail "the next run did not say it removed the lab left behind"
ok "the next run removed the lab a SIGKILLed run left, and completed"
[ ! -e "$STATE" ] || fail "lab state left after the last run"
expect_eq "namespaces of $LAB left" "$(ip netns list | grep -c "^ovp-$LAB-" || true)" 0
echo "$TEST_NAME: $CHECKS checks passed"
