#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each libFuzzer harness in DIR for SECONDS on its seed corpus
# (tests/fuzz/corpus/<name>/, copied so the committed seeds stay unchanged),
# JOBS harnesses at once (default 1; `make check` runs 2: each harness still
# gets its SECONDS of wall clock, the machine's cores shared between two).
# A harness's result and, on a finding, its log's tail are printed whole
# when it ends.
set -u
dir=$1 secs=${2:-20} jobs=${3:-1}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: JOBS=$jobs: not a positive number" >&2; exit 1; }
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT

# one F: runs harness F on a copy of its seeds; its report in $top/NAME.out,
# its status in $top/NAME.rc
one()
{
	local f=$1 name work rc=0
	name=$(basename "$f")
	work=$top/$name
	mkdir -p "$work"
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	"$f" -max_total_time="$secs" -print_final_stats=0 -artifact_prefix="$work/crash-" \
		"$work" >"$work.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "fuzz $name: ok (${secs}s)" >"$top/$name.out"
	else
		{ echo "fuzz $name: FINDING"; tail -40 "$work.log"; } >"$top/$name.out"
	fi
	rm -rf "$work" "$work.log"
	echo "$rc" >"$top/$name.rc"
}

pass=0 fail=0
declare -A running=()
# reap: waits for one harness to end, then reports every ended one
reap()
{
	local pid name
	wait -n "${!running[@]}" 2>/dev/null || true
	for pid in "${!running[@]}"; do
		kill -0 "$pid" 2>/dev/null && continue
		wait "$pid" 2>/dev/null
		name=${running[$pid]}
		unset "running[$pid]"
		if [ "$(cat "$top/$name.rc" 2>/dev/null)" = 0 ]; then
			pass=$((pass + 1)); cat "$top/$name.out"
		else
			fail=$((fail + 1)); cat "$top/$name.out" >&2
		fi
	done
}
for f in "$dir"/fuzz_*; do
	[ -x "$f" ] || continue
	while [ "${#running[@]}" -ge "$jobs" ]; do reap; done
	one "$f" &
	running[$!]=$(basename "$f")
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
