#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone
# Loss in another socket of the receiving host: a VPN daemon's. The built-in
# overlay runs as a plain userspace VPN would, by hand, with the smallest
# socket buffer it takes (socket_buffer = 65536) and its offloads off, so
# the kernel counts one outer datagram per dropped packet. A UDP test at
# 2 Gbit/s through it (1200-byte datagrams: unfragmented in the tunnel's 1440
# bytes over IPv4 and IPv6) overflows the receiving daemon's socket: the loss is
# "other sockets on the receiving host" (receiver_rcvbuf), within 1 % of the
# receiving host's RcvbufErrors (which also counts the few unmeasured
# packets the daemon's socket dropped: end markers, greetings), never the
# test's own socket, and its fix names the owner's buffer setting, not -w.
# The sending end loses too, in its TUN queue (the daemon reads it slower
# than the test writes): the sender's interface, equal to the TUN device's
# tx_dropped. IPv4 and IPv6 tests inside, over an IPv4 and an IPv6 underlay.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"
source "$(dirname "$0")/tunnel_lib.sh"

WORK=$(mktemp -d /tmp/ovlperf-other-XXXXXX)
on_exit "rm -rf '$WORK'"
lab_make haoth
TU_EXTRA="offload = off"

overflow() # NAME DST
{
	local name=$1 dst=$2 f="$WORK/$1.json" r0 r1 t0 t1
	r0=$(($(rcvbuf_errors "$B" 4) + $(rcvbuf_errors "$B" 6)))
	t0=$(in_a cat /sys/class/net/ovl0/statistics/tx_dropped)
	client "$f" "$dst" -u -b 2G -t 2 -l 1200
	r1=$(($(rcvbuf_errors "$B" 4) + $(rcvbuf_errors "$B" 6)))
	t1=$(in_a cat /sys/class/net/ovl0/statistics/tx_dropped)
	local lost other own fix
	lost=$(py "$f" 'd["udp"]["lost"]')
	other=$(py "$f" 'd["udp"]["loss_at"]["receiver_rcvbuf"]')
	own=$(py "$f" 'd["udp"]["loss_at"]["receiver_socket"]')
	fix=$(py "$f" '([p["fix"] for p in d["udp"]["loss_places"] if p["place"] == "receiver_rcvbuf"] + [""])[0]')
	echo "# $name: lost $lost, other sockets $other, own $own, network $(py "$f" 'd["udp"]["loss_at"]["network"]'); B's RcvbufErrors $((r1 - r0))"
	expect_ge "$name: the daemon's socket overflowed (RcvbufErrors)" $((r1 - r0)) 1
	within_1pct "$name: other sockets vs RcvbufErrors" "$other" $((r1 - r0))
	expect_eq "$name: the sender's interface = the TUN's tx_dropped" \
		"$(py "$f" 'd["udp"]["loss_at"]["sender_link"]')" $((t1 - t0))
	# the network: nothing, but for datagrams the sending daemon still
	# held when the test's window closed and the receiving socket dropped
	# after its counters were read: each one counted by the kernel's
	# RcvbufErrors beyond the attributed ones (seen once in a CI: 207,
	# against 208 of them)
	net=$(py "$f" 'd["udp"]["loss_at"]["network"]')
	[ "$net" -le $((r1 - r0 - other > 0 ? r1 - r0 - other : 0)) ] ||
		fail "$name: the network $net, beyond the $((r1 - r0 - other)) the receiving host's RcvbufErrors counted past the attributed"
	ok "$name: the network $net (RcvbufErrors past the attributed: $((r1 - r0 - other)))"
	expect_eq "$name: the test's own socket" "$own" 0
	[ "$other" -le "$lost" ] || fail "$name: other sockets $other > lost $lost"
	ok "$name: other sockets $other of $lost lost"
	grep -q "buffer" <<<"$fix" || fail "$name: fix '$fix' names no buffer"
	case $fix in
	*"-w cannot help"*) ;;
	*"-w"*) fail "$name: fix '$fix' advises -w, which cannot help there" ;;
	esac
	ok "$name: fix names the owner's buffer: $fix"
}

for fam in 4 6; do
	tu_pair $fam "socket_buffer = 65536"
	start_server
	overflow "underlay v$fam, test v4" 198.19.0.2
	overflow "underlay v$fam, test v6" 2001:2:0:ff::2
	stop_server
	kill "$PID_A" "$PID_B"
	wait "$PID_A" "$PID_B" 2>/dev/null || true
	rm -f "$TU_DIR"/*.conf "$TU_DIR"/*.key "$TU_DIR"/*.pub
done
echo "$TEST_NAME: $CHECKS checks passed"
