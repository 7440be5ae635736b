# SPDX-License-Identifier: MIT
# Sourced by the scripts that bring a VPN up between two namespaces
# (remote_wg.sh, nebula_path.sh): each end's daemon runs with its pid in
# DIR/NAMEc.pid (the client's) and DIR/NAMEs.pid (the server's).

# vpn_ends_down NAME DIR: both ends' daemons stopped, and gone before
# their ports and TUN devices are taken again
vpn_ends_down()
{
	local name=$1 dir=$2 end
	for end in c s; do
		[ -f "$dir/$name$end.pid" ] && kill "$(cat "$dir/$name$end.pid")" 2>/dev/null || true
	done
	for end in c s; do
		for _ in $(seq 50); do
			[ -f "$dir/$name$end.pid" ] && kill -0 "$(cat "$dir/$name$end.pid")" 2>/dev/null ||
				break
			sleep 0.1
		done
	done
}
