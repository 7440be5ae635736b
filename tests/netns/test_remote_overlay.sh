#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 106
# The built-in overlay between two real hosts, played by namespaces that are
# not an ovlperf lab (remote_lib.sh): the client behind a masquerading NAT,
# the server behind an nftables input policy of drop that accepts only
# TCP/UDP 5211 (and UDP 51820 for the external wireguard-go path).
# `ovlperf server --overlay` brings up its end for `ovlperf run` of a
# [host.*] scenario with underlay, builtin and external paths, IPv4 and
# IPv6; a figure of the run checks against the server daemon's own
# counters. The overlay goes down at both ends when the client is killed
# (SIGKILL), vanishes without a FIN (TCP keepalive, OVERLAY_DEAD_S) or is
# stopped (SIGINT), and the server then serves the next client; a killed
# server's daemon dies with it and its state file is cleared at its next
# start; SIGTERM takes the server's overlays down. Route collisions at
# either end, overlay_subnets and --overlay-max are checked too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/remote_lib.sh" t

DIR=$(mktemp -d /tmp/ovlperf-remote-ovl.XXXXXX)
on_exit "rm -rf '$DIR'"
ro_hosts
(umask 077 && head -c 32 /dev/urandom | base64 >"$DIR/psk")
IFS_SERVER=ovs5211-0
WG="bash $PWD/tests/netns/remote_wg.sh"
SERVER=
RUNPID=
POLLPID=
on_exit '[ -n "$POLLPID" ] && kill $POLLPID'
on_exit '[ -n "$RUNPID" ] && kill -KILL $RUNPID'
on_exit '[ -n "$SERVER" ] && kill $SERVER && wait $SERVER'
on_exit "$WG down rowg4 '$DIR'"
on_exit "$WG down rowg6 '$DIR'"

start_server()
{
	server_in "$RS" "$DIR/server.log" -v server --psk-file "$DIR/psk" --overlay \
		--overlay-max 2 --overlay-state "$DIR/state"
	SERVER=$SERVER_PID
}

# scenario NAME FAMILY ADDR WG_ENDPOINT: underlay, builtin and wireguard-go paths
scenario()
{
	local wgaddr=198.19.6.2 wg=rowg4
	[ "$2" = 6 ] && wgaddr=2001:2:0:66::2 wg=rowg6
	cat >"$DIR/$1.ini" <<-INI
	[scenario]
	name = $1
	repetitions = 1
	duration = 1s

	[host.far]
	address = $3
	psk_file = $DIR/psk

	[path.builtin]
	type = builtin
	host = far
	family = $2

	[path.underlay]
	type = underlay
	host = far
	family = $2

	[path.wg]
	type = external
	host = far
	family = $2
	address = $wgaddr
	setup = $WG up $wg $RC $RS $4 $DIR
	teardown = $WG down $wg $DIR

	[tcp]
	streams = 1
	duration = 1s

	[udp]
	sizes = 1000
	rate = 20M
	duration = 1s
	INI
}

# builtin_only NAME DURATION [PATH-KEY-LINE]: one builtin IPv4 path, one TCP trial
builtin_only()
{
	cat >"$DIR/$1.ini" <<-INI
	[scenario]
	name = $1
	repetitions = 1

	[host.far]
	address = $SADDR4
	psk_file = $DIR/psk

	[path.builtin]
	type = builtin
	host = far
	${3:-}

	[tcp]
	streams = 1
	duration = $2
	INI
}

# json FILE PYTHON-EXPR: a value from run.json (d is the document)
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# The server daemon's counters while the run goes on: the last answer before
# the overlay goes down (the overlay idles through the later paths' trials).
poll_tunnel()
{
	set +e # the device may go between two commands
	while :; do
		ip netns exec "$RS" "$OVLPERF" tunnel show "$IFS_SERVER" >"$DIR/show.tmp" 2>/dev/null &&
			mv "$DIR/show.tmp" "$DIR/show.last" &&
			ip netns exec "$RS" ss -Hunp state established >>"$DIR/udp.txt" &&
			ip netns exec "$RS" cat "/proc/sys/net/ipv4/conf/$IFS_SERVER/forwarding" \
				>"$DIR/fwd.tmp" 2>/dev/null && mv "$DIR/fwd.tmp" "$DIR/fwd.txt"
		sleep 0.1
	done
}

