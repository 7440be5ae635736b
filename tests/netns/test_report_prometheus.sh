#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real Prometheus reads a run: a small run (tests/netns/tiny.ini in lab
# "pq") is written with `ovlperf report DIR -F openmetrics -o FILE` into a
# directory that Debian's node exporter serves through its textfile
# collector (host 1 of lab "pm", 198.18.0.2:9100); Debian's Prometheus (host
# 0, 198.18.0.1:9090) scrapes it, and the figures read back through
# Prometheus' HTTP API must be run.json's, in base units, with no scrape
# error. The file is written atomically (no temporary file left beside it,
# readable by the exporter's user).
source "$(dirname "$0")/lib.sh"

for c in prometheus prometheus-node-exporter; do
	command -v $c >/dev/null || fail "$c missing (make deps)"
done
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d /tmp/ovlperf-report-prom.XXXXXX)
on_exit "rm -rf '$OUT'"
on_exit "\"$OVLPERF\" lab down pq"
"$OVLPERF" lab down pq >/dev/null 2>&1 || true

sed 's/^name = ru$/name = pq/' "$HERE/tiny.ini" >"$OUT/tiny.ini"
grep -q '^name = pq$' "$OUT/tiny.ini" || fail "tiny.ini: lab name not set to pq"
"$OVLPERF" run --no-progress --out "$OUT/r" "$OUT/tiny.ini" >"$OUT/stdout" 2>"$OUT/stderr" ||
	{ cat "$OUT/stderr" >&2; fail "ovlperf run exited $?"; }
ok "ovlperf run tiny.ini (lab pq) exits 0"

mkdir "$OUT/textfile"
"$OVLPERF" report "$OUT/r" -F openmetrics -o "$OUT/textfile/ovlperf.prom" ||
	fail "report -F openmetrics -o exited $?"
expect_eq "files in the textfile directory (no temporary one left)" \
	"$(ls -A "$OUT/textfile")" "ovlperf.prom"
expect_eq "the .prom file's mode" "$(stat -c %a "$OUT/textfile/ovlperf.prom")" 644
# A second write replaces the file whole; one that cannot be written fails
# and leaves no temporary file either.
cp "$OUT/textfile/ovlperf.prom" "$OUT/before.prom"
"$OVLPERF" report "$OUT/r" -F openmetrics -o "$OUT/textfile/ovlperf.prom" || fail "second write exited $?"
cmp -s "$OUT/before.prom" "$OUT/textfile/ovlperf.prom" || fail "a second write changed the file"
if "$OVLPERF" report "$OUT/r" -F openmetrics -o "$OUT/textfile/none/x.prom" 2>"$OUT/bad.err"; then
	fail "writing into a missing directory succeeded"
fi
grep -q 'none/x.prom' "$OUT/bad.err" || fail "the error does not name the file: $(cat "$OUT/bad.err")"
expect_eq "files in the textfile directory after both" "$(ls -A "$OUT/textfile")" "ovlperf.prom"
lab_pair pm
ip netns exec "$A" ip link set lo up
ip netns exec "$B" ip link set lo up
listener_in "$B" "$OUT/node.log" 9100 prometheus-node-exporter \
	--web.listen-address=198.18.0.2:9100 --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$OUT/textfile"
cat >"$OUT/prometheus.yml" <<'EOF'
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ovlperf
    static_configs:
      - targets: ['198.18.0.2:9100']
EOF
listener_in "$A" "$OUT/prom.log" 9090 prometheus --config.file="$OUT/prometheus.yml" \
	--storage.tsdb.path="$OUT/tsdb" --web.listen-address=198.18.0.1:9090
ok "node exporter (198.18.0.2:9100) and Prometheus (198.18.0.1:9090) listen in lab pm"

# Everything below reads Prometheus' HTTP API from host 0.
ip netns exec "$A" python3 - "$OUT/r/run.json" <<'PY' || fail "Prometheus' answers (see above)"
import json, sys, time, urllib.parse, urllib.request
API = "http://198.18.0.1:9090/api/v1/query?query="
run = json.load(open(sys.argv[1]))
def query(q):
    with urllib.request.urlopen(API + urllib.parse.quote(q), timeout=5) as r:
        d = json.load(r)
    assert d["status"] == "success", d
    return d["data"]["result"]
def one(q):
    res = query(q)
    if len(res) != 1:
        print("prometheus: %s: %d series, expected 1: %s" % (q, len(res), res), file=sys.stderr)
        sys.exit(1)
    return float(res[0]["value"][1])
