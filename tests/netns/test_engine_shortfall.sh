#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: a SCHED_FIFO hog on CPU 0 must be the only thing delaying the sender
# Why a UDP sender fell short. Lab fx2 with a 200 Mbit/s tbf on its link.
# A paced 150 Mbit/s sender is pinned to CPU 0 beside a SCHED_FIFO task of
# higher priority that takes CPU 0 for 3 ms every 30 ms: the sender wakes
# late, the pacer gives slots up, and the result must say so as late
# wake-ups (the host), not as slow send calls (the local qdisc/stack):
# udp.shortfall {late_wakeup, slow_send, blocked_send, send_refused}. Slots given up never
# exceed the slots the test did not send. A reverse test (the server sends)
# has no shortfall figures on the client: null, not zeros.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_make fx2 --rate 200M
start_server

# the competitor: 3 ms busy every 30 ms on CPU 0, above the sender's priority
chrt -f 2 taskset -c 0 python3 -c '
import time
end = time.monotonic() + 8
while time.monotonic() < end:
    t = time.monotonic()
    while time.monotonic() - t < 0.003:
        pass
    time.sleep(0.027)' &
HOG=$!
on_exit "kill $HOG 2>/dev/null; wait $HOG 2>/dev/null"

in_a taskset -c 0 "$OVLPERF" client --json 198.18.0.2 -u -b 150M -t 2 >"$WORK/hog.json" \
	2>>"$WORK/client.log" || fail "client failed: $(tail -3 "$WORK/client.log")"
kill "$HOG" 2>/dev/null || true
pyv "$WORK/hog.json" 'd["error"]' 'd["udp"]["shortfall"] is not None' \
	'd["udp"]["shortfall"]["late_wakeup"]' 'd["udp"]["shortfall"]["slow_send"]' \
	'd["udp"]["shortfall"]["send_refused"]' \
	'int(d["udp"]["target_bps"] * d["duration_s"] / (d["udp"]["len"] * 8) + 0.5) - d["udp"]["sent"]' \
	'd["udp"]["shortfall"]["blocked_send"]'
expect_eq "hog: error" "${V[0]}" None
expect_eq "hog: shortfall reported" "${V[1]}" true
expect_ge "hog: slots given up after late wake-ups" "${V[2]}" 1
[ "${V[2]}" -gt $((V[3] + V[6])) ] ||
	fail "hog: late wake-ups ${V[2]} not above slow ${V[3]} + blocked ${V[6]} sends"
ok "hog: late wake-ups (${V[2]}) outnumber slow (${V[3]}) + blocked (${V[6]}) sends"
expect_eq "hog: the 200M shaper refused no send at 150M" "${V[4]}" 0
# +1: the schedule's slot count and the measured duration round differently
[ $((V[2] + V[3] + V[6])) -le $((V[5] + 1)) ] ||
	fail "hog: ${V[2]} + ${V[3]} + ${V[6]} slots given up, but only ${V[5]} were not sent"
ok "hog: slots given up (${V[2]} + ${V[3]} + ${V[6]}) <= slots not sent (${V[5]} + 1)"

client "$WORK/rev.json" 198.18.0.2 -u -b 50M -t 1 -R
expect_eq "reverse: no sender figures on the client" "$(py "$WORK/rev.json" 'd["udp"]["shortfall"]')" None
echo "$TEST_NAME: $CHECKS checks passed"
