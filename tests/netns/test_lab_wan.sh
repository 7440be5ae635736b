#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone
# WAN conditions on lab links (`lab up --delay/--loss ...`, docs/man/ovlperf-lab.1):
# - a bad value is refused with a clear message and creates nothing;
# - the means is netem where the kernel has it, else the userspace
#   emulator in namespace ovp-NAME-l0, and `lab show` says which and what;
# - ping's round trip is twice the delay within 0.3 ms at low load, and
#   ovlperf's one-way delay (client -u JSON, udp.owd_us p50) is the delay
#   within 0.2 ms through the underlay and the built-in overlay, IPv4 and
#   IPv6; --delay X/Y gives each direction its own;
# - --loss 1% loses a UDP test's datagrams within the binomial 99 % interval,
#   the loss is placed in "the network between the hosts", and the
#   emulator's drop_loss counts them (per packet: the client sends without
#   GSO, and the emulator counts wire packets);
# - a TCP flow whose receiver's buffer maximum is below the bandwidth-delay
#   product moves at most window / RTT;
# - `lab down` leaves no namespace and no file behind;
# - `ovlperf lab up demo --delay 40ms` works as the manual page shows.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

DELAY_MS=20

no_trace()
{
	local n=$1 left
	left=$(ls /run/netns /run/ovlperf/labs 2>/dev/null | grep -E "^(ovp-)?$n([.-]|$)" || true)
	expect_eq "nothing of lab $n left (namespaces, state, logs, counters)" "$left" ""
}

# refused WHAT PATTERN ARGS...: lab up refuses with exit 2, says PATTERN, makes nothing
refused()
{
	local what=$1 pat=$2 rc=0 out
	shift 2
	out=$("$OVLPERF" lab up lwanbad "$@" 2>&1) || rc=$?
	expect_eq "$what: exit status" "$rc" 2
	grep -q -- "$pat" <<<"$out" || fail "$what: message '$out' does not say '$pat'"
	ok "$what: the message says $pat"
	no_trace lwanbad
}

refused "--delay 40parsecs" "'40parsecs' is not a duration" --delay 40parsecs
refused "--loss 120%" "'120%' is not a percentage" --loss 120%
refused "--link 0:loss-burst=1%" "loss-burst" --link 0:loss-burst=1%
refused "--loss with --loss-burst" "one or the other" --loss 1% --loss-burst 1%,20%

# means_of NAME: how lab show says link 0's conditions are made
means_of() { "$OVLPERF" lab show "$1" | sed -n 's/^  link 0: .*, \(netem\|userspace\): .*/\1/p'; }

# ping_rtt NS ADDR: "min median" round trip in ms of 40 pings at low load,
# after two that resolve the neighbour (ARP, ND: a round trip of their own)
ping_rtt()
{
	ip netns exec "$1" ping -c 2 -i 0.1 "$2" >/dev/null
	ip netns exec "$1" ping -c 40 -i 0.05 -s 56 "$2" |
		sed -n 's/.* time=\([0-9.]*\) ms/\1/p' |
		python3 -c 'import sys, statistics as s; v=[float(x) for x in sys.stdin]
print(min(v), s.median(v)) if len(v) >= 30 else print("lost lost")'
}

# between WHAT GOT LO HI: LO <= GOT <= HI (decimals)
between()
{
	python3 -c 'import sys; g,l,h=map(float,sys.argv[1:]); sys.exit(not l <= g <= h)' "$2" "$3" "$4" ||
		fail "$1: $2, expected $3..$4"
	ok "$1: $2 (expected $3..$4)"
}

# within WHAT GOT WANT TOL: |GOT - WANT| <= TOL (decimals)
within()
{
	python3 -c 'import sys; g,w,t=map(float,sys.argv[1:]); sys.exit(abs(g-w) > t)' "$2" "$3" "$4" ||
		fail "$1: $2, expected $3 +/- $4"
	ok "$1: $2 (expected $3 +/- $4)"
}

# A median round trip: never less than the delay asked for (less 0.3 ms of
# timer and clock granularity), and at most 1 ms more: the link's process
# and ping share a loaded machine's cores with the other tests (a
# fresh-clone CI measured 80.6 ms for 80), a delay twice the asked one
# still fails.
median_rtt()
{
	python3 -c 'import sys; g,w=map(float,sys.argv[1:]); sys.exit(not w - 0.3 <= g <= w + 1.0)' \
		"$2" "$3" || fail "$1: $2, expected $3 -0.3/+1.0"
	ok "$1: $2 (expected $3 -0.3/+1.0)"
}

