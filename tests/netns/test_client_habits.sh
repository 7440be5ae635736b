#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The client's iperf3 habits on a lab path: -C sets the congestion control
# of both ends' test connections (ss in the server's host shows it while the
# test runs; the JSON says what each end used), -i reports each second on a
# terminal and not in a pipe, -f units, -V; `ovlperf -c HOST` and `-s`,
# -T and --timestamps on every line of the tables; a bad -l refused before
# any output.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_pair ijh
start_server

# an algorithm that is not the namespace's default, so the check can fail
default=$(in_b sysctl -n net.ipv4.tcp_congestion_control)
ALG=reno
[ "$default" != reno ] || ALG=cubic

# cc_seen NAME PID: the server's host has an established data connection
# from the client with congestion control NAME while PID runs
cc_seen()
{
	local i out
	for i in $(seq 300); do
		out=$(in_b ss -tin state established dst 198.18.0.1 2>/dev/null || true)
		grep -qw "$1" <<<"$out" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	echo "$out" >&2
	return 1
}

for dir in "" -R; do
	in_a "$OVLPERF" client 198.18.0.2 -t 3 -C "$ALG" $dir --json-format iperf3 \
		>"$WORK/cc$dir.json" 2>>"$WORK/client.log" &
	pid=$!
	cc_seen "$ALG" "$pid" || fail "-C $ALG $dir: ss in the server's host never showed $ALG"
	wait "$pid" || fail "-C $ALG $dir: client failed: $(tail -3 "$WORK/client.log")"
	ok "-C $ALG ${dir:-forward}: the server's end of the test uses $ALG (ss -ti)"
	pyv "$WORK/cc$dir.json" 'd["end"]["sender_tcp_congestion"]' 'd["end"]["receiver_tcp_congestion"]'
	expect_eq "-C $ALG ${dir:-forward}: sender_tcp_congestion" "${V[0]}" "$ALG"
	expect_eq "-C $ALG ${dir:-forward}: receiver_tcp_congestion" "${V[1]}" "$ALG"
done
# without -C each end keeps its default, and says which
client "$WORK/nocc.json" 198.18.0.2 -t 1
in_a "$OVLPERF" client 198.18.0.2 -t 1 --json-format iperf3 >"$WORK/nocc3.json" 2>>"$WORK/client.log" ||
	fail "client without -C"
expect_eq "no -C: the server's default" "$(py "$WORK/nocc3.json" 'd["end"]["receiver_tcp_congestion"]')" "$default"
rc=0
in_a "$OVLPERF" client 198.18.0.2 -t 1 -C no_such_cc >/dev/null 2>"$WORK/nocc.err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "no_such_cc' is not available" "$WORK/nocc.err" ||
	fail "-C no_such_cc: rc $rc, $(cat "$WORK/nocc.err")"
ok "-C with an unknown algorithm fails, naming it"

# -i: each second on a terminal (script gives the client a pty), not in a pipe
script -qec "ip netns exec $A $OVLPERF client 198.18.0.2 -t 2" /dev/null >"$WORK/tty.txt" 2>&1 ||
	fail "client on a pty: $(cat "$WORK/tty.txt")"
expect_eq "terminal: a report per second" "$(grep -c '^ *[0-9.]*-[0-9.]* ' "$WORK/tty.txt")" 2
in_a "$OVLPERF" client 198.18.0.2 -t 2 >"$WORK/pipe.txt" 2>>"$WORK/client.log" || fail "client in a pipe"
expect_eq "pipe: the summary alone" "$(grep -c '^ *[0-9.]*-[0-9.]* ' "$WORK/pipe.txt")" 0
script -qec "ip netns exec $A $OVLPERF client 198.18.0.2 -t 2 -i 0" /dev/null >"$WORK/tty0.txt" 2>&1 ||
	fail "client -i 0 on a pty"
expect_eq "terminal with -i 0: none" "$(grep -c '^ *[0-9.]*-[0-9.]* ' "$WORK/tty0.txt")" 0

