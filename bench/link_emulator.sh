#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The userspace WAN link (`ovlperf link run`, docs/link.md) against a plain
# veth, in ONE run on this machine: three lab pairs side by side,
#   veth  ovlperf lab up (the hosts' veth joined directly),
#   link0 --link-means userspace --delay 1us (the emulator with next to
#         nothing to apply: a lab link with no condition gets no emulator),
#   link40 --link-means userspace --delay 40ms,
# and UDP of 1400-byte datagrams through each (ovlperf client -u, offloads as
# the lab leaves them: on). It reports
#   - the delay the emulator adds: one-way delay p50 / p99 at 10 Mbit/s
#     through link0 minus the same through veth;
#   - per offered rate (--rates, default 1G 2G 3G): what each pair
#     delivered (Gbit/s and its ratio to veth's), the loss and who counted
#     it, the one-way delay error against 40 ms (p50, p99: the set delay
#     subtracted) and the emulator's CPU per delivered Gbit (its threads'
#     user + sys time over the trial, /proc/PID/task/*/stat);
#   - the emulator's own lateness counters (late_max_ns) and queue peak.
# Targets (issue 24): >= 2 Gbit/s of 1400-byte packets at 40 ms with the
# delay error p99 <= 0.2 ms. Reported, never asserted (speed is not a test).
#
#   OVLPERF=build/ovlperf bash bench/link_emulator.sh [-t SEC] [--rates "1G 2G 3G"]
#
# Needs root and python3. Both ends share the machine's clock: one-way
# delays are exact.
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
T=4
RATES="1G 2G 3G"
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	--rates) RATES=$2; shift 2 ;;
	*) echo "usage: $0 [-t SEC] [--rates \"RATE ...\"]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root" >&2; exit 1; }
P=/usr/bin/python3
WORK=$(mktemp -d /tmp/ovlperf-bench-link-XXXXXX)
declare -a LABS=()
cleanup()
{
	local l
	for l in ${LABS[@]+"${LABS[@]}"}; do "$OVLPERF" lab down "$l" >/dev/null 2>&1 || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "bench: $*" >&2; }

declare -A LAB=([veth]=ble-veth [link0]=ble-link0 [link40]=ble-link40)
declare -A ARGS=([veth]="" [link0]="--link-means userspace --delay 1us"
	[link40]="--link-means userspace --delay 40ms")
PAIRS="veth link0 link40"
for p in $PAIRS; do
	if "$OVLPERF" lab list 2>/dev/null | grep -qw "${LAB[$p]}"; then
		log "lab ${LAB[$p]} exists and is not this run's: not touching it"
		exit 1
	fi
	# shellcheck disable=SC2086
	"$OVLPERF" lab up "${LAB[$p]}" ${ARGS[$p]} >/dev/null
	LABS+=("${LAB[$p]}")
	ip netns exec "ovp-${LAB[$p]}-1" "$OVLPERF" server >"$WORK/$p.server.log" 2>&1 &
done
sleep 0.5

