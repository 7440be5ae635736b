#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every tests/netns/test_*.sh as root; each builds its own lab and removes it.
# A test prints "ok N - ..." lines and exits non-zero on the first failed check;
# one that exits 0 without any "ok" line ran no check and counts as failed.
set -u
cd "$(dirname "$0")/../.."
export OVLPERF=${OVLPERF:-$PWD/ovlperf}
if [ "$(id -u)" -ne 0 ]; then
	echo "netns tests need root" >&2
	exit 1
fi
pass=0 fail=0 failed=()
log=$(mktemp /tmp/ovlperf-netns-out.XXXXXX)
trap 'rm -f "$log"' EXIT
for t in tests/netns/test_*.sh; do
	[ -n "${NETNS_ONLY:-}" ] && [[ "$t" != *"$NETNS_ONLY"* ]] && continue
	echo "== $t"
	start=$SECONDS
	# A test's stdout is kept as well as shown: one that exits 0 without a
	# single "ok N - ..." line (lib.sh's ok()) checked nothing, and fails.
	timeout 600 bash "$t" | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ] && ! grep -qE '^ok [0-9]+ - ' "$log"; then
		echo "FAIL [$t]: exited 0 but ran no check (no \"ok N - ...\" line)" >&2
		rc=1
	fi
	if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else
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
