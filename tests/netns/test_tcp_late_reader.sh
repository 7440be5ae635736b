#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A TCP receiver that is late when the measured window opens (a busy
# machine: the reading thread off the CPU) must not count the backlog that
# waited in its socket as the window's. Through a 40 Mbit/s tbf the goodput
# can never exceed the shaper's rate; the server is stopped (SIGSTOP) from
# just after the data starts until well past the end of the 1 s warm-up, so
# that its first read after the warm-up finds the socket full. Counting that
# backlog in the window (the old receiver) reported 10 to 40 % more than the
# shaper lets through; the goodput must stay at most the tbf's rate (its
# bucket may add a burst: 2 % allowed), over IPv4 and IPv6.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_make lrd --rate 40M
start_server

late_reader() # NAME DST
{
	local f="$WORK/$1.json" from pid
	from=$(link_bytes "$A")
	in_a "$OVLPERF" client --json "$2" -t 4 -O 1s >"$f" 2>>"$WORK/client.log" &
	pid=$!
	# readiness, not timing: the data flows (50 kB crossed), then the
	# server sleeps for 1.5 s across the warm-up's end
	wait_link_bytes "$A" "$from" 50000 "$pid"
	kill -STOP "$SERVER_PID"
	sleep 1.5
	kill -CONT "$SERVER_PID"
	wait "$pid" || fail "$1: client exited $?: $(tail -3 "$WORK/client.log")"
	pyv "$f" 'd["error"]' 'd["tcp"]["goodput_bps"]' 'd["duration_s"]'
	expect_eq "$1: error" "${V[0]}" None
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 40e6 * 1.02 else 1)' "${V[1]}" ||
		fail "$1: goodput ${V[1]} bit/s over ${V[2]} s is above the 40 Mbit/s shaper"
	ok "$1: goodput $(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / 1e6))' "${V[1]}") Mbit/s over ${V[2]} s, within the 40 Mbit/s shaper"
}

late_reader v4 198.18.0.2
late_reader v6 2001:2::2
