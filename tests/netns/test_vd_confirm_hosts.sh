#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: lanes
# run --confirm between real hosts, IPv4 and IPv6: two namespaces that are
# not an ovlperf lab (nbc-h the client, nbs-h the server, lib.sh
# link_hosts) joined by a userspace link of 10 ms each way at 200 Mbit/s
# (`ovlperf link run`), `ovlperf server` on the far one, whose
# net.ipv4.tcp_rmem maximum is 128 KiB (set by this test, its owner: at
# the half of it the kernel advertises, about 26 Mbit/s at the 20 ms round
# trip). The [host.far] run's TCP verdict is the receive window; the far
# host's sysctl is not ovlperf's to change, so --confirm reruns with the
# test's own -w, within the far host's net.core.rmem_max (which caps
# SO_RCVBUF there, and which it names), and the figure moves: a tenth or
# more, and the limit is no longer the window. The far host's tcp_rmem is
# the same after the run as before. Never on speed: only "rose".
source "$(dirname "$0")/lib.sh"

C=nbc-h S=nbs-h L=nbl-h
DIR=$(mktemp -d /tmp/ovlperf-confirm-hosts.XXXXXX)
on_exit "rm -rf '$DIR'"
link_hosts "$C" "$S" "$L" 44
link_run_in "$L" "$DIR/link" "$DIR/link.log" --delay 10ms --rate 200M
ip netns exec "$S" sysctl -qw net.ipv4.tcp_rmem="4096 65536 131072"
RMEM=$(ip netns exec "$S" sysctl -n net.ipv4.tcp_rmem)
CORE=$(ip netns exec "$S" sysctl -n net.core.rmem_max)
server_in "$S" "$DIR/server.log" server

for fam in 4 6; do
	addr=198.18.44.2
	[ $fam = 6 ] && addr=2001:2:0:44::2
	printf '%s\n' "[scenario]" "name = nbch$fam" "repetitions = 1" "duration = 3s" \
		"[host.far]" "address = $addr" "[path.underlay]" "type = underlay" "host = far" \
		"[tcp]" "streams = 1" "[udp]" "enabled = no" >"$DIR/c$fam.ini"
	ip netns exec "$C" "$OVLPERF" run --confirm --no-progress --no-plots --out "$DIR/r$fam" \
		"$DIR/c$fam.ini" >"$DIR/r$fam.out" 2>"$DIR/r$fam.err" ||
		fail "IPv$fam: run --confirm exited non-zero: $(tail -3 "$DIR/r$fam.err")"
	python3 - "$DIR/r$fam/run.json" "$CORE" >"$DIR/c$fam.check" <<-'PY'
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	core = int(sys.argv[2])
	c = d.get("confirm", [])
	if len(c) != 1:
	    print("BAD confirm: %s" % c)
	    sys.exit()
	c = c[0]
	m = re.match(r"-w (\d+) \(within the net.core.rmem_max of the receiving host, (\d+) B\)$",
	             c["applied"])
	bad = [] if m else ["applied %r" % c["applied"]]
	if m and not (0 < int(m.group(1)) <= int(m.group(2)) == core):
	    bad.append("-w %s beyond the far host's net.core.rmem_max %d" % (m.group(1), core))
	if c["limit_before"] != "receive window":
	    bad.append("limit before %r" % c["limit_before"])
	if c["after_bps"] < 1.1 * c["before_bps"]:
	    bad.append("not moved: %s" % c)
	if c["limit_after"] in ("receive window", ""):
	    bad.append("limit after %r" % c["limit_after"])
	print(("BAD " + "; ".join(bad)) if bad else "OK %.3g -> %.3g bit/s, %s -> %s, %s" % (
	    c["before_bps"], c["after_bps"], c["limit_before"], c["limit_after"], c["applied"]))
	PY
	grep -q '^OK' "$DIR/c$fam.check" ||
		{ grep -A3 "TCP limited by" "$DIR/r$fam.out"; fail "IPv$fam: $(cat "$DIR/c$fam.check")"; }
	ok "IPv$fam: rerun with the test's own -w: $(cut -d' ' -f2- "$DIR/c$fam.check")"
	grep -q "rerun with the fix (--confirm): confirmed: +" "$DIR/r$fam.out" ||
		fail "IPv$fam: the report does not say it: $(grep -A3 'TCP limited by' "$DIR/r$fam.out")"
	ok "IPv$fam: the report says $(grep -o 'confirmed: +[0-9]* %' "$DIR/r$fam.out")"
	expect_eq "IPv$fam: the far host's net.ipv4.tcp_rmem after the run" \
		"$(ip netns exec "$S" sysctl -n net.ipv4.tcp_rmem)" "$RMEM"
done
echo "$TEST_NAME: $CHECKS checks passed"
