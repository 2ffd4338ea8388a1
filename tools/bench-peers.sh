#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench-peers.sh [NIC] - "make bench-peers"'s table: each point of
# the last "make bench" on the project's kernel
# (build/guest-run/bench/points.csv) beside the same point on the
# pristine kernel, whose drivers have their own, in-tree, zero-copy
# (build/guest-run/bench-pristine/points.csv), with ours/in-tree for the
# rate and for the guest kernel's instructions per frame (below 1.00:
# fewer instructions). Writes build/bench/peers.txt, peers.csv and
# peers.png, a chart of both ratios per point (gnuplot), with -NIC after
# "peers" for a NIC other than igb (tsnep, virtio).

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

# The chart: both ratios of each point that has them, against 1.00.
"$REPO/tools/deps.sh" gnuplot-nox
DAT=$OUT/peers$SUF.dat
awk -F, 'NR > 1 && ($4 != "-" || $7 != "-") {
	print $1 "-" $2 "-" $3, $4, $7
}' "$OUT/peers$SUF.csv" > "$DAT"
if [ ! -s "$DAT" ]; then
	rm -f "$OUT/peers$SUF.png"
	echo "bench-peers: $NIC: no point has a ratio, no chart"
	exit 0
fi
gnuplot <<EOF
set terminal pngcairo size 1100,600 noenhanced font "sans,10"
set output "$OUT/peers$SUF.png"
set title "AF_XDP on $NIC, TCG, 2 vCPUs: this project's kernel / the pristine one (in-tree zero-copy)"
set datafile missing "-"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "ours / in-tree"
set yrange [0:*]
set grid ytics
set key top right
set xtics rotate by -30
plot "$DAT" using 2:xtic(1) title "Kpps (above 1: faster)", \
     "" using 3 title "kernel insn/frame (below 1: fewer)", \
     1 with lines dashtype 2 lc rgb "black" notitle
EOF
echo "bench-peers: $NIC: wrote build/bench/peers$SUF.txt, peers$SUF.csv, peers$SUF.png"
