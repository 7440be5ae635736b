#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Probes that never leave the host are lost probes, not a broken run.
# 1. A local firewall on the client drops UDP above 1400 bytes on output:
#    sendmsg() fails with EPERM for those sizes. `ovlperf mtu` must go on
#    searching, find exactly 1400 (IPv4 and IPv6), call it a black hole
#    whose cause is this host (refused probes counted, the error named), and
#    give a fix about the local firewall, not "check that the server runs".
#    The nft counter of the rule says how many probes it refused: ovlperf's
#    count must equal it.
# 2. The far host's interface is narrower (1400) than the near one (1500)
#    and drops larger frames silently (no router, no ICMP): a black hole at
#    the far end. veth accepts a frame up to MTU + 4 bytes (room for a VLAN
#    tag, is_skb_forwardable() in the kernel), so the exact answer on this
#    link is 1404 over IPv4 and IPv6. veth books the far side's drop as a
#    transmit drop of the near device and the sender's sendmsg() gets
#    ENOBUFS: the count must equal the near device's TX dropped counter, and
#    the verdict must name the far interface's MTU, not this host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"

mt_chain lmr 2 1500
mt_server "$B"

in_a nft -f - <<'NFT'
table inet lmr_out {
	chain out {
		type filter hook output priority 0; policy accept;
		meta l4proto udp meta length > 1400 counter drop
	}
}
NFT
nft_drops() { in_a nft list table inet lmr_out | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }

for fam in 4 6; do
	if [ $fam = 4 ]; then dst=$B4; else dst=$B6; fi
	before=$(nft_drops)
	mt_probe "$MT_DIR/fw$fam.json" "$A" "$dst"
	J=$MT_DIR/fw$fam.json
	refused_kernel=$(($(nft_drops) - before))
	expect_eq "IPv$fam firewall: exit status (FAIL)" "$MT_RC" 1
	expect_eq "IPv$fam firewall: path status (the search completed)" "$(json_get "$J" paths.0.status)" 0
	expect_eq "IPv$fam firewall: path MTU" "$(json_get "$J" paths.0.pmtu)" 1400
	expect_eq "IPv$fam firewall: smallest failed" "$(json_get "$J" paths.0.smallest_failed)" 1401
	expect_eq "IPv$fam firewall: black hole" "$(json_get "$J" paths.0.blackhole)" true
	expect_ge "IPv$fam firewall: the nft rule refused probes" "$refused_kernel" 1
	# The search's probes and the round without DF at 1500 after it.
	expect_eq "IPv$fam firewall: refused probes (search + no-DF round) = the nft counter" \
		"$(($(json_get "$J" paths.0.probes_refused) + $(json_get "$J" paths.0.nodf.refused)))" \
		"$refused_kernel"
	expect_eq "IPv$fam firewall: the no-DF round refused whole" "$(json_get "$J" paths.0.nodf.refused)" 3
	expect_eq "IPv$fam firewall: refusal named" "$(json_get "$J" paths.0.refused_error)" \
		"Operation not permitted"
	expect_eq "IPv$fam firewall: blackhole verdict" "$(mt_verdict "$J" "$dst" blackhole)" FAIL
	mt_reason "$J" "$dst" blackhole | grep -q "1401 bytes and more never leave this host.*Operation not permitted.*largest size that passes is 1400.*local firewall drops them on output" ||
		fail "firewall reason/fix: $(mt_reason "$J" "$dst" blackhole)"
	ok "IPv$fam firewall: reason names this host and the fix the local firewall"
done
in_a nft delete table inet lmr_out

# The far end narrower than the near end, no router in between.
in_b ip link set ovp0 mtu 1400
tx_dropped() { in_a cat /sys/class/net/ovp0/statistics/tx_dropped; }
for fam in 4 6; do
	if [ $fam = 4 ]; then dst=$B4; else dst=$B6; fi
	before=$(tx_dropped)
	mt_probe "$MT_DIR/far$fam.json" "$A" "$dst"
	J=$MT_DIR/far$fam.json
	dropped_kernel=$(($(tx_dropped) - before))
	expect_eq "IPv$fam far end narrower: exit status (FAIL)" "$MT_RC" 1
	expect_eq "IPv$fam far end narrower: path MTU (1400 + veth's 4)" "$(json_get "$J" paths.0.pmtu)" 1404
	expect_eq "IPv$fam far end narrower: black hole" "$(json_get "$J" paths.0.blackhole)" true
	expect_eq "IPv$fam far end narrower: no ICMP" "$(json_get "$J" paths.0.icmp_seen)" false
	expect_eq "IPv$fam far end narrower: refused (search + no-DF) = the device's TX dropped" \
		"$(($(json_get "$J" paths.0.probes_refused) + $(json_get "$J" paths.0.nodf.refused)))" \
		"$dropped_kernel"
	expect_eq "IPv$fam far end narrower: the refusal" "$(json_get "$J" paths.0.refused_error)" \
		"No buffer space available"
	expect_eq "IPv$fam far end narrower: the far interface's MTU" "$(json_get "$J" paths.0.server_if_mtu)" 1400
	expect_eq "IPv$fam far end narrower: blackhole verdict" "$(mt_verdict "$J" "$dst" blackhole)" FAIL
	mt_reason "$J" "$dst" blackhole | grep -q "1405 bytes and more vanish at the far end: its interface MTU 1400 is smaller than this end's 1500.*same MTU: 1400 on ovp0" ||
		fail "far end reason/fix: $(mt_reason "$J" "$dst" blackhole)"
	ok "IPv$fam far end narrower: reason names the far interface and the fix"
done
echo "$TEST_NAME: $CHECKS checks passed"
