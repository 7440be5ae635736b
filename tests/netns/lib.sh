# SPDX-License-Identifier: MIT
# Sourced by tests/netns/test_*.sh. Each test calls lab_pair NAME to get two
# hosts; cleanup runs on EXIT (including errors and Ctrl-C) and removes them.
set -euo pipefail
# Debian's python3 (scripts/deps.sh installs it) first, not the one a user's
# PATH finds first: a pyenv shim there costs 0.4 s of CPU a start. Exported,
# so `ip netns exec NS python3` and the daemons' hooks find it too.
export PATH=/usr/bin:$PATH
OVLPERF=${OVLPERF:-$PWD/ovlperf}
TEST_NAME=$(basename "$0" .sh)
CHECKS=0
declare -a CLEANUP=()

cleanup()
{
	local rc=$?
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[$i]}" >/dev/null 2>&1 || true; done
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

on_exit() { CLEANUP+=("$*"); }

fail() { echo "FAIL [$TEST_NAME]: $*" >&2; exit 1; }
ok() { CHECKS=$((CHECKS + 1)); echo "ok $CHECKS - $*"; }

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; ok "$1 = $3"; }
# expect_ge WHAT ACTUAL MIN
expect_ge() { [ "$2" -ge "$3" ] || fail "$1: got $2, expected >= $3"; ok "$1 = $2 >= $3"; }

# has PATTERN CMD...: whether CMD's output (stdout and stderr) matches the
# grep pattern. Use it instead of `CMD | grep -q`: under pipefail, grep -q
# exits at the first match, the writer may die of SIGPIPE, and the check
# fails at random.
has() { local p=$1 out; shift; out=$("$@" 2>&1) || true; grep -q -- "$p" <<<"$out"; }

# listener_in NS LOG PORT CMD...: CMD (a server) in NS, its output appended
# to LOG, stopped on exit; returns once something listens on TCP PORT in NS
# (readiness, not timing) and fails if CMD dies first. Sets LISTENER_PID.
# Not through a function such as in_b: a backgrounded function is a
# subshell, and $! would be that subshell.
listener_in()
{
	local ns=$1 log=$2 port=$3
	shift 3
	ip netns exec "$ns" "$@" >>"$log" 2>&1 &
	LISTENER_PID=$!
	on_exit "kill $LISTENER_PID 2>/dev/null; wait $LISTENER_PID 2>/dev/null"
	for _ in $(seq 600); do
		ip netns exec "$ns" ss -Hltn "sport = :$port" | grep -q . && return 0
		kill -0 "$LISTENER_PID" 2>/dev/null || fail "$1 died: $(cat "$log")"
		sleep 0.1
	done
	fail "$1 did not start: $(cat "$log")"
}

# server_in NS LOG ARGS...: listener_in for `ovlperf ARGS` on port
# ${SERVER_PORT:-5211}; sets SERVER_PID.
server_in()
{
	listener_in "$1" "$2" "${SERVER_PORT:-5211}" "$OVLPERF" "${@:3}"
	SERVER_PID=$LISTENER_PID
}

# The fixed ports the tests bind (the built-in overlay's 51900..., WireGuard's
# 51820, --cport 40000..40303) lie in the kernel's ephemeral range, where
# the daemons under test take ports of their own (a worker's sending port,
# a probe's socket): reserved in every namespace a test makes, so that no
# ephemeral port lands on one (a fresh-clone CI failed "cannot listen on
# 198.18.0.1:51901: Address already in use"). Per namespace, both families.
TEST_RESERVED_PORTS=40000-40399,51800-51999
reserve_test_ports()
{
	local ns
	for ns in "$@"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_local_reserved_ports=$TEST_RESERVED_PORTS
	done
}

