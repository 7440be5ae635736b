#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A Nebula tunnel (Debian's nebula 1.6, as a user runs it) between two
# namespaces that are not an ovlperf lab, for test_nebula.sh: a CA and a
# certificate per end made by nebula-cert in DIR, the far end's underlay
# address in static_host_map, no lighthouse (am_lighthouse false, no
# hosts: nothing is sent to any address but the far end's), no punching.
# Tunnel addresses 198.19.7.1 (client) and 198.19.7.2 (server), /24, on
# TUN devices NAMEc and NAMEs; the server end listens on UDP 4242, the
# client's on a port of the kernel's choosing. Nebula 1.6 carries IPv4
# only inside (nebula-cert's -ip is an IPv4 address): the underlay may be
# either family.
#   nebula_path.sh up NAME CLIENT_NS SERVER_NS SERVER_ADDR DIR
#   nebula_path.sh down NAME DIR
# Pid files NAMEc.pid and NAMEs.pid in DIR.
set -eu
source "$(dirname "$0")/vpn_ends.sh"
[ "$1" != down ] || { vpn_ends_down "$2" "$3" && exit 0; }
name=$2 c=$3 s=$4 saddr=$5 dir=$6
case "$saddr" in *:*) saddr="[$saddr]" ;; esac
if [ ! -f "$dir/$name.ca.crt" ]; then
	(
		umask 077
		nebula-cert ca -name "$name-ca" -out-crt "$dir/$name.ca.crt" -out-key "$dir/$name.ca.key"
		for end in c:198.19.7.1 s:198.19.7.2; do
			nebula-cert sign -name "$name${end%%:*}" -ip "${end#*:}/24" \
				-ca-crt "$dir/$name.ca.crt" -ca-key "$dir/$name.ca.key" \
				-out-crt "$dir/$name${end%%:*}.crt" -out-key "$dir/$name${end%%:*}.key"
		done
	)
fi
# conf END PORT STATIC_HOST_MAP_LINE
conf()
{
	cat <<-YAML
	pki:
	  ca: $dir/$name.ca.crt
	  cert: $dir/$name$1.crt
	  key: $dir/$name$1.key
	static_host_map:
	$3
	lighthouse:
	  am_lighthouse: false
	  hosts: []
	listen:
	  host: "[::]"
	  port: $2
	punchy:
	  punch: false
	tun:
	  dev: $name$1
	  mtu: 1300
	logging:
	  level: warning
	firewall:
	  outbound:
	    - {port: any, proto: any, host: any}
	  inbound:
	    - {port: any, proto: any, host: any}
	YAML
}
conf s 4242 "  {}" >"$dir/$name.s.yml"
conf c 0 "  \"198.19.7.2\": [\"$saddr:4242\"]" >"$dir/$name.c.yml"
for end in s c; do
	ns=$s
	[ $end = c ] && ns=$c
	ip netns exec "$ns" setsid nebula -config "$dir/$name.$end.yml" >>"$dir/$name$end.log" 2>&1 &
	echo $! >"$dir/$name$end.pid"
done
# up once the client's first packet through it comes back (the handshake
# is made on the first packet)
for _ in $(seq 50); do
	ip netns exec "$c" ping -c1 -W1 198.19.7.2 >/dev/null 2>&1 && exit 0
	sleep 0.1
	for end in c s; do
		kill -0 "$(cat "$dir/$name$end.pid")" 2>/dev/null ||
			{ echo "nebula_path.sh: nebula ($end) died: $(cat "$dir/$name$end.log")" >&2 && exit 1; }
	done
done
echo "nebula_path.sh: the tunnel does not answer: $(cat "$dir/$name"[cs].log)" >&2
exit 1
