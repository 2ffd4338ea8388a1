#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/check-indirect-calls.sh [BUILD_DIR [LIST [ARCH]]]
#
# For every "OBJECT FUNCTION [ARCH [ALLOWED]]" line in LIST whose ARCH
# (default x86_64) is ARCH (default x86_64), in LIST (default
# tools/hot-path-functions.txt), disassemble FUNCTION (and its GCC clones
# FUNCTION.*) in BUILD_DIR/OBJECT (default build dir build/lint-x86_64)
# and report any indirect branch: "call *", "jmp *" (including "notrack"
# jump-table jumps) and calls/jumps to the retpoline thunks
# __x86_indirect_thunk_* / __x86_indirect_call_thunk_* /
# __x86_indirect_jump_thunk_*. Return thunks (__x86_return_thunk) are
# plain returns and are not reported.
#
# ALLOWED (default 0) is how many indirect calls the function may make
# that are not driver callbacks: the XDP program's own entry, which is an
# indirect call on architectures without a BPF dispatcher (arm64).
#
# Prints one line per finding and a last line
# "indirect-calls: N findings in M functions"; exits 1 on any finding or
# error (missing object, missing function, nm or objdump failing or not
# showing the function's instructions).

set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-$REPO/build/lint-x86_64}
LIST=${2:-$REPO/tools/hot-path-functions.txt}
ARCH=${3:-x86_64}
case "$ARCH" in
arm64)
	OBJDUMP=${OBJDUMP:-aarch64-linux-gnu-objdump}
	NM=${NM:-aarch64-linux-gnu-nm}
	# blr: call through a register; br: jump through one (tail calls,
	# jump tables).
	INDIRECT='[[:space:]](blr|br|blraa|blrab|braa|brab)[[:space:]]+x[0-9]+'
	;;
*)
	OBJDUMP=${OBJDUMP:-objdump}
	NM=${NM:-nm}
	INDIRECT='\<(call|jmp)[lqw]?[[:space:]]+\*|__x86_indirect_(call_|jump_)?thunk'
	;;
esac

findings=0
checked=0

[ -r "$LIST" ] || { echo "indirect-calls: error: $LIST not found"; exit 1; }

lineno=0
while read -r obj fn arch allowed extra || [ -n "${obj:-}" ]; do
	lineno=$((lineno + 1))
	case "${obj:-}" in ''|'#'*) continue ;; esac
	if [ -z "${fn:-}" ] || [ -n "${extra:-}" ]; then
		echo "indirect-calls: error: $LIST:$lineno: expected 'OBJECT FUNCTION [ARCH [ALLOWED]]'"
		findings=$((findings + 1))
		continue
	fi
	[ "${arch:-x86_64}" = "$ARCH" ] || continue
	if [ ! -f "$BUILD_DIR/$obj" ]; then
		echo "indirect-calls: error: $obj: object not built"
		findings=$((findings + 1))
		continue
	fi
	# nm and objdump must succeed, and objdump must show the function's
	# instructions: a tool that fails or prints nothing checked nothing.
	if ! nm_out=$("$NM" --defined-only "$BUILD_DIR/$obj"); then
		echo "indirect-calls: error: $obj: $NM failed"
		findings=$((findings + 1))
		continue
	fi
	syms=$(awk -v fn="$fn" '$2 ~ /^[tTwW]$/ &&
			($3 == fn || index($3, fn ".") == 1) { print $3 }' <<< "$nm_out" |
	       sort -u)
	if [ -z "$syms" ]; then
		echo "indirect-calls: error: $obj: function $fn not found" \
		     "(inlined or misnamed? mark it noinline)"
		findings=$((findings + 1))
		continue
	fi
	if ! dis=$("$OBJDUMP" -dr --no-show-raw-insn "$BUILD_DIR/$obj"); then
		echo "indirect-calls: error: $obj: $OBJDUMP failed"
		findings=$((findings + 1))
		continue
	fi
	for sym in $syms; do
		# Whole-object disassembly cut at the symbol's boundaries:
		# objdump --disassemble=SYM prints the relocations preceding
		# SYM too (binutils 2.40).
		body=$(awk -v hdr="<$sym>:" '
				/^[0-9a-f]+ <.*>:$/ { on = ($2 == hdr); next }
				/^Disassembly of section/ { on = 0 }
				on' <<< "$dis")
		if ! grep -qE '^[[:space:]]+[0-9a-f]+:[[:space:]]+[a-z]' <<< "$body"; then
			echo "indirect-calls: error: $obj: $sym: no instructions in $OBJDUMP's output"
			findings=$((findings + 1))
			continue
		fi
		checked=$((checked + 1))
		hits=$(grep -E "$INDIRECT" <<< "$body" || true)
		[ -z "$hits" ] && continue
		if [ "$(grep -c . <<< "$hits")" -le "${allowed:-0}" ]; then
			echo "indirect-calls: note: $obj: $sym: $(grep -c . <<< "$hits")" \
			     "indirect call(s), ${allowed} allowed (XDP program entry)"
			continue
		fi
		while IFS= read -r h; do
			echo "indirect-calls: $obj: $sym: $(echo "$h" | tr -s ' \t' ' ')"
			findings=$((findings + 1))
		done <<< "$hits"
	done
done < "$LIST"

echo "indirect-calls: $findings findings in $checked functions"
[ "$findings" -eq 0 ]
