#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lab hosts on CPUs of their own (`lab up --cpus`, [lab] cpus): what the lab
# starts in a host runs on that host's CPUs (lab exec, the built-in
# overlay's daemons, a run's server), a run's own loads on its client's, and
# an external path's setup learns both (OVLPERF_CPUS_CLIENT/_SERVER). The
# hosts get the CPUs the other way round (host 0 on CPU 1, host 1 on CPU 0),
# so that neither "every CPU" nor swapped hosts can pass. A CPU the machine
# does not have is refused before anything is made, and `lab up --force`
# refused so leaves the old lab alone.
source "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || { echo "ok - skipped: one CPU (lab hosts on CPUs of their own need two)"; exit 0; }
OUT=$(mktemp -d /tmp/ovlperf-lab-cpus.XXXXXX)
on_exit "rm -rf '$OUT'"

cpus_of() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status"; }

# --- lab up --cpus: lab exec, lab show, the state ---
lab_make lcp --cpus "1|0"
expect_eq "lab exec in host 0 runs on" \
	"$("$OVLPERF" lab exec lcp 0 awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)" 1
expect_eq "lab exec in host 1 runs on" \
	"$("$OVLPERF" lab exec lcp 1 awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)" 0
has "host 1: CPUs 0" "$OVLPERF" lab show lcp || fail "lab show: $("$OVLPERF" lab show lcp)"
ok "lab show: host 1: CPUs 0"
"$OVLPERF" lab show lcp --json >"$OUT/lab.json"
expect_eq "lab show --json: cpus" "$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["cpus"]))' "$OUT/lab.json")" "1 0"

rc=0
"$OVLPERF" lab up lcp --force --cpus "0|1000" >"$OUT/force.out" 2>&1 || rc=$?
expect_eq "lab up --force with CPU 1000: exit status" "$rc" 2
grep -q "host 1's CPU 1000 is not one this process may run on" "$OUT/force.out" ||
	fail "the refusal does not name host and CPU: $(cat "$OUT/force.out")"
expect_eq "the old lab is still there, on its CPUs" \
	"$("$OVLPERF" lab exec lcp 1 awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)" 0
"$OVLPERF" lab down lcp >/dev/null

# --- a run: its server, the overlay's daemons, its loads, an external path's setup ---
cat >"$OUT/probe.sh" <<'EOF'
# What runs where, as a path's setup sees it: written to $1.
out=$1
{
	echo "env $OVLPERF_CPUS_CLIENT $OVLPERF_CPUS_SERVER"
	echo "setup $(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$$/status)"
	for side in client server; do
		ns=$OVLPERF_NS_CLIENT
		[ $side = client ] || ns=$OVLPERF_NS_SERVER
		for p in $(ip netns pids "$ns"); do
			# the ovlperf subcommand (argv[1]): server, or the overlay's daemon
			echo "$side $(tr '\0' '\n' </proc/$p/cmdline | sed -n 2p) $(awk '/^Cpus_allowed_list/ { print $2 }' /proc/$p/status)"
		done
	done
} >"$out"
EOF
write_scn()
{
	printf '%s\n' "[scenario]" "name = lab-cpus" "duration = 300ms" \
		"[lab]" "name = lcr" "cpus = $1" \
		"[path.overlay]" "type = builtin" \
		"[path.plain]" "type = external" "address = 198.18.0.2" \
		"setup = sh $OUT/probe.sh $OUT/seen" \
		"[tcp]" "streams = 1" "duration = 300ms" "[udp]" "enabled = no" \
		"[mtu]" "enabled = no" >"$2"
}
write_scn "1 | 0" "$OUT/run.ini"
"$OVLPERF" lab down lcr >/dev/null 2>&1 || true
on_exit "\"$OVLPERF\" lab down lcr"
rc=0
"$OVLPERF" run --no-progress --no-plots --out "$OUT/r" "$OUT/run.ini" >"$OUT/run.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$OUT/run.out" >&2; fail "ovlperf run exited $rc"; }
ok "a run with [lab] cpus = 1 | 0 exits 0"
expect_eq "setup's OVLPERF_CPUS_CLIENT and _SERVER" "$(awk '$1 == "env" { print $2, $3 }' "$OUT/seen")" "1 0"
expect_eq "the run (its setup command inherits its CPUs) on" "$(awk '$1 == "setup" { print $2 }' "$OUT/seen")" 1
expect_eq "the run's server, in host 1, on" \
	"$(awk '$1 == "server" && $2 == "server" { print $3 }' "$OUT/seen")" 0
n=$(awk '$1 == "client" || $1 == "server"' "$OUT/seen" | wc -l)
expect_ge "processes seen in the hosts (the overlay's daemons and the server)" "$n" 3
bad=$(awk '($1 == "client" && $3 != "1") || ($1 == "server" && $3 != "0")' "$OUT/seen")
[ -z "$bad" ] || fail "processes off their host's CPUs: $bad"
ok "every process in host 0 on CPU 1, in host 1 on CPU 0"
expect_eq "run.json host.client_cpus" "$(json_get "$OUT/r/run.json" host.client_cpus)" 1
expect_eq "run.json host.server_cpus" "$(json_get "$OUT/r/run.json" host.server_cpus)" 0
has "lab hosts on CPUs of their own: client 1, server 0" "$OVLPERF" report "$OUT/r" ||
	fail "the report does not say the hosts' CPUs"
ok "the report says the hosts' CPUs"

# --- a CPU the machine does not have: refused, nothing made ---
write_scn "0 | 1000" "$OUT/bad.ini"
rc=0
"$OVLPERF" run --no-progress --no-plots --out "$OUT/b" "$OUT/bad.ini" >"$OUT/bad.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a run on CPU 1000 exited 0"
grep -q "host 1's CPU 1000 is not one this process may run on" "$OUT/bad.out" ||
	fail "the refusal does not name host and CPU: $(cat "$OUT/bad.out")"
ok "a run on CPU 1000 is refused (exit $rc), naming host 1's CPU 1000"
[ ! -e /run/ovlperf/labs/lcr ] && ! ip netns list | grep -q "^ovp-lcr-" ||
	fail "the refused run left its lab"
ok "the refused run made nothing"
