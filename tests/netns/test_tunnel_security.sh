#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 31
# The overlay against a hostile underlay: a captured data packet re-injected
# is not delivered twice; a host with a key the peer does not know gets no
# answer at all; restarting one side's daemon recovers without manual steps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair tu3
tu_pair 4

# --- replay: capture the data packet carrying a marker, inject it again 3 times
marker=OVLPERF-REPLAY-MARKER-51c0
in_b python3 - "$marker" >"$TU_DIR/recv.out" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("198.19.0.2", 9999)); s.settimeout(4); n = 0
print("ready", flush=True)
try:
    while True:
        d, _ = s.recvfrom(65535)
        n += d.startswith(sys.argv[1].encode())
except socket.timeout:
    pass
print(n)
PY
rcv=$!
on_exit "kill $rcv"
for i in $(seq 50); do grep -q ready "$TU_DIR/recv.out" && break; sleep 0.1; done
in_a timeout 10 tcpdump -i ovp0 -U -n -w "$TU_DIR/data.pcap" udp dst port 51900 2>"$TU_DIR/td" &
td=$!
for i in $(seq 600); do grep -q listening "$TU_DIR/td" && break; sleep 0.1; done
replay0=$(tu_show "$B" ovl0 drop.replay)
in_a python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'$marker' * 8, ('198.19.0.2', 9999))"
# the capture stops once it holds a data message longer than a keepalive
# (readiness: tcpdump drops what it has not written yet when interrupted)
for i in $(seq 100); do
	[ "$(tcpdump -r "$TU_DIR/data.pcap" -n 'udp[8] = 4 and greater 100' 2>/dev/null | wc -l)" -ge 1 ] &&
		break
	sleep 0.1
done
kill -INT $td; wait $td || true
# Re-inject every captured data message (type 4, longer than a keepalive) as is.
injected=$(in_a python3 - "$TU_DIR/data.pcap" <<'PY'
import socket, struct, sys
buf = open(sys.argv[1], "rb").read()
off, pkts = 24, []
while off + 16 <= len(buf):
    incl = struct.unpack_from("<I", buf, off + 8)[0]
    frame = buf[off + 16: off + 16 + incl]; off += 16 + incl
    ip = frame[14:]
    if len(ip) < 28 or ip[0] >> 4 != 4: continue
    hl = (ip[0] & 15) * 4
    payload = ip[hl + 8:]
    if len(payload) > 32 and payload[0] == 4:
        # veth offloads the UDP checksum: the capture holds a partial one.
        # IPv4 UDP checksum 0 means "none"; the datagram itself is unchanged.
        pkts.append(ip[:hl + 6] + b"\0\0" + ip[hl + 8:])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for p in pkts:
    for _ in range(3):
        s.sendto(p, (socket.inet_ntoa(p[16:20]), 0))
    # once more from another source port: a replay must not move the endpoint
    hl = (p[0] & 15) * 4
    s.sendto(p[:hl] + struct.pack(">H", 40000) + p[hl + 2:], (socket.inet_ntoa(p[16:20]), 0))
print(len(pkts))
PY
)
expect_ge "data messages captured and re-injected (x3)" "$injected" 1
wait $rcv || true
expect_eq "copies of the marker datagram delivered" "$(tail -1 "$TU_DIR/recv.out")" 1
replay1=$(tu_show "$B" ovl0 drop.replay)
[ "$((replay1 - replay0))" -ge 3 ] || in_b "$OVLPERF" tunnel show ovl0 --raw | grep -v "=0$" >&2
expect_ge "replay drops on B" "$((replay1 - replay0))" "$((injected * 4))"
expect_eq "B's endpoint for A after replays from another port" "$(tu_show "$B" ovl0 endpoint)" 198.18.0.1:51900
expect_eq "B's endpoint changes" "$(tu_show "$B" ovl0 counter.endpoint_changes)" 0

# --- a stranger: a key B does not know; B must answer nothing at all
tu_key x
tu_conf x.conf x "198.18.0.1:51901" "198.19.7.1/24" b "198.18.0.2:51900" "198.19.7.2/32"
in_b timeout 15 tcpdump -i ovp0 -U -n -w "$TU_DIR/answer.pcap" udp dst port 51901 2>"$TU_DIR/td2" &
td2=$!
for i in $(seq 600); do grep -q listening "$TU_DIR/td2" && break; sleep 0.1; done
unknown0=$(tu_show "$B" ovl0 drop.unknown_peer)
tu_up "$A" x.conf ovlx
XPID=$TU_PID
in_a ping -c 3 -i 0.3 -W 1 198.19.7.2 >/dev/null 2>&1 && fail "a stranger reached B's overlay"
for i in $(seq 100); do # until B counted the stranger's initiation (readiness)
	unknown1=$(tu_show "$B" ovl0 drop.unknown_peer)
	[ "$unknown1" -gt "$unknown0" ] && break
	sleep 0.1
done
sleep 1 # B's answer, were there one, would be out by now: the capture below must show none
kill -INT $td2; wait $td2 || true
expect_ge "stranger's initiations reached B and were dropped" "$((unknown1 - unknown0))" 1
expect_eq "datagrams B sent to the stranger" "$(tcpdump -r "$TU_DIR/answer.pcap" -n 2>/dev/null | wc -l)" 0
expect_eq "stranger's handshakes" "$(tu_show "$A" ovlx peers_with_handshake)" 0
kill $XPID; wait $XPID || true

# --- roaming: A comes back on another port; B follows only once A authenticates
kill -TERM $PID_A
wait $PID_A || true
sed 's/^listen = 198.18.0.1:51900/listen = 198.18.0.1:51901/' "$TU_DIR/a.conf" >"$TU_DIR/a2.conf"
tu_up "$A" a2.conf ovl0
PID_A=$TU_PID
for i in $(seq 30); do in_a ping -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 && break; done
in_a ping -c 2 -i 0.2 -W 1 198.19.0.2 >/dev/null || fail "no traffic after A moved to port 51901"
expect_eq "B's endpoint for A after A roamed" "$(tu_show "$B" ovl0 endpoint)" 198.18.0.1:51901
expect_ge "B's endpoint changes" "$(tu_show "$B" ovl0 counter.endpoint_changes)" 1
# and back to the port B's configuration names, for the restart below
kill -TERM $PID_A
wait $PID_A || true
tu_up "$A" a.conf ovl0
PID_A=$TU_PID
for i in $(seq 30); do in_a ping -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 && break; done
expect_eq "B's endpoint for A after A came back" "$(tu_show "$B" ovl0 endpoint)" 198.18.0.1:51900

# --- restart B: A recovers without anything done to it
kill -TERM $PID_B
wait $PID_B || fail "B's daemon exited non-zero on SIGTERM"
in_b ip link show ovl0 >/dev/null 2>&1 && fail "ovl0 still in B after SIGTERM"
in_a ping -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 && fail "ping answered with B's daemon down"
ok "B down: device gone, no answer"
tu_up "$B" b.conf ovl0
for i in $(seq 20); do in_a ping -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 && break; done
in_a ping -c 3 -i 0.2 -W 1 198.19.0.2 >/dev/null || fail "no recovery after B restarted"
ok "after B restarts, A reaches B again (no manual step)"
expect_ge "A's handshakes with B" "$(tu_show "$A" ovl0 handshakes)" 2
echo "$TEST_NAME: $CHECKS checks passed"
