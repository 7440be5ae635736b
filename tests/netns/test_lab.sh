#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: lab list and /run/netns are read whole, lab up is interrupted mid-way
# Lab hosts: namespaces, veth, IPv4/IPv6 addresses, MTU, routing, tbf, nftables
# drop, teardown (processes inside killed), refusal to touch foreign
# namespaces, and interrupted `lab up` leaving nothing. Labs: lt, lt2, lt3.
. "$(dirname "$0")/lib.sh"

ns_exists() { [ -e "/run/netns/$1" ]; }
no_ns_of() { ! compgen -G "/run/netns/ovp-$1-*" >/dev/null; }
state_of() { echo "/run/ovlperf/labs/$1"; }
# proc_gone PID: dead or a zombie, within 5 s (the lab kills with SIGTERM,
# then SIGKILL after 2 s)
proc_gone()
{
	local s
	for _ in $(seq 50); do
		s=$(awk '/^State:/{print $2}' "/proc/$1/status" 2>/dev/null || true)
		[ -z "$s" ] || [ "$s" = Z ] && return 0
		sleep 0.1
	done
	return 1
}
# rc_of CMD...: exit status, without set -e stopping the test
rc_of() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo $rc; }

for n in lt lt2 lt3; do
	claim_lab $n
	"$OVLPERF" lab down $n >/dev/null 2>&1 || true
	on_exit "\"$OVLPERF\" lab down $n"
done
on_exit "ip netns del ovp-lt3-0; ip netns del ovp-lt3-1"

# --- bad usage: exit 2, nothing created
expect_eq "lab up --mtu 67" "$(rc_of "$OVLPERF" lab up lt --mtu 67)" 2
expect_eq "lab up --mtu 65536" "$(rc_of "$OVLPERF" lab up lt --mtu 65536)" 2
expect_eq "lab up --rate 1X" "$(rc_of "$OVLPERF" lab up lt --rate 1X)" 2
expect_eq "lab up --hosts 9" "$(rc_of "$OVLPERF" lab up lt --hosts 9)" 2
expect_eq "lab up --drop 101" "$(rc_of "$OVLPERF" lab up lt --drop 101)" 2
expect_eq "lab up a/b" "$(rc_of "$OVLPERF" lab up a/b)" 2
expect_eq "lab up 13-char name" "$(rc_of "$OVLPERF" lab up abcdefghijklm)" 2
expect_eq "lab frobnicate" "$(rc_of "$OVLPERF" lab frobnicate)" 2
expect_eq "lab up --link 1:mtu=1280 (no link 1)" "$(rc_of "$OVLPERF" lab up lt --link 1:mtu=1280)" 2
expect_eq "lab up --link 0:mtu=60" "$(rc_of "$OVLPERF" lab up lt --link 0:mtu=60)" 2
no_ns_of lt || fail "bad usage left namespaces"
ok "bad usage created nothing"

# --- a pair with MTU 1400
lab_pair lt 1400
ns_exists "$A" && ns_exists "$B" || fail "namespaces $A $B missing"
ok "namespaces $A and $B exist"
[ -f "$(state_of lt)" ] || fail "no state file"
ok "state file recorded"
has "inet 198.18.0.1/24" ip -n "$A" addr show dev ovp0 || fail "A lacks 198.18.0.1/24"
has "inet 198.18.0.2/24" ip -n "$B" addr show dev ovp0 || fail "B lacks 198.18.0.2/24"
has "inet6 2001:2::1/64" ip -n "$A" addr show dev ovp0 || fail "A lacks 2001:2::1/64"
has "inet6 2001:2::2/64" ip -n "$B" addr show dev ovp0 || fail "B lacks 2001:2::2/64"
ok "IPv4 and IPv6 addresses on both ends"
has tentative ip -n "$A" -6 addr show dev ovp0 && fail "IPv6 address still tentative (DAD on)"
ok "IPv6 address usable at once (no DAD)"
expect_eq "MTU of A's ovp0" "$(ip -n "$A" -o link show ovp0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" 1400
has "<LOOPBACK,UP" ip -n "$A" -o link show lo || fail "lo is down in A"
ok "loopback up"
in_a ping -c1 -W2 198.18.0.2 >/dev/null || fail "ping A->B over IPv4"
ok "ping A->B IPv4"
in_a ping -6 -c1 -W2 2001:2::2 >/dev/null || fail "ping A->B over IPv6"
ok "ping A->B IPv6"
in_a ping -c1 -W2 -M do -s 1372 198.18.0.2 >/dev/null || fail "1400-byte IPv4 packet did not pass"
ok "IPv4 packet of exactly MTU 1400 passes"
expect_eq "IPv4 packet of MTU+1 with DF" "$(rc_of in_a ping -c1 -W1 -M do -s 1373 198.18.0.2)" 1
in_a ping -6 -c1 -W2 -M do -s 1352 2001:2::2 >/dev/null || fail "1400-byte IPv6 packet did not pass"
ok "IPv6 packet of exactly MTU 1400 passes"
expect_eq "IPv6 packet of MTU+1" "$(rc_of in_a ping -6 -c1 -W1 -M do -s 1353 2001:2::2)" 1
show=$("$OVLPERF" lab show lt)
grep -q "ovp-lt-1" <<<"$show" && grep -q "198.18.0.2/24" <<<"$show" && grep -q "2001:2::2/64" <<<"$show" ||
	fail "lab show lacks host/addresses: $show"
