#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 42
# `ovlperf client --json-format iperf3` against real iperf3 -J on the same
# lab path: TCP, TCP -R, UDP, -P 2 (TCP and UDP), --bidir (TCP and UDP),
# --get-server-output and a refused connection.
# The key sets and JSON types must match at every level iperf3 writes
# (iperf3_shape.py); the figures must be the native document's; the
# --json-stream lines must be iperf3's events with the same shapes; -b 0 is
# an unpaced sender.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"
SHAPE="$(dirname "$0")/iperf3_shape.py"

command -v iperf3 >/dev/null || fail "iperf3 is not installed"
lab_pair ij3
start_server
listener_in "$B" "$WORK/iperf3-server.log" 5201 iperf3 -s -p 5201

# same_shape NAME ARGS...: iperf3 -J and ovlperf with the same test options
same_shape()
{
	local name=$1 out
	shift
	in_a iperf3 -c 198.18.0.2 -p 5201 -J "$@" >"$WORK/$name.iperf3.json" ||
		fail "iperf3 $*: $(tail -3 "$WORK/$name.iperf3.json")"
	in_a "$OVLPERF" client 198.18.0.2 --json-format iperf3 "$@" \
		>"$WORK/$name.ovlperf.json" 2>>"$WORK/client.log" ||
		fail "ovlperf client $*: $(tail -3 "$WORK/client.log")"
	out=$(python3 "$SHAPE" "$WORK/$name.iperf3.json" "$WORK/$name.ovlperf.json") ||
		fail "$name: shape differs from iperf3's: $out"
	ok "$name ($*): keys and types as iperf3 writes them"
}

same_shape tcp -t 2
same_shape tcp_reverse -t 2 -R
same_shape udp -t 2 -u -b 20M
same_shape tcp_p2 -t 2 -P 2
same_shape udp_p2 -t 2 -u -b 20M -P 2
same_shape tcp_bidir -t 2 --bidir
same_shape udp_bidir -t 2 -u -b 20M --bidir
same_shape server_output -t 2 --get-server-output

# iperf3's habit: -J alone writes iperf3's document (ovlperf's own is --json)
in_a "$OVLPERF" -c 198.18.0.2 -t 2 -J >"$WORK/tcp_J.ovlperf.json" 2>>"$WORK/client.log" ||
	fail "ovlperf -c HOST -J: $(tail -3 "$WORK/client.log")"
out=$(python3 "$SHAPE" "$WORK/tcp.iperf3.json" "$WORK/tcp_J.ovlperf.json") ||
	fail "-J: shape differs from iperf3's: $out"
ok "ovlperf -c HOST -J: iperf3's document, as iperf3 -J writes it"

# the figures are the measurement's, not a second account of it
pyv "$WORK/tcp.ovlperf.json" 'd["end"]["sum_received"]["bytes"] == d["ovlperf"]["load"]["tcp"]["bytes"]' \
	'd["end"]["sum_sent"]["bytes"] == d["ovlperf"]["load"]["tcp"]["sent_bytes"]' \
	'0 <= d["end"]["sum_sent"]["bytes"] - sum(i["sum"]["bytes"] for i in d["intervals"]) <= d["start"]["test_start"]["blksize"]' \
	'd["ovlperf"]["schema"]' 'd["ovlperf"]["schema_version"]' \
	'all(i["sum"]["bytes"] == sum(s["bytes"] for s in i["streams"]) for i in d["intervals"])'
expect_eq "sum_received is the receiver's bytes" "${V[0]}" true
expect_eq "sum_sent is the sender's bytes" "${V[1]}" true
# (the last tick is served as the end time comes: a write still in the
# kernel then, at most one per stream, is in the total alone)
expect_eq "the client's intervals add up to what it sent" "${V[2]}" true
expect_eq "extra key schema" "${V[3]}" ovlperf.iperf3
expect_eq "extra key schema_version" "${V[4]}" 1
expect_eq "interval sums are their streams'" "${V[5]}" true
pyv "$WORK/udp_p2.ovlperf.json" 'd["end"]["sum"]["lost_packets"] == d["ovlperf"]["load"]["udp"]["lost"]' \
	'd["end"]["sum_sent"]["packets"] == d["ovlperf"]["load"]["udp"]["sent"]' \
	'len(d["end"]["streams"])' 'd["start"]["test_start"]["target_bitrate"]'
expect_eq "UDP lost_packets is the measured loss" "${V[0]}" true
expect_eq "UDP packets are the datagrams sent" "${V[1]}" true
expect_eq "-P 2: two end streams" "${V[2]}" 2
expect_eq "target_bitrate" "${V[3]}" 20000000

# a refused connection: iperf3's error document, no invented figures
# (iperf3 3.12 exits 0 here: its document is what says it failed)
in_a iperf3 -c 198.18.0.2 -p 5299 -J >"$WORK/err.iperf3.json" || true
grep -q "\"error\"" "$WORK/err.iperf3.json" || fail "iperf3 reached a closed port"
in_a "$OVLPERF" client 198.18.0.2 -p 5299 --json-format iperf3 >"$WORK/err.ovlperf.json" \
	2>>"$WORK/client.log" && fail "ovlperf reached a closed port"
