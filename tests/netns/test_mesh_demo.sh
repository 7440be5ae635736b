#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# netns: long 82
# `make mesh-demo` (tests/mesh/mesh_demo.sh: the Ansible mesh on namespace
# hosts over SSH, every pair's run.json and the matrix, nothing left
# behind) as a lane script: it mostly waits on SSH and Ansible, so `make
# check` runs it beside the other lane scripts rather than after them. Its
# namespaces carry its own pid (msPID-*), so it collides with no other
# script. Each of its "mesh-demo: ok: ..." lines is a check here.
source "$(dirname "$0")/lib.sh"
LOG=$(mktemp /tmp/ovlperf-mesh-lane.XXXXXX)
on_exit "rm -f '$LOG'"
rc=0
OVLPERF=$OVLPERF bash "$(dirname "$0")/../mesh/mesh_demo.sh" >"$LOG" 2>&1 || rc=$?
while IFS= read -r line; do
	case $line in
	"mesh-demo: ok: "*) ok "${line#mesh-demo: ok: }" ;;
	*) echo "$line" ;;
	esac
done <"$LOG"
[ "$rc" -eq 0 ] || fail "tests/mesh/mesh_demo.sh exited $rc"