ok "lab show lists hosts and addresses"
js=$(mktemp)
on_exit "rm -f $js"
"$OVLPERF" lab show lt --json >"$js"
expect_eq "lab show --json: link 0 MTU" "$(json_get "$js" links.0.mtu)" 1400
expect_eq "lab show --json: host 1 netns" "$(json_get "$js" hosts.1.netns)" ovp-lt-1
addrs=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(a for i in d["hosts"][1]["interfaces"] if i["name"]=="ovp0" for a in i["addresses"]))' "$js")
grep -q "198.18.0.2/24" <<<"$addrs" && grep -q "2001:2::2/64" <<<"$addrs" || fail "JSON addresses of host 1: $addrs"
ok "lab show --json lists host 1's addresses"
has "^lt  *2 hosts, 1 link, made by lab up, pid [0-9]* (exited)" "$OVLPERF" lab list || fail "lab list lacks lt"
ok "lab list shows lt"
expect_eq "lab up of an existing lab" "$(rc_of "$OVLPERF" lab up lt)" 1
ns_exists "$A" || fail "failed lab up removed the existing lab"
ok "existing lab untouched by a refused lab up"

# lab exec runs a command inside a host and passes its status back
out=$("$OVLPERF" lab exec lt 1 ip -o -4 addr show dev ovp0)
grep -q "198.18.0.2/24" <<<"$out" || fail "lab exec lt 1 did not run in host 1: $out"
ok "lab exec runs in the chosen host"
expect_eq "lab exec exit status" "$(rc_of "$OVLPERF" lab exec lt 0 sh -c 'exit 7')" 7
expect_eq "lab exec on a host the lab lacks" "$(rc_of "$OVLPERF" lab exec lt 2 true)" 2
"$OVLPERF" lab exec lt 1 sleep 300 &
p=$!
on_exit "kill -9 $p"
for _ in $(seq 100); do [ -n "$(ip netns pids "$B")" ] && break; sleep 0.05; done
[ -n "$(ip netns pids "$B")" ] || fail "lab exec did not start sleep in $B"
kill -INT $p
rc=0
wait $p || rc=$?
expect_eq "interrupted lab exec (child stopped by SIGTERM)" "$rc" 143
expect_eq "processes left in $B after interrupted lab exec" "$(ip netns pids "$B" | wc -l)" 0

# processes inside are stopped by lab down, even one that ignores SIGTERM
# (exec: no intermediate shell to report its child's death)
(exec ip netns exec "$B" sleep 300) &
p1=$!
(exec ip netns exec "$A" bash -c 'trap "" TERM; sleep 300') &
p2=$!
disown $p1 $p2 # killed by lab down, not by us: no job notices
on_exit "kill -9 $p1 $p2"
# until both run inside their hosts: p1 is sleep in B's namespace, p2's
# shell has set its trap and started its sleep (readiness, not a delay)
netns_of() { stat -L -c %i "$1" 2>/dev/null || true; }
for _ in $(seq 100); do
	[ "$(netns_of /proc/$p1/ns/net)" = "$(netns_of "/run/netns/$B")" ] &&
		grep -q '^sleep' "/proc/$p1/comm" 2>/dev/null &&
		[ -n "$(pgrep -P "$p2" -x sleep)" ] && break
	sleep 0.1
