#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An external path for `ovlperf run` scenarios in the tests: a wireguard-go
# tunnel between a lab's client and server namespaces (OVLPERF_NS_CLIENT,
# OVLPERF_NS_SERVER, set by the run), tunnel addresses 198.19.5.1/.2 and
# 2001:2:0:5::1/::2.
#   wg_path.sh up NAME MTU DIR   keys and pid files in DIR; devices NAMEa, NAMEb
#   wg_path.sh down NAME DIR
# When the lab gives its hosts CPUs ([lab] cpus: OVLPERF_CPUS_CLIENT and
# OVLPERF_CPUS_SERVER), each end's daemon runs on its host's.
# NAME must be unique and lower-case: wireguard-go's socket directory is
# shared by every namespace.
set -eu
cmd=$1 name=$2
c=$OVLPERF_NS_CLIENT s=$OVLPERF_NS_SERVER
if [ "$cmd" = down ]; then
	dir=$3
	for end in a b; do
		[ -f "$dir/$name$end.pid" ] && kill "$(cat "$dir/$name$end.pid")" 2>/dev/null || true
	done
	exit 0
fi
mtu=$3 dir=$4
ca=$(ip -n "$c" -4 -o addr show dev ovp0 | awk '{sub("/.*", "", $4); print $4}')
sa=$(ip -n "$s" -4 -o addr show dev ovp0 | awk '{sub("/.*", "", $4); print $4}')
(umask 077 && wg genkey >"$dir/$name.a.key" && wg genkey >"$dir/$name.b.key")
up()
{
	local ns=$1 dev=$2 key=$3 peer=$4 ep=$5 addr=$6 addr6=$7 cpus=$8 i
	local pin=()
	[ -z "$cpus" ] || pin=(taskset -c "$cpus")
	ip netns exec "$ns" "${pin[@]}" setsid wireguard-go -f "$dev" >>"$dir/$dev.log" 2>&1 &
	echo $! >"$dir/$dev.pid"
	for i in $(seq 50); do [ -S "/var/run/wireguard/$dev.sock" ] && break; sleep 0.1; done
	ip netns exec "$ns" wg set "$dev" private-key "$dir/$key" listen-port 51820 \
		peer "$(wg pubkey <"$dir/$peer")" endpoint "$ep:51820" \
		allowed-ips 198.19.5.0/24,2001:2:0:5::/64
	ip -n "$ns" addr add "$addr/24" dev "$dev"
	ip -n "$ns" addr add "$addr6/64" dev "$dev" nodad
	ip -n "$ns" link set "$dev" mtu "$mtu" up
}
up "$c" "${name}a" "$name.a.key" "$name.b.key" "$sa" 198.19.5.1 2001:2:0:5::1 \
	"${OVLPERF_CPUS_CLIENT:-}"
up "$s" "${name}b" "$name.b.key" "$name.a.key" "$ca" 198.19.5.2 2001:2:0:5::2 \
	"${OVLPERF_CPUS_SERVER:-}"
for i in $(seq 50); do
	ip netns exec "$c" ping -c1 -W1 198.19.5.2 >/dev/null 2>&1 && exit 0
done
echo "wg_path.sh: the tunnel does not answer" >&2
exit 1
