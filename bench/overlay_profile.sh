#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the built-in overlay's daemons spend their time, one single-stream TCP
# run on one lab pair: `perf record -g -p` on both daemons, its shares by
# object (kernel, libcrypto, ovlperf, libc) and its top symbols; both daemons'
# context switches (/proc/PID/task/*/status, voluntary and involuntary) per
# packet the receiving daemon wrote to its TUN (tunnel show's
# counter.tun_tx_packets). docs/tunnel.md, "What is left, profile by
# profile", quotes it. Not a test: prints numbers, asserts nothing.
#
#   OVLPERF=build/ovlperf bash bench/overlay_profile.sh [-t SEC] [--top N]
#
# Needs root and perf(1).
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
LAB=${BENCH_LAB:-sppf}
T=5
TOP=12
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	--top) TOP=$2; shift 2 ;;
	*) echo "usage: $0 [-t SEC] [--top N]" >&2; exit 2 ;;
	esac
done
command -v perf >/dev/null || { echo "bench: perf missing" >&2; exit 1; }

source "$(dirname "$0")/peers_lib.sh"
in_b "$OVLPERF" server >/dev/null 2>"$WORK/server.log" &
CLEANUP+=("kill $!")
up_ovl ovl ovl0 198.19.0 51900 on
for i in $(seq 100); do in_a ping -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 && break; sleep 0.1; done
in_a ping -c 1 -W 2 198.19.0.2 >/dev/null || { log "198.19.0.2 unreachable"; exit 1; }
PIDS=$(cat "$WORK/ovl-a.pid" "$WORK/ovl-b.pid" | paste -sd,)

# switches: both daemons' context switches, all threads, voluntary + not
switches()
{
	local pid
	for pid in ${PIDS//,/ }; do cat /proc/"$pid"/task/*/status; done |
		awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }'
}
tun_tx() { in_b "$OVLPERF" tunnel show ovl0 --raw | awk -F= '$1 == "counter.tun_tx_packets" { print $2 }'; }

in_a "$OVLPERF" client 198.19.0.2 -t 1 >/dev/null 2>&1 # handshake and warm-up
s0=$(switches)
p0=$(tun_tx)
perf record -q -g -F 999 -p "$PIDS" -o "$WORK/d.perf" -- sleep "$T" >/dev/null 2>&1 &
prof=$!
gbps=$(in_a "$OVLPERF" client 198.19.0.2 -t $((T + 1)) --json 2>/dev/null |
	python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["tcp"]["goodput_bps"] / 1e9))')
wait "$prof" || true
s1=$(switches)
p1=$(tun_tx)
echo "one TCP stream, ${gbps} Gbit/s for $((T + 1)) s (perf over $T s); load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 -c 'import sys; s, p = int(sys.argv[1]), int(sys.argv[2])
print("context switches of both daemons: %d for %d packets written to B'"'"'s TUN: %.3f a packet" % (s, p, s / p if p else 0))' \
	$((s1 - s0)) $((p1 - p0))
echo "by object:"
perf report -i "$WORK/d.perf" --no-children --sort dso --stdio -g none 2>/dev/null | awk '/^ +[0-9.]+%/ && n++ < 5'
echo "top $TOP symbols:"
perf report -i "$WORK/d.perf" --no-children --sort dso,symbol --stdio -g none 2>/dev/null |
	awk -v top="$TOP" '/^ +[0-9.]+%/ && n++ < top'
echo "by thread:"
perf report -i "$WORK/d.perf" --no-children --sort comm --stdio -g none 2>/dev/null | awk '/^ +[0-9.]+%/'
