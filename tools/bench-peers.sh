#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench-peers.sh [NIC] - "make bench-peers"'s table: each point of
# the last "make bench" on the project's kernel
# (build/guest-run/bench/points.csv) beside the same point on the
# pristine kernel, whose drivers have their own, in-tree, zero-copy
# (build/guest-run/bench-pristine/points.csv), with ours/in-tree for the
# rate and for the guest kernel's instructions per frame (below 1.00:
# fewer instructions). Writes build/bench/peers.txt and peers.csv.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
NIC=${1:-igb}
SUF=
[ "$NIC" = igb ] || SUF=-$NIC
OURS=$REPO/build/guest-run/bench$SUF/points.csv
PEER=$REPO/build/guest-run/bench$SUF-pristine/points.csv
OUT=$REPO/build/bench

for f in "$OURS" "$PEER"; do
	[ -s "$f" ] || { echo "bench-peers: no results in $f" >&2; exit 1; }
done
mkdir -p "$OUT"

awk -F, -v nic="$NIC" '
FNR == 1 { file++; next }
{
	k = $1 "," $2 "," $3
	if (file == 1) { order[++n] = k; ok[k] = $4; oi[k] = $5; on[k] = $6 }
	else { pk[k] = $4; pi[k] = $5; pn[k] = $6 }
}
function ratio(a, b) { return (a != "" && b != "" && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
function v(x, note) { return x != "" ? x : (note != "" ? "n/a" : "-") }
END {
	printf "AF_XDP on %s: this project'"'"'s kernel (ours) beside the pristine one (in-tree)\n", nic
	printf "%-7s %5s %-8s %9s %9s %6s   %9s %9s %6s\n", "bench", "size", "mode", "ours", "in-tree", "ratio", "ours", "in-tree", "ratio"
	printf "%-7s %5s %-8s %26s   %26s\n", "", "", "", "Kpps", "kernel insn/frame"
	print "bench,size,mode,kpps,kpps_intree,kpps_ratio,insn,insn_intree,insn_ratio" > csv
	for (i = 1; i <= n; i++) {
		k = order[i]
		split(k, p, ",")
		printf "%-7s %5s %-8s %9s %9s %6s   %9s %9s %6s\n", p[1], p[2], p[3],
			v(ok[k], on[k]), v(pk[k], pn[k]), ratio(ok[k], pk[k]),
			v(oi[k], on[k]), v(pi[k], pn[k]), ratio(oi[k], pi[k])
		print k "," ok[k] "," pk[k] "," ratio(ok[k], pk[k]) "," oi[k] "," pi[k] "," ratio(oi[k], pi[k]) > csv
	}
	print "(Kpps: ours/in-tree above 1.00 is faster; insn/frame: below 1.00 is fewer instructions)"
}' csv="$OUT/peers$SUF.csv" "$OURS" "$PEER" | tee "$OUT/peers$SUF.txt"
