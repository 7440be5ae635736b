#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: B's daemon is stopped 400 ms while A sends; beside another test the stream and the stop need not overlap (seen: a largest wait of 12.5 ms)
# The built-in overlay's receive queue (codel.h, rxq.h), against its own
# counters: B's daemon is stopped (SIGSTOP) for 400 ms while A sends a
# steady UDP stream through the overlay, so datagrams wait in B's underlay
# socket. With the default policy the ones that waited past queue_limit_us
# are dropped before decryption and counted (drop.queue_*), and every
# datagram is either delivered or counted there: the receiving application's
# count plus those drops equals what A sent. With the policy off
# (queue_target_us = queue_limit_us = 0) nothing is dropped and all arrive
# late. Either way `tunnel show` reports the wait (max >= 200 ms) and one
# queue sample per underlay datagram. IPv4 and IPv6 underlays.
#
# The sending side: A's daemon is stopped instead, with txqueuelen = 64, so
# the datagrams wait in A's TUN ring, which the kernel tail-drops when full.
# `tunnel show` reports the ring's length and drops as the kernel keeps them
# (queue.tx_tun_*): they equal `ip -s link`'s figures for the device, and
# received + those drops equals what A sent.
#
# Offloads: on in the default-policy cases; off (offload = off: no TSO, no
# UDP GSO/GRO, no coalescing) in the IPv6 policy-off case and the IPv4
# sending-side case, so each queue is checked both ways.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair tq

# stall_stream DST PID: 2000 datagrams/s for 1.2 s from A to DST:9100 in B,
# the daemon PID stopped for 400 ms in the middle; prints "sent received"
stall_stream()
{
	local dst=$1 stop=$2 rcv snd
	in_b python3 - "$dst" "$TU_DIR/rcv" <<'PY' &
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE: the burst after SIGCONT
s.bind((sys.argv[1], 9100)); s.settimeout(20); n = 0
open(sys.argv[2] + ".ready", "w").close()
try:
    s.recv(2048); n = 1; s.settimeout(2)
    while True:
        s.recv(2048); n += 1
except socket.timeout:
    pass
open(sys.argv[2], "w").write(str(n))
PY
	rcv=$!
	on_exit "kill $rcv 2>/dev/null"
	for _ in $(seq 100); do [ -e "$TU_DIR/rcv.ready" ] && break; sleep 0.1; done
	in_a python3 - "$dst" "$TU_DIR/snd" <<'PY' &
import socket, sys, time
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM); n = 0; t0 = time.monotonic()
open(sys.argv[2] + ".started", "w").close()
while time.monotonic() - t0 < 1.2:
    while n < (time.monotonic() - t0) * 2000:
        s.sendto(b"q" * 100, (sys.argv[1], 9100)); n += 1
    time.sleep(0.0005)
open(sys.argv[2], "w").write(str(n))
PY
	snd=$!
	# the stop falls inside the stream however long python takes to start
	# on a loaded machine: counted from the sender's own start
	for _ in $(seq 200); do [ -e "$TU_DIR/snd.started" ] && break; sleep 0.05; done
	[ -e "$TU_DIR/snd.started" ] || fail "the sender did not start"
	sleep 0.3
	kill -STOP "$stop"
	sleep 0.4
	kill -CONT "$stop"
	wait "$snd" || fail "sender failed"
	wait "$rcv" || fail "receiver failed"
	echo "$(cat "$TU_DIR/snd") $(cat "$TU_DIR/rcv")"
	rm -f "$TU_DIR/rcv" "$TU_DIR/rcv.ready" "$TU_DIR/snd" "$TU_DIR/snd.started"
}

# stalled FAMILY LABEL EXTRA A|B: a fresh pair with EXTRA in [interface], its
# offloads checked, then the stream with that host's daemon stopped; sets
# SENT and GOT
stalled()
{
	local dst=198.19.0.2 pid
	[ "$1" = 6 ] && dst=2001:2:0:ff::2
	tu_pair "$1" "$3"
	check_offloads "IPv$1 $2" "$3"
	[ "$4" = A ] && pid=$PID_A || pid=$PID_B
	read -r SENT GOT < <(stall_stream "$dst" "$pid")
}

