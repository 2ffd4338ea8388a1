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
#  sparse          "make C=2 W=1 DIR/" on the same builds, with the
#                  sparse tools/sparse.sh builds (Debian 12's is too old
#                  for 7.2)
#  indirect-calls  tools/check-indirect-calls.sh on each build
#  napi-waits      no napi_synchronize() in the files of the drivers of
#                  tools/lint-targets.txt that use xsk_zc
#  tx-publish      no plain store to a TX frame's next_to_watch in the
#                  project's driver code: xsk_zc_tx_publish() orders it
#  api             tools/api-count.pl: the entry points and callback
#                  slots each driver uses (counts), and what the library
#                  exports: all in the XSK_ZC namespace, each with a
#                  driver user (or an inline of the headers, for the
#                  "__" halves), no driver naming an internal, every
#                  driver importing XSK_ZC
#
# Any warning/error/check line is a finding. A tool that is missing, did
# not run, crashed or left no sign of having checked anything is a tool
# failure ("lint: error: ..."), never zero findings: checkpatch must end
# each run with its "total:" line, its exit status saying the same;
# kernel-doc must exit 0 and document every file it reads; each W=1
# build must compile every target directory, each sparse pass check
# it (a CC and a CHECK line each); check-indirect-calls.sh must print
# its summary, having disassembled every function it names; the
# napi-waits grep must find the xsk_zc users of every driver directory
# it scans. Prints one summary line and exits 1 if there is any finding
# or tool failure. "prepare" only configures and prepares build/lint-*.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
KSRC=$REPO/build/linux
TARGETS=$REPO/tools/lint-targets.txt
JOBS=${JOBS:-$(nproc)}
CCACHE=${CCACHE:-ccache}
# Built once by tools/sparse.sh; if it cannot be, the tool check below
# counts a tool failure.
SPARSE=$("$REPO/tools/sparse.sh") || SPARSE=$REPO/build/sparse/sparse

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
	       CC="$CCACHE ${cross}gcc" CHECK="$SPARSE" -j"$JOBS")
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

# --- a clean pass with the same inputs ---------------------------------
# With XSKZC_REUSE=1 ("make check" sets it, as for the guest jobs) a
# clean pass is not run again while nothing it reads has changed: the
# staged tree's managed files and its base's extraction, every file of the
# project and which of them git tracks, and the tools' versions. The key
# is taken before the checks and again after them, and the pass is kept
# (build/lint-pass/) only when both agree; any other run removes it.
PASS=$REPO/build/lint-pass
lint_key() {
	{
		# the base tree as stage.sh extracted it (once, then stamped)
		ls -l --time-style=+%s "$REPO"/build/base/.*.extracted 2>&1
		for t in gcc aarch64-linux-gnu-gcc objdump aarch64-linux-gnu-objdump \
			 nm aarch64-linux-gnu-nm make ccache flex bison; do
			"$t" --version 2>&1 | head -n 1
		done
		"$SPARSE" --version 2>&1
		perl -e 'print "perl $^V\n"'
		cd "$KSRC" && LC_ALL=C sort .xsk_zc-managed | tr '\n' '\0' |
			xargs -0 -r sha256sum 2>&1
		cd "$REPO" && git ls-files 2>&1
		find Makefile include lib drivers Documentation kunit tools \
			-type f ! -name '*.pyc' -print0 2>/dev/null |
			LC_ALL=C sort -z | xargs -0 -r sha256sum
	} | sha256sum | cut -d ' ' -f 1
}
key=
if [ "${XSKZC_REUSE:-0}" = 1 ] && [ "${1:-}" != prepare ]; then
	key=$(lint_key)
	if [ "$(cat "$PASS/key" 2>/dev/null)" = "$key" ] &&
	   [ -s "$PASS/summary" ]; then
		echo "lint: passed on $(date -r "$PASS/key" '+%F %T') with the same inputs; not run again (XSKZC_REUSE=0 runs it):"
		cat "$PASS/summary"
		exit 0
	fi
fi
[ "${1:-}" = prepare ] || rm -rf "$PASS"

ARCHES=$(awk '$1 !~ /^#/ && NF == 2 { print $1 }' "$TARGETS" | sort -u)
[ -n "$ARCHES" ] || die "no targets in $TARGETS"
for ARCH in $ARCHES; do
	arch_setup "$ARCH"
	lint_prepare
done
[ "${1:-}" = prepare ] && exit 0