done
"$OVLPERF" lab down lt
proc_gone $p1 || fail "process in B survived lab down"
ok "process inside B killed by lab down"
proc_gone $p2 || fail "SIGTERM-ignoring process in A survived lab down"
ok "SIGTERM-ignoring process inside A killed by lab down"
no_ns_of lt || fail "namespaces left after lab down"
[ ! -e "$(state_of lt)" ] || fail "state file left after lab down"
ok "lab down removed namespaces and state"
expect_eq "lab down of a missing lab" "$(rc_of "$OVLPERF" lab down lt)" 1
msg=$("$OVLPERF" lab down lt 2>&1 || true)
grep -q "no lab named lt" <<<"$msg" || fail "no clear message for a missing lab: $msg"
ok "missing lab: clear message"

# --- three hosts in a chain: routed end to end, --force replaces
"$OVLPERF" lab up lt --hosts 3 >/dev/null
"$OVLPERF" lab up lt --hosts 3 --link 1:mtu=1280 --force >/dev/null || fail "lab up --force"
ok "lab up --force replaces an existing lab"
expect_eq "MTU of link 1 in host 2 (--link 1:mtu=1280)" \
	"$(ip -n ovp-lt-2 -o link show ovp1 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" 1280
expect_eq "MTU of link 0 in host 1" \
	"$(ip -n ovp-lt-1 -o link show ovp0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" 1500
# IPv6 is configured on every lab interface by the time lab up returns
# (link-local multicast route present), so the first packet needs no retry.
for h in 0 1 2; do
	for i in $(ip -n ovp-lt-$h -o link show | grep -o 'ovp[0-9]*@' | tr -d @); do
		has "multicast ff00::/8 dev $i " ip -n ovp-lt-$h -6 route show table local ||
			fail "host $h $i: no IPv6 multicast route yet"
	done
done
ok "IPv6 ready on every interface when lab up returns"
ip netns exec ovp-lt-0 ping -c1 -W3 198.18.1.2 >/dev/null || fail "routed IPv4 host 0 -> host 2"
ok "routed IPv4 across 3 hosts"
ip netns exec ovp-lt-0 ping -6 -c1 -W3 2001:2:0:1::2 >/dev/null || fail "routed IPv6 host 0 -> host 2"
ok "routed IPv6 across 3 hosts"
# PMTU errors: the router (host 1) reports the too-small next link, unless
# blocking ICMP too-big on link 0 makes the path a black hole
has "Frag needed and DF set (mtu = 1280)" in_host lt 0 ping -M do -s 1372 -c1 -W1 198.18.1.2 ||
	fail "no ICMP frag-needed from the router"
has "Packet too big: mtu=1280" in_host lt 0 ping -6 -M do -s 1352 -c1 -W1 2001:2:0:1::2 ||
	fail "no ICMPv6 packet-too-big from the router"
ok "router reports PMTU (IPv4 and IPv6) when ICMP is not blocked"
"$OVLPERF" lab up lt --hosts 3 --link 1:mtu=1280 --link 0:block-icmp --force >/dev/null
has "Frag needed" in_host lt 0 ping -M do -s 1372 -c1 -W1 198.18.1.2 &&
	fail "ICMP frag-needed got through --block-icmp"
has "Packet too big" in_host lt 0 ping -6 -M do -s 1352 -c1 -W1 2001:2:0:1::2 &&
	fail "ICMPv6 packet-too-big got through the ICMP block"
in_host lt 0 ping -c1 -W2 198.18.1.2 >/dev/null || fail "small packets must still pass with ICMP blocked"
ok "--link 0:block-icmp makes a PMTU black hole (IPv4 and IPv6), small packets pass"
# Blocking on the narrow link itself: the router at its entry sends the
# too-big back over link 0, where only its output rule can stop it.
"$OVLPERF" lab up lt --hosts 3 --link 1:mtu=1280,block-icmp --force >/dev/null
has "Frag needed" in_host lt 0 ping -M do -s 1372 -c1 -W1 198.18.1.2 &&
	fail "ICMP frag-needed got through --link 1:block-icmp"
has "Packet too big" in_host lt 0 ping -6 -M do -s 1352 -c1 -W1 2001:2:0:1::2 &&
	fail "ICMPv6 packet-too-big got through --link 1:block-icmp"
in_host lt 0 ping -c1 -W2 198.18.1.2 >/dev/null || fail "small packets must still pass with ICMP blocked"
in_host lt 0 ping -M do -s 1252 -c1 -W2 198.18.1.2 >/dev/null || fail "1280-byte packets must pass"
ok "--link 1:mtu=1280,block-icmp (the narrow link itself) makes a PMTU black hole too"
"$OVLPERF" lab down lt

