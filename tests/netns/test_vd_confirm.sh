#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: lanes
# run --confirm proves a fix by a rerun, IPv4 and IPv6: a lab (vdcf) whose
# hosts' net.ipv4.tcp_rmem maximum is 256 KiB ([lab] tcp_rmem_max) over a
# userspace link of 20 ms each way at 100 Mbit/s (40 ms round trip: 256 KiB
# allows about 26 Mbit/s at the half of it the kernel advertises). The TCP
# verdict is the receive window; --confirm raises the receiving host's
# tcp_rmem maximum in its namespace to the fix's value (seen there during
# the rerun), reruns, and the figure moves: the goodput rises by a tenth or
# more and the limit is now the link's rate; the run reads the maximum back
# as the lab gave it after the rerun (run.json's restored), and run.json and
# the report say it. Never on speed: only "rose".
source "$(dirname "$0")/lib.sh"

OUT=$(mktemp -d)
on_exit "rm -rf $OUT"
on_exit "'$OVLPERF' lab down vdcf >/dev/null 2>&1"

for fam in 4 6; do
	printf '%s\n' "[scenario]" "name = vdcf$fam" "repetitions = 1" "duration = 3s" "[lab]" \
		"name = vdcf" "delay = 20ms" "rate = 100M" "link_means = userspace" "tcp_rmem_max = 256K" \
		"[path.underlay]" "type = underlay" "family = $fam" "[tcp]" "streams = 1" \
		"[udp]" "enabled = no" >"$OUT/c$fam.ini"
	# the server host's maximum while the run goes on, last seen
	(
		while :; do
			v=$(ip netns exec ovp-vdcf-1 sysctl -n net.ipv4.tcp_rmem 2>/dev/null) &&
				echo "$v" >>"$OUT/rmem$fam.seen"
			sleep 0.05
		done
	) &
	watcher=$!
	on_exit "kill $watcher 2>/dev/null"
	"$OVLPERF" run --confirm --no-progress --no-plots --out "$OUT/r$fam" "$OUT/c$fam.ini" \
		>"$OUT/r$fam.out" 2>"$OUT/r$fam.err" || { cat "$OUT/r$fam.err"; fail "IPv$fam: run --confirm exited non-zero"; }
	kill $watcher 2>/dev/null || true
	python3 - "$OUT/r$fam/run.json" >"$OUT/c$fam.check" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	c = d.get("confirm", [])
	assert len(c) == 1, "confirm: %s" % c
	c = c[0]
	assert c["limit_before"] == "receive window", c
	assert c["applied"].startswith("net.ipv4.tcp_rmem maximum 262144 -> "), c
	assert c["applied"].endswith("B on lab host 1"), c
	assert c["restored"], c
	assert c["after_bps"] >= 1.1 * c["before_bps"], "not moved: %s" % c
	assert c["limit_after"] == "network rate", c
	print("%.3g -> %.3g bit/s, %s -> %s, %s" % (c["before_bps"], c["after_bps"],
	      c["limit_before"], c["limit_after"], c["applied"]))
	PY
	[ $? = 0 ] || fail "IPv$fam: $(cat "$OUT/c$fam.check")"
	ok "IPv$fam: rerun with the fix: $(cat "$OUT/c$fam.check")"
	grep -q "rerun with the fix (--confirm): confirmed: +" "$OUT/r$fam.out" ||
		fail "IPv$fam: the report does not say it: $(grep -A3 'TCP limited by' "$OUT/r$fam.out")"
	ok "IPv$fam: the report says $(grep -o 'confirmed: +[0-9]* %' "$OUT/r$fam.out")"
	# the fix's maximum seen in the server host's namespace during the
	# rerun (the lab goes with the run, so "put back" is the run's own
	# reading of it after the rerun: run.json's restored, checked above)
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["confirm"][0]["applied"].split()[4])' "$OUT/r$fam/run.json")
	grep -q "[[:space:]]$want\$" "$OUT/rmem$fam.seen" ||
		fail "IPv$fam: the raised maximum $want never seen in the server host: $(sort -u "$OUT/rmem$fam.seen")"
	ok "IPv$fam: the server host's tcp_rmem maximum was $want during the rerun (sysctl in its namespace)"
done
