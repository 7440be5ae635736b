#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Our overlay against the userspace VPNs people run, in ONE run on one lab
# pair: native veth, ovlperf's built-in overlay, wireguard-go and OpenVPN 2.6
# (static key, --disable-dco). For each path: TCP goodput with 1 and 4
# streams, UDP lossless rate (NDR, 1400-byte datagrams), ping RTT and CPU
# seconds per GB; a table with ratios against wireguard-go. The peers' setup
# lives here only, never in the product.
#
#   OVLPERF=build/ovlperf bash bench/overlay_vs_peers.sh [-t SEC] [--rounds N]
#                       [--load ovlperf|iperf3] [--paths "native ovl ovlplain wg ovpn"]
#                       [--cores] [--delay]
#
# ovl is our overlay as configured by default (offload = on: TUN TSO in, TCP
# coalescing out, UDP GSO and UDP GRO on the underlay, workers = 2); ovlplain
# the same with offload = off (one packet per read, write and datagram: the
# plain data path).
# ovl1port is ovl with worker_ports = off: every worker sends from the
# listening port, so one peer's data is opened by one receiving worker
# (what worker_ports is worth; not among the default paths).
# OVLPERF_BASE=PATH adds ovlbase: ovl with the daemons of another ovlperf
# binary (e.g. built from an older commit), to see what a change to the data
# path gives in the same run.
#
# TCP runs ROUNDS times per path, the paths taking turns, and the best round
# counts: a burst of other load on the machine then hits every path alike.
#
# WGGO_MODERN=PATH adds wgmodern: wireguard-go built from its 2025 source
# (TUN offloads; /work/shared/tools/wggo-modern-build.sh builds it), the
# anchor the "vs" columns then compare with. Each path's single-stream TCP
# also gives the whole machine's busy CPU per Gbit (/proc/stat) and, with
# perf(1), the top three symbols of the overlay's own processes.
#
# --cores: each path's single-stream TCP once more with every process of the
# lab's two hosts (`ip netns pids`: the daemons of both ends, all their
# threads, and the load's server; `taskset -p` per thread) and the load's
# client on one CPU, each round, the paths taking turns; then each thread
# back on the CPUs it had. The daemons keep the workers they started with (the built-in overlay
# sizes them by its affinity at start): this is what the same daemons do
# with half the machine, not a daemon configured for one core.
# --delay: each overlay's own NDR (`ovlperf sweep --knee`, $T-second
# trials), then one $T-second UDP trial at 90 % of it: one-way delay p50 and
# p99 (both ends on one clock: exact) and the datagrams that trial lost.
#
# Targets (ovl and ovlplain): ours >= 2x wireguard-go's TCP goodput, ping RTT no higher.
# Targets (ovl, offloads on): >= 6x wireguard-go's single-stream TCP
# goodput, >= 4x its UDP NDR. Against wgmodern: >= 3x its single-stream TCP,
# 4 streams >= 1 stream, machine CPU per Gbit <= 0.33 s, one-way delay p99
# at 90 % of its own NDR <= 1 ms with nothing lost.
# Needs root, wireguard-go, wireguard-tools, openvpn, iperf3 (make bench-deps).
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
LAB=${BENCH_LAB:-tu}
T=5
ROUNDS=2
LOAD=auto
PATHS="native ovl ovlplain wg ovpn"
CORES=0
DELAY=0
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--load) LOAD=$2; shift 2 ;;
	--paths) PATHS=$2; shift 2 ;;
	--cores) CORES=1; shift ;;
	--delay) DELAY=1; shift ;;
	*) echo "usage: $0 [-t SEC] [--rounds N] [--load ovlperf|iperf3] [--paths LIST] [--cores] [--delay]" >&2; exit 2 ;;
	esac
done
if [ -n "${WGGO_MODERN:-}" ]; then
	[ -x "$WGGO_MODERN" ] || { echo "bench: WGGO_MODERN=$WGGO_MODERN is not an executable" >&2; exit 1; }
	[[ " $PATHS " == *" wgmodern "* ]] || PATHS="$PATHS wgmodern"
fi
if [ -n "${OVLPERF_BASE:-}" ]; then
	[ -x "$OVLPERF_BASE" ] || { echo "bench: OVLPERF_BASE=$OVLPERF_BASE is not an executable" >&2; exit 1; }
	[[ " $PATHS " == *" ovlbase "* ]] || PATHS="$PATHS ovlbase"
