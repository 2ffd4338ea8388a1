#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench-report.sh [NIC [POINTS_CSV]] - turn the guest's bench points
# of NIC (igb, the default, tsnep or virtio: build/guest-run/bench/points.csv,
# build/guest-run/bench-tsnep/points.csv or bench-virtio/points.csv;
# benchmark,size,mode,kpps,insn,note)
# into, with -NIC after "results" for a NIC other than igb:
#   build/bench/results.csv  benchmark,size,mode,kpps (kpps empty for a
#                            point that failed)
#   build/bench/results.txt  the table printed here: Kpps per mode and
#                            the ZC/copy ratio, failed points as
#                            "n/a (reason)"; then, with the TCG plugin,
#                            the kernel instructions per frame
#   build/bench/results.png  a bar chart (gnuplot), unless no point
#                            has a value

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
NIC=${1:-igb}
case $NIC in
igb) SUF= TITLE="QEMU igb (82576)" ;;
tsnep) SUF=-tsnep TITLE="the project's QEMU tsnep model" ;;
virtio) SUF=-virtio TITLE="QEMU virtio-net" ;;
*) echo "bench-report: NIC $NIC: igb, tsnep or virtio" >&2; exit 2 ;;
esac
IN=${2:-$REPO/build/guest-run/bench$SUF/points.csv}
OUT=$REPO/build/bench
META=$(dirname "$IN")/meta.txt

[ -s "$IN" ] || { echo "bench: no results in $IN" >&2; exit 1; }
mkdir -p "$OUT"

# results.csv
{
	echo "benchmark,size,mode,kpps"
	tail -n +2 "$IN" | cut -d, -f1-4
} > "$OUT/results$SUF.csv"

# The table.
awk -F, -v meta="$( [ -f "$META" ] && cat "$META" )" -v title="$TITLE" '
NR == 1 { print "AF_XDP on " title ":"; next }
{
	key = $1 "," $2
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	val[key "," $3] = $4
	insn[key "," $3] = $5
	if ($5 != "") have_insn = 1
	note[key "," $3] = $6
}
function icell(k, m) {
	return insn[k "," m] != "" ? insn[k "," m] : "-"
}
function cell(k, m) {
	if (val[k "," m] != "") return val[k "," m]
	if ((k "," m) in note) return "n/a (" note[k "," m] ")"
	return "-"
}
END {
	printf "%-8s %5s  %12s %12s %28s %8s\n", "bench", "size", "skb", "copy", "zc", "zc/copy"
	for (i = 1; i <= n; i++) {
		k = order[i]
		split(k, p, ",")
		if (p[1] == "drop") continue
		r = "-"
		if (val[k ",zc"] != "" && val[k ",copy"] + 0 > 0)
			r = sprintf("%.2fx", val[k ",zc"] / val[k ",copy"])
		printf "%-8s %5s  %12s %12s %28s %8s\n", p[1], p[2], cell(k, "skb"), cell(k, "copy"), cell(k, "zc"), r
	}
	for (i = 1; i <= n; i++) {
		k = order[i]
		split(k, p, ",")
		if (p[1] != "drop") continue
		printf "%-8s %5s  native XDP_DROP ceiling: %s Kpps\n", "xdp-drop", p[2], cell(k, "xdp-drop")
	}
	print "(Kpps, median of the intervals; " meta ")"
	if (!have_insn)
		exit
	print ""
	print "Guest kernel instructions per frame (TCG plugin tools/qemu/xskzc-insn.c):"
	printf "%-8s %5s  %12s %12s %12s %12s\n", "bench", "size", "skb", "copy", "zc", "xdp-drop"
	for (i = 1; i <= n; i++) {
		k = order[i]
		split(k, p, ",")
		printf "%-8s %5s  %12s %12s %12s %12s\n", p[1], p[2], icell(k, "skb"), icell(k, "copy"), icell(k, "zc"), icell(k, "xdp-drop")
	}
	print "(all of the guest kernel, both NICs and both directions, per frame measured; median of the intervals)"
}' "$IN" | tee "$OUT/results$SUF.txt"

# The chart.
"$REPO/tools/deps.sh" gnuplot-nox
DAT=$OUT/results$SUF.dat
awk -F, '
NR == 1 { next }
{
	k = ($1 == "drop" ? "xdp-drop" : $1) "-" $2
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	v[k "," $3] = ($4 == "" ? "-" : $4)
}
END {
	print "# group skb copy zc xdp-drop"
	for (i = 1; i <= n; i++) {
		k = order[i]
		printf "%s", k
		split("skb copy zc xdp-drop", m, " ")
		for (j = 1; j <= 4; j++)
			printf " %s", ((k "," m[j]) in v) ? v[k "," m[j]] : "-"
		printf "\n"
	}
}' "$IN" > "$DAT"

# gnuplot refuses a chart with no value at all (every point n/a)
if ! awk -F, 'NR > 1 && $4 != "" { f = 1 } END { exit !f }' "$IN"; then
	rm -f "$OUT/results$SUF.png"
	echo "bench: $NIC: no point measured, no chart"
	exit 0
fi
gnuplot <<EOF
set terminal pngcairo size 1100,600 noenhanced font "sans,10"
set output "$OUT/results$SUF.png"
set title "AF_XDP on $TITLE, TCG, 2 vCPUs: Kpps by mode"
set datafile missing "-"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "Kpps"
set yrange [0:*]
set grid ytics
set key top right
set xtics rotate by -30
plot "$DAT" using 2:xtic(1) title "skb", \
     "" using 3 title "copy", \
     "" using 4 title "zc", \
     "" using 5 title "native XDP_DROP"
EOF
echo "bench: $NIC: wrote build/bench/results$SUF.csv, results$SUF.txt, results$SUF.png"
