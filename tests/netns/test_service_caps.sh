#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: the systemd unit's capabilities and privileges
# The capabilities deploy/systemd/ovlperf-server.service gives (its
# CapabilityBoundingSet, read from the unit) and NoNewPrivileges suffice for
# what the far end runs: the built-in overlay's tunnel daemon comes up, its
# sandbox still drops everything (CapBnd 0: CAP_SETPCAP is what lets it), and
# `ovlperf server` serves a test across the overlay. Without CAP_NET_ADMIN the
# daemon cannot start (so this test can fail). Lab: hxsv.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

UNIT=deploy/systemd/ovlperf-server.service
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || fail "$UNIT has no CapabilityBoundingSet"
grep -qx "NoNewPrivileges=yes" "$UNIT" || fail "$UNIT lacks NoNewPrivileges=yes"
# "CAP_NET_ADMIN CAP_SETPCAP" -> "-all,+net_admin,+setpcap" (setpriv's spelling)
bset="-all$(for c in $caps; do printf ',+%s' "$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done)"
echo "# the unit's bounding set: $caps ($bset)"
# as_service NS CMD...: CMD in NS with the unit's bounding set and no_new_privs,
# in place of the calling (background) shell, so that $! is CMD's pid
as_service() { local ns=$1; shift; exec ip netns exec "$ns" setpriv --no-new-privs --bounding-set="$bset" "$@"; }
status_fields()
{
	local t
	for t in /proc/"$1"/task/*; do sed -n "s/^$2:[[:space:]]*//p" "$t/status"; done |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

lab_pair hxsv
tu_key a
tu_key b
tu_conf a.conf a 198.18.0.1:51900 "198.19.0.1/24" b 198.18.0.2:51900 "198.19.0.2/32"
tu_conf b.conf b 198.18.0.2:51900 "198.19.0.2/24" a 198.18.0.1:51900 "198.19.0.1/32"

# without CAP_NET_ADMIN the daemon cannot make its TUN device
rc=0
ip netns exec "$B" setpriv --no-new-privs --bounding-set=-all,+setpcap \
	"$OVLPERF" tunnel up "$TU_DIR/b.conf" --name hxsv0 >/dev/null 2>"$TU_DIR/nocap.err" || rc=$?
[ "$rc" != 0 ] || fail "the tunnel daemon came up without CAP_NET_ADMIN"
ok "without CAP_NET_ADMIN the tunnel daemon refuses to start (exit $rc)"

# without CAP_SETPCAP it runs, but cannot empty its bounding set: why the
# unit keeps CAP_SETPCAP
(exec ip netns exec "$B" setpriv --no-new-privs --bounding-set=-all,+net_admin \
	"$OVLPERF" tunnel up "$TU_DIR/b.conf" --name hxsvx 2>"$TU_DIR/nopcap.err") &
pid=$!
on_exit "kill $pid"
for _ in $(seq 100); do
	in_b "$OVLPERF" tunnel show hxsvx --raw >/dev/null 2>&1 && break
	kill -0 $pid 2>/dev/null || fail "the daemon without CAP_SETPCAP exited: $(cat "$TU_DIR/nopcap.err")"
	sleep 0.1
done
expect_eq "without CAP_SETPCAP the daemon's bounding set keeps CAP_NET_ADMIN" \
	"$(status_fields $pid CapBnd)" 0000000000001000
kill $pid
wait $pid 2>/dev/null || true

# svc_tunnel NS CONF: the daemon as the service would run it; sets PID
svc_tunnel()
{
	as_service "$1" "$OVLPERF" tunnel up "$TU_DIR/$2" --name hxsv0 2>>"$TU_DIR/$2.log" &
	PID=$!
	on_exit "kill $PID; wait $PID"
	for _ in $(seq 100); do
		ip netns exec "$1" "$OVLPERF" tunnel show hxsv0 --raw >/dev/null 2>&1 && return 0
		kill -0 $PID 2>/dev/null || fail "tunnel up $2 exited: $(cat "$TU_DIR/$2.log")"
		sleep 0.1
	done
	fail "tunnel in $1 does not answer: $(cat "$TU_DIR/$2.log")"
}
svc_tunnel "$A" a.conf
svc_tunnel "$B" b.conf
PID_B=$PID
tu_wait_handshake "$A" hxsv0
ok "with the unit's capabilities both daemons come up and shake hands"
expect_eq "CapBnd of every thread of the daemon (its sandbox dropped it)" \
	"$(status_fields "$PID_B" CapBnd)" 0000000000000000
expect_eq "CapEff of every thread of the daemon" "$(status_fields "$PID_B" CapEff)" 0000000000000000
expect_eq "NoNewPrivs of every thread of the daemon" "$(status_fields "$PID_B" NoNewPrivs)" 1

as_service "$B" "$OVLPERF" server -B 198.19.0.2 -p 5213 >"$TU_DIR/server.log" 2>&1 &
SRV=$!
on_exit "kill $SRV"
for _ in $(seq 100); do in_b ss -ltn | grep -q "198.19.0.2:5213 " && break; sleep 0.1; done
in_a "$OVLPERF" client 198.19.0.2 -p 5213 -t 0.5 --json >"$TU_DIR/c.json" 2>"$TU_DIR/c.err" ||
	fail "client across the overlay: $(cat "$TU_DIR/c.err") / $(cat "$TU_DIR/server.log")"
expect_eq "the service-capped server served a TCP test across the overlay: error" \
	"$(json_get "$TU_DIR/c.json" error 2>/dev/null || echo None)" None
expect_eq "server process: CapBnd is the unit's" "$(status_fields "$SRV" CapBnd)" \
	"$(python3 -c 'import sys
bits = {"CAP_NET_ADMIN": 12, "CAP_SETPCAP": 8, "CAP_SYS_NICE": 23}
print("%016x" % sum(1 << bits[c] for c in sys.argv[1:]))' $caps)"
echo "$TEST_NAME: $CHECKS checks passed"
