#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: the shaped cases must overrun a 20 Mbit/s link and a 4 KiB receive buffer; another test's load slows the senders
# Loss attribution names the place where the datagrams were really lost,
# counted in datagrams with the offloads on (UDP GSO/GRO, the default) and
# off, over IPv4 and IPv6, each place checked against the kernel's own
# counter read here independently:
#   a shaped link: every loss in the sender's qdisc (tbf), none in its
#     socket buffer or the network; the qdisc's packets equal `tc -s qdisc`;
#   an nftables drop at the receiver: every loss in the network, equal to
#     the rule's counter;
#   a tiny receive buffer: every loss in the test's own socket, equal to
#     the receiving host's RcvbufErrors (/proc/net/snmp, snmp6), less the
#     end-of-test markers the full socket refused (at most 3);
#   the built-in overlay's daemon dropping corrupted packets: every loss in
#     the tunnel, equal to its drops (ovlperf tunnel show: drop.*, decrypt
#     among them; a daemon beside other work drops more than those), none
#     in the network but what the daemon dropped after ovlperf read it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

# The shaper is far below what any sender here offers: a datagram at a time
# (--no-gso) under ASan on a loaded 2-core machine reached 180 Mbit/s, which
# a 200 Mbit/s shaper let through whole. At 20 Mbit/s even a sender at a
# tenth of that speed overruns it by thousands of datagrams in 2 s.
SHAPER=20M
lab_make haattr --rate $SHAPER
start_server

check_counts() # FILE
{
	local f=$1
	pyv "$f" 'str(d["error"])' 'd["udp"]["sent"]' 'd["udp"]["received"] + d["udp"]["lost"]' \
		'sum(d["udp"]["loss_at"].values())' 'd["udp"]["lost"]' \
		'sum(p["datagrams"] for p in d["udp"]["loss_places"])'
	expect_eq "$f: error" "${V[0]}" None
	expect_eq "$f: sent = received + lost" "${V[1]}" "${V[2]}"
	expect_eq "$f: loss_at sums to lost" "${V[3]}" "${V[4]}"
	expect_eq "$f: loss_places sum to lost" "${V[5]}" "${V[4]}"
}

qdisc_drops() # NETNS: the root qdisc's "dropped" on ovp0
{
	ip netns exec "$1" tc -s qdisc show dev ovp0 | awk '/dropped/ { sub(",", "", $7); print $7; exit }'
}

# 1. A link shaped to 20 Mbit/s, offered 300: the sending host's tbf drops.
shaped() # NAME DST OFFLOAD_ARGS...
{
	local name=$1 dst=$2 f="$WORK/$1.json" q0 q1
	shift 2
	q0=$(qdisc_drops "$A")
	client "$f" "$dst" -u -b 300M -l 1200 -t 2 "$@"
	q1=$(qdisc_drops "$A")
	check_counts "$f"
	pyv "$f" 'd["udp"]["lost"]' 'd["udp"]["loss_at"]["network"]' \
		'd["udp"]["loss_at"]["sender_sndbuf"]' 'd["udp"]["loss_at"]["sender_qdisc"]' \
		'd["udp"]["sender_drops"]["datagrams"]' 'd["udp"]["sender_drops"]["packets"]' \
		'd["udp"]["sender_drops"]["qdisc"] + " " + d["udp"]["sender_drops"]["interface"]' \
		'str(d["udp"]["gso"])' 'd["udp"]["achieved_bps"]'
	# the case's precondition is a sender faster than the shaper: say what it offered
	[ "${V[0]}" -ge 1000 ] || fail "$name: lost: got ${V[0]}, expected >= 1000 (the sender offered ${V[8]} bit/s of payload to the $SHAPER shaper)"
	ok "$name: lost = ${V[0]} >= 1000"
	expect_eq "$name: network" "${V[1]}" 0
	expect_eq "$name: sender socket buffer" "${V[2]}" 0
	expect_eq "$name: all in the sender's qdisc" "${V[3]}" "${V[0]}"
	expect_eq "$name: the qdisc's datagrams (uncapped) = lost" "${V[4]}" "${V[0]}"
	expect_eq "$name: which qdisc" "${V[6]}" "tbf ovp0"
	# the qdisc counts packets: a GSO message dropped whole is one
	within_1pct "$name: qdisc packets vs tc -s qdisc" "${V[5]}" $((q1 - q0))
	if [ "${V[7]}" = False ]; then
		within_1pct "$name: qdisc datagrams vs tc -s qdisc" "${V[3]}" $((q1 - q0))
	fi
}

