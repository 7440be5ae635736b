#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: alone: mounts a tmpfs and reads lab list
# `ovlperf run` onto a full disk: the results directory is a 64 KiB tmpfs
# filled to the last byte before the run (lab "hkfd", underlay only, a few
# short trials). Every file of the results directory fails to be written;
# the run must say so and exit 3 (documented in `ovlperf run --help`), naming
# run.json, summary.csv and report.md, and its summary must not point at
# them as written. A run into a roomy directory then exits 0: the check can
# fail either way.
source "$(dirname "$0")/lib.sh"

OUT=$(mktemp -d /tmp/ovlperf-hk-fulldisk.XXXXXX)
DISK="$OUT/disk"
on_exit "rm -rf '$OUT'"
on_exit "umount '$DISK'"
on_exit "\"$OVLPERF\" lab down hkfd"
"$OVLPERF" lab down hkfd >/dev/null 2>&1 || true

cat >"$OUT/hk.ini" <<'EOF'
[scenario]
name = hk-fulldisk
description = test: the results directory on a full disk
repetitions = 1
duration = 300ms

[lab]
name = hkfd

[path.underlay]
type = underlay

[tcp]
streams = 1
duration = 300ms

[udp]
sizes = 1400
duration = 300ms

[knee]
max_rate = 200M
min_rate = 5M
loss_goal = 5
width_goal = 40
short = 200ms
final = 300ms
max_trials = 4
EOF

# run_hk DIR STDOUT STDERR: `ovlperf run` of hk.ini into DIR; RC its exit
# status. The script has no timeout (the run takes about 10 s under ASan on a
# loaded machine), and ovlperf run signals no process but its own children:
# an exit of 128 + N means some other process sent it signal N (a timeout
# would signal this shell too, whose trap exits 130). That run showed
# nothing about the disk, so it is said and the run made once more from an
# empty DIR; a second signal fails the check like any other wrong status.
run_hk()
{
	local try
	for try in 1 2; do
		RC=0
		"$OVLPERF" run --no-progress --out "$1" "$OUT/hk.ini" >"$2" 2>"$3" || RC=$?
		{ [ "$RC" -gt 128 ] && [ "$try" = 1 ]; } || return 0
		echo "# the run into $1 ended by signal $((RC - 128)) from another process" \
			"($(grep -m1 'stopped:' "$3" || echo 'no reason printed')): once more"
		rm -rf "$1"
	done
}

mkdir "$DISK"
mount -t tmpfs -o size=64k,mode=0755 tmpfs "$DISK"
# Fill it: dd stops at ENOSPC, which is the point.
dd if=/dev/zero of="$DISK/filler" bs=4k >/dev/null 2>&1 || true
if dd if=/dev/zero of="$DISK/probe" bs=1 count=1 >/dev/null 2>&1 && [ -s "$DISK/probe" ]; then
	fail "the tmpfs still takes data after filling it"
fi
ok "results folder: a full 64 KiB tmpfs"

run_hk "$DISK/r" "$OUT/stdout" "$OUT/stderr"
cat "$OUT/stderr" >&2
expect_eq "exit status of a run whose files could not be written" "$RC" 3
line=$(grep '^ovlperf run: could not write' "$OUT/stderr" || true)
[ -n "$line" ] || fail "no 'ovlperf run: could not write' line on stderr"
for f in run.json summary.csv report.md; do
	grep -q "$f" <<<"$line" || fail "the message does not name $f: $line"
done
ok "stderr names run.json, summary.csv and report.md: $line"
grep -q 'INCOMPLETE: could not write' "$OUT/stdout" || fail "the summary does not say the files are missing"
if grep -q '(run.json, summary.csv, report.md' "$OUT/stdout"; then
	fail "the summary points at files it could not write"
fi
ok "the summary says what is missing, and claims nothing"
if "$OVLPERF" lab list 2>/dev/null | grep -qw hkfd; then
	fail "lab hkfd is still up after the run"
fi
ok "lab removed after the run"

# The same run with room to write: exit 0, every file there and complete.
run_hk "$OUT/roomy" "$OUT/stdout2" "$OUT/stderr2"
[ "$RC" -eq 0 ] || { cat "$OUT/stderr2" >&2; fail "the roomy run exited $RC"; }
for f in run.json summary.csv report.md; do
	[ -s "$OUT/roomy/$f" ] || fail "$f missing or empty in the roomy run"
done
grep -q '^results: .*(run.json, summary.csv, report.md' "$OUT/stdout2" || fail "roomy run: no results line"
ok "with room: exit 0, run.json, summary.csv and report.md written"
