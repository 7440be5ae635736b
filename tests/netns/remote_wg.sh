#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The external path of test_remote_overlay.sh: a wireguard-go tunnel between
# two namespaces that are not an ovlperf lab, the client behind a NAT (its
# endpoint is learned by the server end), tunnel addresses 198.19.6.1/.2 and
# 2001:2:0:66::1/::2, the server end listening on UDP 51820.
#   remote_wg.sh up NAME CLIENT_NS SERVER_NS SERVER_ADDR DIR
#   remote_wg.sh down NAME DIR
# NAME must be unique and lower-case: wireguard-go's socket directory is
# shared by every namespace.
set -eu
cmd=$1 name=$2
if [ "$cmd" = down ]; then
	source "$(dirname "$0")/vpn_ends.sh"
	vpn_ends_down "$name" "$3"
	exit 0
fi
c=$3 s=$4 saddr=$5 dir=$6
(umask 077 && wg genkey >"$dir/$name.c.key" && wg genkey >"$dir/$name.s.key")
start()
{
	local ns=$1 dev=$2 i
	ip netns exec "$ns" setsid wireguard-go -f "$dev" >>"$dir/$dev.log" 2>&1 &
	echo $! >"$dir/$dev.pid"
	for i in $(seq 50); do [ -S "/var/run/wireguard/$dev.sock" ] && break; sleep 0.1; done
}
start "$s" "${name}s"
ip netns exec "$s" wg set "${name}s" private-key "$dir/$name.s.key" listen-port 51820 \
	peer "$(wg pubkey <"$dir/$name.c.key")" allowed-ips 198.19.6.1/32,2001:2:0:66::1/128
ip -n "$s" addr add 198.19.6.2/24 dev "${name}s"
ip -n "$s" addr add 2001:2:0:66::2/64 dev "${name}s" nodad
ip -n "$s" link set "${name}s" mtu 1420 up
start "$c" "${name}c"
ip netns exec "$c" wg set "${name}c" private-key "$dir/$name.c.key" \
	peer "$(wg pubkey <"$dir/$name.s.key")" endpoint "$saddr:51820" \
	allowed-ips 198.19.6.2/32,2001:2:0:66::2/128 persistent-keepalive 10
ip -n "$c" addr add 198.19.6.1/24 dev "${name}c"
ip -n "$c" addr add 2001:2:0:66::1/64 dev "${name}c" nodad
ip -n "$c" link set "${name}c" mtu 1420 up
for i in $(seq 50); do
	ip netns exec "$c" ping -c1 -W1 198.19.6.2 >/dev/null 2>&1 && exit 0
done
echo "remote_wg.sh: the tunnel does not answer" >&2
exit 1
