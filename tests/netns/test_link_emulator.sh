#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone
# The userspace WAN link (`ovlperf link run`, docs/link.md) between two plain
# namespaces, in a link namespace of its own:
#   - --delay 20ms: ping's RTT (min and avg of 20) is 2 x 20 ms within 0.3 ms,
#     IPv4 and IPv6; --delay 10ms/30ms gives 40 ms too (a->b 10, b->a 30);
#   - --loss 10%: every ping ping lost is one the link's counters dropped
#     (drop_loss of both directions = requests - replies), each direction's
#     share within the binomial 99 % interval of 10 %, and rx = tx + drops +
#     queued in both directions;
#   - a TCP transfer with the hosts' offloads on (super-packets reach the
#     link and are cut: gso_split > 0) and off (gso/tso/gro off: none) gets
#     through, and the link's tx_packets equal the far veth's rx packets as
#     the kernel counts them: the counts are per wire packet;
#   - --jitter 5ms: ovlperf's one-way delays are 20 ms + U(-5, 5) ms (min,
#     max, p50, p99 and mean where a uniform puts them) and nothing reorders;
#   - --reorder 5%: the link sends 5 % at once (binomial 99 %), and the
#     reordering ovlperf counts is what those packets cause;
#   - 1 Gbit/s of 1400-byte datagrams through a 40 ms link, offloads on and
#     off: every datagram lost between the hosts is one the link counted, and
#     the mean one-way delay is 40 ms + the link's own lateness + the
#     receiver socket's wait (p99 is printed: a speed, for the bench);
#   - an interface that does not exist and a bad value are refused, naming
#     the option and the value.
source "$(dirname "$0")/lib.sh"

NA=ovl-le-a NB=ovl-le-b NL=ovl-le-l
WORK=$(mktemp -d /tmp/ovl-le.XXXXXX)
on_exit "rm -rf $WORK"
# hosts A (198.18.77.1) and B (.2), the link's ends a and b in NL
link_hosts $NA $NB $NL 77

# link_start ARGS...: lib.sh's link_run_in, in the link namespace, with
# this test's counter file
link_start() { link_run_in $NL "$WORK/c" "$WORK/link.log" "$@"; }

# link_stop: SIGTERM; the process must exit 0 and mark its file exited.
link_stop()
{
	local rc=0
	kill -TERM $LINK_PID
	wait $LINK_PID || rc=$?
	expect_eq "link run exits 0 on SIGTERM" "$rc" 0
	expect_eq "counter file says exited" \
		"$("$OVLPERF" link show --json "$WORK/c" | python3 -c 'import json,sys; print(json.load(sys.stdin)["running"])')" \
		False
}

# counter DIR NAME: a->b or b->a counter from the file
counter()
{
	"$OVLPERF" link show "$WORK/c" --json | python3 -c 'import json,sys
d=json.load(sys.stdin)[sys.argv[1]]; print(d[sys.argv[2]])' "$1" "$2"
}

# The RTT check of rtt_check: ping's summary on stdin, the link's counters
# (JSON) before and after the series as arguments.
RTT_PY='import json, re, sys
what, want = sys.argv[1], float(sys.argv[2])
c0, c1 = json.loads(sys.argv[3]), json.loads(sys.argv[4])
text = sys.stdin.read()
m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)", text)
recv = int(re.search(r"(\d+) received", text).group(1))
mn, avg = float(m.group(1)), float(m.group(2))
late = 0.0
for d in ("a_to_b", "b_to_a"):
    n = c1[d]["tx_packets"] - c0[d]["tx_packets"]
    late += (c1[d]["late_sum_ns"] - c0[d]["late_sum_ns"]) / max(n, 1) / 1e6
print(f"{what}: min {mn} avg {avg} ms, {recv}/20 replies; the link sent {late:.3f} ms late on average (both ways)")
sys.exit(0 if recv == 20 and abs(mn - want) <= 0.3 and abs(avg - want - late) <= 0.3 else 1)'

