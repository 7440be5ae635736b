#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How repeatable the UDP knee is through a noisy userspace VPN, measured as
# a user measures it: `ovlperf run` of a scenario whose one path is an
# external wireguard-go tunnel between the lab's two hosts
# (tests/netns/wg_path.sh brings it up as the path's setup, `process =
# wireguard-go` reads its CPU), REPS repetitions of the knee search
# (1200-byte datagrams, max 1G), run RUNS times. Two methods, taking turns
# run by run so that a burst of other load on the machine hits both alike:
#   mlr     the defaults: RFC 9971's search, 1 s trials, exceed ratio 50 %,
#           a load classified from three trials' time (two of three agree);
#   single  one trial decides a load (exceed ratio 0, duration sum = final
#           5 s trial: the search ovlperf ran before RFC 9971).
# Prints each run's NDR per repetition (run.json's knees[], what the
# sender achieved at the lower bound), the median, the spread
# (max - min) / median, the trials and the wall time of each search, and
# the targets of the noisy-knee issue: mlr's spread at most 10 % of its
# median in every run, each search at most 60 s, and (RUNS > 1) the medians
# of the runs within 10 % of each other; and the same for the fitted NDR
# (run.json's summary.udp_knee[].ndr_fit: the load where a trial loses in half
# the cases, fitted from all the search's trials, each repetition's under
# their common slope), with the test of whether the repetitions saw one
# knee (a small p: the path changed between them).
#
#   OVLPERF=./ovlperf [KNEE_KEYS="duration_sum = 5s"] bash bench/knee_repeat.sh
#       [--reps N] [--runs N] [--only mlr|single] [--keep DIR] [--own-cpus]
# The lab's hosts share the machine's CPUs (the default lab); --own-cpus
# gives each its own ([lab] cpus = 0 | 1, each end's wireguard-go with its
# host), as two machines.
# KNEE_KEYS: more [knee] lines for mlr, separated by ';'. --keep DIR keeps
# every run's results directory under DIR. Needs root, wireguard-go and
# wireguard-tools (make bench-deps). About 3 minutes a run and method.
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
HERE=$(cd "$(dirname "$0")" && pwd)
LAB=${BENCH_LAB:-kr}
REPS=3
RUNS=1
METHODS="mlr single"
KEEP=
CPUS=()
usage() { echo "usage: $0 [--reps N] [--runs N] [--only mlr|single] [--keep DIR] [--own-cpus]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--only) METHODS=$2; shift 2 ;;
	--keep) KEEP=$2; shift 2 ;;
	--own-cpus) CPUS=("cpus = 0 | 1"); shift ;;
	*) usage ;;
	esac
