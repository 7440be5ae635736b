#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The overlay over an IPv6 underlay, and too-big inner packets:
# an overlay MTU larger than the underlay can carry makes the tunnel answer
# DF packets (and all IPv6 ones) with ICMP "fragmentation needed" / "packet
# too big" carrying the right MTU, sends packets without DF fragmented, and a
# TCP transfer converges through PMTU discovery. Then a chain lab where the
# path MTU drops one hop away (learned from ICMP on the underlay). Finally
# `ovlperf lab up --overlay6`: the lab's own overlay, default MTU 1500 - 80.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair tu2
# The port to listen on as the namespace's only ephemeral port: the
# daemon's own path MTU socket, which connects from an ephemeral port,
# must not take it first (the listening sockets open before it connects).
tu_key a
tu_key b
tu_conf p.conf a "[2001:2::1]:51900" "198.19.0.1/24" b "[2001:2::2]:51900" "198.19.0.2/32"
range=$(in_a sysctl -n net.ipv4.ip_local_port_range)
in_a sysctl -qw net.ipv4.ip_local_port_range="51900 51900"
tu_up "$A" p.conf ovl0
in_a ss -Hlun 'sport = :51900' | grep -q '2001:2::1' ||
	fail "not listening on [2001:2::1]:51900: $(in_a ss -Hlun)"
ok "listening on [2001:2::1]:51900, the namespace's only ephemeral port"
kill "$TU_PID"
wait "$TU_PID" || true
in_a sysctl -qw net.ipv4.ip_local_port_range="$range"
tu_pair 6 "mtu = 1500"
expect_eq "configured overlay MTU" "$(tu_show "$A" ovl0 mtu)" 1500
expect_eq "inner packets that fit the IPv6 underlay (1500 - 80)" "$(tu_show "$A" ovl0 path_inner_mtu)" 1420
# Padding (to 16) stops at the path's inner MTU: 1420 stays 1420 on the wire,
# so too-big replies announce all of it.
expect_eq "announced inner MTU" "$(tu_show "$A" ovl0 send_limit)" 1420
expect_eq "padding cap (path inner MTU below the tunnel MTU)" "$(tu_show "$A" ovl0 pad_mtu)" 1420
in_a ping -c 2 -i 0.2 -W 2 198.19.0.2 >/dev/null || fail "ping IPv4 overlay over IPv6 underlay"
ok "ping IPv4 overlay address over IPv6 underlay"
in_a ping -6 -c 2 -i 0.2 -W 2 2001:2:0:ff::2 >/dev/null || fail "ping IPv6 overlay over IPv6 underlay"
ok "ping IPv6 overlay address over IPv6 underlay"

# IPv4 without DF, 1480 bytes (before any PMTU is cached for the overlay
# address): sent with the outer packet fragmented, answered.
frag0=$(tu_show "$A" ovl0 counter.outer_fragmented)
in_a ping -M dont -s 1452 -c 2 -i 0.2 -W 2 198.19.0.2 >/dev/null || fail "1480-byte ping without DF lost"
ok "IPv4 without DF larger than the path: delivered"
expect_ge "outer packets sent fragmented" "$(( $(tu_show "$A" ovl0 counter.outer_fragmented) - frag0 ))" 2

# IPv4 with DF, 1480 bytes: ICMP frag-needed with MTU 1420 from the tunnel.
in_a ping -M do -s 1452 -c 1 -W 1 198.19.0.2 >"$TU_DIR/p1" 2>&1 || true
expect_ge "too-big replies written to the TUN" "$(tu_show "$A" ovl0 counter.too_big_icmp_sent)" 1
grep -q "mtu = 1420" "$TU_DIR/p1" ||
	fail "no frag-needed with MTU 1420: $(cat "$TU_DIR/p1"; in_a ip route get 198.19.0.2)"
ok "IPv4 DF: frag-needed with MTU 1420 reached the sender's stack"
in_a ip route get 198.19.0.2 | grep -q "mtu 1420" || fail "route cache has no mtu 1420"
ok "sender's route to 198.19.0.2 now has mtu 1420"

