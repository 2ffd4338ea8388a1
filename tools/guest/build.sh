#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/build.sh [FLAVOUR] - build the QEMU test guest's kernel.
#
# FLAVOUR (default: none) picks the output directory and the config
# fragments merged, in order, on top of x86_64 tinyconfig:
#
#   (none)    build/guest-x86_64           guest-x86_64.config
#   debug     build/guest-x86_64-debug     guest-x86_64.config, guest-debug.config
#   pristine  build/guest-x86_64-pristine  guest-x86_64.config, guest-pristine.config
#
# The pristine kernel is built from the pristine base tree
# (build/base/linux-source-7.2: no project file, no patch): the in-tree
# drivers, the peers "make e2e-pristine" runs the same jobs on.
#
# Configures the output directory (again whenever the contents of a
# fragment or of a Kconfig file the project manages change), verifies
# that every CONFIG_ line of the fragments took effect (the last
# fragment setting a symbol wins; CONFIG_X=n means unset), and builds
# bzImage from the staged tree build/linux ("make stage" first). Prints
# a progress line every 30 s; the full log is build.log in the output
# directory.
#
# The kernel: build/guest-x86_64[-FLAVOUR]/arch/x86/boot/bzImage.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=$REPO/build/linux
FLAVOUR=${1:-}
CONFIGS=$REPO/tools/configs
case "$FLAVOUR" in
"") NAME=guest-x86_64; FRAGS=("$CONFIGS/guest-x86_64.config") ;;
debug) NAME=guest-x86_64-debug
	FRAGS=("$CONFIGS/guest-x86_64.config" "$CONFIGS/guest-debug.config") ;;
pristine) NAME=guest-x86_64-pristine
	KSRC=$("$REPO/tools/base.sh") || exit 2
	FRAGS=("$CONFIGS/guest-x86_64.config" "$CONFIGS/guest-pristine.config") ;;
*) echo "guest: error: unknown flavour $FLAVOUR (none, debug, pristine)" >&2; exit 2 ;;
esac
OUT=$REPO/build/$NAME
JOBS=${JOBS:-$(nproc)}
CC=${CC:-ccache gcc}
export CCACHE_DIR=${CCACHE_DIR:-$REPO/build/ccache}
KMAKE=(make -C "$KSRC" O="$OUT" ARCH=x86_64 CC="$CC" -j"$JOBS")
STAMP=$OUT/.xsk_zc-config

die() { echo "guest: error: $*" >&2; exit 2; }

[ "$FLAVOUR" = pristine ] || [ -f "$KSRC/.xsk_zc-managed" ] ||
	die "build/linux not staged: run make stage"
mkdir -p "$OUT"

# What the configuration is made of: the fragments, and the staged
# Kconfig files (a driver's new option needs a new olddefconfig). Their
# contents, not their times: a checkout or a touch that leaves a
# fragment as it was costs no new configuration.
config_key() {
	{
		cat "${FRAGS[@]}"
		[ -f "$KSRC/.xsk_zc-managed" ] &&
			grep -E '(^|/)Kconfig' "$KSRC/.xsk_zc-managed" | LC_ALL=C sort |
			while IFS= read -r f; do
				echo "$f"
				cat "$KSRC/$f"
			done
	} 2>&1 | sha256sum | cut -d' ' -f1
}

need_config() {
	[ -f "$OUT/.config" ] && [ -f "$STAMP" ] || return 0
	[ "$(cat "$STAMP")" != "$(config_key)" ]
}

if need_config; then
	names=$(for f in "${FRAGS[@]}"; do basename "$f"; done | paste -sd' ' | sed 's/ / + /g')
	echo "guest: configuring build/$NAME (tinyconfig + $names)"
	rm -f "$STAMP"
	"${KMAKE[@]}" -s tinyconfig >/dev/null || die "make tinyconfig failed"
	(cd "$KSRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m \
		-O "$OUT" "$OUT/.config" "${FRAGS[@]}" >/dev/null) ||
		die "merge_config.sh failed"
	"${KMAKE[@]}" -s olddefconfig >/dev/null || die "make olddefconfig failed"
	# What the fragments ask for, the last one winning, then the check.
	bad=0
	while IFS= read -r line; do
		sym=${line%%=*}
		val=${line#*=}
		got=$(grep -E "^$sym=" "$OUT/.config" | cut -d= -f2-)
		[ "$val" = n ] && [ -z "$got" ] && continue
		if [ "$got" != "$val" ]; then
			echo "guest: config: $sym=$val requested, got ${got:-unset}" >&2
			bad=1
		fi
	done < <(grep -h -E '^CONFIG_[A-Za-z0-9_]+=' "${FRAGS[@]}" |
		 awk -F= '{ v[$1] = $0; if (!($1 in o)) o[$1] = n++ }
			  END { for (k in v) print o[k], v[k] }' |
		 sort -n | cut -d' ' -f2-)
	[ $bad -eq 0 ] || die "$names does not apply; see above"
	config_key > "$STAMP"
fi

LOG=$OUT/build.log
start=$(date +%s)
echo "guest: building bzImage in build/$NAME (-j$JOBS, log: build/$NAME/build.log)"
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
	die "kernel build failed (rc $rc), see build/$NAME/build.log"
fi
echo "guest: bzImage ready in $(( $(date +%s) - start )) s"