# --- shaping and deliberate loss
lab_make lt2 --rate 100M --drop 50 --block-icmp
for h in 0 1; do
	has "tbf .*rate 100Mbit" tc -n ovp-lt2-$h qdisc show dev ovp0 ||
		fail "no tbf 100Mbit in host $h: $(tc -n ovp-lt2-$h qdisc show dev ovp0)"
	t=$(ip netns exec ovp-lt2-$h nft list table inet ovlperf) || fail "no nft table in host $h"
	grep -q 'numgen random mod 10000 < 5000 drop' <<<"$t" || fail "no drop rule in host $h: $t"
	grep -q 'icmpv6 type packet-too-big drop' <<<"$t" || fail "no ICMPv6 too-big rule in host $h"
	grep -q 'icmp code frag-needed drop' <<<"$t" || fail "no ICMP frag-needed rule in host $h"
done
ok "tbf and nftables rules on both ends"
if command -v ethtool >/dev/null; then
	for h in 0 1; do
		f=$(ip netns exec ovp-lt2-$h ethtool -k ovp0)
		grep -Eq "^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload): on" <<<"$f" &&
			fail "segmentation offloads still on in host $h (drops would hit 64 KB aggregates)"
		grep -q "tx-udp-segmentation: on" <<<"$f" && fail "UDP segmentation offload on in host $h"
	done
	ok "segmentation offloads off on the lossy link"