# rtt_check WHAT DST EXPECTED_MS: the min of 20 pings within 0.3 ms of
# EXPECTED_MS, and the avg within 0.3 ms of it plus how late the link says it
# sent them. ping runs SCHED_FIFO as the link does, so its own wake-ups are
# not counted as the link's delay. How late the link's threads wake on a
# machine busy with other work (this kernel does not preempt in kernel mode)
# is a speed, for bench/link_emulator.sh; that the link's due times are right
# and its lateness counters honest is what this checks. The far host's
# softirq work is not the link's to schedule either: up to 3 series of 20,
# the first within the bounds passes. A link that adds delay fails all 3.
rtt_check()
{
	local out try c0
	# one ping first: nothing may be pending from before
	ip netns exec $NA ping -n -q -c 1 -W 2 "$2" >/dev/null || fail "$1: no reply"
	for try in 1 2 3; do
		c0=$("$OVLPERF" link show --json "$WORK/c")
		out=$(ip netns exec $NA chrt -f 5 ping -n -q -c 20 -i 0.05 -W 2 "$2") ||
			fail "$1: ping failed: $out"
		if python3 -c "$RTT_PY" "$1" "$3" "$c0" "$("$OVLPERF" link show --json "$WORK/c")" \
			<<<"$out"; then
			ok "$1: RTT min and avg $3 ms within 0.3 ms"
			return 0
		fi
	done
	fail "$1: RTT not $3 ms within 0.3 ms in 3 series of 20: $out"
}

# Refusals: no such interface, bad values (the option and the value named).
rc=0
ip netns exec $NL "$OVLPERF" link run --a a --b nosuch0 --counters "$WORK/x" 2>"$WORK/err" || rc=$?
expect_eq "missing interface refused" "$rc" 2
has "--b nosuch0: no such interface" cat "$WORK/err" || fail "message: $(cat "$WORK/err")"
ok "the missing interface is named"
for bad in "--delay 20xs" "--loss 120%" "--loss-burst 5%" "--rate 1GB" "--jitter 1ms/2ms/3ms" \
	"--limit 1k" "--seed -1" "--reorder 0.00001%"; do
	set -- $bad
	rc=0
	ip netns exec $NL "$OVLPERF" link run --a a --b b --counters "$WORK/x" "$1" "$2" \
		2>"$WORK/err" || rc=$?
	expect_eq "$bad refused" "$rc" 2
	has "ovlperf link: $1: .*$2" cat "$WORK/err" || fail "$bad: message: $(cat "$WORK/err")"
	ok "$bad: the option and the value are named"
done
[ ! -e "$WORK/x" ] || fail "a refused run left a counter file"

link_start --delay 20ms
rtt_check "IPv4 --delay 20ms" 198.18.77.2 40
rtt_check "IPv6 --delay 20ms" 2001:2:0:77::2 40
link_stop

link_start --delay 10ms/30ms
rtt_check "IPv4 --delay 10ms/30ms" 198.18.77.2 40
rtt_check "IPv6 --delay 10ms/30ms" 2001:2:0:77::2 40
link_stop

# Loss: 2000 pings, seeded.
link_start --loss 10% --seed 7
out=$(ip netns exec $NA ping -n -q -c 2000 -i 0.002 -W 1 198.18.77.2 || true)
sleep 0.2
sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$out")
recv=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' <<<"$out")
[ -n "$sent" ] && [ -n "$recv" ] || fail "ping output: $out"
"$OVLPERF" link show "$WORK/c" >"$WORK/show.txt"
python3 - "$sent" "$recv" "$("$OVLPERF" link show --json "$WORK/c")" <<'EOF' || fail "loss check: $out $(cat "$WORK/show.txt")"
import json, math, sys
sent, recv, d = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
ab, ba = d["a_to_b"], d["b_to_a"]
bad = []
def check(what, cond):
    print(("ok " if cond else "NOT ") + what)
    if not cond:
        bad.append(what)
