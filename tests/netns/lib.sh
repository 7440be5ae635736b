# SPDX-License-Identifier: MIT
# Sourced by tests/netns/test_*.sh. Each test calls lab_pair NAME to get two
# hosts; cleanup runs on EXIT (including errors and Ctrl-C) and removes them.
set -euo pipefail
OVLPERF=${OVLPERF:-$PWD/ovlperf}
TEST_NAME=$(basename "$0" .sh)
CHECKS=0
declare -a CLEANUP=()

cleanup()
{
	local rc=$?
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[$i]}" >/dev/null 2>&1 || true; done
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

on_exit() { CLEANUP+=("$*"); }

fail() { echo "FAIL [$TEST_NAME]: $*" >&2; exit 1; }
ok() { CHECKS=$((CHECKS + 1)); echo "ok $CHECKS - $*"; }

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; ok "$1 = $3"; }
# expect_ge WHAT ACTUAL MIN
expect_ge() { [ "$2" -ge "$3" ] || fail "$1: got $2, expected >= $3"; ok "$1 = $2 >= $3"; }

# lab_pair NAME [MTU]: hosts ovp-NAME-0 and ovp-NAME-1, 198.18.0.1 <-> 198.18.0.2
lab_pair()
{
	local name=$1 mtu=${2:-1500}
	"$OVLPERF" lab down "$name" >/dev/null 2>&1 || true
	"$OVLPERF" lab up "$name" --mtu "$mtu" >/dev/null
	on_exit "\"$OVLPERF\" lab down $name"
	A=ovp-$name-0
	B=ovp-$name-1
}

in_a() { ip netns exec "$A" "$@"; }
in_b() { ip netns exec "$B" "$@"; }

# jq-free JSON field read: json_get FILE PATH (python3 is on the machine)
json_get() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d=d[int(k)] if isinstance(d,list) else d[k]
print(str(d).lower() if isinstance(d,bool) else d)' "$1" "$2"; }
