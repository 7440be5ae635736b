#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The data cipher is negotiated: ends with different cipher lists agree on
# the first of the initiator's that the responder has (IPv4 and IPv6
# underlays), `tunnel show` says which cipher each session runs, with which
# implementation and how it was agreed, and data crosses (SHA-256 checked);
# ends with nothing in common make no session and the responder counts the
# initiations it had no cipher for (drop.no_cipher).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair tncipher

# start FAMILY CIPHER_A CIPHER_B: daemons ovl0 in A and B with those lists
start()
{
	local ea eb
	if [ "$1" = 6 ]; then ea="[2001:2::1]:51900" eb="[2001:2::2]:51900"
	else ea="198.18.0.1:51900" eb="198.18.0.2:51900"; fi
	tu_conf a.conf a "$ea" "198.19.0.1/24" b "$eb" "198.19.0.2/32" "cipher = $2"
	tu_conf b.conf b "$eb" "198.19.0.2/24" a "$ea" "198.19.0.1/32" "cipher = $3"
	tu_up "$A" a.conf ovl0
	PID_A=$TU_PID
	tu_up "$B" b.conf ovl0
	PID_B=$TU_PID
}

stop()
{
	kill "$PID_A" "$PID_B"
	wait "$PID_A" "$PID_B" 2>/dev/null
	for i in $(seq 50); do
		in_a ip link show ovl0 >/dev/null 2>&1 || in_b ip link show ovl0 >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	fail "ovl0 still there after the daemons stopped"
}

tu_key a
tu_key b

# 1. IPv4: A prefers AES-256-GCM but also has ChaCha20-Poly1305; B only the latter.
start 4 "aes256gcm, chacha20poly1305" "chacha20poly1305"
expect_eq "A offers its list" "$(tu_show "$A" ovl0 ciphers)" "aes256gcm,chacha20poly1305"
expect_eq "A's order is its configuration's" "$(tu_show "$A" ovl0 cipher_order)" configured
expect_eq "B offers its list" "$(tu_show "$B" ovl0 ciphers)" "chacha20poly1305"
in_a ping -c 2 -i 0.2 -W 2 198.19.0.2 >/dev/null || fail "ping through the overlay"
tu_wait_handshake "$A" ovl0
tu_wait_handshake "$B" ovl0
for ns in "$A" "$B"; do
	expect_eq "session cipher" "$(tu_show "$ns" ovl0 session_cipher)" chacha20poly1305
	expect_eq "agreed by negotiation" "$(tu_show "$ns" ovl0 session_cipher_by)" negotiated
	impl=$(tu_show "$ns" ovl0 session_cipher_impl)
	expect_eq "the implementation the measurement picked" "$impl" \
		"$(tu_show "$ns" ovl0 aead.chacha20poly1305.impl)"
done
tu_tcp_sha 198.19.0.2 5001 4 "the overlay (chacha20poly1305)"
ok "different lists agree on chacha20poly1305, data intact (IPv4 underlay)"
stop

# 2. Nothing in common: no session; the responder says why.
start 4 "aes256gcm" "chacha20poly1305"
in_a ping -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 || true
for i in $(seq 300); do # a lost first initiation is retried after REKEY_TIMEOUT (5 s)
	[ "$(tu_show "$B" ovl0 drop.no_cipher)" -ge 1 ] && [ "$(tu_show "$A" ovl0 drop.no_cipher)" -ge 1 ] && break
	sleep 0.1
done
expect_ge "B's initiations without a common cipher" "$(tu_show "$B" ovl0 drop.no_cipher)" 1
expect_ge "A's initiations without a common cipher" "$(tu_show "$A" ovl0 drop.no_cipher)" 1
expect_eq "no handshake on A" "$(tu_show "$A" ovl0 peers_with_handshake)" 0
expect_eq "no session cipher on A" "$(tu_show "$A" ovl0 session_cipher)" none
ok "no common cipher: no session, drop.no_cipher counted at both ends"
stop

# 3. IPv6 underlay, opposite preferences: both ends on one cipher, whichever initiated.
start 6 "chacha20poly1305, aes256gcm" "aes256gcm,chacha20poly1305"
in_a ping -c 2 -i 0.2 -W 2 198.19.0.2 >/dev/null || fail "ping through the overlay (IPv6 underlay)"
tu_wait_handshake "$A" ovl0
tu_wait_handshake "$B" ovl0
ca=$(tu_show "$A" ovl0 session_cipher)
expect_eq "both ends run one cipher" "$(tu_show "$B" ovl0 session_cipher)" "$ca"
[[ "$ca" == aes256gcm || "$ca" == chacha20poly1305 ]] || fail "session cipher '$ca'"
expect_eq "agreed by negotiation" "$(tu_show "$A" ovl0 session_cipher_by)" negotiated
tu_tcp_sha 198.19.0.2 5002 4 "the overlay ($ca, IPv6 underlay)"
ok "opposite lists agree on $ca, data intact (IPv6 underlay)"
stop