check(f"a->b rx {ab['rx_packets']} = pings sent {sent}", ab["rx_packets"] == sent)
check(f"drop_loss a->b {ab['drop_loss']} + b->a {ba['drop_loss']} = pings lost {sent - recv}",
      ab["drop_loss"] + ba["drop_loss"] == sent - recv)
check(f"b->a tx {ba['tx_packets']} = replies {recv}", ba["tx_packets"] == recv)
for name, c in (("a->b", ab), ("b->a", ba)):
    n, k = c["rx_packets"], c["drop_loss"]
    half = 2.5758 * math.sqrt(n * 0.1 * 0.9)
    check(f"{name}: {k} of {n} lost, in {n * 0.1 - half:.0f}..{n * 0.1 + half:.0f} (99 %)",
          abs(k - n * 0.1) <= half)
    drops = sum(c[f] for f in ("drop_loss", "drop_burst", "drop_queue", "drop_rate", "drop_other"))
    check(f"{name}: rx {n} = tx {c['tx_packets']} + drops {drops} + queued {c['queue_packets']}",
          n == c["tx_packets"] + drops + c["queue_packets"])
sys.exit(1 if bad else 0)
EOF
ok "loss: ping's losses are the link's drop_loss, 10 % within 99 %, rx = tx + drops + queued"
link_stop

# rx_packets NS: packets le0 received, as the kernel counts them
rx_packets() { ip -n "$1" -s -j link show le0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'; }

# tcp_check WHAT: a 2 s TCP transfer a -> b through a fresh link; the link's
# tx per direction = the far host's rx per direction. Prints gso_split a->b.
tcp_check()
{
	local b0 a0 b1 a1
	b0=$(rx_packets $NB)
	a0=$(rx_packets $NA)
	link_start --delay 1ms
	ip netns exec $NA "$OVLPERF" client --json 198.18.77.2 -t 2 >"$WORK/tcp.json" \
		2>>"$WORK/client.log" || fail "$1: client failed: $(tail -3 "$WORK/client.log")"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["error"] is None and d["tcp"]["bytes"] > 1000000 and d["tcp"]["bytes"] == d["tcp"]["sent_bytes"] else 1)' \
		"$WORK/tcp.json" || fail "$1: transfer: $(cat "$WORK/tcp.json")"
	ok "$1: TCP transfer delivered every byte"
	sleep 0.2
	b1=$(rx_packets $NB)
	a1=$(rx_packets $NA)
	expect_eq "$1: a->b tx_packets = host B's le0 rx packets" "$(counter a_to_b tx_packets)" $((b1 - b0))
	expect_eq "$1: b->a tx_packets = host A's le0 rx packets" "$(counter b_to_a tx_packets)" $((a1 - a0))
	expect_eq "$1: a->b queue empty" "$(counter a_to_b queue_packets)" 0
	GSO_SPLIT=$(counter a_to_b gso_split)
	link_stop
}

listener_in $NB "$WORK/server.log" 5211 "$OVLPERF" server

# udp_run NAME DST ARGS...: a UDP test a -> DST (client --json) through the
# link running now; $WORK/NAME.json, and the link's counters before and
# after in $WORK/NAME.c0 and NAME.c1
udp_run()
{
	local n=$1 dst=$2
	shift 2
	"$OVLPERF" link show --json "$WORK/c" >"$WORK/$n.c0"
	ip netns exec $NA "$OVLPERF" client --json "$dst" -u "$@" >"$WORK/$n.json" \
		2>>"$WORK/client.log" || fail "$n: client failed: $(tail -3 "$WORK/client.log")"
	sleep 0.2
	"$OVLPERF" link show --json "$WORK/c" >"$WORK/$n.c1"
}

