#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# TCP loads between two lab hosts: both directions, 4 streams, IPv4 and
# IPv6; byte counts agree between the ends, TCP_INFO is filled from both
# ends, MSS is what MTU 1500 implies, TCP_MAXSEG is applied.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_pair en
start_server

check_tcp() # FILE STREAMS MSS
{
	local f=$1 n=$2 mss=$3
	pyv "$f" 'len(d["streams"])' 'd["error"]' 'd["tcp"]["bytes"]' 'd["tcp"]["sent_bytes"]' \
		'sum(s["bytes"] for s in d["streams"])' 'all(s["bytes"] > 0 for s in d["streams"])' \
		'd["tcp"]["snd_mss"]' 'd["tcp"]["receiver"]["rcv_mss"]' 'd["tcp"]["pmtu"]' \
		'all(s[k] > 0 for s in (d["tcp"]["sender"], d["tcp"]["receiver"]) for k in ("rtt_us","snd_mss","adv_mss","rcv_mss","pmtu","snd_cwnd"))' \
		'all(s["sender"]["snd_mss"] > 0 and s["receiver"]["rcv_mss"] > 0 for s in d["streams"])' \
		'd["cpu"]["sender"]["sys_s"] + d["cpu"]["sender"]["user_s"] > 0'
	expect_eq "$f: streams" "${V[0]}" "$n"
	expect_eq "$f: error" "${V[1]}" "None"
	expect_ge "$f: bytes" "${V[2]}" 1
	# every byte written arrived (no omit, clean end of stream)
	expect_eq "$f: sent = received" "${V[3]}" "${V[2]}"
	expect_eq "$f: sum of streams" "${V[4]}" "${V[2]}"
	expect_eq "$f: every stream moved data" "${V[5]}" "true"
	expect_eq "$f: sender snd_mss" "${V[6]}" "$mss"
	expect_eq "$f: receiver rcv_mss" "${V[7]}" "$mss"
	expect_eq "$f: pmtu" "${V[8]}" 1500
	expect_eq "$f: TCP_INFO non-zero at both ends" "${V[9]}" "true"
	expect_eq "$f: per-stream TCP_INFO" "${V[10]}" "true"
	expect_eq "$f: CPU measured" "${V[11]}" "true"
}

client "$WORK/fwd4.json" 198.18.0.2 -t 1 -P 4
check_tcp "$WORK/fwd4.json" 4 1448
client "$WORK/rev4.json" 198.18.0.2 -t 1 -P 4 -R
check_tcp "$WORK/rev4.json" 4 1448
expect_eq "reverse: remote is the sender" "$(py "$WORK/rev4.json" 'd["test"]["reverse"]')" "true"
client "$WORK/fwd6.json" 2001:2::2 -t 1 -P 4
check_tcp "$WORK/fwd6.json" 4 1428
expect_eq "IPv6 data path" "$(py "$WORK/fwd6.json" 'd["remote_addr"]')" "2001:2::2"
client "$WORK/rev6.json" 2001:2::2 -t 1 -P 4 -R
check_tcp "$WORK/rev6.json" 4 1428

# TCP_MAXSEG: the segments shrink to the asked MSS (minus TCP options)
client "$WORK/mss.json" 198.18.0.2 -t 1 -M 1000
mss=$(py "$WORK/mss.json" 'd["tcp"]["snd_mss"]')
[ "$mss" -le 1000 ] && [ "$mss" -ge 900 ] || fail "-M 1000 gave snd_mss $mss"
ok "-M 1000: snd_mss $mss"

# intervals: one per second, summing to about the total
client "$WORK/int.json" 198.18.0.2 -t 2 -i 1
expect_eq "intervals" "$(py "$WORK/int.json" 'len(d["intervals"])')" 2

# the human printer shows the summary and the TCP_INFO lines
in_a "$OVLPERF" client 198.18.0.2 -t 1 >"$WORK/term.txt" 2>>"$WORK/client.log" || fail "terminal run"
grep -q '^sum ' "$WORK/term.txt" || fail "no sum line: $(cat "$WORK/term.txt")"
grep -q 'TCP_INFO receiver' "$WORK/term.txt" || fail "no TCP_INFO line"
ok "terminal report"
echo "$TEST_NAME: $CHECKS checks passed"