fi
REF=wg
[[ " $PATHS " == *" wgmodern "* ]] && REF=wgmodern
for tool in wireguard-go wg openvpn iperf3 ping; do
	command -v $tool >/dev/null || { echo "bench: $tool missing (make bench-deps)" >&2; exit 1; }
done

source "$(dirname "$0")/peers_lib.sh"

# ---- load generator: ovlperf's own engine when it runs here, else iperf3
if [ "$LOAD" = auto ]; then
	LOAD=iperf3
	in_b "$OVLPERF" server -1 -B 198.18.0.2 -p 5299 >/dev/null 2>&1 &
	sleep 0.3
	in_a timeout 10 "$OVLPERF" client 198.18.0.2 -p 5299 -t 1 --json >"$WORK/probe.json" 2>/dev/null &&
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/probe.json" 2>/dev/null &&
		LOAD=ovlperf
	wait || true
fi
log "load generator: $LOAD"
if [ "$LOAD" = ovlperf ] || [ "$DELAY" = 1 ]; then
	# --delay's trials need ovlperf's server whatever the TCP load
	in_b "$OVLPERF" server >/dev/null 2>"$WORK/server.log" &
	CLEANUP+=("kill $!")
fi
if [ "$LOAD" != ovlperf ]; then
	in_b iperf3 -s -D -I "$WORK/iperf3.pid" >/dev/null
	CLEANUP+=("kill \$(cat $WORK/iperf3.pid)")
fi
sleep 0.5


declare -A ADDR=([native]=198.18.0.2 [ovl]=198.19.0.2 [ovlplain]=198.19.3.2 [wg]=198.19.1.2
	[ovpn]=198.19.2.2 [wgmodern]=198.19.4.2 [ovl1port]=198.19.5.2 [ovlbase]=198.19.6.2)
declare -A NAME=([native]="native veth" [ovl]="ovlperf" [ovlplain]="ovlperf no-offl"
	[wg]="wireguard-go" [ovpn]="OpenVPN 2.6" [wgmodern]="wireguard-go 2025"
	[ovl1port]="ovlperf 1 port" [ovlbase]="ovlperf base")
for p in $PATHS; do
	case $p in
	ovl) up_ovl ovl ovl0 198.19.0 51900 on ;;
	ovlplain) up_ovl ovlplain ovl1 198.19.3 51902 off ;;
	ovl1port) up_ovl ovl1port ovl2 198.19.5 51904 on "worker_ports = off" ;;
	ovlbase) OVL_BIN=$OVLPERF_BASE up_ovl ovlbase ovl3 198.19.6 51906 on ;;
	wg) up_wg ;;
	wgmodern) up_wg "$WGGO_MODERN" "$WM_A" "$WM_B" 198.19.4 51821 ;;
	ovpn) up_ovpn ;;
	esac
done
for p in $PATHS; do
	for i in $(seq 100); do in_a ping -c 1 -W 1 "${ADDR[$p]}" >/dev/null 2>&1 && break; sleep 0.1; done
	in_a ping -c 1 -W 2 "${ADDR[$p]}" >/dev/null || { log "${NAME[$p]}: ${ADDR[$p]} unreachable"; exit 1; }
done

# ---- measurements
# tcp_mbps ADDR [STREAMS]: goodput in Mbit/s, all streams together
tcp_mbps()
{
	local P=${2:-1}
	if [ "$LOAD" = ovlperf ]; then
		in_a $PIN "$OVLPERF" client "$1" -t "$T" -O 1 -P "$P" --json 2>/dev/null |
			python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["tcp"]["goodput_bps"] / 1e6))'
	else
		in_a $PIN iperf3 -c "$1" -t "$T" -O 1 -P "$P" -J 2>/dev/null |
			python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
	fi
}