# The checks on one UDP test and the link's counters around it, in one
# python: argv = what, mode, then the test's JSON and the two counter files.
cat >"$WORK/udp.py" <<'EOF'
import json, math, sys
what, mode = sys.argv[1], sys.argv[2]
d = json.load(open(sys.argv[3]))
c0, c1 = (json.load(open(f)) for f in sys.argv[4:6])
u, owd = d["udp"], d["udp"]["owd_us"]
ab = {k: v - c0["a_to_b"][k] for k, v in c1["a_to_b"].items() if isinstance(v, int) and not isinstance(v, bool)}
late_max = c1["a_to_b"]["late_max_ns"] / 1e6
late_avg = ab["late_sum_ns"] / max(ab["tx_packets"], 1) / 1e6
ms = {k: owd[k] / 1e3 for k in ("min", "p50", "p99", "max", "mean")}
bad = []
def check(text, cond):
    print(("ok " if cond else "NOT ") + what + ": " + text)
    if not cond:
        bad.append(text)
check(f"no error, {u['sent']} sent, one-way delay exact (one clock)", d["error"] is None and u["owd_shared_clock"] is True)
if mode == "jitter":
    # --delay 20ms --jitter 5ms, datagrams 12.5 ms apart (more than 2 x the
    # jitter, so due = max(sample, previous due) never binds): the one-way
    # delay is 20 ms + U(-5, 5) ms
    check(f"nothing lost ({u['lost']}), nothing reordered ({u['reordered']})", u["lost"] == 0 and u["reordered"] == 0)
    check(f"min {ms['min']:.3f} ms in 15..15.5", 15 - 0.01 <= ms["min"] <= 15.5)
    # the largest alone is one hiccup of a virtual machine's CPU away from
    # anything: only that the top of the range was reached
    check(f"max {ms['max']:.3f} ms >= 24.5 (the top of the range is reached)", ms["max"] >= 24.5)
    check(f"p50 {ms['p50']:.3f} ms in 20 + the link's mean lateness {late_avg:.3f} +/- 0.8", abs(ms["p50"] - 20 - late_avg) <= 0.8)
    check(f"p99 {ms['p99']:.3f} ms in 24.6..25.2 (uniform: 24.9)", 24.6 <= ms["p99"] <= 25.2 + late_max)
    # the mean of n uniform samples: sd 10 / sqrt(12 n)
    sd = 10 / math.sqrt(12 * max(u["received"], 1))
    check(f"mean {ms['mean']:.3f} ms in 20 + the link's mean lateness {late_avg:.3f} +/- {4 * sd:.3f} (4 sd) + 0.1",
          abs(ms["mean"] - 20 - late_avg) <= 4 * sd + 0.1)
    check(f"the link reordered nothing ({ab['reordered']})", ab["reordered"] == 0)
elif mode == "reorder":
    # --delay 3ms --reorder 5%, datagrams 2 ms apart: a datagram the link
    # sends at once overtakes the one before it (due 1 ms later) unless that
    # one went at once too, and never the one before that (due 1 ms before):
    # the receiver sees one datagram fill a hole per such event.
    n, r = ab["rx_packets"], ab["reordered"]
    half = 2.5758 * math.sqrt(n * 0.05 * 0.95)
    check(f"the link sent {r} of {n} at once: 5 % within {n * 0.05 - half:.0f}..{n * 0.05 + half:.0f} (99 %)", abs(r - n * 0.05) <= half)
    want = r * 0.95
    tol = 2.5758 * math.sqrt(r * 0.05 * 0.95) + 3
    check(f"ovlperf counted {u['reordered']} reordered, the link's {r} x 0.95 = {want:.0f} +/- {tol:.0f}", abs(u["reordered"] - want) <= tol)
    check(f"nothing lost ({u['lost']})", u["lost"] == 0)
