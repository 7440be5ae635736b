#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every command's --help (and -h) prints its usage on stdout, nothing on
# stderr, no key (`tunnel genkey --help` once printed a private key), and
# exits 0; a file that cannot be read is named once, after the command's
# prefix. Touches no namespace.
source "$(dirname "$0")/lib.sh"

OUT=$(mktemp -d /tmp/ovlperf-cli-help.XXXXXX)
on_exit "rm -rf '$OUT'"

cmds=("" run report "report --matrix" server client sweep mtu lab "lab up" "lab down"
	"lab show" "lab exec" "lab list" link "link run" tunnel "tunnel genkey" "tunnel pubkey"
	"tunnel up" "tunnel show" "tunnel down")
for c in "${cmds[@]}"; do
	for h in --help -h; do
		rc=0
		# shellcheck disable=SC2086 # the words of c are the command's
		"$OVLPERF" $c $h </dev/null >"$OUT/out" 2>"$OUT/err" || rc=$?
		what="ovlperf${c:+ $c} $h"
		[ "$rc" -eq 0 ] || fail "$what exits $rc: $(cat "$OUT/err")"
		[ ! -s "$OUT/err" ] || fail "$what writes to stderr: $(cat "$OUT/err")"
		grep -q '^Usage: ovlperf' "$OUT/out" || fail "$what prints no usage: $(head -3 "$OUT/out")"
		! grep -qE '[A-Za-z0-9+/]{43}=' "$OUT/out" || fail "$what prints a key"
	done
done
ok "${#cmds[@]} commands: --help and -h print usage, exit 0, no key, nothing on stderr"

# The check above must be able to fail: a command that prints a key.
"$OVLPERF" tunnel genkey >"$OUT/key"
grep -qE '[A-Za-z0-9+/]{43}=' "$OUT/key" || fail "the key pattern misses a real key"
ok "the key pattern finds a real key"

# once_named CMD...: CMD fails with one line naming $MISSING once, prefixed
# with `ovlperf WORD:`
once_named()
{
	local rc=0 n
	"$OVLPERF" "$@" >/dev/null 2>"$OUT/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "ovlperf $*: exit 0 for a missing file"
	n=$(grep -o -F "$MISSING" "$OUT/err" | wc -l)
	[ "$n" -eq 1 ] || fail "ovlperf $*: names $MISSING $n times: $(cat "$OUT/err")"
	grep -q "^ovlperf $1: " "$OUT/err" || fail "ovlperf $*: not prefixed 'ovlperf $1:': $(cat "$OUT/err")"
	ok "ovlperf $*: the missing file named once, after 'ovlperf $1:'"
}
# prefixed CMD ARGS...: the error of `ovlperf CMD ARGS` starts with
# "ovlperf CMD:" (getopt's own messages too); a hint may follow it
prefixed()
{
	local rc=0
	"$OVLPERF" "$@" </dev/null >/dev/null 2>"$OUT/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "ovlperf $*: exit 0"
	[ -s "$OUT/err" ] || fail "ovlperf $*: no error message"
	head -n 1 "$OUT/err" | grep -qE "^ovlperf $1( [a-z]+)?: " ||
		fail "ovlperf $*: not prefixed 'ovlperf $1:': $(cat "$OUT/err")"
	# and no line with another prefix ("ovlperf:", "client:")
	! grep -vE "^ovlperf $1( [a-z]+)?: " "$OUT/err" | grep -qE '^(ovlperf|[a-z]+):' ||
		fail "ovlperf $*: a line with another prefix: $(cat "$OUT/err")"
}
prefixed client --no-such-option 198.18.0.1
prefixed client -u -l 70000 198.18.0.1
prefixed sweep --no-such-option
prefixed lab up --no-such-option
prefixed tunnel up --no-such-option
prefixed tunnel pubkey
prefixed mtu
prefixed report --format yaml "$OUT"
ok "errors start 'ovlperf COMMAND:', getopt's and the log's too"
# a misspelt long option gets the one it was near; a far one gets none
"$OVLPERF" client --bidr x >/dev/null 2>"$OUT/err" && fail "client --bidr: exit 0"
grep -q "^ovlperf client: unknown option '--bidr' (did you mean --bidir?)" "$OUT/err" ||
	fail "client --bidr: $(cat "$OUT/err")"
"$OVLPERF" server --prot=1 >/dev/null 2>"$OUT/err" && fail "server --prot: exit 0"
grep -q "(did you mean --port?)" "$OUT/err" || fail "server --prot=1: $(cat "$OUT/err")"
"$OVLPERF" client --zzzzzz x >/dev/null 2>"$OUT/err" && fail "client --zzzzzz: exit 0"
! grep -q "did you mean" "$OUT/err" || fail "client --zzzzzz: $(cat "$OUT/err")"
ok "a misspelt long option: did you mean the near one (none for a far one)"
# a misspelt command likewise
rc=0
"$OVLPERF" rnu >/dev/null 2>"$OUT/err" || rc=$?
[ "$rc" = 2 ] || fail "ovlperf rnu: exit $rc, not 2"
grep -q "^ovlperf: unknown command 'rnu' (did you mean 'run'?)" "$OUT/err" ||
	fail "ovlperf rnu: $(cat "$OUT/err")"
"$OVLPERF" zzzzzz >/dev/null 2>"$OUT/err" && fail "ovlperf zzzzzz: exit 0"
! grep -q "did you mean" "$OUT/err" || fail "ovlperf zzzzzz: $(cat "$OUT/err")"
ok "a misspelt command: did you mean the near one (none for a far one)"
# iperf3's "100 Mbps" as two words: the extra word named, and the habit
"$OVLPERF" client -b 100 Mbps -c 198.18.0.2 >/dev/null 2>"$OUT/err" && fail "-b 100 Mbps: exit 0"
grep -q "^ovlperf client: 'Mbps' is one argument too many: .*(-b 100M, not -b 100 Mbps)" \
	"$OUT/err" || fail "-b 100 Mbps -c HOST: $(cat "$OUT/err")"
"$OVLPERF" client 198.18.0.2 -b 100 Mbps >/dev/null 2>"$OUT/err" && fail "-b 100 Mbps: exit 0"
grep -q "not '198.18.0.2' and 'Mbps'" "$OUT/err" || fail "HOST -b 100 Mbps: $(cat "$OUT/err")"
ok "a rate in two words: the extra word named, and how to write it"
MISSING=$OUT/none.ini once_named run "$OUT/none.ini"
MISSING=$OUT/none once_named report "$OUT/none"
echo "$TEST_NAME: $CHECKS checks passed"