# IPv6, 1500 bytes: packet too big with MTU 1420, then the sender fragments.
icmp0=$(tu_show "$A" ovl0 counter.too_big_icmp_sent)
in_a ping -6 -M do -s 1452 -c 1 -W 1 2001:2:0:ff::2 >/dev/null 2>&1 || true
expect_ge "ICMPv6 packet-too-big replies" "$(( $(tu_show "$A" ovl0 counter.too_big_icmp_sent) - icmp0 ))" 1
in_a ip -6 route get 2001:2:0:ff::2 | grep -q "mtu 1420" || fail "no IPv6 PMTU 1420: $(in_a ip -6 route get 2001:2:0:ff::2)"
ok "sender's IPv6 route now has mtu 1420"
in_a ping -6 -s 1452 -c 2 -i 0.2 -W 2 2001:2:0:ff::2 >/dev/null || fail "1500-byte IPv6 ping after PTB"
ok "IPv6 1500-byte ping delivered after packet-too-big"

# TCP through the too-large overlay MTU: PMTU discovery converges, content intact.
in_a ip route flush cache
in_a ip -6 route flush cache
tu_tcp_sha 198.19.0.2 5002 4
ok "4 MiB TCP over IPv4 overlay with a too-large MTU: SHA-256 equal"
tu_tcp_sha 2001:2:0:ff::2 5003 4
ok "4 MiB TCP over IPv6 overlay with a too-large MTU: SHA-256 equal"
kill $PID_A $PID_B; wait $PID_A $PID_B || true

# A chain h0 - h1 - h2; the tunnel joins h0 and h2; h1 -> h2 carries only 1400.
"$OVLPERF" lab up tu2 --hosts 3 --force >/dev/null
A=ovp-tu2-0 B=ovp-tu2-2
ip netns exec ovp-tu2-1 ip link set ovp1 mtu 1400
ip netns exec ovp-tu2-2 ip link set ovp1 mtu 1400
tu_conf c0.conf a "198.18.0.1:51900" "198.19.0.1/24" b "198.18.1.2:51900" "198.19.0.3/32"
# h2's own first hop is the 1400 link: give it the same MTU as h0 (the
# receiver's MSS must not hide the problem).
tu_conf c2.conf b "198.18.1.2:51900" "198.19.0.3/24" a "198.18.0.1:51900" "198.19.0.1/32" "mtu = 1440"
tu_up "$A" c0.conf ovl0
PID_A=$TU_PID
tu_up "$B" c2.conf ovl0
PID_B=$TU_PID
tu_wait_handshake "$A" ovl0
expect_eq "overlay MTU from the first hop (1500 - 60)" "$(tu_show "$A" ovl0 mtu)" 1440
# The user fits the overlay to the 1400 path by hand (nothing learned yet):
# padding must follow the new MTU, so a 1340-byte packet is 1400 on the wire
# (padded to 1344 it would be 1404: dropped one hop away, ICMP, fragments).
in_a ip link set ovl0 mtu 1340
for i in $(seq 30); do [ "$(tu_show "$A" ovl0 pad_mtu)" = 1340 ] && break; sleep 0.1; done
expect_eq "padding cap after ip link set ovl0 mtu 1340" "$(tu_show "$A" ovl0 pad_mtu)" 1340
frag0=$(tu_show "$A" ovl0 counter.outer_fragmented)
in_a ping -M do -s 1312 -c 2 -i 0.2 -W 2 198.19.0.3 >/dev/null || fail "1340-byte DF ping at MTU 1340 lost"
ok "1340-byte DF ping through a 1400-byte path at overlay MTU 1340"
expect_eq "no outer fragments at MTU 1340" "$(( $(tu_show "$A" ovl0 counter.outer_fragmented) - frag0 ))" 0
expect_eq "path MTU still the first hop's (no 1404-byte packet hit the 1400 hop)" \
	"$(tu_show "$A" ovl0 path_inner_mtu)" 1440
