#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ovlperf run --iperf3-json` (lab "ijr"): every trial of the run also as
# iperf3's -J document in the results directory's iperf3/, one per trial of
# run.json, each shaped as real iperf3 writes that protocol's document (the
# references come from iperf3 on a second lab, "ijq"), its figures the
# trial's.
source "$(dirname "$0")/lib.sh"
SHAPE="$(dirname "$0")/iperf3_shape.py"

command -v iperf3 >/dev/null || fail "iperf3 is not installed"
WORK=$(mktemp -d /tmp/ovlperf-run-iperf3.XXXXXX)
on_exit "rm -rf '$WORK'"
on_exit "\"$OVLPERF\" lab down ijr"
"$OVLPERF" lab down ijr >/dev/null 2>&1 || true
cat >"$WORK/s.ini" <<'INI'
[scenario]
name = iperf3-json
repetitions = 1
duration = 500ms

[lab]
name = ijr

[path.underlay]
type = underlay

[tcp]
streams = 1,2
duration = 500ms

[udp]
sizes = 1400
duration = 500ms

[knee]
max_rate = 200M
min_rate = 5M
loss_goal = 5
width_goal = 40
short = 200ms
final = 400ms
max_trials = 8

[mtu]
base = 1200
probes = 2
timeout = 300ms
INI
"$OVLPERF" run --no-progress --no-plots --iperf3-json --out "$WORK/r" "$WORK/s.ini" \
	>"$WORK/stdout" 2>"$WORK/stderr" || fail "ovlperf run: $(tail -5 "$WORK/stderr")"
ok "ovlperf run --iperf3-json exits 0"

# references: real iperf3 on a lab path of its own
lab_pair ijq
listener_in "$B" "$WORK/iperf3-server.log" 5201 iperf3 -s -p 5201
in_a iperf3 -c 198.18.0.2 -p 5201 -J -t 1 >"$WORK/ref-tcp.json" || fail "iperf3 TCP"
in_a iperf3 -c 198.18.0.2 -p 5201 -J -t 1 -u -b 10M >"$WORK/ref-udp.json" || fail "iperf3 UDP"

python3 - "$WORK/r" "$WORK/ref-tcp.json" "$WORK/ref-udp.json" "$SHAPE" <<'PY' || fail "iperf3/ documents"
import glob, json, os, sys, importlib.util
spec = importlib.util.spec_from_file_location("shape", sys.argv[4])
shape = importlib.util.module_from_spec(spec); spec.loader.exec_module(shape)
run = json.load(open(os.path.join(sys.argv[1], "run.json")))
ref = {"TCP": json.load(open(sys.argv[2])), "UDP": json.load(open(sys.argv[3]))}
files = sorted(glob.glob(os.path.join(sys.argv[1], "iperf3", "*.json")))
assert run["trials"], "the run recorded no trial"
assert len(files) >= len(run["trials"]), f"{len(files)} documents for {len(run['trials'])} trials"
numbers = {int(os.path.basename(f)[:3]) for f in files}
missing = {t["seq"] for t in run["trials"]} - numbers
assert not missing, f"trials {sorted(missing)} have no document ({sorted(numbers)})"
kinds = set()
for f in files:
    d = json.load(open(f))
    proto = d["start"]["test_start"]["protocol"]
    kinds.add(os.path.basename(f).split("-")[2])
    errs = []
    shape.compare(ref[proto], d, "", errs)
    assert not errs, f"{f}: {errs}"
    assert d["ovlperf"]["load"]["schema"] == "ovlperf.load", f
assert {"tcp", "knee", "delay"} <= kinds, kinds
# the figures are the trials': the TCP goodput of each document is a trial's
tcp = sorted(t["tcp"]["goodput_bps"] for t in run["trials"] if t["kind"] == "tcp")
docs = sorted(json.load(open(f))["ovlperf"]["load"]["tcp"]["goodput_bps"]
              for f in files if "-tcp-" in f)
assert tcp == docs, (tcp, docs)
print(f"{len(files)} documents for {len(run['trials'])} trials, kinds {sorted(kinds)}")
PY
ok "iperf3/: a document per trial, each shaped as iperf3's, with the trial's figures"
echo "$TEST_NAME: $CHECKS checks passed"
