#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UDP sizes against each path's path MTU in `ovlperf run`, with a real VPN:
# an external wireguard-go path at MTU 1420 beside the underlay (1500), with
# no [mtu] section and no expect_mtu, so the run probes each path itself.
# 1. The default sizes (1400): 1428-byte packets do not fit 1420, so every
#    datagram on the VPN leaves as 2 IP fragments. The run must say so once
#    for that path (not once per trial), record a WARN "udp-size" verdict
#    "fragmented ... 2 IP fragments per datagram", and mark every VPN trial
#    with fragments = 2 in run.json (underlay trials: 1); the path's pmtu
#    1420 comes from the probe. Nothing fragments unflagged.
# 2. `sizes = fit`: the largest payload both paths carry unfragmented,
#    1420 - 28 = 1392, on both paths; nothing fragments, nothing to warn.
. "$(dirname "$0")/lib.sh"

command -v wireguard-go >/dev/null && command -v wg >/dev/null ||
	fail "wireguard-go and wg are needed (make deps)"
OUT=$(mktemp -d /tmp/ovlperf-fit-XXXXXX)
on_exit "rm -rf '$OUT'"
on_exit "\"$OVLPERF\" lab down lfw >/dev/null 2>&1"
HERE=$(cd "$(dirname "$0")" && pwd)

scenario()
{
	cat >"$OUT/$1.ini" <<INI
[scenario]
name = fit-$1
repetitions = 1
duration = 400ms

[lab]
name = lfw

[path.underlay]
type = underlay

[path.vpn]
type = external
address = 198.19.5.2
setup = bash $HERE/wg_path.sh up lfw$1 1420 $OUT
teardown = bash $HERE/wg_path.sh down lfw$1 $OUT

[tcp]
enabled = no

[udp]
sizes = $2
rate = 20M
duration = 400ms

[sweep]
from = 10M
to = 20M
step = 10M
duration = 300ms
INI
}

run_fit()
{
	local rc=0
	"$OVLPERF" run --no-progress --no-plots --out "$OUT/$1" "$OUT/$1.ini" >"$OUT/$1.out" \
		2>"$OUT/$1.err" || rc=$?
	[ $rc = 0 ] || { cat "$OUT/$1.err" >&2; fail "$1: ovlperf run exited $rc"; }
	RUN=$OUT/$1/run.json
}
# trials FIELD PATH: the set of a UDP field over one path's trials
trials()
{
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); p=[x["name"] for x in d["paths"]].index(sys.argv[3])
print(" ".join(sorted({str(t["udp"][sys.argv[2]]) for t in d["trials"] if t["path"]==p and "udp" in t})))' \
		"$RUN" "$@"
}

scenario d 1400
run_fit d
expect_eq "default sizes: VPN path MTU" "$(json_get "$RUN" paths.1.pmtu)" 1420
expect_eq "default sizes: where it came from" "$(json_get "$RUN" paths.1.pmtu_source)" probe
expect_eq "default sizes: underlay path MTU" "$(json_get "$RUN" paths.0.pmtu)" 1500
expect_eq "default sizes: VPN trials' fragments per datagram" "$(trials fragments vpn)" 2
expect_eq "default sizes: VPN trials' path MTU" "$(trials path_mtu vpn)" 1420
expect_eq "default sizes: underlay trials' fragments" "$(trials fragments underlay)" 1
python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
m=[c for c in d["mtu"] if c["check"]=="udp-size"]
assert len(m)==1 and m[0]["path"]==1 and m[0]["verdict"]=="WARN" and m[0]["value"]==2, m
assert "fragmented: 1400-byte UDP payloads are 1428-byte packets, above the path MTU 1420 (probe): measured as 2 IP fragments per datagram" in m[0]["reason"], m
assert "use UDP sizes up to 1392" in m[0]["fix"], m' "$RUN" || fail "default sizes: udp-size verdict: $(cat "$RUN" | head -c 0)"
ok "default sizes: one WARN verdict, 2 fragments per datagram, fix names 1392"
expect_eq "default sizes: warnings about the VPN's sizes" \
	"$(grep -c 'path vpn: UDP sizes 1400 (2 fragments) are above its path MTU 1420 (probe)' "$OUT/d.err")" 1
expect_eq "default sizes: per-trial fragment warnings" "$(grep -c 'leaves as .* IP fragments' "$OUT/d.err")" 0
grep -q "fragmented" "$OUT/d/report.md" || fail "default sizes: report.md does not say fragmented"
ok "default sizes: report.md says fragmented"
grep -q "fragmented" "$OUT/d.out" || fail "default sizes: the terminal summary does not say fragmented"
ok "default sizes: the terminal summary says fragmented"
grep -q '^udp_fragments_per_datagram,vpn,external,,1400,,[0-9]*,2,2,2,' "$OUT/d/summary.csv" ||
	fail "default sizes: summary.csv has no fragments row: $(grep fragments "$OUT/d/summary.csv")"
ok "default sizes: summary.csv marks the VPN's 1400-byte datagrams: 2 fragments each"
expect_eq "default sizes: no fragments row for the underlay" \
	"$(grep -c '^udp_fragments_per_datagram,underlay' "$OUT/d/summary.csv")" 0

scenario f fit
run_fit f
expect_eq "fit: the payload chosen (1420 - 28)" "$(json_get "$RUN" udp_fit_len)" 1392
expect_eq "fit: VPN trials' size" "$(trials len vpn)" 1392
expect_eq "fit: underlay trials' size" "$(trials len underlay)" 1392
expect_eq "fit: VPN trials' fragments" "$(trials fragments vpn)" 1
expect_eq "fit: no udp-size verdict" \
	"$(python3 -c 'import json,sys; print(len([c for c in json.load(open(sys.argv[1]))["mtu"] if c["check"]=="udp-size"]))' "$RUN")" 0
expect_eq "fit: no fragment warning" "$(grep -c 'fragment' "$OUT/f.err")" 0
expect_eq "fit: no fragments row in summary.csv" "$(grep -c '^udp_fragments_per_datagram' "$OUT/f/summary.csv")" 0
echo "$TEST_NAME: $CHECKS checks passed"
