#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: privileges, capabilities and the seccomp filter of the tunnel daemon
# Least privilege of the tunnel daemon (tunnel/sandbox.h: it
# parses datagrams from anyone, so a bug in it must not hand out root):
# after set-up every thread has no capability (CapEff, CapPrm, CapBnd,
# CapAmb all zero), no_new_privs, a seccomp filter (Seccomp: 2) and, in a
# release build, not dumpable (its memory unreadable without CAP_SYS_PTRACE); traffic
# still flows (ping, a TCP transfer), `tunnel show` and `tunnel down` still
# work, SIGTERM removes the device, and the daemon was not killed by its own
# filter. "sandbox = off" keeps the privileges (so these checks can fail).
# The filter itself (a call outside the list kills with SIGSYS) is
# tests/unit/test_sandbox.c.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tunnel_lib.sh"

# status_field PID FIELD: e.g. CapEff, NoNewPrivs, Seccomp, from every thread
status_fields()
{
	local pid=$1 field=$2 t
	for t in /proc/"$pid"/task/*; do
		sed -n "s/^$field:[[:space:]]*//p" "$t/status"
	done | sort -u | tr '\n' ' ' | sed 's/ $//'
}

lab_pair pv
tu_pair 4

# Sandboxed on both ends, in every thread (the data path runs in its own).
for side in A B; do
	pid=$([ $side = A ] && echo "$PID_A" || echo "$PID_B")
	nthreads=$(ls /proc/"$pid"/task | wc -l)
	expect_ge "threads of daemon $side" "$nthreads" 3
	for f in CapEff CapPrm CapInh CapBnd CapAmb; do
		expect_eq "$f of every thread of daemon $side" "$(status_fields "$pid" $f)" 0000000000000000
	done
	expect_eq "NoNewPrivs of every thread of daemon $side" "$(status_fields "$pid" NoNewPrivs)" 1
	expect_eq "Seccomp of every thread of daemon $side" "$(status_fields "$pid" Seccomp)" 2
done

# Not dumpable (release builds): no core file, and a root process without
# capabilities cannot read the daemon's memory (/proc/PID/environ needs
# ptrace access). Sanitizer builds stay dumpable (LeakSanitizer attaches with
# ptrace at exit), and there the same read succeeds: make check runs this
# test with both builds, so the check is seen to tell the two apart.
if nm "$OVLPERF" 2>/dev/null | grep ' __asan_init$' >/dev/null; then want=1; else want=0; fi
expect_eq "dumpable in tunnel show (1 only in a sanitizer build)" \
	"$(tu_show "$A" ovl0 dumpable)" "$want"
readable=0
setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all -- \
	cat /proc/"$PID_A"/environ >/dev/null 2>&1 && readable=1
expect_eq "daemon memory readable by a root process without capabilities" "$readable" "$want"

in_a ping -c 3 -i 0.2 -W 2 198.19.0.2 >/dev/null || fail "ping through the sandboxed overlay"
ok "ping IPv4 overlay address"
in_a ping -6 -c 2 -i 0.2 -W 2 2001:2:0:ff::2 >/dev/null || fail "ping -6 through the sandboxed overlay"
ok "ping IPv6 overlay address"

# TCP: 4 MiB, SHA-256 on both ends.
tu_tcp_sha 198.19.0.2 5002 4 "the sandboxed overlay"
ok "SHA-256 of 4 MiB through the sandboxed overlay equal"

# The control socket: show (with the peer's handshake), show-keys.
in_a "$OVLPERF" tunnel show ovl0 >"$TU_DIR/show.txt" || fail "tunnel show on a sandboxed daemon"
grep -q "latest handshake: [0-9]* seconds ago" "$TU_DIR/show.txt" || fail "show: no handshake"
ok "tunnel show answers"
in_a "$OVLPERF" tunnel show ovl0 --show-keys --raw | grep -qF "private_key=$(cat "$TU_DIR/a.key")" ||
	fail "show-keys on a sandboxed daemon"
ok "tunnel show --show-keys answers"
kill -0 "$PID_A" && kill -0 "$PID_B" || fail "a daemon died"
ok "both daemons alive after traffic and control queries"

# SIGTERM: exits 0 (not SIGSYS: 159), device and control socket gone.
kill -TERM "$PID_A"
set +e
wait "$PID_A"
rc=$?
set -e
expect_eq "exit status after SIGTERM" "$rc" 0
in_a ip link show ovl0 >/dev/null 2>&1 && fail "ovl0 still exists after SIGTERM"
in_a "$OVLPERF" tunnel show ovl0 >/dev/null 2>&1 && fail "control socket still answers"
# The socket file itself is removed (by unlinkat() in its directory, the
# only removal the filter allows), not just silent.
sock=/run/ovlperf/tunnel/$(in_a stat -L -c %i /proc/self/ns/net).ovl0.sock
[ -e "$sock" ] && fail "control socket file $sock left behind"
sock_b=/run/ovlperf/tunnel/$(in_b stat -L -c %i /proc/self/ns/net).ovl0.sock
[ -S "$sock_b" ] || fail "no socket file $sock_b for the running daemon B (wrong path?)"
ok "SIGTERM: ovl0 and its control socket are gone"

# -d with a pid file, then `tunnel down` through the control socket.
in_a "$OVLPERF" tunnel up "$TU_DIR/a.conf" --name ovl1 -d --pid-file "$TU_DIR/a.pid" ||
	fail "tunnel up -d"
dpid=$(cat "$TU_DIR/a.pid")
on_exit "kill $dpid"
expect_eq "Seccomp of the -d daemon" "$(status_fields "$dpid" Seccomp)" 2
expect_eq "CapEff of the -d daemon" "$(status_fields "$dpid" CapEff)" 0000000000000000
in_a "$OVLPERF" tunnel down ovl1 || fail "tunnel down ovl1"
in_a ip link show ovl1 >/dev/null 2>&1 && fail "ovl1 still exists after tunnel down"
[ -e "$TU_DIR/a.pid" ] && fail "pid file left behind"
ok "-d, tunnel down: device and pid file gone"

# sandbox = off: privileges kept (the checks above can tell the difference).
tu_conf off.conf a "198.18.0.1:51900" "198.19.0.1/24" b "198.18.0.2:51900" "198.19.0.2/32" \
	"sandbox = off"
tu_up "$A" off.conf ovl2
expect_eq "Seccomp with sandbox = off" "$(status_fields "$TU_PID" Seccomp)" 0
[ "$(status_fields "$TU_PID" CapEff)" != 0000000000000000 ] || fail "sandbox = off dropped capabilities"
ok "sandbox = off keeps capabilities"
kill -TERM "$TU_PID"
wait "$TU_PID" || true

# A mistyped OVLPERF_SECCOMP is refused, not silently weaker.
set +e
in_a env OVLPERF_SECCOMP=lgo "$OVLPERF" tunnel up "$TU_DIR/a.conf" --name ovl3 2>"$TU_DIR/env.err"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "OVLPERF_SECCOMP=lgo accepted"
grep -q "OVLPERF_SECCOMP" "$TU_DIR/env.err" || fail "no error naming OVLPERF_SECCOMP"
in_a ip link show ovl3 >/dev/null 2>&1 && fail "a refused start left ovl3"
ok "OVLPERF_SECCOMP=lgo refused, nothing left"
echo "$TEST_NAME: $CHECKS checks passed"
