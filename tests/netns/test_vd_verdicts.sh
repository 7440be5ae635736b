#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 23
# Verdicts that follow the evidence between two hosts that are not an
# ovlperf lab (remote_lib.sh, namespaces vdc-v, vdr-v, vds-v), IPv4 and
# IPv6, each cause known by construction:
#   a 300 Mbit/s tbf on the router's way to the server: the underlay's TCP
#     is "network rate" (its ends' threads reported, no overlay on it);
#   the built-in overlay's far daemon held at 15 % of a core by a cgroup
#     (v1 cpu, vd-quota: its throttling checked in its own cpu.stat): the
#     run's TCP verdict for the overlay never says "network rate": "loss"
#     at the daemons' own drops (counted over the test, ovlperf tunnel
#     show's drop.*), or "unknown" with why (the server reports no host
#     facts, so the far daemon's CPU is not read);
#   an `ovlperf client` over the underlay with the tbf: its own verdict
#     names the queue's cause only where its counters saw it: "network
#     rate" when the server reports its host's facts (every thread read,
#     none at a core), "unknown" with the far host's CPU not reported and
#     the server's version when it does not (--no-host-facts), exit 0.
source "$(dirname "$0")/lib.sh"
RO_NAME=vd
source "$(dirname "$0")/remote_lib.sh" v

DIR=$(mktemp -d /tmp/ovlperf-vd-verdicts.XXXXXX)
on_exit "rm -rf '$DIR'"
ro_hosts
(umask 077 && head -c 32 /dev/urandom | base64 >"$DIR/psk")
server_in "$RS" "$DIR/server.log" server --psk-file "$DIR/psk" --overlay \
	--overlay-state "$DIR/state"
ip netns exec "$RR" tc qdisc add dev rs1 root tbf rate 300mbit burst 64kb latency 20ms

# scenario NAME FAMILY ADDR PATH-TYPE: one path, TCP only
scenario()
{
	cat >"$DIR/$1.ini" <<-INI
	[scenario]
	name = $1
	repetitions = 1

	[host.far]
	address = $3
	psk_file = $DIR/psk

	[path.p]
	type = $4
	host = far
	family = $2

	[tcp]
	streams = 1
	duration = 2s

	[udp]
	enabled = no
	INI
}

# limit RUNDIR: the TCP verdict of path p in run.json, "name|evidence"
limit()
{
	python3 - "$1"/run.json <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	l = [l for l in d["summary"]["limits"] if l["figure"] == "tcp"]
	print("%s|%s|%s" % (l[0]["limit"], l[0]["evidence"], l[0]["fix"]) if l else "none||")
	PY
}

for fam in 4 6; do
	addr=$SADDR4
	[ $fam = 6 ] && addr=$SADDR6
	scenario "u$fam" $fam $addr underlay
	ip netns exec "$RC" "$OVLPERF" run "$DIR/u$fam.ini" --out "$DIR/u$fam" >"$DIR/u$fam.txt" \
		2>"$DIR/u$fam.err" || { cat "$DIR/u$fam.err"; fail "IPv$fam underlay run exited non-zero"; }
	l=$(limit "$DIR/u$fam")
	expect_eq "IPv$fam: the underlay through a 300 Mbit/s tbf on the router" "${l%%|*}" "network rate"
done

# the far daemon (a process of the server's host with a thread ovl-tx0)
# into a 15 % quota as soon as the run brings the overlay up
CG=/sys/fs/cgroup/cpu
if [ -w "$CG/cgroup.procs" ]; then
	q=$CG/vd-quota
	mkdir "$q"
	on_exit "rmdir $q"
	echo 100000 >"$q/cpu.cfs_period_us"
	echo 15000 >"$q/cpu.cfs_quota_us"
	for fam in 4 6; do
		addr=$SADDR4
		[ $fam = 6 ] && addr=$SADDR6
		scenario "b$fam" $fam $addr builtin
		cg_move_thread "$RS" ovl-tx0 "$q"
		n0=$(awk '$1 == "nr_throttled" {print $2}' "$q/cpu.stat")
		ip netns exec "$RC" "$OVLPERF" run "$DIR/b$fam.ini" --out "$DIR/b$fam" \
			>"$DIR/b$fam.txt" 2>"$DIR/b$fam.err" ||
			{ cat "$DIR/b$fam.err"; fail "IPv$fam builtin run exited non-zero"; }
		wait $CG_MOVER || fail "IPv$fam: the far daemon was never moved into $q"
		n1=$(awk '$1 == "nr_throttled" {print $2}' "$q/cpu.stat")
		[ "$n1" -gt "$n0" ] || fail "IPv$fam: the far daemon was never throttled ($n0 -> $n1)"
		ok "IPv$fam: the far daemon throttled $((n1 - n0)) periods (cpu.stat)"
		l=$(limit "$DIR/b$fam")
		case "$l" in
		*"network rate"*) fail "IPv$fam: a far daemon at its quota called the network's rate: $l" ;;
		loss*) [[ "$l" == *"dropped at the built-in overlay's daemons"* ]] ||
			fail "IPv$fam: a loss verdict not at the daemons that dropped: $l" ;;
		unknown*) [[ "$l" == *"far host's CPU"*"not reported"* ]] ||
			fail "IPv$fam: unknown, but not why: $l" ;;
		*) fail "IPv$fam: neither the daemons' drops nor the unknown CPU: $l" ;;
		esac
		ok "IPv$fam: the far daemon at its 15 % quota is not called the network's rate: $l"
		grep -q "network rate" "$DIR/b$fam.txt" &&
			fail "IPv$fam: the run's report says network rate: $(grep -n 'network rate' "$DIR/b$fam.txt")"
		ok "IPv$fam: no line of the run's report says network rate"
	done
else
	echo "# no writable cgroup v1 cpu controller: the quota case is not run"
fi

# ovlperf client's own verdict through the tbf: the queue is the shaper's
# on the router, which neither end sees. With a server that reports its
# host's facts every thread on the path is read and none is at a core:
# network rate. With one that does not (--no-host-facts answers as an older
# server), the far host's CPU is unknown: unknown, and why, exit 0.
# client_says WHAT PATTERN: the client's verdict to each address matches
client_says()
{
	local addr
	for addr in $SADDR4 $SADDR6; do
		ip netns exec "$RC" "$OVLPERF" client "$addr" --psk-file "$DIR/psk" -t 2 \
			>"$DIR/c.txt" 2>"$DIR/c.err" || { cat "$DIR/c.err"; fail "client to $addr exited non-zero"; }
		grep -q "$2" "$DIR/c.txt" || fail "client to $addr: $(grep -A1 'limited by' "$DIR/c.txt")"
		ok "client to $addr, $1"
	done
}
client_says "a server with host facts: limited by: network rate" "limited by: network rate"
kill "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
server_in "$RS" "$DIR/old.log" server --psk-file "$DIR/psk" --no-host-facts
client_says "an older server: limited by: unknown, the far host's CPU not reported" \
	"limited by: unknown (.*the far host's CPU: not reported by server ovlperf "