# Lossless rate (NDR): bisection over 1-second trials of 1400-byte datagrams;
# a trial passes when nothing is lost, and counts at the rate that arrived
# (a starved sender may fall short of its target). 9 trials, 0..MAX.
udp_trial()
{
	if [ "$LOAD" = ovlperf ]; then
		# records the test threads' scheduling as both ends report it: a
		# real-time end would starve the userspace VPN daemons it measures
		in_a "$OVLPERF" client "$1" -u -b "$2" -l 1372 -t 1 --json 2>/dev/null |
			python3 -c 'import json,sys; d=json.load(sys.stdin); u=d["udp"]; s=d.get("sched") or {}
open(sys.argv[1], "a").write("client %s, server %s\n" % (s.get("client"), s.get("server")))
print("%d %.0f" % (u["lost"] == 0 and u["received"] > 0, u["received_bps"] / 1e6))' "$WORK/sched"
	else
		in_a iperf3 -c "$1" -u -b "$2" -l 1372 -t 1 -J 2>/dev/null |
			python3 -c 'import json,sys; e=json.load(sys.stdin)["end"]["sum"]
print("%d %.0f" % (e["lost_packets"] == 0 and e["packets"] > 0, e["bits_per_second"] * (1 - e["lost_percent"] / 100) / 1e6))'
	fi
}
udp_ndr_mbps()
{
	local lo=0 hi=$2 mid best=0 pass got
	for _ in 1 2 3 4 5 6 7 8 9; do
		mid=$(((lo + hi) / 2))
		read -r pass got < <(udp_trial "$1" "${mid}M" || echo "0 0")
		if [ "${pass:-0}" = 1 ]; then
			lo=$mid
			[ "${got%.*}" -gt "$best" ] && best=${got%.*}
		else
			hi=$mid
		fi
	done
	echo $best
}

rtt_ms()
{
	in_a ping -q -c 50 -i 0.02 "$1" | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p'
}

# pin_lab CPUS: every thread of every process of the lab's two hosts on CPUS
# (--cores), each thread's own CPUs kept in $WORK/affinity (the built-in
# overlay pins its workers: pin_workers); PIN the prefix that starts the
# load's client there too. unpin_lab: every thread back on the CPUs it had.
PIN=
pin_lab()
{
	local pid tid
	: >"$WORK/affinity"
	for pid in $(ip netns pids "$A"; ip netns pids "$B"); do
		for tid in $(ls /proc/"$pid"/task 2>/dev/null); do
			echo "$tid $(taskset -pc "$tid" 2>/dev/null | sed 's/.*: //')" >>"$WORK/affinity"
			taskset -p -c "$1" "$tid" >/dev/null 2>&1 || true
		done
	done
	PIN="taskset -c $1"
}
unpin_lab()
{
	local tid cpus
	while read -r tid cpus; do
		[ -n "$cpus" ] && taskset -p -c "$cpus" "$tid" >/dev/null 2>&1 || true
	done <"$WORK/affinity"
	PIN=
}

# The overlay's own processes (both ends), for CPU seconds per GB moved.
daemon_pids()
{
	case $1 in
	ovl | ovlplain | ovl1port | ovlbase) cat "$WORK/$1-a.pid" "$WORK/$1-b.pid" ;;
	wg) pgrep -f "wireguard-go -f ($WG_A|$WG_B)\$" ;;
	wgmodern) pgrep -f " -f ($WM_A|$WM_B)\$" ;;
	ovpn) cat "$WORK/ovpn-a.pid" "$WORK/ovpn-b.pid" ;;
	esac
}
cpu_ticks()
{
	local t=0 pid
	for pid in "$@"; do
		[ -r /proc/$pid/stat ] && t=$((t + $(awk '{print $14 + $15}' /proc/$pid/stat)))
	done
	echo $t
}

# Busy jiffies of the whole machine (user, nice, system, irq, softirq, steal).
machine_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

# prof_start PATH PIDS / prof_top PATH: perf on the overlay's processes for T
# seconds; then its three busiest symbols ("-" without perf or processes).
prof_start()
{
	[ -n "$2" ] && command -v perf >/dev/null || return 0
	perf record -q -F 499 -p "$(echo $2 | tr ' ' ',')" -o "$WORK/$1.perf" -- sleep "$T" \
		>/dev/null 2>&1 &
	PROF_PID=$!
}
prof_top()
{
	[ -s "$WORK/$1.perf" ] || { echo "-"; return; }
	perf report -i "$WORK/$1.perf" --no-children --sort dso,symbol --stdio -g none 2>/dev/null |
		awk '/^ +[0-9.]+%/ && n < 3 {printf "%s%s %s %s", n++ ? "; " : "", $1, $2, $4}'
}

