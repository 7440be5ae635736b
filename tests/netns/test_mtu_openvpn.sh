#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MSS verdicts over a real OpenVPN 2.6 tunnel (userspace, --disable-dco,
# static key, tun MTU 1500 on a 1500 underlay), IPv4 inside.
# 1. Default mssfix: OpenVPN rewrites the MSS of every SYN it carries so that
#    the encapsulated segments fit. The SYN leaves the client with 1460 and
#    arrives smaller: "clamped by the overlay or on its path", and since the
#    clamp fits what the tunnel carries unfragmented, the verdict is OK.
# 2. --mssfix 0: nothing clamps; the MSS at connect (1460) is larger than
#    the tunnel carries unfragmented: WARN, and the fix is a clamp SMALLER
#    than the 1460 in use: exactly the unfragmented inner path MTU - 40, and
#    the same number in every fix of the path.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"

command -v openvpn >/dev/null || fail "openvpn is needed (make deps)"
lab_pair lmo
mt_server "$B"
openvpn --genkey secret "$MT_DIR/ovpn.key" >/dev/null 2>&1
common=(--dev-type tun --proto udp --secret "$MT_DIR/ovpn.key" --cipher AES-256-CBC
	--auth SHA256 --disable-dco --verb 3 --ping 1 --persist-tun)
# 2.7 wants static-key mode confirmed; 2.6 does not know the option.
openvpn --help 2>/dev/null | grep -q allow-deprecated-insecure-static-crypto &&
	common+=(--allow-deprecated-insecure-static-crypto)

# ovpn_up TAG EXTRA...: the tunnel 198.19.3.1 <-> 198.19.3.2 between A and B
ovpn_up()
{
	local tag=$1 i
	shift
	in_a openvpn --dev lmo0 --local 198.18.0.1 --lport 1194 --remote 198.18.0.2 1194 \
		--ifconfig 198.19.3.1 198.19.3.2 "${common[@]}" "$@" --daemon \
		--writepid "$MT_DIR/a$tag.pid" --log "$MT_DIR/a$tag.log" 2>>"$MT_DIR/a$tag.err"
	on_exit "kill \$(cat $MT_DIR/a$tag.pid) 2>/dev/null"
	in_b openvpn --dev lmo0 --local 198.18.0.2 --lport 1194 --remote 198.18.0.1 1194 \
		--ifconfig 198.19.3.2 198.19.3.1 "${common[@]}" "$@" --daemon \
		--writepid "$MT_DIR/b$tag.pid" --log "$MT_DIR/b$tag.log" 2>>"$MT_DIR/b$tag.err"
	on_exit "kill \$(cat $MT_DIR/b$tag.pid) 2>/dev/null"
	for i in $(seq 100); do
		in_a ping -c1 -W1 198.19.3.2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	cat "$MT_DIR/a$tag.log" >&2
	fail "OpenVPN tunnel $tag does not come up"
}
ovpn_down()
{
	kill "$(cat "$MT_DIR/a$1.pid")" "$(cat "$MT_DIR/b$1.pid")" 2>/dev/null
	local i
	for i in $(seq 50); do in_a ip link show lmo0 >/dev/null 2>&1 || break; sleep 0.1; done
	for i in $(seq 50); do in_b ip link show lmo0 >/dev/null 2>&1 || break; sleep 0.1; done
}

ovpn_up d
mt_probe "$MT_DIR/d.json" "$A" 198.18.0.2 198.19.3.2 --tunnel external --tcp-mss
J=$MT_DIR/d.json
fits=$(json_get "$J" paths.1.unfragmented_pmtu)
expect_ge "default mssfix: the tunnel carries unfragmented" "$fits" 1300
expect_eq "default mssfix: the SYN as it left" "$(json_get "$J" paths.1.tcp.mss.syn_sent)" 1460
opt=$(json_get "$J" paths.1.tcp.mss.option)
expect_eq "default mssfix: the SYN as it arrived = the MSS in force" \
	"$(json_get "$J" paths.1.tcp.mss.syn_arrived)" "$opt"
[ "$opt" -lt 1460 ] || fail "default mssfix: MSS $opt not clamped"
[ "$opt" -le $((fits - 40)) ] || fail "default mssfix: clamp $opt does not fit $fits - 40"
ok "default mssfix: clamped to $opt, within the $((fits - 40)) the tunnel allows"
expect_eq "default mssfix: who clamped" "$(json_get "$J" paths.1.tcp.mss.clamped)" path
expect_eq "default mssfix: mss verdict" "$(mt_verdict "$J" overlay mss)" OK
mt_reason "$J" overlay mss | grep -q "^MSS $opt (.*), clamped by the overlay or on its path (the SYN left with 1460 and arrived with $opt): fits" ||
	fail "default mssfix reason: $(mt_reason "$J" overlay mss)"
ok "default mssfix: reason names the clamp and who made it"
ovpn_down d

ovpn_up z --mssfix 0
mt_probe "$MT_DIR/z.json" "$A" 198.18.0.2 198.19.3.2 --tunnel external --tcp-mss
J=$MT_DIR/z.json
fits=$(json_get "$J" paths.1.unfragmented_pmtu)
expect_eq "mssfix 0: MSS at connect (not clamped)" "$(json_get "$J" paths.1.tcp.mss.option)" 1460
expect_eq "mssfix 0: who clamped" "$(json_get "$J" paths.1.tcp.mss.clamped)" no
expect_eq "mssfix 0: mss verdict" "$(mt_verdict "$J" overlay mss)" WARN
mt_reason "$J" overlay mss | grep -q "clamp MSS to $((fits - 40)) on the overlay interface (or set its MTU to $fits)" ||
	fail "mssfix 0 fix: $(mt_reason "$J" overlay mss)"
[ $((fits - 40)) -lt 1460 ] || fail "mssfix 0: the fix $((fits - 40)) is not smaller than 1460"
ok "mssfix 0: fix clamps to $((fits - 40)), smaller than the 1460 in use"
python3 - "$J" "$fits" <<'PY' || fail "mssfix 0: fixes disagree"
import json, re, sys
d = json.load(open(sys.argv[1])); fits = int(sys.argv[2])
for v in d["verdicts"]:
    if v["path"] != "overlay":
        continue
    for n in re.findall(r"MTU to (\d+)", v["fix"]):
        assert int(n) == fits, v
    for n in re.findall(r"MSS to (\d+)", v["fix"]):
        assert int(n) == fits - 40, v
PY
ok "mssfix 0: every fix of the overlay names MTU $fits and MSS $((fits - 40))"
echo "$TEST_NAME: $CHECKS checks passed"