in_a ip link set ovl0 mtu 1440
for i in $(seq 30); do [ "$(tu_show "$A" ovl0 pad_mtu)" = 1440 ] && break; sleep 0.1; done
frag0=$(tu_show "$A" ovl0 counter.outer_fragmented)
senderr0=$(tu_show "$A" ovl0 drop.send_error)
tu_tcp_sha 198.19.0.3 5004 4
ok "4 MiB TCP across a path MTU drop one hop away: SHA-256 equal"
expect_eq "inner limit after the underlay learned PMTU 1400" "$(tu_show "$A" ovl0 path_inner_mtu)" 1340
# Padding stops at 1340 (not 1344): the tunnel announces 1340 in its too-big replies.
expect_eq "unfragmented limit (padding capped at the path)" "$(tu_show "$A" ovl0 send_limit)" 1340
expect_eq "padding cap follows the learned path MTU" "$(tu_show "$A" ovl0 pad_mtu)" 1340
expect_ge "too-big replies for TCP segments" "$(tu_show "$A" ovl0 counter.too_big_icmp_sent)" 1
# A segment sent after h0's kernel learned PMTU 1400 from h1's ICMP, but
# before the daemon re-read it (once a second, or at once on EMSGSIZE), is
# refused with EMSGSIZE and must go out fragmented (outer_fragmented), not be
# dropped (drop.send_error). Whether one falls in that window is timing the
# test cannot set from outside the daemon: on a loaded machine TCP's first
# burst may all leave before the ICMP is back, and the once-a-second re-read
# may come before the retransmission, so the tunnel answers too-big and
# nothing is refused. Such a transfer is said, and the scenario repeated from
# a flushed PMTU (the daemon back at 1440 first), at most 5 transfers: a
# tunnel that never fragments them fails all 5.
for try in 1 2 3 4 5; do
	senderr=$(($(tu_show "$A" ovl0 drop.send_error) - senderr0))
	[ "$senderr" -eq 0 ] ||
		fail "transfer $try: $senderr sends failed (drop.send_error): segments refused for their size were lost, not fragmented"
	frag=$(($(tu_show "$A" ovl0 counter.outer_fragmented) - frag0))
	{ [ "$frag" -ge 1 ] || [ "$try" -eq 5 ]; } && break
	echo "# transfer $try: no segment was sent between the underlay learning PMTU 1400 and the tunnel re-reading it (skipped precondition); again from a flushed PMTU"
	in_a ip route flush cache
	for i in $(seq 50); do
		[ "$(tu_show "$A" ovl0 send_limit)" = 1440 ] && break
		sleep 0.1
	done
	expect_eq "transfer $((try + 1)): after the flush the tunnel is back at the first hop's limit" \
		"$(tu_show "$A" ovl0 send_limit)" 1440
	tu_tcp_sha 198.19.0.3 5004 4
	ok "transfer $((try + 1)): 4 MiB TCP across the path MTU drop: SHA-256 equal"
done
expect_ge "segments sent before the PMTU was known (fragmented, not lost; $try transfer(s))" "$frag" 1

# The lab's own overlay over IPv6: ready with handshakes done, MTU 1500 - 80.
kill $PID_A $PID_B; wait $PID_A $PID_B || true
# its key files in a directory of this test's own (other tests beside it
# bring overlays up in /tmp): lab up writes them under $TMPDIR
KEYTMP=$(mktemp -d /tmp/ovlperf-tunnel-mtu.XXXXXX)
on_exit "rm -rf '$KEYTMP'"
TMPDIR=$KEYTMP "$OVLPERF" lab up tu2 --overlay6 --force >/dev/null || fail "lab up --overlay6"
A=ovp-tu2-0 B=ovp-tu2-1
expect_eq "lab overlay MTU over IPv6" "$(tu_show "$A" ovl0 mtu)" 1420
expect_eq "lab overlay handshakes at start" "$(tu_show "$A" ovl0 peers_with_handshake)" 1
in_a ping -c 1 -W 2 198.19.0.2 >/dev/null || fail "lab overlay: ping 198.19.0.2"
in_b ping -6 -c 1 -W 2 2001:2:0:ff::1 >/dev/null || fail "lab overlay: ping 2001:2:0:ff::1"
ok "lab up --overlay6: both overlay families reachable"
grep -qsF "$KEYTMP/ovlperf-overlay-" /proc/[0-9]*/cmdline ||
	fail "lab overlay: no daemon read its configuration under \$TMPDIR ($KEYTMP)"
[ -d "$KEYTMP" ] && [ -z "$(ls -A "$KEYTMP")" ] || fail "lab overlay left key files: $(ls -A "$KEYTMP")"
ok "no key files left on disk"
echo "$TEST_NAME: $CHECKS checks passed"
