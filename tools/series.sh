#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/series.sh - write the project as a git format-patch series
# against the pristine Debian linux-source-7.2 tree into build/series/:
# 0000-cover-letter.patch and one patch per step of tools/series/steps.
#
#  1. A scratch git repo (build/series-work/tree) holds the pristine
#     version of every file the series touches, committed as "base".
#     Files it does not touch cannot change a diff, so they stay out.
#  2. Each step's actions run on that tree (project files copied to
#     their kernel path as tools/stage.sh maps them, tools/patches/
#     applied with patch -p1 and no fuzz, held-back lines), and the result
#     is committed with the step's subject and body.
#  3. git format-patch --cover-letter writes the series; the cover letter
#     gets the blurb: what xsk_zc is, the per-group diffstat next to the
#     upstream sizes, the last bench table, the last test results.
#
# Authorship: the patches are From: the identity git gives for this
# repo (user.name, user.email: the person who runs "make series" and
# posts; without one, the project address of tools/patches, with a
# warning), dated with the repo's HEAD commit, so the same repo state
# gives the same series. No patch carries a Signed-off-by: the person who
# posts adds their own (git am -s, or format-patch -s on a copy).
#
# Also writes build/series/diffstat.txt (the per-group table),
# patches.txt (one line per patch: files, insertions, deletions, subject)
# and files.txt (every kernel path the series touches).

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
SRCNAME=$("$REPO/tools/base.sh" --name)
BASE=$BUILD/base/$SRCNAME
STEPS=$REPO/tools/series/steps
OUT=$BUILD/series
WORK=$BUILD/series-work
TREE=$WORK/tree

die() { echo "series: error: $*" >&2; exit 1; }

[ -e "$BUILD/base/.$SRCNAME.extracted" ] ||
	die "no pristine tree in build/base: run make stage"
[ -r "$STEPS" ] || die "$STEPS not found"

