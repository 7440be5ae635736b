#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Over the built-in overlay the underlay carries bigger, encrypted packets:
# ovlperf measures them from the client's tunnel daemon (its udp_tx
# counters, read before and after each trial) and gives them at every
# layer beside the test's own. Checked against the wire: an nftables
# counter on the underlay interface sees exactly the daemon's datagrams
# and bytes over the whole client run (its IP, UDP and Ethernet headers
# added), every 64-byte test frame leaves as a 146-byte outer one on the
# line (IP 108: 28 + 16 + 48 padded + 16), and ovlperf's figure lies
# between the test's datagrams and the wire's count (the control
# connection rides the tunnel too, partly outside the trial). Over an IPv4
# underlay (lab --overlay) and an IPv6 one (--overlay6: 48 bytes of outer
# headers, a 128-byte outer packet, 166 bytes on the line).
source "$(dirname "$0")/lib.sh"

OUT=$(mktemp -d)
on_exit "rm -rf $OUT"

# one_family 4|6: a lab whose overlay runs over that family, and every check
one_family()
{
	local fam=$1 lab=lyov hdr=28 len="ip length 108" outer_ip=108 port before after
	if [ "$fam" = 6 ]; then
		lab=lyov6 hdr=48 len="ip6 length 88" outer_ip=128
		lab_make $lab --overlay6
	else
		lab_make $lab --overlay
	fi
	server_in "$B" "$OUT/server.log" server
	# By B's listening port, where all of A's datagrams go: A's workers send
	# from ports of their own (worker_ports), so A's port would miss some.
	port=$(in_b "$OVLPERF" tunnel show --raw | awk -F= '$1 == "listen_port" { print $2; exit }')
	[ -n "$port" ] || fail "no overlay listen port"

	# Counted where the far end's link receives them, each on its own: the
	# daemon sends in UDP GSO batches, one skb until the device segments it,
	# so segmentation is left to software ahead of A's veth.
	in_a ethtool -K ovp0 tx-udp-segmentation off >/dev/null
	in_b nft -f - <<-NFT
	table netdev lyov_count {
		chain c {
			type filter hook ingress device "ovp0" priority 0; policy accept;
			udp dport $port $len counter
			udp dport $port counter
		}
	}
	NFT
	on_exit "ip netns exec $B nft delete table netdev lyov_count"

	before=$(counters)
	in_a "$OVLPERF" sweep 198.19.0.2 --no-progress --no-gso --size-layer frame -l 64 \
		--rate-layer line --from 1M --to 1M --step 1M -t 2 -J >"$OUT/sweep.json"
	after=$(counters)
	python3 - "$OUT/sweep.json" "$before" "$after" "$hdr" "$outer_ip" >"$OUT/check" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
b, a = (list(map(int, s.split())) for s in sys.argv[2:4])
hdr, outer_ip = int(sys.argv[4]), int(sys.argv[5])
w_test, wn, wb, dn, db = (y - x for x, y in zip(b, a))
o = p["layers"]["outer"]
n = o["datagrams"]
print("sent", p["sent"])
print("outer_family", o["family"])
print("wire_is_daemon_pkts", int(wn == dn))
# the ingress hook sees each packet without its Ethernet header
print("wire_is_daemon_bytes", int(wb == db + dn * hdr))
print("test_sized_on_wire_ok", int(w_test >= p["sent"]))
print("reported_ge_sent", int(n >= p["sent"]))
print("reported_le_daemon", int(n <= dn))
print("outside_trial", dn - n)
print("reported_frame_le_wire", int(o["frame"]["bytes"] - 18 * n <= wb))
print("ip_is_payload_plus_headers", int(o["ip"]["bytes"] == o["payload"]["bytes"] + hdr * n))
print("line_per_datagram", o["line_bytes_per_datagram"])
# each test datagram's own outer packet is outer_ip + 38 bytes on the line
print("line_covers_test", int(o["line"]["bytes"] >= (outer_ip + 38) * p["sent"]))
print("inner_line", o["inner_line_bytes_per_datagram"])
PY
	sed "s/^/  /" "$OUT/check"

	expect_eq "IPv$fam: the underlay is IPv$fam" "$(get outer_family)" "$fam"
	expect_eq "IPv$fam: the wire carried the daemon's datagrams" "$(get wire_is_daemon_pkts)" 1
	expect_eq "IPv$fam: ... and its bytes plus $hdr bytes of UDP and IP headers" "$(get wire_is_daemon_bytes)" 1
	expect_eq "IPv$fam: every test frame left as a $outer_ip-byte outer IP packet" "$(get test_sized_on_wire_ok)" 1
	expect_eq "IPv$fam: reported outer datagrams >= the test's" "$(get reported_ge_sent)" 1
	expect_eq "IPv$fam: reported outer datagrams <= the daemon's over the run" "$(get reported_le_daemon)" 1
	[ "$(get outside_trial)" -le 64 ] || fail "IPv$fam: $(get outside_trial) outer datagrams outside the trial"
	ok "IPv$fam: at most 64 outer datagrams outside the trial: $(get outside_trial)"
	expect_eq "IPv$fam: reported outer frames (less Ethernet) <= the wire's bytes" "$(get reported_frame_le_wire)" 1
	expect_eq "IPv$fam: outer IP bytes = UDP payload + $hdr per datagram" "$(get ip_is_payload_plus_headers)" 1
	expect_eq "IPv$fam: inner line bytes per datagram" "$(get inner_line)" 84
	expect_eq "IPv$fam: outer line bytes >= $((outer_ip + 38)) per test datagram" "$(get line_covers_test)" 1
	ok "IPv$fam: an outer datagram takes $(get line_per_datagram) bytes on the line (a test datagram 84)"
	# The underlay path of the same host (its daemon running beside it) has
	# no outer packets: its datagrams do not leave by the tunnel's interface
	# (the smallest IPv6 test frame is 82 bytes).
	in_a "$OVLPERF" sweep "$(underlay_addr "$fam")" --no-progress --no-gso --size-layer frame \
		-l "$( [ "$fam" = 6 ] && echo 82 || echo 64)" --rate-layer line --from 1M --to 1M --step 1M -t 1 -J >"$OUT/under.json"
	expect_eq "IPv$fam: underlay, no outer figure" "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["points"][0]["layers"]["outer"])' "$OUT/under.json")" None
	kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
}

underlay_addr() { [ "$1" = 6 ] && echo 2001:2:0:0::2 || echo 198.18.0.2; }

# the wire (test-sized outer packets, all outer: packets bytes) and the
# daemon (datagrams, UDP payload bytes)
counters()
{
	in_b nft -j list table netdev lyov_count | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = [next(x["counter"] for x in e["rule"]["expr"] if "counter" in x) for e in d["nftables"] if "rule" in e]
print(c[0]["packets"], c[1]["packets"], c[1]["bytes"], end=" ")'
	in_a "$OVLPERF" tunnel show --raw | awk -F= '
		$1 == "counter.udp_tx_datagrams" { n = $2 } $1 == "counter.udp_tx_bytes" { b = $2 }
		END { print n, b }'
}
get() { awk -v k="$1" '$1 == k {print $2}' "$OUT/check"; }

one_family 4
one_family 6
echo "$TEST_NAME: $CHECKS checks passed"