counter() { awk -v k="$1:" '$1 == k { print $2; exit }' "$DIR/show.last"; }

# tunnel daemons running in the server's namespace
server_daemons()
{
	local p
	for p in $(ip netns pids "$RS"); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "tunnel up" && echo "$p"
	done
	return 0
}

server_overlay_gone()
{
	! ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 &&
		[ -z "$(server_daemons)" ] && [ ! -s "$DIR/state" ]
}

# A server host that routes: its overlay device must not forward
ip netns exec "$RS" sysctl -qw net.ipv4.ip_forward=1
start_server
ip netns exec "$RS" nft list ruleset >"$DIR/firewall.txt"

# --- IPv4: a run over the NAT and the firewall ---------------------------
scenario r4 4 "$SADDR4" "$SADDR4"
has "path builtin      builtin  IPv4 (overlay address from the server)" \
	ip netns exec "$RC" "$OVLPERF" run -n "$DIR/r4.ini" || fail "the dry run does not show the builtin path"
ok "the dry run shows the builtin path"
poll_tunnel &
POLLPID=$!
ip netns exec "$RC" "$OVLPERF" run "$DIR/r4.ini" --out "$DIR/r4" >"$DIR/r4.txt" 2>"$DIR/r4.err" ||
	fail "IPv4 run failed: $(tail -3 "$DIR/r4.err")"
{ kill $POLLPID && wait $POLLPID; } 2>/dev/null || true
POLLPID=
cat "$DIR/r4.txt"
expect_eq "IPv4 run complete" "$(json "$DIR/r4/run.json" "d['complete']")" True
expect_eq "IPv4 builtin path's address" "$(json "$DIR/r4/run.json" "d['paths'][0]['addr']")" \
	198.19.128.1
expect_eq "IPv4 trials without error" \
	"$(json "$DIR/r4/run.json" "sum(1 for t in d['trials'] if t['status'] == 0)")" 6
[ -s "$DIR/show.last" ] || fail "the server's daemon never answered 'tunnel show'"
# What the server received on the builtin path crossed its TUN device once,
# with its IP/TCP/UDP headers and the trials' control connections on top.
payload=$(json "$DIR/r4/run.json" "sum(t['tcp']['bytes'] if 'tcp' in t else t['udp']['received'] * t['len'] for t in d['trials'] if t['path'] == 0)")
tun=$(counter tun_tx_bytes)
expect_ge "server TUN bytes written ($tun) >= payload received on the builtin path" "$tun" "$payload"
expect_ge "... and not above twice that plus 4 MB" $((payload * 2 + 4000000)) "$tun"
expect_eq "server daemon's peer endpoint is the NAT's" \
	"$(awk '$1 == "endpoint:" { sub(":[0-9]+$", "", $2); print $2 }' "$DIR/show.last")" 198.18.31.1
# The daemon's underlay socket is the server's one port, connected to the NAT
grep -q "198\.18\.31\.2:5211 *198\.18\.31\.1:.*pid=$(awk '$1 == "pid:" { print $2 }' "$DIR/show.last")," \
	"$DIR/udp.txt" || fail "the server daemon's socket is not on UDP 5211: $(sort -u "$DIR/udp.txt")"
ok "the server daemon's underlay socket is UDP 5211, connected to the NAT's address"
expect_eq "IPv4 forwarding on the server's overlay device (host forwards)" "$(cat "$DIR/fwd.txt")" 0
for _ in $(seq 100); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the overlay stayed at the server after the run"
ok "the server's TUN device, daemon and state entry are gone after the run"
has "overlay on $IFS_SERVER down: the client is done" cat "$DIR/server.log" ||
	fail "the server did not log the client's OVERLAY_DOWN"
