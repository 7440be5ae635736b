#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ovlperf mtu` on a path narrower in the middle (1500 - 1400 - 1500, routers
# send ICMP too-big): the probed MTU must be exactly 1400 over IPv4 and IPv6,
# ICMP seen, no black hole, verdict WARN with the fix; TCP starts with an MSS
# larger than the path allows and PMTU discovery brings it to 1400 - 52.
# Also: other bases and maxima find the same answer, --expect-mtu judges,
# an unreachable server is a FAIL with exit status 1, bad usage exits 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"

mt_chain mtp 4 1400
mt_server "$B"

mt_probe "$MT_DIR/v4.json" "$A" "$B4" --tcp-mss
J=$MT_DIR/v4.json
expect_eq "exit status (WARN only)" "$MT_RC" 0
expect_eq "IPv4 probed path MTU" "$(json_get "$J" paths.0.pmtu)" 1400
expect_eq "IPv4 smallest failed size" "$(json_get "$J" paths.0.smallest_failed)" 1401
expect_eq "IPv4 ICMP frag-needed seen" "$(json_get "$J" paths.0.icmp_seen)" true
expect_eq "IPv4 ICMP announced MTU" "$(json_get "$J" paths.0.icmp_mtu)" 1400
expect_eq "IPv4 black hole" "$(json_get "$J" paths.0.blackhole)" false
expect_eq "IPv4 interface MTU" "$(json_get "$J" paths.0.if_mtu)" 1500
expect_eq "IPv4 pmtu verdict" "$(mt_verdict "$J" "$B4" pmtu)" WARN
mt_reason "$J" "$B4" pmtu | grep -q "set the MTU of ovp0 to 1400, or clamp MSS to 1360" ||
	fail "pmtu fix: $(mt_reason "$J" "$B4" pmtu)"
ok "pmtu fix names MTU 1400 and MSS 1360"
expect_eq "TCP transfer completed" "$(json_get "$J" paths.0.tcp.completed)" true
expect_eq "TCP MSS at connect (1500 - 52)" "$(json_get "$J" paths.0.tcp.client_initial.snd_mss)" 1448
expect_eq "TCP MSS after PMTU discovery (1400 - 52)" "$(json_get "$J" paths.0.tcp.client.snd_mss)" 1348
expect_eq "TCP pmtu" "$(json_get "$J" paths.0.tcp.client.pmtu)" 1400
expect_eq "server end MSS" "$(json_get "$J" paths.0.tcp.server.snd_mss)" 1348
expect_eq "mss verdict" "$(mt_verdict "$J" "$B4" mss)" WARN
mt_reason "$J" "$B4" mss | grep -q "clamp MSS to 1360" || fail "mss fix: $(mt_reason "$J" "$B4" mss)"
ok "mss fix: clamp MSS to 1360"
expect_eq "no fragments (DF probes)" "$(mt_verdict "$J" "$B4" fragments)" OK
# Without DF the same 1500 bytes arrive, in fragments.
expect_eq "no-DF round size" "$(json_get "$J" paths.0.nodf.size)" 1500
expect_eq "no-DF probes delivered" "$(json_get "$J" paths.0.nodf.delivered)" 3
expect_eq "no-DF probes reassembled at the far end" "$(json_get "$J" paths.0.nodf.reassembled)" 3
expect_ge "fragments received by the far end" "$(json_get "$J" paths.0.nodf.remote_reassembly)" 6
expect_eq "nodf verdict" "$(mt_verdict "$J" "$B4" nodf)" WARN

mt_probe "$MT_DIR/v6.json" "$A" "$B6" --tcp-mss
J=$MT_DIR/v6.json
expect_eq "IPv6 probed path MTU" "$(json_get "$J" paths.0.pmtu)" 1400
expect_eq "IPv6 packet-too-big seen" "$(json_get "$J" paths.0.icmp_seen)" true
expect_eq "IPv6 black hole" "$(json_get "$J" paths.0.blackhole)" false
expect_eq "IPv6 TCP MSS after PMTU discovery (1400 - 72)" "$(json_get "$J" paths.0.tcp.client.snd_mss)" 1328
mt_reason "$J" "$B6" pmtu | grep -q "clamp MSS to 1340" || fail "IPv6 pmtu fix: $(mt_reason "$J" "$B6" pmtu)"
ok "IPv6 fix: clamp MSS to 1340"

