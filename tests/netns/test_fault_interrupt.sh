#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 50
# `ovlperf run` interrupted at random points 14 times in a row (Ctrl-C
# may come at any moment and must never leave anything behind): tiny.ini on lab "fd" (a full run takes about 10 s: lab, overlay,
# server, MTU, TCP, UDP knee search), SIGINT after a random 0.2..6 s delay.
# After each: exit status 130 (or 0 if the run had finished), no ovp-fd-*
# namespace, no lab state file, no process of the run, no new TUN device or
# nftables table in this namespace, and run.json, when it was written,
# marked "complete": false. RANDOM is seeded (FAULT_SEED, default 7) and the
# delays are printed, so a failure can be replayed.
source "$(dirname "$0")/lib.sh"

LAB=fd
TRIALS=${FAULT_TRIALS:-14}
RANDOM=${FAULT_SEED:-7}
TAG="ovlperf-fault-int-$$"
OUT=$(mktemp -d /tmp/ovlperf-fault-int.XXXXXX)
on_exit "rm -rf '$OUT'"
claim_lab $LAB
on_exit "\"$OVLPERF\" lab down $LAB"
RUNPID=
on_exit '[ -n "$RUNPID" ] && kill -KILL $RUNPID'
"$OVLPERF" lab down $LAB >/dev/null 2>&1 || true
sed -e "s/^name = ru$/name = $LAB/" tests/netns/tiny.ini >"$OUT/s.ini"
grep -q "^name = $LAB$" "$OUT/s.ini" || fail "tiny.ini has no 'name = ru' in [lab] to replace"

tagged() { grep -l "OVLPERF_TEST_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null | grep -v "/proc/$$/" || true; }
tuns() { ip -o link show type tun 2>/dev/null | awk -F': ' '{print $2}' | sort; }
tables() { nft list tables 2>/dev/null | sort; }
tuns_before=$(tuns)
tables_before=$(tables)

interrupted=0 finished=0 with_json=0
for i in $(seq 1 "$TRIALS"); do
	ms=$((200 + RANDOM % 5801))
	delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
	dir="$OUT/r$i"
	OVLPERF_TEST_TAG=$TAG "$OVLPERF" run --no-progress --no-plots --out "$dir" "$OUT/s.ini" \
		>"$OUT/r$i.stdout" 2>"$OUT/r$i.stderr" &
	RUNPID=$!
	sleep "$delay"
	kill -INT "$RUNPID" 2>/dev/null || true
	# bounded wait: a run that does not stop is a failure, not a hang
	for _ in $(seq 300); do kill -0 "$RUNPID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$RUNPID" 2>/dev/null && fail "trial $i: run still alive 30 s after SIGINT at ${delay}s"
	rc=0
	wait "$RUNPID" || rc=$?
	RUNPID=
	complete=none
	[ -s "$dir/run.json" ] && complete=$(json_get "$dir/run.json" complete)
	echo "# trial $i: SIGINT after ${delay}s -> exit $rc, run.json complete=$complete"
	case "$rc" in
	130) interrupted=$((interrupted + 1))
	     [ "$complete" = true ] && fail "trial $i: interrupted run has complete=true" ;;
	0) finished=$((finished + 1))
	   [ "$complete" = true ] || fail "trial $i: exit 0 but complete=$complete" ;;
	*) fail "trial $i: exit status $rc: $(tail -3 "$OUT/r$i.stderr")" ;;
	esac
	[ "$complete" != none ] && with_json=$((with_json + 1))
	left=$(ip netns list 2>/dev/null | grep -c "^ovp-$LAB-" || true)
	[ "$left" = 0 ] || fail "trial $i: $left ovp-$LAB-* namespaces left"
	[ ! -e "/run/ovlperf/labs/$LAB" ] || fail "trial $i: lab state /run/ovlperf/labs/$LAB left"
	procs=$(tagged | wc -l)
	[ "$procs" = 0 ] || fail "trial $i: $procs processes of the run left: $(for e in $(tagged); do p=${e#/proc/}; tr '\0' ' ' <"/proc/${p%%/*}/cmdline"; echo; done)"
	[ "$(tuns)" = "$tuns_before" ] || fail "trial $i: TUN devices changed: $(tuns)"
	[ "$(tables)" = "$tables_before" ] || fail "trial $i: nftables tables changed: $(tables)"
	ok "trial $i (SIGINT at ${delay}s): exit $rc, nothing left behind"
done
echo "# $interrupted interrupted, $finished finished, $with_json wrote run.json"
expect_ge "trials really interrupted" "$interrupted" $((TRIALS / 2))
expect_ge "interrupted trials that kept run.json (complete=false)" "$with_json" 1
echo "$TEST_NAME: $CHECKS checks passed"