lab_make lwan --delay ${DELAY_MS}ms
means=$(means_of lwan)
if [ -e /proc/net/psched ] && ip netns exec "$A" tc qdisc show dev ovp0 | grep -q netem; then
	expect_eq "means with netem in the kernel" "$means" netem
else
	expect_eq "means without netem in the kernel (auto)" "$means" userspace
	[ -e /run/netns/ovp-lwan-l0 ] || fail "no link namespace ovp-lwan-l0"
	ok "link namespace ovp-lwan-l0 between the hosts"
	has "emulator in netns ovp-lwan-l0, pid" "$OVLPERF" lab show lwan ||
		fail "lab show names no emulator: $("$OVLPERF" lab show lwan)"
	ok "lab show names the emulator and its namespace"
	[ "$(json_get <("$OVLPERF" lab show lwan --json) links.0.means)" = userspace ] ||
		fail "lab show --json: links[0].means is not userspace"
	ok "lab show --json: links[0].means = userspace"
fi
has "delay ${DELAY_MS}ms" "$OVLPERF" lab show lwan || fail "lab show does not print the delay"
ok "lab show prints what the link applies (delay ${DELAY_MS}ms)"

for dst in 198.18.0.2 2001:2:0:0::2; do
	read -r lo med < <(ping_rtt "$A" $dst)
	within "ping $dst: least round trip" "$lo" $((2 * DELAY_MS)) 0.3
	median_rtt "ping $dst: median round trip" "$med" $((2 * DELAY_MS))
done
if [ "$means" = userspace ]; then
	has "a->b rx [1-9]" "$OVLPERF" lab show lwan || fail "lab show prints no counters"
	has "b->a rx [1-9]" "$OVLPERF" lab show lwan || fail "lab show prints no counters back"
	ok "lab show prints the emulator's counters per direction"
fi

start_server
for dst in 198.18.0.2 2001:2:0:0::2; do
	client "$WORK/owd.json" $dst -u -b 10M -t 1
	pyv "$WORK/owd.json" 'd["udp"]["owd_us"]["p50"]' 'd["udp"]["owd_shared_clock"]'
	expect_eq "$dst: one clock" "${V[1]}" true
	within "$dst: one-way delay p50 (us)" "${V[0]}" $((DELAY_MS * 1000)) 200
done

# TCP with the receiver's buffer at most RMEM: window-bound, at most
# RMEM / RTT whatever the rate of the link
RMEM=262144
in_b sysctl -q -w net.ipv4.tcp_rmem="4096 65536 $RMEM"
for dst in 198.18.0.2 2001:2:0:0::2; do
	client "$WORK/tcp.json" $dst -t 2
	pyv "$WORK/tcp.json" 'd["tcp"]["goodput_bps"]' \
		"0 < d['tcp']['goodput_bps'] <= $RMEM * 8 / ($((2 * DELAY_MS)) / 1000)"
	expect_eq "$dst: TCP goodput ${V[0]} bit/s within window / RTT ($RMEM B / $((2 * DELAY_MS)) ms)" \
		"${V[1]}" true
done
stop_server

"$OVLPERF" lab down lwan
no_trace lwan

# Each direction its own: 8 ms there, 5 ms back; and the built-in overlay.
# Read as each direction's least one-way delay, the delay element's floor:
# every packet waits the 8 ms, and what a loaded machine adds on top (the
# threads' wake-ups, the overlay's daemons) moves the median, not the least.
# A fresh-clone CI's overlay read a median of 8978 us against 8000 and 142
# without the delay; the emulator's own packets a median of 8094. Measured
# first in the same lab without conditions, the path's own least may come
# on top of the delay, within 0.2 ms of either (0.5 ms through the
# overlay).
declare -A BASE
lab_make lwano --overlay
start_server
for dst in 198.18.0.2 198.19.0.2 2001:2:0:ff::2; do
	client "$WORK/owd.json" $dst -u -b 10M -t 1
	client "$WORK/owdr.json" $dst -u -b 10M -t 1 -R
	BASE[$dst]="$(py "$WORK/owd.json" 'd["udp"]["owd_us"]["min"]') $(py "$WORK/owdr.json" 'd["udp"]["owd_us"]["min"]')"