# Other search bounds, same answer; a base above the path fails.
mt_probe "$MT_DIR/b576.json" "$A" "$B4" --base 576 --max 1450 --probes 2
expect_eq "base 576, max 1450" "$(json_get "$MT_DIR/b576.json" paths.0.pmtu)" 1400
mt_probe "$MT_DIR/b68.json" "$A" "$B4" --base 68 --probes 1
expect_eq "base 68, 1 probe per size" "$(json_get "$MT_DIR/b68.json" paths.0.pmtu)" 1400
mt_probe "$MT_DIR/b1450.json" "$A" "$B4" --base 1450
expect_eq "base above the path: state" "$(json_get "$MT_DIR/b1450.json" paths.0.state)" base-failed
expect_eq "base above the path: verdict" "$(mt_verdict "$MT_DIR/b1450.json" "$B4" pmtu)" FAIL
expect_eq "base above the path: exit status" "$MT_RC" 1

# Expectations.
mt_probe "$MT_DIR/e1.json" "$A" "$B4" --expect-mtu 1400
expect_eq "expect 1400" "$(mt_verdict "$MT_DIR/e1.json" "$B4" expect)" OK
mt_probe "$MT_DIR/e2.json" "$A" "$B4" --expect-mtu 1500
expect_eq "expect 1500" "$(mt_verdict "$MT_DIR/e2.json" "$B4" expect)" FAIL
expect_eq "expect 1500: exit status" "$MT_RC" 1

# No server there (host 1's address): a probe FAIL, exit status 1.
mt_probe "$MT_DIR/none.json" "$A" 198.18.0.2 --port 5999
expect_eq "unreachable server verdict" "$(mt_verdict "$MT_DIR/none.json" 198.18.0.2 probe)" FAIL
expect_eq "unreachable server exit status" "$MT_RC" 1

# A server that wants a pre-shared key.
(umask 077 && head -c 32 /dev/urandom | base64 >"$MT_DIR/psk")
ip netns exec "$B" "$OVLPERF" server -p 5212 --psk-file "$MT_DIR/psk" >>"$MT_DIR/psk-server.log" 2>&1 &
psk_pid=$!
on_exit "kill $psk_pid; wait $psk_pid"
for i in $(seq 600); do in_b ss -ltn | grep -q ':5212 ' && break; sleep 0.1; done
mt_probe "$MT_DIR/psk.json" "$A" "$B4" -p 5212 --psk-file "$MT_DIR/psk"
expect_eq "with the key: path MTU" "$(json_get "$MT_DIR/psk.json" paths.0.pmtu)" 1400
mt_probe "$MT_DIR/nopsk.json" "$A" "$B4" -p 5212
expect_eq "without the key: probe verdict" "$(mt_verdict "$MT_DIR/nopsk.json" "$B4" probe)" FAIL
mt_reason "$MT_DIR/nopsk.json" "$B4" probe | grep -q "requires a pre-shared key" ||
	fail "without the key: $(mt_reason "$MT_DIR/nopsk.json" "$B4" probe)"
ok "without the key: the server requires a pre-shared key"

rc=0
in_a "$OVLPERF" mtu "$B4" --probes 99 >/dev/null 2>&1 || rc=$?
expect_eq "bad --probes exit status" "$rc" 2
rc=0
in_a "$OVLPERF" mtu >/dev/null 2>&1 || rc=$?
expect_eq "no host exit status" "$rc" 2

# The table names the verdicts too.
in_a "$OVLPERF" mtu "$B4" >"$MT_DIR/table.txt"
grep -q "^WARN .*pmtu .*path MTU 1400" "$MT_DIR/table.txt" || fail "table: $(cat "$MT_DIR/table.txt")"
ok "terminal table shows the WARN verdict"
echo "$TEST_NAME: $CHECKS checks passed"
