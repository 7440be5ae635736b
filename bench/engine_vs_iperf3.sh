#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ovlperf's load engine against iperf3 on one lab pair, both tools in one run:
#  - UDP 1400 B: highest offered rate with zero loss while really sending the
#    offered rate (achieved >= 99 %), by a stepped search (x2 steps, then
#    bisection; a rate fails when two probes in a row fail);
#  - pacing: achieved / target at 10 M, 100 M, 1 G and the lossless rate;
#  - TCP single stream goodput (mean of RUNS runs each, interleaved).
# Prints a table with ratios. Speed is only ever compared side by side here,
# never asserted in tests. Needs root and iperf3 (`make bench-deps`).
#   OVLPERF=./ovlperf bash bench/engine_vs_iperf3.sh
#   T=2 RUNS=3 OFFLOADS_TOO=1 ...  (probe duration, TCP runs; OFFLOADS_TOO=1 also
#   searches ovlperf without GSO/GRO and iperf3 with -w 4M)
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
T=${T:-2}
RUNS=${RUNS:-3}
OFFLOADS_TOO=${OFFLOADS_TOO:-1}
LAB=${LAB:-en}
command -v iperf3 >/dev/null || { echo "iperf3 missing: make bench-deps" >&2; exit 1; }

PIDS=()
cleanup()
{
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	"$OVLPERF" lab down "$LAB" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$OVLPERF" lab down "$LAB" >/dev/null 2>&1 || true
"$OVLPERF" lab up "$LAB" >/dev/null
A=ovp-$LAB-0
B=ovp-$LAB-1
ip netns exec "$B" "$OVLPERF" server >/dev/null 2>&1 &
PIDS+=($!)
ip netns exec "$B" iperf3 -s >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do
	n=$(ip netns exec "$B" ss -Hltn '( sport = :5211 or sport = :5201 )' | wc -l)
	[ "$n" -ge 2 ] && break
	sleep 0.1
done

echo "# ovlperf $("$OVLPERF" --version | cut -d' ' -f2) vs $(iperf3 --version | head -1 | cut -d' ' -f1-2)," \
	"lab pair $A -> $B (veth, MTU 1500), $(nproc) cores, probes of ${T} s"
A=$A T=$T RUNS=$RUNS OVLPERF=$OVLPERF OFFLOADS_TOO=$OFFLOADS_TOO python3 - <<'PY'
import json, os, subprocess, sys

A, T, RUNS, OVL = os.environ["A"], float(os.environ["T"]), int(os.environ["RUNS"]), os.environ["OVLPERF"]
SERVER = "198.18.0.2"

def run(cmd):
    p = subprocess.run(["ip", "netns", "exec", A] + cmd, capture_output=True, text=True, timeout=120)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        sys.stderr.write("failed: %s\n%s\n" % (" ".join(cmd), p.stderr[-500:]))
        return None

def ovl_udp(rate, extra=()):
    d = run([OVL, "client", SERVER, "-u", "-l", "1400", "-b", str(rate), "-t", str(T), "--json", *extra])
    if not d or d.get("error"):
        return None
    u = d["udp"]
    return {"lost": u["lost"], "achieved": u["achieved_bps"], "sent": u["sent"]}

def iperf_udp(rate, extra=()):
    d = run(["iperf3", "-c", SERVER, "-u", "-l", "1400", "-b", str(rate), "-t", str(T), "--json", *extra])
    if not d or "error" in d:
        return None
    e = d["end"]
    return {"lost": e["sum"]["lost_packets"], "achieved": e["sum_sent"]["bits_per_second"],
            "sent": e["sum"]["packets"]}

def ok(r, rate):
    return r is not None and r["lost"] == 0 and r["achieved"] >= 0.99 * rate

def probe(fn, rate):
    """A rate fails only if two probes in a row fail: the machine is shared,
    and one hiccup is not the knee. Both tools get the same treatment."""
    return ok(fn(int(rate)), rate) or ok(fn(int(rate)), rate)

def search(fn, start=100e6, limit=64e9, bisect=3):
    """Highest rate that passes: x2 steps up, then bisection (geometric)."""
    good, bad, rate = 0, None, start
    while rate <= limit:
        if probe(fn, rate):
            good = rate
            rate *= 2
        else:
            bad = rate
            break
    if good == 0:  # even the start fails: step down
        rate = start / 2
        while rate >= 1e6 and not probe(fn, rate):
            rate /= 2
        good, bad = (rate if rate >= 1e6 else 0), rate * 2
    for _ in range(bisect if bad else 0):
        mid = (good * bad) ** 0.5
        if probe(fn, mid):
            good = mid
        else:
            bad = mid
    return good

def fmt(bps):
    return "%.3g Gbit/s" % (bps / 1e9) if bps >= 1e9 else "%.3g Mbit/s" % (bps / 1e6)

rows = []
ovl_knee = search(ovl_udp)
ipf_knee = search(iperf_udp)
rows.append(("UDP 1400 B lossless rate (achieved >= 99 %)", ovl_knee, ipf_knee))
if os.environ.get("OFFLOADS_TOO") == "1":
    nooff = search(lambda r: ovl_udp(r, ("--no-gso", "--no-gro")))
    rows.append(("  same, ovlperf without GSO/GRO", nooff, ipf_knee))
    # iperf3 tuned as its users do when it loses: a 4 MB socket buffer
    ipf_w = search(lambda r: iperf_udp(r, ("-w", "4M")))
    rows.append(("  same, iperf3 -w 4M (ovlperf default)", ovl_knee, ipf_w))

def tcp(cmd):
    d = run(cmd)
    if not d:
        return 0
    if "tcp" in d:
        return d["tcp"]["goodput_bps"]
    return d["end"]["sum_received"]["bits_per_second"]

o, i = [], []
for _ in range(RUNS):
    o.append(tcp([OVL, "client", SERVER, "-t", str(T + 1), "--json"]))
    i.append(tcp(["iperf3", "-c", SERVER, "-t", str(T + 1), "--json"]))
rows.append(("TCP single stream goodput (mean of %d)" % RUNS, sum(o) / RUNS, sum(i) / RUNS))

print()
print("| %-46s | %14s | %14s | %9s |" % ("measure", "ovlperf", "iperf3", "ratio"))
print("|" + "-" * 48 + "|" + "-" * 16 + "|" + "-" * 16 + "|" + "-" * 11 + "|")
for name, a, b in rows:
    print("| %-46s | %14s | %14s | %8.2fx |" % (name, fmt(a), fmt(b), a / b if b else float("inf")))

print()
print("Pacing accuracy, UDP 1400 B (achieved / target - 1; loss):")
print("| %-12s | %-22s | %-22s |" % ("target", "ovlperf", "iperf3"))
print("|" + "-" * 14 + "|" + "-" * 24 + "|" + "-" * 24 + "|")
targets = [10e6, 100e6, 1e9]
if ovl_knee > 1e9:
    targets.append(int(ovl_knee))
for t in targets:
    cells = []
    for fn in (ovl_udp, iperf_udp):
        r = fn(int(t))
        cells.append("failed" if r is None else
                     "%+.2f %%; lost %d/%d" % (100.0 * (r["achieved"] / t - 1), r["lost"], r["sent"]))
    print("| %-12s | %-22s | %-22s |" % (fmt(t), cells[0], cells[1]))
PY