done
stop_server
"$OVLPERF" lab down lwano
lab_make lwano --delay 8ms/5ms --overlay
start_server
for dst in 198.18.0.2 198.19.0.2 2001:2:0:ff::2; do
	read -r ab ba <<<"${BASE[$dst]}"
	client "$WORK/owd.json" $dst -u -b 10M -t 1
	client "$WORK/owdr.json" $dst -u -b 10M -t 1 -R
	# through the overlay its daemons' time under load comes on top of
	# the baseline too: 0.5 ms of slack there
	slack=200
	[ "$dst" != 198.18.0.2 ] && slack=500 # the overlay's addresses
	echo "# $dst: medians $(py "$WORK/owd.json" 'd["udp"]["owd_us"]["p50"]') and $(py "$WORK/owdr.json" 'd["udp"]["owd_us"]["p50"]') us"
	between "$dst: a->b least one-way delay (us), $ab without the delay" \
		"$(py "$WORK/owd.json" 'd["udp"]["owd_us"]["min"]')" 7800 "$(python3 -c "print(8000 + $slack + $ab)")"
	between "$dst: b->a least one-way delay (us), $ba without the delay" \
		"$(py "$WORK/owdr.json" 'd["udp"]["owd_us"]["min"]')" 4800 "$(python3 -c "print(5000 + $slack + $ba)")"
done
stop_server
"$OVLPERF" lab down lwano
no_trace lwano

# 1 % loss one way: the loss of a UDP test and where it was lost
lab_make lwanl --loss 1%/0
means=$(means_of lwanl)
start_server
for dst in 198.18.0.2 2001:2:0:0::2; do
	c0=$("$OVLPERF" lab show lwanl --json | python3 -c 'import json,sys
l=json.load(sys.stdin)["links"][0]; print(l["counters"]["a_to_b"]["drop_loss"] if l["means"] == "userspace" else -1)')
	client "$WORK/loss.json" $dst -u -b 20M -t 3 --no-gso
	c1=$("$OVLPERF" lab show lwanl --json | python3 -c 'import json,sys
l=json.load(sys.stdin)["links"][0]; print(l["counters"]["a_to_b"]["drop_loss"] if l["means"] == "userspace" else -1)')
	pyv "$WORK/loss.json" 'd["udp"]["sent"]' 'd["udp"]["lost"]' 'd["udp"]["loss_at"]["network"]' \
		'd["udp"]["loss_at"].get("network_where", "")' \
		'[p["fix"] for p in d["udp"]["loss_places"] if p["place"] == "network"]'
	sent=${V[0]} lost=${V[1]} net=${V[2]}
	case "${V[3]}" in
	"lab lwanl link 0 ($means: loss "*) ok "$dst: the network's loss is named: ${V[3]}" ;;
	*) fail "$dst: loss_at.network_where is '${V[3]}', not lab lwanl's link 0" ;;
	esac
	grep -q "lab lwanl link 0" <<<"${V[4]}" || fail "$dst: the network's fix does not name the link: ${V[4]}"
	ok "$dst: the network's fix names the emulated link"
	# the binomial 99 % interval of the lost count: n p +/- 2.576 sqrt(n p (1 - p))
	within "$dst: lost $lost of $sent at 1 %" "$lost" \
		"$(python3 -c "print($sent * 0.01)")" "$(python3 -c "print(2.576 * ($sent * 0.01 * 0.99) ** 0.5)")"
	expect_eq "$dst: the loss is placed in the network between the hosts" "$net" "$lost"
	if [ "$c0" != -1 ]; then
		# what else crossed a->b meanwhile (the control connection, ND) may
		# have been lost too: the emulator's drops are the test's and at
		# most those few
		d=$((c1 - c0))
		[ "$d" -ge "$lost" ] && [ "$d" -le $((lost + 3)) ] ||
			fail "$dst: the emulator dropped $d, the test lost $lost"
		ok "$dst: the emulator's drop_loss ($d) counts the test's $lost lost datagrams"
	fi
done
stop_server
"$OVLPERF" lab down lwanl
no_trace lwanl

# The manual page's example, as written
if "$OVLPERF" lab list | grep -q '^demo '; then
	fail "a lab named demo exists already: this test will not touch it"
fi
on_exit "\"$OVLPERF\" lab down demo"
"$OVLPERF" lab up demo --delay 40ms >"$WORK/demo.txt"
grep -q "delay 40ms" "$WORK/demo.txt" || fail "lab up demo: $(cat "$WORK/demo.txt")"
ok "lab up demo --delay 40ms prints the link's delay"
read -r lo med < <(ping_rtt ovp-demo-0 198.18.0.2)
median_rtt "demo: median round trip" "$med" 80
"$OVLPERF" lab down demo
no_trace demo

echo "$TEST_NAME: $CHECKS checks passed"
