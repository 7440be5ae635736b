#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The three MTU scenarios through `ovlperf run`: each one's
# verdicts and exact MTUs in run.json. The lab names are swapped for this
# test's own (msb, msj, msm) so that the test never meets a lab of a run.
#   mtu-blackhole  1400 in the middle, ICMP dropped, overlay at 1440
#   mtu-jumbo      9001 end to end, overlay 8941
#   mtu-mss        1400 in the middle, ICMP passes: MSS larger than the path
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mtu_lib.sh"

# run_scn FILE LAB: runs the scenario with lab name LAB; RUN = its run.json,
# RC its exit status: 0, or 4 when an MTU/MSS verdict is FAIL (ovlperf run
# --help); each scenario below checks which.
run_scn()
{
	local base
	base=$(basename "$1" .ini)
	sed "s/^name = mt[a-z]*$/name = $2/" "$1" >"$MT_DIR/$base.ini"
	grep -q "^name = $2$" "$MT_DIR/$base.ini" || fail "$1: no [lab] name to replace"
	on_exit "\"$OVLPERF\" lab down $2"
	RC=0
	"$OVLPERF" run --out "$MT_DIR/$base" --no-plots --no-progress "$MT_DIR/$base.ini" \
		>"$MT_DIR/$base.out" 2>&1 || RC=$?
	RUN=$MT_DIR/$base/run.json
	[ -f "$RUN" ] || { cat "$MT_DIR/$base.out" >&2; fail "$1: no run.json"; }
	[ "$(json_get "$RUN" complete)" = true ] || { cat "$MT_DIR/$base.out" >&2; fail "$1: run incomplete"; }
	[ "$RC" = 0 ] || [ "$RC" = 4 ] ||
		{ tail -5 "$MT_DIR/$base.out" >&2; fail "$1: ovlperf run exited $RC"; }
	ok "$base: ovlperf run completes (exit $RC) with a complete run.json"
}

# chk PATH_INDEX CHECK FIELD [N]: verdict / value / fix of the Nth (default
# first) MTU check of that name for that path in RUN
chk()
{
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
m=[c for c in d["mtu"] if c["path"]==int(sys.argv[2]) and c["check"]==sys.argv[3]]
n=int(sys.argv[5]) if len(sys.argv)>5 else 0
print(m[n][sys.argv[4]] if len(m)>n else "")' "$RUN" "$@"
}

run_scn scenarios/mtu-blackhole.ini msb
expect_eq "blackhole: underlay black hole" "$(chk 0 blackhole verdict)" FAIL
expect_eq "blackhole: underlay path MTU" "$(chk 0 blackhole value)" 1400
expect_eq "blackhole: underlay expect 1400" "$(chk 0 expect verdict)" OK
expect_eq "blackhole: underlay TCP stalls" "$(chk 0 mss verdict)" FAIL
expect_eq "blackhole: overlay black hole" "$(chk 1 blackhole verdict)" FAIL
expect_eq "blackhole: overlay path MTU" "$(chk 1 blackhole value)" 1328
expect_eq "blackhole: overlay expect 1328" "$(chk 1 expect verdict)" OK
expect_eq "blackhole: tunnel verdict" "$(chk 1 tunnel verdict)" FAIL
chk 1 tunnel fix | grep -q "set the overlay MTU to 1340, or clamp MSS to 1288" ||
	fail "blackhole: tunnel fix: $(chk 1 tunnel fix)"
ok "blackhole: set the overlay MTU to 1340, or clamp MSS to 1288"
grep -q "FAIL.*black-holed" "$MT_DIR/mtu-blackhole.out" || fail "blackhole: not in the summary"
ok "blackhole: the terminal summary shows the black hole"
# a complete run with a FAIL verdict: its own exit status (ovlperf run --help)
expect_eq "blackhole: exit status of a run with a FAIL verdict" "$RC" 4

run_scn scenarios/mtu-jumbo.ini msj
expect_eq "jumbo: exit status (every verdict OK)" "$RC" 0
expect_eq "jumbo: underlay pmtu" "$(chk 0 pmtu verdict)" OK
expect_eq "jumbo: underlay path MTU" "$(chk 0 pmtu value)" 9001
chk 0 pmtu reason | grep -q "jumbo path confirmed: MTU 9001 end to end, MSS 8961 (8949 bytes of payload per segment)" ||
	fail "jumbo: reason $(chk 0 pmtu reason)"
ok "jumbo: jumbo path confirmed, MSS 8961, payload 8949"
expect_eq "jumbo: underlay MSS (the option value)" "$(chk 0 mss value)" 8961
expect_eq "jumbo: expect_mss 8961" "$(chk 0 expect verdict 1)" OK
expect_eq "jumbo: overlay path MTU" "$(chk 1 pmtu value)" 8941
expect_eq "jumbo: tunnel" "$(chk 1 tunnel verdict)" OK
expect_eq "jumbo: overlay MSS" "$(chk 1 mss value)" 8901
python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
bad=[c for c in d["mtu"] if c["verdict"]!="OK"]
sys.exit(1 if bad else 0)' "$RUN" || fail "jumbo: a verdict is not OK"
ok "jumbo: every verdict OK"

run_scn scenarios/mtu-mss.ini msm
expect_eq "mss: exit status (WARN only)" "$RC" 0
expect_eq "mss: underlay path MTU" "$(chk 0 pmtu value)" 1400
expect_eq "mss: pmtu verdict (ICMP passes)" "$(chk 0 pmtu verdict)" WARN
expect_eq "mss: mss verdict" "$(chk 0 mss verdict)" WARN
# (the segment size at connect depends on what the run sent before: a PMTU
# the kernel already learned lowers it; the MSS on the SYNs does not change)
chk 0 mss reason | grep -q "MSS 1460 on the SYNs is larger than the path MTU 1400 allows (MSS 1360)" ||
	fail "mss: reason $(chk 0 mss reason)"
chk 0 mss fix | grep -q "clamp MSS to 1360" || fail "mss: fix $(chk 0 mss fix)"
ok "mss: MSS 1460 larger than the 1360 the path allows, clamp MSS to 1360"
expect_eq "mss: expect_mtu 1400" "$(chk 0 expect verdict)" OK
echo "$TEST_NAME: $CHECKS checks passed"
