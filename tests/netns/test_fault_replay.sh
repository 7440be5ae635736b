#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Replayed control sessions against `ovlperf server --psk-file` (an
# eavesdropper must gain nothing; the case test_server_hostile.sh does not cover): a relay in host A
# records what a real client with the key sent (a reverse UDP test: a
# replay that got through would make the server send toward A). Then
#  - the recorded AUTH_RESPONSE answered to a fresh challenge, and
#  - the whole recorded session sent again
# are refused with "wrong pre-shared key", the server sends no test traffic,
# and it still serves a client that has the key. Lab "fc" (run after
# test_fault_server.sh, never at the same time).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/engine_lib.sh"
REPLAY="python3 $(cd "$(dirname "$0")" && pwd)/fault_replay.py"

lab_pair fc
head -c 32 /dev/urandom | base64 >"$WORK/psk"
chmod 600 "$WORK/psk"
ip netns exec "$B" "$OVLPERF" -v server -p 5212 --psk-file "$WORK/psk" >"$WORK/server.log" 2>&1 &
SRV=$!
on_exit "kill $SRV"
for _ in $(seq 600); do in_b ss -ltn | grep -q ':5212 ' && break; sleep 0.1; done

# The record: the client talks to the relay on A's own address, port 6000.
in_a $REPLAY record 198.18.0.1 6000 198.18.0.2 5212 "$WORK/rec" >"$WORK/relay.txt" 2>&1 &
relay=$!
on_exit "kill $relay"
for _ in $(seq 600); do grep -q listening "$WORK/relay.txt" && break; sleep 0.1; done
# (its data connections go to the relay's port and fail: only the control part matters)
in_a "$OVLPERF" client 198.18.0.1 -p 6000 --psk-file "$WORK/psk" -u -R -b 1M -t 0.5 \
	>/dev/null 2>"$WORK/rec-client.err" || true
wait $relay || fail "no AUTH_RESPONSE recorded: $(cat "$WORK/relay.txt")"
grep -q "recorded AUTH_RESPONSE" "$WORK/relay.txt" || fail "relay: $(cat "$WORK/relay.txt")"
ok "recorded a real client's authenticated session ($(stat -c %s "$WORK/rec") bytes)"

# udp_to_a: UDP datagrams A has received so far (Udp InDatagrams + NoPorts)
udp_to_a() { in_a awk '/^Udp:/ { if (h) { print $2 + $3; exit } h = 1 }' /proc/net/snmp; }
before=$(udp_to_a)
got=$(in_a $REPLAY auth 198.18.0.2 5212 "$WORK/rec" 2>&1 | tr '\n' '|')
echo "# replayed AUTH_RESPONSE -> $got"
[[ "$got" =~ ^ERROR\ 6\ authentication\ failed:\ wrong\ pre-shared\ key ]] ||
	fail "replayed AUTH_RESPONSE: $got"
ok "a recorded AUTH_RESPONSE does not answer a new challenge"
got=$(in_a $REPLAY session 198.18.0.2 5212 "$WORK/rec" 2>&1 | tr '\n' '|')
echo "# replayed session -> $got"
[[ "$got" =~ ERROR\ 6\ authentication\ failed:\ wrong\ pre-shared\ key ]] ||
	fail "replayed session: $got"
[[ "$got" =~ TEST_ACCEPT ]] && fail "the replayed session got a test accepted"
ok "a replayed whole session is refused at the proof, no test accepted"
sleep 0.5
expect_eq "UDP datagrams toward A after the replays" $(($(udp_to_a) - before)) 0
n=$(grep -c "warning: 198.18.0.1:[0-9]*: wrong pre-shared key" "$WORK/server.log" || true)
expect_eq "replays the server logged as wrong key" "$n" 2

client "$WORK/ok.json" 198.18.0.2 -p 5212 --psk-file "$WORK/psk" -u -R -b 1M -t 0.3
pyv "$WORK/ok.json" 'd["error"]' 'd["test"]["authenticated"]' 'd["udp"]["received"] > 0'
expect_eq "the server still serves a client with the key" "${V[*]}" "None true true"
kill -0 $SRV || fail "the server died"
echo "$TEST_NAME: $CHECKS checks passed"