ok "the server took it down at the client's OVERLAY_DOWN"

# --- IPv6 -------------------------------------------------------------------
scenario r6 6 "$SADDR6" "[$SADDR6]"
ip netns exec "$RC" "$OVLPERF" run "$DIR/r6.ini" --out "$DIR/r6" >"$DIR/r6.txt" 2>"$DIR/r6.err" ||
	fail "IPv6 run failed: $(tail -3 "$DIR/r6.err")"
cat "$DIR/r6.txt"
expect_eq "IPv6 run complete" "$(json "$DIR/r6/run.json" "d['complete']")" True
expect_eq "IPv6 builtin path's address" "$(json "$DIR/r6/run.json" "d['paths'][0]['addr']")" \
	2001:2:0:80::1
expect_eq "IPv6 trials without error" \
	"$(json "$DIR/r6/run.json" "sum(1 for t in d['trials'] if t['status'] == 0)")" 6

# --- a client killed mid-run --------------------------------------------------
builtin_only long 30s
ip netns exec "$RC" "$OVLPERF" run "$DIR/long.ini" --out "$DIR/long" >/dev/null 2>&1 &
RUNPID=$!
for _ in $(seq 150); do ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 && break; sleep 0.1; done
ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 || fail "no overlay at the server for the long run"
sleep 1
{ kill -KILL $RUNPID && wait $RUNPID; } 2>/dev/null || true
RUNPID=
# The stated limit: OVERLAY_DEAD_S (20 s) of TCP keepalive
for _ in $(seq 200); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the server's overlay outlived a killed client by 20 s"
ok "a client killed with SIGKILL: the server's TUN device and daemon are gone"
[ -z "$(ip -n "$RC" -br link | grep '^ovc')" ] || fail "the killed client's TUN device stayed"
ok "... and the killed client's own daemon and TUN device too"
builtin_only next 1s
ip netns exec "$RC" "$OVLPERF" run "$DIR/next.ini" --out "$DIR/next" >/dev/null 2>"$DIR/next.err" ||
	fail "the next client got no overlay: $(tail -3 "$DIR/next.err")"
expect_eq "the next client's run over a new overlay" \
	"$(json "$DIR/next/run.json" "d['complete'] and d['paths'][0]['addr']")" 198.19.128.1

# --- a client that vanishes without a word: TCP keepalive --------------------
ip netns exec "$RC" "$OVLPERF" run "$DIR/long.ini" --out "$DIR/vanish" >/dev/null 2>"$DIR/vanish.err" &
RUNPID=$!
for _ in $(seq 150); do ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 && break; sleep 0.1; done
ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 ||
	fail "no overlay at the server for the vanishing client in 15 s: the run said: $(tail -3 "$DIR/vanish.err"); the server: $(tail -3 "$DIR/server.log")"
ip netns exec "$RR" nft -f - <<-'NFT'
	table inet roblk {
		chain blk {
			type filter hook forward priority filter; policy drop;
		}
	}
NFT
{ kill -KILL $RUNPID && wait $RUNPID; } 2>/dev/null || true
RUNPID=
t0=$(date +%s)
# OVERLAY_DEAD_S (20 s) after the last answer, then the daemon's stop (it
# gets OVERLAY_STOP_TIMEOUT_MS, 3 s, to leave on SIGTERM) and our polling
for _ in $(seq 240); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the server's overlay outlived a vanished client by 24 s"
ok "a client that vanished (FIN dropped): the overlay gone after $(($(date +%s) - t0)) s"
ip netns exec "$RR" nft delete table inet roblk

# --- Ctrl-C: the run takes its overlay down in order --------------------------
ip netns exec "$RC" "$OVLPERF" run "$DIR/long.ini" --out "$DIR/int" >/dev/null 2>&1 &
RUNPID=$!
for _ in $(seq 150); do [ -s "$DIR/state" ] && break; sleep 0.1; done
[ -s "$DIR/state" ] || fail "no overlay at the server before SIGINT"
downs=$(grep -c "down: the client is done" "$DIR/server.log" || true)
kill -INT $RUNPID
rc=0
wait $RUNPID || rc=$?
RUNPID=
expect_eq "exit status of a run stopped by SIGINT" "$rc" 130
for _ in $(seq 100); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the overlay stayed at the server after SIGINT"
expect_eq "the server saw the client's OVERLAY_DOWN" \
	"$(grep -c "down: the client is done" "$DIR/server.log")" $((downs + 1))
