#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PMTU discovery through the built-in overlay (the case the
# MTU checks exist for): the
# overlay MTU is deliberately set to 1500 on a 1500-byte underlay, so inner
# packets above 1440 cannot be carried. A TCP transfer starts with MSS 1448,
# the tunnel answers the first too-large segments with ICMP frag-needed
# (MTU 1440) through the TUN, and the transfer completes with MSS
# 1440 - 52 = 1388. UDP probes find exactly 1440 with ICMP, the tunnel verdict
# says to set the overlay MTU to 1440, IPv6 gets packet-too-big, and a
# datagram without DF is carried (fragmented outside), never lost.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair mto
mt_server "$B"
tu_pair 4 "mtu = 1500"
expect_eq "overlay MTU as configured (too large)" "$(tu_show "$A" ovl0 mtu)" 1500
icmp_before=$(tu_show "$A" ovl0 counter.too_big_icmp_sent)

# TCP first, before any probe fills the PMTU cache.
mt_probe "$MT_DIR/tcp.json" "$A" 198.19.0.2 --tcp-mss
J=$MT_DIR/tcp.json
expect_eq "TCP through the overlay completed" "$(json_get "$J" paths.0.tcp.completed)" true
expect_eq "TCP bytes acknowledged" "$(json_get "$J" paths.0.tcp.bytes_acked)" 1048576
expect_eq "TCP MSS at connect (1500 - 52)" "$(json_get "$J" paths.0.tcp.client_initial.snd_mss)" 1448
expect_eq "TCP MSS after the tunnel's ICMP (1440 - 52)" "$(json_get "$J" paths.0.tcp.client.snd_mss)" 1388
expect_eq "TCP path MTU learned" "$(json_get "$J" paths.0.tcp.client.pmtu)" 1440
icmp_after=$(tu_show "$A" ovl0 counter.too_big_icmp_sent)
expect_ge "ICMP too-big sent by the tunnel" "$icmp_after" $((icmp_before + 1))
expect_eq "mss verdict" "$(mt_verdict "$J" 198.19.0.2 mss)" WARN
expect_eq "inner path MTU" "$(json_get "$J" paths.0.pmtu)" 1440
expect_eq "ICMP from the tunnel seen by the probes" "$(json_get "$J" paths.0.icmp_seen)" true
expect_eq "ICMP announced MTU" "$(json_get "$J" paths.0.icmp_mtu)" 1440
# Without DF, 1500-byte inner packets still arrive (in fragments).
expect_eq "no-DF inner probes delivered" "$(json_get "$J" paths.0.nodf.delivered)" 3
expect_eq "nodf verdict" "$(mt_verdict "$J" 198.19.0.2 nodf)" WARN

# Underlay and overlay together: the tunnel verdict.
mt_probe "$MT_DIR/both.json" "$A" 198.18.0.2 198.19.0.2 --tunnel builtin
J=$MT_DIR/both.json
expect_eq "underlay path MTU" "$(json_get "$J" paths.0.pmtu)" 1500
expect_eq "underlay verdict" "$(mt_verdict "$J" underlay pmtu)" OK
expect_eq "overlay black hole" "$(json_get "$J" paths.1.blackhole)" false
expect_eq "tunnel verdict (ICMP works, MTU still wrong)" "$(mt_verdict "$J" overlay tunnel)" WARN
mt_reason "$J" overlay tunnel | grep -q "overlay MTU 1500 is larger than the underlay can carry.*set the overlay MTU to 1440, or clamp MSS to 1400" ||
	fail "tunnel reason/fix: $(mt_reason "$J" overlay tunnel)"
ok "tunnel fix: set the overlay MTU to 1440, or clamp MSS to 1400"

# IPv6 inside: packet-too-big from the tunnel.
mt_probe "$MT_DIR/v6.json" "$A" 2001:2:0:ff::2
expect_eq "inner IPv6 path MTU" "$(json_get "$MT_DIR/v6.json" paths.0.pmtu)" 1440
expect_eq "ICMPv6 packet-too-big from the tunnel" "$(json_get "$MT_DIR/v6.json" paths.0.icmp_seen)" true

# Without DF a 1472-byte datagram (1500 on the wire) is carried, not dropped:
# with the learned PMTU forgotten, it reaches the tunnel whole and the tunnel
# fragments the outer packet.
in_a ip route flush cache
frag_before=$(tu_show "$A" ovl0 counter.outer_fragmented)
in_b python3 - "$MT_DIR/got" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("198.19.0.2", 5002)); s.settimeout(10)
d, _ = s.recvfrom(65535)
open(sys.argv[1], "w").write(str(len(d)))
PY
rx=$!
on_exit "kill $rx"
for i in $(seq 600); do in_b ss -lun | grep -q 198.19.0.2:5002 && break; sleep 0.1; done
in_a python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 0)  # IP_MTU_DISCOVER = IP_PMTUDISC_DONT: no DF
for _ in range(5):
    s.sendto(b"x" * 1472, ("198.19.0.2", 5002)); time.sleep(0.1)
PY
wait $rx || fail "no datagram without DF arrived"
expect_eq "1472-byte datagram without DF carried" "$(cat "$MT_DIR/got")" 1472
expect_ge "outer packets fragmented by the tunnel" "$(tu_show "$A" ovl0 counter.outer_fragmented)" \
	$((frag_before + 1))
echo "$TEST_NAME: $CHECKS checks passed"
