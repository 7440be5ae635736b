#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Data connection set-up against START: TCP data connections whose handshake
# and greeting the network delays by ~3 s must still be registered by the
# server before the test starts. The client sends START
# only once the server has acknowledged every data connection; it used to
# send it as soon as connect() returned, and the server gave up after 2 s
# with "START before all data connections arrived (1 of 2)".
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/engine_lib.sh"

lab_pair fst
start_server

# Host B drops every segment of a data connection but SYNs until 3 s from
# now (nft matches wall-clock seconds): the handshake's last ACK and the
# greeting are retransmitted until then, so the server can register the
# connections only after ~3 s, more than the 2 s it waits for them after
# START. Data and control share the server's port: the data connections are
# told by their source ports (--cport 41000, two streams); the control
# connection is left alone.
until=$(date -u -d '+3 sec' '+%Y-%m-%d %H:%M:%S')
in_b nft -f - <<NFT
table inet ovlperf_test_setup {
	chain input {
		type filter hook input priority -10; policy accept;
		tcp sport { 41000, 41001 } tcp flags & syn == 0 meta time < "$until" counter drop
	}
}
NFT
on_exit "ip netns exec $B nft delete table inet ovlperf_test_setup"

client "$WORK/delayed.json" 198.18.0.2 -t 1 -P 2 --cport 41000
pyv "$WORK/delayed.json" 'd["error"]' 'len(d["streams"])' 'all(s["bytes"] > 0 for s in d["streams"])' \
	'd["tcp"]["sent_bytes"] == d["tcp"]["bytes"]'
expect_eq "delayed greetings: error" "${V[0]}" "None"
expect_eq "delayed greetings: streams" "${V[1]}" 2
expect_eq "delayed greetings: every stream moved data" "${V[2]}" "true"
expect_eq "delayed greetings: sent = received" "${V[3]}" "true"
dropped=$(in_b nft list table inet ovlperf_test_setup | grep -o 'packets [0-9]*' | awk '{print $2}')
expect_ge "data segments dropped (the delay really happened)" "$dropped" 2

# and the server still serves an ordinary test afterwards
client "$WORK/after.json" 198.18.0.2 -t 1 -P 2
expect_eq "after: error" "$(py "$WORK/after.json" 'd["error"]')" "None"
echo "$TEST_NAME: $CHECKS checks passed"