# -f M: rates in MB/s; -V: host, kernel and options
in_a "$OVLPERF" client 198.18.0.2 -t 1 -f M -V >"$WORK/fv.txt" 2>>"$WORK/client.log" || fail "client -f M -V"
grep -q '^sum .* MB/s' "$WORK/fv.txt" || fail "-f M: $(cat "$WORK/fv.txt")"
ok "-f M: the sum in MB/s"
grep -q "^host .*$(uname -r)" "$WORK/fv.txt" && grep -q '^options: TCP, 1 stream' "$WORK/fv.txt" ||
	fail "-V: $(head -3 "$WORK/fv.txt")"
ok "-V: host, kernel and options"

# --get-server-output: the server's end of the test, as it measured it
in_a "$OVLPERF" client 198.18.0.2 -t 2 -i 1 --get-server-output >"$WORK/so.txt" 2>>"$WORK/client.log" ||
	fail "--get-server-output: $(tail -3 "$WORK/client.log")"
grep -q '^Server output:' "$WORK/so.txt" && grep -q 'the server receiving' "$WORK/so.txt" &&
	[ "$(grep -c '^\[SUM\] .* s .*bit/s$' "$WORK/so.txt")" -eq 2 ] &&
	grep -q '^\[SUM\] .* receiver$' "$WORK/so.txt" || fail "--get-server-output: $(cat "$WORK/so.txt")"
ok "--get-server-output: the server's intervals and its receiver total"
in_a "$OVLPERF" client 198.18.0.2 -t 1 -R -u -b 5M --get-server-output --json-format iperf3 \
	>"$WORK/so.json" 2>>"$WORK/client.log" || fail "--get-server-output -R -u"
pyv "$WORK/so.json" '"the server sending" in d["server_output_text"]' \
	'" sender" in d["server_output_text"].splitlines()[-2]'
expect_eq "--get-server-output -R: the server sends" "${V[0]}" true
expect_eq "--get-server-output -R: its sender total" "${V[1]}" true

# --bidir: both directions at once, each summary marked as iperf3 marks it
in_a "$OVLPERF" client 198.18.0.2 -t 2 --bidir >"$WORK/bidir.txt" 2>>"$WORK/client.log" ||
	fail "--bidir: $(tail -3 "$WORK/client.log")"
grep -q '^\[TX-C\] TCP 198.18.0.1 -> 198.18.0.2' "$WORK/bidir.txt" &&
	grep -q '^\[RX-C\] TCP 198.18.0.2 -> 198.18.0.1' "$WORK/bidir.txt" || fail "--bidir: $(cat "$WORK/bidir.txt")"
ok "--bidir: a summary each way ([TX-C], [RX-C])"
rc=0
in_a "$OVLPERF" client 198.18.0.2 -t 1 --bidir -R >/dev/null 2>&1 || rc=$?
expect_eq "--bidir -R: a usage error" "$rc" 2
# iperf3's words: `ovlperf -s` serves, `ovlperf -c HOST` tests it
SERVER_PORT=5299 server_in "$B" "$WORK/s.log" -s -p 5299
in_a "$OVLPERF" -c 198.18.0.2 -p 5299 -t 0.3 -T box1 --timestamps='[%H:%M:%S] ' \
	>"$WORK/title.txt" 2>>"$WORK/client.log" || fail "ovlperf -c: $(tail -3 "$WORK/client.log")"
n=$(wc -l <"$WORK/title.txt")
[ "$n" -ge 3 ] || fail "ovlperf -c -T: $n lines: $(cat "$WORK/title.txt")"
bad=$(grep -cvE '^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\] box1:  ' "$WORK/title.txt" || true)
expect_eq "ovlperf -s / -c: lines of the tables without the time stamp and title" "$bad" 0
rc=0
in_a "$OVLPERF" client -c 198.18.0.2 -p 5299 -u -l 70000 >"$WORK/l.out" 2>"$WORK/l.err" || rc=$?
expect_eq "-u -l 70000: a usage error" "$rc" 2
[ ! -s "$WORK/l.out" ] || fail "-u -l 70000 printed before its error: $(cat "$WORK/l.out")"
grep -q '^ovlperf client: --length: ' "$WORK/l.err" || fail "-l 70000: $(cat "$WORK/l.err")"
ok "-u -l 70000: refused before any output"
echo "$TEST_NAME: $CHECKS checks passed"
