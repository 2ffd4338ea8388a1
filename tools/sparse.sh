#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/sparse.sh - build/sparse/sparse, the sparse that "make lint" runs
# (C=2); prints its path.
#
# Debian 12's sparse (0.6.4, 2021) cannot check Linux 7.2:
# scripts/checker-valid.sh asks the checker to parse __typeof_unqual__,
# which sparse learned after 0.6.4, and Kbuild then refuses to run it.
# Neither bookworm-backports nor trixie-backports carries a newer sparse;
# Debian's newer suites carry 0.6.5~rc1, which has it. This takes that
# source package (apt-get source, from the same archive this machine
# already uses, read from its apt sources as tools/qemu-deps.sh does)
# and builds the one program, as the project's QEMU is built: nothing is
# installed on the machine. Debian's patches are not applied: they pin
# the suite's compiler (gcc-16) and add a linker flag for its package. Rebuilt only when the version changes
# (build/sparse/.version).

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/sparse
APT=$OUT/apt
# The newest of these suites that has sparse >= MIN_VERSION wins.
SUITES="forky sid"
MIN_VERSION=0.6.5~rc1

die() { echo "sparse: error: $*" >&2; exit 1; }

. "$REPO/tools/private-apt.sh"

if [ -x "$OUT/sparse" ] && [ -f "$OUT/.version" ]; then
	echo "$OUT/sparse"
	exit 0
fi

rm -rf "$OUT"
mkdir -p "$OUT/src"
# shellcheck disable=SC2086 # SUITES: one word per suite
private_apt "$APT" deb-src $SUITES || die "no apt source for bookworm found"
echo "sparse: fetching the sparse source package ($SUITES)" >&2
apt-get -q "${PRIVATE_APT[@]}" update > /dev/null || die "apt-get update failed"
ver=$(apt-cache "${PRIVATE_APT[@]}" showsrc sparse 2>/dev/null |
      sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$ver" ] || die "no sparse source package in $SUITES"
dpkg --compare-versions "$ver" ge "$MIN_VERSION" ||
	die "sparse $ver in $SUITES, older than $MIN_VERSION"
(cd "$OUT/src" &&
 apt-get -q "${PRIVATE_APT[@]}" source --download-only "sparse=$ver" > /dev/null &&
 dpkg-source --no-check --skip-patches -x ./*.dsc tree > /dev/null) ||
	die "could not fetch and unpack sparse $ver"
echo "sparse: building sparse $ver" >&2
make -C "$OUT/src/tree" -j"$(nproc)" sparse > "$OUT/build.log" 2>&1 ||
	{ tail -n 20 "$OUT/build.log" >&2; die "the build of sparse $ver failed"; }
cp "$OUT/src/tree/sparse" "$OUT/sparse"
echo "$ver" > "$OUT/.version"
echo "$OUT/sparse"
