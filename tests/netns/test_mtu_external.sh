#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An external overlay (wireguard-go, a VPN ovlperf does not run itself) whose
# interface MTU is set to 1500 on a 1500-byte underlay. wireguard-go sends
# its outer packets without DF, so the kernel fragments the ones that do not
# fit: DF probes up to 1500 get through, but only in fragments. The fragment
# counters must show it, a second search must find exactly what fits
# unfragmented (1440: 1500 - 60, wireguard's padding to 16 bytes included),
# the overhead must be inferred as 60 and the fix must be "set the overlay
# MTU to 1440". At MTU 1420 (wireguard's default) everything fits: OK. At
# 1440 it fits exactly (overhead exactly 60 on IPv4), at 1460 it fragments
# again and every fix names 1440. Over an IPv6 underlay the overhead is 80:
# 1420 fits exactly; at 1440 wireguard pads a packet of S bytes to
# min(roundup16(S), 1440), so the largest that fits 1500 - 80 is 1408, and
# every fix names 1408 (safe for any padding; the IPv4 probes inside see the
# IPv6 outer packets fragment only because both families' counters count).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"

command -v wireguard-go >/dev/null && command -v wg >/dev/null ||
	fail "wireguard-go and wg are needed (make deps)"
lab_pair mt
mt_server "$B"

(umask 077 && wg genkey >"$MT_DIR/a.key" && wg genkey >"$MT_DIR/b.key")
# wireguard-go's control sockets live in /var/run/wireguard, shared by all
# namespaces: unique lower-case names.
wg_up()
{
	local ns=$1 dev=$2 key=$3 peer=$4 ep=$5 addr=$6 i
	ip netns exec "$ns" setsid wireguard-go -f "$dev" >>"$MT_DIR/$dev.log" 2>&1 &
	local pid=$!
	on_exit "kill $pid; wait $pid"
	for i in $(seq 50); do [ -S "/var/run/wireguard/$dev.sock" ] && break; sleep 0.1; done
	ip netns exec "$ns" wg set "$dev" private-key "$MT_DIR/$key" listen-port 51820 \
		peer "$(wg pubkey <"$MT_DIR/$peer")" endpoint "$ep" allowed-ips 198.19.1.0/24
	ip -n "$ns" addr add "$addr/24" dev "$dev"
	ip -n "$ns" link set "$dev" mtu 1500 up
}
wg_up "$A" mtwga a.key b.key 198.18.0.2:51820 198.19.1.1
wg_up "$B" mtwgb b.key a.key 198.18.0.1:51820 198.19.1.2

mt_probe "$MT_DIR/wg.json" "$A" 198.18.0.2 198.19.1.2 --tunnel external --tcp-mss
J=$MT_DIR/wg.json
expect_eq "underlay path MTU" "$(json_get "$J" paths.0.pmtu)" 1500
expect_eq "underlay fragments" "$(mt_verdict "$J" underlay fragments)" OK
expect_eq "overlay: DF probes get through up to" "$(json_get "$J" paths.1.pmtu)" 1500
expect_eq "overlay: fragmenting" "$(json_get "$J" paths.1.fragmenting)" true
expect_eq "overlay: unfragmented path MTU" "$(json_get "$J" paths.1.unfragmented.pmtu)" 1440
expect_ge "overlay: fragments made by this host" "$(json_get "$J" paths.1.fragments.local_created)" 1
expect_ge "overlay: fragments reassembled there" "$(json_get "$J" paths.1.fragments.remote_reassembly)" 1
expect_eq "overlay: fragments verdict" "$(mt_verdict "$J" overlay fragments)" WARN
mt_reason "$J" overlay fragments | grep -q "1441..1500 bytes got through only because.*set the overlay MTU to 1440" ||
	fail "fragments reason/fix: $(mt_reason "$J" overlay fragments)"
ok "fragments: 1441..1500 only in fragments, set the overlay MTU to 1440"
expect_eq "tunnel: overhead inferred" "$(json_get "$J" tunnels.0.overhead_inferred)" 60
expect_eq "tunnel: verdict" "$(mt_verdict "$J" overlay tunnel)" WARN
mt_reason "$J" overlay tunnel | grep -q "set the overlay MTU to 1440" ||
	fail "tunnel fix: $(mt_reason "$J" overlay tunnel)"
ok "tunnel fix: set the overlay MTU to 1440"
expect_eq "overlay: TCP MSS (fragmented)" "$(json_get "$J" paths.1.tcp.client.snd_mss)" 1448
expect_eq "overlay: mss verdict" "$(mt_verdict "$J" overlay mss)" WARN
mt_reason "$J" overlay mss | grep -q "clamp MSS to 1400" || fail "mss fix: $(mt_reason "$J" overlay mss)"
ok "mss fix: clamp MSS to 1400"

