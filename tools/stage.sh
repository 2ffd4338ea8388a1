#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/stage.sh - stage the kernel build tree build/linux/.
#
#  1. The pristine base, Debian's linux-source-7.2 in
#     build/base/linux-source-7.2 (tools/base.sh fetches and extracts it
#     once; never modified afterwards).
#  2. Copy it to build/linux, once per base version.
#  3. On every run, compute the desired content of every file the project
#     manages (its own files at their kernel paths, plus upstream files
#     changed by tools/patches/*.patch) in a scratch directory, then copy
#     into build/linux only the files whose content differs. Unchanged
#     files keep their mtime, so the kernel build does not rebuild them.
#     Files managed by a previous run but no longer are restored from the
#     pristine tree (or removed if upstream does not have them).
#
# Overlays:   include/ -> include/, lib/xsk_zc/ -> lib/xsk_zc/,
#             drivers/ -> drivers/, Documentation/ -> Documentation/,
#             kunit/   -> lib/xsk_zc/kunit/ (without .kunitconfig)

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
TREE=$BUILD/linux
MANAGED=$TREE/.xsk_zc-managed

die() { echo "stage: error: $*" >&2; exit 1; }

"$REPO/tools/deps.sh" xz-utils patch diffutils

# 1. Pristine base, fetched and extracted once.
SRCNAME=$("$REPO/tools/base.sh" --name)
BASE=$("$REPO/tools/base.sh")
BASEVER=$("$REPO/tools/base.sh" --version)

# 2. Working tree, copied once per base version.
if [ "$(cat "$TREE/.xsk_zc-copied" 2>/dev/null)" != "$BASEVER" ]; then
	echo "stage: copying $SRCNAME $BASEVER to build/linux"
	rm -rf "$TREE" "$TREE.tmp"
	# "$BASE/." so that a symlinked base is copied, not the link.
	cp -a "$BASE/." "$TREE.tmp"
	mv "$TREE.tmp" "$TREE"
	echo "$BASEVER" > "$TREE/.xsk_zc-copied"
fi

[ "$(realpath "$TREE")" != "$(realpath "$BASE")" ] && [ ! -L "$TREE" ] ||
	die "build/linux must be a copy of $SRCNAME, not a link to it"

# 3. Desired content of every managed file.
SCRATCH=$(mktemp -d "$BUILD/.stage.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
WANT=$SCRATCH/want
mkdir "$WANT"
: > "$SCRATCH/list"

# overlay SRC_DIR DEST_DIR: project files (no hidden files, no editor
# backups, no .kunitconfig) copied to their kernel path.
overlay() {
	local src=$1 dst=$2 f
	[ -d "$REPO/$src" ] || return 0
	while IFS= read -r -d '' f; do
		f=${f#./}
		mkdir -p "$WANT/$dst/$(dirname "$f")"
		cp "$REPO/$src/$f" "$WANT/$dst/$f"
		echo "$dst/$f" >> "$SCRATCH/list"
	done < <(cd "$REPO/$src" && find . -type f ! -name '.*' ! -name '*~' \
					! -name '*.orig' ! -name '*.rej' -print0)
}

overlay include include
overlay lib/xsk_zc lib/xsk_zc
overlay drivers drivers
overlay Documentation Documentation
overlay kunit lib/xsk_zc/kunit

# Patches to upstream files, applied in sorted order onto the pristine
# files (or onto the overlay, if a patch touches a project file).
shopt -s nullglob
for p in "$REPO"/tools/patches/*.patch; do
	name=tools/patches/$(basename "$p")
	files=$(sed -n -E 's@^(\+\+\+|---) [ab]/([^\t ]+).*@\2@p' "$p" | sort -u)
	[ -n "$files" ] || die "$name: no files found in patch"
	for f in $files; do
		echo "$f" >> "$SCRATCH/list"
		if [ ! -e "$WANT/$f" ] && [ -f "$BASE/$f" ]; then
			mkdir -p "$WANT/$(dirname "$f")"
			cp "$BASE/$f" "$WANT/$f"
		fi
	done
	if ! out=$(patch -d "$WANT" -p1 --batch --forward --fuzz=0 \
			--no-backup-if-mismatch --reject-file=- < "$p" 2>&1); then
		echo "$out" >&2
		die "patch $name does not apply to $SRCNAME"
	fi
done

sort -u -o "$SCRATCH/list" "$SCRATCH/list"

# Previously managed files that are no longer managed: back to pristine.
if [ -f "$MANAGED" ]; then
	comm -23 <(sort -u "$MANAGED") "$SCRATCH/list" |
	while IFS= read -r f; do
		if [ -f "$BASE/$f" ]; then
			if ! cmp -s "$BASE/$f" "$TREE/$f"; then
				echo "stage: restore $f"
				cp "$BASE/$f" "$TREE/$f"
			fi
		elif [ -e "$TREE/$f" ]; then
			echo "stage: remove $f"
			rm -f "$TREE/$f"
		fi
	done
fi

# Copy only what changed. No mtime preservation: a changed file must
# look newer than anything built from it.
changed=0
while IFS= read -r f; do
	if [ -f "$WANT/$f" ]; then
		if ! cmp -s "$WANT/$f" "$TREE/$f"; then
			mkdir -p "$TREE/$(dirname "$f")"
			cp --preserve=mode "$WANT/$f" "$TREE/$f"
			echo "stage: update $f"
			changed=$((changed + 1))
		fi
	elif [ -e "$TREE/$f" ]; then
		# deleted by a patch
		rm -f "$TREE/$f"
		echo "stage: remove $f"
		changed=$((changed + 1))
	fi
done < "$SCRATCH/list"

cmp -s "$SCRATCH/list" "$MANAGED" || cp "$SCRATCH/list" "$MANAGED"

version=$(awk -F' *= *' '
	$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
	END { printf "%s.%s.%s%s", v, p, s, e }' "$TREE/Makefile")
echo "xsk_zc: base Linux $version (Debian $SRCNAME $BASEVER)," \
     "$(wc -l < "$MANAGED") managed files, $changed updated"
