#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 14
# A tunnel with 100 configured peers routing by allowed IPs (a hub
# of many peers must still hand each packet to its owner).
# Lab "ff", 4 hosts in a chain; the hub (host 1, underlay 198.18.0.2) has
# 100 [peer] sections, peer k owning 198.19.1.k/32 and 2001:2:0:ff::1:k/128.
# Three of them exist: hosts 0, 2 and 3 run spokes as peers 17, 50 and 99.
# Checked: every spoke reaches the hub's overlay address and the hub reaches
# every spoke over IPv4 and IPv6 (a reply from the address only that spoke
# has), the hub's per-peer counters move for exactly the peer addressed, a
# TCP transfer to each spoke arrives whole (SHA-256), packets to an absent
# peer's allowed IPs reach no spoke, and a spoke sending from another
# peer's address is dropped by the hub (allowed IPs filter on receive too).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"
. "$(dirname "$0")/fault_lib.sh"

lab_make ff --hosts 4
HUB=ovp-ff-1
declare -A SPOKE_NS=([17]=ovp-ff-0 [50]=ovp-ff-2 [99]=ovp-ff-3)
declare -A SPOKE_UL=([17]=198.18.0.1 [50]=198.18.1.2 [99]=198.18.2.2)
TU_LOG_DIR=$FA_DIR

tu_key hub
{
	printf '[interface]\nprivate_key_file = hub.key\nlisten = 198.18.0.2:51900\n'
	printf 'address = 198.19.0.1/16, 2001:2:0:ff::1/64\n'
	for k in $(seq 1 100); do
		tu_key p$k
		printf '\n[peer]\npublic_key = %s\n' "$(cat "$TU_DIR/p$k.pub")"
		printf 'allowed_ips = 198.19.1.%d/32, 2001:2:0:ff::1:%x/128\n' "$k" "$k"
		[ -n "${SPOKE_UL[$k]:-}" ] && printf 'endpoint = %s:51900\n' "${SPOKE_UL[$k]}"
	done
} >"$TU_DIR/hub.conf"
tu_up "$HUB" hub.conf ovl0
expect_eq "peers configured on the hub" "$(tu_show "$HUB" ovl0 peers)" 100

for k in "${!SPOKE_NS[@]}"; do
	cat >"$TU_DIR/s$k.conf" <<-CONF
	[interface]
	private_key_file = p$k.key
	listen = ${SPOKE_UL[$k]}:51900
	address = 198.19.1.$k/16, 2001:2:0:ff::1:$(printf %x "$k")/64
	[peer]
	public_key = $(cat "$TU_DIR/hub.pub")
	endpoint = 198.18.0.2:51900
	allowed_ips = 198.19.0.0/16, 2001:2:0:ff::/64
	CONF
	tu_up "${SPOKE_NS[$k]}" "s$k.conf" ovl0
done
for k in "${!SPOKE_NS[@]}"; do tu_wait_handshake "${SPOKE_NS[$k]}" ovl0; done
expect_eq "hub peers with a handshake (the three that exist)" \
	"$(tu_show "$HUB" ovl0 peers_with_handshake)" 3

# peer_stat K FIELD: FIELD of the hub's peer K (by public key) from the raw show
peer_stat()
{
	# whole output first: awk stopping early must not SIGPIPE the writer (pipefail)
	local raw
	raw=$(ip netns exec "$HUB" "$OVLPERF" tunnel show ovl0 --raw)
	awk -v key="$(cat "$TU_DIR/p$1.pub")" -v f="$2" -F= '
		/^peer=/ { cur = (substr($0, 6) == key) }
		cur && $1 == f { print substr($0, length(f) + 2); exit }' <<<"$raw"
}
# nft_counters NS TABLE RULES: counting rules (one a line) on the prerouting
# hook of NS, ahead of everything: they see each packet a daemon writes to
# its TUN, by address, so unrelated traffic (keepalives, neighbour
# discovery) cannot blur an exact count
nft_counters()
{
	ip netns exec "$1" nft -f - <<-NFT || fail "nft in $1"
	table inet $2 {
		chain prerouting {
			type filter hook prerouting priority -300; policy accept;
			$3
		}
	}
	NFT
}
# nft_count NS TABLE [N]: packets the Nth rule counted (all rules summed without N)
nft_count()
{
	local t
	t=$(ip netns exec "$1" nft list table inet "$2")
	sed -n 's/.*counter packets \([0-9]*\).*/\1/p' <<<"$t" |
		if [ -n "${3:-}" ]; then sed -n "${3}p"; else paste -sd+ | bc; fi
}

raw=$(ip netns exec "$HUB" "$OVLPERF" tunnel show ovl0 --raw)
[ "$(grep -c '^peer=' <<<"$raw")" = 100 ] ||
	fail "the hub's show does not list 100 peers"
ok "the hub's show lists 100 peers"

