#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/deps.sh PKG... - install the Debian packages given that are not
# installed yet. Runs "apt-get update" once, and only if something is
# missing. Quiet when everything is present.

set -euo pipefail

missing=()
for pkg in "$@"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "deps: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	}
	SUDO=sudo
fi

export DEBIAN_FRONTEND=noninteractive
# make check installs from two make processes at once (its guest jobs
# beside its builds): wait for the other's dpkg lock, do not fail on it.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