fi
# 50% each way: about 75% of 200 echoes lost; 50..95% is over 4 sigma wide.
loss=$(ip netns exec ovp-lt2-0 ping -c 200 -i 0.002 -W 1 -q 198.18.0.2 2>/dev/null |
	sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')
loss=${loss%.*}
[ -n "$loss" ] && [ "$loss" -ge 50 ] && [ "$loss" -le 95 ] || fail "loss ${loss:-?}% not in 50..95"
ok "random drop works (${loss}% of echoes lost, expected ~75%)"
"$OVLPERF" lab down lt2
no_ns_of lt2 || fail "lt2 left namespaces"
ok "shaped lab removed"

# --- Ctrl-C in the middle of lab up: nothing left
OVLPERF_LAB_STEP_DELAY_MS=150 "$OVLPERF" lab up lt2 --hosts 8 >/dev/null 2>&1 &
p=$!
for _ in $(seq 100); do ns_exists ovp-lt2-1 && break; sleep 0.05; done
ns_exists ovp-lt2-1 || fail "lab up lt2 did not start"
kill -INT $p
rc=0
wait $p || rc=$?
expect_eq "interrupted lab up exit status" "$rc" 1
no_ns_of lt2 || fail "interrupted lab up left: $(ls /run/netns)"
[ ! -e "$(state_of lt2)" ] || fail "interrupted lab up left its state file"
ok "SIGINT during lab up left nothing"

# --- SIGKILL in the middle of lab up: lab down still removes it all
OVLPERF_LAB_STEP_DELAY_MS=150 "$OVLPERF" lab up lt2 --hosts 8 >/dev/null 2>&1 &
p=$!
for _ in $(seq 100); do ns_exists ovp-lt2-1 && break; sleep 0.05; done
kill -KILL $p
wait $p 2>/dev/null || true
ns_exists ovp-lt2-0 || fail "killed lab up left nothing to clean (test did not test)"
"$OVLPERF" lab down lt2 || fail "lab down after a killed lab up"
no_ns_of lt2 || fail "lab down left: $(ls /run/netns)"
ok "lab down removes a lab whose lab up was killed"

# --- killed between mounting a namespace and recording its inode (a window
# SIGKILL hits now and then): the state lists it with inode 0. lab down
# removes it while nothing runs in it, and leaves it alone when something
# does (then it may be someone else's).
"$OVLPERF" lab up lt2 >/dev/null
sed -i 's/^netns ovp-lt2-1 .*/netns ovp-lt2-1 0/' "$(state_of lt2)"
ip netns exec ovp-lt2-1 sleep 60 &
sp=$!
for _ in $(seq 100); do [ "$(ip netns pids ovp-lt2-1)" ] && break; sleep 0.05; done
expect_eq "lab down with a process in the unrecorded namespace" "$(rc_of "$OVLPERF" lab down lt2)" 1
ns_exists ovp-lt2-1 || fail "lab down removed an unrecorded namespace something runs in"
ok "an unrecorded namespace with a process in it is left alone"
kill $sp
wait $sp 2>/dev/null || true
ip netns del ovp-lt2-1
"$OVLPERF" lab up lt2 >/dev/null
sed -i 's/^netns ovp-lt2-1 .*/netns ovp-lt2-1 0/' "$(state_of lt2)"
"$OVLPERF" lab down lt2 || fail "lab down of an unrecorded, idle namespace"
no_ns_of lt2 || fail "lab down left: $(ls /run/netns)"
ok "an unrecorded namespace nothing runs in is removed"

# --- namespaces ovlperf did not create are never touched
ip netns add ovp-lt3-0
expect_eq "lab down of a lab that is only a foreign namespace" "$(rc_of "$OVLPERF" lab down lt3)" 1
ns_exists ovp-lt3-0 || fail "lab down removed a foreign namespace"
ok "lab down leaves a foreign ovp-lt3-0 alone"
expect_eq "lab up over a foreign namespace" "$(rc_of "$OVLPERF" lab up lt3)" 1
ns_exists ovp-lt3-0 || fail "lab up removed a foreign namespace"
! ns_exists ovp-lt3-1 && [ ! -e "$(state_of lt3)" ] || fail "refused lab up left something"
ok "lab up refuses a foreign namespace and leaves nothing"
ip netns del ovp-lt3-0
"$OVLPERF" lab up lt3 >/dev/null
# replace one of ours by a foreign namespace of the same name
ip netns del ovp-lt3-1
ip netns add ovp-lt3-1
expect_eq "lab down with a swapped namespace" "$(rc_of "$OVLPERF" lab down lt3)" 1
ns_exists ovp-lt3-1 || fail "lab down removed the foreign ovp-lt3-1"
ns_exists ovp-lt3-0 && fail "lab down left our own ovp-lt3-0"
ok "lab down removes its own namespace but not a same-named foreign one"
ip netns del ovp-lt3-1

# --- lab up --overlay: the built-in overlay's daemons run inside the hosts
# and go with the lab
# lab up returns; the daemons it leaves behind hold neither its output nor
# its terminal: `lab up --overlay | cat` ends (it waited for them forever
# while they wrote to the pipe), and each runs in a session of its own
"$OVLPERF" lab down lt >/dev/null 2>&1 || true
on_exit "\"$OVLPERF\" lab down lt"
up_out=$(mktemp)
on_exit "rm -f $up_out"
{ "$OVLPERF" lab up lt --overlay | cat >"$up_out"; } &
pipe=$!
for _ in $(seq 300); do kill -0 "$pipe" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pipe" 2>/dev/null && fail "lab up --overlay: its output pipe still open after 30 s"
wait "$pipe" || fail "lab up --overlay | cat failed"
grep -q "overlay daemons log to /run/ovlperf/labs/lt.overlay-H.log" "$up_out" ||
	fail "lab up --overlay does not say where the daemons log: $(cat "$up_out")"
for h in 0 1; do
	p=$(ip netns pids ovp-lt-$h | head -n1)
	[ -n "$p" ] || fail "no overlay daemon in host $h"
	expect_eq "host $h daemon's session" "$(ps -o sid= -p "$p" | tr -d ' ')" "$p"
	expect_eq "host $h daemon's stdin" "$(readlink /proc/"$p"/fd/0)" /dev/null
	expect_eq "host $h daemon's stderr" "$(readlink /proc/"$p"/fd/2)" \
		"/run/ovlperf/labs/lt.overlay-$h.log"
done
ok "lab up --overlay returns through a pipe; its daemons log to the lab's files, in own sessions"
A=ovp-lt-0
B=ovp-lt-1
has "inet 198.19.0.1/24" ip -n ovp-lt-0 addr show dev ovl0 || fail "no overlay address in host 0"
has "inet 198.19.0.2/24" ip -n ovp-lt-1 addr show dev ovl0 || fail "no overlay address in host 1"
ok "overlay devices and addresses in both hosts"
# (traffic over the overlay is the tunnel's own netns tests' subject; here:
# lab up starts it inside the hosts, lab down takes it away)
daemons="$(ip netns pids ovp-lt-0) $(ip netns pids ovp-lt-1)"
[ -n "${daemons// /}" ] || fail "no overlay daemon inside the hosts"
"$OVLPERF" lab down lt
for p in $daemons; do proc_gone "$p" || fail "overlay daemon $p survived lab down"; done
no_ns_of lt || fail "overlay lab left namespaces"
for h in 0 1; do
	[ -e "/run/ovlperf/labs/lt.overlay-$h.log" ] && fail "lab down left host $h's overlay log"
done
ok "lab down stopped the overlay daemons and removed the lab"

echo "$TEST_NAME: $CHECKS checks passed"
