#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ovlperf run` end to end on a tiny scenario (tests/netns/tiny.ini, lab "ru"):
# underlay and built-in overlay, TCP, knee search and delay phases. Checks the
# results directory (run.json content, summary.csv, report.md, valid SVGs),
# that the lab, tunnel and server are gone afterwards, and `ovlperf report`
# re-rendering and comparing.
source "$(dirname "$0")/lib.sh"

TAG="ovlperf-run-tiny-$$"
OUT=$(mktemp -d /tmp/ovlperf-run-tiny.XXXXXX)
on_exit "rm -rf '$OUT'"
on_exit "\"$OVLPERF\" lab down ru"
"$OVLPERF" lab down ru >/dev/null 2>&1 || true

# Every process the run starts inherits this variable: leftovers are findable.
tagged() { grep -l "OVLPERF_TEST_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null | grep -v "/proc/$$/" || true; }

rc=0
OVLPERF_TEST_TAG=$TAG "$OVLPERF" run --no-progress --out "$OUT/r" tests/netns/tiny.ini \
	>"$OUT/stdout" 2>"$OUT/stderr" || rc=$?
[ "$rc" -eq 0 ] || { cat "$OUT/stderr" >&2; fail "ovlperf run exited $rc"; }
ok "ovlperf run tiny.ini exits 0"

for f in run.json summary.csv report.md; do
	[ -s "$OUT/r/$f" ] || fail "$f missing or empty"
done
[ -e "$OUT/r/server.log" ] || fail "server.log missing"
ok "run.json, summary.csv, report.md, server.log written"

python3 - "$OUT/r/run.json" <<'PY' || fail "run.json content (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
def need(cond, what):
    if not cond:
        print("run.json:", what, file=sys.stderr); sys.exit(1)
need(d["schema"] == "ovlperf.run" and d["schema_version"] == 2 and d["complete"] is True,
     "schema ovlperf.run version 2 and complete")
need([p["kind"] for p in d["paths"]] == ["underlay", "builtin"], "paths underlay + builtin")
need(d["paths"][0]["addr"] == "198.18.0.2" and d["paths"][1]["addr"] == "198.19.0.2", "addresses")
c = d["paths"][1].get("cipher", {})
need(c.get("name") in ("aes256gcm", "chacha20poly1305") and c.get("by") == "negotiated"
     and c.get("impl") in ("openssl", "libsodium") and c.get("order") == "measured",
     "the overlay's data cipher, negotiated, from its daemon: %r" % c)
need("cipher" not in d["paths"][0], "no cipher on the underlay")
need(d["host"]["kernel"].startswith("Linux") and d["host"]["cpu"], "kernel and CPU")
need("[scenario]" in d["scenario"]["text"], "scenario text")
kinds = {t["kind"] for t in d["trials"]}
need({"tcp", "knee", "delay"} <= kinds, "tcp, knee and delay trials: %s" % kinds)
# identical loads interleaved: the first two trials are the same load on path 0 then 1
t0, t1 = d["trials"][0], d["trials"][1]
need(t0["path"] == 0 and t1["path"] == 1 and t0["streams"] == t1["streams"], "interleaved A,B")
knees = {k["path"]: k for k in d["summary"]["udp_knee"] for _ in [0]} if False else {}
for k in d["summary"]["udp_knee"]:
    knees[k["path"]] = k
need(set(knees) == {"underlay", "overlay"}, "a knee summary per path")
paths = [p["name"] for p in d["paths"]]
for name, k in knees.items():
    ktrials = [t for t in d["trials"] if t["kind"] == "knee" and paths[t["path"]] == name]
    seen = ", ".join("%.0fM %s%s" % (t["target_bps"] / 1e6,
                                     "lost %.1f %%" % (100 * t["udp"]["lost"] / t["udp"]["sent"])
                                     if t["status"] == 0 and t["udp"]["sent"] else "failed",
                                     " short" if t["udp"].get("generator_limited") else "")
                     for t in ktrials)
    # a PDR, or honestly none: below-min when its trials at the minimum
    # lost more than the goal (a loaded machine's overlay can)
    lowest = [t for t in ktrials if t["target_bps"] == min(x["target_bps"] for x in ktrials)]
    below = k["pdr_outcome"] == "below-min" and lowest and all(
        t["status"] == 0 and t["udp"]["sent"] and t["udp"]["lost"] / t["udp"]["sent"] > 0.05
        for t in lowest)
    need((k["pdr_bps"]["n"] >= 1 and k["pdr_bps"]["median"] > 0) or below,
         "%s: a PDR (outcome %s; trials: %s)" % (name, k["pdr_outcome"], seen))
    need(k["ndr_bps"]["n"] >= 1 or k["ndr_outcome"] == "below-min", name + ": an NDR or below-min")
    need(k["trials"] >= 1, name + ": trials counted")
# every delay trial says how long its receiver's socket held the datagrams,
# a share of the one-way delay (1 ms of slack: two clocks read apart)
for t in (t for t in d["trials"] if t["kind"] == "delay" and t["status"] == 0):
    o, w = t["udp"]["owd"], t["udp"].get("rx_wait", {})
    need(w.get("valid") and w["error_ns"] == 0, "delay trial without rx_wait: %s" % w)
    need(all(w[k] <= o[k] + 1000000 for k in ("p50_ns", "p99_ns", "max_ns")),
         "rx_wait above the delay: %s vs %s" % (w, o))
for p in d["summary"]["delay"]:
    need(p["rx_wait_p99_ms"]["n"] == p["owd_p99_ms"]["n"] >= 1, "rx_wait_p99_ms: %s" % p)
metrics = {(o["metric"], o["path"]) for o in d["overhead"] if o["ratio"] is not None}
for m in ("tcp_goodput_bps", "udp_pdr_bps", "tcp_mss", "owd_p50_ms"):
    need((m, "overlay") in metrics, "overhead ratio " + m)
mss = [o for o in d["overhead"] if o["metric"] == "tcp_mss"][0]
need(mss["underlay"] == 1448 and mss["overlay"] < 1448, "MSS 1448 on the underlay, less inside")
v = {(d["paths"][m["path"]]["name"], m["check"]): m for m in d["mtu"]}
need(v[("underlay", "pmtu")]["verdict"] == "OK" and v[("underlay", "pmtu")]["value"] == 1500,
     "underlay PMTU 1500 OK")
need(v[("overlay", "pmtu")]["value"] == 1440, "overlay PMTU 1440 (1500 - 60)")
need(v[("overlay", "tunnel")]["verdict"] == "OK", "tunnel verdict OK")
print("run.json: %d trials, knees %s" % (len(d["trials"]),
      {n: (k["ndr_bps"]["median"], k["pdr_bps"]["median"]) for n, k in knees.items()}))
PY
ok "run.json: complete, both paths, interleaved, PDR/NDR per path, overhead ratios, MSS, MTU verdicts"

nsvg=0
for svg in "$OUT"/r/*.svg; do
	[ -e "$svg" ] || continue
	python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(0 if r.tag.endswith("svg") else 1)' "$svg" \
		|| fail "$svg is not a valid SVG document"
	nsvg=$((nsvg + 1))
done
expect_eq "SVG plots (valid XML)" "$nsvg" 3
grep -q '!\[.*\](delivered.svg)' "$OUT/r/report.md" || fail "report.md does not link delivered.svg"
grep -q "NDR underlay 1400 B" "$OUT/r/delivered.svg" || fail "knee not marked in delivered.svg"
ok "report.md links the plots; the knee is marked"

grep -q '^udp_pdr_bps,overlay,builtin,,1400,' "$OUT/r/summary.csv" || fail "summary.csv lacks the overlay PDR"
grep -q '^Summary: medians' "$OUT/stdout" || fail "no summary table on stdout"
grep -Eq '^  TCP 1 stream .* x[0-9]+\.[0-9]{2}' "$OUT/stdout" || fail "no overhead ratio in the summary"
grep -q 'offered payload | RX/TX pps' "$OUT/stdout" || fail "no sweep table on stdout"
grep -q 'MTU / MSS checks' "$OUT/stdout" || fail "no MTU verdicts on stdout"
ok "summary.csv rows; terminal summary with overhead ratios and offered-load tables"

expect_eq "lab namespaces left" "$(ip netns list 2>/dev/null | grep -c '^ovp-ru-' || true)" 0
[ ! -e /run/ovlperf/labs/ru ] || fail "lab state file left behind"
expect_eq "processes of the run left" "$(tagged | wc -l)" 0

# Re-render from run.json alone, and compare the run with itself.
rm -f "$OUT"/r/summary.csv "$OUT"/r/*.svg
"$OVLPERF" report "$OUT/r" >"$OUT/report.out" || fail "ovlperf report exited $?"
[ -s "$OUT/r/summary.csv" ] && [ -e "$OUT/r/delivered.svg" ] || fail "report did not re-render"
cmp -s <(grep -v '^results:' "$OUT/report.out") <(grep -v '^results:' "$OUT/stdout") \
	|| fail "report's summary differs from the run's"
ok "ovlperf report DIR re-renders the same summary and files"
"$OVLPERF" report "$OUT/r" "$OUT/r" >"$OUT/cmp.out" || fail "ovlperf report DIR DIR exited $?"
grep -q 'UDP PDR' "$OUT/cmp.out" || fail "comparison lacks UDP PDR"
grep -Eq '^\s+TCP goodput\s+overlay .*\+0\.0%' "$OUT/cmp.out" || fail "self-comparison is not +0.0%"
ok "ovlperf report DIR DIR compares figure by figure"
# Real hosts instead of a lab: a server on this machine's loopback, reached
# over IPv4 and IPv6 as a [host.*] scenario (no namespaces, no overlay).
PORT=$((20000 + $$ % 20000))
"$OVLPERF" server -p "$PORT" 2>"$OUT/lo-server.log" &
SRV=$!
on_exit "kill $SRV"
for _ in $(seq 1 100); do
	ss -ltn 2>/dev/null | grep -q ":$PORT " && break
	sleep 0.05
done
cat >"$OUT/lo.ini" <<INI
[scenario]
name = loopback
repetitions = 2
duration = 300ms

[host.self]
address = 127.0.0.1
port = $PORT

[path.v4]
type = underlay

[path.v6]
type = external
address = ::1
family = 6

[tcp]
streams = 1

[udp]
sizes = 1000
rate = 20M
INI
rc=0
"$OVLPERF" run --no-progress --no-plots --out "$OUT/lo" "$OUT/lo.ini" >"$OUT/lo.out" 2>"$OUT/lo.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$OUT/lo.err" >&2; fail "loopback run exited $rc"; }
python3 - "$OUT/lo/run.json" <<'PY' || fail "loopback run.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is True
assert [p["addr"] for p in d["paths"]] == ["127.0.0.1", "::1"]
ok = [t for t in d["trials"] if t["status"] == 0]
assert len(ok) == 8, len(ok)    # 2 reps x (TCP + delay) x 2 paths
assert all(t["host_cpu_s"] == 0 for t in ok), "host CPU is a lab figure"
delay = [t for t in ok if t["kind"] == "delay"]
assert {t["target_bps"] for t in delay} == {20000000}
PY
ok "a [host.*] scenario against a server on loopback (IPv4 and IPv6 paths)"
echo "$TEST_NAME: $CHECKS checks passed"