# link_pid PAIR: the emulator's pid (the one process in its namespace)
link_pid() { { ip netns pids "ovp-${LAB[$1]}-l0" 2>/dev/null || true; } | head -1; }
# cpu_of PID: user + sys seconds of all its threads
cpu_of()
{
	[ -n "$1" ] || { echo 0; return; }
	cat /proc/"$1"/task/*/stat 2>/dev/null |
		awk -v hz="$(getconf CLK_TCK)" '{ s += $14 + $15 } END { printf "%.3f", s / hz }'
}

# trial PAIR RATE NAME: UDP through PAIR; $WORK/NAME.json, the link's CPU
# seconds over it in $WORK/NAME.cpu, its counters after in $WORK/NAME.lab
trial()
{
	local p=$1 rate=$2 n=$3 pid c0 c1
	pid=$(link_pid "$p")
	c0=$(cpu_of "$pid")
	ip netns exec "ovp-${LAB[$p]}-0" "$OVLPERF" client --json 198.18.0.2 -u -l 1400 -b "$rate" \
		-t "$T" >"$WORK/$n.json" 2>>"$WORK/client.log" || log "$n: client failed: $(tail -1 "$WORK/client.log")"
	c1=$(cpu_of "$pid")
	echo "$c0 $c1" >"$WORK/$n.cpu"
	"$OVLPERF" lab show "${LAB[$p]}" --json >"$WORK/$n.lab" 2>/dev/null || echo '{}' >"$WORK/$n.lab"
}

log "added delay at 10 Mbit/s (${T}s each)"
for p in $PAIRS; do trial "$p" 10M "low-$p"; done
for r in $RATES; do
	for p in $PAIRS; do
		log "$r through $p"
		trial "$p" "$r" "$r-$p"
	done
done

$P - "$WORK" "$T" "$RATES" "$PAIRS" <<'PY'
import json, os, sys
work, T, rates, pairs = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
def load(n):
    try:
        d = json.load(open(os.path.join(work, n + ".json")))
    except (OSError, ValueError):
        return None
    return d if d.get("udp") else None
def cpu(n):
    a, b = open(os.path.join(work, n + ".cpu")).read().split()
    return float(b) - float(a)
def link(n):
    try:
        l = json.load(open(os.path.join(work, n + ".lab")))["links"][0]
        return l.get("counters") or {}
    except (OSError, ValueError, KeyError, IndexError):
        return {}
delay = {"veth": 0.0, "link0": 0.001, "link40": 40.0}
print("## The delay the emulator adds (10 Mbit/s of 1400-byte datagrams, one-way, ms)\n")
print("| pair | p50 | p99 | max |")
print("|---|---|---|---|")
low = {}
for p in pairs:
    d = load("low-" + p)
    if not d:
        print(f"| {p} | - | - | - |")
        continue
    o = d["udp"]["owd_us"]
    low[p] = (o["p50"] / 1e3 - delay[p], o["p99"] / 1e3 - delay[p])
    print(f"| {p} | {o['p50'] / 1e3:.3f} | {o['p99'] / 1e3:.3f} | {o['max'] / 1e3:.3f} |")
if "veth" in low and "link0" in low:
    print(f"\nadded by the emulator at 1 us set: p50 {low['link0'][0] - low['veth'][0]:+.3f} ms, "
          f"p99 {low['link0'][1] - low['veth'][1]:+.3f} ms")
print(f"\n## Rates ({T:.0f} s trials, 1400-byte datagrams; error = one-way delay minus the delay set)\n")
print("| offered | pair | delivered Gbit/s | x veth | lost % | lost between hosts | link drops | error p50 ms | error p99 ms | receiver socket wait p99 ms | link CPU s/Gbit | link late max ms (since up) | link queue peak MB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
best = None
for r in rates:
    base = load(f"{r}-veth")
    bgbit = base["udp"]["received_bps"] / 1e9 if base else 0
    for p in pairs:
        n = f"{r}-{p}"
        d = load(n)
        if not d:
            print(f"| {r} | {p} | failed | | | | | | | | | | |")
            continue
        u = d["udp"]
        gbit = u["received_bps"] / 1e9
        lost = 100.0 * u["lost"] / u["sent"] if u["sent"] else 0
        net = (u.get("loss_at") or {}).get("network", 0)
        c = link(n).get("a_to_b", {})
        drops = sum(c.get(f, 0) for f in ("drop_loss", "drop_burst", "drop_queue", "drop_rate", "drop_other", "rx_kernel_drops"))
        e50 = u["owd_us"]["p50"] / 1e3 - delay[p]
        e99 = u["owd_us"]["p99"] / 1e3 - delay[p]
        cpg = cpu(n) / (gbit * T) if p != "veth" and gbit > 0 else None
        print(f"| {r} | {p} | {gbit:.2f} | {gbit / bgbit if bgbit else 0:.2f} | {lost:.2f} | {net} | "
              f"{drops if p != 'veth' else '-'} | {e50:.3f} | {e99:.3f} | {u['rx_wait_us']['p99'] / 1e3:.3f} | "
              f"{'%.2f' % cpg if cpg is not None else '-'} | "
              f"{c.get('late_max_ns', 0) / 1e6 if p != 'veth' else 0:.3f} | "
              f"{c.get('queue_max_bytes', 0) / 1e6 if p != 'veth' else 0:.1f} |")
        if p == "link40" and lost < 0.1 and e99 <= 0.2 and (best is None or gbit > best):
            best = gbit
print(f"\ntarget: >= 2 Gbit/s at 40 ms with delay error p99 <= 0.2 ms (and loss < 0.1 %): "
      + (f"best {best:.2f} Gbit/s: {'met' if best >= 2 else 'NOT met'}" if best else "no rate met the delay and loss bound"))
print("one-way delays come from ovlperf's histogram: at 40 ms its buckets are about 0.5 ms wide "
      "(p50 40.108 is a bucket's bound), so an error below that is not resolved")
print(f"machine: {os.cpu_count()} CPUs, load {open('/proc/loadavg').read().split()[0]}")
PY
