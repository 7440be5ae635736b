#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone
# `ovlperf sweep` through a tbf-shaped lab link: the knee search's NDR lands
# near the shaper's rate on rates the sender really offered (and a pacer
# crippled on purpose fails that check), a linear sweep prints one row per
# rate with the loss above the shaper, IPv6 works, bad options are refused,
# Ctrl-C keeps what was measured. Loose bands only: no timing is asserted.
source "$(dirname "$0")/lib.sh"

LAB=sw
RATE_M=50
OUT=$(mktemp -d)
on_exit "rm -rf $OUT"

"$OVLPERF" lab down $LAB >/dev/null 2>&1 || true
"$OVLPERF" lab up $LAB --rate ${RATE_M}M >/dev/null
on_exit "\"$OVLPERF\" lab down $LAB"
A=ovp-$LAB-0
B=ovp-$LAB-1

server_in "$B" "$OUT/server.log" server

# Usage errors exit 2 before sending anything.
set +e
in_a "$OVLPERF" sweep 198.18.0.2 --knee >/dev/null 2>"$OUT/err"; rc=$?
set -e
expect_eq "--knee without --max exits" "$rc" 2
grep -q -- "--knee needs --max" "$OUT/err" || fail "no reason given: $(cat "$OUT/err")"
set +e
in_a "$OVLPERF" sweep 198.18.0.2 --from 100M --to 10M --step 10M >/dev/null 2>"$OUT/err"; rc=$?
set -e
expect_eq "from above to exits" "$rc" 2

# Knee search, IPv4: short trials, JSON out.
in_a "$OVLPERF" sweep 198.18.0.2 --knee --max 400M -t 500ms --final 1s --gap 200ms \
	--label native --json >"$OUT/knee.json" 2>"$OUT/knee.err"
python3 - "$OUT/knee.json" "$RATE_M" >"$OUT/knee.check" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rate = float(sys.argv[2]) * 1e6
k = d["knee"]
ndr, pdr = k["ndr"], k["pdr"]
print("outcome", ndr["outcome"], pdr["outcome"])
print("ndr_lower", ndr["lower_bps"])
# Where the sender keeps up the knee sits near the shaper; a sender held off
# the CPU (a loaded machine) ends at its own limit, a lower bound said so.
gen = ndr["outcome"] == "generator-limit"
print("ndr_ok", int(ndr["lower_bps"] is not None and ndr["lower_bps"] < 1.1 * rate and
                    (gen or 0.5 * rate < ndr["lower_bps"])))
# the search's rates (targets) are ordered; lower_bps is what was sent there
print("pdr_ge_ndr", int(pdr["lower_target_bps"] is not None and
                        pdr["lower_target_bps"] >= ndr["lower_target_bps"]))
print("sent_le_target", int(ndr["lower_bps"] <= ndr["lower_target_bps"] and
                            pdr["lower_bps"] <= pdr["lower_target_bps"]))
print("trials_match", int(k["trials"] == len(d["points"])))
bad = [p for p in d["points"] if p["generator_limited"] and p["verdict"] != "invalid"]
print("invalid_passes", len(bad))
lt = d["points"][ndr["lower_trial"]]
# a trial the sender fell short in counts at what it sent (lower_bps <= sent)
print("lower_trial_lossless", int(lt["lost"] == 0))
print("mrr_below_max", int(k["mrr_bps"] < 400e6))
# every point that received something says how long its receiver's socket
# held the datagrams: a share of the delay (1 ms of slack, two clocks)
got = [p for p in d["points"] if p["received"] > 0]
print("rx_wait_ok", int(bool(got) and all(
    p["rx_wait_us"]["valid"] and p["rx_wait_us"]["max"] <= p["owd_us"]["max"] + 1000 and
    p["rx_wait_us"]["p99"] <= p["owd_us"]["p99"] + 1000 for p in got)))
EOF
cat "$OUT/knee.check"
expect_eq "knee search finished (found, or the sender's limit)" \
	"$(awk '/^outcome/{print ($2 == "found" || $2 == "generator-limit") && ($3 == "found" || $3 == "generator-limit")}' "$OUT/knee.check")" 1
expect_eq "NDR within (50%, 110%) of the ${RATE_M} Mbit/s shaper" "$(awk '/^ndr_ok/{print $2}' "$OUT/knee.check")" 1
expect_eq "PDR at or above NDR" "$(awk '/^pdr_ge_ndr/{print $2}' "$OUT/knee.check")" 1
expect_eq "NDR/PDR as sent, at most their targets" "$(awk '/^sent_le_target/{print $2}' "$OUT/knee.check")" 1
expect_eq "one point per trial" "$(awk '/^trials_match/{print $2}' "$OUT/knee.check")" 1
expect_eq "generator-limited trials counted as pass" "$(awk '/^invalid_passes/{print $2}' "$OUT/knee.check")" 0
expect_eq "NDR lower bound trial lost nothing" "$(awk '/^lower_trial_lossless/{print $2}' "$OUT/knee.check")" 1
expect_eq "MRR shows the shaper" "$(awk '/^mrr_below_max/{print $2}' "$OUT/knee.check")" 1
expect_eq "each point's receiver socket wait, within its delay" "$(awk '/^rx_wait_ok/{print $2}' "$OUT/knee.check")" 1
grep -q "trial 1 of" "$OUT/knee.err" || fail "no progress lines on stderr"
ok "progress lines on stderr"

