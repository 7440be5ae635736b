#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real hosts over IPv6, written as users write them: two namespaces that are
# not an ovlperf lab (hx6-c, hx6-s, one veth, 2001:2:0:c8::/64 only), a
# server with a PSK on a port of its own, and then client (a bare literal and
# [addr]:port, TCP and UDP), sweep, mtu and `run` of a [host.*] scenario
# whose address is an IPv6 literal with no family stated: the dry run says
# IPv6, the run completes over IPv6, and an external path's setup output
# lands in the run's commands.log, not on stdout.
. "$(dirname "$0")/lib.sh"

C=hx6-c S=hx6-s
SA=2001:2:0:c8::2 CA=2001:2:0:c8::1 PORT=5311
WORK=$(mktemp -d /tmp/ovlperf-hx6.XXXXXX)
on_exit "rm -rf '$WORK'"
for n in $C $S; do
	ip netns del $n 2>/dev/null || true
	on_exit "ip netns del $n"
done
ip netns add $C
ip netns add $S
reserve_test_ports $C $S
ip -n $C link add hx6c0 type veth peer name hx6s0 netns $S
ip -n $C link set lo up
ip -n $S link set lo up
ip -n $C addr add $CA/64 dev hx6c0 nodad
ip -n $S addr add $SA/64 dev hx6s0 nodad
ip -n $C link set hx6c0 up
ip -n $S link set hx6s0 up
ok "hosts $C and $S on $CA <-> $SA (no IPv4 address at all)"

head -c 32 /dev/urandom | base64 >"$WORK/psk"
chmod 600 "$WORK/psk"
SERVER_PORT=$PORT server_in $S "$WORK/server.out" --logfile "$WORK/server.log" server -B "[$SA]:$PORT" \
	--psk-file "$WORK/psk"
grep -q "server .* starting: port $PORT on $SA, IPv6, PSK on" "$WORK/server.log" ||
	fail "no start-up line in the --logfile: $(cat "$WORK/server.log" "$WORK/server.out")"
ok "the server's start-up line went to its --logfile (port, family, PSK)"
[ ! -s "$WORK/server.out" ] || fail "the server wrote to stdout/stderr despite --logfile"
ok "nothing of the server's log on its stdout/stderr"

in_c() { ip netns exec $C "$@"; }
client_json() { in_c "$OVLPERF" client --psk-file "$WORK/psk" --json -t 0.5 "$@"; }

# client: a bare literal with -p, and [literal]:port; TCP and UDP
client_json -p $PORT $SA >"$WORK/c1.json" 2>"$WORK/c1.err" ||
	fail "client $SA -p $PORT: $(cat "$WORK/c1.err")"
expect_eq "client TCP to a bare IPv6 literal: remote address" \
	"$(json_get "$WORK/c1.json" remote_addr)" "$SA"
expect_eq "client TCP to a bare IPv6 literal: family" "$(json_get "$WORK/c1.json" test.family)" ipv6
client_json -u -b 10M "[$SA]:$PORT" >"$WORK/c2.json" 2>"$WORK/c2.err" ||
	fail "client -u [$SA]:$PORT: $(cat "$WORK/c2.err")"
expect_eq "client UDP to [$SA]:$PORT: remote address" "$(json_get "$WORK/c2.json" remote_addr)" "$SA"
expect_eq "client UDP to [$SA]:$PORT: port" "$(json_get "$WORK/c2.json" test.port)" "$PORT"
rc=0
in_c "$OVLPERF" client "[$SA]:99999" >/dev/null 2>"$WORK/c3.err" || rc=$?
expect_eq "client [$SA]:99999: exit status" "$rc" 2
grep -q "the port must be 1..65535" "$WORK/c3.err" || fail "bad port message: $(cat "$WORK/c3.err")"
ok "a port out of range is refused, naming the range"

# sweep and mtu with [literal]:port
in_c "$OVLPERF" sweep --psk-file "$WORK/psk" "[$SA]:$PORT" --from 5M --to 10M --step 5M -t 0.3 \
	>"$WORK/sweep.out" 2>"$WORK/sweep.err" || fail "sweep [$SA]:$PORT: $(tail -3 "$WORK/sweep.err")"
ok "sweep to [$SA]:$PORT"
in_c "$OVLPERF" mtu --psk-file "$WORK/psk" "[$SA]:$PORT" >"$WORK/mtu.out" 2>"$WORK/mtu.err" ||
	fail "mtu [$SA]:$PORT: $(tail -3 "$WORK/mtu.err")"
grep -q "1500" "$WORK/mtu.out" || fail "mtu found no 1500-byte path MTU: $(cat "$WORK/mtu.out")"
ok "mtu to [$SA]:$PORT finds the 1500-byte path MTU"

# run: a [host.*] scenario with an IPv6 address and no family
cat >"$WORK/v6.ini" <<INI
[scenario]
name = hx6
repetitions = 1
duration = 300ms

[host.far]
address = [$SA]:$PORT
psk_file = $WORK/psk

[path.underlay]
type = underlay

[path.vpn]
type = external
address = $SA
setup = echo setup-output-marker
teardown = echo teardown-output-marker

[tcp]
streams = 1
duration = 300ms
INI
in_c "$OVLPERF" run -n "$WORK/v6.ini" >"$WORK/plan.out" 2>&1 || fail "dry run: $(cat "$WORK/plan.out")"
grep -q "path underlay .*underlay IPv6 $SA\$" "$WORK/plan.out" ||
	fail "the dry run does not show the underlay path as IPv6 to $SA: $(cat "$WORK/plan.out")"
grep -q "path vpn .*external IPv6 $SA\$" "$WORK/plan.out" ||
	fail "the dry run does not show the vpn path as IPv6: $(cat "$WORK/plan.out")"
ok "the dry run shows both paths as IPv6 to $SA"
rc=0
in_c "$OVLPERF" run --no-progress --no-plots --out "$WORK/r" "$WORK/v6.ini" >"$WORK/run.out" \
	2>"$WORK/run.err" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/run.err" >&2; fail "run of the IPv6 host scenario exited $rc"; }
expect_eq "run.json complete" "$(json_get "$WORK/r/run.json" complete)" true
expect_eq "path 0's address" "$(json_get "$WORK/r/run.json" paths.0.addr)" "$SA"
grep -q marker "$WORK/run.out" && fail "setup/teardown output reached stdout"
ok "setup/teardown output kept off stdout"
grep -q "setup-output-marker" "$WORK/r/commands.log" &&
	grep -q "teardown-output-marker" "$WORK/r/commands.log" ||
	fail "commands.log lacks the commands' output: $(cat "$WORK/r/commands.log" 2>&1)"
ok "setup/teardown output is in the run's commands.log"
echo "$TEST_NAME: $CHECKS checks passed"
