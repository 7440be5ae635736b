# SPDX-License-Identifier: MIT
# Helpers for tests/netns/test_mtu_*.sh (sourced after lib.sh).
MT_DIR=$(mktemp -d /tmp/ovlperf-mtu-XXXXXX)
on_exit "rm -rf '$MT_DIR'"

# mt_chain NAME HOSTS MIDDLE_MTU [--block-icmp]: hosts ovp-NAME-0 .. N-1 in a
# chain of 1500-byte links, the link in the middle narrowed to MIDDLE_MTU on
# both of its ends (so only a router on the path knows). Sets A (first host),
# B (last host) and B4/B6 (B's addresses on its link).
mt_chain()
{
	local name=$1 hosts=$2 mid=$3 last
	claim_lab "$name"
	"$OVLPERF" lab down "$name" >/dev/null 2>&1 || true
	"$OVLPERF" lab up "$name" --hosts "$hosts" --mtu 1500 ${4:-} >/dev/null
	on_exit "\"$OVLPERF\" lab down $name"
	last=$((hosts - 1))
	A=ovp-$name-0
	B=ovp-$name-$last
	B4=198.18.$((last - 1)).2
	B6=2001:2:0:$((last - 1))::2
	if [ "$mid" != 1500 ]; then
		local l=$(((hosts - 1) / 2))
		ip -n "ovp-$name-$l" link set "ovp$l" mtu "$mid"
		ip -n "ovp-$name-$((l + 1))" link set "ovp$l" mtu "$mid"
	fi
}

# mt_server NS: `ovlperf server` in NS, stopped on exit
mt_server()
{
	local i
	ip netns exec "$1" "$OVLPERF" server >>"$MT_DIR/server-$1.log" 2>&1 &
	local pid=$!
	on_exit "kill $pid; wait $pid"
	for i in $(seq 600); do
		ip netns exec "$1" ss -ltn | grep -q ':5211 ' && return 0
		sleep 0.1
	done
	cat "$MT_DIR/server-$1.log" >&2
	fail "ovlperf server in $1 does not listen"
}

# mt_probe OUT NS ARGS...: `ovlperf mtu --json ARGS` in NS into OUT; sets MT_RC
mt_probe()
{
	local out=$1 ns=$2
	shift 2
	MT_RC=0
	ip netns exec "$ns" "$OVLPERF" mtu --json "$@" >"$out" 2>"$out.err" || MT_RC=$?
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" 2>/dev/null ||
		{ cat "$out.err" >&2; fail "ovlperf mtu $* printed no JSON"; }
}

# mt_verdict FILE PATH CHECK: level of that verdict ("" when absent)
mt_verdict()
{
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(next((v["level"] for v in d["verdicts"] if v["path"]==sys.argv[2] and v["check"]==sys.argv[3]), ""))' "$@"
}

# mt_reason FILE PATH CHECK: the reason and fix of that verdict
mt_reason()
{
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(next((v["reason"]+" | "+v["fix"] for v in d["verdicts"] if v["path"]==sys.argv[2] and v["check"]==sys.argv[3]), ""))' "$@"
}
