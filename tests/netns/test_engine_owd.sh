#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-way delay when the two ends do not share a clock. The server runs in a
# time namespace whose CLOCK_MONOTONIC is 5000 s ahead of the client's (then
# behind by up to 3000 s), as a server on another host would be. A time
# namespace cannot set CLOCK_MONOTONIC below zero (ERANGE), so "behind" is
# at most the machine's uptime less a margin: a freshly booted machine (CI)
# has less than 3000 s. The client must see
# that the clocks differ, estimate the offset from the UDP greeting's timed
# echo, and report delays that are upper bounds within owd_error_us of the
# truth (tests/unit/test_owd_clock.c proves the bound): here that means
# positive, ordered, and nowhere near the 5000 s offset, in both directions
# and both families. With the shared clock the error is 0.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_pair ow
has "monotonic" unshare --help || fail "unshare has no --monotonic (util-linux too old)"

# server_skewed SECONDS: the server with its monotonic clock SECONDS off ours.
# unshare forks the server (a time namespace applies to children only) and
# ignores SIGTERM itself, so stop_skewed signals the server, its child.
server_skewed()
{
	ip netns exec "$B" unshare --time --fork --kill-child --monotonic "$1" \
		"$OVLPERF" -v server >>"$WORK/server.log" 2>&1 &
	SERVER_PID=$!
	on_exit "pkill -TERM -P $SERVER_PID 2>/dev/null; kill -KILL $SERVER_PID 2>/dev/null"
	# Ready when it listens; gone is a failure at once. The bound is only
	# there so a hung start ends the test: a loaded machine and the
	# sanitizer build may take seconds (once, in CI, more than 5).
	for _ in $(seq 1 600); do
		in_b ss -ltn 2>/dev/null | grep -q ":5211 " && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "skewed server did not start: $(cat "$WORK/server.log")"
}

stop_skewed()
{
	pkill -TERM -P "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" 2>/dev/null || true
}

# check_owd FILE SHARED: one-way delay present, ordered, an upper bound
check_owd()
{
	local f=$1 shared=$2
	pyv "$f" 'd["error"]' 'd["udp"]["lost"]' 'd["udp"]["owd_shared_clock"]' \
		'd["udp"]["owd_us"] is not None' \
		'0 < d["udp"]["owd_us"]["min"] <= d["udp"]["owd_us"]["p50"] <= d["udp"]["owd_us"]["p99"] <= d["udp"]["owd_us"]["max"]' \
		'd["udp"]["owd_us"]["max"] < 1e6' \
		'(d["udp"]["owd_error_us"] == 0) == d["udp"]["owd_shared_clock"]'
	expect_eq "$f: clean test" "${V[0]} ${V[1]}" "None 0"
	expect_eq "$f: shared clock detected" "${V[2]}" "$shared"
	expect_eq "$f: one-way delay reported" "${V[3]}" true
	expect_eq "$f: delays positive and ordered (min <= p50 <= p99 <= max)" "${V[4]}" true
	expect_eq "$f: the clock offset is removed (all delays under 1 s, offset 5000 s)" "${V[5]}" true
	expect_eq "$f: owd_error_us is 0 exactly when the clock is shared" "${V[6]}" true
}

start_server
client "$WORK/shared.json" 198.18.0.2 -u -b 20M -t 1
check_owd "$WORK/shared.json" true

# The receiver's own share of the delay: how long its datagrams waited in
# its socket (the kernel's arrival stamp to the read). A receiver stopped
# (SIGSTOP) for 0.4 s mid-test leaves what arrives queued in its socket, as
# the kernel's queue length shows while it is stopped (ss Recv-Q): the wait
# then carries the delay's tail, is never above the delay, and stays small
# for most datagrams. Both ends as the receiver, both families.
# stalled FILE NS REVERSE ADDR [CLIENT ARGS...]: the test, the receiver (the
# server in B, or with -R the client in A) stopped from 1.2 s to 1.6 s; sets
# QMAX, the largest Recv-Q of a UDP socket in NS while it was stopped (bytes)
stalled()
{
	local f=$1 ns=$2 rev=$3 addr=$4 cpid pid q
	shift 4
	ip netns exec "$A" "$OVLPERF" client --json "$addr" -u -b 50M -t 3 ${rev:+-R} "$@" \
		>"$f" 2>>"$WORK/client.log" &
	cpid=$!
	pid=$SERVER_PID
	[ -n "$rev" ] && pid=$cpid
	sleep 1.2
	kill -STOP "$pid"
	sleep 0.3
	QMAX=0
	for q in $(ip netns exec "$ns" ss -Huan | awk '{ print $2 }'); do
		[ "$q" -gt "$QMAX" ] && QMAX=$q
	done
	sleep 0.1
	kill -CONT "$pid"
	wait "$cpid" || fail "stalled client $addr ${rev:+-R} failed: $(tail -3 "$WORK/client.log")"
}

