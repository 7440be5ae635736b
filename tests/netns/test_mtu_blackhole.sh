#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A black hole: the path narrows to 1400 in the middle and the routers' ICMP
# too-big is dropped by nftables (lab --block-icmp). tracepath would see
# nothing; `ovlperf mtu` must find exactly 1400 (IPv4 and IPv6), call it a
# black hole, FAIL with the fix, and see TCP stall with MSS 1448.
# Then the built-in overlay across it, at its default MTU (1500 - 60 = 1440,
# larger than the underlay can carry). The overlay pads its plaintext to a
# multiple of 16 bytes unless that exceeds its own MTU, so the largest inner
# packet that fits 1400 is exactly the largest S with
# min(roundup16(S), 1440) + 60 <= 1400: S = 1328. Above it the inner path is
# black-holed, and the tunnel verdict says to set the overlay MTU to
# 1400 - 60 = 1340 (at that MTU every inner packet fits).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

mt_chain mt2 4 1400 --block-icmp
mt_server "$B"

mt_probe "$MT_DIR/v4.json" "$A" "$B4" --tcp-mss
J=$MT_DIR/v4.json
expect_eq "exit status (FAIL)" "$MT_RC" 1
expect_eq "IPv4 probed path MTU" "$(json_get "$J" paths.0.pmtu)" 1400
expect_eq "IPv4 ICMP seen" "$(json_get "$J" paths.0.icmp_seen)" false
expect_eq "IPv4 black hole" "$(json_get "$J" paths.0.blackhole)" true
expect_eq "IPv4 blackhole verdict" "$(mt_verdict "$J" "$B4" blackhole)" FAIL
mt_reason "$J" "$B4" blackhole | grep -q "1401..1500 bytes are black-holed.*set the MTU of ovp0 to 1400, or clamp MSS to 1360" ||
	fail "blackhole reason/fix: $(mt_reason "$J" "$B4" blackhole)"
ok "blackhole reason names 1401..1500 and the fix"
expect_eq "TCP transfer completed" "$(json_get "$J" paths.0.tcp.completed)" false
expect_eq "TCP MSS that stalls" "$(json_get "$J" paths.0.tcp.client.snd_mss)" 1448
expect_eq "mss verdict" "$(mt_verdict "$J" "$B4" mss)" FAIL
# The black hole only swallows DF: a router fragments the same size without DF.
expect_eq "no-DF probes delivered" "$(json_get "$J" paths.0.nodf.delivered)" 3
expect_eq "no-DF probes reassembled" "$(json_get "$J" paths.0.nodf.reassembled)" 3
expect_eq "no-DF fragments made on the client" "$(json_get "$J" paths.0.nodf.local_created)" 0

# Ctrl-C while TCP stalls: the run stops, says so, and still prints what it has.
ip netns exec "$A" "$OVLPERF" mtu --json "$B4" --tcp-mss --timeout 5s >"$MT_DIR/int.json" \
	2>"$MT_DIR/int.err" &
int_pid=$!
on_exit "kill $int_pid"
for i in $(seq 50); do in_a ss -tn | grep -q ESTAB && break; sleep 0.1; done
kill -INT $int_pid
rc=0
wait $int_pid || rc=$?
expect_eq "interrupted: exit status" "$rc" 1
expect_eq "interrupted: path status (-EINTR)" "$(json_get "$MT_DIR/int.json" paths.0.status)" -4

mt_probe "$MT_DIR/v6.json" "$A" "$B6"
J=$MT_DIR/v6.json
expect_eq "IPv6 probed path MTU" "$(json_get "$J" paths.0.pmtu)" 1400
expect_eq "IPv6 black hole" "$(json_get "$J" paths.0.blackhole)" true
expect_eq "IPv6 blackhole verdict" "$(mt_verdict "$J" "$B6" blackhole)" FAIL

# The built-in overlay from the first host to the last, over the IPv4 underlay.
tu_key a
tu_key b
tu_conf a.conf a 198.18.0.1:51900 "198.19.0.1/24, 2001:2:0:ff::1/64" b "$B4:51900" \
	"198.19.0.2/32, 2001:2:0:ff::2/128"