def need(c, what):
    if not c:
        print("prometheus:", what, file=sys.stderr); sys.exit(1)
def close(got, want, what):
    need(abs(got - want) <= 1e-9 * max(abs(want), 1e-12), "%s: %r, run.json says %r" % (what, got, want))
# The first scrape: the exporter's run metrics appear (30 s at most).
for _ in range(300):
    try:
        if query('ovlperf_run_complete{job="ovlperf"}'):
            break
    except OSError:
        pass
    time.sleep(0.1)
else:
    need(False, "no ovlperf_run_complete after 30 s of scrapes")
need(one('up{job="ovlperf"}') == 1, "the scrape target is not up")
need(one('node_textfile_scrape_error') == 0, "the textfile collector reports a scrape error")
sc = run["scenario"]["name"]
need(one('ovlperf_run_complete{scenario="%s"}' % sc) == (1 if run["complete"] else 0), "run_complete")
close(one('ovlperf_run_trials'), len(run["trials"]), "run_trials")
s = run["summary"]
for t in s["tcp"]:
    sel = 'path="%s",streams="%d",stat="median"' % (t["path"], t["streams"])
    close(one('ovlperf_tcp_goodput_bytes_per_second{%s}' % sel), t["goodput_bps"]["median"] / 8,
          "TCP goodput " + sel)
    close(one('ovlperf_tcp_cpu_seconds_per_byte{%s}' % sel), t["cpu_s_per_gbit"]["median"] * 8e-9,
          "TCP CPU per byte " + sel)
for k in s["udp_knee"]:
    sel = 'path="%s",bytes="%d"' % (k["path"], k["len"])
    # a search that found no NDR (on a loaded machine the tiny run's may end
    # below its minimum) has no figure: then no series, never a 0; one that
    # lost at its minimum has the rate it lost at as an upper bound
    if k["ndr_bound"] == "none":
        need(not query('ovlperf_udp_ndr_bytes_per_second{%s}' % sel), "an NDR series for " + sel +
             ", whose search found none")
        need(not query('ovlperf_udp_ndr_bound{%s}' % sel), "an NDR bound series for " + sel +
             ", whose search found no NDR")
        continue
    fig = k["ndr_upper"] if k["ndr_bound"] == "upper_bound" else k["ndr_bps"]
    close(one('ovlperf_udp_ndr_bytes_per_second{%s,stat="median"}' % sel), fig["median"] / 8, "NDR " + sel)
    close(one('ovlperf_udp_ndr_bound{%s,bound="%s"}' % (sel, k["ndr_bound"])), 1, "NDR bound " + sel)
    close(one('sum(ovlperf_udp_ndr_bound{%s})' % sel), 1, "NDR bound states holding " + sel)
for d in s["delay"]:
    sel = 'path="%s",bytes="%d",load="%g"' % (d["path"], d["len"], d["load_pct"] / 100)
    close(one('ovlperf_udp_owd_seconds{%s,quantile="0.99"}' % sel), d["owd_p99_ms"]["median"] / 1e3,
          "OWD p99 " + sel)
    n = sum(t["udp"]["received"] for t in run["trials"] if t["kind"] == "delay" and t["status"] == 0 and
            run["paths"][t["path"]]["name"] == d["path"] and t["len"] == d["len"] and t["target_bps"] == d["load_bps"])
    close(one('ovlperf_udp_owd_seconds_count{%s}' % sel), n, "OWD count " + sel)
    close(one('ovlperf_udp_owd_load_bytes_per_second{bytes="%d",load="%g"}' % (d["len"], d["load_pct"] / 100)),
          d["load_bps"] / 8, "common load " + sel)
# A stable label set: no label holds a rate, a time or a bound outside the
# bound families.
for r in query('{__name__=~"ovlperf_.+"}'):
    m = r["metric"]
    need(not any(l in m for l in ("started_utc", "offered_bits_per_second", "verdict")),
         "a label that changes from run to run: %s" % m)
    need("bound" not in m or m["__name__"].endswith("_bound"), "a bound as a label: %s" % m)
print("prometheus: %d series read back" % len(query('{__name__=~"ovlperf_.+"}')))
PY
ok "Prometheus scraped the textfile collector: figures equal run.json's, no scrape error, stable labels"
echo "$TEST_NAME: $CHECKS checks passed"
