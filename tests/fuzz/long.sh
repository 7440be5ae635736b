#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Long libFuzzer campaign: runs each harness in DIR for SECONDS (wall clock),
# JOBS harnesses at a time, each on a copy of its committed seed corpus, and
# writes OUT/summary.md: runs, coverage, corpus growth, wall and CPU seconds,
# findings. Harness names may be given as NAME or NAME=SECONDS to override.
#   bash tests/fuzz/long.sh build-fuzz/fuzz 1800 2 results/fuzz-long [NAME[=S] ...]
# `make fuzz-long` runs it (results/fuzz-long/); `make check` runs run.sh.
set -u
dir=${1:?usage: long.sh DIR SECONDS JOBS OUT [NAME[=S] ...]}
secs=${2:?seconds} jobs=${3:?jobs} out=${4:?out dir}
shift 4
mkdir -p "$out"
out=$(cd "$out" && pwd)

list=()
if [ $# -gt 0 ]; then
	list=("$@")
else
	for f in "$dir"/fuzz_*; do
		[ -x "$f" ] && [ "${f%.d}" = "$f" ] && list+=("$(basename "$f")")
	done
fi

one() { # NAME[=SECONDS]
	local name=${1%%=*} s=$secs
	[ "$name" != "$1" ] && s=${1#*=}
	local bin=$dir/$name work=$out/corpus/$name log=$out/$name.log
	[ -x "$bin" ] || { echo "$name: no harness $bin" >"$out/$name.status"; return 1; }
	mkdir -p "$work"
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	local seeds t0 t1 rc cpu
	seeds=$(find "$work" -type f | wc -l)
	t0=$(date +%s)
	# CPU seconds of the harness alone (children of this subshell).
	/usr/bin/time -f '%U %S' -o "$out/$name.cpu" \
		"$bin" -max_total_time="$s" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/$name-" "$work" >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	cpu=$(awk '{printf "%.0f", $1 + $2}' "$out/$name.cpu" 2>/dev/null)
	echo "$name rc=$rc wall=$((t1 - t0)) cpu=${cpu:-?} seeds=$seeds" >"$out/$name.status"
	echo "$(date +%T) $name done: rc=$rc wall=$((t1 - t0))s cpu=${cpu:-?}s"
}
export -f one
export dir secs out

echo "$(date +%T) ${#list[@]} harnesses, ${secs}s each, $jobs at a time -> $out"
printf '%s\n' "${list[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}

{
	echo "# libFuzzer campaign $(date -u +%F)"
	echo
	echo "Host: $(nproc) cores; $jobs harnesses at a time; commit $(git rev-parse --short HEAD 2>/dev/null)."
	echo "Sanitizers: ASan + UBSan (make fuzz). Seeds: tests/fuzz/corpus/NAME."
	echo
	echo "| Harness | Wall s | CPU s | Runs | Runs/s | cov | ft | Seeds | Corpus | Result |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	fail=0
	for e in "${list[@]}"; do
		n=${e%%=*} log=$out/$n.log
		st=$(cat "$out/$n.status" 2>/dev/null)
		rc=$(sed -n 's/.*rc=\([0-9]*\).*/\1/p' <<<"$st")
		wall=$(sed -n 's/.*wall=\([0-9]*\).*/\1/p' <<<"$st")
		cpu=$(sed -n 's/.*cpu=\([0-9?]*\).*/\1/p' <<<"$st")
		seeds=$(sed -n 's/.*seeds=\([0-9]*\).*/\1/p' <<<"$st")
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		rps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
		last=$(grep -E '^#[0-9]+' "$log" | tail -1)
		cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
		ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
		corp=$(find "$out/corpus/$n" -type f 2>/dev/null | wc -l)
		arts=$(find "$out" -maxdepth 1 -name "$n-*" -type f | wc -l)
		res="no findings"
		if [ "${rc:-1}" != 0 ] || [ "$arts" -gt 0 ]; then
			res="FINDING (rc=${rc:-?}, $arts artifacts)"
			fail=1
		fi
		echo "| $n | ${wall:-?} | ${cpu:-?} | ${runs:-?} | ${rps:-?} | ${cov:-?} | ${ft:-?} | ${seeds:-?} | $corp | $res |"
	done
} >"$out/summary.md"
cat "$out/summary.md"
! grep -q FINDING "$out/summary.md"