declare -A TCP TCP4 TCP1C UDP RTT CPU TICKS MB MTICKS MCPU PROF NDR90 P50 P99 LOST
HZ=$(getconf CLK_TCK)
for p in $PATHS; do TCP[$p]=0; TCP4[$p]=0; TCP1C[$p]=-; TICKS[$p]=0; MB[$p]=0; MTICKS[$p]=0; done
# Idle RTT first, before any load has filled a queue.
for p in $PATHS; do RTT[$p]=$(rtt_ms "${ADDR[$p]}"); done
for r in $(seq "$ROUNDS"); do
	for p in $PATHS; do
		log "${NAME[$p]}: TCP ${T}s (round $r of $ROUNDS)"
		pids=$(daemon_pids $p | tr '\n' ' ')
		PROF_PID=
		[ "$r" = 1 ] && prof_start "$p" "$pids"
		c0=$(cpu_ticks $pids)
		m0=$(machine_ticks)
		mbps=$(tcp_mbps "${ADDR[$p]}")
		m1=$(machine_ticks)
		c1=$(cpu_ticks $pids)
		[ -n "$PROF_PID" ] && wait "$PROF_PID" 2>/dev/null || true
		MTICKS[$p]=$((MTICKS[$p] + m1 - m0))
		# each round's figures too: the best of ROUNDS hides how they spread
		log "${NAME[$p]}: ${mbps:-0} Mbit/s, processes $(python3 -c 'import sys; t, hz, mb = map(float, sys.argv[1:])
print("%.2f" % (t / hz / (mb / 1e3)) if mb > 0 else "-")' $((c1 - c0)) "$HZ" $((${mbps:-0} * (T + 1) / 8))) s/GB, machine $(python3 -c 'import sys; t, hz, mb = map(float, sys.argv[1:])
print("%.2f" % (t / hz / (mb * 8 / 1e3)) if mb > 0 else "-")' $((m1 - m0)) "$HZ" $((${mbps:-0} * (T + 1) / 8))) s/Gbit"
		[ "${mbps:-0}" -gt "${TCP[$p]}" ] && TCP[$p]=$mbps
		TICKS[$p]=$((TICKS[$p] + c1 - c0))
		# -O 1: the client ran T + 1 seconds at about the measured goodput.
		MB[$p]=$((MB[$p] + ${mbps:-0} * (T + 1) / 8))
		log "${NAME[$p]}: TCP 4 streams ${T}s (round $r of $ROUNDS)"
		mbps=$(tcp_mbps "${ADDR[$p]}" 4)
		[ "${mbps:-0}" -gt "${TCP4[$p]}" ] && TCP4[$p]=$mbps
		[ "$CORES" = 1 ] || continue
		log "${NAME[$p]}: TCP ${T}s on CPU 0 only (round $r of $ROUNDS)"
		pin_lab 0
		mbps=$(tcp_mbps "${ADDR[$p]}")
		unpin_lab
		[ "${mbps:-0}" -gt "${TCP1C[$p]/-/0}" ] && TCP1C[$p]=$mbps
	done
done
if [ "$DELAY" = 1 ]; then
	for p in $PATHS; do
		[ "$p" = native ] && continue
		log "${NAME[$p]}: NDR (knee search, ${T}s trials)"
		n=$(ndr_bps "${ADDR[$p]}" "$([ "${p:0:3}" = ovl ] && echo 8G || echo 4G)")
		NDR90[$p]=$n
		[ "$n" != 0 ] || continue
		rate=$((n * 9 / 10))
		log "${NAME[$p]}: one-way delay at 90 % of its NDR ($((rate / 1000000)) Mbit/s) for ${T}s"
		read -r P50[$p] P99[$p] _ _ LOST[$p] < <(owd "${ADDR[$p]}" "$rate")
	done
