#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/series-check.sh - prove the series in build/series/ (make series):
#
#  apply      git am every patch, in order, onto a pristine copy of the
#             Debian tree, build/series-check/linux. Its git repo tracks
#             only the paths the series touches (the rest of the copy is
#             untracked and never written), so setting it up costs a copy
#             of the tree, not a commit of 80,000 files.
#  build      after EVERY patch, with W=1, incrementally (one O= dir per
#             architecture, reused across steps and runs):
#               x86_64 (tools/configs/lint-x86_64.config on tinyconfig, as
#               tools/lint.sh): the x86_64 directories of
#               tools/lint-targets.txt that exist at that step, and the
#               object of every C file the patch touches elsewhere
#               (net/core/...) or that its config does not build yet;
#               arm64 (lint-arm64.config, cross): its directories of
#               tools/lint-targets.txt (am65-cpsw, lib/xsk_zc).
#             The config is merged again whenever a patch touches a
#             Kconfig file, so symbols a patch adds get the fragment's
#             value. A step is built when make succeeds with no warning
#             or error line. An architecture is skipped for a patch whose
#             files cannot change what it builds (see affects()); a patch
#             that touches only Documentation/ has nothing to build and
#             counts as built.
#  checkpatch --strict --show-types on every patch file (not the cover
#             letter) with 0 findings, ignoring exactly two types:
#               MISSING_SIGN_OFF  the patches carry none on purpose: the
#                                 person who posts signs them off;
#               FILE_PATH_CHANGES "does MAINTAINERS need updating?", on
#                                 every patch that adds a file. Instead,
#                                 scripts/get_maintainer.pl lists the
#                                 entries covering each added file, and
#                                 a file only "THE REST" covers is shown
#                                 as a note (a MAINTAINERS entry needs a
#                                 maintainer's name: the submitter's).
#  tree       the final tree equals the staged build/linux on every file
#             stage.sh manages (build/linux/.xsk_zc-managed), and the
#             series touches exactly those files.
#
# Incremental: a step whose diffs 1..k, configs, compilers and this
# script are unchanged since it last built cleanly is applied but not
# built again (stamps in build/series-check/stamps), and a patch file
# checkpatch passed is not checked again (its Date: aside). So a warm
# run costs seconds.
#
# Prints "series: N patches, built B/N, checkpatch C, tree identical"
# (or "tree differs") and exits 1 on any failure.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
SRCNAME=$("$REPO/tools/base.sh" --name)
BASE=$BUILD/base/$SRCNAME
SERIES=$BUILD/series
STAGED=$BUILD/linux
CHK=$BUILD/series-check
SRC=$CHK/linux
LOG=$CHK/logs
STAMPS=$CHK/stamps
TARGETS=$REPO/tools/lint-targets.txt
JOBS=${JOBS:-$(nproc)}
CCACHE=${CCACHE:-ccache}
IGNORE=MISSING_SIGN_OFF,FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID

die() { echo "series-check: error: $*" >&2; exit 2; }

