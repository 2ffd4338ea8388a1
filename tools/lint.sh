#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/lint.sh [prepare] - static checks of the project, run on the
# staged tree build/linux (run tools/stage.sh first):
#
#  checkpatch      scripts/checkpatch.pl --strict --no-tree -f on every
#                  project C/H file (the guest's test modules included),
#                  --strict on every tools/patches/*.patch
#  kernel-doc      scripts/kernel-doc -none -Wall on the headers (include/)
#                  and the library .c files
#  W=1             "make W=1 DIR/" for every "ARCH DIR/" line of
#                  tools/lint-targets.txt, in build/lint-ARCH (a base
#                  config, tinyconfig unless the fragment names another
#                  with "# base: NAME", + tools/configs/lint-ARCH.config);
#                  the objects of DIR/ are rebuilt each time so warnings show
#  sparse          "make C=2 W=1 DIR/" on the same builds
#  indirect-calls  tools/check-indirect-calls.sh on each build
#  napi-waits      no napi_synchronize() in the files of the drivers of
#                  tools/lint-targets.txt that use xsk_zc
#
# Any warning/error/check line is a finding. Prints one summary line and
# exits 1 if there is any finding. "prepare" only configures and prepares
# build/lint-x86_64.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
KSRC=$REPO/build/linux
TARGETS=$REPO/tools/lint-targets.txt
JOBS=${JOBS:-$(nproc)}
CCACHE=${CCACHE:-ccache}

die() { echo "lint: error: $*" >&2; exit 2; }

[ -f "$KSRC/.xsk_zc-managed" ] || die "build/linux not staged: run make stage"
[ -r "$TARGETS" ] || die "$TARGETS not found"

# arch_setup ARCH: sets LINT, FRAG and KMAKE for one architecture.
arch_setup() {
	local arch=$1 cross=

	LINT=$REPO/build/lint-$arch
	FRAG=$REPO/tools/configs/lint-$arch.config
	[ -r "$FRAG" ] || die "$FRAG not found"
	case "$arch" in
	x86_64) ;;
	arm64) cross=aarch64-linux-gnu- ;;
	*) die "no cross compiler known for $arch" ;;
	esac
	KMAKE=(make -C "$KSRC" O="$LINT" ARCH="$arch" CROSS_COMPILE="$cross"
	       CC="$CCACHE ${cross}gcc" -j"$JOBS")
}

# --- configuration and prepare ---------------------------------------

lint_config() {
	local need=0 line sym val got bad=0 base

	[ -f "$LINT/.config" ] || need=1
	[ -f "$LINT/.xsk_zc-config" ] || need=1
	if [ $need -eq 0 ]; then
		for f in "$FRAG" "$KSRC/lib/xsk_zc/Kconfig" "$KSRC/lib/Kconfig"; do
			[ "$f" -nt "$LINT/.xsk_zc-config" ] && need=1
		done
	fi
	[ $need -eq 1 ] || return 0

	base=$(sed -n 's/^# base: *\([a-z0-9_]*\).*/\1/p' "$FRAG" | head -1)
	base=${base:-tinyconfig}
	echo "lint: configuring $(basename "$LINT") ($base + $(basename "$FRAG"))"
	mkdir -p "$LINT"
	rm -f "$LINT/.xsk_zc-config" "$LINT/.xsk_zc-prepared"
	"${KMAKE[@]}" -s "$base" >/dev/null || die "make $base failed"
	(cd "$KSRC" && ARCH=$ARCH scripts/kconfig/merge_config.sh -m \
		-O "$LINT" "$LINT/.config" "$FRAG" >/dev/null) ||
		die "merge_config.sh failed"
	"${KMAKE[@]}" -s olddefconfig >/dev/null || die "make olddefconfig failed"

	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*}
		val=${line#*=}
		got=$(grep -E "^$sym=" "$LINT/.config" | cut -d= -f2-)
		if [ "$got" != "$val" ]; then
			echo "lint: config: $sym=$val requested, got ${got:-unset}" >&2
			bad=1
		fi
	done < "$FRAG"
	grep -Eq '^CONFIG_XSK_ZC=[ym]$' "$LINT/.config" || {
		echo "lint: config: CONFIG_XSK_ZC is not enabled" >&2
		bad=1
	}
	[ $bad -eq 0 ] || die "$(basename "$FRAG") does not apply; see above"
	touch "$LINT/.xsk_zc-config"
}

