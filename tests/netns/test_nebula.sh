#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 31
# Nebula as a user runs it (Debian's nebula 1.6, nebula_path.sh: its own
# CA and certificates, static_host_map, no lighthouse), between two plain
# namespaces that are not an ovlperf lab (nbc-n the client, nbs-n the
# server, 198.18.42.2/.1 and 2001:2:0:42::2/::1), `ovlperf server` on the
# far one and a [host.far] scenario with an external path through Nebula,
# named nowhere (no process =). Nebula 1.6 carries only IPv4 inside (its
# certificates hold one IPv4 address): its inner 198.19.7.0/24 over an
# IPv4 underlay, then over an IPv6 one. On each:
#   - both ends find Nebula by its TUN (the far end through the server's
#     host facts): its pid, TUN and UDP port (4242 at the server), its
#     busiest thread; and only it: a decoy on the client's host with a UDP
#     socket connected to the far host's underlay address (as the built-in
#     overlay's daemon has, left up beside another VPN to the same host)
#     is not this path's VPN;
#   - on this machine's cores Nebula is the path's CPU (its threads and
#     the ends' share them; its own UDP socket and TUN overflow first):
#     the TCP and NDR verdicts name its process and busiest thread, and no
#     line of the run says "network rate";
#   - its TUN's tx drops under a UDP load it cannot carry, counted by the
#     client's host facts against `ip -s link` (lib.sh tun_txdrop_check).
source "$(dirname "$0")/lib.sh"

command -v nebula >/dev/null && command -v nebula-cert >/dev/null ||
	fail "nebula and nebula-cert are needed (make deps)"
C=nbc-n S=nbs-n
DIR=$(mktemp -d /tmp/ovlperf-nebula.XXXXXX)
on_exit "rm -rf '$DIR'"
plain_pair "$C" "$S" nbc0 nbs0 42
server_in "$S" "$DIR/server.log" server
NB="bash $(dirname "$0")/nebula_path.sh"

for fam in 4 6; do
	saddr=198.18.42.1
	[ $fam = 6 ] && saddr=2001:2:0:42::1
	name=nb$fam
	on_exit "$NB down $name '$DIR'"
	$NB up $name "$C" "$S" $saddr "$DIR" || fail "IPv$fam underlay: Nebula did not come up"
	# the decoy: a socket connected to the far host, sending nothing
	ip netns exec "$C" python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
s.connect((sys.argv[1], 9))
time.sleep(600)' $saddr &
	decoy=$!
	on_exit "kill $decoy 2>/dev/null"
	cat >"$DIR/$name.ini" <<-INI
	[scenario]
	name = $name
	repetitions = 1

	[host.far]
	address = $saddr

	[path.nebula]
	type = external
	host = far
	address = 198.19.7.2

	[tcp]
	streams = 1
	duration = 2s

	[udp]
	sizes = 1200
	duration = 1s
	delay_loads = 50%

	[knee]
	max_rate = 2G
	short = 300ms
	final = 500ms
	duration_sum = 500ms
	width_goal = 10
	max_time = 5s
	fit_trials = 0
	INI
	ip netns exec "$C" "$OVLPERF" run --no-progress --no-plots "$DIR/$name.ini" \
		-o "$DIR/$name" >"$DIR/$name.out" 2>"$DIR/$name.err" ||
		fail "IPv$fam underlay: the run failed: $(tail -3 "$DIR/$name.err")"
	python3 - "$DIR"/$name/*/run.json "$(cat "$DIR/${name}c.pid")" "$(cat "$DIR/${name}s.pid")" \
		$name >"$DIR/$name.check" <<-'PY'
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	pids, name = {"client": int(sys.argv[2]), "server": int(sys.argv[3])}, sys.argv[4]
	bad, out = [], []
	t = [t for t in d["trials"] if t["kind"] == "tcp"][0]
	for end, pid in pids.items():
	    f = t["host_facts"][end]
	    p = [p for p in f.get("processes", []) if p["pid"] == pid]
	    if len(f.get("processes", [])) != 1:
	        bad.append("%s: not Nebula alone: %s" % (end, f.get("processes")))
	    tun = name + end[0]
	    if not f["known"] or len(p) != 1:
	        bad.append("%s: nebula %d not found: %s" % (end, pid, f.get("processes")))
	        continue
	    p = p[0]
	    if (p["found_by"] != ["tun"] or p["tun"] != tun or p["comm"] != "nebula"
	            or not p["busiest_thread"] or not 0 < p["busiest_cores"] <= p["cores"] + 1e-6
	            or (end == "server" and p["udp_port"] != 4242)):
	        bad.append("%s: %s" % (end, p))
	    out.append("%s: nebula by %s on %s, UDP %d, busiest %s %.2f" % (
	        end, p["found_by"], p["tun"], p["udp_port"], p["busiest_thread"], p["busiest_cores"]))
	for l in d["summary"]["limits"]:
	    text = "%s: %s; fix: %s" % (l["limit"], l["evidence"], l["fix"])
	    # the process and its busiest thread (every Nebula thread is
	    # "nebula"): "nebula's busiest thread nebula", "thread nebula on
	    # ..., in process nebula", "busiest thread, nebula (process nebula)"
	    # (a sender's limit beside it: "busiest thread meanwhile, ...")
	    named = re.search(r"nebula's busiest thread nebula|thread nebula .*process nebula|"
	                      r"busiest thread(?: meanwhile)?, nebula \(process nebula\)|"
	                      r"\(nebula, its busiest thread nebula", l["evidence"])
	    if l["limit"].startswith("network") or "network rate" in text or not named:
	        bad.append("%s verdict: %s" % (l["figure"], text))
	    out.append("%s: %s" % (l["figure"], l["limit"]))
	if sorted(l["figure"] for l in d["summary"]["limits"]) != ["ndr", "tcp"]:
	    bad.append("verdicts: %s" % [l["figure"] for l in d["summary"]["limits"]])
	print("BAD " + "; ".join(bad) if bad else "OK " + "; ".join(out))
	PY
	grep -q '^OK' "$DIR/$name.check" ||
		{ grep -A2 "limited by" "$DIR/$name.out"; fail "IPv$fam underlay: $(cat "$DIR/$name.check")"; }
	ok "IPv$fam underlay: $(cut -d' ' -f2- "$DIR/$name.check")"
	grep -q "network rate" "$DIR/$name.out" &&
		fail "IPv$fam underlay: the run says network rate: $(grep 'network rate' "$DIR/$name.out")"
	ok "IPv$fam underlay: no line of the run says network rate"
	tun_txdrop_check "$C" ${name}c 198.19.7.2 "$DIR"
	kill $decoy
	$NB down $name "$DIR"
done
echo "$TEST_NAME: $CHECKS checks passed"