# wireguard's default MTU: everything fits, nothing fragments.
ip -n "$A" link set mtwga mtu 1420
ip -n "$B" link set mtwgb mtu 1420
mt_probe "$MT_DIR/wg1420.json" "$A" 198.18.0.2 198.19.1.2 --tunnel external
J=$MT_DIR/wg1420.json
expect_eq "MTU 1420: overlay path MTU" "$(json_get "$J" paths.1.pmtu)" 1420
expect_eq "MTU 1420: fragmenting" "$(json_get "$J" paths.1.fragmenting)" false
expect_eq "MTU 1420: overhead inferred" "$(json_get "$J" tunnels.0.overhead_inferred)" 80
expect_eq "MTU 1420: tunnel verdict" "$(mt_verdict "$J" overlay tunnel)" OK
mt_reason "$J" overlay tunnel | grep -q "overlay MTU 1420 fits the underlay path MTU 1500: overhead at most 80" ||
	fail "tunnel reason: $(mt_reason "$J" overlay tunnel)"
ok "tunnel reason: MTU 1420 fits, overhead at most 80"
expect_eq "MTU 1420: worst" "$(json_get "$J" worst)" OK

# wg_mtu N: both ends' wireguard MTU
wg_mtu() { ip -n "$A" link set mtwga mtu "$1"; ip -n "$B" link set mtwgb mtu "$1"; }
# fixes_name FILE MTU: every fix of the overlay names MTU and MTU - 40
fixes_name()
{
	python3 - "$1" "$2" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); mtu = int(sys.argv[2]); fixes = 0
for v in d["verdicts"]:
    if v["path"] != "overlay" or not v["fix"]:
        continue
    fixes += 1
    assert all(int(n) == mtu for n in re.findall(r"MTU to (\d+)", v["fix"])), v
    assert all(int(n) == mtu - 40 for n in re.findall(r"MSS to (\d+)", v["fix"])), v
assert fixes >= 2, fixes
PY
}
# fits_exactly TAG UNDERLAY_ADDR MTU OVERHEAD
fits_exactly()
{
	mt_probe "$MT_DIR/wg$3.json" "$A" "$2" 198.19.1.2 --tunnel external
	J=$MT_DIR/wg$3.json
	expect_eq "$1: overlay path MTU" "$(json_get "$J" paths.1.pmtu)" "$3"
	expect_eq "$1: fragmenting" "$(json_get "$J" paths.1.fragmenting)" false
	expect_eq "$1: overhead inferred" "$(json_get "$J" tunnels.0.overhead_inferred)" "$4"
	expect_eq "$1: tunnel verdict" "$(mt_verdict "$J" overlay tunnel)" OK
	expect_eq "$1: worst" "$(json_get "$J" worst)" OK
}
# fragments_at TAG UNDERLAY_ADDR MTU FITS
fragments_at()
{
	mt_probe "$MT_DIR/wgf$3.json" "$A" "$2" 198.19.1.2 --tunnel external --tcp-mss
	J=$MT_DIR/wgf$3.json
	expect_eq "$1: DF probes get through (fragmented) up to" "$(json_get "$J" paths.1.pmtu)" "$3"
	expect_eq "$1: fragmenting" "$(json_get "$J" paths.1.fragmenting)" true
	expect_eq "$1: unfragmented path MTU" "$(json_get "$J" paths.1.unfragmented.pmtu)" "$4"
	expect_eq "$1: fragments verdict" "$(mt_verdict "$J" overlay fragments)" WARN
	expect_eq "$1: mss verdict" "$(mt_verdict "$J" overlay mss)" WARN
	fixes_name "$J" "$4" ||
		fail "$1: fixes disagree: $(python3 -c 'import json,sys; print([v["fix"] for v in json.load(open(sys.argv[1]))["verdicts"]])' "$J")"
	ok "$1: every fix names MTU $4 and MSS $(($4 - 40))"
}
wg_mtu 1440
fits_exactly "IPv4 underlay, MTU 1440" 198.18.0.2 1440 60
wg_mtu 1460
fragments_at "IPv4 underlay, MTU 1460" 198.18.0.2 1460 1440

# The same tunnel over the IPv6 underlay: 20 more bytes of outer header.
in_a wg set mtwga peer "$(wg pubkey <"$MT_DIR/b.key")" endpoint "[2001:2::2]:51820"
in_b wg set mtwgb peer "$(wg pubkey <"$MT_DIR/a.key")" endpoint "[2001:2::1]:51820"
wg_mtu 1420
fits_exactly "IPv6 underlay, MTU 1420" 2001:2::2 1420 80
wg_mtu 1440
fragments_at "IPv6 underlay, MTU 1440" 2001:2::2 1440 1408
echo "$TEST_NAME: $CHECKS checks passed"
