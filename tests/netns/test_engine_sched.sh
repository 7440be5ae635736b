#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: SCHED_FIFO threads: another test's load would starve or be starved
# The tester must not starve the overlay it measures. With the built-in
# overlay (a userspace daemon) on the server's host, a default `ovlperf
# server` keeps its test threads SCHED_OTHER and says so ("sched" in the
# client's JSON); `--realtime` runs the UDP receiver SCHED_FIFO priority 1
# and says that; `--no-rt` is the default. Each reported value is checked
# against the truth: the policies of the server's threads, read with chrt
# while the test runs. No speed is asserted. Lab: hpsc.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_make hpsc --overlay
has "pid" in_b "$OVLPERF" tunnel show ovl0 || fail "no overlay daemon in host B"

# policies PID: one "POLICY:PRIO" line per thread of PID (chrt -p per task)
policies()
{
	local t pol prio
	for t in /proc/"$1"/task/*; do
		t=${t##*/}
		pol=$(chrt -p "$t" 2>/dev/null | sed -n 's/.*policy: SCHED_\([A-Z]*\).*/\1/p')
		prio=$(chrt -p "$t" 2>/dev/null | sed -n 's/.*priority: \([0-9]*\).*/\1/p')
		[ -n "$pol" ] && echo "$pol:$prio"
	done
	return 0
}

# sampled_run TAG SERVER_ARGS...: a 3 s UDP test through the overlay against
# a server started with SERVER_ARGS; samples the server's threads 1.5 s in.
# Leaves the JSON in $WORK/TAG.json, the samples in $WORK/TAG.sched and the
# server's thread count while idle in IDLE_THREADS.
sampled_run()
{
	local tag=$1
	shift
	start_server "$@"
	IDLE_THREADS=$(ls /proc/"$SERVER_PID"/task | wc -l)
	in_a "$OVLPERF" client --json -u -b 20M -l 1200 -t 3 198.19.0.2 \
		>"$WORK/$tag.json" 2>>"$WORK/client.log" &
	local cpid=$!
	sleep 1.5
	policies "$SERVER_PID" >"$WORK/$tag.sched"
	wait "$cpid" || fail "$tag: client failed: $(tail -3 "$WORK/client.log")"
	stop_server
}

# check TAG EXPECTED_POLICY: the report and the threads agree with it
check()
{
	local tag=$1 want=$2 busy fifo
	pyv "$WORK/$tag.json" 'd["sched"]["server"]' 'd["sched"]["client"]' 'd["udp"]["received"] > 0'
	expect_eq "$tag: server reports" "${V[0]}" "$want"
	expect_eq "$tag: client reports" "${V[1]}" "other"
	expect_eq "$tag: datagrams arrived" "${V[2]}" "true"
	# sampled during the test: the stream thread existed then
	busy=$(wc -l <"$WORK/$tag.sched")
	expect_ge "$tag: server threads during the test (idle: $IDLE_THREADS)" "$busy" $((IDLE_THREADS + 1))
	fifo=$(grep -c '^FIFO:1$' "$WORK/$tag.sched" || true)
	if [ "$want" = other ]; then
		expect_eq "$tag: real-time threads seen with chrt" \
			"$(grep -vc '^OTHER:0$' "$WORK/$tag.sched" || true)" 0
	else
		expect_ge "$tag: SCHED_FIFO 1 threads seen with chrt" "$fifo" 1
	fi
}

sampled_run default
check default other
sampled_run realtime --realtime
check realtime fifo:1
sampled_run nort --no-rt
check nort other

# the client's own opt-in shows as its end's
start_server
client "$WORK/crt.json" -u -b 20M -t 1 --realtime 198.19.0.2
stop_server
pyv "$WORK/crt.json" 'd["sched"]["client"]' 'd["sched"]["server"]'
expect_eq "client --realtime reports" "${V[0]}" "fifo:1"
expect_eq "server beside it reports" "${V[1]}" "other"
echo "$TEST_NAME: $CHECKS checks passed"
