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
#   deps.sh bench  the demo's and the peers bench/ compares with (`make bench`)
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
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make ${1:-check}' (or 'make deps') as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