out=$(python3 "$SHAPE" "$WORK/err.iperf3.json" "$WORK/err.ovlperf.json") ||
	fail "error document differs from iperf3's: $out"
ok "error document: keys and types as iperf3 writes them"
pyv "$WORK/err.ovlperf.json" '"refused" in d["error"]' 'd["end"]' 'd["intervals"]' 'd["ovlperf"]["load"]'
expect_eq "error says why" "${V[0]}" true
expect_eq "error: no end figures" "${V[1]}" "{}"
expect_eq "error: no intervals" "${V[2]}" "[]"
expect_eq "error: no native figures" "${V[3]}" None
in_a "$OVLPERF" client 198.18.0.2 -p 5299 -u --json >"$WORK/err.native.json" 2>>"$WORK/client.log" &&
	fail "ovlperf --json reached a closed port"
pyv "$WORK/err.native.json" 'd["schema"]' '"refused" in d["error"]' \
	'[k for k, v in d["udp"].items() if v is not None]' 'd["cpu"]' 'd["duration_s"]'
expect_eq "native error document: schema" "${V[0]}" ovlperf.load
expect_eq "native error document: says why" "${V[1]}" true
expect_eq "native error document: no figure but the options'" "${V[2]}" "['dont_fragment']"
expect_eq "native error document: no CPU" "${V[3]}" None
expect_eq "native error document: no duration" "${V[4]}" None

# --json-stream: one object per line: start, an interval per second, end
in_a "$OVLPERF" client 198.18.0.2 -t 2 -P 2 --json-stream >"$WORK/stream.txt" \
	2>>"$WORK/client.log" || fail "--json-stream run failed"
python3 - "$WORK/stream.txt" "$WORK/tcp_p2.iperf3.json" "$SHAPE" <<'PY' || fail "--json-stream lines"
import json, sys, importlib.util
spec = importlib.util.spec_from_file_location("shape", sys.argv[3])
shape = importlib.util.module_from_spec(spec); spec.loader.exec_module(shape)
ref = json.load(open(sys.argv[2]))
lines = [json.loads(l) for l in open(sys.argv[1])]
events = [l["event"] for l in lines]
assert all(set(l) == {"event", "data"} for l in lines), "an event is not {event, data}"
assert events[0] == "start" and events.count("interval") == 2 and "end" in events, events
errs = []
for l in lines:
    part = {"start": ref["start"], "end": ref["end"]}.get(l["event"])
    if l["event"] == "interval":
        part = ref["intervals"][0]
    if part is not None:
        shape.compare(part, l["data"], "." + l["event"], errs)
assert not errs, errs
PY
ok "--json-stream: start, 2 intervals, end, each shaped as iperf3's"

# --bidir: both directions' streams, each direction's sums
pyv "$WORK/tcp_bidir.ovlperf.json" 'sorted(s["sender"]["sender"] for s in d["end"]["streams"])' \
	'd["end"]["sum_sent"]["bytes"] > 0 and d["end"]["sum_received_bidir_reverse"]["bytes"] > 0' \
	'd["end"]["sum_received"]["bytes"] == d["ovlperf"]["load"]["tcp"]["bytes"]' \
	'd["end"]["sum_received_bidir_reverse"]["bytes"] == d["ovlperf"]["load_reverse"]["tcp"]["bytes"]' \
	'all(len(i["streams"]) == 2 for i in d["intervals"])'
expect_eq "--bidir: a stream each way" "${V[0]}" "[False, True]"
expect_eq "--bidir: both directions moved data" "${V[1]}" true
expect_eq "--bidir: forward sums are the client-sends test's" "${V[2]}" true
expect_eq "--bidir: *_bidir_reverse sums are the server-sends test's" "${V[3]}" true
expect_eq "--bidir: each interval lists both streams" "${V[4]}" true

# -b 0: as fast as the sender can (before, 1 Mbit/s for UDP)
in_a "$OVLPERF" client 198.18.0.2 -t 1 -u -b 0 --json-format iperf3 >"$WORK/b0.json" \
	2>>"$WORK/client.log" || fail "-b 0 run failed"
pyv "$WORK/b0.json" 'd["start"]["target_bitrate"]' 'd["end"]["sum_sent"]["packets"] > 1000000 // (8 * 1400)'
expect_eq "-b 0: target 0 (unlimited)" "${V[0]}" 0
expect_eq "-b 0: more datagrams than 1 Mbit/s would send" "${V[1]}" true
in_a "$OVLPERF" client 198.18.0.2 -t 1 -u >"$WORK/udp_term.txt" 2>>"$WORK/client.log" ||
	fail "client -u failed"
grep -q 'target 1.000 Mbit/s' "$WORK/udp_term.txt" || fail "client -u header: $(head -1 "$WORK/udp_term.txt")"
ok "client -u header says the 1 Mbit/s it sends"
echo "$TEST_NAME: $CHECKS checks passed"
