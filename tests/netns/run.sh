#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every tests/netns/test_*.sh as root; each builds its own lab and removes it.
# A test prints "ok N - ..." lines (lib.sh's ok()) and exits non-zero on the
# first failed check; one that exits 0 without an "ok" line fails here (it
# checked nothing).
#
#   NETNS_ONLY=WORD  only the scripts whose path contains WORD
#   NETNS_JOBS=N     run up to N scripts at once (default 1; `make check`
#                    uses 3). Each script's output goes to a file and is
#                    printed whole when it ends, never interleaved.
#   NETNS_PHASE=P    lanes: only the scripts that may run beside others;
#                    alone: only the `# netns: alone` ones; all (default):
#                    both, the lanes first. `make check` runs the phases as
#                    two steps, its CPU-bound layers beside both (Makefile).
#
# Lab, namespace, device and wireguard-go names are unique per script, so any
# two may run together. A script whose header has the line `# netns: alone`
# runs with no other beside it: one that reads global state (every lab in
# `ovlperf lab list` or /run/ovlperf/labs, the systemd unit, privileges) or
# whose checks need the machine to itself (rates that must reach a target,
# delays or waits that must stay under a bound). The lane scripts run first,
# then the alone ones one by one (those whose header says `# netns: alone
# last` after the others). A lane script whose header has
# `# netns: long N` (N: its usual wall seconds in check, 30 or more)
# starts before the others, the longest first, so that no lane is left
# with a long script at the end while the others idle.
#
# Per script it prints the wall time and the CPU time (user + sys) of the
# processes it started and waited for (bash's `times` of the subshell that
# ran it; a daemon that a test leaves to `lab down` to kill is not counted):
# a slow script with little CPU waits (timeouts, probes, sleeps), one with
# CPU near its wall time computes. A table of all of them closes the run,
# then "netns: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
export OVLPERF=${OVLPERF:-$PWD/ovlperf}
if [ "$(id -u)" -ne 0 ]; then
	echo "netns tests need root" >&2
	exit 1
fi
JOBS=${NETNS_JOBS:-1}
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "NETNS_JOBS=$JOBS: not a positive number" >&2; exit 1; }
PHASE=${NETNS_PHASE:-all}
case $PHASE in
all | lanes | alone) ;;
*) echo "NETNS_PHASE=$PHASE: not one of all, lanes, alone" >&2; exit 1 ;;
esac
OUT=$(mktemp -d /tmp/ovlperf-netns-run.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
trap 'exit 130' INT TERM

# secs "0m1.250s": 1.250
secs() { local m=${1%%m*} s=${1#*m}; awk -v m="$m" -v s="${s%s}" 'BEGIN { printf "%.1f", m * 60 + s }'; }

# run_one SCRIPT: runs it, its output into $OUT/NAME.log; writes
# "RC WALL USER SYS" into $OUT/NAME.res (run in a subshell: `times` then
# counts only this script's processes)
run_one()
{
	local t=$1 n rc=0 start=$EPOCHREALTIME c
	n=$(basename "$t" .sh)
	timeout 600 bash "$t" >"$OUT/$n.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q '^ok [0-9][0-9]* - ' "$OUT/$n.log"; then
		echo "run.sh: $t exited 0 but printed no 'ok N - ...' line: it checked nothing" >>"$OUT/$n.log"
		rc=1
	fi
	times >"$OUT/$n.times" # not in $(...): that subshell has no children
	c=$(tail -1 "$OUT/$n.times")
	set -- $c
	echo "$rc $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') \
		$(secs "$1") $(secs "$2")" >"$OUT/$n.res"
}

pass=0 fail=0 failed=() table=()
# report SCRIPT: prints a finished script's output and times, counts it
report()
{
	local t=$1 n rc wall usr sys
	n=$(basename "$t" .sh)
	read -r rc wall usr sys <"$OUT/$n.res" || { rc=1 wall=0 usr=0 sys=0; }
	echo "== $t"
	cat "$OUT/$n.log"
	echo "== $t: $wall s wall, cpu $usr s user + $sys s sys$([ "$rc" -eq 0 ] || echo ", exit $rc")"
	if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$t"); fi
	table+=("$(printf '%-28s %5s %7s %7s %s' "$n" "$wall" "$usr" "$sys" "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)")")
	rm -f "$OUT/$n.log" "$OUT/$n.res" "$OUT/$n.times"
}

declare -A running=()
# reap: waits for one lane script to end, then reports every ended one
reap()
{
	local pid
	wait -n "${!running[@]}" 2>/dev/null || true
	for pid in "${!running[@]}"; do
		kill -0 "$pid" 2>/dev/null && continue
		wait "$pid" 2>/dev/null
		report "${running[$pid]}"
		unset "running[$pid]"
	done
}

long=() lane=() alone=() last=()
for t in tests/netns/test_*.sh; do
	[ -n "${NETNS_ONLY:-}" ] && [[ "$t" != *"$NETNS_ONLY"* ]] && continue
	if grep -q '^# netns: alone' "$t"; then
		[ "$PHASE" = lanes ] && continue
		if grep -q '^# netns: alone last' "$t"; then
			last+=("$t")
		elif [ "$JOBS" -gt 1 ] || [ "$PHASE" = alone ]; then
			alone+=("$t")
		else
			lane+=("$t")
		fi
	elif [ "$PHASE" = alone ]; then
		continue
	elif grep -q '^# netns: long' "$t"; then
		w=$(sed -n 's/^# netns: long *\([0-9]*\).*/\1/p' "$t" | head -1)
		long+=("${w:-40} $t")
	else
		lane+=("$t")
	fi
done
# the long ones longest first (their header's seconds), so that the last
# to end is a short one and no lane idles long while another finishes
mapfile -t long < <(printf '%s\n' ${long[@]+"${long[@]}"} | sort -rn | sed 's/^[0-9]* //' | grep .)
lane=(${long[@]+"${long[@]}"} ${lane[@]+"${lane[@]}"})
start=$SECONDS
for t in ${lane[@]+"${lane[@]}"}; do
	while [ "${#running[@]}" -ge "$JOBS" ]; do reap; done
	(run_one "$t") &
	running[$!]=$t
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
# `# netns: alone last`: after the other alone ones, when the layers that
# make check runs beside the netns tests at idle priority have most
# likely ended (a userspace VPN's knee moves with them)
alone=(${alone[@]+"${alone[@]}"} ${last[@]+"${last[@]}"})
for t in ${alone[@]+"${alone[@]}"}; do
	(run_one "$t")
	report "$t"
done
if [ $((pass + fail)) -gt 0 ]; then
	printf '%-28s %5s %7s %7s\n' "script" "wall" "user" "sys"
	printf '%s\n' "${table[@]}"
	echo "netns: $((SECONDS - start)) s wall, ${JOBS} at once${NETNS_PHASE:+ (phase $PHASE)}"
fi
[ ${#failed[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failed[@]}" >&2
echo "netns: $pass passed, $fail failed"
if [ $((pass + fail)) -eq 0 ]; then
	echo "no netns test matched${NETNS_ONLY:+ NETNS_ONLY=$NETNS_ONLY}${NETNS_PHASE:+ NETNS_PHASE=$PHASE}" >&2
	exit 1
fi
[ "$fail" -eq 0 ]