for k in 17 50 99; do
	ns=${SPOKE_NS[$k]}
	ip netns exec "$ns" ping -c 2 -i 0.2 -W 2 198.19.0.1 >/dev/null || fail "peer $k: ping hub"
	ip netns exec "$ns" ping -6 -c 2 -i 0.2 -W 2 2001:2:0:ff::1 >/dev/null || fail "peer $k: ping6 hub"
	ok "peer $k ($ns) reaches the hub over IPv4 and IPv6"
	before=$(peer_stat $k tx_packets)
	others=$(for o in 17 50 99; do [ $o = $k ] || peer_stat $o tx_packets; done | paste -sd+ | bc)
	src=$(ip netns exec "$HUB" ping -c 3 -i 0.2 -W 2 "198.19.1.$k" | sed -n 's/.*bytes from \([0-9.]*\):.*/\1/p' | sort -u)
	expect_eq "hub -> 198.19.1.$k: replies from" "$src" "198.19.1.$k"
	ip netns exec "$HUB" ping -6 -c 2 -i 0.2 -W 2 "2001:2:0:ff::1:$(printf %x $k)" >/dev/null ||
		fail "hub -> peer $k over IPv6"
	after=$(peer_stat $k tx_packets)
	others2=$(for o in 17 50 99; do [ $o = $k ] || peer_stat $o tx_packets; done | paste -sd+ | bc)
	expect_ge "hub tx_packets to peer $k" $((after - before)) 5
	# (keepalives could move the others by a packet or two; 5 pings could not hide)
	[ $((others2 - others)) -le 2 ] || fail "pings to peer $k went to other peers ($((others2 - others)))"
	ok "hub's pings to peer $k counted on peer $k only"
	fa_payload 1M
	fa_recv "$ns" "198.19.1.$k" 5001
	fa_send "$HUB" "198.19.1.$k" 5001 100000000
	fa_finish "TCP 1 MiB hub -> peer $k"
done

# An absent peer's addresses: nothing reaches any spoke.
for k in 17 50 99; do
	nft_counters "${SPOKE_NS[$k]}" ovpabsent \
		'iifname "ovl0" ip daddr { 198.19.1.5, 198.19.1.42, 198.19.1.100 } counter
		iifname "ovl0" ip6 daddr { 2001:2:0:ff::1:5, 2001:2:0:ff::1:2a, 2001:2:0:ff::1:64 } counter'
done
drops0=$(tu_show "$HUB" ovl0 counter.tun_rx_packets)
pids=()
for k in 5 42 100; do # in parallel: each waits 1 s for the reply that must not come
	ip netns exec "$HUB" ping -c 2 -i 0.2 -W 1 "198.19.1.$k" >/dev/null 2>&1 &
	pids+=($!)
	ip netns exec "$HUB" ping -6 -c 1 -W 1 "2001:2:0:ff::1:$(printf %x $k)" >/dev/null 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" && fail "a reply from an absent peer"; done
for k in 5 42 100; do
	expect_eq "absent peer $k: nothing sent to it" "$(peer_stat $k tx_packets)" 0
done
for k in 17 50 99; do
	expect_eq "peer $k: packets to the absent peers' addresses on its TUN" \
		"$(nft_count "${SPOKE_NS[$k]}" ovpabsent)" 0
done
ok "pings to absent peers 5, 42, 100 delivered to no spoke"
expect_ge "hub read those packets from its TUN" \
	$(($(tu_show "$HUB" ovl0 counter.tun_rx_packets) - drops0)) 9

# Spoke 17 sending from peer 50's address: the hub must drop it. What its
# daemon writes to its TUN is counted by source in the hub's nftables (a
# counter on ovl0's ingress, before any routing): the spoofed source must
# count 0, while spoke 17's own source, pinged the same way, counts every
# echo (so the counter does see what the daemon delivers).
ns=${SPOKE_NS[17]}
ip -n "$ns" addr add 198.19.1.50/32 dev ovl0
nft_counters "$HUB" ovpspoof \
	'iifname "ovl0" ip saddr 198.19.1.50 icmp type echo-request counter
	iifname "ovl0" ip saddr 198.19.1.17 icmp type echo-request counter'
rx17=$(peer_stat 17 rx_packets)
ip netns exec "$ns" ping -c 3 -i 0.2 -W 1 -I 198.19.1.50 198.19.0.1 >/dev/null 2>&1 &&
	fail "the hub answered a spoke spoofing another peer's address"
expect_ge "the spoofed packets reached the hub's daemon (peer 17 rx_packets)" \
	$(($(peer_stat 17 rx_packets) - rx17)) 3
expect_eq "spoofed echo requests the hub's daemon wrote to its TUN" "$(nft_count "$HUB" ovpspoof 1)" 0
# every echo reply ping got is a request the hub's TUN counted (a loaded
# machine may lose one of the three on the way: a fresh-clone CI counted 2)
got=$(ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 -I 198.19.1.17 198.19.0.1 |
	sed -n 's/.* \([0-9]*\) received.*/\1/p' || true)
[ "${got:-0}" -ge 1 ] || fail "spoke 17 from its own address: ping hub: no reply"
n=$(nft_count "$HUB" ovpspoof 2)
[ "$n" -ge "$got" ] && [ "$n" -le 3 ] ||
	fail "echo requests from spoke 17's own address on the hub's TUN: $n, with $got replies of 3"
ok "echo requests from spoke 17's own address on the hub's TUN: $n (of 3 sent, $got replies)"
ok "a source outside the sender's allowed IPs is dropped by the hub"
echo "$TEST_NAME: $CHECKS checks passed"
