# SPDX-License-Identifier: MIT
# Helpers for tests/netns/test_tunnel_*.sh (sourced after lib.sh).
# TU_EXTRA="offload = on" adds [interface] lines to every config written here.
# Keys and configs go to a private directory removed on exit; every daemon
# started here is stopped on exit (its TUN device goes with it).

TU_DIR=$(mktemp -d /tmp/ovlperf-tu-XXXXXX)
chmod 700 "$TU_DIR"
on_exit "rm -rf '$TU_DIR'"

# tu_key NAME: NAME.key (0600) and NAME.pub in TU_DIR
tu_key()
{
	(umask 077 && "$OVLPERF" tunnel genkey >"$TU_DIR/$1.key")
	"$OVLPERF" tunnel pubkey <"$TU_DIR/$1.key" >"$TU_DIR/$1.pub"
}

# tu_conf FILE KEYNAME LISTEN ADDRESSES PEER_PUBNAME PEER_ENDPOINT PEER_ALLOWED [EXTRA]
tu_conf()
{
	cat >"$TU_DIR/$1" <<CONF
[interface]
private_key_file = $2.key
listen = $3
address = $4
${8:-}
${TU_EXTRA:-}
[peer]
public_key = $(cat "$TU_DIR/$5.pub")
endpoint = $6
allowed_ips = $7
CONF
}

# tu_up NS CONF DEV: starts `tunnel up` in NS, waits until it answers; sets TU_PID
tu_up()
{
	local ns=$1 conf=$2 dev=$3 i
	ip netns exec "$ns" "$OVLPERF" tunnel up "$TU_DIR/$conf" --name "$dev" \
		2>>"${TU_LOG_DIR:-$TU_DIR}/$dev-$ns.log" &
	TU_PID=$!
	on_exit "kill $TU_PID; wait $TU_PID"
	for i in $(seq 100); do
		ip netns exec "$ns" "$OVLPERF" tunnel show "$dev" --raw >/dev/null 2>&1 && return 0
		kill -0 $TU_PID 2>/dev/null || { cat "${TU_LOG_DIR:-$TU_DIR}/$dev-$ns.log" >&2; fail "tunnel up $conf exited"; }
		sleep 0.1
	done
	fail "tunnel $dev in $ns does not answer"
}

# tu_show NS DEV KEY: a value from the daemon's raw status (first match)
tu_show()
{
	ip netns exec "$1" "$OVLPERF" tunnel show "$2" --raw | sed -n "s/^$3=//p" | head -1
}

# tu_wait_handshake NS DEV: until the daemon has a session with all its peers
tu_wait_handshake()
{
	local i
	for i in $(seq 100); do
		[ "$(tu_show "$1" "$2" peers_with_handshake)" = "$(tu_show "$1" "$2" peers)" ] && return 0
		sleep 0.1
	done
	fail "no handshake on $2 in $1"
}

# tu_pair4 / tu_pair6: keys a and b, daemons ovl0 in A and B over the IPv4 or IPv6 underlay
tu_pair()
{
	local fam=$1 ea eb
	tu_key a
	tu_key b
	if [ "$fam" = 6 ]; then ea="[2001:2::1]:51900" eb="[2001:2::2]:51900"
	else ea="198.18.0.1:51900" eb="198.18.0.2:51900"; fi
	tu_conf a.conf a "$ea" "198.19.0.1/24, 2001:2:0:ff::1/64" b "$eb" \
		"198.19.0.2/32, 2001:2:0:ff::2/128" "${2:-}"
	tu_conf b.conf b "$eb" "198.19.0.2/24, 2001:2:0:ff::2/64" a "$ea" \
		"198.19.0.1/32, 2001:2:0:ff::1/128" "${2:-}"
	tu_up "$A" a.conf ovl0
	PID_A=$TU_PID
	tu_up "$B" b.conf ovl0
	PID_B=$TU_PID
	tu_wait_handshake "$A" ovl0
	tu_wait_handshake "$B" ovl0
}

# tu_tcp_sha ADDR PORT MIB [LABEL]: MIB of random bytes over TCP from host A
# to ADDR:PORT in host B (IPv4 or IPv6); fails unless B's SHA-256 of what it
# received equals the sender's.
tu_tcp_sha()
{
	local addr=$1 port=$2 mib=$3 label=${4:-$1} srv i
	head -c "${mib}M" /dev/urandom >"$TU_DIR/blob"
	in_b python3 - "$addr" "$port" "$TU_DIR/got" <<'PY' &
import hashlib, socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.settimeout(20); h = hashlib.sha256()
while True:
    d = c.recv(1 << 16)
    if not d: break
    h.update(d)
open(sys.argv[3], "w").write(h.hexdigest())
PY
	srv=$!
	on_exit "kill $srv"
	for i in $(seq 600); do in_b ss -ltn | grep -q ":$port " && break; sleep 0.1; done
	in_a python3 - "$addr" "$port" "$TU_DIR/blob" <<'PY' || fail "TCP send to $label"
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
s.sendall(open(sys.argv[3], "rb").read()); s.close()
PY
	wait $srv || fail "TCP receiver on $label failed"
	[ "$(cat "$TU_DIR/got")" = "$(sha256sum "$TU_DIR/blob" | cut -d' ' -f1)" ] ||
		fail "SHA-256 differs ($label)"
}
