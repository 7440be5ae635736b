# SPDX-License-Identifier: MIT
# Sourced by bench/*.sh (never by the product or its tests): a lab pair
# ($LAB, hosts A and B) with a private work directory and cleanup on exit,
# and the overlays the benchmarks compare, each brought up the same way in
# every script: ours, wireguard-go and OpenVPN 2.6. The caller sets OVLPERF
# and LAB first.

A=ovp-$LAB-0 B=ovp-$LAB-1
WORK=$(mktemp -d /tmp/ovlperf-bench-XXXXXX)
chmod 700 "$WORK"
declare -a CLEANUP=()
cleanup()
{
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[$i]}" >/dev/null 2>&1 || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
in_a() { ip netns exec "$A" "$@"; }
in_b() { ip netns exec "$B" "$@"; }
log() { echo "bench: $*" >&2; }

"$OVLPERF" lab down "$LAB" >/dev/null 2>&1 || true
"$OVLPERF" lab up "$LAB" >/dev/null
CLEANUP+=("\"$OVLPERF\" lab down $LAB")

# ---- the overlays
# up_ovl TAG DEV SUBNET PORT OFFLOAD [LINE]: a pair of our daemons (keys made
# here), LINE one more [interface] key for both; OVL_BIN another ovlperf
# binary for the daemons (default OVLPERF)
up_ovl()
{
	local tag=$1 dev=$2 net=$3 port=$4 off=$5 extra=${6:-} s bin=${OVL_BIN:-$OVLPERF}
	(umask 077
	 "$OVLPERF" tunnel genkey >"$WORK/$tag-a.key"
	 "$OVLPERF" tunnel genkey >"$WORK/$tag-b.key")
	for s in a b; do "$OVLPERF" tunnel pubkey <"$WORK/$tag-$s.key" >"$WORK/$tag-$s.pub"; done
	mk() { printf '[interface]\nprivate_key_file = %s.key\nlisten = %s:%s\naddress = %s/24\noffload = %s\n%s\n[peer]\npublic_key = %s\nendpoint = %s:%s\nallowed_ips = %s/32\n' "$@"; }
	mk "$tag-a" 198.18.0.1 "$port" "$net.1" "$off" "$extra" "$(cat "$WORK/$tag-b.pub")" 198.18.0.2 "$port" "$net.2" >"$WORK/$tag-a.conf"
	mk "$tag-b" 198.18.0.2 "$port" "$net.2" "$off" "$extra" "$(cat "$WORK/$tag-a.pub")" 198.18.0.1 "$port" "$net.1" >"$WORK/$tag-b.conf"
	in_a "$bin" tunnel up "$WORK/$tag-a.conf" --name "$dev" -d --pid-file "$WORK/$tag-a.pid"
	CLEANUP+=("kill \$(cat $WORK/$tag-a.pid)")
	in_b "$bin" tunnel up "$WORK/$tag-b.conf" --name "$dev" -d --pid-file "$WORK/$tag-b.pid"
	CLEANUP+=("kill \$(cat $WORK/$tag-b.pid)")
}

# wireguard-go: unique lower-case names that start with the lab's name (its
# UAPI socket directory is shared by all namespaces), configured with wg(8).
# WGGO_MODERN (a wireguard-go built from its 2025 source) gets names of its own.
WG_A=${LAB}wga$$ WG_B=${LAB}wgb$$
WG_A=${WG_A:0:15} WG_B=${WG_B:0:15}
WM_A=${LAB}wma$$ WM_B=${LAB}wmb$$
WM_A=${WM_A:0:15} WM_B=${WM_B:0:15}
# up_wg [BIN IF_A IF_B SUBNET PORT]: a wireguard-go pair (default: the PATH's,
# 198.19.1.0/24, port 51820)
up_wg()
{
	local bin=${1:-wireguard-go} ia=${2:-$WG_A} ib=${3:-$WG_B} net=${4:-198.19.1} port=${5:-51820}
	(umask 077; wg genkey >"$WORK/$ia.key"; wg genkey >"$WORK/$ib.key")
	in_a env WG_PROCESS_FOREGROUND=1 setsid "$bin" -f "$ia" >"$WORK/$ia.log" 2>&1 &
	CLEANUP+=("kill $!; rm -f /var/run/wireguard/$ia.sock")
	in_b env WG_PROCESS_FOREGROUND=1 setsid "$bin" -f "$ib" >"$WORK/$ib.log" 2>&1 &
	CLEANUP+=("kill $!; rm -f /var/run/wireguard/$ib.sock")
	for i in $(seq 50); do [ -S /var/run/wireguard/$ia.sock ] && [ -S /var/run/wireguard/$ib.sock ] && break; sleep 0.1; done
	in_a wg set "$ia" listen-port "$port" private-key "$WORK/$ia.key" \
		peer "$(wg pubkey <"$WORK/$ib.key")" endpoint 198.18.0.2:"$port" allowed-ips "$net.2/32"
	in_b wg set "$ib" listen-port "$port" private-key "$WORK/$ib.key" \
		peer "$(wg pubkey <"$WORK/$ia.key")" endpoint 198.18.0.1:"$port" allowed-ips "$net.1/32"
	in_a ip addr add "$net.1/24" dev "$ia"
	in_b ip addr add "$net.2/24" dev "$ib"
	in_a ip link set "$ia" mtu 1420 up
	in_b ip link set "$ib" mtu 1420 up
}

