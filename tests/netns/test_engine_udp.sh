#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UDP loads between two lab hosts: the counts add up (sent = received +
# lost), no loss at a low rate in both directions and both families, an
# nftables drop rule of 5 % shows up as loss attributed to the network, and
# a tiny receive buffer at a high rate shows up as loss at the receiver's
# socket.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_pair en2
start_server

check_counts() # FILE [EXPECTED_ERROR_PREFIX]
{
	local f=$1 want=${2:-None}
	pyv "$f" 'str(d["error"])[:'"${#want}"']' 'd["udp"]["sent"]' 'd["udp"]["received"] + d["udp"]["lost"]' \
		'sum(s["udp"]["sent"] for s in d["streams"])' 'sum(d["udp"]["loss_at"].values())' \
		'd["udp"]["lost"]' 'd["udp"]["malformed"]'
	expect_eq "$f: error" "${V[0]}" "$want"
	expect_ge "$f: sent" "${V[1]}" 1
	expect_eq "$f: sent = received + lost" "${V[1]}" "${V[2]}"
	expect_eq "$f: streams add up" "${V[3]}" "${V[1]}"
	expect_eq "$f: loss_at sums to lost" "${V[4]}" "${V[5]}"
	expect_eq "$f: no malformed" "${V[6]}" 0
}

check_clean() # FILE
{
	local f=$1
	check_counts "$f"
	pyv "$f" 'd["udp"]["lost"]' 'd["udp"]["duplicates"]' \
		'd["udp"]["owd_shared_clock"] and d["udp"]["owd_us"]["min"] > 0 and d["udp"]["owd_us"]["min"] <= d["udp"]["owd_us"]["p50"] <= d["udp"]["owd_us"]["p99"] <= d["udp"]["owd_us"]["max"]' \
		'sum(s["bytes"] for s in d["streams"]) == d["udp"]["received"] * d["udp"]["len"]'
	expect_eq "$f: lost" "${V[0]}" 0
	expect_eq "$f: duplicates" "${V[1]}" 0
	expect_eq "$f: one-way delay exact (shared clock)" "${V[2]}" "true"
	expect_eq "$f: receiver counted bytes" "${V[3]}" "true"
}

client "$WORK/v4.json" 198.18.0.2 -u -b 20M -t 1
check_clean "$WORK/v4.json"
client "$WORK/v4r.json" 198.18.0.2 -u -b 20M -t 1 -R -P 2
check_clean "$WORK/v4r.json"
client "$WORK/v6.json" 2001:2::2 -u -b 20M -t 1 -P 3 -l 1200
check_clean "$WORK/v6.json"
expect_eq "IPv6 datagram length" "$(py "$WORK/v6.json" 'd["udp"]["len"]')" 1200
client "$WORK/v6r.json" 2001:2::2 -u -b 20M -t 1 -R --no-gso --no-gro
check_clean "$WORK/v6r.json"
expect_eq "GSO off when asked" "$(py "$WORK/v6r.json" 'd["udp"]["gso"]')" "false"

# warm-up datagrams are not counted
client "$WORK/omit.json" 198.18.0.2 -u -b 20M -t 1 -O 0.5
check_clean "$WORK/omit.json"
sent=$(py "$WORK/omit.json" 'd["udp"]["sent"]')
[ "$sent" -le 1800 ] || fail "omit: $sent datagrams counted for 1 s at 20M"
ok "omit: $sent datagrams counted"

# Ctrl-C in the middle: what was measured is reported, marked interrupted,
# and the receiving end drained what was in flight (no false loss)
# (ip netns exec execs the client: $! is the client itself)
# (interrupted once 1 s of the 50 Mbit/s, 6.25 MB, crossed the link)
from=$(link_bytes "$A")
ip netns exec "$A" "$OVLPERF" client 198.18.0.2 -u -b 50M -t 10 -R --json >"$WORK/intr.json" \
	2>>"$WORK/client.log" &
cpid=$!
wait_link_bytes "$A" "$from" 6250000 "$cpid"
kill -INT $cpid
rc=0
wait $cpid || rc=$?
expect_eq "interrupted client exit status" "$rc" 1
check_counts "$WORK/intr.json" "interrupted"
pyv "$WORK/intr.json" 'd["interrupted"]' 'd["udp"]["lost"]' 'd["duration_s"] < 9'
expect_eq "marked interrupted" "${V[0]}" "true"
expect_eq "interrupted: no false loss" "${V[1]}" 0
expect_eq "interrupted: partial duration" "${V[2]}" "true"

# 5 % random drop of UDP at the receiver's input: loss on the path
in_b nft -f - <<'NFT'
table inet ovpdrop {
	chain in { type filter hook input priority 0; policy accept;
		meta l4proto udp numgen random mod 100 < 5 drop
	}
}
NFT
on_exit "ip netns exec $B nft delete table inet ovpdrop"
client "$WORK/drop.json" 198.18.0.2 -u -b 100M -t 1
in_b nft delete table inet ovpdrop
check_counts "$WORK/drop.json"
pct=$(py "$WORK/drop.json" 'round(100.0 * d["udp"]["loss_at"]["network"] / d["udp"]["sent"], 2)')
# 8900 datagrams: 5 % +- 4.5 sd is 3.9 .. 6.1 %
python3 -c "import sys; sys.exit(0 if 3.5 <= $pct <= 6.5 else 1)" || fail "network loss $pct %, rule drops 5 %"
ok "loss attributed to the network: $pct % (rule: 5 %)"
expect_eq "no loss blamed on the hosts" "$(py "$WORK/drop.json" 'd["udp"]["loss_at"]["network"]')" \
	"$(py "$WORK/drop.json" 'd["udp"]["lost"]')"

# a 4 KiB receive buffer and no GRO at 1 Gbit/s: the receiver's socket drops
client "$WORK/rcvbuf.json" 198.18.0.2 -u -b 1G -t 1 -w 4K --no-gro
check_counts "$WORK/rcvbuf.json"
expect_ge "tiny rcvbuf: lost" "$(py "$WORK/rcvbuf.json" 'd["udp"]["lost"]')" 1
expect_eq "tiny rcvbuf: loss at the receiver's socket" \
	"$(py "$WORK/rcvbuf.json" 'd["udp"]["loss_at"]["receiver_socket"] + d["udp"]["loss_at"]["receiver_rcvbuf"] >= 0.9 * d["udp"]["lost"]')" "true"

# the human printer names where the loss happened
in_a "$OVLPERF" client 198.18.0.2 -u -b 1G -t 1 -w 4K --no-gro >"$WORK/term.txt" 2>>"$WORK/client.log" ||
	fail "terminal run"
grep -q "the test's own receive socket .*fix: a receive buffer" "$WORK/term.txt" ||
	fail "no loss place line: $(cat "$WORK/term.txt")"
ok "terminal report names the loss place"
echo "$TEST_NAME: $CHECKS checks passed"
