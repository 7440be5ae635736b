#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages that are missing (as root, with apt-get).
# deps.sh test   what building and `make check` need
# deps.sh bench  peers for bench/ as well
set -euo pipefail
test_pkgs=(build-essential pkg-config clang clang-format libclang-rt-14-dev
	libsodium-dev libnl-3-dev libnl-route-3-dev libcmocka-dev libinih-dev
	libcjson-dev libnftables-dev libcap-ng-dev libseccomp-dev nftables iproute2 iputils-ping gnuplot-nox tcpdump procps
	python3 bc ethtool
	wireguard-go wireguard-tools iperf3 openvpn
	prometheus chromium mandoc
	ansible-core ansible-lint openssh-server openssh-sftp-server openssh-client debhelper dpkg-dev lintian)
bench_pkgs=(iperf3 wireguard-go wireguard-tools openvpn)
want=("${test_pkgs[@]}")
[ "${1:-test}" = bench ] && want+=("${bench_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