# kpath REPO_PATH: the kernel path of a project file (as tools/stage.sh).
kpath() {
	case "$1" in
	kunit/*) echo "lib/xsk_zc/$1" ;;
	include/* | lib/xsk_zc/* | drivers/* | Documentation/*) echo "$1" ;;
	*) die "$1 is not a project file (include/, lib/xsk_zc/, drivers/, Documentation/, kunit/)" ;;
	esac
}

# patch_files FILE: the paths a patch or diff touches.
patch_files() {
	sed -n -E 's@^(\+\+\+|---) [ab]/([^\t ]+).*@\2@p' "$1" | sort -u
}

# --- parse the steps ---------------------------------------------------

rm -rf "$WORK"
mkdir -p "$WORK/steps"
n=0
while IFS= read -r line || [ -n "$line" ]; do
	case "$line" in
	'#'* | '') continue ;;
	'step '*)
		n=$((n + 1))
		d=$WORK/steps/$(printf %02d "$n")
		mkdir "$d"
		set -- ${line#step }
		group=$1
		subject=${line#step "$group" }
		[ -n "$group" ] && [ "$subject" != "$line" ] ||
			die "steps: 'step GROUP SUBJECT' expected: $line"
		echo "$group" > "$d/group"
		echo "$subject" > "$d/subject"
		: > "$d/actions"
		: > "$d/body"
		;;
	'|' | '| '*)
		[ "$n" -gt 0 ] || die "steps: body line before a step: $line"
		b=${line#|}
		echo "${b# }" >> "$d/body"
		;;
	'add '* | 'replace '* | 'patch '* | 'hold '* | 'release '* | 'body-from '*)
		[ "$n" -gt 0 ] || die "steps: action before a step: $line"
		echo "$line" >> "$d/actions"
		;;
	*) die "steps: cannot parse: $line" ;;
	esac
done < "$STEPS"
[ "$n" -gt 0 ] || die "no steps in $STEPS"

# --- every project file and patch used once, every hold released --------

: > "$WORK/used-files"
: > "$WORK/used-patches"
: > "$WORK/holds"
: > "$WORK/releases"
for d in "$WORK"/steps/*; do
	while read -r verb args; do
		case "$verb" in
		add | replace)
			for f in $args; do echo "$f" >> "$WORK/used-files"; done ;;
		patch) echo "$args" >> "$WORK/used-patches" ;;
		hold) echo "$args" >> "$WORK/holds" ;;
		release) echo "$args" >> "$WORK/releases" ;;
		esac
	done < "$d/actions"
done
(cd "$REPO" && for dir in include lib/xsk_zc drivers Documentation kunit; do
	[ -d "$dir" ] && find "$dir" -type f ! -name '.*' ! -name '*~' \
		! -name '*.orig' ! -name '*.rej'
done) | sort > "$WORK/project-files"
(cd "$REPO/tools/patches" && ls -- *.patch) | sort > "$WORK/project-patches"
for kind in files patches; do
	dups=$(sort "$WORK/used-$kind" | uniq -d)
	[ -z "$dups" ] || die "steps: used twice: $dups"
	diff=$(diff <(sort "$WORK/used-$kind") "$WORK/project-$kind" |
		sed -n -e 's/^> /not in any step: /p' -e 's/^< /not in the repo: /p')
	[ -z "$diff" ] || die "steps: $diff"
done
diff -q <(sort "$WORK/holds") <(sort "$WORK/releases") >/dev/null ||
	die "steps: every hold must be released once (holds: $(tr '\n' ' ' < "$WORK/holds"))"

# --- the scratch repo ---------------------------------------------------

{
	for f in $(cat "$WORK/used-files"); do kpath "$f"; done
	for p in $(cat "$WORK/used-patches"); do
		patch_files "$REPO/tools/patches/$p"
	done
	for h in $(cat "$WORK/holds"); do
		patch_files "$REPO/tools/series/$h"
	done
} | sort -u > "$WORK/files"

# The identity of the person who runs this; the date of the repo's HEAD.
# Without one (a CI machine), the project's own address that
# tools/patches already use, and a warning: the series is not for posting.
if ! ident=$(git -C "$REPO" var GIT_AUTHOR_IDENT 2>/dev/null); then
	ident="xsk_zc developers <xsk-zc@example.invalid> 0 +0000"
	echo "series: warning: git has no user.name/user.email: the patches are" \
	     "From: ${ident% <*}; set them before posting" >&2
fi
export GIT_AUTHOR_NAME=${ident% <*}
ident=${ident#* <}
export GIT_AUTHOR_EMAIL=${ident%%>*}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
GIT_AUTHOR_DATE=$(git -C "$REPO" log -1 --format=%ad --date=raw)
GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
head=$(git -C "$REPO" rev-parse --short=12 HEAD)
if [ -n "$(git -C "$REPO" status --porcelain -- include lib drivers \
		Documentation kunit tools/patches tools/series)" ]; then
	head="$head with uncommitted changes"
fi

mkdir -p "$TREE"
while IFS= read -r f; do
	if [ -f "$BASE/$f" ]; then
		mkdir -p "$TREE/$(dirname "$f")"
		cp "$BASE/$f" "$TREE/$f"
	fi
done < "$WORK/files"
G=(git -C "$TREE" -c core.autocrlf=false -c core.fileMode=true
   -c commit.gpgSign=false -c diff.noprefix=false -c diff.mnemonicPrefix=false
   -c format.signOff=false -c format.coverFromDescription=default)
"${G[@]}" init -q -b series
"${G[@]}" add -A
"${G[@]}" commit -q --allow-empty -m "pristine Debian $SRCNAME $(cat "$BUILD/base/.$SRCNAME.extracted")"
"${G[@]}" tag base

# --- one commit per step ------------------------------------------------

# body_of NAME: the commit message body of tools/patches/NAME: from after
# the mail headers (Subject: may continue on indented lines) to before
# the Signed-off-by or the "---" line, trailing empty lines dropped.
body_of() {
	awk '
	!hdr_done { if ($0 == "") hdr_done = 1; next }
	/^Signed-off-by:/ || /^---$/ { exit }
	{ print }' "$REPO/tools/patches/$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

apply() { # apply DIR PATCH [-R]
	local out
	out=$(patch -d "$1" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
		--reject-file=- ${3:-} < "$2" 2>&1) || {
		echo "$out" >&2
		die "${2#"$REPO/"} does not apply${3:+ in reverse} at step $step"
	}
}

for d in "$WORK"/steps/*; do
	step=$(basename "$d")
	body=$(cat "$d/body")
	while read -r verb args; do
		case "$verb" in
		add)
			for f in $args; do
				k=$(kpath "$f")
				[ ! -e "$TREE/$k" ] || die "step $step: $k exists already"
				mkdir -p "$TREE/$(dirname "$k")"
				cp "$REPO/$f" "$TREE/$k"
			done ;;
		replace)
			for f in $args; do
				k=$(kpath "$f")
				[ -e "$TREE/$k" ] || die "step $step: $k does not exist"
				cp "$REPO/$f" "$TREE/$k"
			done ;;
		patch) apply "$TREE" "$REPO/tools/patches/$args" ;;
		hold) apply "$TREE" "$REPO/tools/series/$args" -R ;;
		release) apply "$TREE" "$REPO/tools/series/$args" ;;
		body-from)
			[ -z "$body" ] || die "step $step: body-from and | lines"
			body=$(body_of "$args") ;;
		esac
	done < "$d/actions"
	[ -n "$body" ] || die "step $step: no commit message body"
	printf '%s\n\n%s\n' "$(cat "$d/subject")" "$body" > "$d/msg"
	"${G[@]}" add -A
	"${G[@]}" diff --cached --quiet && die "step $step changes nothing"
	"${G[@]}" commit -q -F "$d/msg"
done

# --- diffstat per group -------------------------------------------------

# numstat lines "GROUP INS DEL PATH" for every file of every patch
i=0
: > "$WORK/numstat"
for d in "$WORK"/steps/*; do
	i=$((i + 1))
	c=$("${G[@]}" rev-parse "HEAD~$((n - i))")
	"${G[@]}" show --numstat --format= "$c" |
		awk -v g="$(cat "$d/group")" '{ print g, $1, $2, $3 }' >> "$WORK/numstat"
done
cp "$WORK/files" "$WORK/files.txt"

diffstat_table() {
	awk '
	{ ins[$1] += $2; del[$1] += $3
	  if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END {
	  printf "%-7s %6s %6s\n", "group", "+", "-"
	  for (k = 1; k <= n; k++)
	    printf "%-7s %6d %6d\n", order[k], ins[order[k]], del[order[k]]
	}' "$WORK/numstat"
}

# lines FILE...: the lines of the base tree's FILEs, summed.
base_lines() {
	(cd "$BASE" && cat -- "$@") | wc -l
}

# port_stat SUBJECT: "+A/-D" of the patch whose subject is SUBJECT.
port_stat() {
	local c
	c=$("${G[@]}" log --format=%H --fixed-strings --grep="$1" base..HEAD | head -n 1)
	[ -n "$c" ] || { echo "(no such patch)"; return; }
	"${G[@]}" show --numstat --format= "$c" |
		awk '{ a += $1; d += $2 } END { printf "+%d/-%d", a, d }'
}

# What the ports replace and what they are measured against: the
# in-tree hand-written zero-copy code of the base, the port patches
# alone, the library, and Intel's libeth_xsk.
comparison_table() {
	local igb=drivers/net/ethernet/intel/igb
	local lib libeth
	lib=$(cd "$BUILD/linux" && cat include/net/xsk_zc.h include/net/xsk_zc/*.h \
		lib/xsk_zc/pool.c lib/xsk_zc/datapath.c | wc -l)
	libeth=$(base_lines include/net/libeth/xsk.h drivers/net/ethernet/intel/libeth/xsk.c)
	printf "igb:   the port %s; the in-tree igb_xsk.c it replaces has %d lines\n" \
		"$(port_stat "igb: use the xsk_zc helpers for AF_XDP zero-copy")" \
		"$(base_lines $igb/igb_xsk.c)"
	printf "tsnep: the port %s, over the in-tree zero-copy code of tsnep_main.c\n" \
		"$(port_stat "tsnep: use the xsk_zc helpers for AF_XDP zero-copy")"
	printf "am65:  no zero-copy in-tree; TI's v2 posting was +692/-85\n"
	printf "xsk_zc itself: %d lines (xsk_zc.h, types.h, datapath.h, pool.c, datapath.c);\n" "$lib"
	printf "Intel's libeth_xsk in the base: %d lines (libeth/xsk.h, libeth/xsk.c)\n" "$libeth"
}

# One line per patch: number, files, insertions, deletions, subject.
patch_table() {
	local i=0 c
	for c in $("${G[@]}" rev-list --reverse base..HEAD); do
		i=$((i + 1))
		"${G[@]}" show --numstat --format= "$c" |
			awk -v i="$i" -v s="$("${G[@]}" log -1 --format=%s "$c")" '
			{ a += $1; d += $2; f++ }
			END { printf "%2d %2d files %+5d/-%-4d %s\n", i, f, a, d, s }'
	done
}

# --- format-patch and the cover letter ----------------------------------

rm -rf "$OUT"
mkdir -p "$OUT"
"${G[@]}" format-patch -q --cover-letter --zero-commit --numbered \
	-o "$OUT" base..HEAD
cp "$WORK/files" "$OUT/files.txt"
diffstat_table > "$OUT/diffstat.txt"
patch_table > "$OUT/patches.txt"

# Last results of the other targets, if any, with their date.
mtime() { date -u -r "$1" '+%Y-%m-%d %H:%M UTC'; }
results() {
	local f
	f=$BUILD/guest-run/kunit/kunit.log
	if [ -s "$f" ]; then
		awk -v when="$(mtime "$f")" '
			{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
			/^    ok [0-9]+ / { ok++ } /^    not ok [0-9]+ / { bad++ }
			/^ok [0-9]+ / || /^not ok [0-9]+ / { suites++ }
			END { printf "- KUnit (debug guest kernel, last run %s): %d suites, %d cases ok, %d not ok\n",
				when, suites, ok, bad }' "$f"
	else
		echo "- KUnit: no run in build/guest-run/kunit (make kunit)"
	fi
	f=$BUILD/guest-run/e2e/output.log
	if [ -s "$f" ] && grep -qE '^e2e: ' "$f"; then
		echo "- end-to-end on QEMU's igb (82576) model (last run $(mtime "$f")): $(grep -E '^e2e: ' "$f" | tail -1 | sed 's/^e2e: //')"
	else
		echo "- end-to-end: no run in build/guest-run/e2e (make e2e)"
	fi
	f=$BUILD/series-check/summary
	if [ -s "$f" ]; then
		echo "- this series, applied and built patch by patch (make series-check,"
		echo "  last run $(mtime "$f")):"
		echo "  $(cat "$f")"
	else
		echo "- this series, applied and built patch by patch: not run yet (make series-check)"
	fi
}

# The in-tree code as the peer: the e2e tests that fail on the pristine
# base's igb (make e2e-pristine) and pass with this series (e2e and
# e2e-debug, which split the tests between them), with the in-tree
# code's failure. These are fixes to report.
peers() {
	local p=$BUILD/guest-run/e2e-pristine/output.log
	local o="$BUILD/guest-run/e2e/output.log $BUILD/guest-run/e2e-debug/output.log"
	if [ ! -s "$p" ] || ! grep -qE '^e2e: ' "$p"; then
		echo "Against igb's in-tree zero-copy: not run (make e2e-pristine)."
		return
	fi
	echo "Against igb's in-tree zero-copy, in the same e2e harness (make"
	echo "e2e-pristine, last run $(mtime "$p")): $(grep -E '^e2e: ' "$p" | tail -1 | sed 's/^e2e: //')."
	echo "The tests the in-tree code fails that pass with this series, and"
	echo "its failure:"
	echo
	# shellcheck disable=SC2086
	grep -hE '^PASS [a-z0-9-]+' $o 2>/dev/null |
		awk '{ sub(/:$/, "", $2); print $2 }' | sort -u |
		awk 'NR == FNR { ours[$1] = 1; next }
			/^FAIL [a-z0-9-]+/ {
				t = $2; sub(/:$/, "", t)
				if (!(t in ours) || t == "dmesg")
					next
				sub(/^FAIL [^ ]+( \([0-9]+s\))?:? /, "")
				sub(/^kernel: \[ *[0-9.]+\] /, "")
				if (length($0) > 60) $0 = substr($0, 1, 57) "..."
				printf "  %-20s %s\n", t, $0 }' - "$p"
	xskx_peers
}

# xskx_peers: 7.2's xskxceiver on the in-tree code and on the series,
# mode by mode, when make e2e-pristine ran it.
xskx_peers() {
	local p=$BUILD/guest-run/xskxceiver-pristine/output.log
	local o=$BUILD/guest-run/xskxceiver/output.log m bp
	grep -qE '^xskxceiver: ' "$p" 2>/dev/null && grep -qE '^TABLE ' "$p" &&
		grep -qE '^TABLE ' "$o" 2>/dev/null || return 0
	echo
	echo "The kernel's xskxceiver (drv, zc, zc-bp), in-tree | this series:"
	echo
	sed -n 's/^TABLE \([a-z-]*\):.*/\1/p' "$p" "$o" | sort -u |
		while read -r m; do
			printf '  %-6s %-34s | %s\n' "$m" \
				"$(sed -n "s/^TABLE $m: //p" "$p" | tail -1)" \
				"$(sed -n "s/^TABLE $m: //p" "$o" | tail -1)"
		done
	echo
	echo "  the harness's totals, where a \"not ok\" that"
	echo "  tools/xskxceiver/expected-failures lists as a core or selftest"
	echo "  mismatch counts as passed:"
	echo "  in-tree: $(sed -n 's/^xskxceiver: //p' "$p" | tail -1)"
	echo "  this series: $(sed -n 's/^xskxceiver: //p' "$o" | tail -1)"
	bp=$(sed -n 's/^TABLE zc-bp: [0-9]* ok, \([0-9]*\) not ok.*/\1/p' "$p" | tail -1)
	[ "${bp:-0}" -gt 0 ] || return 0
	echo
	echo "In busy-poll mode the in-tree code sends nothing: it kicks TX"
	echo "only from the NAPI of the queue's RX vector, and an 82576 with"
	echo "four queues or fewer gives TX a vector of its own, whose NAPI a"
	echo "busy-polling socket never runs (with ethtool -L combined 5 the"
	echo "queues share vectors and the same tests pass)."
}

