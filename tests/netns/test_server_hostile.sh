#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad input for `ovlperf server`: for each case, what was sent, what came
# back (a clear ERROR or TEST_REJECT naming the reason), and that the server
# still serves a normal test afterwards, and each refusal is counted by
# reason in the stats line the server logs when it stops. A stalled client
# does not hold up a test running at the same time.
#
#  case (hostile_client.py)  sent                                   reply (code, text)
#  garbage                   "GET / HTTP/1.1..."                    ERROR 7 not an ovlperf control connection (bad magic)
#  short-body                HELLO with a 4-byte body               ERROR 7 malformed HELLO: message length does not match its type
#  truncated                 header for 40 bytes, 10 sent, EOF      ERROR 7 peer closed the connection in the middle of a message
#  oversized                 length field 0xffffffff                ERROR 7 message length above the maximum of 65536 bytes
#  version                   protocol version 99                    ERROR 11 protocol version not supported; this server speaks version 1
#  unknown-type              message type 200                       ERROR 7 unknown message type
#  slow                      HELLO at one byte per second           ERROR 8 message started but did not complete within 1500 ms
#  silent                    nothing                                ERROR 8 no HELLO within 3000 ms
#  too-long                  3600 s test (limit 10 s)               REJECT 2 ...; the session then runs a valid request
#  too-many-streams          100 streams (limit 8)                  REJECT 4 100 streams asked; this server allows at most 8
#  too-fast                  UDP at 1 Tbit/s (limit 2G)             REJECT 3 a higher rate asked; ... at most 2000000000 bit/s (use -b)
#  unlimited-tcp             TCP without -b (limit 2G)              REJECT 3 an unlimited rate asked; ...
#  after-accept-garbage      HELLO instead of START                 ERROR 7 expected START of test N, got HELLO
#  wrong-psk                 random AUTH_RESPONSE                   ERROR 6 authentication failed: wrong pre-shared key
#  request-no-auth           reverse TEST_REQUEST before the proof  ERROR 6 authentication required: ... before TEST_REQUEST
#  foreign-tcp/-udp          valid data greeting from 198.18.0.3    TCP closed / UDP unanswered; START: ERROR 7 START before all data connections arrived
#  (third session, limit 2)  anything                               ERROR 1 server busy: 2 sessions already running
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"
HOSTILE="python3 $(cd "$(dirname "$0")" && pwd)/hostile_client.py"

lab_pair en3
start_server --msg-timeout 1500 --idle-timeout 3000 --max-duration 10 --max-streams 8 \
	--max-rate 2G

still_serving() # CASE
{
	in_a "$OVLPERF" client 198.18.0.2 -u -b 1M -t 0.3 >/dev/null 2>>"$WORK/client.log" ||
		fail "after '$1' the server no longer serves: $(tail -2 "$WORK/client.log")"
	ok "after '$1': a normal test still runs"
}

# expect_reply CASE PATTERN [PORT]: sends the case, matches the reply
expect_reply()
{
	local case=$1 pattern=$2 port=${3:-5211} got
	got=$(in_a $HOSTILE "$case" 198.18.0.2 "$port" 2>&1 | tr '\n' '|' || true)
	echo "# $case -> $got"
	[[ "$got" =~ $pattern ]] || fail "$case: got '$got', expected /$pattern/"
	ok "$case: clear reply"
}