[ -z "$(ip -n "$RC" -br link | grep '^ovc')" ] || fail "the client's TUN device stayed after SIGINT"
ok "SIGINT: both ends' overlay devices are gone"

# --- a killed server: its daemon goes with it, its state file is cleaned ------
ip netns exec "$RC" "$OVLPERF" run "$DIR/long.ini" --out "$DIR/long2" >/dev/null 2>&1 &
RUNPID=$!
for _ in $(seq 150); do [ -s "$DIR/state" ] && break; sleep 0.1; done
[ -s "$DIR/state" ] || fail "the server's state file does not list its overlay"
{ kill -KILL $SERVER && wait $SERVER; } 2>/dev/null || true
SERVER=
{ wait $RUNPID; } 2>/dev/null || true
RUNPID=
for _ in $(seq 50); do ! ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 && break; sleep 0.1; done
! ip -n "$RS" link show "$IFS_SERVER" >/dev/null 2>&1 || fail "a killed server's TUN device stayed"
ok "a server killed with SIGKILL: its daemon and TUN device went with it"
start_server
[ ! -s "$DIR/state" ] || fail "the restarted server kept the dead server's state: $(cat "$DIR/state")"
ok "the restarted server cleared the dead server's state file"
ip netns exec "$RC" "$OVLPERF" run "$DIR/next.ini" --out "$DIR/next2" >/dev/null 2>"$DIR/next2.err" ||
	fail "the restarted server gave no overlay: $(tail -3 "$DIR/next2.err")"
ok "the restarted server brings up an overlay again"

# --- overlay subnets against both hosts' routes ------------------------------
# the last run's overlay gone at the server first: while its teardown
# still holds slot 0, the next overlay takes slot 1's subnet
# (198.19.129.0/24), which the route below does not touch (a fresh-clone
# CI's run was not refused so)
for _ in $(seq 100); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the last run's overlay stayed at the server"
ip -n "$RS" route add 198.19.128.0/24 via 198.18.31.1
! ip netns exec "$RC" "$OVLPERF" run "$DIR/next.ini" --out "$DIR/coll" >/dev/null 2>"$DIR/coll.err" ||
	fail "an overlay subnet the server routes elsewhere was not refused"
has "overlay subnet 198.19.128.0/24 collides with the route 198.19.128.0/24 via 198.18.31.1 dev rs0 table main on the server" \
	cat "$DIR/coll.err" || fail "the collision names no route: $(cat "$DIR/coll.err")"
ok "a collision with a server route is refused, naming the route"
builtin_only chosen 1s "overlay_subnets = 198.19.210.0/24, 2001:2:0:fa::/64"
ip netns exec "$RC" "$OVLPERF" run "$DIR/chosen.ini" --out "$DIR/chosen" >/dev/null 2>"$DIR/chosen.err" ||
	fail "chosen overlay subnets: $(tail -3 "$DIR/chosen.err")"
expect_eq "overlay_subnets: the server's address" \
	"$(json "$DIR/chosen/run.json" "d['paths'][0]['addr']")" 198.19.210.1
ip -n "$RS" route del 198.19.128.0/24
ip -n "$RC" route add 198.19.211.0/24 via 198.18.30.1
builtin_only clientcoll 1s "overlay_subnets = 198.19.211.0/24"
! ip netns exec "$RC" "$OVLPERF" run "$DIR/clientcoll.ini" --out "$DIR/cc" >/dev/null 2>"$DIR/cc.err" ||
	fail "an overlay subnet the client routes elsewhere was not refused"