bench() {
	local f=$BUILD/bench/results.txt t=$BUILD/bench/results-tsnep.txt
	if [ -s "$f" ]; then
		echo "Benchmarks (make bench, QEMU under TCG, $(mtime "$f")):"
		echo
		sed 's/^/  /' "$f"
		[ ! -s "$t" ] || { echo; sed 's/^/  /' "$t"; }
	else
		echo "Benchmarks: none was run (no build/bench/results.txt; make bench)."
	fi
}

cases=$(cat "$REPO"/kunit/*.c | grep -c 'KUNIT_CASE' || true)
blurb=$WORK/blurb
{
cat <<EOF
xsk_zc does once, in lib/xsk_zc/ and include/net/xsk_zc.h, what every
AF_XDP zero-copy driver repeats: XSK pool setup with the queue stopped
and restarted, fill-ring refill, RX verdicts and the XDP_PASS copy,
batched TX, completions, need_wakeup and ndo_xsk_wakeup, with the same
bugs fixed once (RX stalls on an empty fill ring, TX hangs, teardown
races, a queue left dead after a failed setup). A driver keeps its
descriptor formats and its queue stop and start, through a const ops
table and static const descriptor-callback tables that the inline hot
path resolves at compile time: no indirect call per packet.

The series adds the library with its KUnit suite and documentation and
a core XDP fix it relies on; ports the hand-written AF_XDP zero-copy of
igb and of tsnep onto the library, each after fixes to the driver as it
is upstream, with the features upstream's lacks (multi-buffer, TX
metadata, RX hints, per-queue counters, XDP_TX from the XSK buffer) in
patches of their own; and adds zero-copy to am65-cpsw, which has none,
after linking its queues to their NAPI instances.

Base: Debian $SRCNAME (Linux $(awk -F' *= *' '
	$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } END { printf "%s.%s.%s", v, p, s }' "$BASE/Makefile")), pristine. It needs a rebase
onto net-next before it is posted to netdev. Generated by "make series"
from the xsk_zc repository at $head.

Lines per group (insertions, deletions; KUnit tests of the drivers are
in "kunit"):

$(sed -e 's/^/  /' -e 's/^ *$//' "$OUT/diffstat.txt")

Against the code in-tree:

$(comparison_table | sed 's/^/  /')

$(bench)

$(peers)

Tests:
$(results)
- $cases KUnit cases in the series; tsnep runs end to end on a QEMU
  model of the project's, am65-cpsw is build-tested (arm64) and
  KUnit-tested only: no hardware or model.

Tags: no patch carries a Signed-off-by. The generator knows no one who
can certify the Developer's Certificate of Origin for them: the person
who posts the series adds their own Signed-off-by to every patch.

checkpatch --strict (run on every patch by make series-check, result
above) ignores three types, no other: MISSING_SIGN_OFF (see Tags),
FILE_PATH_CHANGES ("added file(s), does MAINTAINERS need updating?",
raised by every patch that adds a file) and UNKNOWN_COMMIT_ID (the base
is a source tarball without git history; the commit of every Fixes:
tag was checked against the list archives). Of the files added, lib/xsk_zc/
is covered by no MAINTAINERS entry: the person who posts adds one naming
its maintainer.
EOF
} > "$blurb"

cover=$OUT/0000-cover-letter.patch
python3 - "$cover" "$blurb" <<'EOF'
import sys
cover, blurb = sys.argv[1], open(sys.argv[2]).read().rstrip('\n')
s = open(cover).read()
subject = 'net: xsk_zc: AF_XDP zero-copy driver helpers; igb, tsnep, am65-cpsw on them'
assert '*** SUBJECT HERE ***' in s and '*** BLURB HERE ***' in s
s = s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', blurb)
open(cover, 'w').write(s)
EOF

echo "series: $n patches in build/series/ (from $head)"
sed -e 's/^/  /' -e 's/^ *$//' "$OUT/patches.txt" "$OUT/diffstat.txt"
