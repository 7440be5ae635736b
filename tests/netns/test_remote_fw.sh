#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two real hosts, not an ovlperf lab: a client behind a masquerading router
# (IPv4 and IPv6 NAT), a server whose nftables input chain drops everything
# but TCP and UDP to its one port, 5211 (and the IPv6 neighbour discovery
# without which IPv6 does not work at all). Over that, both families: client
# TCP, UDP, -R of each, -P 4 with --cport, sweep, mtu --tcp-mss and `ovlperf
# run` of a [host.*] scenario, with and without a pre-shared key. The rule
# counters prove what went where: TCP/UDP to any other port of the server is
# counted (and dropped) by a rule of its own, which must stay at 0; an
# older server that opens ephemeral data ports fails here.
# The hosts are remote_lib.sh's (ro_net: client, masquerading router,
# server; its addresses there), with this test's own server firewall.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/remote_lib.sh" fw

C=$RC
R=$RR
S=$RS
PORT=5211
SV4=$SADDR4
SV6=$SADDR6
WORK=$(mktemp -d /tmp/ovlperf-remotefw.XXXXXX)
on_exit "rm -rf $WORK"

in_c() { ip netns exec "$C" "$@"; }
in_s() { ip netns exec "$S" "$@"; }

ro_net

# The router (masquerading toward the server: remote_lib.sh): counters of
# the client's source ports as they leave (before the NAT rewrites them):
# --cport's proof.
ip netns exec "$R" nft -f - <<'NFT'
table inet opcount {
	chain cport_counts {
		type filter hook forward priority filter; policy accept;
		iifname "rc1" tcp sport 40000-40003 counter comment "tcp from --cport 40000..40003"
		iifname "rc1" udp sport 40100-40103 counter comment "udp from --cport 40100..40103"
		iifname "rc1" meta nfproto ipv6 tcp sport 40200-40203 counter comment "tcp6 from --cport 40200..40203"
		iifname "rc1" meta nfproto ipv6 udp sport 40300-40303 counter comment "udp6 from --cport 40300..40303"
	}
}
NFT
ip netns exec "$S" nft -f - <<NFT
table inet opfw {
	chain input {
		type filter hook input priority filter; policy drop;
		icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert } accept
		tcp dport $PORT counter accept comment "tcp $PORT"
		udp dport $PORT counter accept comment "udp $PORT"
		meta l4proto { tcp, udp } counter drop comment "tcp/udp to other ports"
		counter comment "anything else, dropped by the policy"
	}
}
NFT
echo "# server firewall (nft list ruleset in $S):"
in_s nft list ruleset | sed 's/^/#   /'
echo "# router (nft list ruleset in $R):"
ip netns exec "$R" nft list ruleset | sed 's/^/#   /'

# counter NS COMMENT: packets of the rule with that comment
counter()
{
	ip netns exec "$1" nft list ruleset |
		sed -n "s|.*counter packets \([0-9]*\) bytes [0-9]* .*comment \"$2\".*|\1|p"
}
show_fw() { echo "# server rule counters:"; in_s nft list ruleset | grep counter | sed 's/^/#   /'; }
fail() { show_fw; echo "FAIL [$TEST_NAME]: $*" >&2; exit 1; }

SERVER_PID=
start_server() { SERVER_PORT=$PORT server_in "$S" "$WORK/server.log" -v server "$@"; } # ARGS...
stop_server() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }

# load NAME ARGS...: a client test that must succeed and move data
load()
{
	local name=$1 j=$WORK/$1.json rc=0
	shift
	in_c "$OVLPERF" client --json --msg-timeout 3000 "$@" >"$j" 2>>"$WORK/client.log" || rc=$?
	[ "$rc" -eq 0 ] || fail "$name: client $* exited $rc: $(tail -2 "$WORK/client.log")"
	python3 - "$j" <<'PY' || fail "$name: $(cat "$j")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"] is None, d["error"]
moved = d["udp"]["received"] if "udp" in d else d["tcp"]["bytes"]
assert moved and moved > 0, moved
PY
	ok "$name: client $*"
}

# 1. no pre-shared key, IPv4: every kind of test through the NAT and the firewall
start_server
load v4-tcp $SV4 -t 0.5
load v4-udp $SV4 -u -b 20M -t 0.5
load v4-tcp-reverse $SV4 -R -t 0.5
load v4-udp-reverse $SV4 -u -R -b 20M -t 0.5
load v4-tcp-4 $SV4 -P 4 -t 0.5 --cport 40000
# the same source ports again at once: no TIME_WAIT left on them
load v4-tcp-4-again $SV4 -P 4 -t 0.5 --cport 40000
load v4-udp-4 $SV4 -u -P 4 -b 20M -t 0.5 --cport 40100
echo "# one run through the NAT and the firewall, as the terminal shows it:"
in_c "$OVLPERF" client $SV4 -u -R -b 20M -t 0.5 2>&1 | sed 's/^/#   /' ||
	fail "reverse UDP in the terminal failed (its output is above)"
grep -q "198.18.31.1:[0-9]*: connected" "$WORK/server.log" ||
	fail "the server did not see the router's address: $(grep connected "$WORK/server.log" | head -2)"
