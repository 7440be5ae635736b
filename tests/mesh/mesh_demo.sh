#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make mesh-demo`: the mesh playbooks on one machine. Four hosts are network
# namespaces on one switch (hosts ms-a .. ms-c, and ms-d, which an nftables
# rule cuts off before the run), each with Debian's sshd on its own config,
# generated host key and a key made for the demo, everything in a temporary
# directory; Ansible runs in a controller namespace over SSH with a
# generated known_hosts: install.yml puts ovlperf, the key and the server
# (a daemon with a pid file: no systemd here) on every host, mesh.yml runs
# every ordered pair with an underlay and a builtin path and fetches the
# runs, and the matrix is printed. It checks what the mesh is for: the 6
# pairs of the three hosts each left a complete run.json, the 6 pairs of the
# cut-off host are in the matrix as failed or unreachable, and nothing is
# left behind (namespaces, sshd, servers, overlays, files), also after an
# error or Ctrl-C.
#
# Addresses: 198.18.70.0/24 and 2001:2:0:70::/64 inside the namespaces only.
#
# The namespaces are msPID-sw, msPID-ctl and msPID-a .. msPID-d, PID being
# this script's, and a marker /run/ovlperf/mesh-demo/PID (the script's start
# time and its directory) says they are the demo's: a demo killed before it
# could clean up (SIGKILL, a machine restarted without /run on tmpfs) leaves
# a marker whose process is gone, and the next demo removes what it names.
# Two demos at once do not collide; nothing without a marker is touched.
set -euo pipefail