done
for m in $METHODS; do [ "$m" = mlr ] || [ "$m" = single ] || usage; done
[ ${#CPUS[@]} -eq 0 ] || [ "$(nproc)" -ge 2 ] || { echo "$0: --own-cpus needs two CPUs" >&2; exit 1; }
command -v wireguard-go >/dev/null && command -v wg >/dev/null ||
	{ echo "$0: wireguard-go and wg are needed (make bench-deps)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/ovlperf-kneerep-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
[ -z "$KEEP" ] || mkdir -p "$KEEP"

# scenario METHOD FILE: the one external path and the knee of METHOD
scenario()
{
	local knee=()
	if [ "$1" = single ]; then
		knee=("exceed_ratio = 0" "final = 5s" "duration_sum = 5s")
	elif [ -n "${KNEE_KEYS:-}" ]; then
		IFS=';' read -r -a knee <<<"$KNEE_KEYS"
	fi
	printf '%s\n' "[scenario]" "name = knee-repeat-$1" "repetitions = $REPS" "duration = 1s" \
		"[lab]" "name = $LAB" "${CPUS[@]}" \
		"[path.wireguard-go]" "type = external" "address = 198.19.5.2" \
		"process = wireguard-go" \
		"setup = bash $HERE/../tests/netns/wg_path.sh up ${LAB}kq 1420 $WORK" \
		"teardown = bash $HERE/../tests/netns/wg_path.sh down ${LAB}kq $WORK" \
		"[tcp]" "enabled = no" "[udp]" "sizes = 1200" "duration = 1s" "delay_loads = 50%" \
		"[mtu]" "enabled = no" \
		"[knee]" "max_rate = 1G" "${knee[@]}" >"$2"
}

for run in $(seq "$RUNS"); do
	for m in $METHODS; do
		scenario "$m" "$WORK/$m.ini"
		out=$WORK/$m-$run
		t0=$(date +%s)
		rc=0
		"$OVLPERF" run "$WORK/$m.ini" --out "$out" --no-plots --no-progress \
			>"$WORK/$m-$run.log" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
			cat "$WORK/$m-$run.log" >&2
			echo "$0: ovlperf run exited $rc" >&2
			exit 1
		fi
		[ -z "$KEEP" ] || cp -r "$out" "$KEEP/$m-$run"
		echo "bench: $m run $run: $(($(date +%s) - t0)) s" >&2
	done
done

/usr/bin/python3 - "$WORK" "$RUNS" "$METHODS" <<'EOF'
import json, statistics, sys
work, runs, methods = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
res = {}
for m in methods:
    medians, spreads, longest, fits = [], [], 0, []
    for run in range(1, runs + 1):
        knees = sorted(json.load(open(f"{work}/{m}-{run}/run.json"))["knees"],
                       key=lambda k: k["rep"])
        ndr = [(k.get("ndr_lower_achieved_bps") or 0) / 1e6 for k in knees]
        med = statistics.median(ndr)
        spread = (max(ndr) - min(ndr)) / med if med else float("inf")
        medians.append(med)
        spreads.append(spread)
        longest = max([longest] + [k["time_s"] for k in knees])
        point = json.load(open(f"{work}/{m}-{run}/run.json"))["summary"]["udp_knee"][0]
        fit = point.get("ndr_fit")
        if fit:
            reps = fit["repetitions_bps"]
            fits.append((fit["load_bps"] / 1e6, fit["spread"]))
            test = fit["same_knee_test"]
            print(f"{m:7s} run {run}: fitted NDR (trials lose in half the cases) "
                  f"{fit['load_bps'] / 1e6:.1f} Mbit/s [{fit['low_bps'] / 1e6:.1f}, "
                  f"{fit['high_bps'] / 1e6:.1f}] from {fit['trials']} trials; per repetition "
                  f"(common slope) {reps['min'] / 1e6:.1f}..{reps['max'] / 1e6:.1f} "
                  f"(n {reps['n']}), spread {100 * fit['spread']:.1f} %; one knee? p "
                  f"{test['p']:.3f} ({'the path changed' if test['differ'] else 'luck'})")
        else:
            fits.append(None)
        print(f"{m:7s} run {run}: NDR Mbit/s {' '.join('%.1f' % v for v in ndr)}  median "
              f"{med:.1f}  spread {100 * spread:.1f} %  outcome "
              f"{' '.join(k['ndr_outcome'] for k in knees)}  trials "
              f"{' '.join(str(k['trials']) for k in knees)} (fit "
              f"{' '.join(str(k.get('fit_trials', 0)) for k in knees)})  search s "
              f"{' '.join('%.0f' % k['time_s'] for k in knees)}")
    res[m] = (medians, spreads, longest, fits)
for m, (medians, spreads, longest, fits) in res.items():
    worst = max(spreads)
    print("target (%s): spread <= 10 %% of the median in every run: %s (worst %.1f %%)" %
          (m, "met" if worst <= 0.10 else "NOT met", 100 * worst))
    print("target (%s): each search <= 60 s: %s (longest %.0f s)" %
          (m, "met" if longest <= 60 else "NOT met", longest))
    if runs > 1:
        across = (max(medians) - min(medians)) / statistics.median(medians)
        print("target (%s): the medians of %d runs within 10 %% of each other: %s (%.1f %%)" %
              (m, runs, "met" if across <= 0.10 else "NOT met", 100 * across))
    if fits and all(fits):
        worst = max(f[1] for f in fits)
        print("fitted (%s): spread of the repetitions' fits <= 10 %% in every run: %s "
              "(worst %.1f %%)" % (m, "met" if worst <= 0.10 else "NOT met", 100 * worst))
        if runs > 1:
            v = [f[0] for f in fits]
            across = (max(v) - min(v)) / statistics.median(v)
            print("fitted (%s): the pooled fits of %d runs within 10 %% of each other: %s "
                  "(%.1f %%)" % (m, runs, "met" if across <= 0.10 else "NOT met",
                                 100 * across))
    elif fits:
        print("fitted (%s): %d of %d runs had no fit (a knee without overlap)" %
              (m, fits.count(None), len(fits)))
EOF
