#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/base.sh [--name | --version] - the pristine kernel tree every
# build starts from: Debian's linux-source-7.2, from the trixie-backports
# suite of the Debian archive this machine already uses. Extracted once
# into build/base/linux-source-7.2 and never modified afterwards; prints
# that directory. --name prints "linux-source-7.2", --version the Debian
# version extracted (after extracting it if needed).
#
# linux-source-7.2 is "Architecture: all" and only a tarball: it is not
# installed. A private apt state under build/base/apt/ downloads the
# newest 7.2 point release (apt-get download), and dpkg-deb unpacks the
# tarball from it; the system's apt sources, lists and preferences are
# not touched, so no trixie package can ever replace a bookworm one.
# The archive URI and its key are those of the machine's own bookworm
# source (tools/qemu-deps.sh --archive); Debian 12's
# debian-archive-keyring carries the trixie keys.
#
# A point release is taken once: build/base/.linux-source-7.2.extracted
# holds its version, and build/linux and the other trees are staged from
# it until "make distclean" (or XSKZC_BASE_REFRESH=1, which fetches the
# newest again and re-extracts if it changed). A fresh clone always
# starts from the newest, so a point release the patches no longer apply
# to shows at once.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
SERIES=7.2
SRCNAME=linux-source-$SERIES
SUITE=trixie-backports
BASE=$BUILD/base/$SRCNAME
STAMP=$BUILD/base/.$SRCNAME.extracted
APT=$BUILD/base/apt
DL=$BUILD/base/dl

die() { echo "base: error: $*" >&2; exit 1; }

. "$REPO/tools/private-apt.sh"

case "${1:-}" in
--name) echo "$SRCNAME"; exit 0 ;;
--version|"") ;;
*) die "usage: tools/base.sh [--name | --version]" ;;
esac

fetch() {
	rm -rf "$DL"
	mkdir -p "$DL"
	private_apt "$APT" deb "$SUITE" || die "no apt source for bookworm found"
	echo "base: fetching $SRCNAME from $SUITE" >&2
	apt-get -q "${PRIVATE_APT[@]}" update >/dev/null ||
		die "apt-get update of $SUITE failed"
	(cd "$DL" && apt-get -q "${PRIVATE_APT[@]}" download "$SRCNAME" >/dev/null) ||
		die "could not download $SRCNAME from $SUITE"
}

version_of() {
	dpkg-deb -f "$1" Version
}

extract() {
	local deb=$1 ver tmp
	ver=$(version_of "$deb")
	echo "base: extracting $SRCNAME $ver" >&2
	tmp=$BUILD/base/.tmp
	rm -rf "$BASE" "$tmp" "$STAMP"
	mkdir -p "$tmp"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$SRCNAME.tar.xz" | tar -xJ -C "$tmp"
	[ -f "$tmp/$SRCNAME/Makefile" ] ||
		die "$(basename "$deb") does not contain $SRCNAME/"
	mv "$tmp/$SRCNAME" "$BASE"
	rmdir "$tmp"
	echo "$ver" > "$STAMP"
}

if [ ! -e "$STAMP" ] || [ "${XSKZC_BASE_REFRESH:-0}" = 1 ]; then
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		die "needs apt-get and dpkg-deb (Debian)"
	fetch
	deb=$(find "$DL" -maxdepth 1 -name "${SRCNAME}_*_all.deb" | head -n1)
	[ -n "$deb" ] || die "no ${SRCNAME} package downloaded"
	if [ ! -e "$STAMP" ] || [ "$(version_of "$deb")" != "$(cat "$STAMP")" ]; then
		extract "$deb"
	fi
	# The tarball is in the tree now; the .deb is 165 MB.
	rm -f "$deb"
fi

if [ "${1:-}" = --version ]; then
	cat "$STAMP"
else
	echo "$BASE"
fi
