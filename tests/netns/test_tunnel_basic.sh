#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The built-in overlay over an IPv4 underlay: ping (IPv4 and IPv6 overlay
# addresses), a TCP transfer checked by SHA-256 and UDP bursts checked byte
# by byte (with TUN offloads, the default, or TU_EXTRA="offload = off"),
# no plaintext on the veth,
# keys hidden in `tunnel show`, what waits unread in the daemon's socket
# against the kernel's count, SIGINT removes the device, config errors
# name file, line and key. TU_LAB names its lab (tu): a script that runs
# this one beside it in the lanes gives its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair "${TU_LAB:-tu}"
tu_pair 4

in_a ping -c 2 -i 0.2 -W 2 198.19.0.2 >/dev/null || fail "ping 198.19.0.2 through the overlay"
ok "ping IPv4 overlay address over IPv4 underlay"
in_a ping -6 -c 2 -i 0.2 -W 2 2001:2:0:ff::2 >/dev/null || fail "ping 2001:2:0:ff::2 through the overlay"
ok "ping IPv6 overlay address over IPv4 underlay"
expect_eq "tunnel MTU (1500 - 60)" "$(tu_show "$A" ovl0 mtu)" 1440

# TCP: 8 MiB of random bytes, SHA-256 on both ends.
tu_tcp_sha 198.19.0.2 5001 8 "the overlay"
ok "SHA-256 of 8 MiB through the overlay equal"
expect_ge "peer rx_bytes on B" "$(tu_show "$B" ovl0 rx_bytes)" 8388608
tun_bytes=$(tu_show "$B" ovl0 counter.tun_tx_bytes)
expect_ge "bytes written to B's TUN" "$tun_bytes" 8388608
expect_ge "underlay bytes received by B (sealed: more)" "$(tu_show "$B" ovl0 counter.udp_rx_bytes)" "$tun_bytes"
expect_ge "bytes read from A's TUN" "$(tu_show "$A" ovl0 counter.tun_rx_bytes)" 8388608
# TSO: A's kernel handed over super-packets; coalescing: B wrote fewer than it got.
off() { [[ "${TU_EXTRA:-}" == *"offload = off"* || "${TU_EXTRA:-}" == *"$1 = off"* ]]; }
if ! off tso; then
	reads=$(tu_show "$A" ovl0 counter.tun_rx_reads)
	pkts=$(tu_show "$A" ovl0 counter.tun_rx_packets)
	[ "$reads" -lt "$pkts" ] || fail "no TSO super-packet read on A ($reads reads, $pkts packets)"
	ok "TSO on A: $pkts packets from $reads reads"
fi
if ! off coalesce; then
	writes=$(tu_show "$B" ovl0 counter.tun_tx_writes)
	pkts=$(tu_show "$B" ovl0 counter.tun_tx_packets)
	[ "$writes" -lt "$pkts" ] || fail "no coalescing on B ($writes writes, $pkts packets)"
	ok "coalescing on B: $pkts packets in $writes writes"
fi
# UDP GSO on A's socket and UDP GRO on B's: super-datagrams cross the veth
# whole and B splits them (more datagrams than buffers received).
if ! off udp_gro && ! off udp_gso; then
	expect_eq "UDP GRO enabled on B" "$(tu_show "$B" ovl0 udp_gro)" on
	expect_ge "UDP GRO buffers with several datagrams on B" "$(tu_show "$B" ovl0 counter.udp_rx_gro_buffers)" 1
	calls=$(tu_show "$B" ovl0 counter.udp_rx_calls)
	dgrams=$(tu_show "$B" ovl0 counter.udp_rx_datagrams)
	[ "$calls" -lt "$dgrams" ] || fail "no batching on B's receive ($calls calls, $dgrams datagrams)"
	ok "UDP receive on B: $dgrams datagrams in $calls calls"
	expect_eq "no malformed GRO buffers on B" "$(tu_show "$B" ovl0 drop.bad_gro_segment_size)" 0
else
	expect_eq "no UDP GRO buffers on B with it off" "$(tu_show "$B" ovl0 counter.udp_rx_gro_buffers)" 0
fi

