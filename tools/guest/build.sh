#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/build.sh - build the QEMU test guest's kernel.
#
# Configures build/guest-x86_64 from x86_64 tinyconfig plus
# tools/configs/guest-x86_64.config (again whenever the fragment or a
# Kconfig file the project manages changes), verifies that every
# CONFIG_ line of the fragment took effect, and builds bzImage from the
# staged tree build/linux ("make stage" first). Prints a progress line
# every 30 s; the full log is build/guest-x86_64/build.log.
#
# The kernel: build/guest-x86_64/arch/x86/boot/bzImage.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=$REPO/build/linux
OUT=$REPO/build/guest-x86_64
FRAG=$REPO/tools/configs/guest-x86_64.config
JOBS=${JOBS:-$(nproc)}
CC=${CC:-ccache gcc}
export CCACHE_DIR=${CCACHE_DIR:-$REPO/build/ccache}
KMAKE=(make -C "$KSRC" O="$OUT" ARCH=x86_64 CC="$CC" -j"$JOBS")
STAMP=$OUT/.xsk_zc-config

die() { echo "guest: error: $*" >&2; exit 2; }

[ -f "$KSRC/.xsk_zc-managed" ] || die "build/linux not staged: run make stage"
mkdir -p "$OUT"

need_config() {
	[ -f "$OUT/.config" ] && [ -f "$STAMP" ] || return 0
	[ "$FRAG" -nt "$STAMP" ] && return 0
	# A staged Kconfig (a driver's new option) needs a new olddefconfig.
	while IFS= read -r f; do
		case "$f" in */Kconfig*) [ "$KSRC/$f" -nt "$STAMP" ] && return 0 ;; esac
	done < "$KSRC/.xsk_zc-managed"
	return 1
}

if need_config; then
	echo "guest: configuring build/guest-x86_64 (tinyconfig + $(basename "$FRAG"))"
	rm -f "$STAMP"
	"${KMAKE[@]}" -s tinyconfig >/dev/null || die "make tinyconfig failed"
	(cd "$KSRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m \
		-O "$OUT" "$OUT/.config" "$FRAG" >/dev/null) ||
		die "merge_config.sh failed"
	"${KMAKE[@]}" -s olddefconfig >/dev/null || die "make olddefconfig failed"
	bad=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*}
		val=${line#*=}
		got=$(grep -E "^$sym=" "$OUT/.config" | cut -d= -f2-)
		if [ "$got" != "$val" ]; then
			echo "guest: config: $sym=$val requested, got ${got:-unset}" >&2
			bad=1
		fi
	done < "$FRAG"
	[ $bad -eq 0 ] || die "$(basename "$FRAG") does not apply; see above"
	touch "$STAMP"
fi

LOG=$OUT/build.log
start=$(date +%s)
echo "guest: building bzImage in build/guest-x86_64 (-j$JOBS, log: build/guest-x86_64/build.log)"
"${KMAKE[@]}" bzImage > "$LOG" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT INT TERM
last=$start
while kill -0 $pid 2>/dev/null; do
	sleep 2
	now=$(date +%s)
	if [ $((now - last)) -ge 30 ]; then
		last=$now
		echo "guest: building... $((now - start)) s, $(grep -c '^  CC ' "$LOG") objects compiled"
	fi
done
wait $pid
rc=$?
trap - EXIT INT TERM
if [ $rc -ne 0 ]; then
	grep -E 'error|Error' "$LOG" | head -20 >&2
	die "kernel build failed (rc $rc), see build/guest-x86_64/build.log"
fi
echo "guest: bzImage ready in $(( $(date +%s) - start )) s"