fi
for p in $PATHS; do
	CPU[$p]=$(python3 -c 'import sys; t, hz, mb = map(float, sys.argv[1:])
print("%.1f" % (t / hz / (mb / 1e3)) if t > 0 and mb > 0 else "-")' "${TICKS[$p]}" "$HZ" "${MB[$p]}")
	# Gbit moved = MB * 8 / 1000
	MCPU[$p]=$(python3 -c 'import sys; t, hz, mb = map(float, sys.argv[1:])
print("%.2f" % (t / hz / (mb * 8 / 1e3)) if t > 0 and mb > 0 else "-")' "${MTICKS[$p]}" "$HZ" "${MB[$p]}")
	PROF[$p]=$(prof_top "$p")
	log "${NAME[$p]}: UDP lossless rate"
	UDP[$p]=$(udp_ndr_mbps "${ADDR[$p]}" "$([ $p = native ] && echo 8000 || echo 4000)")
done

ratio()
{
	python3 -c 'import sys
try: a, b = float(sys.argv[1]), float(sys.argv[2])
except ValueError:
    try: a, b = float(sys.argv[1].rstrip("+")), float(sys.argv[2].rstrip("+"))
    except ValueError: a = b = 0
print("%.2fx" % (a / b) if a and b else "-")' "$1" "$2"
}
printf '\n%-17s %10s %7s %10s %7s %14s %7s %8s %7s %12s %7s %14s\n' path "TCP Mbit/s" "vs $REF" \
	"TCP x4" "vs $REF" "UDP NDR Mbit/s" "vs $REF" "RTT ms" "vs $REF" "CPU s/GB" "vs $REF" \
	"machine s/Gbit"
for p in $PATHS; do
	printf '%-17s %10s %7s %10s %7s %14s %7s %8s %7s %12s %7s %14s\n' "${NAME[$p]}" \
		"${TCP[$p]}" "$(ratio "${TCP[$p]}" "${TCP[$REF]:-}")" \
		"${TCP4[$p]}" "$(ratio "${TCP4[$p]}" "${TCP4[$REF]:-}")" \
		"${UDP[$p]}" "$(ratio "${UDP[$p]}" "${UDP[$REF]:-}")" \
		"${RTT[$p]}" "$(ratio "${RTT[$p]}" "${RTT[$REF]:-}")" \
		"${CPU[$p]}" "$(ratio "${CPU[$p]}" "${CPU[$REF]:-}")" "${MCPU[$p]}"
done
echo "machine s/Gbit: busy CPU seconds of the whole machine (other work on it included) per Gbit of single-stream TCP goodput"
if [ "$CORES" = 1 ]; then
	printf '\n%-17s %14s %14s %9s %7s\n' path "TCP 1 core" "TCP 2 cores" "2c / 1c" "vs $REF"
	for p in $PATHS; do
		printf '%-17s %14s %14s %9s %7s\n' "${NAME[$p]}" "${TCP1C[$p]}" "${TCP[$p]}" \
			"$(ratio "${TCP[$p]}" "${TCP1C[$p]}")" "$(ratio "${TCP1C[$p]}" "${TCP1C[$REF]:-}")"
	done
	echo "TCP 1 core: single-stream Mbit/s (best of $ROUNDS) with every thread of both lab hosts and the load's client on CPU 0 (taskset -p per thread, then taskset -c); vs $REF: on one core each"
fi
if [ "$DELAY" = 1 ]; then
	printf '\n%-17s %14s %14s %10s %10s %8s %9s\n' path "NDR Mbit/s" "90 % Mbit/s" "p50 ms" "p99 ms" \
		"lost" "p99 vs $REF"
	for p in $PATHS; do
		[ "$p" = native ] && continue
		n=${NDR90[$p]:-0}
		printf '%-17s %14s %14s %10s %10s %8s %9s\n' "${NAME[$p]}" "$((n / 1000000))" \
			"$((n * 9 / 10 / 1000000))" "${P50[$p]:--}" "${P99[$p]:--}" "${LOST[$p]:--}" \
			"$(ratio "${P99[$p]:-}" "${P99[$REF]:-}")"
	done
	echo "delay: each overlay's own NDR (ovlperf sweep --knee, ${T}s trials, 1400-byte IPv4 packets), then one ${T}s UDP trial at 90 % of it: one-way delay (one clock) and the datagrams it lost"
fi
for p in $PATHS; do
	[ "${PROF[$p]:-"-"}" = "-" ] || echo "profile ${NAME[$p]} (its processes, single-stream TCP, round 1): ${PROF[$p]}"
done
declare -A OVLDEV=([ovl]=ovl0 [ovlplain]=ovl1 [ovl1port]=ovl2 [ovlbase]=ovl3)
for o in ovl ovlplain ovl1port ovlbase; do
	[[ " $PATHS " == *" $o "* ]] || continue
	dev=${OVLDEV[$o]}
	echo "${NAME[$o]}: data cipher $(in_a "$OVLPERF" tunnel show $dev --raw | awk -F= '$1 == "session_cipher" || $1 == "session_cipher_impl" || $1 == "session_cipher_by" || $1 == "cipher_order" {printf "%s%s=%s", n++ ? " " : "", $1, $2}')"
	# The receiving end over the whole run: which workers opened the
	# datagrams (worker_ports spreads them), and what it dropped.
	echo "${NAME[$o]}: receiving end $(in_b "$OVLPERF" tunnel show $dev --raw | awk -F= '$1 ~ /^worker\.[0-9]+\.udp_rx_datagrams$/ || $1 == "worker_ports" || ($1 ~ /^drop\./ && $2 > 0) {printf "%s%s=%s", n++ ? " " : "", $1, $2}')"
done
[ -s "$WORK/sched" ] && echo "test threads' scheduling (UDP trials): $(sort -u "$WORK/sched" | paste -sd';')"
echo "load: $LOAD; TCP 1 and 4 streams, best of $ROUNDS rounds of ${T}s; UDP 1400-byte IPv4 packets (1372-byte payload: fits wireguard-go's MTU 1420); lab $LAB (veth, MTU 1500)"
echo "CPU s/GB: user+system seconds of the overlay's processes at both ends per GB of single-stream TCP goodput"
echo "(the cost of the design, less sensitive than goodput to other load on the machine: $(cut -d' ' -f1-3 /proc/loadavg))"
for o in ovl ovlplain; do
	[[ " $PATHS " == *" $o "* && " $PATHS " == *" wg "* ]] || continue
	python3 - "${NAME[$o]}" "${TCP[$o]}" "${TCP[wg]}" "${RTT[$o]}" "${RTT[wg]}" <<'PY'
import sys
name = sys.argv[1]
t_o, t_w, r_o, r_w = map(float, sys.argv[2:])
print("%s: target TCP >= 2x wireguard-go: %s (%.2fx); RTT <= wireguard-go: %s (%.3f vs %.3f ms)" % (
    name, "met" if t_o >= 2 * t_w else "NOT met", t_o / t_w,
    "met" if r_o <= r_w else "NOT met", r_o, r_w))
PY
done
if [[ " $PATHS " == *" ovl "* && " $PATHS " == *" wg "* ]]; then
	python3 - "${TCP[ovl]}" "${TCP[wg]}" "${UDP[ovl]}" "${UDP[wg]}" <<'PY'
import sys
t_o, t_w, u_o, u_w = map(float, sys.argv[1:])
f = lambda a, b: a / b if b else float("inf")
print("ovlperf (offloads): issue-6 targets: TCP 1 stream >= 6x wireguard-go: %s (%.2fx); "
      "UDP NDR >= 4x wireguard-go: %s (%.2fx)" % ("met" if t_o >= 6 * t_w else "NOT met", f(t_o, t_w),
                                                  "met" if u_o >= 4 * u_w else "NOT met", f(u_o, u_w)))
PY
fi
if [[ " $PATHS " == *" ovl "* && " $PATHS " == *" wgmodern "* ]]; then
	python3 - "${TCP[ovl]}" "${TCP[wgmodern]}" "${TCP4[ovl]}" "${MCPU[ovl]}" "${P99[ovl]:--}" \
		"${LOST[ovl]:--}" <<'PY'
import sys
t_o, t_m, t4_o = map(float, sys.argv[1:4])
try: m = float(sys.argv[4])
except ValueError: m = float("inf")
f = lambda a, b: a / b if b else float("inf")
line = ("ovlperf (offloads) against wireguard-go 2025: TCP 1 stream >= 3x: %s (%.2fx); "
        "4 streams >= 1 stream: %s (%.2fx); machine CPU per Gbit <= 0.33 s: %s (%.2f s)" % (
            "met" if t_o >= 3 * t_m else "NOT met", f(t_o, t_m),
            "met" if t4_o >= t_o else "NOT met", f(t4_o, t_o), "met" if m <= 0.33 else "NOT met", m))
if sys.argv[5] != "-":
    p99, lost = float(sys.argv[5]), sys.argv[6]
    line += "; one-way p99 at 90 %% of its NDR <= 1 ms, nothing lost: %s (%.3f ms, %s lost)" % (
        "met" if 0 <= p99 <= 1 and lost == "0" else "NOT met", p99, lost)
print(line)
PY
fi
