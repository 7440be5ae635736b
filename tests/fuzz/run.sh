#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each libFuzzer harness in DIR for SECONDS on its seed corpus
# (tests/fuzz/corpus/<name>/, copied so the committed seeds stay unchanged).
set -u
dir=$1 secs=${2:-20}
pass=0 fail=0
for f in "$dir"/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f")
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	if "$f" -max_total_time="$secs" -print_final_stats=0 -artifact_prefix="$work/crash-" \
		"$work" >"$work.log" 2>&1; then
		pass=$((pass + 1)); echo "fuzz $name: ok (${secs}s)"
	else
		fail=$((fail + 1)); echo "fuzz $name: FINDING" >&2; tail -40 "$work.log" >&2
	fi
	rm -rf "$work" "$work.log"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
