#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The MSS in one vocabulary, against what the kernel and nftables did.
# 1. An SD-WAN-style clamp on the middle router (nftables `tcp option maxseg
#    size set 1348` on SYN and SYN-ACK): `ovlperf mtu --tcp-mss` reports the
#    option value 1348 and the payload per segment 1336 (12 bytes of
#    timestamps), the client's SYN leaving with 1460 (IPv6: 1440) and
#    arriving with 1348 (the server's saved SYN), "clamped on the path", OK
#    because it fits the 1500 path; `--expect-mss 1348` passes and
#    `--expect-mss 1336` (the payload) fails. The nft rule's counter sees the
#    SYN and the SYN-ACK of the control and the check's connections.
# 2. The far end's own clamp: its route to the client has `advmss 1300`, so
#    its SYN-ACK carries 1300: "as the far end advertises", OK.
# 3. A clamp larger than the path allows is never advised: covered by
#    test_mtu_path.sh (MSS 1460 on a 1400 path: fix "clamp MSS to 1360").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"

mt_chain lms 3 1500
mt_server "$B"
R=ovp-lms-1
ip netns exec "$R" nft -f - <<'NFT'
table inet lms_clamp {
	chain clamp {
		type filter hook forward priority 0; policy accept;
		tcp flags & (syn | rst) == syn counter tcp option maxseg size set 1348
	}
}
NFT
clamped() { ip netns exec "$R" nft list table inet lms_clamp | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }

for fam in 4 6; do
	if [ $fam = 4 ]; then dst=$B4 own=1460; else dst=$B6 own=1440; fi
	before=$(clamped)
	mt_probe "$MT_DIR/c$fam.json" "$A" "$dst" --tcp-mss --expect-mss 1348
	J=$MT_DIR/c$fam.json
	# SYN and SYN-ACK of the control connection and of the check's.
	expect_eq "IPv$fam clamp: SYNs through the clamp rule" "$(($(clamped) - before))" 4
	expect_eq "IPv$fam clamp: exit status" "$MT_RC" 0
	expect_eq "IPv$fam clamp: MSS option" "$(json_get "$J" paths.0.tcp.mss.option)" 1348
	expect_eq "IPv$fam clamp: payload per segment" "$(json_get "$J" paths.0.tcp.mss.payload)" 1336
	expect_eq "IPv$fam clamp: TCP options per segment" "$(json_get "$J" paths.0.tcp.mss.options_len)" 12
	expect_eq "IPv$fam clamp: the SYN as it left" "$(json_get "$J" paths.0.tcp.mss.syn_sent)" $own
	expect_eq "IPv$fam clamp: the SYN as it arrived" "$(json_get "$J" paths.0.tcp.mss.syn_arrived)" 1348
	expect_eq "IPv$fam clamp: who clamped" "$(json_get "$J" paths.0.tcp.mss.clamped)" path
	expect_eq "IPv$fam clamp: mss verdict" "$(mt_verdict "$J" "$dst" mss)" OK
	mt_reason "$J" "$dst" mss | grep -q "^MSS 1348 (1336 bytes of payload per segment), clamped on the path (the SYN left with $own and arrived with 1348): fits the path MTU 1500, which allows up to MSS $own | $" ||
		fail "clamp reason: $(mt_reason "$J" "$dst" mss)"
	ok "IPv$fam clamp: reason in the option value, who clamped, no fix"
	expect_eq "IPv$fam clamp: --expect-mss 1348" "$(mt_verdict "$J" "$dst" expect)" OK
	mt_probe "$MT_DIR/p$fam.json" "$A" "$dst" --tcp-mss --expect-mss 1336
	expect_eq "IPv$fam clamp: --expect-mss 1336 (the payload) exits 1" "$MT_RC" 1
	expect_eq "IPv$fam clamp: --expect-mss 1336 verdict" "$(mt_verdict "$MT_DIR/p$fam.json" "$dst" expect)" FAIL
done
ip netns exec "$R" nft delete table inet lms_clamp

# The far end's own clamp: its routes back to the client advertise 1300.
in_b ip route change 198.18.0.0/24 via 198.18.1.1 advmss 1300
in_b ip -6 route change 2001:2::/64 via 2001:2:0:1::1 advmss 1300
for fam in 4 6; do
	if [ $fam = 4 ]; then dst=$B4; else dst=$B6; fi
	mt_probe "$MT_DIR/f$fam.json" "$A" "$dst" --tcp-mss
	J=$MT_DIR/f$fam.json
	expect_eq "IPv$fam far end: MSS option" "$(json_get "$J" paths.0.tcp.mss.option)" 1300
	expect_eq "IPv$fam far end: payload" "$(json_get "$J" paths.0.tcp.mss.payload)" 1288
	expect_eq "IPv$fam far end: the SYN-ACK as it left" "$(json_get "$J" paths.0.tcp.mss.synack_sent)" 1300
	expect_eq "IPv$fam far end: who clamped" "$(json_get "$J" paths.0.tcp.mss.clamped)" far-end
	expect_eq "IPv$fam far end: mss verdict" "$(mt_verdict "$J" "$dst" mss)" OK
done
echo "$TEST_NAME: $CHECKS checks passed"
