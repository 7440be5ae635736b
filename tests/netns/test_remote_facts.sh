#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 23
# Each end's host facts between two plain namespaces that are not an
# ovlperf lab (fa-c the client, fa-s the server, one veth between them:
# 198.18.40.2/.1, 2001:2:0:40::2/::1), IPv4 and IPv6:
#   - an older server (`ovlperf server --no-host-facts` answers as one):
#     the far host's facts are "unknown" with the server's version, the
#     client's own are there, exit 0;
#   - wireguard-go (Debian's, remote_wg.sh) at both ends, named nowhere:
#     each end finds it by the TUN device its data socket uses (fdinfo's
#     iff:), with its UDP port (51820 at the server's end), its CPU (no more than its own /proc/PID/stat counted over
#     a wider window) and its busiest thread; under a UDP load above what
#     it carries, its TUN's tx drops as the client's facts count them
#     against `ip -s link` read around the test;
#   - the built-in overlay's far daemon (`server --overlay`) in a cgroup v1
#     CPU quota of 15 %: the far host's facts in run.json name the daemon
#     (found by its TUN), its quota and the time it was throttled, no more
#     than the cgroup's own cpu.stat says over the run; the near daemon is
#     found by its TUN and by its UDP socket connected to the far host.
source "$(dirname "$0")/lib.sh"

C=fa-c S=fa-s
DIR=$(mktemp -d /tmp/ovlperf-facts.XXXXXX)
on_exit "rm -rf '$DIR'"
plain_pair "$C" "$S" fac0 fas0 40

# --- an older server -----------------------------------------------------------
SERVER_PORT=5212 server_in "$S" "$DIR/old.log" server --no-host-facts -p 5212
OLD=$SERVER_PID
for addr in 198.18.40.1 2001:2:0:40::1; do
	ip netns exec "$C" "$OVLPERF" client -c "$addr" -p 5212 -t 1 --json >"$DIR/old.json" \
		2>"$DIR/old.err" || fail "client against an older server ($addr) exited non-zero"
	expect_eq "$addr: the far host's facts from an older server" \
		"$(py "$DIR/old.json" "d['host_facts']['server']['known'], d['host_facts']['server']['unknown']")" \
		"False not reported by server ovlperf $("$OVLPERF" --version | awk '{print $NF}')"
	expect_eq "$addr: the client's own facts" \
		"$(py "$DIR/old.json" "d['host_facts']['client']['known']")" True
done
kill "$OLD"
wait "$OLD" 2>/dev/null || true

# --- wireguard-go, found by its TUN ------------------------------------------------
# remote_wg.sh: fawgc (198.19.6.1, 2001:2:0:66::1) and fawgs (.2, ::2, UDP
# 51820); the client's end on a port of the kernel's choosing
WG="bash $(dirname "$0")/remote_wg.sh"
on_exit "$WG down fawg '$DIR'"
$WG up fawg "$C" "$S" 198.18.40.1 "$DIR"
WGC=$(cat "$DIR/fawgc.pid") WGS=$(cat "$DIR/fawgs.pid")
server_in "$S" "$DIR/server.log" server
NEW=$SERVER_PID

# cpu_s PID: the process's utime + stime so far, seconds
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

for addr in 198.19.6.2 2001:2:0:66::2; do
	c0=$(cpu_s "$WGC") s0=$(cpu_s "$WGS")
	ip netns exec "$C" "$OVLPERF" client -c "$addr" -t 2 --json >"$DIR/wg.json" 2>"$DIR/wg.err" ||
		fail "TCP over wireguard-go ($addr): $(tail -2 "$DIR/wg.err")"
	c1=$(cpu_s "$WGC") s1=$(cpu_s "$WGS")
	python3 - "$DIR/wg.json" "$WGC" "$WGS" "$c0" "$c1" "$s0" "$s1" >"$DIR/wg.check" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out, ok = [], True
for end, pid, dev, a, b in (("client", int(sys.argv[2]), "fawgc", *map(float, sys.argv[4:6])),
                            ("server", int(sys.argv[3]), "fawgs", *map(float, sys.argv[6:8]))):
    f = d["host_facts"][end]
    p = [p for p in f["processes"] if p["pid"] == pid]
    if not f["known"] or len(p) != 1:
        print(0, end, "wireguard-go", pid, "not found:", f.get("processes"))
        sys.exit()
    p = p[0]
    used = p["cores"] * f["window_s"]
    # its own count over a wider window (around the client), one tick of slack
    ok &= (p["found_by"] == ["tun"] and p["tun"] == dev and p["comm"] == "wireguard-go"
           and p["udp_port"] == (51820 if end == "server" else p["udp_port"] or -1)
           and p["busiest_thread"] != ""
           and 0 < p["busiest_cores"] <= p["cores"] + 1e-6 and 0 < used <= b - a + 0.011)
    out.append(f"{end}: {p['comm']} by {p['found_by']} on {p['tun']} port {p['udp_port']}, "
               f"{used:.2f} CPU s of {b - a:.2f}, busiest {p['busiest_thread']} "
               f"{p['busiest_cores']:.2f}")
print(int(ok), "; ".join(out))
PY
	[ "$(cut -d' ' -f1 "$DIR/wg.check")" = 1 ] || fail "$addr: $(cat "$DIR/wg.check")"
	ok "$addr: $(cut -d' ' -f2- "$DIR/wg.check")"
