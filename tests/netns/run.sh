#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every tests/netns/test_*.sh as root; each builds its own lab and removes it.
# A test prints "ok" lines and exits non-zero on the first failed check.
set -u
cd "$(dirname "$0")/../.."
export OVLPERF=${OVLPERF:-$PWD/ovlperf}
if [ "$(id -u)" -ne 0 ]; then
	echo "netns tests need root" >&2
	exit 1
fi
pass=0 fail=0 failed=()
for t in tests/netns/test_*.sh; do
	[ -n "${NETNS_ONLY:-}" ] && [[ "$t" != *"$NETNS_ONLY"* ]] && continue
	echo "== $t"
	start=$SECONDS
	if timeout 600 bash "$t"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); failed+=("$t")
	fi
	echo "== $t: $((SECONDS - start)) s"
done
[ ${#failed[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failed[@]}" >&2
echo "netns: $pass passed, $fail failed"
if [ $((pass + fail)) -eq 0 ]; then
	echo "no netns test matched${NETNS_ONLY:+ NETNS_ONLY=$NETNS_ONLY}" >&2
	exit 1
fi
[ "$fail" -eq 0 ]