shaped v4-offload 198.18.0.2
expect_eq "offloads on by default" "$(py "$WORK/v4-offload.json" 'd["udp"]["gso"]')" true
shaped v4-plain 198.18.0.2 --no-gso --no-gro
shaped v6-offload 2001:2::2
shaped v6-plain 2001:2::2 --no-gso --no-gro

# the server sends (-R): its own qdisc, told in RESULTS
q0=$(qdisc_drops "$B")
client "$WORK/rev.json" 198.18.0.2 -u -b 300M -l 1200 -t 2 -R
q1=$(qdisc_drops "$B")
check_counts "$WORK/rev.json"
pyv "$WORK/rev.json" 'd["udp"]["lost"]' 'd["udp"]["loss_at"]["sender_qdisc"]' \
	'd["udp"]["sender_drops"]["packets"]' 'd["udp"]["achieved_bps"]'
[ "${V[0]}" -ge 1000 ] || fail "reverse: lost: got ${V[0]}, expected >= 1000 (the server offered ${V[3]} bit/s of payload to the $SHAPER shaper)"
ok "reverse: lost = ${V[0]} >= 1000"
expect_eq "reverse: all in the server's qdisc" "${V[1]}" "${V[0]}"
within_1pct "reverse: qdisc packets vs tc -s qdisc" "${V[2]}" $((q1 - q0))

# the terminal names the place and its fix
in_a "$OVLPERF" client 198.18.0.2 -u -b 300M -l 1200 -t 1 >"$WORK/term.txt" 2>>"$WORK/client.log" ||
	fail "terminal run"
grep -q "the sender's qdisc .*fix: none in the host: the configured rate is the limit (qdisc tbf on ovp0)" \
	"$WORK/term.txt" || fail "no qdisc line: $(cat "$WORK/term.txt")"
ok "terminal report names the qdisc and its fix"

# 2. Below the shaper (5 Mbit/s, a quarter of its rate: its qdisc drops
# nothing), an nftables rule drops 3 % of the measured test datagrams at
# B's input (about 15 of 520): the datagram header's magic "OVLD" and no flags
# (include/proto/proto.h), so that a greeting, a warm-up or an end marker it might
# hit, which are no loss, never enter the counter the test compares with.
in_b nft -f - <<'NFT'
table inet hadrop {
	counter dropped { }
	chain in { type filter hook input priority 0; policy accept;
		meta l4proto udp @th,64,32 0x4f564c44 @th,112,16 0 numgen random mod 100 < 3 counter name dropped drop
	}
}
NFT
on_exit "ip netns exec $B nft delete table inet hadrop"
# The rule's counter in datagrams: a GSO packet the sender's shaper did not
# split reaches B's input hook whole (veth passes it on), one packet of N
# datagrams with one IP and UDP header. Its bytes tell N: datagrams =
# (bytes - packets x (IP + UDP header)) / payload.
nft_counter() # the rule's counter: "packets bytes"
{
	in_b nft list counter inet hadrop dropped | awk '/packets/ { print $2, $4 }'
}

