# SPDX-License-Identifier: MIT
# Sourced (after lib.sh) by the tests that count a shaped link's packets at
# every layer (test_layers.sh, test_small_frames.sh). The link is the
# router R's ovp1 (a tbf on it) towards the far end S.

# ly_count_up TABLE IP4_LEN IP6_PAYLOAD_LEN: counters of the test datagrams
# (by their IPv4 total length and IPv6 payload length) on R's ovp1 egress,
# ahead of the tbf (the egress hook sees skb->len, the frame without FCS, as
# the tbf does), and on S's ingress, where a last rule counts everything
# else the tbf passed (control, greetings, end markers). Removed on exit.
ly_count_up()
{
	local table=$1 v4=$2 v6=$3 hook ns
	for hook in egress ingress; do
		[ $hook = egress ] && ns=$R || ns=$S
		ip netns exec "$ns" nft -f - <<NFT
table netdev $table {
	chain c {
		type filter hook $hook device "ovp1" priority 0; policy accept;
		ip protocol udp ip length $v4 counter accept
		ip6 nexthdr udp ip6 length $v6 counter accept
		counter
	}
}
NFT
		on_exit "ip netns exec $ns nft delete table netdev $table"
	done
}

# ly_counters TABLE: "egress test datagrams (packets bytes), S's test
# datagrams (packets bytes), all S got (packets bytes), the tbf (bytes
# packets drops)" on one line, as one consistent snapshot. The three
# counters are read one after the other, so a packet that is not the test's
# (a neighbour probe, a late ACK) can pass the tbf between two of the reads,
# or still wait in the tbf's queue, and be counted on one side only: the
# snapshot is read again until two reads in a row agree, i.e. nothing moved
# on the link while it was read.
ly_counters()
{
	local prev="" cur
	for _ in $(seq 100); do
		cur=$(ly_counters_once "$1")
		[ "$cur" = "$prev" ] && { echo "$cur"; return 0; }
		prev=$cur
		sleep 0.05
	done
	fail "the link's counters never held still: $cur"
}

ly_counters_once()
{
	{
		ip netns exec "$R" nft -j list table netdev "$1"
		echo
		ip netns exec "$S" nft -j list table netdev "$1"
		echo
		tc -n "$R" -s -j qdisc show dev ovp1
	} | python3 -c '
import json, sys
eg, ing, tc = (json.loads(l) for l in sys.stdin.read().split("\n") if l.strip())
def cnt(d):
    c = [e["rule"]["expr"] for e in d["nftables"] if "rule" in e]
    return [next(x["counter"] for x in r if "counter" in x) for r in c]
e, i = cnt(eg), cnt(ing)
q = next(x for x in tc if x["kind"] == "tbf")
print(e[0]["packets"] + e[1]["packets"], e[0]["bytes"] + e[1]["bytes"],
      i[0]["packets"] + i[1]["packets"], i[0]["bytes"] + i[1]["bytes"],
      sum(x["packets"] for x in i), sum(x["bytes"] for x in i),
      q["bytes"], q["packets"], q["drops"])'
}