lint_prepare() {
	lint_config
	if [ ! -f "$LINT/.xsk_zc-prepared" ] ||
	   [ "$LINT/.config" -nt "$LINT/.xsk_zc-prepared" ]; then
		echo "lint: make prepare in $(basename "$LINT")"
		"${KMAKE[@]}" -s prepare || die "make prepare failed"
		touch "$LINT/.xsk_zc-prepared"
	fi
}

ARCHES=$(awk '$1 !~ /^#/ && NF == 2 { print $1 }' "$TARGETS" | sort -u)
[ -n "$ARCHES" ] || die "no targets in $TARGETS"
for ARCH in $ARCHES; do
	arch_setup "$ARCH"
	lint_prepare
done
[ "${1:-}" = prepare ] && exit 0

# --- the project's files -----------------------------------------------

cd "$REPO"
shopt -s nullglob globstar
headers=(include/**/*.h)
lib_c=(lib/xsk_zc/*.c)
kunit_ch=(kunit/*.c kunit/*.h)
drivers_ch=()
[ -d drivers ] && drivers_ch=(drivers/**/*.[ch])
patches=(tools/patches/*.patch)
# the guest's kernel modules (test only, but kernel code all the same)
guest_ko=(tools/guest/*/*.c)
c_files=("${headers[@]}" "${lib_c[@]}" "${kunit_ch[@]}" "${drivers_ch[@]}" "${guest_ko[@]}")

LOG=$REPO/build/lint-logs
mkdir -p "$LOG"

# Show staged paths of project files as repo paths.
repo_paths() {
	sed -e "s#$KSRC/lib/xsk_zc/kunit/#kunit/#g" -e "s#$KSRC/##g"
}

# count_lines FILE: lines that are findings
count_lines() {
	grep -Ec '(^|[^[:alnum:]_])(warning|error):' "$1" || true
}

# --- checkpatch ------------------------------------------------------

n_checkpatch=0
checkpatch_totals() {
	# "total: E errors, W warnings, C checks, N lines checked"
	sed -n -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/p' "$1" |
	awk '{ s += $1 + $2 + $3 } END { print s + 0 }'
}
: > "$LOG/checkpatch.log"
for f in "${c_files[@]}"; do
	(cd "$KSRC" && scripts/checkpatch.pl --strict --no-tree --show-types \
		-f "$REPO/$f") > "$LOG/cp.one" 2>&1
	n=$(checkpatch_totals "$LOG/cp.one")
	[ "$n" -gt 0 ] && cat "$LOG/cp.one"
	cat "$LOG/cp.one" >> "$LOG/checkpatch.log"
	n_checkpatch=$((n_checkpatch + n))
done
for p in "${patches[@]}"; do
	(cd "$KSRC" && scripts/checkpatch.pl --strict "$REPO/$p") > "$LOG/cp.one" 2>&1
	n=$(checkpatch_totals "$LOG/cp.one")
	[ "$n" -gt 0 ] && cat "$LOG/cp.one"
	cat "$LOG/cp.one" >> "$LOG/checkpatch.log"
	n_checkpatch=$((n_checkpatch + n))
done
rm -f "$LOG/cp.one"

# --- kernel-doc ------------------------------------------------------

