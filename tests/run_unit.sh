#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every cmocka test binary given; prints one closing "N passed, N failed" line.
# As root each test runs in a network namespace of its own with only its
# loopback up, so whatever a unit test does, nothing it sends can leave this
# machine (the tests' simulated paths carry documentation addresses).
set -u
pass=0 fail=0
isolate=()
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null &&
	unshare -n true 2>/dev/null; then
	isolate=(unshare -n sh -c 'ip link set lo up && exec "$0"')
fi
for t in "$@"; do
	if "${isolate[@]}" "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t" >&2; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