check_stalled()
{
	local f=$1
	pyv "$f" 'd["error"]' 'd["udp"]["lost"]' 'd["udp"]["rx_wait_us"] is not None' \
		'd["udp"]["rx_wait_us"]["max"] >= 300000' \
		'd["udp"]["rx_wait_us"]["max"] <= d["udp"]["owd_us"]["max"] + 1000' \
		'd["udp"]["rx_wait_us"]["p50"] <= d["udp"]["owd_us"]["p50"] + 1000' \
		'd["udp"]["rx_wait_us"]["p50"] < 100000' \
		'"%.0f ms of %.0f ms" % (d["udp"]["rx_wait_us"]["max"] / 1e3, d["udp"]["owd_us"]["max"] / 1e3)'
	expect_eq "$f: clean test" "${V[0]} ${V[1]}" "None 0"
	expect_eq "$f: socket wait reported" "${V[2]}" true
	expect_ge "$f: the kernel's receive queue while the receiver was stopped (bytes)" "$QMAX" 500000
	expect_eq "$f: the 0.4 s stop is the socket wait's max (${V[7]} delay)" "${V[3]}" true
	expect_eq "$f: socket wait max <= delay max" "${V[4]}" true
	expect_eq "$f: socket wait p50 <= delay p50" "${V[5]}" true
	expect_eq "$f: most datagrams did not wait through the stop (p50 < 100 ms)" "${V[6]}" true
}
stalled "$WORK/stall.json" "$B" "" 198.18.0.2
check_stalled "$WORK/stall.json"
pyv "$WORK/stall.json" 'd["udp"]["gro"]'
expect_eq "$WORK/stall.json: the receiving socket used UDP GRO (offloads on)" "${V[0]}" true
stalled "$WORK/stall6-r.json" "$A" 1 2001:2::2
check_stalled "$WORK/stall6-r.json"
# offloads off: the link's (veth GRO, GSO, TSO) and the sockets' (UDP GSO
# and GRO), so every datagram is its own packet and carries its own stamp
for ns in "$A" "$B"; do
	ip netns exec "$ns" ethtool -K ovp0 gro off gso off tso off >/dev/null 2>&1 ||
		fail "ethtool cannot turn offloads off in $ns"
done
stalled "$WORK/stall-off.json" "$B" "" 198.18.0.2 --no-gso --no-gro
check_stalled "$WORK/stall-off.json"
pyv "$WORK/stall-off.json" 'd["udp"]["gso"]' 'd["udp"]["gro"]'
expect_eq "$WORK/stall-off.json: no UDP GSO or GRO on the sockets" "${V[0]} ${V[1]}" "false false"
stalled "$WORK/stall6-off-r.json" "$A" 1 2001:2::2 --no-gso --no-gro
check_stalled "$WORK/stall6-off-r.json"
for ns in "$A" "$B"; do ip netns exec "$ns" ethtool -K ovp0 gro on gso on tso on >/dev/null 2>&1; done
in_a "$OVLPERF" client 198.18.0.2 -u -b 5M -t 0.5 >"$WORK/wait.txt" 2>&1 ||
	fail "terminal client: $(tail -3 "$WORK/wait.txt")"
grep -q "of that, in the receiver's socket \[us\]: p50 .* p99 .* max" "$WORK/wait.txt" ||
	fail "terminal report: $(cat "$WORK/wait.txt")"
ok "the terminal report gives the receiver's socket wait"
stop_server

server_skewed 5000
client "$WORK/ahead.json" 198.18.0.2 -u -b 20M -t 1
check_owd "$WORK/ahead.json" false
client "$WORK/ahead-r.json" 198.18.0.2 -u -b 20M -t 1 -R -P 2
check_owd "$WORK/ahead-r.json" false
client "$WORK/ahead6.json" 2001:2::2 -u -b 20M -t 1 -P 3
check_owd "$WORK/ahead6.json" false
in_a "$OVLPERF" client 198.18.0.2 -u -b 5M -t 0.5 >"$WORK/term.txt" 2>&1 ||
	fail "terminal client: $(tail -3 "$WORK/term.txt")"
grep -q "the ends do not share a clock: each value is at most .* us above the true delay" \
	"$WORK/term.txt" || fail "terminal report: $(cat "$WORK/term.txt")"
ok "the terminal report says the delays are upper bounds and by how much"
stop_skewed

behind=$(awk '{ b = int($1) - 60; print (b > 3000 ? 3000 : b) }' /proc/uptime)
[ "$behind" -ge 10 ] || fail "uptime too short for a clock behind ours"
server_skewed "-$behind"
client "$WORK/behind.json" 198.18.0.2 -u -b 20M -t 1
check_owd "$WORK/behind.json" false
client "$WORK/behind-r.json" 198.18.0.2 -u -b 20M -t 1 -R
check_owd "$WORK/behind-r.json" false
stop_skewed
echo "$TEST_NAME: $CHECKS checks passed"