# UDP through the overlay, every byte checked (udp_burst.py): A's socket
# sends 40-datagram super-packets (UDP_SEGMENT); B coalesces what it
# decrypts back into UDP super-packets (coalesce_udp: coalescing on and a
# TUN with USO). A socket with UDP_GRO reads them whole; one without gets
# each datagram alone, split by the kernel. For the IPv6 overlay address
# (the underlay is IPv4) B's kernel counts Udp6InDatagrams once per read.
udp6_in() { in_b awk -v k="Udp6$1" '$1 == k { print $2 }' /proc/net/snmp6; }
udp_case()
{
	local addr=$1 gro=$2 n=2000 log="$TU_DIR/udp-$2-${1//:/_}.log" pid w0 p0 in0 err0 writes pkts
	local got reads multi
	w0=$(tu_show "$B" ovl0 counter.tun_tx_writes)
	p0=$(tu_show "$B" ovl0 counter.tun_tx_packets)
	in0=$(udp6_in InDatagrams)
	err0=$(($(udp6_in InErrors) + $(udp6_in InCsumErrors)))
	ip netns exec "$B" python3 "$(dirname "$0")/udp_burst.py" recv "$addr" 5003 $n "$gro" >"$log" 2>&1 &
	pid=$!
	# a loaded machine may take seconds to start python in B: sending
	# before B's socket is bound gets ICMP port unreachable, then ECONNREFUSED
	for _ in $(seq 300); do grep -q ready "$log" && break; sleep 0.1; done
	grep -q ready "$log" || fail "B's UDP receiver on $addr not bound after 30 s: $(cat "$log")"
	in_a python3 "$(dirname "$0")/udp_burst.py" send "$addr" 5003 $n 1000
	wait $pid || fail "UDP to $addr (UDP_GRO $gro): $(cat "$log")"
	read -r got reads multi < <(tail -1 "$log")
	writes=$(($(tu_show "$B" ovl0 counter.tun_tx_writes) - w0))
	pkts=$(($(tu_show "$B" ovl0 counter.tun_tx_packets) - p0))
	ok "UDP to $addr, UDP_GRO $gro: $got datagrams in order, every byte equal ($reads reads)"
	expect_ge "packets B wrote to its TUN for them" "$pkts" $n
	if [ "$(tu_show "$B" ovl0 coalesce_udp)" = on ]; then
		[ "$writes" -lt "$pkts" ] || fail "no UDP coalescing on B ($writes writes, $pkts packets)"
		ok "UDP coalescing on B: $pkts packets in $writes writes"
		if [ "$gro" = 1 ]; then
			expect_ge "reads that got a super-packet whole" "$multi" 1
		else
			expect_eq "datagrams read one by one without UDP_GRO" "$reads" "$got"
		fi
	else
		expect_eq "TUN writes on B without UDP coalescing" "$writes" "$pkts"
		expect_eq "reads that got more than one datagram" "$multi" 0
	fi
	if [[ $addr == *:* ]]; then
		expect_eq "Udp6InDatagrams on B = the socket's reads" $(($(udp6_in InDatagrams) - in0)) "$reads"
		expect_eq "Udp6InErrors + InCsumErrors on B" $(($(udp6_in InErrors) + $(udp6_in InCsumErrors) - err0)) 0
	fi
}
if ! off coalesce; then
	expect_eq "UDP coalescing on B (the kernel has TUN USO)" "$(tu_show "$B" ovl0 coalesce_udp)" on
fi
for addr in 198.19.0.2 2001:2:0:ff::2; do
	udp_case "$addr" 1
	udp_case "$addr" 0
done

# How long packets stayed inside each daemon: one sample per packet A read
# off its TUN and per datagram B took off its socket, and a time for them.
# Both figures come from one status snapshot; a packet the kernel sends on
# its own (IPv6 MLD, a keepalive) may be in the daemon at that moment, so a
# mismatch is read again until the daemon is idle (readiness, not timing).
same_counts() # NS KEY1 KEY2 LABEL
{
	local raw a b
	for _ in $(seq 20); do
		raw=$(ip netns exec "$1" "$OVLPERF" tunnel show ovl0 --raw)
		a=$(sed -n "s/^$2=//p" <<<"$raw")
		b=$(sed -n "s/^$3=//p" <<<"$raw")
		[ -n "$a" ] && [ "$a" = "$b" ] && { ok "$4 = $a"; return; }
		sleep 0.1
	done
	fail "$4: $2 $a, $3 $b"
}
same_counts "$A" queue.tx_hold_samples counter.tun_rx_packets "TX hold samples on A = packets read from A's TUN"
same_counts "$B" queue.rx_hold_samples counter.udp_rx_datagrams "RX hold samples on B = datagrams B received"
expect_ge "largest RX hold on B (us)" "$(tu_show "$B" ovl0 queue.rx_hold_max_us)" 1
expect_ge "TX hold p99 bucket on A (us)" "$(tu_show "$A" ovl0 queue.tx_hold_p99_le_us)" 1

