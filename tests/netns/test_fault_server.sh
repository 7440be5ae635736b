#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The server SIGKILLed in the middle of a 10 s test (a dead far end
# must give a clear error and the partial figures, never a hang), for TCP
# and UDP, client sending and receiving (-R): the client exits non-zero well
# before the test's end with a clear error on stderr, and --json still prints
# one document with the partial figures this end has (bytes or datagrams it
# sent or received, the interval reports so far), "interrupted": true, the
# error, and a duration that is the time really measured, not the asked 10 s.
# The server's end's figures never arrived: they are null ("peer_missing":
# true), not zeros or a 100 % loss, and the terminal report says so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/engine_lib.sh"

lab_pair fsv

# kill_when_running FROM BYTES CPID: the server SIGKILLed once the client
# CPID's test moved BYTES over the link (wait_link_bytes)
kill_when_running()
{
	wait_link_bytes "$B" "$1" "$2" "$3"
	kill -KILL "$SERVER_PID"
	wait "$SERVER_PID" 2>/dev/null || true
}

# case NAME KEPT-EXPR UNKNOWN-EXPR BYTES ARGS...: KEPT-EXPR (python over d)
# must be > 0 (this end's figure), UNKNOWN-EXPR true (the server's end's are
# null). The server dies once BYTES crossed the link: 0.75 s at the test's
# rate, so that interval reports (every 0.5 s) exist.
case_kill()
{
	local name=$1 expr=$2 unknown=$3 bytes=$4 rc=0 from
	shift 4
	# started directly (not through a shell function) so $! is the server
	ip netns exec "$B" "$OVLPERF" server >"$WORK/server.log" 2>&1 &
	SERVER_PID=$!
	on_exit "kill $SERVER_PID"
	for _ in $(seq 600); do in_b ss -ltn | grep -q ':5211 ' && break; sleep 0.1; done
	# The bound: a client still running 8 s after the kill would be hung.
	from=$(link_bytes "$B")
	in_a timeout 20 "$OVLPERF" client --json 198.18.0.2 -t 10 -i 0.5 "$@" \
		>"$WORK/$name.json" 2>"$WORK/$name.err" &
	local cpid=$!
	on_exit "kill $cpid"
	kill_when_running "$from" "$bytes" "$cpid"
	wait "$cpid" || rc=$?
	[ "$rc" -ne 0 ] || fail "$name: the client exited 0 after the server died"
	[ "$rc" -ne 124 ] || fail "$name: the client was still running 18 s after the server died"
	ok "$name: client exit status $rc (not 0, not hung)"
	grep -q "error: control connection: peer closed\|error: control connection: .*reset" \
		"$WORK/$name.err" || fail "$name: stderr: $(cat "$WORK/$name.err")"
	ok "$name: stderr says the control connection was lost"
	pyv "$WORK/$name.json" 'd["schema"]' 'd["interrupted"]' '"control connection" in d["error"]' \
		'd["test"]["duration_s"]' '0 < d["duration_s"] < 9' "$expr > 0" 'len(d["intervals"]) > 0' \
		'd["cpu"]["sender" if not d["test"]["reverse"] else "receiver"]["wall_s"] > 0' \
		'd["peer_missing"]' "$unknown"
	expect_eq "$name: JSON document with its error and interrupted" \
		"${V[0]} ${V[1]} ${V[2]} ${V[3]}" "ovlperf.load true true 10"
	expect_eq "$name: measured duration below the 10 s asked" "${V[4]}" true
	expect_eq "$name: partial figure $expr kept" "${V[5]}" true
	expect_eq "$name: interval reports kept" "${V[6]}" true
	expect_eq "$name: this end's CPU use kept" "${V[7]}" true
	expect_eq "$name: the server's figures are null, not zero" "${V[8]} ${V[9]}" "true true"
}

case_kill tcp 'd["tcp"]["sent_bytes"]' \
	'd["tcp"]["bytes"] is None and d["tcp"]["goodput_bps"] is None and d["cpu"]["receiver"] is None and d["streams"][0]["receiver"] is None' \
	9375000 -b 100M
case_kill tcp-reverse 'd["tcp"]["bytes"]' \
	'd["tcp"]["sent_bytes"] is None and d["tcp"]["retransmits"] is None and d["cpu"]["sender"] is None and d["tcp"]["goodput_bps"] > 0' \
	9375000 -R -b 100M
case_kill udp 'd["udp"]["sent"]' \
	'd["udp"]["received"] is None and d["udp"]["loss_pct"] is None and d["udp"]["loss_at"] is None and d["streams"][0]["udp"]["lost"] is None and d["udp"]["achieved_bps"] > 0' \
	1875000 -u -b 20M
case_kill udp-reverse 'd["udp"]["received"]' \
	'd["udp"]["sent"] is None and d["udp"]["lost"] is None and d["cpu"]["sender"] is None and d["udp"]["jitter_ms"] is not None' \
	1875000 -u -R -b 20M

# The terminal report says which figures are unknown.
ip netns exec "$B" "$OVLPERF" server >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
on_exit "kill $SERVER_PID"
for _ in $(seq 600); do in_b ss -ltn | grep -q ':5211 ' && break; sleep 0.1; done
from=$(link_bytes "$B")
in_a timeout 20 "$OVLPERF" client 198.18.0.2 -u -b 20M -t 10 >"$WORK/term.out" 2>&1 &
cpid=$!
kill_when_running "$from" 1875000 "$cpid"
wait "$cpid" || true
grep -q "UNKNOWN: the server's results never arrived, so the receiver's figures" "$WORK/term.out" ||
	fail "terminal report: $(cat "$WORK/term.out")"
ok "the terminal report marks the receiver's figures unknown"

# A new server on the same port serves a full test (nothing held the port).
: >"$WORK/server.log"
start_server
client "$WORK/after.json" 198.18.0.2 -u -b 5M -t 0.5
pyv "$WORK/after.json" 'd["error"]' 'd["udp"]["lost"]' 'd["udp"]["sent"] > 0' 'd["peer_missing"]'
expect_eq "a new server serves a clean test" "${V[*]}" "None 0 true false"
echo "$TEST_NAME: $CHECKS checks passed"