# OpenVPN 2.6 point-to-point with a static key (AES-256-CBC + HMAC-SHA256),
# userspace data channel (--disable-dco).
up_ovpn()
{
	openvpn --genkey secret "$WORK/ovpn.key" >/dev/null 2>&1
	local common="--dev-type tun --proto udp --secret $WORK/ovpn.key --cipher AES-256-CBC --auth SHA256 --disable-dco --verb 1 --ping 10 --persist-tun"
	# 2.7 wants static-key mode confirmed; 2.6 does not know the option.
	openvpn --help 2>/dev/null | grep -q allow-deprecated-insecure-static-crypto &&
		common="$common --allow-deprecated-insecure-static-crypto"
	in_a openvpn --dev ovpn0 --local 198.18.0.1 --lport 1194 --remote 198.18.0.2 1194 \
		--ifconfig 198.19.2.1 198.19.2.2 $common --daemon --writepid "$WORK/ovpn-a.pid" --log "$WORK/ovpn-a.log"
	CLEANUP+=("kill \$(cat $WORK/ovpn-a.pid)")
	in_b openvpn --dev ovpn0 --local 198.18.0.2 --lport 1194 --remote 198.18.0.1 1194 \
		--ifconfig 198.19.2.2 198.19.2.1 $common --daemon --writepid "$WORK/ovpn-b.pid" --log "$WORK/ovpn-b.log"
	CLEANUP+=("kill \$(cat $WORK/ovpn-b.pid)")
}

# ---- one-way delay near the knee (bench/overlay_latency.sh, and
# overlay_vs_peers.sh --delay); 1400-byte IPv4 packets (1372-byte payload
# fits wireguard-go's MTU 1420), trials of $T seconds, ovlperf's server on B
# ndr_bps ADDR MAX: the knee search's NDR (rate achieved at its lower
# bound), 0 when it found none
ndr_bps()
{
	in_a "$OVLPERF" sweep "$1" --knee --max "$2" -l 1372 -t "$T" --final "$T" \
		--width-goal 2 --max-trials 30 --no-progress -J 2>/dev/null |
		python3 -c 'import json,sys
def find(o):
    if isinstance(o, dict):
        if "ndr" in o and isinstance(o["ndr"], dict): return o["ndr"]
        for v in o.values():
            r = find(v)
            if r: return r
    elif isinstance(o, list):
        for v in o:
            r = find(v)
            if r: return r
    return None
n = find(json.load(sys.stdin)) or {}
print("%.0f" % (n.get("lower_bps") or 0))' || echo 0
}

# owd ADDR RATE: "p50 p99 delivered% socket-p99 lost" of one trial, delays
# in ms; socket-p99: the wait in the receiving application's socket; lost:
# the datagrams of this trial that never arrived
owd()
{
	in_a "$OVLPERF" client "$1" -u -b "$2" -l 1372 -t "$T" --json 2>/dev/null |
		python3 -c 'import json,sys
u = json.load(sys.stdin)["udp"]; w = u.get("owd_us") or {}; s = u.get("rx_wait_us") or {}
d = 100.0 * u["received"] / u["sent"] if u.get("sent") else 0
print("%.3f %.3f %.2f %s %d" % (w.get("p50", -1e3) / 1e3, w.get("p99", -1e3) / 1e3, d,
                                "%.3f" % (s["p99"] / 1e3) if "p99" in s else "-", u.get("lost", -1)))' ||
		echo "- - - - -"
}