has "collides with the route 198.19.211.0/24 via 198.18.30.1 dev rc0 table main on this host" \
	cat "$DIR/cc.err" || fail "the client's collision names no route: $(cat "$DIR/cc.err")"
ok "a collision with a client route is refused, naming the route"
ip -n "$RC" route del 198.19.211.0/24
for _ in $(seq 100); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the server kept the overlay the client refused: $(ip -n "$RS" -br link; server_daemons; cat "$DIR/state")"
ok "... and the server took down the overlay the client could not use"

# --- --overlay-max: a third overlay at once is refused -----------------------
{
	sed -n '1,/^\[tcp\]/p' "$DIR/next.ini" | sed '$d'
	for n in 2 3; do printf '[path.builtin%s]\ntype = builtin\nhost = far\n\n' $n; done
	printf '[tcp]\nstreams = 1\nduration = 1s\n'
} >"$DIR/three.ini"
! ip netns exec "$RC" "$OVLPERF" run "$DIR/three.ini" --out "$DIR/three" >/dev/null 2>"$DIR/three.err" ||
	fail "a third overlay was not refused by --overlay-max 2"
has "path builtin3: .*already runs its maximum of 2 overlays (--overlay-max)" cat "$DIR/three.err" ||
	fail "no limit reason: $(cat "$DIR/three.err")"
ok "--overlay-max 2: the third overlay is refused with the reason"
for _ in $(seq 100); do server_overlay_gone && break; sleep 0.1; done
server_overlay_gone || fail "the refused run left overlays at the server"
ok "... and the two it had are down"

# --- SIGTERM: the server takes its overlays down ------------------------------
ip netns exec "$RC" "$OVLPERF" run "$DIR/long.ini" --out "$DIR/term" >/dev/null 2>"$DIR/term.err" &
RUNPID=$!
for _ in $(seq 150); do [ -s "$DIR/state" ] && break; sleep 0.1; done
[ -s "$DIR/state" ] || fail "no overlay at the server before SIGTERM"
kill -TERM $SERVER
wait $SERVER || fail "the server exited non-zero on SIGTERM"
SERVER=
server_overlay_gone || fail "the server left its overlay behind at SIGTERM"
ok "SIGTERM: the server's TUN device, daemon and state entry are gone when it exits"
wait $RUNPID && fail "the run went on without its overlay"
RUNPID=
# (the overlay's end or the refused connection, whichever the run sees first)
has "stopped: path builtin" cat "$DIR/term.err" ||
	fail "the run does not name the path it lost: $(cat "$DIR/term.err")"
ok "... and the run stops, naming the path"

# --- refusals ----------------------------------------------------------------
has "needs --psk-file" ip netns exec "$RS" "$OVLPERF" server --overlay -p 5299 ||
	fail "--overlay without a PSK was not refused"
ok "--overlay without --psk-file is refused"
ip netns exec "$RS" "$OVLPERF" server -p 5299 --psk-file "$DIR/psk" 2>/dev/null &
PLAIN=$!
on_exit "kill $PLAIN"
for _ in $(seq 50); do ip netns exec "$RS" ss -ltn | grep -q ':5299 ' && break; sleep 0.1; done
sed -e 's/^address = .*/&\nport = 5299/' "$DIR/next.ini" >"$DIR/plain.ini"
! ip netns exec "$RS" "$OVLPERF" run "$DIR/plain.ini" --out "$DIR/plain" >/dev/null 2>"$DIR/plain.err" ||
	fail "a server without --overlay gave an overlay"
has "does not bring up the built-in overlay (start it with \`ovlperf server --overlay" cat "$DIR/plain.err" ||
	fail "no reason from a server without --overlay: $(cat "$DIR/plain.err")"
ok "a server without --overlay: the run says how to start it"
# under netns-asan: the servers' and runs' own logs hold any sanitizer report
! grep -l "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$DIR"/*.log "$DIR"/*.err ||
	fail "a sanitizer report in the logs above"
ok "no sanitizer report in the servers' and runs' logs"
echo "firewall rules of the server host:"
cat "$DIR/firewall.txt"
