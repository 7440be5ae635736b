#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How repeatable the UDP knee is through a noisy userspace VPN: wireguard-go
# on a lab pair, `ovlperf server` at the far end of the tunnel, and REPS
# knee searches (`ovlperf sweep --knee`, 1200-byte datagrams, max 1G) with
# each of two methods, the methods taking turns so that a burst of other
# load on the machine hits both alike:
#   mlr     the defaults: RFC 9971's search, 1 s trials, exceed ratio 50 %,
#           a load classified from three trials' time (two of three agree);
#   single  one trial decides a load (exceed ratio 0, duration sum = final
#           5 s trial: the search ovlperf ran before, 1 s narrowing, 5 s
#           confirmations).
# Prints each repetition's NDR, the median, the spread (max - min) / median
# and the longest search per method, and the targets: mlr's spread at most
# 10 % of its median, each of its searches at most 60 s.
#
#   OVLPERF=./ovlperf bash bench/knee_repeat.sh [--reps N]
# Needs root, wireguard-go and wireguard-tools (make bench-deps).
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
LAB=${BENCH_LAB:-kr}
REPS=3
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N]" >&2; exit 2 ;;
	esac
done
source "$(dirname "$0")/peers_lib.sh"

up_wg
in_b "$OVLPERF" server >"$WORK/server.log" 2>&1 &
CLEANUP+=("kill $!")
for i in $(seq 50); do in_a ping -c1 -W1 198.19.1.2 >/dev/null 2>&1 && break; sleep 0.2; done

search() # METHOD REP
{
	local args=()
	[ "$1" = single ] && args=(--exceed-ratio 0 --duration-sum 5s --final 5s)
	local t0
	t0=$(date +%s%N)
	in_a "$OVLPERF" sweep 198.19.1.2 --knee --max 1G -l 1200 --gap 200ms --no-progress \
		--label "$1" "${args[@]}" --json >"$WORK/$1-$2.json" 2>"$WORK/$1-$2.err" ||
		{ cat "$WORK/$1-$2.err" >&2; return 1; }
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$WORK/$1-$2.time"
	log "$1 repetition $2: $(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["knee"]; print(k["ndr"]["outcome"], k["ndr"]["lower_bps"], k["trials"], "trials")' "$WORK/$1-$2.json")"
}

for r in $(seq "$REPS"); do
	search mlr "$r"
	search single "$r"
done

python3 - "$WORK" "$REPS" <<'EOF'
import json, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
res = {}
for m in ("mlr", "single"):
    ndr, trials, secs, ct = [], [], [], []
    for r in range(1, reps + 1):
        k = json.load(open(f"{work}/{m}-{r}.json"))["knee"]
        ndr.append((k["ndr"]["lower_bps"] or 0) / 1e6)
        ct.append(k["ndr"].get("conditional_throughput_bps", 0) / 1e6)
        trials.append(k["trials"])
        secs.append(float(open(f"{work}/{m}-{r}.time").read()) / 1000)
    med = statistics.median(ndr)
    spread = (max(ndr) - min(ndr)) / med if med else float("inf")
    res[m] = (med, spread, max(secs))
    print(f"{m:7s} NDR Mbit/s {' '.join('%.1f' % v for v in ndr)}  median {med:.1f}  "
          f"spread {100 * spread:.1f} %  trials {' '.join(map(str, trials))}  "
          f"search s {' '.join('%.0f' % s for s in secs)}")
med, spread, longest = res["mlr"]
print("target: mlr spread <= 10 %% of the median: %s (%.1f %%; single %.1f %%, ratio %.2f)" %
      ("met" if spread <= 0.10 else "NOT met", 100 * spread, 100 * res["single"][1],
       spread / res["single"][1] if res["single"][1] else float("nan")))
print("target: each mlr search <= 60 s: %s (longest %.0f s; single %.0f s)" %
      ("met" if longest <= 60 else "NOT met", longest, res["single"][2]))
EOF
