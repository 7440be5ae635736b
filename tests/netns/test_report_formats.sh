#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A run's figures in the formats other tools read, from a real small run
# (tests/netns/tiny.ini in lab "rp"): `ovlperf report DIR --format
# openmetrics` must pass `promtool check metrics` and the OpenMetrics rules
# promtool does not check (families contiguous, "# EOF" last); report.html
# must be self-contained, readable on a phone, and render in headless
# Chromium with every section of report.md and no console message.
source "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || fail "promtool missing (make deps: prometheus)"
command -v chromium >/dev/null || fail "chromium missing (make deps: chromium)"
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d /tmp/ovlperf-report-formats.XXXXXX)
on_exit "rm -rf '$OUT'"
on_exit "\"$OVLPERF\" lab down rp"
"$OVLPERF" lab down rp >/dev/null 2>&1 || true

sed 's/^name = ru$/name = rp/' "$HERE/tiny.ini" >"$OUT/tiny.ini"
grep -q '^name = rp$' "$OUT/tiny.ini" || fail "tiny.ini: lab name not set to rp"
rc=0
"$OVLPERF" run --no-progress --out "$OUT/r" "$OUT/tiny.ini" >"$OUT/stdout" 2>"$OUT/stderr" || rc=$?
[ "$rc" -eq 0 ] || { cat "$OUT/stderr" >&2; fail "ovlperf run exited $rc"; }
ok "ovlperf run tiny.ini (lab rp) exits 0"

# --- OpenMetrics
"$OVLPERF" report "$OUT/r" --format openmetrics >"$OUT/om.txt" || fail "report --format openmetrics exited $?"
promtool check metrics <"$OUT/om.txt" >"$OUT/promtool.out" 2>&1 || {
	cat "$OUT/promtool.out" >&2
	fail "promtool check metrics refuses the OpenMetrics text"
}
ok "promtool check metrics accepts the OpenMetrics text"
# promtool must be able to refuse: the same text with a bad sample
{ head -n -1 "$OUT/om.txt"; echo 'ovlperf_run_trials{path="x" 1'; echo '# EOF'; } >"$OUT/bad.txt"
if promtool check metrics <"$OUT/bad.txt" >/dev/null 2>&1; then
	fail "promtool accepts a malformed sample: the check above proves nothing"
fi
ok "promtool refuses a malformed sample"
python3 - "$OUT/om.txt" <<'PY' || fail "OpenMetrics structure (see above)"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
def need(c, what):
    if not c:
        print("openmetrics:", what, file=sys.stderr); sys.exit(1)
need(lines[-2:] == ["# EOF", ""], "does not end with '# EOF'")
seen, cur, types, units = set(), None, {}, {}
sample = re.compile(r'^(ovlperf_[a-z0-9_]+)(\{[^}]*\})? (\S+)$')
series = set()
for l in lines[:-2]:
    m = re.match(r"# (TYPE|UNIT|HELP) (\S+) (.+)$", l)
    if m:
        kind, name, rest = m.groups()
        if kind == "TYPE":
            need(name not in seen, name + ": family given twice (interleaved)")
            seen.add(name); cur = name; types[name] = rest
        need(name == cur, name + ": metadata outside its family")
        if kind == "UNIT":
            need(name.endswith("_" + rest), name + ": unit %s is not its suffix" % rest)
        continue
    m = sample.match(l)
    need(m, "not a sample: " + l)
    need(m.group(1) == cur or (types.get(cur) == "summary" and m.group(1) in (cur + "_sum", cur + "_count")),
         m.group(1) + ": sample outside its family")
    need(m.group(2) is None or "=" in m.group(2), "empty label set")
    need((m.group(1), m.group(2)) not in series, "duplicate series: " + l)
    series.add((m.group(1), m.group(2)))
    float(m.group(3))
need(all(t == "gauge" or (t == "summary" and n.endswith("_seconds")) for n, t in types.items()),
     "a family that is neither a gauge nor the delay's summary")
# A stable label set: no label holds a rate, a time, a verdict or a bound
# outside the families that say whether a figure is a bound.
for name, labels in series:
    need(not re.search(r'(started_utc|offered_bits_per_second|verdict)=', labels or ""),
         "a label that changes from run to run: %s%s" % (name, labels))
    need(name.endswith("_bound") or 'bound=' not in (labels or ""), "a bound as a label: " + name)