# expect_counted CASE REPLY REASON: CASE against a server of its own (port
# 5213, the same limits): the reply is exactly REPLY, the server logs that
# sentence once, still serves a normal test, and its stats line counts the
# case once under REASON and nowhere else
expect_counted()
{
	local log=$WORK/counted-$1.log pid got stats
	ip netns exec "$B" "$OVLPERF" server -p 5213 --msg-timeout 1500 --idle-timeout 3000 \
		>"$log" 2>&1 &
	pid=$!
	on_exit "kill $pid 2>/dev/null"
	for _ in $(seq 600); do # readiness, not timing
		in_b ss -ltn | grep -q ':5213 ' && break
		sleep 0.1
	done
	got=$(in_a $HOSTILE "$1" 198.18.0.2 5213 2>&1 | tr '\n' '|' || true)
	echo "# $1 -> $got"
	expect_eq "$1: reply" "$got" "$2|"
	in_a "$OVLPERF" client 198.18.0.2 -p 5213 -u -b 1M -t 0.3 >/dev/null 2>>"$WORK/client.log" ||
		fail "after '$1' the server no longer serves: $(tail -2 "$WORK/client.log")"
	kill "$pid"
	wait "$pid" || true
	expect_eq "$1: the server's log line" "$(grep -c "warning: 198.18.0.1:[0-9]*: ${2#* [0-9]* }$" "$log")" 1
	stats=$(sed -n 's/.*stats: //p' "$log")
	expect_eq "$1: sessions and tests counted" "${stats%% refused:*}" \
		"sessions=2 tests=1 foreign_data=0"
	expect_eq "$1: refusals counted" "$(tr ' ' '\n' <<<"${stats#*refused:}" | grep -v -e '^$' -e '=0$' | paste -sd' ')" \
		"$3=1"
}

expect_reply garbage '^ERROR 7 not an ovlperf control connection \(bad magic\)\|$'
still_serving garbage
expect_reply short-body '^ERROR 7 malformed HELLO: message length does not match its type\|$'
still_serving short-body
expect_counted truncated "ERROR 7 peer closed the connection in the middle of a message" bad_message
expect_reply oversized '^ERROR 7 message length above the maximum of 65536 bytes\|$'
still_serving oversized
expect_reply version '^ERROR 11 protocol version not supported; this server speaks version 1\|$'
still_serving version
expect_counted unknown-type "ERROR 7 unknown message type" bad_message
expect_reply slow '^ERROR 8 message started but did not complete within 1500 ms'
still_serving slow
expect_reply silent '^ERROR 8 no HELLO within 3000 ms'
still_serving silent
expect_reply too-long '^REJECT 2 .*at most 10.0 s\|TEST_ACCEPT'
expect_reply too-many-streams '^REJECT 4 100 streams asked; this server allows at most 8\|TEST_ACCEPT'
expect_reply too-fast '^REJECT 3 a higher rate asked.*at most 2000000000 bit/s.*\|TEST_ACCEPT'
expect_reply unlimited-tcp '^REJECT 3 an unlimited rate asked.*\|TEST_ACCEPT'
still_serving limits
expect_reply after-accept-garbage '^TEST_ACCEPT\|ERROR 7 expected START'
still_serving after-accept-garbage

# data connections from another address than the control connection's: refused
in_a ip addr add 198.18.0.3/24 dev ovp0
expect_reply_foreign() # CASE PATTERN
{
	local got
	got=$(in_a $HOSTILE "$1" 198.18.0.2 5211 198.18.0.3 2>&1 | tr '\n' '|' || true)
	echo "# $1 -> $got"
	[[ "$got" =~ $2 ]] || fail "$1: got '$got', expected /$2/"
	ok "$1: refused"
}
expect_reply_foreign foreign-tcp '^DATA-CLOSED\|ERROR 7 START before all data connections arrived \(0 of 1\)'
expect_reply_foreign foreign-udp '^DATA-IGNORED\|ERROR 7 START before all data connections arrived \(0 of 1\)'
still_serving foreign-data

# a stalled client holds its own session only: a test runs meanwhile
in_a $HOSTILE slow 198.18.0.2 5211 >"$WORK/slow.txt" 2>&1 &
slow_pid=$!
on_exit "kill $slow_pid 2>/dev/null"
client "$WORK/during.json" 198.18.0.2 -t 1 -P 2 -b 1G
expect_eq "test during a stalled session" "$(py "$WORK/during.json" 'd["error"]')" "None"
wait $slow_pid || true
grep -q '^ERROR 8' "$WORK/slow.txt" || fail "stalled client: $(cat "$WORK/slow.txt")"
ok "the stalled client got its timeout error"
stop_server

# Every refusal above is counted by reason in the line the server logs when it
# stops: 6 malformed (garbage, short-body, oversized, after-accept-garbage,
# foreign-tcp, foreign-udp; truncated and unknown-type were counted by their
# own server above), 3 timeouts (slow, silent,
# the stalled client), 1 version, limits 1 + 2 + 1, and the foreign data.
stat_of() { sed -n "s/.*stats: .* $2=\([0-9]*\).*/\1/p" "$1" | tail -1; }
grep -q "stats: sessions=" "$WORK/server.log" || fail "no stats line: $(tail -3 "$WORK/server.log")"
for kv in bad_message=6 timeout=3 version=1 limit_duration=1 limit_rate=2 limit_streams=1 \
	auth=0 busy=0 internal=0; do
	expect_eq "counted refusals: ${kv%=*}" "$(stat_of "$WORK/server.log" "${kv%=*}")" "${kv#*=}"
done
expect_ge "counted foreign data connections and datagrams" \
	"$(stat_of "$WORK/server.log" foreign_data)" 2
expect_ge "counted tests run to their end (one after each case)" \
	"$(stat_of "$WORK/server.log" tests)" 9
: >"$WORK/server.log"

# with a pre-shared key nothing runs before the proof
head -c 32 /dev/urandom | base64 >"$WORK/psk"
head -c 32 /dev/urandom | base64 >"$WORK/wrong.psk"
chmod 600 "$WORK/psk" "$WORK/wrong.psk"
SERVER_PORT=5212 start_server -p 5212 --psk-file "$WORK/psk" --max-sessions 2
expect_reply wrong-psk '^ERROR 6 authentication failed: wrong pre-shared key' 5212
expect_reply request-no-auth '^ERROR 6 authentication required' 5212
if in_a "$OVLPERF" client 198.18.0.2 -p 5212 -t 0.3 >/dev/null 2>"$WORK/nokey.txt"; then
	fail "a client without the key ran a test"
fi
grep -q 'requires a pre-shared key' "$WORK/nokey.txt" || fail "no-key: $(cat "$WORK/nokey.txt")"
ok "client without a key: told the server requires one"
if in_a "$OVLPERF" client 198.18.0.2 -p 5212 -t 0.3 --psk-file "$WORK/wrong.psk" -R >/dev/null \
	2>"$WORK/badkey.txt"; then
	fail "a client with a wrong key ran a test"
fi
grep -q 'wrong pre-shared key' "$WORK/badkey.txt" || fail "wrong key: $(cat "$WORK/badkey.txt")"
ok "client with a wrong key: refused before any load"
client "$WORK/psk.json" 198.18.0.2 -p 5212 -t 0.5 -R --psk-file "$WORK/psk"
expect_eq "with the key a reverse test runs" "$(py "$WORK/psk.json" 'd["test"]["authenticated"]')" "true"

# too many sessions at once: a clear BUSY
in_a $HOSTILE silent 198.18.0.2 5212 >/dev/null 2>&1 &
s1=$!
in_a $HOSTILE silent 198.18.0.2 5212 >/dev/null 2>&1 &
s2=$!
on_exit "kill $s1 $s2 2>/dev/null"
for _ in $(seq 1 50); do	# readiness, not timing: both sessions established
	[ "$(in_b ss -Htn state established '( sport = :5212 )' | wc -l)" -ge 2 ] && break
	sleep 0.1
done
expect_reply garbage '^ERROR 1 server busy' 5212
kill $s1 $s2 2>/dev/null || true
wait $s1 $s2 2>/dev/null || true
stop_server
expect_eq "counted: busy" "$(stat_of "$WORK/server.log" busy)" 1
expect_ge "counted: failed or missing proofs of the key" "$(stat_of "$WORK/server.log" auth)" 3
echo "$TEST_NAME: $CHECKS checks passed"
