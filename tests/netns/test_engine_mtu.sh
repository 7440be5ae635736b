#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UDP datagrams bigger than the path MTU. Three hosts, link 1 (the far one)
# with MTU 1280. Without --dont-fragment the kernel fragments them, as with
# iperf3: the test runs and says so (fragments per datagram, path MTU, a
# warning). With --dont-fragment one that does not fit is ONE clear error
# naming the MTU and the -l that fits, the JSON's error, exit status 1:
# before anything is sent when the MTU is known (link 0, 1500), or as soon
# as the router's ICMP says so (link 1, learned during the test), in both
# directions and over IPv4 and IPv6.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_make fx --hosts 3 --link 1:mtu=1280
B=ovp-fx-2	# the server in host 2, behind the 1280 link
start_server

# refused JSONFILE ARGS...: the client must exit 1 with one error line
refused()
{
	local out=$1 rc=0
	shift
	in_a "$OVLPERF" client --json "$@" >"$out" 2>"$WORK/err" || rc=$?
	expect_eq "$*: exit status" "$rc" 1
	expect_eq "$*: one error line on stderr, no flood" "$(grep -c . "$WORK/err")" 1
}

# above link 0's MTU 1500: known before START
refused "$WORK/df0.json" 198.18.1.2 -u -l 2000 --dont-fragment -b 50M -t 1
pyv "$WORK/df0.json" 'd["error"]' 'd["udp"]["sent"]'
case "${V[0]}" in
*"datagram of 2000 B does not fit the path MTU 1500 via ovp0"*"use -l 1472 or less"*) ok "df0: error names MTU and -l" ;;
*) fail "df0: error: ${V[0]}" ;;
esac
# refused before START: no test ran, so it has no figures (null, not 0)
expect_eq "df0: nothing measured" "${V[1]}" None

# without DF: measured fragmented, and reported so (before any ICMP taught
# the sender the 1280 of link 1)
client "$WORK/frag0.json" 198.18.1.2 -u -l 2000 -b 50M -t 1
pyv "$WORK/frag0.json" 'd["error"]' 'd["udp"]["fragments"]' 'd["udp"]["path_mtu"]' \
	'd["udp"]["received"] > 0' 'd["udp"]["dont_fragment"]'
expect_eq "frag0: error" "${V[0]}" None
expect_eq "frag0: fragments per datagram" "${V[1]}" 2
expect_eq "frag0: path MTU" "${V[2]}" 1500
expect_eq "frag0: datagrams arrived" "${V[3]}" true
expect_eq "frag0: DF" "${V[4]}" false
has "each leaves as 2 IP fragments" tail -n 5 "$WORK/client.log" && ok "frag0: warned" || fail "frag0: no warning"
# the 1280 link, learned from the router's ICMP during the test
refused "$WORK/df1.json" 198.18.1.2 -u -l 1400 --dont-fragment -b 50M -t 1
case "$(py "$WORK/df1.json" 'd["error"]')" in
*"does not fit the path MTU 1280"*"use -l 1252 or less"*) ok "df1: error names MTU and -l" ;;
*) fail "df1: error: $(py "$WORK/df1.json" 'd["error"]')" ;;
esac
refused "$WORK/df1r.json" 198.18.1.2 -u -l 1400 --dont-fragment -b 50M -t 1 -R
case "$(py "$WORK/df1r.json" 'd["error"]')" in
*"does not fit the path MTU 1280"*) ok "df1 reverse: the server's error reaches the client" ;;
*) fail "df1 reverse: error: $(py "$WORK/df1r.json" 'd["error"]')" ;;
esac
refused "$WORK/df6.json" 2001:2:0:1::2 -u -l 1400 --dont-fragment -b 50M -t 1
case "$(py "$WORK/df6.json" 'd["error"]')" in
*"does not fit the path MTU 1280"*"IPv6"*"use -l 1232 or less"*) ok "df6: error names MTU and -l" ;;
*) fail "df6: error: $(py "$WORK/df6.json" 'd["error"]')" ;;
esac

# IPv6, the MTU learned from the router's packet-too-big during the test: the
# sender goes on (the kernel fragments from then on)
client "$WORK/frag6.json" 2001:2:0:1::2 -u -l 1400 -b 50M -t 1
pyv "$WORK/frag6.json" 'd["error"]' 'd["udp"]["fragments"]' 'd["udp"]["path_mtu"]' \
	'd["udp"]["received"] > 0.9 * d["udp"]["sent"]'
expect_eq "frag6: error" "${V[0]}" None
expect_eq "frag6: fragments per datagram" "${V[1]}" 2
expect_eq "frag6: path MTU" "${V[2]}" 1280
expect_eq "frag6: datagrams arrived" "${V[3]}" true
# what fits goes through with DF
client "$WORK/fit.json" 198.18.1.2 -u -l 1252 --dont-fragment -b 50M -t 1
pyv "$WORK/fit.json" 'd["error"]' 'd["udp"]["fragments"]' 'd["udp"]["received"] > 0'
expect_eq "fit: error" "${V[0]}" None
expect_eq "fit: fragments" "${V[1]}" 1
expect_eq "fit: datagrams arrived" "${V[2]}" true
echo "$TEST_NAME: $CHECKS checks passed"
