#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/qemu-deps.sh [--archive | --build] - install qemu-system-x86 >= 8
# (QEMU's igb model came in 8.0) from the bookworm-backports suite of the
# Debian archive this machine already uses; with --archive, only print
# that archive's "URI SIGNED_BY" ("-" for no Signed-By); with --build,
# also what building QEMU 10 needs from there (tools/qemu/build.sh):
# meson >= 1.5 and pycotap (bookworm has meson 1.0).
#
# The archive URI is read from the machine's own apt sources at run time
# (the deb822 .sources entry or sources.list line whose suites include
# "bookworm"); a backports source for it is added to
# /etc/apt/sources.list.d/ only if no configured source has
# bookworm-backports yet. Quiet when a new enough QEMU is installed.

set -euo pipefail

MIN_MAJOR=8
LIST=/etc/apt/sources.list.d/xsk-zc-bookworm-backports.sources

qemu_major() {
	local v
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) || return 1
	[ -n "$v" ] || return 1
	v=${v#*:}
	echo "${v%%.*}"
}

# Print "URI SIGNED_BY" of the first apt source whose suites include
# bookworm (deb822 files first, then one-line sources.list files).
archive_of_bookworm() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		[ "$f" = "$LIST" ] && continue
		awk '
		function flush() {
			if (uris != "" && bw && deb) { print uris, (sb == "" ? "-" : sb); found = 1; exit }
			uris = ""; sb = ""; bw = 0; deb = 0
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
		tolower($1) == "uris:" { uris = $2 }
		tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") bw = 1 }
		tolower($1) == "signed-by:" { sb = $2 }
		END { if (!found) flush() }
		' "$f" | head -n1 | grep . && return 0
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		# deb [opts] URI SUITE COMPONENT...
		awk '
		$1 == "deb" {
			i = 2; sb = "-"
			if ($i ~ /^\[/) {
				while (i <= NF) {
					if ($i ~ /^\[?signed-by=/) { sb = $i; sub(/^\[?signed-by=/, "", sb); sub(/\]$/, "", sb) }
					if ($i ~ /\]$/) { i++; break }
					i++
				}
			}
			if ($(i + 1) == "bookworm") { print $i, sb; exit }
		}' "$f" | head -n1 | grep . && return 0
	done
	return 1
}

has_backports() {
	grep -rhsE '^[^#]*(Suites:.*[[:space:]]|^deb .*[[:space:]])bookworm-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/ >/dev/null
}

# "qemu-deps.sh --archive": print "URI SIGNED_BY" of the bookworm archive
# (tools/qemu/build.sh takes QEMU's source package from it).
if [ "${1:-}" = --archive ]; then
	archive_of_bookworm
	exit
fi

BUILD_PKGS=()
if [ "${1:-}" = --build ]; then
	# "PACKAGE MIN_VERSION", 0 for any
	for pv in "meson 1.5" "python3-pycotap 0"; do
		read -r p min <<< "$pv"
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] && dpkg --compare-versions "$v" ge "$min" ||
			BUILD_PKGS+=("$p")
	done
fi

status=$(dpkg-query -W -f='${db:Status-Status}' qemu-system-x86 2>/dev/null || true)
if [ "$status" = installed ] && [ "$(qemu_major)" -ge $MIN_MAJOR ] &&
   command -v qemu-system-x86_64 >/dev/null && [ ${#BUILD_PKGS[@]} -eq 0 ]; then
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "qemu-deps: need root (or sudo) to install qemu-system-x86" >&2
		exit 1
	}
	SUDO=sudo
fi


if ! has_backports; then
	read -r uri signed_by < <(archive_of_bookworm) || {
		echo "qemu-deps: no apt source for bookworm found" >&2
		exit 1
	}
	echo "qemu-deps: adding bookworm-backports from the configured bookworm archive" >&2
	{
		echo "# Added by xsk_zc tools/qemu-deps.sh for qemu-system-x86 >= $MIN_MAJOR."
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: bookworm-backports"
		echo "Components: main"
		[ "$signed_by" = - ] || echo "Signed-By: $signed_by"
	} | $SUDO tee "$LIST" >/dev/null
fi

echo "qemu-deps: installing qemu-system-x86 ${BUILD_PKGS[*]} from bookworm-backports" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
	-t bookworm-backports qemu-system-x86 "${BUILD_PKGS[@]}" >/dev/null
major=$(qemu_major || echo 0)
[ "$major" -ge $MIN_MAJOR ] || {
	echo "qemu-deps: qemu-system-x86 $major installed, need >= $MIN_MAJOR" >&2
	exit 1
}