# lab_make NAME [lab up options...]: a lab with any `ovlperf lab up` options
# (--hosts N, --mtu N, --rate 100M, --drop PCT, --block-icmp, --overlay),
# removed on exit. Hosts are ovp-NAME-0, ovp-NAME-1, ... in a chain; link i
# is 198.18.i.1 <-> 198.18.i.2 (2001:2:0:i::1 <-> ::2) on interface ovp<i>.
# A and B are hosts 0 and 1.
# claim_lab NAME: fails if another script that is still running made a lab
# of this name (its `lab down` of a leftover would stop the other's
# processes: test_tunnel_basic lost its `tunnel down` so to a script run
# beside it under the same name). Each claim is a file naming the script's
# shell by id and start time (an id alone comes round); removed on exit.
LAB_CLAIMS=/run/ovlperf-tests/labs
proc_start() { sed -n 's/^.*) //p' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
claim_lab()
{
	local f=$LAB_CLAIMS/$1 me pid st who
	me="$$ $(proc_start $$) $TEST_NAME"
	for _ in 1 2 3; do
		mkdir -p "$LAB_CLAIMS"
		(set -C && echo "$me" >"$f") 2>/dev/null && {
			on_exit "[ \"\$(cat '$f' 2>/dev/null)\" = '$me' ] && rm -f '$f'; rmdir -p $LAB_CLAIMS"
			return 0
		}
		read -r pid st who <"$f" 2>/dev/null || continue
		[ "$pid $st $who" = "$me" ] && return 0
		if [ -n "$st" ] && [ "$(proc_start "$pid")" = "$st" ]; then
			fail "lab $1 is in use by $who (pid $pid), still running"
		fi
		rm -f "$f" # its script ended without removing it
	done
	fail "could not claim lab $1 ($f)"
}

lab_make()
{
	local name=$1
	shift
	claim_lab "$name"
	"$OVLPERF" lab down "$name" >/dev/null 2>&1 || true
	on_exit "\"$OVLPERF\" lab down $name"
	"$OVLPERF" lab up "$name" "$@" >/dev/null
	A=ovp-$name-0
	B=ovp-$name-1
	reserve_test_ports $(ip netns list | awk -v p="^ovp-$name-[0-9]+$" '$1 ~ p {print $1}')
}

# lab_pair NAME [MTU]: hosts ovp-NAME-0 and ovp-NAME-1, 198.18.0.1 <-> 198.18.0.2
lab_pair() { lab_make "$1" --mtu "${2:-1500}"; }

# link_bytes NS: bytes through NS's ovp0 so far, both ways
link_bytes()
{
	ip -n "$1" -s -j link show ovp0 |
		python3 -c 'import json,sys; s=json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["bytes"]+s["tx"]["bytes"])'
}

# wait_link_bytes NS FROM BYTES PID: until BYTES more than FROM (link_bytes
# before PID started) went through NS's ovp0. A paced load that moved that
# much has run at least BYTES / rate, however slow the machine: readiness
# for an interrupt or a kill, not a timing assertion. Fails if PID ends
# first, or after 60 s.
wait_link_bytes()
{
	local i
	for i in $(seq 600); do
		[ $(($(link_bytes "$1") - $2)) -ge "$3" ] && return 0
		kill -0 "$4" 2>/dev/null || fail "process $4 ended before $3 bytes crossed ovp0 in $1"
		sleep 0.1
	done
	fail "$3 bytes did not cross ovp0 in $1 within 60 s"
}

in_a() { ip netns exec "$A" "$@"; }
in_b() { ip netns exec "$B" "$@"; }
# in_host NAME H CMD...: run CMD in host H of lab NAME
in_host() { local n=$1 h=$2; shift 2; ip netns exec "ovp-$n-$h" "$@"; }

# jq-free JSON field read: json_get FILE PATH (python3 is on the machine)
json_get() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d=d[int(k)] if isinstance(d,list) else d[k]
print(str(d).lower() if isinstance(d,bool) else d)' "$1" "$2"; }

# need_wg_cpu_cgroup: wireguard-go and wg (else the script fails), and a
# writable cgroup v1 cpu controller at CG=/sys/fs/cgroup/cpu (else the
# script ends, ok and skipped): what a test that holds a wireguard-go to a
# CPU quota needs.
need_wg_cpu_cgroup()
{
	command -v wireguard-go >/dev/null && command -v wg >/dev/null ||
		fail "wireguard-go and wg are needed (make deps)"
	CG=/sys/fs/cgroup/cpu
	if [ ! -w "$CG/cgroup.procs" ]; then
		echo "# no writable cgroup v1 cpu controller: nothing to run"
		ok "skipped: no cgroup v1 cpu controller at $CG"
		exit 0
	fi
}

# cg_move_thread NS THREAD CGROUP: in the background, moves the first
# process of namespace NS that has a thread named THREAD (its comm) into
# the cgroup directory CGROUP as soon as it runs, for up to 30 s; CG_MOVER
# is its pid (`wait $CG_MOVER` is 0 once it moved one).
cg_move_thread()
{
	local ns=$1 comm=$2 cg=$3
	(
		for _ in $(seq 3000); do
			for p in $(ip netns pids "$ns" 2>/dev/null); do
				if grep -qx "$comm" /proc/"$p"/task/*/comm 2>/dev/null; then
					echo "$p" >"$cg/cgroup.procs"
					exit 0
				fi
			done
			sleep 0.01
		done
		exit 1
	) &
	CG_MOVER=$!
	on_exit "kill $CG_MOVER 2>/dev/null"
}

# plain_pair C S CIF SIF N: two namespaces that are not an ovlperf lab, C
# (the client, 198.18.N.2 and 2001:2:0:N::2 on CIF) and S (the server,
# 198.18.N.1 and 2001:2:0:N::1 on SIF) joined by one veth; removed on exit.
plain_pair()
{
	local c=$1 s=$2 cif=$3 sif=$4 n=$5
	ip netns del "$c" 2>/dev/null || true
	ip netns del "$s" 2>/dev/null || true
	on_exit "ip netns del '$c'; ip netns del '$s'"
	ip netns add "$c"
	ip netns add "$s"
	reserve_test_ports "$c" "$s"
	ip -n "$c" link set lo up
	ip -n "$s" link set lo up
	ip -n "$c" link add "$cif" type veth peer name "$sif" netns "$s"
	ip -n "$c" addr add "198.18.$n.2/24" dev "$cif"
	ip -n "$c" addr add "2001:2:0:$n::2/64" dev "$cif" nodad
	ip -n "$s" addr add "198.18.$n.1/24" dev "$sif"
	ip -n "$s" addr add "2001:2:0:$n::1/64" dev "$sif" nodad
	ip -n "$c" link set "$cif" up
	ip -n "$s" link set "$sif" up
}

# py FILE EXPR: a value of a JSON document (d)
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# tun_txdrop NS DEV: DEV's tx_dropped in NS, as `ip -s link` says it
tun_txdrop()
{
	ip -n "$1" -s -j link show "$2" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])'
}

# tun_txdrop_check NS DEV ADDR DIR: a UDP load from NS to ADDR (an
# `ovlperf server` behind a VPN whose TUN in NS is DEV) faster than the VPN
# carries: the kernel drops at the TUN's queue what the VPN's process did
# not read in time. The client's host facts must count DEV's tx drops
# within `ip -s link`'s around the client, and most of them (the queue
# fills some milliseconds after the streams start, and what the sender had
# queued still meets the full TUN after the window: a CI under ASan
# counted 94.7 % in the window, 221894 of 234261). A run without drops
# says nothing of their count: tried again, up to three times.
tun_txdrop_check()
{
	local ns=$1 dev=$2 addr=$3 dir=$4 d0 d1 facts try
	for try in 1 2 3; do
		d0=$(tun_txdrop "$ns" "$dev")
		ip netns exec "$ns" "$OVLPERF" client -c "$addr" -u -b 20G -l 1200 -t 2 --json \
			>"$dir/txdrop.json" 2>"$dir/txdrop.err" ||
			fail "UDP to $addr through $dev failed: $(tail -2 "$dir/txdrop.err")"
		d1=$(tun_txdrop "$ns" "$dev")
		[ $((d1 - d0)) -gt 0 ] && break
	done
	[ $((d1 - d0)) -gt 0 ] || fail "$addr: no tx drops at $dev in 3 tries: no premise"
	facts=$(py "$dir/txdrop.json" "[l['tx_drops'] for l in d['host_facts']['client']['links'] if l['name'] == '$dev' and l['tun']][0]")
	[ "$facts" -le $((d1 - d0)) ] && [ "$facts" -ge $(((d1 - d0) * 85 / 100)) ] ||
		fail "$addr: the client's facts say $facts tx drops at $dev, ip -s link $((d1 - d0))"
	ok "$addr: $dev's tx drops: facts $facts, ip -s link $((d1 - d0))"
}

# link_hosts A B L N: two namespaces that are not an ovlperf lab, A
# (198.18.N.1, 2001:2:0:N::1) and B (.2, ::2), each on its interface le0,
# joined through a third, L, whose ends a and b carry no address and send
# nothing of their own: `ovlperf link run --a a --b b` (link_run_in) is the
# wire between them. No router solicitations, and permanent neighbours: no
# ARP or ND crosses the link, only the test's packets. Removed on exit.
link_hosts()
{
	local na=$1 nb=$2 nl=$3 n=$4 ns i=1 ma mb
	for ns in "$na" "$nb" "$nl"; do
		ip netns del "$ns" 2>/dev/null || true
		ip netns add "$ns"
		on_exit "ip netns del $ns"
		reserve_test_ports "$ns"
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.router_solicitations=0
	done
	ip link add le0 netns "$na" type veth peer name a netns "$nl"
	ip link add le0 netns "$nb" type veth peer name b netns "$nl"
	ip netns exec "$nl" sysctl -qw net.ipv6.conf.a.disable_ipv6=1 net.ipv6.conf.b.disable_ipv6=1
	ip -n "$nl" link set dev a up
	ip -n "$nl" link set dev b up
	for ns in "$na" "$nb"; do
		ip -n "$ns" addr add "198.18.$n.$i/24" dev le0
		ip -n "$ns" addr add "2001:2:0:$n::$i/64" dev le0 nodad
		ip -n "$ns" link set le0 up
		ip -n "$ns" link set lo up
		i=$((i + 1))
	done
	ma=$(ip -n "$na" -j link show le0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])')
	mb=$(ip -n "$nb" -j link show le0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])')
	ip -n "$na" neigh replace "198.18.$n.2" lladdr "$mb" dev le0 nud permanent
	ip -n "$na" neigh replace "2001:2:0:$n::2" lladdr "$mb" dev le0 nud permanent
	ip -n "$nb" neigh replace "198.18.$n.1" lladdr "$ma" dev le0 nud permanent
	ip -n "$nb" neigh replace "2001:2:0:$n::1" lladdr "$ma" dev le0 nud permanent
}

# link_run_in L FILE LOG ARGS...: `ovlperf link run --a a --b b ARGS` in
# link_hosts' namespace L, its counters in FILE, its output appended to
# LOG, stopped on exit; returns once FILE exists (its readiness), fails if
# it dies first. Sets LINK_PID.
link_run_in()
{
	local nl=$1 file=$2 log=$3
	shift 3
	rm -f "$file"
	ip netns exec "$nl" "$OVLPERF" link run --a a --b b --counters "$file" "$@" >>"$log" 2>&1 &
	LINK_PID=$!
	on_exit "kill $LINK_PID 2>/dev/null; wait $LINK_PID 2>/dev/null"
	for _ in $(seq 200); do
		[ -e "$file" ] && return 0
		kill -0 $LINK_PID 2>/dev/null || fail "link run $* died: $(cat "$log")"
		sleep 0.05
	done
	fail "link run $* did not start"
}
