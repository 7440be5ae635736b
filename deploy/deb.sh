#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make deb`: the Debian package, built by dpkg-buildpackage (debhelper, dh;
# debian/) from a copy of the tree in $DEB_OUT/src, so that nothing lands
# beside the tree (dpkg-buildpackage writes into the parent directory) and
# the working tree's own build stays untouched. The .deb, .buildinfo and
# .changes end up in $DEB_OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
DEB_OUT=${DEB_OUT:-$PWD/build-deb}
V=$(dpkg-parsechangelog -S Version)
SRC=$DEB_OUT/src/ovlperf-$V
# The package's version is the program's: debian/changelog follows version.h.
want=$(sed -n 's/^#define OVLPERF_VERSION "\(.*\)"/\1/p' include/base/version.h)
if [ "$V" != "$want" ]; then
	echo "make deb: debian/changelog says $V, include/base/version.h $want: add a changelog entry (dch -v $want)" >&2
	exit 1
fi

rm -rf "$DEB_OUT/src"
mkdir -p "$SRC"
# The tracked and new files of the tree, not its builds or results.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | grep -zv '^results/' |
		xargs -0 cp --parents -t "$SRC"
else
	tar -C . --exclude='./build*' --exclude=./results --exclude=./ovlperf --exclude=./.git -cf - . |
		tar -C "$SRC" -xf -
fi
rm -f "$SRC/ovlperf"
(cd "$SRC" && dpkg-buildpackage -b -us -uc -j2 >"$DEB_OUT/build.log" 2>&1) || {
	tail -30 "$DEB_OUT/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (log: $DEB_OUT/build.log)" >&2
	exit 1
}
mv "$DEB_OUT"/src/ovlperf_"$V"_* "$DEB_OUT/"
rm -rf "$DEB_OUT/src"
ls "$DEB_OUT"/ovlperf_"$V"_*.deb
