#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults under a TCP transfer through the built-in overlay, which must
# recover on its own,
# each checked by SHA-256 at the receiver, with no manual step:
#  1. the sender's tunnel daemon SIGKILLed and started again (its TUN device,
#     address and routes vanish and come back; the new daemon handshakes on
#     the first retransmission);
#  2. the receiver's daemon SIGKILLed and started again (the sender's daemon
#     still holds the dead session: recovery is the restarted daemon's own
#     initiation at start-up, no persistent_keepalive configured);
#  3. the underlay veth set down for 5 s, then up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"
. "$(dirname "$0")/fault_lib.sh"

lab_pair fa
TU_LOG_DIR=$FA_DIR
tu_pair 4 "" # keys a, b; daemons ovl0 in A (PID_A) and B (PID_B)

# kill_restart NS PIDVAR CONF: SIGKILL the daemon, check its device is gone,
# start it again from the same config
kill_restart()
{
	local ns=$1 var=$2 conf=$3
	KILLED_AT=$(fa_progress)
	kill -KILL "${!var}"
	wait "${!var}" 2>/dev/null || true
	for _ in $(seq 50); do ip -n "$ns" link show ovl0 >/dev/null 2>&1 || break; sleep 0.1; done
	ip -n "$ns" link show ovl0 >/dev/null 2>&1 && fail "ovl0 in $ns survived its daemon's SIGKILL"
	ok "SIGKILL of the daemon in $ns: ovl0 is gone"
	tu_up "$ns" "$conf" ovl0
	printf -v "$var" %s "$TU_PID"
}

# 1. the sender's daemon
fa_payload 6M
fa_recv "$B" 198.19.0.2 5001
fa_send "$A" 198.19.0.2 5001 2000000
fa_wait_progress 1000000
kill_restart "$A" PID_A a.conf
at=$KILLED_AT
[ "$at" -lt 6291456 ] || fail "the transfer was over before the kill"
fa_finish "sender's daemon killed at $at bytes"
expect_ge "handshakes completed by the restarted daemon in A" \
	"$(tu_show "$A" ovl0 peers_with_handshake)" 1

# 2. the receiver's daemon
fa_payload 6M
fa_recv "$B" 198.19.0.2 5002
fa_send "$A" 198.19.0.2 5002 2000000
fa_wait_progress 1000000
kill_restart "$B" PID_B b.conf
at=$KILLED_AT
[ "$at" -lt 6291456 ] || fail "the transfer was over before the kill"
fa_finish "receiver's daemon killed at $at bytes"

# 3. the underlay link down 5 s (on A's side), then up
fa_payload 6M
fa_recv "$B" 198.19.0.2 5003
fa_send "$A" 198.19.0.2 5003 1000000
fa_wait_progress 1000000
# rx_packets NS: packets NS's end of the link received so far
rx_packets() { ip -n "$1" -s -j link show ovp0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'; }
ip -n "$A" link set ovp0 down
at=$(fa_progress)
rx_b=$(rx_packets "$B")
sleep 5
# Nothing crossed while the link was down (the check that the fault happened),
# counted on the link itself: what the receiver had buffered may still reach
# its reader, the more so on a busy machine.
expect_eq "packets B's end of the link received while it was down" \
	$(($(rx_packets "$B") - rx_b)) 0
ip -n "$A" link set ovp0 up
fa_finish "underlay link down 5 s at $at bytes"
kill -0 "$PID_A" && kill -0 "$PID_B" || fail "a daemon died while the link was down"
ok "both daemons survived the link outage"
echo "$TEST_NAME: $CHECKS checks passed"