elif mode == "rate":
    # --delay 40ms at 1 Gbit/s: the loss ovlperf places between the hosts
    # is loss the link counted (a drop by reason, or the kernel's drop on
    # its socket; wire packets: a datagram is one), the rest is placed on the
    # hosts by their own counters. Every millisecond of one-way delay above
    # the 40 set is accounted for: the mean is 40 ms + how late the link
    # sent (its late_sum_ns over tx_packets) + how long datagrams waited in
    # the receiver's socket (ovlperf's rx_wait). How far p50 and p99 are
    # above 40 ms depends on how the machine schedules the link, the sender
    # and the receiver on its cores (seen: p50 45 ms with the receiver's
    # socket holding datagrams 10.8 ms on average while `make check` built
    # beside): a speed, printed here and measured in bench/link_emulator.sh,
    # never asserted.
    drops = sum(ab[f] for f in ("drop_loss", "drop_burst", "drop_queue", "drop_rate", "drop_other", "rx_kernel_drops"))
    net = (u.get("loss_at") or {}).get("network", 0)
    gbit = u.get("achieved_bps", 0) / 1e9
    check(f"{u['sent']} sent at {gbit:.2f} Gbit/s, {u['lost']} lost, {net} of them between the hosts; the link dropped {drops} ({ab['queue_packets']} still queued)",
          net <= drops + ab["queue_packets"] and drops <= u["lost"] + 3)
    wait = u["rx_wait_us"]["mean"] / 1e3
    want = 40 + late_avg + wait
    check(f"mean one-way delay {ms['mean']:.3f} ms = 40 + the link's mean lateness {late_avg:.3f} + the receiver socket's mean wait {wait:.3f} = {want:.3f} within 0.2 ms "
          f"(p50 {ms['p50']:.3f}, p99 {ms['p99']:.3f}, max {ms['max']:.3f}; the link's latest send {late_max:.3f} ms, polling budget used up {ab['spin_stops']} times)",
          abs(ms["mean"] - want) <= 0.2)
    lim = c1["a_to_b"]
    check(f"the link's queue peaked at {lim['queue_max_bytes']} bytes, within its bound {lim['limit_bytes']}", lim["queue_max_bytes"] <= lim["limit_bytes"])
sys.exit(1 if bad else 0)
EOF

# udp_check WHAT MODE NAME: the checks above on the test NAME
udp_check() { python3 "$WORK/udp.py" "$1" "$2" "$WORK/$3.json" "$WORK/$3.c0" "$WORK/$3.c1" || fail "$1: see above"; ok "$1"; }

# Jitter: the distribution ovlperf measures is the one set. 80 datagrams a
# second (1000 bytes, 640 kbit/s), one per wire packet (--no-gso), 4 s.
link_start --delay 20ms --jitter 5ms --seed 3
udp_run jit 2001:2:0:77::2 -l 1000 -b 640k -t 4 --no-gso
udp_check "IPv6 --jitter 5ms: one-way delay uniform in 15..25 ms" jitter jit
link_stop

# Reorder: 500 datagrams a second for 4 s, each its own wire packet.
link_start --delay 3ms --reorder 5% --seed 11
udp_run reo 198.18.77.2 -l 1000 -b 4M -t 4 --no-gso
udp_check "IPv4 --reorder 5%: the reordering ovlperf counts is the link's" reorder reo
link_stop

# rate_check WHAT DST: 1 Gbit/s of 1400-byte datagrams for 2 s through a
# 40 ms link (its bandwidth-delay product is 5 MB: the default bound holds it)
rate_check()
{
	link_start --delay 40ms
	udp_run rate "$2" -l 1400 -b 1G -t 2
	udp_check "$1: 1 Gbit/s through 40 ms" rate rate
	link_stop
}
rate_check "IPv4, offloads on" 198.18.77.2

tcp_check "offloads on"
expect_ge "offloads on: super-packets were cut (gso_split)" "$GSO_SPLIT" 1
for ns in $NA $NB; do
	ip netns exec $ns ethtool -K le0 gso off tso off gro off >/dev/null 2>&1 ||
		fail "ethtool -K in $ns"
done
tcp_check "offloads off"
expect_eq "offloads off: no super-packet arrived" "$GSO_SPLIT" 0
rate_check "IPv6, offloads off" 2001:2:0:77::2