# How many of B's underlay sockets hold a datagram unread
# (queue.rx_waiting_sockets), against the kernel's own count
# (/proc/net/udp's rx_queue, the bytes queued): B's receiving threads held
# to 1 ms a second (a cgroup v1 quota on those threads alone) while A sends
# 4000 datagrams of junk to B's port. Once they have all arrived a queue
# only shrinks, so `tunnel show`'s figure lies between the kernel's
# counts before it and after it; 0 once the threads are released.
CGQ=/sys/fs/cgroup/cpu
if [ -w "$CGQ/tasks" ]; then
	q=$CGQ/ovlperf-tu-$$
	mkdir "$q"
	on_exit "for t in \$(cat $q/tasks 2>/dev/null); do echo \$t >$CGQ/tasks; done; rmdir $q"
	echo 1000000 >"$q/cpu.cfs_period_us"
	echo 1000 >"$q/cpu.cfs_quota_us"
	pid=$(tu_show "$B" ovl0 pid)
	for t in /proc/"$pid"/task/*; do
		[[ "$(cat "$t/comm")" == ovl-rx* ]] && echo "${t##*/}" >"$q/tasks"
	done
	[ -n "$(cat "$q/tasks")" ] || fail "no ovl-rx thread of B's daemon ($pid) found"
	in_a python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(4000): s.sendto(b'x' * 200, ('198.18.0.2', 51900))"
	# B's UDP sockets: "SOCKETS-WITH-A-QUEUE BYTES"
	udpq() { ip netns exec "$B" python3 -c 'q = [int(f[4].split(":")[1], 16) for t in ("udp", "udp6")
          for f in (l.split() for l in open("/proc/net/" + t).readlines()[1:])]
print(sum(v > 0 for v in q), sum(q))'; }
	# what A sent may still wait in B's backlog (a busy machine's softirq
	# runs late): the kernel's bytes first stop rising, three reads
	# 100 ms apart none above the one before
	read -r _ prev < <(udpq)
	still=0
	for i in $(seq 100); do
		sleep 0.1
		read -r _ now < <(udpq)
		if [ "$now" -le "$prev" ]; then still=$((still + 1)); else still=0; fi
		prev=$now
		[ $still -ge 3 ] && break
	done
	read -r before bytes < <(udpq)
	shown=$(tu_show "$B" ovl0 queue.rx_waiting_sockets)
	read -r after _ < <(udpq)
	echo "# B's sockets with a datagram unread: $before before ($bytes bytes), $shown shown, $after after"
	expect_ge "B's sockets holding datagrams while its receiver is held (the kernel's rx_queue)" "$before" 1
	[ "$shown" -le "$before" ] && [ "$shown" -ge "$after" ] ||
		fail "queue.rx_waiting_sockets $shown outside the kernel's $before (before) .. $after (after)"
	ok "queue.rx_waiting_sockets $shown within the kernel's $before .. $after"
	for t in $(cat "$q/tasks"); do echo "$t" >"$CGQ/tasks"; done
	# released, B's daemon reads its sockets empty
	for i in $(seq 100); do [ "$(tu_show "$B" ovl0 queue.rx_waiting_sockets)" = 0 ] && break; sleep 0.1; done
	expect_eq "queue.rx_waiting_sockets once B's receiver runs again" "$(tu_show "$B" ovl0 queue.rx_waiting_sockets)" 0
else
	ok "skipped: no writable cgroup v1 cpu controller at $CGQ for the unread queue's check"
fi

# A known payload crosses the overlay; it must show on the TUN, never on the veth.
marker=OVLPERF-PLAINTEXT-MARKER-7f3a9c
in_a timeout 10 tcpdump -i ovp0 -U -n -w "$TU_DIR/veth.pcap" udp 2>"$TU_DIR/td1" &
td1=$!
in_a timeout 10 tcpdump -i ovl0 -U -n -w "$TU_DIR/tun.pcap" 2>"$TU_DIR/td2" &
td2=$!
for i in $(seq 600); do grep -q listening "$TU_DIR/td1" && grep -q listening "$TU_DIR/td2" && break; sleep 0.1; done
for i in 1 2 3; do
	in_a python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'$marker' * 20, ('198.19.0.2', 9))"
