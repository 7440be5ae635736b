#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Raising the overlay MTU while the tunnel is up (`ip link set ovl0 mtu N`):
# with `max_mtu` in [interface] the buffers are sized for it, so after the
# raise (noticed within a second) DF packets up to the new MTU cross the
# overlay whole, IPv4 and IPv6, and a TCP transfer is intact; above max_mtu
# the daemon warns, naming its config file, and such packets do not cross.
# The underlay is a 9000-byte lab link, so the outer packets fit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

lab_pair tr 9000
tu_pair 4 "mtu = 1420
max_mtu = 4000"
expect_eq "start MTU" "$(tu_show "$A" ovl0 mtu)" 1420
expect_eq "buffers sized for max_mtu" "$(tu_show "$A" ovl0 max_mtu)" 4000
in_a ping -M do -s 3972 -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 &&
	fail "a 4000-byte DF ping crossed a 1420-byte overlay"
ok "before the raise a 4000-byte DF packet does not fit"

# wait_mtu NS VALUE: until the daemon has read the new TUN MTU
wait_mtu()
{
	local i
	for i in $(seq 40); do
		[ "$(tu_show "$1" ovl0 link_mtu)" = "$2" ] && return 0
		sleep 0.1
	done
	fail "the daemon in $1 did not notice MTU $2 (link_mtu $(tu_show "$1" ovl0 link_mtu))"
}
in_a ip link set ovl0 mtu 4000
in_b ip link set ovl0 mtu 4000
wait_mtu "$A" 4000
wait_mtu "$B" 4000
ok "both daemons follow the raise to 4000"
in_a ping -M do -s 3972 -c 3 -i 0.2 -W 2 198.19.0.2 >/dev/null ||
	fail "4000-byte DF ping after raising the MTU to 4000"
ok "IPv4: 4000-byte DF packets cross the raised overlay"
in_a ping -6 -M do -s 3952 -c 3 -i 0.2 -W 2 2001:2:0:ff::2 >/dev/null ||
	fail "4000-byte IPv6 ping after raising the MTU to 4000"
ok "IPv6: 4000-byte packets cross the raised overlay"
expect_eq "no outer fragments (the 9000-byte underlay carries them)" \
	"$(tu_show "$A" ovl0 counter.outer_fragmented)" 0
tu_tcp_sha 198.19.0.2 5005 4 "the raised overlay"
ok "4 MiB TCP at MTU 4000: SHA-256 equal"

# Above max_mtu: a warning that names the config, and the packets stay out.
in_a ip link set ovl0 mtu 6000
in_b ip link set ovl0 mtu 6000
wait_mtu "$A" 6000
grep -q "MTU now 6000, above max_mtu 4000: packets larger than 4000 are dropped (set max_mtu in \[interface\] of $TU_DIR/a.conf)" \
	"$TU_DIR/ovl0-$A.log" || fail "no max_mtu warning: $(tail -3 "$TU_DIR/ovl0-$A.log")"
ok "raising above max_mtu is warned about, with the file to change"
in_a ping -M do -s 4972 -c 1 -W 1 198.19.0.2 >/dev/null 2>&1 &&
	fail "a 5000-byte packet crossed with max_mtu 4000"
ok "5000-byte packets do not cross with max_mtu 4000"
in_a ping -M do -s 3972 -c 2 -i 0.2 -W 2 198.19.0.2 >/dev/null ||
	fail "4000-byte ping after raising above max_mtu"
ok "packets up to max_mtu still cross"
echo "$TEST_NAME: $CHECKS checks passed"
