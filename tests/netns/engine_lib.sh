# SPDX-License-Identifier: MIT
# Shared by the engine's netns tests: a server in host B, JSON checks.
# Sourced after lib.sh.

# start_server [ARGS...]: `ovlperf server` in host B, logs in $WORK/server.log
start_server() { server_in "$B" "$WORK/server.log" -v server "$@"; }

stop_server()
{
	kill "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" 2>/dev/null || true
}

# client JSONFILE ARGS...: runs the client in host A with --json
client()
{
	local out=$1
	shift
	in_a "$OVLPERF" client --json "$@" >"$out" 2>>"$WORK/client.log" ||
		fail "client $* failed: $(tail -3 "$WORK/client.log")"
}

# py FILE EXPR: evaluates a Python expression over the JSON document d
py() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval(sys.argv[2])
print(str(v).lower() if isinstance(v,bool) else v)' "$1" "$2"; }

# pyv FILE EXPR...: several expressions in one python start (it is slow on a
# loaded box); the values land in the array V, one per expression.
pyv()
{
	local f=$1
	shift
	mapfile -t V < <(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for e in sys.argv[2:]:
    v=eval(e)
    print(str(v).lower() if isinstance(v,bool) else v)' "$f" "$@")
	[ "${#V[@]}" -eq "$#" ] || fail "$f: could not evaluate $*"
}

WORK=$(mktemp -d /tmp/ovlperf-engine.XXXXXX)
on_exit "rm -rf $WORK"

# within_1pct WHAT GOT KERNEL: GOT within 1 % of a kernel or tunnel counter
within_1pct()
{
	local d=$(($2 - $3))
	[ $((${d#-} * 100)) -le "$3" ] || fail "$1: $2 vs $3 differ by more than 1 %"
	ok "$1: $2 vs $3 (within 1 %)"
}

# rcvbuf_errors NETNS FAMILY: RcvbufErrors of Udp (4) or Udp6 (6)
rcvbuf_errors()
{
	if [ "$2" = 6 ]; then
		ip netns exec "$1" awk '$1 == "Udp6RcvbufErrors" { print $2 }' /proc/net/snmp6
	else
		ip netns exec "$1" awk '/^Udp:/ { n++; if (n == 1) for (i = 2; i <= NF; i++) col[$i] = i;
			else print $col["RcvbufErrors"] }' /proc/net/snmp
	fi
}