for fam in ("ovlperf_tcp_goodput_bytes_per_second", "ovlperf_udp_pdr_bytes_per_second",
            "ovlperf_udp_owd_seconds", "ovlperf_udp_ndr_bound", "ovlperf_overhead_ratio", "ovlperf_mtu_check_verdict"):
    need(fam in seen, "no family " + fam)
# the labels of a knee's figure, on whichever path's search found one (on
# a loaded machine the tiny run's overlay may end below its minimum)
need(any(re.search(r'path="[a-z]+",kind="[a-z]+",bytes="1400",stat="median"', s[1] or "")
         for s in series if s[0] in ("ovlperf_udp_pdr_bytes_per_second",
                                     "ovlperf_udp_ndr_bytes_per_second")),
     "no NDR or PDR with path, kind, bytes and stat labels")
need(any('quantile="0.99"' in s[1] for s in series if s[0] == "ovlperf_udp_owd_seconds"),
     "no delay p99 as a quantile")
print("openmetrics: %d families, %d series" % (len(seen), len(series)))
PY
ok "OpenMetrics: gauges (and the delay's summary) with unit suffixes, families contiguous, stable labels, no duplicate series, # EOF"
# The matrix of pair runs: this real run (a pair without pair.json) and the
# unit tests' canned pairs (one of them unreachable).
"$OVLPERF" report --matrix --format openmetrics "$OUT/r" tests/unit/mesh/*/ >"$OUT/mesh.om" ||
	fail "report --matrix --format openmetrics exited $?"
promtool check metrics <"$OUT/mesh.om" >"$OUT/promtool-mesh.out" 2>&1 || {
	cat "$OUT/promtool-mesh.out" >&2
	fail "promtool check metrics refuses the matrix's OpenMetrics text"
}
[ "$(tail -n 1 "$OUT/mesh.om")" = "# EOF" ] || fail "the matrix's OpenMetrics text does not end with # EOF"
grep -q '^ovlperf_mesh_pair_status{.*status="unreachable"} 1$' "$OUT/mesh.om" ||
	fail "the unreachable canned pair is not in the matrix's OpenMetrics text"
grep -q '^ovlperf_mesh_tcp_goodput_bytes_per_second{.*path="overlay",kind="builtin"' "$OUT/mesh.om" ||
	fail "the real run's overlay goodput is not in the matrix's OpenMetrics text"
ok "report --matrix --format openmetrics: promtool accepts it, failed pairs and the real run in it"

# --- HTML
[ -s "$OUT/r/report.html" ] || fail "ovlperf run wrote no report.html"
grep -q '^results: .*report.html' "$OUT/stdout" || fail "the results line does not name report.html"
python3 "$HERE/report_html_check.py" static "$OUT/r/report.html" "$OUT/r/report.md" "$OUT/r" ||
	fail "report.html (see above)"
ok "report.html: self-contained, viewport, every section, every plot embedded"
"$OVLPERF" report "$OUT/r" --format html >"$OUT/printed.html" || fail "report --format html exited $?"
cmp -s "$OUT/printed.html" "$OUT/r/report.html" || fail "report --format html differs from the run's report.html"
ok "ovlperf report DIR --format html prints the run's report.html"

# Every host name resolves to nothing, so a fetch from the network could not
# succeed; the profile directory is the test's own.
chrome()
{
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$OUT/profile" --host-resolver-rules='MAP * ~NOTFOUND' \
		--enable-logging=stderr --v=0 "$@"
}
chrome --dump-dom "file://$OUT/r/report.html" >"$OUT/dom.html" 2>"$OUT/chrome.log" ||
	fail "chromium --dump-dom exited $?"
python3 "$HERE/report_html_check.py" dom "$OUT/dom.html" "$OUT/r/report.md" "$OUT/chrome.log" ||
	fail "report.html in Chromium (see above)"
ok "Chromium renders report.html: every section and table row, no console message"
# The console check must be able to fail: a page that logs.
printf '<!DOCTYPE html><title>t</title><script>console.error("x")</script>\n' >"$OUT/logs.html"
chrome --dump-dom "file://$OUT/logs.html" >/dev/null 2>"$OUT/logs.log" || true
grep -q ':CONSOLE' "$OUT/logs.log" || fail "a console.error does not show in Chromium's log: the check proves nothing"
ok "a page's console message shows in the log the check reads"
chrome --window-size=412,915 --screenshot="$OUT/phone.png" "file://$OUT/r/report.html" >/dev/null 2>&1 ||
	fail "chromium --screenshot exited $?"
[ -s "$OUT/phone.png" ] || fail "no screenshot"
ok "a phone-sized screenshot renders"
echo "$TEST_NAME: $CHECKS checks passed"