OVLPERF=${OVLPERF:-$PWD/ovlperf}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
# Three hosts and a cut-off one show every part of a mesh: rounds of pairs
# at once, each host as client and as server, a host that cannot be reached
# as either. Each host more costs a round of Ansible tasks on every host.
HOSTS=(a b c d)
CUT=d # the host firewalled off, the last one
N_UP=$((${#HOSTS[@]} - 1))
N_OK=$((N_UP * (N_UP - 1))) # pairs of the reachable hosts
N_CUT=$((2 * N_UP))          # pairs of the cut-off host
N_PAIRS=$((N_OK + N_CUT))
NSP=ms$$
NS_SW=$NSP-sw
NS_CTL=$NSP-ctl
MARKS=/run/ovlperf/mesh-demo
NET4=198.18.70
NET6=2001:2:0:70
T0=$(date +%s)
TMP=
SSHD_PIDS=()

say() { echo "mesh-demo: $*" >&2; }
fail() { echo "FAIL [mesh-demo]: $*" >&2; exit 1; }
ns_of() { echo "$NSP-$1"; }
addr_of() { local i; for i in "${!HOSTS[@]}"; do [ "${HOSTS[$i]}" = "$1" ] && echo "$NET4.$((11 + i))"; done; }
# demo_namespaces [PREFIX]: the namespaces of the demo PREFIX (this one's).
demo_namespaces() { ip netns list | awk '{print $1}' | grep -xE "${1:-$NSP}-(sw|ctl|[a-e])" || true; }
our_namespaces() { demo_namespaces "$NSP"; }

# remove_namespaces PREFIX: every process in the demo's namespaces, by id
# (the sshds, the servers they started, Ansible's SSH masters in the
# controller's), then the namespaces.
remove_namespaces()
{
	local ns pid
	for ns in $(demo_namespaces "$1"); do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
	done
	[ -z "$(demo_namespaces "$1")" ] || sleep 0.5
	for ns in $(demo_namespaces "$1"); do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
		ip netns del "$ns" 2>/dev/null || true
	done
}

# start_time PID: the process's start time in clock ticks (field 22 of its
# stat, after the parenthesised name), empty if there is no such process.
start_time() { sed -n 's/^.*) //p' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

# reclaim: what earlier demos left when they could not clean up. A marker
# whose process is gone, or is another process now (its start time differs),
# is a dead demo's: its namespaces and its directory go, then the marker.
reclaim()
{
	local m pid st dir
	for m in "$MARKS"/*; do
		[ -f "$m" ] || continue
		pid=${m##*/}
		read -r st dir <"$m" || true
		[ -n "$st" ] && [ "$(start_time "$pid")" = "$st" ] && continue
		say "removing what a demo left behind (process $pid is gone): $(demo_namespaces "ms$pid" | tr '\n' ' ')${dir:-}"
		remove_namespaces "ms$pid"
		case $dir in /tmp/ovlperf-mesh-demo.*) rm -rf "$dir" ;; esac
		rm -f "$m"
	done
}

cleanup()
{
	local rc=$? ns pid
	trap - EXIT INT TERM
	if [ -n "$TMP" ] && [ -d "$TMP/ansible" ] && [ -z "${DEMO_DONE:-}" ] &&
		ip netns list | grep -qx "$NS_CTL.*"; then
		ansible_run uninstall.yml >"$TMP/log/uninstall.log" 2>&1 || true
	fi
	for pid in "${SSHD_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	remove_namespaces "$NSP"
	# MESH_DEMO_KEEP=DIR: the logs and the fetched runs are copied there first.
	if [ -n "$TMP" ] && [ -n "${MESH_DEMO_KEEP:-}" ]; then
		mkdir -p "$MESH_DEMO_KEEP" && cp -r "$TMP/log" "$TMP/results" "$MESH_DEMO_KEEP/" 2>/dev/null || true
	fi
	[ -n "$TMP" ] && rm -rf "$TMP"
	rm -f "$MARKS/$$"
	exit $rc
}

# ansible_run PLAYBOOK: in the controller's namespace, each line stamped.
ansible_run()
{
	ip netns exec "$NS_CTL" env ANSIBLE_CONFIG="$TMP/ansible/ansible.cfg" \
		ANSIBLE_HOME="$TMP/ansible/home" HOME="$TMP/ansible/home" \
		ansible-playbook -e "@$TMP/ansible/demo.yml" "$REPO/deploy/ansible/$1" |
		while IFS= read -r l; do printf '%(%T)T %s\n' -1 "$l"; done
}

preflight()
{
	local c
	[ "$(id -u)" = 0 ] || fail "needs root (network namespaces, sshd)"
	for c in /usr/sbin/sshd /usr/lib/openssh/sftp-server ssh ssh-keygen ansible-playbook nft ip unshare start-stop-daemon tar; do
		command -v "$c" >/dev/null || fail "$c is missing (make deps installs it)"
	done
	[ -x "$OVLPERF" ] || fail "$OVLPERF is not built (make)"
	reclaim
	[ -z "$(our_namespaces)" ] || fail "namespaces $(our_namespaces | tr '\n' ' ')exist without a marker: not ours, left alone"
}

# The switch (a bridge in its own namespace) and one port per host.
network()
{
	local h ns i=0
	ip netns add "$NS_SW"
	ip -n "$NS_SW" link add msbr type bridge
	ip -n "$NS_SW" link set msbr up
	for h in ctl "${HOSTS[@]}"; do
		ns=$(ns_of "$h")
		ip netns add "$ns"
		ip link add ms0 netns "$ns" type veth peer name "msp-$h" netns "$NS_SW"
		ip -n "$NS_SW" link set "msp-$h" master msbr up
		ip -n "$ns" link set lo up
		if [ "$h" = ctl ]; then
			ip -n "$ns" addr add "$NET4.1/24" dev ms0
			ip -n "$ns" addr add "$NET6::1/64" dev ms0 nodad
		else
			ip -n "$ns" addr add "$(addr_of "$h")/24" dev ms0
			ip -n "$ns" addr add "$NET6::$((11 + i))/64" dev ms0 nodad
			i=$((i + 1))
		fi
		ip -n "$ns" link set ms0 up
	done
}

# sshd in host H's namespace and a mount namespace of its own, whose /run is
# a fresh tmpfs: Debian's sshd needs /run/sshd, which this machine need not
# have, and the host's servers keep their state apart from the others'.
# root's home there is an empty tmpfs too, as on a fresh host: this
# machine's dotfiles are not the hosts' (a .bashrc that starts pyenv costs
# 0.5 s for every command Ansible sends, and a task sends several).
start_sshd()
{
	local h=$1 conf=$TMP/ssh/sshd-$1.conf
	ssh-keygen -q -t ed25519 -N '' -C "ms-$h" -f "$TMP/ssh/host-$h"
	cat >"$conf" <<-CONF
	ListenAddress $(addr_of "$h"):22
	HostKey $TMP/ssh/host-$h
	PidFile none
	AuthorizedKeysFile $TMP/ssh/authorized_keys
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	StrictModes no
	Subsystem sftp /usr/lib/openssh/sftp-server
	CONF
	echo "$(addr_of "$h") $(cut -d' ' -f1-2 "$TMP/ssh/host-$h.pub")" >>"$TMP/ssh/known_hosts"
	ip netns exec "$(ns_of "$h")" unshare -m --propagation private sh -c \
		'mount -t tmpfs -o mode=755 ms-run /run && mkdir -m 755 /run/sshd &&
		mount -t tmpfs -o mode=700 ms-home "$(getent passwd root | cut -d: -f6)" && exec "$@"' sh \
		/usr/sbin/sshd -D -f "$conf" -E "$TMP/log/sshd-$h.log" &
	SSHD_PIDS+=($!)
}

wait_sshd()
{
	local h
	for h in "${HOSTS[@]}"; do
		for _ in $(seq 50); do
			ip netns exec "$(ns_of "$h")" ss -ltn | grep -q "$(addr_of "$h"):22 " && continue 2
			sleep 0.1
		done
		fail "sshd of $(ns_of "$h") does not listen (see $TMP/log/sshd-$h.log)"
	done
}

ansible_files()
{
	local h a=$TMP/ansible
	mkdir -p "$a/home" "$a/tmp" "$a/cp" "$TMP/results"
	cat >"$a/ansible.cfg" <<-CFG
	[defaults]
	inventory = $a/inventory.ini
	roles_path = $REPO/deploy/ansible/roles
	forks = 10
	host_key_checking = True
	local_tmp = $a/tmp
	remote_tmp = $a/remote-tmp
	retry_files_enabled = False
	interpreter_python = /usr/bin/python3
	[ssh_connection]
	ssh_args = -F /dev/null -o ControlMaster=auto -o ControlPersist=30s -o UserKnownHostsFile=$TMP/ssh/known_hosts -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o ConnectTimeout=5
	control_path_dir = $a/cp
	pipelining = True
	CFG
	{
		echo "[ovlperf]"
		for h in "${HOSTS[@]}"; do
			echo "ms-$h ansible_host=$(addr_of "$h") ovlperf_prefix=$TMP/hosts/$h/usr" \
				"ovlperf_conf_dir=$TMP/hosts/$h/etc ovlperf_state_dir=$TMP/hosts/$h/run" \
				"ovlperf_server_logfile=$TMP/hosts/$h/server.log ovlperf_mesh_work_dir=$TMP/hosts/$h/mesh"
		done
		cat <<-VARS
		[ovlperf:vars]
		ansible_connection=ssh
		ansible_user=root
		ansible_become=false
		ansible_ssh_private_key_file=$TMP/ssh/id_demo
		VARS
	} >"$a/inventory.ini"
	# Short trials: the demo shows the mesh, it does not benchmark. Every
	# namespace shares this machine's cores, so rounds may put a host in
	# two tests (one as client, one as server); none serves two at once.
	cat >"$a/demo.yml" <<-VARS
	ovlperf_install_method: binary
	ovlperf_binary_file: $OVLPERF
	ovlperf_service_manager: daemon
	ovlperf_psk_src: $TMP/psk
	ovlperf_controller_bin: $OVLPERF
	ovlperf_mesh_id: demo
	ovlperf_mesh_results: $TMP/results
	ovlperf_mesh_exclusive: false
	ovlperf_mesh_pair_timeout: 120
	ovlperf_mesh_scenario:
	  repetitions: 1
	  duration: 1s
	ovlperf_mesh_sections:
	  tcp:
	    streams: 1
	    duration: 0.5s
	  udp:
	    sizes: 1200
	    duration: 0.5s
	    delay_loads: 50%
	  knee:
	    max_rate: 100M
	    min_rate: 10M
	    short: 0.2s
	    final: 0.5s
	    width_goal: 20
	    max_trials: 4
	  mtu:
	    base: 1200
	VARS
}

# ms-$CUT: every packet that comes in is refused (SSH and the test port alike).
cut_off()
{
	ip netns exec "$(ns_of "$CUT")" nft -f - <<-NFT
	table inet msdemo {
		chain input {
			type filter hook input priority 0; policy accept;
			iif lo accept
			reject with icmpx type admin-prohibited
		}
	}
	NFT
}

# reachable_ok PLAYBOOK: every host but the cut-off one went through it
# without a failure (the cut-off one is unreachable, and the playbook's exit
# status says so).
reachable_ok()
{
	local h log=$TMP/log/$1.log
	for h in "${HOSTS[@]}"; do
		[ "$h" = "$CUT" ] && continue
		grep -qE "ms-$h +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" "$log" ||
			{ tail -30 "$log" >&2; fail "$1.yml failed on ms-$h"; }
	done
	grep -qE "ms-$CUT +: .*unreachable=1" "$log" || { tail -30 "$log" >&2; fail "$1.yml reached ms-$CUT"; }
}

# Debian's python3 (scripts/deps.sh), not the first on PATH: a pyenv shim
# there costs 0.4 s a start.
PY=/usr/bin/python3

# check_pairs: every pair's pair.json (and the reachable pairs' run.json),
# and the matrix, read in one python; it prints the first thing wrong.
check_pairs()
{
	local err
	err=$(HOSTS="${HOSTS[*]}" "$PY" - "$TMP/results/demo" "$CUT" "$N_OK" "$N_CUT" <<-'PY'
	import json, os, sys
	top, cut, n_ok, n_cut = sys.argv[1], "ms-" + sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
	hosts = ["ms-" + h for h in os.environ["HOSTS"].split()]
	def load(path):
	    with open(path) as f:
	        return json.load(f)
	ok = bad = 0
	for c in hosts:
	    for s in hosts:
	        if c == s:
	            continue
	        d = f"{top}/{c}-{s}"
	        if not os.path.isfile(f"{d}/pair.json"):
	            sys.exit(f"{c} -> {s}: no pair.json")
	        p = load(f"{d}/pair.json")
	        if cut in (c, s):
	            if p["status"] == "ok":
	                sys.exit(f"{c} -> {s}: the cut-off host's pair says ok")
	            bad += 1
	            continue
	        if p["status"] != "ok":
	            sys.exit(f"{c} -> {s}: {p['status']}: {p['reason']}")
	        r = load(f"{d}/run.json")
	        if r["complete"] is not True:
	            sys.exit(f"{c} -> {s}: run.json not complete")
	        if len(r["paths"]) != 2:
	            sys.exit(f"{c} -> {s}: not 2 paths")
	        if sum(1 for t in r["trials"] if t["status"] == 0 and t["kind"] == "tcp") != 2:
	            sys.exit(f"{c} -> {s}: not a TCP trial on each path")
	        ok += 1
	if ok != n_ok:
	    sys.exit(f"{ok} complete pairs, expected {n_ok}")
	if bad != n_cut:
	    sys.exit(f"{bad} pairs of the cut-off host, expected {n_cut}")
	m = f"{top}/matrix/matrix.json"
	if not os.path.isfile(m):
	    sys.exit("mesh.yml made no matrix")
	m = load(m)
	if len(m["pairs"]) != n_ok + n_cut:
	    sys.exit(f"the matrix lists {len(m['pairs'])} pairs, not {n_ok + n_cut}")
	for k, n in (("ok", n_ok), ("unreachable", n_cut // 2), ("failed", n_cut // 2)):
	    if m["counts"][k] != n:
	        sys.exit(f"the matrix has {m['counts'][k]} {k} pairs, not {n} ({cut} as client: unreachable, as server: failed)")
	st = sorted(p["status"] for p in m["pairs"] if cut in (p["client"], p["server"]))
	if st != ["failed"] * (n_cut // 2) + ["unreachable"] * (n_cut // 2):
	    sys.exit(f"the cut-off host's pairs are not all failed or unreachable: {st}")
	PY
	) || fail "$err"
	say "ok: $N_OK pairs with a complete run.json (underlay and builtin), $N_CUT of ms-$CUT not ok"
	grep -q UNREACHABLE "$TMP/matrix.txt" && grep -q FAILED "$TMP/matrix.txt" ||
		fail "the printed matrix does not show the failed pairs"
	say "ok: the matrix lists $N_PAIRS pairs, ms-$CUT's as failed (server) and unreachable (client)"
}

check_nothing_left()
{
	[ -z "$(our_namespaces)" ] || fail "namespaces left: $(our_namespaces | tr '\n' ' ')"
	[ ! -e "$1" ] || fail "$1 left"
	[ ! -e "$MARKS/$$" ] || fail "$MARKS/$$ left"
	if pgrep -f "$1" >/dev/null; then fail "processes of the demo left: $(pgrep -af "$1")"; fi
	say "ok: nothing left (namespaces, sshd, servers, overlays, $1)"
}

main()
{
	local h t
	preflight
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	TMP=$(mktemp -d /tmp/ovlperf-mesh-demo.XXXXXX)
	mkdir -p "$MARKS"
	echo "$(start_time $$) $TMP" >"$MARKS/$$"
	mkdir -p "$TMP/ssh" "$TMP/log"
	chmod 700 "$TMP/ssh"
	(umask 077 && head -c 32 /dev/urandom | base64 >"$TMP/psk")
	network
	ssh-keygen -q -t ed25519 -N '' -C ovlperf-mesh-demo -f "$TMP/ssh/id_demo"
	cp "$TMP/ssh/id_demo.pub" "$TMP/ssh/authorized_keys"
	for h in "${HOSTS[@]}"; do start_sshd "$h"; done
	wait_sshd
	ansible_files
	cut_off
	say "${#HOSTS[@]} hosts up (ms-$CUT cut off by nftables); install.yml"
	ansible_run install.yml >"$TMP/log/install.log" 2>&1 || true
	reachable_ok install
	say "mesh.yml: $N_PAIRS ordered pairs"
	t=$(date +%s)
	ansible_run mesh.yml >"$TMP/log/mesh.log" 2>&1 || { tail -40 "$TMP/log/mesh.log" >&2; fail "mesh.yml failed"; }
	say "mesh.yml took $(($(date +%s) - t)) s"
	"$OVLPERF" report --matrix --no-plots "$TMP"/results/demo/ms-*-ms-*/ >"$TMP/matrix.txt"
	cat "$TMP/matrix.txt"
	check_pairs
	ansible_run uninstall.yml >"$TMP/log/uninstall.log" 2>&1 || true
	reachable_ok uninstall
	if pgrep -f "$TMP/hosts/.*/server.log" >/dev/null; then
		fail "uninstall.yml left servers running: $(pgrep -af "$TMP/hosts/.*/server.log")"
	fi
	say "ok: uninstall.yml stopped every server"
	DEMO_DONE=1
	h=$TMP
	( cleanup ) || true
	TMP=
	check_nothing_left "$h"
	say "done in $(($(date +%s) - T0)) s"
}

main "$@"