tu_conf b.conf b "$B4:51900" "198.19.0.2/24, 2001:2:0:ff::2/64" a 198.18.0.1:51900 \
	"198.19.0.1/32, 2001:2:0:ff::1/128"
tu_up "$A" a.conf ovl0
PID_A=$TU_PID
tu_up "$B" b.conf ovl0
PID_B=$TU_PID
tu_wait_handshake "$A" ovl0
expect_eq "overlay MTU from the local interface (1500 - 60)" "$(tu_show "$A" ovl0 mtu)" 1440

mt_probe "$MT_DIR/ov.json" "$A" "$B4" 198.19.0.2 --tunnel builtin
J=$MT_DIR/ov.json
expect_eq "overlay: exit status" "$MT_RC" 1
expect_eq "overlay: underlay path MTU" "$(json_get "$J" paths.0.pmtu)" 1400
expect_eq "overlay: inner path MTU (padding included)" "$(json_get "$J" paths.1.pmtu)" 1328
expect_eq "overlay: interface MTU" "$(json_get "$J" paths.1.if_mtu)" 1440
expect_eq "overlay: inner black hole" "$(json_get "$J" paths.1.blackhole)" true
expect_eq "overlay: tunnel inner_expected" "$(json_get "$J" tunnels.0.inner_expected)" 1340
expect_eq "overlay: tunnel overhead expected" "$(json_get "$J" tunnels.0.overhead_expected)" 60
expect_eq "overlay: tunnel verdict" "$(mt_verdict "$J" overlay tunnel)" FAIL
mt_reason "$J" overlay tunnel | grep -q "set the overlay MTU to 1340" ||
	fail "tunnel fix: $(mt_reason "$J" overlay tunnel)"
ok "tunnel fix: set the overlay MTU to 1340"
# The tunnel sends its outer packets with DF: inner packets without DF that
# fit the overlay MTU but not the path are lost as well.
expect_eq "overlay: no-DF inner size" "$(json_get "$J" paths.1.nodf.size)" 1440
expect_eq "overlay: no-DF inner delivered" "$(json_get "$J" paths.1.nodf.delivered)" 0
expect_eq "overlay: nodf verdict" "$(mt_verdict "$J" overlay nodf)" WARN

mt_probe "$MT_DIR/ov6.json" "$A" 2001:2:0:ff::2
expect_eq "overlay: inner IPv6 path MTU (padding included)" "$(json_get "$MT_DIR/ov6.json" paths.0.pmtu)" 1328

# At the MTU the verdict asks for, every inner size fits: the probe reaches
# the interface MTU and the tunnel verdict is OK.
kill $PID_A $PID_B
wait $PID_A $PID_B || true
tu_conf a2.conf a 198.18.0.1:51900 "198.19.0.1/24, 2001:2:0:ff::1/64" b "$B4:51900" \
	"198.19.0.2/32, 2001:2:0:ff::2/128" "mtu = 1340"
tu_conf b2.conf b "$B4:51900" "198.19.0.2/24, 2001:2:0:ff::2/64" a 198.18.0.1:51900 \
	"198.19.0.1/32, 2001:2:0:ff::1/128" "mtu = 1340"
tu_up "$A" a2.conf ovl0
tu_up "$B" b2.conf ovl0
tu_wait_handshake "$A" ovl0
mt_probe "$MT_DIR/fixed.json" "$A" "$B4" 198.19.0.2 --tunnel builtin
J=$MT_DIR/fixed.json
expect_eq "overlay at 1340: inner path MTU" "$(json_get "$J" paths.1.pmtu)" 1340
expect_eq "overlay at 1340: reached the interface MTU" "$(json_get "$J" paths.1.reached_max)" true
expect_eq "overlay at 1340: tunnel verdict" "$(mt_verdict "$J" overlay tunnel)" OK
echo "$TEST_NAME: $CHECKS checks passed"
