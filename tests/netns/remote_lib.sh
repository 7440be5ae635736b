# SPDX-License-Identifier: MIT
# Sourced by test_remote_overlay.sh and test_remote_fw.sh: two "hosts" that
# are not an ovlperf lab.
#   roc-PFX (client) -- ror-PFX (router, masquerading NAT) -- ros-PFX (server)
# client 198.18.30.2/24, 2001:2:0:30::2/64 behind router 198.18.30.1 (rc0 --
# the router's rc1); server 198.18.31.2/24, 2001:2:0:31::2/64 behind router
# 198.18.31.1 (rs0 -- the router's rs1). ro_net builds that; ro_hosts adds
# the server's firewall (ro_fw): nftables input policy drop (no exception
# for established flows: everything the client sends must go to an open
# port); it accepts ICMP/ICMPv6 (neighbour discovery, PMTU), TCP and UDP to
# the one port 5211 and UDP 51820 (the external wireguard-go path's own
# port). A test with a firewall of its own calls ro_net and loads it.
# RO_NAME (default "ro") begins the namespaces' names: a test that needs
# names of its own prefix sets it before sourcing.
RO_NAME=${RO_NAME:-ro}
RC=${RO_NAME}c-$1 RR=${RO_NAME}r-$1 RS=${RO_NAME}s-$1
SADDR4=198.18.31.2 SADDR6=2001:2:0:31::2

ro_ns_del() { for ns in "$RC" "$RR" "$RS"; do ip netns del "$ns" 2>/dev/null || true; done; }

ro_net()
{
	ro_ns_del
	on_exit ro_ns_del
	for ns in "$RC" "$RR" "$RS"; do
		ip netns add "$ns"
		reserve_test_ports "$ns"
		ip -n "$ns" link set lo up
	done
	ip -n "$RR" link add rc1 type veth peer name rc0 netns "$RC"
	ip -n "$RR" link add rs1 type veth peer name rs0 netns "$RS"
	ip -n "$RC" addr add 198.18.30.2/24 dev rc0
	ip -n "$RC" addr add 2001:2:0:30::2/64 dev rc0 nodad
	ip -n "$RR" addr add 198.18.30.1/24 dev rc1
	ip -n "$RR" addr add 2001:2:0:30::1/64 dev rc1 nodad
	ip -n "$RR" addr add 198.18.31.1/24 dev rs1
	ip -n "$RR" addr add 2001:2:0:31::1/64 dev rs1 nodad
	ip -n "$RS" addr add 198.18.31.2/24 dev rs0
	ip -n "$RS" addr add 2001:2:0:31::2/64 dev rs0 nodad
	for l in "$RC rc0" "$RR rc1" "$RR rs1" "$RS rs0"; do
		set -- $l
		ip -n "$1" link set "$2" up
	done
	ip -n "$RC" route add default via 198.18.30.1
	ip -n "$RC" -6 route add default via 2001:2:0:30::1
	ip -n "$RS" route add default via 198.18.31.1
	ip -n "$RS" -6 route add default via 2001:2:0:31::1
	ip netns exec "$RR" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	ip netns exec "$RR" nft -f - <<-'NFT'
		table inet ronat {
			chain post {
				type nat hook postrouting priority srcnat; policy accept;
				oifname "rs1" masquerade
			}
		}
	NFT
}

ro_fw()
{
	ip netns exec "$RS" nft -f - <<-NFT
		table inet rofw {
			chain input {
				type filter hook input priority filter; policy drop;
				iif lo accept
				meta l4proto { icmp, ipv6-icmp } accept
				tcp dport 5211 accept
				udp dport 5211 accept
				udp dport 51820 accept
				${RO_FW_EXTRA:-}
			}
		}
	NFT
}

ro_hosts()
{
	ro_net
	ro_fw
}
