#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A jumbo path, MTU 9001 end to end (the cloud case): `ovlperf mtu` must
# confirm exactly 9001 over IPv4 and IPv6 and TCP MSS 9001 - 40 = 8961 (the
# option value), 8949 bytes of payload per segment with timestamps
# (IPv6: 8929), verdict "jumbo path confirmed". The built-in overlay on it
# gets 9001 - 60 = 8941 over IPv4 and 9001 - 80 = 8921 over IPv6, and the
# tunnel verdict is OK.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair mt3 9001
mt_server "$B"

mt_probe "$MT_DIR/v4.json" "$A" 198.18.0.2 --tcp-mss
J=$MT_DIR/v4.json
expect_eq "exit status" "$MT_RC" 0
expect_eq "IPv4 probed path MTU" "$(json_get "$J" paths.0.pmtu)" 9001
expect_eq "IPv4 reached the interface MTU" "$(json_get "$J" paths.0.reached_max)" true
expect_eq "IPv4 pmtu verdict" "$(mt_verdict "$J" 198.18.0.2 pmtu)" OK
mt_reason "$J" 198.18.0.2 pmtu | grep -q "jumbo path confirmed: MTU 9001 end to end, MSS 8961 (8949 bytes of payload per segment)" ||
	fail "pmtu reason: $(mt_reason "$J" 198.18.0.2 pmtu)"
ok "jumbo path confirmed: MTU 9001, MSS 8949"
expect_eq "TCP MSS" "$(json_get "$J" paths.0.tcp.client.snd_mss)" 8949
expect_eq "server TCP MSS" "$(json_get "$J" paths.0.tcp.server.snd_mss)" 8949
expect_eq "mss verdict" "$(mt_verdict "$J" 198.18.0.2 mss)" OK
mt_reason "$J" 198.18.0.2 mss | grep -q "jumbo path confirmed: MSS 8961, 8949 bytes of payload per segment" ||
	fail "mss reason: $(mt_reason "$J" 198.18.0.2 mss)"
ok "mss reason: jumbo path confirmed: MSS 8961 (the option), 8949 bytes of payload"
expect_eq "MSS option (9001 - 40)" "$(json_get "$J" paths.0.tcp.mss.option)" 8961

# --expect-mss takes the option value (9001 - 60), not the payload (8929).
mt_probe "$MT_DIR/v6.json" "$A" 2001:2::2 --tcp-mss --expect-mss 8941
J=$MT_DIR/v6.json
expect_eq "IPv6 probed path MTU" "$(json_get "$J" paths.0.pmtu)" 9001
expect_eq "IPv6 TCP MSS (9001 - 72)" "$(json_get "$J" paths.0.tcp.client.snd_mss)" 8929
expect_eq "IPv6 MSS option (9001 - 60)" "$(json_get "$J" paths.0.tcp.mss.option)" 8941
expect_eq "IPv6 expect-mss verdict" "$(mt_verdict "$J" 2001:2::2 expect)" OK

tu_pair 4
expect_eq "overlay MTU on jumbo (9001 - 60)" "$(tu_show "$A" ovl0 mtu)" 8941
mt_probe "$MT_DIR/ov.json" "$A" 198.18.0.2 198.19.0.2 --tunnel builtin
J=$MT_DIR/ov.json
expect_eq "overlay inner path MTU" "$(json_get "$J" paths.1.pmtu)" 8941
expect_eq "tunnel verdict" "$(mt_verdict "$J" overlay tunnel)" OK
expect_eq "worst verdict" "$(json_get "$J" worst)" OK

# The overlay over the IPv6 underlay: 80 bytes of overhead.
kill $PID_A $PID_B
wait $PID_A $PID_B || true
tu_pair 6
expect_eq "overlay MTU over IPv6 (9001 - 80)" "$(tu_show "$A" ovl0 mtu)" 8921
mt_probe "$MT_DIR/ov6.json" "$A" 2001:2::2 198.19.0.2 --tunnel builtin
J=$MT_DIR/ov6.json
expect_eq "IPv6 underlay: inner path MTU" "$(json_get "$J" paths.1.pmtu)" 8921
expect_eq "IPv6 underlay: overhead expected" "$(json_get "$J" tunnels.0.overhead_expected)" 80
expect_eq "IPv6 underlay: tunnel verdict" "$(mt_verdict "$J" overlay tunnel)" OK
# the same probe judged as if the outer packets were IPv4 must object
mt_probe "$MT_DIR/ov6x.json" "$A" 2001:2::2 198.19.0.2 --tunnel builtin --underlay-family 4
expect_eq "wrong underlay family: tunnel verdict" "$(mt_verdict "$MT_DIR/ov6x.json" overlay tunnel)" WARN
echo "$TEST_NAME: $CHECKS checks passed"
