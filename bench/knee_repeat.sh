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
# With --runs N the whole comparison runs N times, and the medians of the
# runs must lie within 10 % of each other (mlr).
#
#   OVLPERF=./ovlperf [KNEE_ARGS="--duration-sum 5s"] bash bench/knee_repeat.sh [--reps N]
#                     [--runs N] [--only mlr|single]
# Needs root, wireguard-go and wireguard-tools (make bench-deps).
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
LAB=${BENCH_LAB:-kr}
REPS=3
RUNS=1
METHODS="mlr single"
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--only) METHODS=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--runs N] [--only mlr|single]" >&2; exit 2 ;;
	esac
done
source "$(dirname "$0")/peers_lib.sh"

up_wg
in_b "$OVLPERF" server >"$WORK/server.log" 2>&1 &
CLEANUP+=("kill $!")
for i in $(seq 50); do in_a ping -c1 -W1 198.19.1.2 >/dev/null 2>&1 && break; sleep 0.2; done

search() # METHOD REP (REP: RUN-REPETITION)
{
	local args=()
	# KNEE_ARGS: more sweep options for mlr (e.g. "--duration-sum 5s")
	[ "$1" = mlr ] && read -r -a args <<<"${KNEE_ARGS:-}"
	[ "$1" = single ] && args=(--exceed-ratio 0 --duration-sum 5s --final 5s)
	local t0
	t0=$(date +%s%N)
	in_a "$OVLPERF" sweep 198.19.1.2 --knee --max 1G -l 1200 --gap 200ms --no-progress \
		--label "$1" "${args[@]}" --json >"$WORK/$1-$2.json" 2>"$WORK/$1-$2.err" ||
		{ cat "$WORK/$1-$2.err" >&2; return 1; }
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$WORK/$1-$2.time"
	log "$1 repetition $2: $(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["knee"]; print(k["ndr"]["outcome"], k["ndr"]["lower_bps"], k["trials"], "trials")' "$WORK/$1-$2.json")"
}

for run in $(seq "$RUNS"); do
	for r in $(seq "$REPS"); do
		for m in $METHODS; do search "$m" "$run-$r"; done
	done
done

python3 - "$WORK" "$REPS" "$RUNS" "$METHODS" <<'EOF'
import json, statistics, sys
work, reps, runs, methods = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
res = {}
for m in methods:
    medians, spreads, longest = [], [], 0
    for run in range(1, runs + 1):
        ndr, trials, secs = [], [], []
        for r in range(1, reps + 1):
            k = json.load(open(f"{work}/{m}-{run}-{r}.json"))["knee"]
            ndr.append((k["ndr"]["lower_bps"] or 0) / 1e6)
            trials.append(k["trials"])
            secs.append(float(open(f"{work}/{m}-{run}-{r}.time").read()) / 1000)
        med = statistics.median(ndr)
        spread = (max(ndr) - min(ndr)) / med if med else float("inf")
        medians.append(med)
        spreads.append(spread)
        longest = max(longest, max(secs))
        print(f"{m:7s} run {run}: NDR Mbit/s {' '.join('%.1f' % v for v in ndr)}  median "
              f"{med:.1f}  spread {100 * spread:.1f} %  trials {' '.join(map(str, trials))}  "
              f"search s {' '.join('%.0f' % s for s in secs)}")
    res[m] = (medians, spreads, longest)
for m, (medians, spreads, longest) in res.items():
    worst = max(spreads)
    print("target (%s): spread <= 10 %% of the median in every run: %s (worst %.1f %%)" %
          (m, "met" if worst <= 0.10 else "NOT met", 100 * worst))
    print("target (%s): each search <= 60 s: %s (longest %.0f s)" %
          (m, "met" if longest <= 60 else "NOT met", longest))
    if runs > 1:
        across = (max(medians) - min(medians)) / statistics.median(medians)
        print("target (%s): the medians of %d runs within 10 %% of each other: %s (%.1f %%)" %
              (m, runs, "met" if across <= 0.10 else "NOT met", 100 * across))
EOF