dropped() # NAME DST OFFLOAD_ARGS...
{
	local name=$1 dst=$2 f="$WORK/$1.json" p0 b0 p1 b1 hdr=28 payload
	shift 2
	[[ $dst == *:* ]] && hdr=48
	read -r p0 b0 < <(nft_counter)
	client "$f" "$dst" -u -b 5M -l 1200 -t 1 "$@"
	read -r p1 b1 < <(nft_counter)
	# this test's packets only: earlier ones may have had the other family's header
	payload=$(((b1 - b0) - (p1 - p0) * hdr))
	expect_eq "$name: the rule dropped whole 1200-byte datagrams" $((payload % 1200)) 0
	check_counts "$f"
	pyv "$f" 'd["udp"]["lost"]' 'd["udp"]["loss_at"]["network"]'
	expect_ge "$name: lost" "${V[0]}" 1
	expect_eq "$name: all in the network" "${V[1]}" "${V[0]}"
	expect_eq "$name: network = the rule's counter (datagrams)" "${V[1]}" $((payload / 1200))
}

dropped nft-v4-offload 198.18.0.2
dropped nft-v4-plain 198.18.0.2 --no-gso --no-gro
dropped nft-v6-offload 2001:2::2
dropped nft-v6-plain 2001:2::2 --no-gso --no-gro
in_b nft delete table inet hadrop

# 3. No shaper, a 4 KiB receive buffer at 1 Gbit/s: the test's own socket.
in_a tc qdisc del dev ovp0 root
in_b tc qdisc del dev ovp0 root

small_rcvbuf() # NAME DST FAMILY OFFLOAD_ARGS...
{
	local name=$1 dst=$2 fam=$3 f="$WORK/$1.json" r0 r1
	shift 3
	r0=$(rcvbuf_errors "$B" "$fam")
	client "$f" "$dst" -u -b 1G -t 1 -w 4K "$@"
	r1=$(rcvbuf_errors "$B" "$fam")
	check_counts "$f"
	pyv "$f" 'd["udp"]["lost"]' 'd["udp"]["loss_at"]["receiver_socket"]' \
		'd["udp"]["loss_at"]["network"]' 'd["udp"]["loss_at"]["receiver_rcvbuf"]' \
		'str(d["udp"]["gro"])' \
		'([p["fix"] for p in d["udp"]["loss_places"] if p["place"] == "receiver_socket"] + [""])[0][:31]'
	expect_eq "$name: other sockets" "${V[3]}" 0
	if [ "${V[4]}" = False ]; then
		expect_ge "$name: lost" "${V[0]}" 1
		expect_eq "$name: fix" "${V[5]}" "a receive buffer that holds the"
		expect_eq "$name: all in the test's socket" "${V[1]}" "${V[0]}"
		expect_eq "$name: network" "${V[2]}" 0
		# The kernel's counter also holds the end-of-test markers the full
		# socket refused: 3 copies per stream (udp_send.c FIN_COPIES), sent
		# right after the data, no test datagrams and so no loss. The
		# test's own loss is exact; the markers are the only other thing
		# that can reach this socket.
		expect_ge "$name: RcvbufErrors >= socket" $((r1 - r0)) "${V[1]}"
		[ $((r1 - r0 - V[1])) -le 3 ] ||
			fail "$name: RcvbufErrors $((r1 - r0)) exceed the socket's ${V[1]} by more than the 3 end markers"
		ok "$name: RcvbufErrors - socket = $((r1 - r0 - V[1])) end markers (<= 3)"
	else
		# GRO: the kernel counts a coalesced packet once in RcvbufErrors
		# and SO_RXQ_OVFL, however many datagrams it held; the receiver
		# scales by the datagrams per packet it read (weighted by size).
		# That estimate (within about 10 % on a quiet machine) is no
		# guarantee, so only what the code guarantees is checked: at
		# least one datagram per packet the kernel counted, never more
		# than was lost, the rest the network's and no other place's.
		expect_ge "$name: socket datagrams >= RcvbufErrors packets" "${V[1]}" $((r1 - r0))
		[ "${V[1]}" -le "${V[0]}" ] || fail "$name: socket ${V[1]} > lost ${V[0]}"
		ok "$name: socket ${V[1]} <= lost ${V[0]}"
		[ $((r1 - r0)) = 0 ] || expect_eq "$name: fix" "${V[5]}" "a receive buffer that holds the"
		expect_eq "$name: the rest is the network's, no other place's" \
			$((V[1] + V[2])) "${V[0]}"
	fi
}