done

# a UDP load wireguard-go cannot carry: its TUN's tx drops (lib.sh)
for addr in 198.19.6.2 2001:2:0:66::2; do
	tun_txdrop_check "$C" fawgc "$addr" "$DIR"
done
kill "$NEW"
wait "$NEW" 2>/dev/null || true

# --- the built-in overlay's far daemon in a 15 % CPU quota ---------------------
CG=/sys/fs/cgroup/cpu
if [ ! -w "$CG/cgroup.procs" ]; then
	echo "# no writable cgroup v1 cpu controller: the quota case is not run"
	echo "$TEST_NAME: $CHECKS checks passed"
	exit 0
fi
(umask 077 && head -c 32 /dev/urandom | base64 >"$DIR/psk")
# Through nsenter, not `ip netns exec`: that mounts the namespace's own
# sysfs over /sys, without the cgroup mounts a real host has there.
nsenter --net=/run/netns/"$S" "$OVLPERF" server --psk-file "$DIR/psk" --overlay \
	--overlay-state "$DIR/state" >>"$DIR/ovl.log" 2>&1 &
OVL=$!
on_exit "kill $OVL 2>/dev/null; wait $OVL 2>/dev/null"
for _ in $(seq 600); do
	ip netns exec "$S" ss -Hltn "sport = :5211" | grep -q . && break
	kill -0 $OVL 2>/dev/null || fail "the overlay server died: $(cat "$DIR/ovl.log")"
	sleep 0.1
done
q=$CG/fa-quota
mkdir "$q"
on_exit "for _ in \$(seq 50); do rmdir $q && break; sleep 0.1; done"
on_exit "for p in \$(cat $q/cgroup.procs); do kill \$p; done"
echo 100000 >"$q/cpu.cfs_period_us"
echo 15000 >"$q/cpu.cfs_quota_us"
stat_of() { awk -v k="$1" '$1 == k {print $2}' "$q/cpu.stat"; }
for fam in 4 6; do
	addr=198.18.40.1
	[ $fam = 6 ] && addr=2001:2:0:40::1
	cat >"$DIR/q$fam.ini" <<-INI
	[scenario]
	name = faq$fam
	repetitions = 1

	[host.far]
	address = $addr
	psk_file = $DIR/psk

	[path.builtin]
	type = builtin
	host = far
	family = $fam

	[tcp]
	streams = 1
	duration = 3s

	[udp]
	enabled = no
	INI
	# the far daemon (its thread ovl-tx0), moved as soon as it runs
	cg_move_thread "$S" ovl-tx0 "$q"
	mover=$CG_MOVER
	t0=$(stat_of throttled_time) n0=$(stat_of nr_throttled)
	ip netns exec "$C" "$OVLPERF" run "$DIR/q$fam.ini" -o "$DIR/q$fam" >"$DIR/q$fam.out" \
		2>"$DIR/q$fam.err" || fail "IPv$fam quota run: $(tail -3 "$DIR/q$fam.err")"
	wait $mover || fail "IPv$fam: the far daemon was never moved into $q"
	t1=$(stat_of throttled_time) n1=$(stat_of nr_throttled)
	python3 - "$DIR"/q$fam/*/run.json $((t1 - t0)) $((n1 - n0)) >"$DIR/q$fam.check" <<'PY'
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["trials"] if t["kind"] == "tcp"][0]
f = t["host_facts"]["server"]
p = [p for p in f["processes"] if p["cgroup"] and p["cgroup"]["path"] == "/fa-quota"]
if not f["known"] or len(p) != 1:
    print(0, "the far daemon in /fa-quota not reported:", f.get("processes"))
    sys.exit()
p, whole_ms, whole_n = p[0], int(sys.argv[2]) / 1e6, int(sys.argv[3])
cg = p["cgroup"]
# this end's daemon: by its TUN and by its UDP socket, connected to the
# far host's underlay address
near = [q for q in t["host_facts"]["client"]["processes"] if q["found_by"] == ["tun", "udp"]
        and q["comm"] == "ovlperf" and q["udp_port"] > 0]
print(int(len(near) == 1 and p["found_by"] == ["tun"] and p["tun"].startswith("ovs") and p["comm"] == "ovlperf" and cg["version"] == 1
          and abs(cg["quota_cores"] - 0.15) < 1e-6 and 0 < cg["throttled_ms"] <= whole_ms
          and 0 < cg["nr_throttled"] <= whole_n and p["cores"] <= 0.15 * 1.1),
      f"{p['comm']} on {p['tun']} (found by {p['found_by']}): quota {cg['quota_cores']} cores,",
      f"used {p['cores']:.3f}, throttled {cg['throttled_ms']:.0f} ms in {cg['nr_throttled']}",
      f"periods of the cgroup's {whole_ms:.0f} ms in {whole_n}; busiest {p['busiest_thread']};",
      f"this end's daemon by {near[0]['found_by'] if near else t['host_facts']['client']['processes']}")
PY
	[ "$(cut -d' ' -f1 "$DIR/q$fam.check")" = 1 ] || fail "IPv$fam: $(cat "$DIR/q$fam.check")"
	ok "IPv$fam far host: $(cut -d' ' -f2- "$DIR/q$fam.check")"
done
echo "$TEST_NAME: $CHECKS checks passed"