ok "the server saw the clients through the router's masquerade"
expect_ge "TCP packets from --cport 40000..40003 (router counter)" "$(counter "$R" "tcp from --cport 40000..40003")" 4
expect_ge "UDP datagrams from --cport 40100..40103 (router counter)" "$(counter "$R" "udp from --cport 40100..40103")" 4
in_c "$OVLPERF" sweep $SV4 --from 5M --to 10M --step 5M -t 0.3 --gap 0 --no-progress --json \
	>"$WORK/sweep.json" 2>>"$WORK/client.log" || fail "sweep: $(tail -2 "$WORK/client.log")"
python3 - "$WORK/sweep.json" <<'PY' || fail "sweep: $(head -c 600 "$WORK/sweep.json")"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert len(pts) == 2 and all(p["received_pps"] > 0 for p in pts), pts
PY
ok "sweep: two rates delivered"
in_c "$OVLPERF" mtu $SV4 --tcp-mss --probes 2 --timeout 300ms --cport 40200 --json \
	>"$WORK/mtu4.json" 2>>"$WORK/client.log" || true
python3 - "$WORK/mtu4.json" <<'PY' || fail "mtu IPv4: $(head -c 800 "$WORK/mtu4.json")"
import json, sys
p = json.load(open(sys.argv[1]))["paths"][0]
assert p.get("error") in (None, ""), p.get("error")
assert p["pmtu"] == 1500, p["pmtu"]
assert p["tcp"]["completed"] is True and p["tcp"]["mss"]["syn_arrived"] > 0, p["tcp"]
PY
ok "mtu IPv4: path MTU 1500 and the MSS check over the one port"
stop_server

# 2. with a pre-shared key, IPv6 (and the run over both families)
head -c 32 /dev/urandom | base64 >"$WORK/psk"
chmod 600 "$WORK/psk"
start_server --psk-file "$WORK/psk"
K=(--psk-file "$WORK/psk")
load v6-tcp $SV6 -t 0.5 "${K[@]}"
load v6-udp $SV6 -u -b 20M -t 0.5 "${K[@]}"
load v6-tcp-reverse $SV6 -R -t 0.5 "${K[@]}"
load v6-udp-reverse $SV6 -u -R -b 20M -t 0.5 "${K[@]}"
load v6-tcp-4 $SV6 -P 4 -t 0.5 --cport 40200 "${K[@]}"
load v6-udp-4 $SV6 -u -P 4 -b 20M -t 0.5 --cport 40300 "${K[@]}"
expect_ge "IPv6 TCP packets from --cport 40200..40203 (router counter)" "$(counter "$R" "tcp6 from --cport 40200..40203")" 4
expect_ge "IPv6 UDP datagrams from --cport 40300..40303 (router counter)" "$(counter "$R" "udp6 from --cport 40300..40303")" 4
in_c "$OVLPERF" mtu $SV6 --tcp-mss --probes 2 --timeout 300ms --json "${K[@]}" \
	>"$WORK/mtu6.json" 2>>"$WORK/client.log" || true
python3 - "$WORK/mtu6.json" <<'PY' || fail "mtu IPv6: $(head -c 800 "$WORK/mtu6.json")"
import json, sys
p = json.load(open(sys.argv[1]))["paths"][0]
assert p.get("error") in (None, ""), p.get("error")
assert p["pmtu"] == 1500, p["pmtu"]
assert p["tcp"]["completed"] is True, p["tcp"]
PY
ok "mtu IPv6: path MTU 1500 and the MSS check over the one port"
cat >"$WORK/far.ini" <<INI
[scenario]
name = remotefw
repetitions = 1
duration = 300ms

[host.far]
address = $SV4
port = $PORT
psk_file = $WORK/psk

[path.v4]
type = underlay
host = far

[path.v6]
type = external
host = far
address = $SV6
family = 6

[tcp]
streams = 1,2

[udp]
sizes = 1200
rate = 20M

[mtu]
base = 1200
probes = 2
timeout = 300ms
INI
rc=0
in_c "$OVLPERF" run --no-progress --no-plots --out "$WORK/run" "$WORK/far.ini" \
	>"$WORK/run.out" 2>"$WORK/run.err" || rc=$?
[ "$rc" -eq 0 ] || fail "run exited $rc: $(tail -5 "$WORK/run.err")"
python3 - "$WORK/run/run.json" <<'PY' || fail "run.json: $(tail -5 "$WORK/run.err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is True
assert [p["addr"] for p in d["paths"]] == ["198.18.31.2", "2001:2:0:31::2"], d["paths"]
bad = [t for t in d["trials"] if t["status"] != 0]
assert not bad, bad[:2]
assert len(d["trials"]) >= 6, len(d["trials"])
PY
ok "run of a [host.*] scenario (underlay IPv4, IPv6 path, PSK): every trial succeeded"
stop_server

# 3. what the firewall saw: traffic on the one port, nothing to any other
show_fw
expect_ge "TCP packets accepted on $PORT" "$(counter "$S" "tcp $PORT")" 100
expect_ge "UDP datagrams accepted on $PORT" "$(counter "$S" "udp $PORT")" 100
expect_eq "TCP/UDP packets to other ports of the server" "$(counter "$S" "tcp/udp to other ports")" 0
echo "$TEST_NAME: $CHECKS checks passed"