done
# the captures stop once they hold what was sent (readiness, not a delay:
# tcpdump drops what it has not written yet when interrupted)
for i in $(seq 100); do
	grep -q -a "$marker" "$TU_DIR/tun.pcap" &&
		[ "$(tcpdump -r "$TU_DIR/veth.pcap" -n 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.1
done
kill -INT $td1 $td2; wait $td1 $td2 || true
tun_hits=$(grep -c -a "$marker" "$TU_DIR/tun.pcap" || true)
veth_hits=$(grep -c -a "$marker" "$TU_DIR/veth.pcap" || true)
expect_ge "marker seen on the TUN (the capture works)" "$tun_hits" 1
veth_pkts=$(tcpdump -r "$TU_DIR/veth.pcap" -n 2>/dev/null | wc -l)
expect_ge "encrypted datagrams captured on the veth" "$veth_pkts" 3
expect_eq "plaintext marker on the veth" "$veth_hits" 0

# Keys: hidden unless asked; the private key never in a plain show.
priv=$(cat "$TU_DIR/a.key")
in_a "$OVLPERF" tunnel show ovl0 >"$TU_DIR/show.txt"
grep -q "private key: (hidden)" "$TU_DIR/show.txt" || fail "show does not hide the private key"
grep -qF "$priv" "$TU_DIR/show.txt" && fail "show prints the private key"
grep -q "latest handshake: [0-9]* seconds ago" "$TU_DIR/show.txt" || fail "show has no handshake time"
ok "tunnel show hides keys, shows the handshake"
[ "$(tu_show "$A" ovl0 private_key)" = "(hidden)" ] || fail "raw show leaks the key"
in_a "$OVLPERF" tunnel show ovl0 --show-keys --raw | grep -qF "private_key=$priv" ||
	fail "--show-keys does not show the key"
ok "--show-keys shows the private key"

# SIGINT (Ctrl-C) of `tunnel up` removes its device.
kill -INT $PID_A
wait $PID_A || fail "tunnel up exited non-zero after SIGINT"
in_a ip link show ovl0 >/dev/null 2>&1 && fail "ovl0 still exists after SIGINT"
ok "SIGINT: daemon exits 0 and ovl0 is gone"
in_a "$OVLPERF" tunnel show ovl0 >/dev/null 2>&1 && fail "control socket still answers"
ok "control socket gone"

# `tunnel down` stops a daemon started with -d.
in_a "$OVLPERF" tunnel up "$TU_DIR/a.conf" --name ovl1 -d --pid-file "$TU_DIR/a.pid" ||
	fail "tunnel up -d"
dpid=$(cat "$TU_DIR/a.pid")
on_exit "kill $dpid"
in_a ip link show ovl1 >/dev/null || fail "no ovl1 after tunnel up -d"
in_a "$OVLPERF" tunnel down ovl1 || fail "tunnel down ovl1"
in_a ip link show ovl1 >/dev/null 2>&1 && fail "ovl1 still exists after tunnel down"
kill -0 "$dpid" 2>/dev/null && fail "daemon still running after tunnel down"
ok "-d with --pid-file, then tunnel down removes the device"

# A config error names file, line and key; nothing is created.
printf '[interface]\nprivate_key_file = a.key\naddress = 198.19.0.1/24\nmtu = 1x\n' >"$TU_DIR/bad.conf"
set +e
in_a "$OVLPERF" tunnel up "$TU_DIR/bad.conf" --name ovlbad 2>"$TU_DIR/bad.err"
rc=$?
set -e
expect_eq "exit status for a bad config" "$rc" 2
grep -qF "$TU_DIR/bad.conf:4: key 'mtu': '1x' is not a number" "$TU_DIR/bad.err" ||
	fail "error does not name file:line:key: $(cat "$TU_DIR/bad.err")"
ok "config error names file, line and key"
in_a ip link show ovlbad >/dev/null 2>&1 && fail "a refused config left a device"
tu_conf mixed.conf a "198.18.0.1:51900" "198.19.0.1/24" b "[2001:2::2]:51900" "198.19.0.2/32"
set +e
in_a "$OVLPERF" tunnel up "$TU_DIR/mixed.conf" --name ovlbad 2>"$TU_DIR/mixed.err"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "an IPv6 endpoint with an IPv4-only listen was accepted"
peer_line=$(grep -n '^\[peer\]' "$TU_DIR/mixed.conf" | cut -d: -f1)
grep -qF "$TU_DIR/mixed.conf:$peer_line: key 'endpoint': an IPv6 endpoint, but 'listen' is IPv4 only" \
	"$TU_DIR/mixed.err" || fail "unreachable endpoint error: $(cat "$TU_DIR/mixed.err")"
in_a ip link show ovlbad >/dev/null 2>&1 && fail "a refused endpoint left a device"
ok "an endpoint the listen address cannot reach is refused, naming file, line and key"
chmod 644 "$TU_DIR/a.key"
set +e
in_a "$OVLPERF" tunnel up "$TU_DIR/a.conf" --name ovlbad 2>"$TU_DIR/mode.err"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a 0644 key file was accepted"
grep -q "a.key" "$TU_DIR/mode.err" || fail "key mode error does not name the file"
in_a ip link show ovlbad >/dev/null 2>&1 && fail "a refused key left a device"
ok "a key file readable by others is refused, naming the file"
echo "$TEST_NAME: $CHECKS checks passed"