# A tool failure: what did not run, or ran without checking anything.
n_tools=0
tool_failed() {
	echo "lint: error: $*"
	n_tools=$((n_tools + 1))
}

# Every program the checks below run, up front: a missing one would
# otherwise show as a make error in a log, or as silence.
tools=(perl "$SPARSE" objdump nm)
grep -qx arm64 <<< "$ARCHES" &&
	tools+=(aarch64-linux-gnu-objdump aarch64-linux-gnu-nm)
for t in "${tools[@]}"; do
	command -v "$t" >/dev/null || tool_failed "$t: not found (make deps)"
done

# --- the project's files -----------------------------------------------

cd "$REPO" || die "cannot cd to $REPO"
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
# run_checkpatch FILE ARGS...: one run, on FILE, from the staged tree;
# its findings (errors + warnings + checks of its "total:" line) are
# added to n_checkpatch. checkpatch ends every run that read its input
# with "total: E errors, W warnings, C checks, N lines checked" and exits
# 1 if E + W + C > 0, 0 if not: a run without that line (no perl, a
# crash), with 0 lines checked, or with another exit status is a tool
# failure.
run_checkpatch() {
	local f=$1 rc n total e w c l
	shift
	(cd "$KSRC" && scripts/checkpatch.pl "$@" "$REPO/$f") > "$LOG/cp.one" 2>&1
	rc=$?
	cat "$LOG/cp.one" >> "$LOG/checkpatch.log"
	total=$(sed -n -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks, ([0-9]+) lines checked$/\1 \2 \3 \4/p' "$LOG/cp.one")
	if [ "$(echo "$total" | grep -c .)" -ne 1 ]; then
		tool_failed "checkpatch: $f: no \"total:\" line (exit $rc)"
		tail -n 5 "$LOG/cp.one" | sed 's/^/lint:   /'
		return
	fi
	read -r e w c l <<< "$total"
	n=$((e + w + c))
	if [ "$l" -eq 0 ]; then
		tool_failed "checkpatch: $f: 0 lines checked"
	elif ! { [ $rc -eq 0 ] && [ $n -eq 0 ]; } &&
	     ! { [ $rc -eq 1 ] && [ $n -gt 0 ]; }; then
		tool_failed "checkpatch: $f: exit $rc with $n findings"
		tail -n 5 "$LOG/cp.one" | sed 's/^/lint:   /'
	fi
	[ "$n" -gt 0 ] && cat "$LOG/cp.one"
	n_checkpatch=$((n_checkpatch + n))
}
: > "$LOG/checkpatch.log"
[ ${#c_files[@]} -gt 0 ] || tool_failed "checkpatch: no project C/H file found"
[ ${#patches[@]} -gt 0 ] || tool_failed "checkpatch: no tools/patches/*.patch found"
for f in "${c_files[@]}"; do
	run_checkpatch "$f" --strict --no-tree --show-types -f
done
# The base tree is a Debian source tarball without git history, so
# checkpatch cannot look up the commits a Fixes: tag names
# (UNKNOWN_COMMIT_ID): each was checked against the list archives.
for p in "${patches[@]}"; do
	run_checkpatch "$p" --strict --show-types --ignore UNKNOWN_COMMIT_ID
done
rm -f "$LOG/cp.one"

# --- kernel-doc ------------------------------------------------------

# One run per file, in man mode: its warnings (stderr) are the
# findings, and its output (stdout) shows it read the file: every file
# checked has kernel-doc comments, so a run that documents nothing (no
# ".TH" page), or that exits nonzero without an "error:" line of
# its own (man mode exits with its error count), did not check it.
n_kdoc=0
kdoc_files=("${headers[@]}" "${lib_c[@]}")
: > "$LOG/kernel-doc.log"
[ ${#kdoc_files[@]} -gt 0 ] || tool_failed "kernel-doc: no header or library source found"
for f in "${kdoc_files[@]}"; do
	(cd "$REPO" && "$KSRC/scripts/kernel-doc" -man -Wall "$f") \
		> "$LOG/kdoc.man" 2> "$LOG/kdoc.err"
	rc=$?
	cat "$LOG/kdoc.err"
	cat "$LOG/kdoc.err" >> "$LOG/kernel-doc.log"
	n_kdoc=$((n_kdoc + $(grep -c . "$LOG/kdoc.err")))
	if [ $rc -ne 0 ] && ! grep -q 'error:' "$LOG/kdoc.err"; then
		tool_failed "kernel-doc: $f: exit $rc"
	elif ! grep -q '^\.TH ' "$LOG/kdoc.man"; then
		tool_failed "kernel-doc: $f: nothing documented (exit $rc)"
	fi
done
rm -f "$LOG/kdoc.man" "$LOG/kdoc.err"

# --- NAPI waits ------------------------------------------------------

# A zero-copy poll may keep its NAPI scheduled for good (xsk_zc_rx_poll()
# on an empty fill ring without need_wakeup), so a driver that uses
# xsk_zc must never wait for its NAPI to go idle: igb_down() and
# tsnep_tx_disable() hung that way (0102, 0202). A napi_synchronize() in
# a driver file that includes the library's headers, directly or through
# a header of its own directory, is a finding.
n_napi=0
: > "$LOG/napi-wait.log"
zc_inc='#include <net/xsk_zc(\.h|/types\.h|/datapath\.h)>'
mapfile -t zc_dirs < <(awk '$1 !~ /^#/ && NF == 2 && $2 ~ /^drivers\// { print $2 }' "$TARGETS" | sort -u)
# grep: 0 found, 1 not found, anything else an error. Every driver
# directory of the targets is there for its xsk_zc port: one where no
# file uses xsk_zc checks nothing.
for d in "${zc_dirs[@]}"; do
	hs=("$KSRC/$d"*.h) cs=("$KSRC/$d"*.c)
	pat=$zc_inc
	: > "$LOG/napi.h"
	if [ ${#hs[@]} -gt 0 ]; then
		grep -l -E "$zc_inc" -- "${hs[@]}" > "$LOG/napi.h"
		[ $? -le 1 ] || tool_failed "napi-waits: grep failed in $d"
	fi
	while IFS= read -r h; do
		pat="$pat|#include \"$(basename "$h")\""
	done < "$LOG/napi.h"
	: > "$LOG/napi.c"
	if [ ${#cs[@]} -gt 0 ]; then
		grep -l -E "$pat" -- "${cs[@]}" > "$LOG/napi.c"
		[ $? -le 1 ] || tool_failed "napi-waits: grep failed in $d"
	fi
	[ -s "$LOG/napi.c" ] ||
		tool_failed "napi-waits: no file of $d uses xsk_zc: nothing checked"
	while IFS= read -r f; do
		grep -n -H -w 'napi_synchronize' "$f" > "$LOG/napi.one"
		[ $? -le 1 ] || tool_failed "napi-waits: grep failed on $f"
		repo_paths < "$LOG/napi.one" |
			sed -E 's/^([^:]+:[0-9]+):.*/\1: napi_synchronize() waits for a NAPI a zero-copy poll may keep scheduled/' \
			>> "$LOG/napi-wait.log"
	done < "$LOG/napi.c"
done
rm -f "$LOG/napi.one" "$LOG/napi.h" "$LOG/napi.c"
n_napi=$(wc -l < "$LOG/napi-wait.log")
cat "$LOG/napi-wait.log"

# --- TX publish -------------------------------------------------------

# A TX frame's next_to_watch, which a TX clean on another CPU reads to
# find the frame, is written last and through xsk_zc_tx_publish(), a
# store-release: an XDP_TX frame is written from the RX NAPI, and on a
# weakly ordered CPU a plain store lets the clean see the pointer before
# the frame's buffer info and free a buffer the NIC still reads. A plain
# store of anything but NULL in the project's driver files, or in a line
# its patches add, is a finding.
n_pub=0
: > "$LOG/tx-publish.log"
{
	git -C "$REPO" ls-files 'drivers/*.[ch]' | while IFS= read -r f; do
		grep -n -H -E 'next_to_watch[[:space:]]*=[^=]' "$REPO/$f"
	done
	grep -n -H -E '^\+.*next_to_watch[[:space:]]*=[^=]' "$REPO"/tools/patches/*.patch
} | grep -v -E 'next_to_watch[[:space:]]*=[[:space:]]*NULL;' | sed "s|^$REPO/||" |
	sed -E 's/^([^:]+:[0-9]+):.*/\1: next_to_watch stored without xsk_zc_tx_publish(), which orders the frame before it/' \
	> "$LOG/tx-publish.log"
git -C "$REPO" ls-files 'drivers/*.[ch]' | grep -q . ||
	tool_failed "tx-publish: no driver file of the project: nothing checked"
n_pub=$(wc -l < "$LOG/tx-publish.log")
cat "$LOG/tx-publish.log"

# --- the driver API ---------------------------------------------------

# tools/api-count.pl: what the drivers call of the library and what the
# library exports (the XSK_ZC namespace, no export without a user, no
# driver naming an internal). It ends with "N findings in M exports" and
# exits 1 on a finding, 0 if none.
"$REPO/tools/api-count.pl" "$KSRC" "$TARGETS" > "$LOG/api.log" 2>&1
api_rc=$?
cat "$LOG/api.log"
n_api=$(sed -n -E 's/^api: ([0-9]+) findings in ([0-9]+) exports$/\1/p' "$LOG/api.log")
if [ -z "$n_api" ] || { [ $api_rc -ne 0 ] && [ $api_rc -ne 1 ]; } ||
   { [ $api_rc -eq 1 ] && [ "$n_api" -eq 0 ]; } ||
   { [ $api_rc -eq 0 ] && [ "$n_api" -ne 0 ]; }; then
	tool_failed "api: exit $api_rc, ${n_api:-no} findings line"
	n_api=${n_api:-0}
fi

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
	n_w1=$((n_w1 + n))
	# A failed build says why in a finding; one that did not (make
	# missing, a compiler killed) did not build: a tool failure. A
	# target directory the build compiled nothing of was not checked.
	if [ $w1_rc -ne 0 ] && [ "$n" -eq 0 ]; then
		tool_failed "W=1 ($ARCH): make exited $w1_rc without a finding:"
		tail -n 5 "$LOG/w1-$tag.log" | sed 's/^/lint:   /'
	fi
	for d in "${dirs[@]}"; do
		grep -E '^  CC ' "$LOG/w1-$tag.log" | grep -qF " $d" ||
			tool_failed "W=1 ($ARCH): nothing of $d compiled"
	done

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
	n_sparse=$((n_sparse + n))
	# Once the W=1 build passed, this one must too, having run sparse
	# (a CHECK line) on every target directory.
	if [ $w1_rc -eq 0 ]; then
		if [ $sp_rc -ne 0 ] && [ "$n" -eq 0 ]; then
			tool_failed "sparse ($ARCH): make C=2 exited $sp_rc without a finding:"
			tail -n 5 "$LOG/sparse-$tag.log" | sed 's/^/lint:   /'
		fi
		for d in "${dirs[@]}"; do
			grep -E '^  CHECK ' "$LOG/sparse-$tag.log" | grep -qF "/$d" ||
				tool_failed "sparse ($ARCH): no file of $d checked"
		done
	fi

	"$REPO/tools/check-indirect-calls.sh" "$LINT" \
		"$REPO/tools/hot-path-functions.txt" "$ARCH" \
		> "$LOG/indirect-calls-$tag.log" 2>&1
	ic_rc=$?
	n=$(grep -vcE '^indirect-calls: ([0-9]* findings in|note:)' "$LOG/indirect-calls-$tag.log" || true)
	sed "s/^indirect-calls:/indirect-calls ($ARCH):/" "$LOG/indirect-calls-$tag.log"
	n_ic=$((n_ic + n))
	# It ends with "N findings in M functions" and exits 1 on a finding,
	# 0 if none; the list names functions for every architecture built.
	m=$(sed -n -E 's/^indirect-calls: [0-9]+ findings in ([0-9]+) functions$/\1/p' \
		"$LOG/indirect-calls-$tag.log")
	if [ -z "$m" ] || { [ $ic_rc -ne 0 ] && [ $ic_rc -ne 1 ]; } ||
	   { [ $ic_rc -eq 1 ] && [ "$n" -eq 0 ]; }; then
		tool_failed "indirect-calls ($ARCH): exit $ic_rc, ${m:+$m functions, }$n findings"
	elif [ "$m" -eq 0 ]; then
		tool_failed "indirect-calls ($ARCH): no function checked"
	fi
done

total=$((n_checkpatch + n_kdoc + n_napi + n_pub + n_api + n_sparse + n_w1 + n_ic + n_tools))
summary="lint: checkpatch $n_checkpatch, kernel-doc $n_kdoc, sparse $n_sparse, W=1 $n_w1, indirect-calls $n_ic, napi-waits $n_napi, tx-publish $n_pub, api $n_api; tool failures $n_tools (logs in build/lint-logs)"
echo "$summary"
[ $total -eq 0 ] || exit 1
if [ -n "$key" ] && [ "$(lint_key)" = "$key" ]; then
	mkdir -p "$PASS"
	echo "$summary" > "$PASS/summary" && echo "$key" > "$PASS/key"
fi
exit 0
