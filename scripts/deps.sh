#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages that are missing (as root, with apt-get), by
# purpose:
#   deps.sh demo   building ovlperf and running the main job (`make demo`):
#                  the compiler, the libraries, nftables, iproute2, gnuplot;
#                  nothing that runs a service
#   deps.sh check  the above and every tool the tests call (`make check`):
#                  cmocka, clang (ASan, fuzzers), the peers the netns tests
#                  compare with, Prometheus and its node exporter, Chromium
#                  (report.html), mandoc, Ansible and an SSH server (the mesh
#                  demo), the Debian packaging tools
#   deps.sh bench  the demo's and the peers bench/ compares with (`make bench`),
#                  and what building the anchor needs (wireguard-go from its
#                  2025 source, /work/shared/tools/wggo-modern-build.sh): Go
#                  1.23 and golang.org/x/crypto and x/sys from
#                  bookworm-backports (added to apt's sources, a file of its
#                  own, when missing), x/net from bookworm
# Only `check` installs packages that ship a service (openssh-server,
# prometheus, prometheus-node-exporter: Debian starts them where systemd
# runs); the tests start their own instances in namespaces of their own.
set -euo pipefail
demo_pkgs=(build-essential pkg-config
	libsodium-dev libssl-dev libnl-3-dev libnl-route-3-dev libinih-dev libcjson-dev
	libnftables-dev libcap-ng-dev libseccomp-dev
	nftables iproute2 gnuplot-nox)
peer_pkgs=(iperf3 wireguard-go wireguard-tools openvpn)
check_pkgs=(clang clang-format libclang-rt-14-dev libcmocka-dev
	iputils-ping tcpdump procps python3 bc ethtool
	"${peer_pkgs[@]}" nebula
	prometheus prometheus-node-exporter chromium mandoc
	ansible-core ansible-lint openssh-server openssh-sftp-server openssh-client
	debhelper dpkg-dev lintian)
# nebula (1.6: nebula and nebula-cert) is a VPN the tests run as a user
# does (tests/netns/test_nebula.sh), found by its TUN; its package ships
# only a templated unit (nebula@NAME), which starts nothing.
# bench/ runs its peers and reads results with python3; ping checks a path.
bench_pkgs=("${peer_pkgs[@]}" python3 iputils-ping procps)
# The anchor's build (offline, no module proxy): these from bookworm-backports,
anchor_bpo_pkgs=(golang-1.23-go golang-golang-x-crypto-dev golang-golang-x-sys-dev)
# this one from bookworm itself (its backport needs a newer x/crypto).
anchor_pkgs=(golang-golang-x-net-dev)
want=("${demo_pkgs[@]}")
case "${1:-check}" in
demo) ;;
check | test) want+=("${check_pkgs[@]}") ;;
bench) want+=("${bench_pkgs[@]}") ;;
*)
	echo "deps: unknown purpose '$1' (demo, check or bench)" >&2
	exit 2
	;;
esac
# missing PKG...: those of the packages not installed
missing()
{
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
	done
}
# One apt at a time: wait for another's lock rather than fail.
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends)
export DEBIAN_FRONTEND=noninteractive
need_root()
{
	[ "$(id -u)" -eq 0 ] && return 0
	echo "deps: missing $*; run 'make ${PURPOSE}' (or 'make deps') as root" >&2
	exit 1
}

# bookworm-backports beside the bookworm sources, in their form and mirror.
BPO_LIST=/etc/apt/sources.list.d/bookworm-backports.sources
add_backports()
{
	local uri
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	uri=$(sed -n 's|^URIs: *\([^ ]*debian\)/*$|\1|p' /etc/apt/sources.list.d/debian.sources 2>/dev/null |
		head -n 1)
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: %s\n' \
		"${uri:-http://deb.debian.org/debian}" /usr/share/keyrings/debian-archive-keyring.gpg >"$BPO_LIST"
	echo "deps: added bookworm-backports to apt's sources ($BPO_LIST)" >&2
}

# The anchor's packages, on Debian 12 only (elsewhere: say what it needs).
anchor_deps()
{
	local bpo plain
	mapfile -t bpo < <(missing "${anchor_bpo_pkgs[@]}")
	mapfile -t plain < <(missing "${anchor_pkgs[@]}")
	[ ${#bpo[@]} -eq 0 ] && [ ${#plain[@]} -eq 0 ] && return 0
	if ! grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release; then
		echo "deps: not Debian 12: the anchor (wireguard-go 2025) needs Go >= 1.23 and golang.org/x/{crypto,sys,net} sources; skipped" >&2
		return 0
	fi
	need_root "${bpo[@]}" "${plain[@]}"
	add_backports
	"${APT[@]}" update
	[ ${#bpo[@]} -eq 0 ] || "${APT[@]}" install -t bookworm-backports "${bpo[@]}" >/dev/null
	[ ${#plain[@]} -eq 0 ] || "${APT[@]}" install "${plain[@]}" >/dev/null
}

PURPOSE=${1:-check}
[ "$PURPOSE" = test ] && PURPOSE=check
mapfile -t missing_pkgs < <(missing "${want[@]}")
if [ ${#missing_pkgs[@]} -gt 0 ]; then
	need_root "${missing_pkgs[@]}"
	echo "deps: installing ${missing_pkgs[*]}" >&2
	"${APT[@]}" update
	"${APT[@]}" install "${missing_pkgs[@]}" >/dev/null
fi
if [ "$PURPOSE" = bench ]; then
	anchor_deps
fi