# one_case FAMILY LABEL EXTRA: B's daemon stopped
one_case()
{
	local fam=$1 label=$2 extra=$3 sent got dl ds max samples dgrams
	stalled "$fam" "$label" "$extra" B
	sent=$SENT got=$GOT
	dl=$(tu_show "$B" ovl0 drop.queue_limit)
	ds=$(tu_show "$B" ovl0 drop.queue_standing)
	max=$(tu_show "$B" ovl0 queue.rx_delay_max_us)
	samples=$(tu_show "$B" ovl0 queue.rx_samples)
	dgrams=$(tu_show "$B" ovl0 counter.udp_rx_datagrams)
	echo "# IPv$fam $label: sent $sent, received $got, dropped limit $dl standing $ds, max wait ${max} us"
	expect_ge "IPv$fam $label: largest wait (us) covers the stop" "$max" 200000
	expect_eq "IPv$fam $label: one queue sample per underlay datagram" "$samples" "$dgrams"
	# B's kernel counts a datagram its sockets could not hold (a loaded host's
	# udp_mem pressure): such a loss is no queue drop, and is shown if it happens
	[ $((got + dl + ds)) = "$sent" ] || in_b cat /proc/net/snmp /proc/net/snmp6 | grep -E 'Udp6?:|Udp6(Rcvbuf|InErr|Mem)' >&2
	expect_eq "IPv$fam $label: received + queue drops = sent" "$((got + dl + ds))" "$sent"
	if [ -n "$extra" ]; then
		expect_eq "IPv$fam $label: no queue drops" "$((dl + ds))" 0
	else
		expect_ge "IPv$fam $label: datagrams that waited past the limit dropped" "$dl" 300
		expect_eq "IPv$fam $label: limit shown" "$(tu_show "$B" ovl0 queue.rx_limit_us)" 50000
	fi
	kill "$PID_A" "$PID_B"; wait "$PID_A" "$PID_B" 2>/dev/null
}

# check_offloads LABEL EXTRA: the daemons' offloads are what EXTRA asks
check_offloads()
{
	local want=on ns
	[[ "$2" == *"offload = off"* ]] && want=off
	for ns in "$A" "$B"; do
		expect_eq "$1: offloads $want in $ns" "$(tu_show "$ns" ovl0 tso)/$(tu_show "$ns" ovl0 udp_gso)" "$want/$want"
	done
}

# tx_case FAMILY [EXTRA]: A's daemon stopped, its TUN ring 64 packets long
tx_case()
{
	local fam=$1 sent got td tl kd dq
	stalled "$fam" "sender stopped" "txqueuelen = 64${2:+$'\n'$2}" A
	sent=$SENT got=$GOT
	td=$(tu_show "$A" ovl0 queue.tx_tun_dropped)
	tl=$(tu_show "$A" ovl0 queue.tx_tun_len)
	kd=$(ip -n "$A" -s -j link show ovl0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])')
	dq=$(( $(tu_show "$B" ovl0 drop.queue_limit) + $(tu_show "$B" ovl0 drop.queue_standing) ))
	echo "# IPv$fam sender stopped: sent $sent, received $got, TUN ring $tl dropped $td (kernel: $kd)"
	expect_eq "IPv$fam sender stopped: ring length shown" "$tl" 64
	expect_eq "IPv$fam sender stopped: ring drops shown = the kernel's tx dropped" "$td" "$kd"
	expect_ge "IPv$fam sender stopped: the full ring dropped" "$td" 300
	expect_eq "IPv$fam sender stopped: no receive queue drops" "$dq" 0
	expect_eq "IPv$fam sender stopped: received + ring drops = sent" "$((got + td))" "$sent"
	kill "$PID_A" "$PID_B"; wait "$PID_A" "$PID_B" 2>/dev/null
}

off=$'queue_target_us = 0\nqueue_limit_us = 0'
one_case 4 "default policy" ""
one_case 4 "policy off" "$off"
tx_case 4 "offload = off"
one_case 6 "default policy" ""
one_case 6 "policy off, offloads off" "$off"$'\noffload = off'
tx_case 6
echo "# $CHECKS checks"