[ -e "$BUILD/base/.$SRCNAME.extracted" ] || die "no pristine tree: run make stage"
[ -f "$STAGED/.xsk_zc-managed" ] || die "build/linux not staged: run make stage"
shopt -s nullglob
patches=("$SERIES"/[0-9][0-9][0-9][0-9]-*.patch)
patches=("${patches[@]/*\/0000-cover-letter.patch/}")
mapfile -t patches < <(printf '%s\n' "${patches[@]}" | grep .)
n=${#patches[@]}
[ "$n" -gt 0 ] && [ -f "$SERIES/files.txt" ] || die "no series in build/series: run make series"
mkdir -p "$LOG" "$STAMPS"
rm -f "$CHK/summary"

export GIT_COMMITTER_NAME=series-check GIT_COMMITTER_EMAIL=series-check@localhost
G=(git -C "$SRC" -c core.autocrlf=false -c commit.gpgSign=false -c am.threeWay=false)

# --- the pristine copy and its repo -----------------------------------

# The copy is made of hard links to build/base where it can be (seconds
# instead of a minute of copying 1.7 GB): git replaces a file it writes
# (checkout and am unlink, then create), kbuild writes only in O=, so no
# file of build/base is ever written through a link. check_base() makes
# sure of it before and after every run.
if [ ! -e "$SRC/.xsk_zc-copied" ]; then
	echo "series-check: linking the pristine tree into build/series-check/linux"
	rm -rf "$SRC" "$SRC.tmp"
	cp -al "$BASE/." "$SRC.tmp" 2>/dev/null || {
		rm -rf "$SRC.tmp"
		cp -a "$BASE/." "$SRC.tmp" || die "copy failed"
	}
	touch "$SRC.tmp/.xsk_zc-copied"
	mv "$SRC.tmp" "$SRC"
fi
if [ ! -d "$SRC/.git" ]; then
	"${G[@]}" init -q -b pristine
	echo '/.xsk_zc-copied' > "$SRC/.git/info/exclude"
	"${G[@]}" commit -q --allow-empty -m "pristine Debian $SRCNAME $(cat "$BUILD/base/.$SRCNAME.extracted")"
fi
[ -d "$SRC/.git/rebase-apply" ] && "${G[@]}" am --abort >/dev/null 2>&1
"${G[@]}" checkout -q -f pristine || die "cannot check out pristine"
# Track the pristine version of every path the series touches.
add=()
while IFS= read -r f; do
	if [ -f "$BASE/$f" ]; then
		"${G[@]}" ls-files --error-unmatch -- "$f" >/dev/null 2>&1 && continue
		cmp -s "$BASE/$f" "$SRC/$f" || die "$f in build/series-check/linux is not pristine"
		add+=("$f")
	else
		rm -f "$SRC/$f"	# left by an interrupted run, untracked
	fi
done < "$SERIES/files.txt"
if [ ${#add[@]} -gt 0 ]; then
	# -f: the tree's own .gitignore files are not for this repo.
	"${G[@]}" add -f -- "${add[@]}" || die "git add failed"
	"${G[@]}" commit -q -m "track ${#add[@]} more pristine files" ||
		die "git commit failed"
fi
"${G[@]}" checkout -q --detach pristine

# check_base: build/base still holds the pristine version of every path
# the check repo tracks (the only files git writes in the copy).
check_base() {
	git -C "$SRC" --work-tree="$BASE" diff --quiet pristine -- . ||
		die "build/base/$SRCNAME was modified: make distclean; make stage"
}
check_base

# --- build configuration ---------------------------------------------

ARCHES=$(awk '$1 !~ /^#/ && NF == 2 { print $1 }' "$TARGETS" | sort -u)

kmake() { # kmake ARCH ARGS...
	local arch=$1 cross=
	shift
	[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
	nice -n 19 make -C "$SRC" O="$CHK/$arch" ARCH="$arch" \
		CROSS_COMPILE="$cross" CC="$CCACHE ${cross}gcc" -j"$JOBS" "$@"
}

# configure ARCH: tinyconfig (or the fragment's "# base:") once, then the
# fragment merged on it again and olddefconfig.
configure() {
	local arch=$1 o=$CHK/$1 frag=$REPO/tools/configs/lint-$1.config base
	if [ ! -f "$o/.xsk_zc-base-config" ]; then
		base=$(sed -n 's/^# base: *\([a-z0-9_]*\).*/\1/p' "$frag" | head -1)
		mkdir -p "$o"
		kmake "$arch" -s "${base:-tinyconfig}" >/dev/null 2>&1 || return 1
		cp "$o/.config" "$o/.xsk_zc-base-config"
	fi
	cp "$o/.xsk_zc-base-config" "$o/.config"
	(cd "$SRC" && ARCH=$arch nice -n 19 scripts/kconfig/merge_config.sh -m \
		-O "$o" "$o/.config" "$frag" >/dev/null 2>&1) || return 1
	kmake "$arch" -s olddefconfig >/dev/null 2>&1
}

# check_config ARCH: every CONFIG_*= line of the fragment holds.
check_config() {
	local frag=$REPO/tools/configs/lint-$1.config line sym val got bad=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*} val=${line#*=}
		got=$(grep -E "^$sym=" "$CHK/$1/.config" | cut -d= -f2-)
		if [ "$got" != "$val" ]; then
			echo "series-check: $1 config: $sym=$val requested, got ${got:-unset}"
			bad=1
		fi
	done < "$frag"
	return $bad
}

# affects ARCH FILE...: whether the files can change what ARCH builds.
# arm64 builds am65-cpsw and the library without KUnit: igb, tsnep,
# KUnit and Documentation files cannot change it. x86_64 builds everything but
# am65-cpsw's C files (its KUnit test includes am65-cpsw-nuss.h).
# Skipping saves make's few seconds of startup per step.
affects() {
	local arch=$1 f
	shift
	for f in "$@"; do
		case "$arch:$f" in
		*:Documentation/*) ;;
		arm64:drivers/net/ethernet/intel/* | arm64:drivers/net/ethernet/engleder/*) ;;
		arm64:lib/xsk_zc/kunit/*) ;;
		x86_64:drivers/net/ethernet/ti/*.c) ;;
		*) return 0 ;;
		esac
	done
	return 1
}

# What a stamp depends on besides the patches.
tools_key=$( { cat "$0" "$TARGETS" "$REPO"/tools/configs/lint-*.config
	       gcc --version; aarch64-linux-gnu-gcc --version; } 2>&1 | sha256sum | cut -c1-16)

# --- apply and build, patch by patch --------------------------------------

built=0
applied=0
declare -A need_config	# per architecture: a Kconfig changed since it was configured
for arch in $ARCHES; do need_config[$arch]=1; done
key=$tools_key
for ((i = 0; i < n; i++)); do
	p=${patches[i]}
	name=$(basename "$p")
	num=${name%%-*}
	# The tree after patch k depends on the diffs of 1..k only, not on
	# their mail headers and messages (a new Date: rebuilds nothing).
	key=$( { echo "$key"; sed -n '/^diff --git /,$p' "$p"; } | sha256sum | cut -c1-16)
	if ! "${G[@]}" am -q "$p" > "$LOG/$num-am.log" 2>&1; then
		echo "series-check: $name does not apply:"
		sed 's/^/  /' "$LOG/$num-am.log"
		"${G[@]}" am --abort >/dev/null 2>&1
		break
	fi
	applied=$((applied + 1))
	if [ -e "$STAMPS/$key" ]; then
		built=$((built + 1))
		continue
	fi

	mapfile -t touched < <("${G[@]}" diff-tree --no-commit-id --name-only -r HEAD)
	if printf '%s\n' "${touched[@]}" | grep -q 'Kconfig'; then
		for arch in $ARCHES; do need_config[$arch]=1; done
	fi
	code=0
	for f in "${touched[@]}"; do
		case "$f" in Documentation/*) ;; *) code=1 ;; esac
	done
	ok=1
	if [ $code -eq 1 ]; then
		for arch in $ARCHES; do
			affects "$arch" "${touched[@]}" || continue
			if [ "${need_config[$arch]}" -eq 1 ]; then
				if ! configure "$arch"; then
					echo "series-check: $name: $arch configuration failed"
					ok=0
					continue
				fi
				need_config[$arch]=0
			fi
			goals=()
			while read -r d; do
				[ -f "$SRC/$d/Makefile" ] && goals+=("$d")
			done < <(awk -v a="$arch" '$1 == a && NF == 2 { print $2 }' "$TARGETS")
			# x86_64 also builds each touched C file outside
			# these directories (am65-cpsw only builds on arm64),
			# and one inside them that the config does not build
			# yet (the library before its first user).
			if [ "$arch" = x86_64 ]; then
				for f in "${touched[@]}"; do
					case "$f" in
					*.c) ;;
					*) continue ;;
					esac
					case "$f" in drivers/net/ethernet/ti/*) continue ;; esac
					inside=0
					for d in "${goals[@]}"; do
						case "$f" in "$d"*) inside=1 ;; esac
					done
					if [ $inside -eq 0 ] ||
					   ! grep -Eq "^CONFIG_XSK_ZC=[ym]" "$CHK/$arch/.config"; then
						goals+=("${f%.c}.o")
					fi
				done
			fi
			[ ${#goals[@]} -gt 0 ] || continue
			kmake "$arch" W=1 "${goals[@]}" > "$LOG/$num-$arch.log" 2>&1
			rc=$?
			findings=$(grep -E '(warning|error):|\*\*\* ' "$LOG/$num-$arch.log" |
				grep -vE '\*\*\* \[.*\] Error [0-9]+$')
			if [ $rc -ne 0 ] || [ -n "$findings" ]; then
				echo "series-check: $name: $arch build failed (build/series-check/logs/$num-$arch.log):"
				if [ -n "$findings" ]; then
					echo "$findings" | head -20 | sed 's/^/  /'
				else
					tail -10 "$LOG/$num-$arch.log" | sed 's/^/  /'
				fi
				ok=0
			fi
		done
	fi
	if [ $ok -eq 1 ]; then
		built=$((built + 1))
		touch "$STAMPS/$key"
	fi
done

# The fragments hold on the final tree (intermediate trees lack symbols
# that later patches add).
config_ok=1
if [ "$applied" -eq "$n" ] && [ ! -e "$STAMPS/config-$key" ]; then
	for arch in $ARCHES; do
		if [ "${need_config[$arch]}" -eq 1 ] || [ ! -f "$CHK/$arch/.config" ]; then
			configure "$arch" ||
				echo "series-check: $arch configuration failed"
		fi
		check_config "$arch" || config_ok=0
	done
	[ $config_ok -eq 0 ] || touch "$STAMPS/config-$key"
fi

# --- checkpatch -----------------------------------------------------------

cp_key=$( { cat "$BASE/scripts/checkpatch.pl"; echo "$IGNORE"; } | sha256sum | cut -c1-16)
n_cp=0
for p in "${patches[@]}"; do
	# checkpatch reads everything but the Date: line
	stamp=$STAMPS/cp-$cp_key-$(grep -v '^Date: ' "$p" | sha256sum | cut -c1-16)
	[ -e "$stamp" ] && continue
	(cd "$BASE" && nice -n 19 scripts/checkpatch.pl --strict --show-types \
		--ignore "$IGNORE" "$p") > "$LOG/checkpatch.one" 2>&1
	c=$(sed -n -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/p' \
		"$LOG/checkpatch.one" | awk '{ s += $1 + $2 + $3 } END { print s + 0 }')
	grep -q '^total: ' "$LOG/checkpatch.one" || c=1
	if [ "$c" -gt 0 ]; then
		echo "series-check: checkpatch: $(basename "$p"):"
		sed 's/^/  /' "$LOG/checkpatch.one"
		n_cp=$((n_cp + c))
	else
		touch "$stamp"
	fi
done
rm -f "$LOG/checkpatch.one"

# FILE_PATH_CHANGES, answered: which MAINTAINERS entries cover each new file.
if [ "$applied" -eq "$n" ]; then
	mapfile -t added < <("${G[@]}" diff --name-only --diff-filter=A pristine HEAD)
	mkey=$( { printf '%s\n' "${added[@]}"; cat "$SRC/MAINTAINERS"; } | sha256sum | cut -c1-16)
	if [ ! -e "$STAMPS/maint-$mkey" ]; then
		for f in "${added[@]}"; do
			s=$(cd "$SRC" && nice -n 19 perl scripts/get_maintainer.pl --no-git \
				--no-git-fallback --no-rolestats --sections -f "$f" 2>/dev/null |
				grep -E '^[A-Z0-9]' | grep -vE '^[A-Z]:' |
				grep -vx 'THE REST' | paste -sd';' -)
			echo "$f: ${s:-THE REST only}"
		done > "$STAMPS/maint-$mkey"
	fi
	cp "$STAMPS/maint-$mkey" "$CHK/maintainers.txt"
	uncovered=$(grep -c ': THE REST only$' "$CHK/maintainers.txt")
	if [ "$uncovered" -gt 0 ]; then
		echo "series-check: note: $uncovered added files have no MAINTAINERS entry but THE REST" \
		     "(build/series-check/maintainers.txt):" \
		     "$(sed -n 's/: THE REST only$//p' "$CHK/maintainers.txt" | xargs -n1 dirname | sort -u | paste -sd' ' -)"
	fi
fi

# --- the final tree is the staged one --------------------------------------

tree_ok=1
if [ "$applied" -eq "$n" ]; then
	if ! diff -q <(sort -u "$SERIES/files.txt") <(sort -u "$STAGED/.xsk_zc-managed") >/dev/null ||
	   ! diff -q <("${G[@]}" diff --name-only pristine HEAD | sort -u) \
		     <(sort -u "$STAGED/.xsk_zc-managed") >/dev/null; then
		echo "series-check: the series does not touch exactly the managed files:"
		diff <("${G[@]}" diff --name-only pristine HEAD | sort -u) \
		     <(sort -u "$STAGED/.xsk_zc-managed") | sed 's/^/  /'
		tree_ok=0
	fi
	while IFS= read -r f; do
		if [ -f "$STAGED/$f" ]; then
			cmp -s "$SRC/$f" "$STAGED/$f" && continue
		elif [ ! -e "$SRC/$f" ]; then
			continue
		fi
		echo "series-check: $f differs from build/linux"
		tree_ok=0
	done < "$STAGED/.xsk_zc-managed"
else
	tree_ok=0
fi

check_base

tree="tree identical"
[ $tree_ok -eq 1 ] || tree="tree differs"
[ "$applied" -eq "$n" ] || tree="$tree (applied $applied/$n)"
[ $config_ok -eq 1 ] || tree="$tree, configs do not apply"
summary="$n patches, built $built/$n, checkpatch $n_cp, $tree"
echo "$summary" > "$CHK/summary"
echo "series: $summary"
[ "$built" -eq "$n" ] && [ "$n_cp" -eq 0 ] && [ $tree_ok -eq 1 ] && [ $config_ok -eq 1 ]