# The sender: whatever the outcome (found, or generator-limit when the sender
# could not keep up), the NDR must be a rate the sender offered within 1 %,
# and so must every rate below it (knee_sender.py). A generator-limited
# search passes only when the pacer held its target up to where it fell short.
python3 "$(dirname "$0")/knee_sender.py" "$OUT/knee.json" >"$OUT/sender.txt" ||
	{ cat "$OUT/sender.txt"; fail "the knee search rests on rates the sender did not offer"; }
cat "$OUT/sender.txt"
ok "the sender reached the NDR and every rate below it within 1 %"

# The sender check can fail: the same search with a pacer 5 % short of every
# rate (OVLPERF_TEST_PACER_SHORT, a test-only knob of pacer.c) must fail it,
# however the search ends (8 trials are enough for a lower bound).
set +e
in_a env OVLPERF_TEST_PACER_SHORT=5 "$OVLPERF" sweep 198.18.0.2 --knee --max 400M -t 500ms \
	--final 1s --gap 200ms --max-trials 8 --label native --json --no-progress \
	>"$OUT/short.json" 2>"$OUT/short.err"
set -e
grep -q "OVLPERF_TEST_PACER_SHORT=5: pacing 5 % below" "$OUT/short.err" ||
	fail "the crippled pacer was not in effect: $(head -3 "$OUT/short.err")"
set +e
python3 "$(dirname "$0")/knee_sender.py" "$OUT/short.json" >"$OUT/short.check"; rc=$?
set -e
cat "$OUT/short.check"
expect_eq "sender check of a search with a pacer 5 % short exits" "$rc" 1
grep -qE "sender check failed: .*(short of its target|fell short)" "$OUT/short.check" ||
	fail "the sender check failed for another reason than the sender"
ok "a pacer 5 % short of every rate fails the sender check"

ROW='^ *[0-9.]+[* ]\|'	# a table row: offered rate, '*' when the sender fell short

# Linear sweep, IPv6, terminal table: 10, 30, 50, 70 and 90 Mbit/s.
in_a "$OVLPERF" sweep 2001:2::2 -6 --from 10M --to 90M --step 20M -t 500ms --gap 200ms \
	--no-progress >"$OUT/linear.txt"
cat "$OUT/linear.txt"
grep -q "offered |    TX pps |    RX pps |   Mbit/s | delivered %" "$OUT/linear.txt" ||
	fail "table header missing"
ok "table header"
rows=$(grep -cE "$ROW" "$OUT/linear.txt")
expect_eq "linear rows" "$rows" 5
expect_eq "offered column" "$(awk -F'|' '/^ *[0-9.]+[* ]\|/{gsub(/[ *]/, "", $1); printf "%s ", $1}' "$OUT/linear.txt")" \
	"10.00 30.00 50.00 70.00 90.00 "
# Well below the shaper everything arrives; well above it, no more than the
# shaper's rate does (whatever the sender managed to offer).
low=$(awk -F'|' '$1 ~ /^ +10.00/{printf "%d", $5}' "$OUT/linear.txt")
high=$(awk -F'|' '$1 ~ /^ +90.00/{printf "%d", $4}' "$OUT/linear.txt")
expect_ge "delivered % at 10 Mbit/s" "$low" 99
[ "$high" -le $((RATE_M * 11 / 10)) ] || fail "received $high Mbit/s through a $RATE_M Mbit/s shaper"
ok "received at 90 Mbit/s offered = $high Mbit/s <= shaper + 10%"

# Ctrl-C: the sweep stops, says so, and keeps the rows it measured.
# (ip netns exec execs ovlperf, so $! is ovlperf itself)
# (interrupted in the second step: 2.5 MB crossed the link, twice what the
# first, 1 s at 10 Mbit/s, can move; eight steps are still to come, so the
# interrupt cannot miss the sweep on a slow machine, where a Ctrl-C after
# the last step is no interruption)
from=$(link_bytes "$A")
ip netns exec "$A" "$OVLPERF" sweep 198.18.0.2 --from 10M --to 100M --step 10M -t 1 \
	--gap 100ms --no-progress >"$OUT/int.txt" 2>&1 &
SW=$!
wait_link_bytes "$A" "$from" 2500000 "$SW"
kill -INT $SW
set +e
wait $SW; rc=$?
set -e
expect_eq "interrupted sweep exits" "$rc" 1
grep -q "^interrupted" "$OUT/int.txt" || fail "no 'interrupted' line: $(cat "$OUT/int.txt")"
ok "interrupted sweep says so"
expect_ge "rows kept after Ctrl-C" "$(grep -cE "$ROW" "$OUT/int.txt")" 1
echo "$TEST_NAME: $CHECKS checks passed"
