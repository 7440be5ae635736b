#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: the sender must reach 150 % of the line rate, which another test's load prevents
# RFC 2544's smallest frame, sent as such: 64-byte Ethernet frames (18 bytes
# of UDP payload over IPv4, ovlperf's short datagram header) in a line-rate
# sweep across a router (host 1) to host 2 over a link shaped to 2 Mbit/s of
# line rate (each frame also pays FCS, preamble, SFD and gap: 84 bytes).
# At 90 % of the line every frame arrives; at 150 % the shaper drops; and
# the shaper's byte counter equals the frame bytes ovlperf reports, less
# the FCS, for the datagrams it passed. Over IPv6 no 64-byte frame carries
# a UDP datagram (RFC 5180 5.1.1): the smallest, 82 bytes, runs the same.
# 2 Mbit/s, not 1 Gbit/s: this is about counting, and a shared machine
# cannot send 1.5 million datagrams a second; nothing here times anything.
# 150 %: a loaded machine's sender falls short of its rate (seen: 15 % at
# 6,700 frames/s), and must still be above the line's.
# --no-gso: each datagram crosses the nft counters as one packet (a GSO
# batch is one skb there).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/layers_lib.sh"

LAB=ly64
OUT=$(mktemp -d)
on_exit "rm -rf $OUT"

lab_make $LAB --hosts 3 --link 1:rate=2M,rate-layer=line
R=ovp-$LAB-1
S=ovp-$LAB-2
DST=198.18.1.2
DST6=2001:2:0:1::2

server_in "$S" "$OUT/server.log" server

# Test datagrams by their IP length (IPv4: 20 + 8 + 18; IPv6's payload
# length: 8 + 16), counted on both sides of the tbf (layers_lib.sh).
ly_count_up ly64_count 46 24
counters() { ly_counters ly64_count; }

# sweep NAME ARGS...: a two-point line-rate sweep (90 % and 150 % of the
# line), its JSON and the counters' deltas into $OUT/NAME.check.
sweep()
{
	local name=$1 before after
	shift
	before=$(counters)
	in_a "$OVLPERF" sweep --no-progress --no-gso --size-layer frame --rate-layer line \
		--from 1.8M --to 3M --step 1.2M -t 2 --gap 300ms -J "$@" >"$OUT/$name.json"
	after=$(counters)
	python3 - "$OUT/$name.json" "$before" "$after" >"$OUT/$name.check" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["points"]
b, a = (list(map(int, s.split())) for s in sys.argv[2:4])
ep, eb, ip_, ib, ap, ab, qb, qp, qd = (y - x for x, y in zip(b, a))
fcs = 4
L = [x["layers"] for x in p]
print("family", L[0]["family"])
print("sizes", *(L[0][k]["datagram_bytes"] for k in ("payload", "ip", "frame", "line")))
print("targets", *(x["target_bps"] for x in p))
print("lost", *(x["lost"] for x in p))
print("delivered_low", p[0]["delivered_pct"])
sent = sum(x["sent"] for x in p)
received = sum(x["received"] for x in p)
print("frame_bytes_ok", int(all(l["frame"]["received_bytes"] == x["received"] * l["frame"]["datagram_bytes"] for x, l in zip(p, L))))
print("hook_pkts_ok", int(ep == sent))
print("hook_bytes_ok", int(eb == sum(l["frame"]["sent_bytes"] for l in L) - fcs * sent))
print("tbf_to_far_ok", int(qp == ap and qb == ab + 14 * ap))
print("far_test_ok", int(ip_ == received))
other = (ab - ib) + 14 * (ap - ip_)
rep = sum(l["frame"]["received_bytes"] for l in L) - fcs * received
print("qdisc_test_bytes", qb - other)
print("reported_frame_bytes_less_fcs", rep)
print("qdisc_exact", int(qb - other == rep))
print("shaper_lost", ep - ip_)
print("lost_total", sum(x["lost"] for x in p))
print("qdisc_drops", qd)
EOF
	sed "s/^/  $name: /" "$OUT/$name.check"
}
get() { awk -v k="$2" '$1 == k {print $2}' "$OUT/$1.check"; }
fields() { awk -v k="$2" '$1 == k {$1 = ""; print substr($0, 2)}' "$OUT/$1.check"; }

check()
{
	local n=$1 lost
	expect_eq "$n: nothing lost at 90 % of the line" "$(get "$n" delivered_low)" 100
	lost=$(fields "$n" lost | awk '{print $2}')
	[ "$lost" -gt 0 ] || fail "$n: 150 % of the line lost nothing"
	ok "$n: $lost datagrams lost at 150 % of the line"
	expect_eq "$n: all of them at the shaper" "$(get "$n" shaper_lost)" "$(get "$n" lost_total)"
	[ "$(get "$n" qdisc_drops)" -ge "$lost" ] || fail "$n: the tbf dropped fewer than $lost"
	ok "$n: the tbf counted those drops"
	expect_eq "$n: frame bytes = received * frame size" "$(get "$n" frame_bytes_ok)" 1
	expect_eq "$n: the egress hook saw the datagrams sent" "$(get "$n" hook_pkts_ok)" 1
	expect_eq "$n: each as the frame less its FCS" "$(get "$n" hook_bytes_ok)" 1
	expect_eq "$n: the far end got what the tbf sent" "$(get "$n" tbf_to_far_ok)" 1
	expect_eq "$n: the far end got the datagrams received" "$(get "$n" far_test_ok)" 1
	expect_eq "$n: tbf bytes = reported frame bytes - FCS" "$(get "$n" qdisc_exact)" 1
}

# IPv4, 64-byte frames: 84 bytes on the line; 1.8 Mbit/s is 2678 frames/s,
# 3 Mbit/s 4464, each 18 bytes of payload.
sweep v4 -l 64 -4 $DST
expect_eq "IPv4: family" "$(get v4 family)" ipv4
expect_eq "IPv4: sizes payload ip frame line" "$(fields v4 sizes)" "18 46 64 84"
expect_eq "IPv4: payload rates for 2678 and 4464 frames/s" "$(fields v4 targets)" \
	"$((2678 * 18 * 8)) $((4464 * 18 * 8))"
check v4

# IPv6, 82-byte frames (the smallest): 102 on the line; 2205 and 3676
# frames/s of 16 bytes of payload.
sweep v6 -l 82 -6 $DST6
expect_eq "IPv6: family" "$(get v6 family)" ipv6
expect_eq "IPv6: sizes payload ip frame line" "$(fields v6 sizes)" "16 64 82 102"
expect_eq "IPv6: payload rates for 2205 and 3676 frames/s" "$(fields v6 targets)" \
	"$((2205 * 16 * 8)) $((3676 * 16 * 8))"
check v6
# The end marker keeps the full 32-byte header: the receiver takes it whole
# (nothing malformed) and stops on it, in either direction.
for dir in "" -R; do
	in_a "$OVLPERF" client -u --size-layer frame -l 64 -b 100k -t 1 $dir --json $DST >"$OUT/c.json"
	expect_eq "client ${dir:-forward}: malformed, lost" "$(python3 -c 'import json, sys
u = json.load(open(sys.argv[1]))["udp"]; print(u["malformed"], u["lost"], u["sent"] == u["received"] > 0)' "$OUT/c.json")" "0 0 True"
done
echo "$TEST_NAME: $CHECKS checks passed"
