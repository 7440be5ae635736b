#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One `ovlperf server` holding 50 concurrent clients (a shared
# server keeps every client's result exact): lab
# "fe" with 3 hosts in a chain, the server in the middle one (--max-sessions
# 60), 25 clients started at once from each end host, half UDP at 2 Mbit/s,
# half TCP paced at 4 Mbit/s, 3 s each, released together from a barrier. Every client's JSON must be a
# complete, correct result: no error, UDP sent = received + lost with no
# loss at that rate and streams' bytes = received * len, TCP bytes received =
# bytes sent. The server must have held all 50 control connections at once,
# and the default limit (16) must refuse the 17th with a clear "busy".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"

N=${LOAD_CLIENTS:-50}
lab_make fe --hosts 3
S=ovp-fe-1
# server NAME ARGS...: `ovlperf server` in the middle host; sets SRV
server()
{
	local log=$1
	shift
	ip netns exec "$S" "$OVLPERF" server --no-rt "$@" >"$FA_DIR/$log" 2>&1 &
	SRV=$!
	on_exit "kill $SRV"
	for _ in $(seq 600); do ip netns exec "$S" ss -ltn | grep -q ':5211 ' && return 0; sleep 0.1; done
	fail "server does not listen: $(cat "$FA_DIR/$log")"
}
# barrier_client TAG NS ARGS...: `ovlperf client --json --no-rt ARGS` in NS,
# output in FA_DIR/TAG.json and .err, held at a barrier until release_all
# so that all start together however slowly a loaded machine spawns them
barrier_client()
{
	local tag=$1 ns=$2
	shift 2
	ip netns exec "$ns" sh -c 'touch "$0.ready.$1"; while [ ! -e "$0" ]; do sleep 0.05; done
		shift; exec "$@"' "$FA_DIR/go" "$tag" "$OVLPERF" client --json --no-rt "$@" \
		>"$FA_DIR/$tag.json" 2>"$FA_DIR/$tag.err" &
	pids+=($!)
}
# release_all N: once N clients wait at the barrier, lets them go
release_all()
{
	for _ in $(seq 600); do
		[ "$(find "$FA_DIR" -name 'go.ready.*' | wc -l)" -ge "$1" ] && break
		sleep 0.05
	done
	touch "$FA_DIR/go"
}
# sessions: established control connections at the server now
sessions() { ip netns exec "$S" ss -Htn state established '( sport = :5211 )' | wc -l; }

# 1. The default limit: 17 slow clients, one of them told the server is busy.
server srv16.log
pids=()
for i in $(seq 17); do barrier_client b$i "$A" 198.18.0.2 -u -b 100k -t 2; done
release_all 17
busy=0 good=0
for i in $(seq 17); do
	if wait "${pids[$((i - 1))]}"; then good=$((good + 1))
	elif grep -q "server busy" "$FA_DIR/b$i.err"; then busy=$((busy + 1)); fi
done
expect_eq "clients refused as busy by the default --max-sessions 16" "$busy" 1
expect_eq "clients served meanwhile" "$good" 16
kill "$SRV"
wait "$SRV" 2>/dev/null || true
rm -f "$FA_DIR"/go*

# 2. 50 at once with --max-sessions 60.
server srv.log --max-sessions 60
pids=()
for i in $(seq "$N"); do
	if [ $((i % 2)) = 0 ]; then ns=ovp-fe-0 dst=198.18.0.2; else ns=ovp-fe-2 dst=198.18.1.1; fi
	if [ $((i % 4)) -lt 2 ]; then args="-u -b 2M -l 1000"; else args="-b 4M -l 16384"; fi
	barrier_client c$i "$ns" "$dst" -t 3 $args
done
release_all "$N"
most=0
while :; do
	n=$(sessions)
	[ "$n" -gt "$most" ] && most=$n
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1 && break; done
	[ $alive = 0 ] && break
	sleep 0.2
done
failed=0
for i in $(seq "$N"); do
	wait "${pids[$((i - 1))]}" || { failed=$((failed + 1)); echo "# client $i: $(cat "$FA_DIR/c$i.err")"; }
done
expect_eq "clients that exited non-zero" "$failed" 0
expect_ge "control connections held at once by the server" "$most" "$N"

python3 - "$FA_DIR" "$N" <<'PY' || fail "per-client results"
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
udp = tcp = 0
for i in range(1, n + 1):
    r = json.load(open("%s/c%d.json" % (d, i)))
    assert r["error"] is None and r["interrupted"] is False, (i, r["error"])
    if r["test"]["protocol"] == "udp":
        u = r["udp"]; udp += 1
        assert u["sent"] == u["received"] + u["lost"], (i, u)
        assert u["lost"] == 0 and u["duplicates"] == 0, (i, "lost %d" % u["lost"])
        # 2 Mbit/s of 1000-byte datagrams for 3 s is 750; the pacer may fall short, not over
        assert 375 <= u["sent"] <= 751, (i, u["sent"])
        assert sum(s["bytes"] for s in r["streams"]) == u["received"] * 1000, i
    else:
        t = r["tcp"]; tcp += 1
        assert t["bytes"] == t["sent_bytes"] > 0, (i, t["bytes"], t["sent_bytes"])
        # 4 Mbit/s for 3 s is 1.5 MB: paced, so never more than that plus one write
        assert 750000 <= t["bytes"] <= 1500000 + 16384, (i, t["bytes"])
        assert sum(s["bytes"] for s in r["streams"]) == t["bytes"], i
print("# %d UDP and %d TCP results checked" % (udp, tcp))
assert udp + tcp == n
PY
ok "$N clients: every result complete and self-consistent (UDP no loss, TCP bytes = sent)"
kill -0 "$SRV" || fail "the server died under $N clients"
ok "the server still runs"
echo "$TEST_NAME: $CHECKS checks passed"
