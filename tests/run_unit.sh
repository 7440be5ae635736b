#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every cmocka test binary given; prints one closing "N passed, N failed" line.
set -u
pass=0 fail=0
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t" >&2; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