small_rcvbuf rcv-v4-plain 198.18.0.2 4 --no-gso --no-gro
small_rcvbuf rcv-v6-plain 2001:2::2 6 --no-gso --no-gro
small_rcvbuf rcv-v4-offload 198.18.0.2 4
small_rcvbuf rcv-v6-offload 2001:2::2 6

# 4. Through the built-in overlay, an nftables rule at B corrupts 3 % of the
# tunnel's outer datagrams: the daemon drops them (decrypt), and ovlperf reads
# its drop.* counters through the control socket at both ends: the tunnel's
# loss is B's daemon's drops, all kinds, decrypt among them.
stop_server
lab_make haovl --overlay
start_server
port=$(in_b "$OVLPERF" tunnel show | awk '/listen port:/ { print $3; exit }')
[ -n "$port" ] || fail "no overlay listen port"
# drops_b KIND: B's daemon's drop.KIND; drops_b all: every drop.* of it
# summed (what ovlperf reads as the tunnel's: a daemon beside other work
# drops more than the corrupted ones, 202 against 122 decrypt in a CI,
# which kinds not recorded)
drops_b()
{
	in_b "$OVLPERF" tunnel show --raw | awk -F= -v k="drop.$1" '
		$1 == k || (k == "drop.all" && $1 ~ /^drop\./) { n += $2 } END { print n + 0 }'
}
in_b nft -f - <<NFT
table inet hacorrupt {
	chain pre { type filter hook prerouting priority -300; policy accept;
		udp dport $port udp length > 200 numgen random mod 100 < 3 @ih,256,8 set 0x5a
	}
}
NFT
on_exit "ip netns exec $B nft delete table inet hacorrupt"
d0=$(drops_b decrypt) a0=$(drops_b all)
client "$WORK/tunnel.json" 198.19.0.2 -u -b 50M -t 1
d1=$(drops_b decrypt) a1=$(drops_b all)
check_counts "$WORK/tunnel.json"
# The places ovlperf fills before the tunnel (each from its own counter)
# may hold a few: a fresh-clone CI, beside check's other work, placed 2 of
# 131 lost there (which place was not recorded; loss_at is printed now).
# The tunnel holds the rest of the loss, up to the daemon's drops; the
# network none.
pyv "$WORK/tunnel.json" 'd["udp"]["lost"]' 'd["udp"]["loss_at"]["tunnel"]' 'd["udp"]["loss_at"]["network"]' \
	'sum(d["udp"]["loss_at"][k] for k in ("receiver_socket", "sender_qdisc", "sender_sndbuf", "sender_link"))' \
	'" ".join("%s=%s" % (k, v) for k, v in d["udp"]["loss_at"].items() if v)'
echo "# overlay: loss_at ${V[4]}; B's daemon dropped $((a1 - a0)), $((d1 - d0)) in decrypt"
expect_ge "overlay: lost" "${V[0]}" 1
before=${V[3]} left=$((V[0] - V[3])) drops=$((a1 - a0))
# The network holds none but a corrupted datagram the daemon dropped after
# ovlperf had read its counters: one that came late through a busy
# machine's two daemons (network 1, tunnel 133, the daemon's 134 read
# after, in a fresh-clone CI, with ovlperf waiting for the daemon's
# counters to stand still and its socket to be read empty). The tunnel's
# check below holds that count to the daemon's.
late=$((drops > V[1] ? drops - V[1] : 0))
[ "${V[2]}" -le "$late" ] ||
	fail "overlay: network ${V[2]}, of which the daemon dropped only $late after ovlperf read it"
ok "overlay: network ${V[2]} (the daemon's drops counted after ovlperf read them: $late)"
[ "$before" -le $((V[0] / 10)) ] || fail "overlay: $before of ${V[0]} lost placed before the tunnel"
within_1pct "overlay: tunnel vs the daemon's drops (at most the $left left once $before were placed)" \
	"${V[1]}" $((drops < left ? drops : left))
expect_ge "overlay: of them the corrupted ones (drop.decrypt)" $((d1 - d0)) 1

echo "$TEST_NAME: $CHECKS checks passed"