n_kdoc=0
kdoc_files=("${headers[@]}" "${lib_c[@]}")
if [ ${#kdoc_files[@]} -gt 0 ]; then
	(cd "$REPO" && "$KSRC/scripts/kernel-doc" -none -Wall "${kdoc_files[@]}") \
		> "$LOG/kernel-doc.log" 2>&1
	n_kdoc=$(grep -Ec . "$LOG/kernel-doc.log" || true)
	cat "$LOG/kernel-doc.log"
else
	echo "lint: kernel-doc: no header or library source yet"
	n_kdoc=1
fi

# --- NAPI waits ------------------------------------------------------

# A zero-copy poll may keep its NAPI scheduled for good (xsk_zc_rx_poll()
# on an empty fill ring without need_wakeup), so a driver that uses
# xsk_zc must never wait for its NAPI to go idle: igb_down() and
# tsnep_tx_disable() hung that way (0102, 0202). A napi_synchronize() in
# a driver file that includes the library's headers, directly or through
# a header of its own directory, is a finding.
n_napi=0
: > "$LOG/napi-wait.log"
zc_inc='#include <net/xsk_zc(\.h|/types\.h)>'
mapfile -t zc_dirs < <(awk '$1 !~ /^#/ && NF == 2 && $2 ~ /^drivers\// { print $2 }' "$TARGETS" | sort -u)
for d in "${zc_dirs[@]}"; do
	pat=$zc_inc
	for h in $(cd "$KSRC/$d" && grep -l -E "$zc_inc" -- *.h 2>/dev/null); do
		pat="$pat|#include \"$h\""
	done
	for f in $(cd "$KSRC/$d" && grep -l -E "$pat" -- *.c 2>/dev/null); do
		grep -n -H -w 'napi_synchronize' "$KSRC/$d$f" | repo_paths |
			sed -E 's/^([^:]+:[0-9]+):.*/\1: napi_synchronize() waits for a NAPI a zero-copy poll may keep scheduled/' \
			>> "$LOG/napi-wait.log"
	done
done
n_napi=$(wc -l < "$LOG/napi-wait.log")
cat "$LOG/napi-wait.log"

# --- W=1, sparse and indirect calls, per architecture ------------------

n_w1=0
n_sparse=0
n_ic=0
for ARCH in $ARCHES; do
	arch_setup "$ARCH"
	mapfile -t dirs < <(awk -v a="$ARCH" '$1 == a && NF == 2 { print $2 }' "$TARGETS")
	tag=$ARCH

	# Rebuild the objects of each directory so compiler warnings show again.
	for d in "${dirs[@]}"; do
		find "$LINT/$d" -name '*.o' -delete 2>/dev/null
	done
	"${KMAKE[@]}" W=1 "${dirs[@]}" > "$LOG/w1-$tag.log" 2>&1
	w1_rc=$?
	# Findings, and make's own errors ("No rule to make target...") but
	# not the "*** [...] Error 2" lines of every recursion level.
	grep -E '(warning|error):|\*\*\* ' "$LOG/w1-$tag.log" |
		grep -vE '\*\*\* \[.*\] Error [0-9]+$' | repo_paths
	n=$(count_lines "$LOG/w1-$tag.log")
	[ $w1_rc -ne 0 ] && [ "$n" -eq 0 ] && n=1
	n_w1=$((n_w1 + n))

	# Objects are up to date now: this pass runs sparse on every file only.
	"${KMAKE[@]}" C=2 W=1 "${dirs[@]}" > "$LOG/sparse-$tag.log" 2>&1
	sp_rc=$?
	# A file that failed to compile fails again here: don't count it twice.
	# The vDSO is rebuilt by the prepare step of a C=2 run: upstream
	# code outside the targets, with a finding of its own on arm64.
	grep -E '(warning|error):' "$LOG/sparse-$tag.log" |
		grep -vxF -f <(grep -E '(warning|error):' "$LOG/w1-$tag.log") |
		grep -vE '(^|/)arch/[^/]+/kernel/vdso[^/]*/' \
		> "$LOG/sparse-$tag.findings" || true
	repo_paths < "$LOG/sparse-$tag.findings"
	n=$(wc -l < "$LOG/sparse-$tag.findings")
	if [ $sp_rc -ne 0 ] && [ $w1_rc -eq 0 ] && [ "$n" -eq 0 ]; then
		n=1
		tail -20 "$LOG/sparse-$tag.log"
	fi
	n_sparse=$((n_sparse + n))

	"$REPO/tools/check-indirect-calls.sh" "$LINT" \
		"$REPO/tools/hot-path-functions.txt" "$ARCH" \
		> "$LOG/indirect-calls-$tag.log" 2>&1
	ic_rc=$?
	n=$(grep -vcE '^indirect-calls: ([0-9]* findings in|note:)' "$LOG/indirect-calls-$tag.log" || true)
	[ $ic_rc -ne 0 ] && [ "$n" -eq 0 ] && n=1
	sed "s/^indirect-calls:/indirect-calls ($ARCH):/" "$LOG/indirect-calls-$tag.log"
	n_ic=$((n_ic + n))
done

total=$((n_checkpatch + n_kdoc + n_napi + n_sparse + n_w1 + n_ic))
echo "lint: checkpatch $n_checkpatch, kernel-doc $n_kdoc, sparse $n_sparse," \
     "W=1 $n_w1, indirect-calls $n_ic, napi-waits $n_napi (logs in build/lint-logs)"
[ $total -eq 0 ]
