#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/bench.sh [REPS] [SECS] [BENCH|MODE|SIZE...] - guest job for
# "make bench".
#
# Measures, on the guest's two NICs (igb; tsnep or virtio with XSKZC_NIC),
# every point of
#   rxdrop | txonly | l2fwd  x  skb | copy | zc  x  64 | 1500 | 9000 bytes
# plus XDP_TX forwarding (xdptx) in copy and zc mode at 64 and 1500
# bytes and the native XDP_DROP ceiling at each size. 9000-byte frames
# are multi-buffer (xsk-bench -M: XDP_USE_SG, programs with fragments; a
# frame on three 4 KiB UMEM frames), with both NICs at MTU 9000 for
# them; a NIC that refuses that MTU gets those points as n/a. Each point
# is REPS (default 3) back-to-back intervals of SECS (default 10) seconds
# in one run, the point's value is their median. BENCH... (drop, rxdrop,
# txonly, l2fwd, xdptx) measures those benchmarks only, MODE... (skb,
# copy, zc, xdp-drop: drop's one mode) those modes only, SIZE... those
# sizes only: "rxdrop zc 64" is one point. Writes results/points.csv
# (benchmark,size,mode,kpps,insn,note; kpps empty for a failed point,
# with the reason in note; insn, the guest kernel's instructions per
# frame, median of the intervals, only with the TCG plugin) and one
# xsk-bench log per point in results/bench/.
#
# Who measures what (nicb is the device under test for rxdrop, l2fwd and
# drop; nica for txonly):
#   rxdrop  nica txonly (generator) -> nicb rxdrop: nicb's RX rate
#   l2fwd   nica txonly -R (generator) -> nicb l2fwd: nicb's forward rate
#   xdptx   nica txonly -R (generator) -> nicb XDP_TX (l2fwd --xdp-tx: the
#           program swaps the MACs, the socket only sets the queue's
#           mode): the rate the stream comes back at nica
#   txonly  nica txonly -> nicb XDP_DROP: nica's TX rate
#   drop    nica txonly (generator) -> nicb XDP_DROP: nicb's drop rate
# The generator is a ZC txonly when the driver supports it, else copy.

. "$XSKZC_REPO/tools/guest/lib.sh"

REPS=${1:-3}
SECS=${2:-10}
[ $# -lt 2 ] || shift 2
ONLY=
MODES=
SIZES=
for w in "$@"; do
	case $w in
	skb|copy|zc|xdp-drop) MODES="$MODES $w" ;;
	*[!0-9]*) ONLY="$ONLY $w" ;;
	*) SIZES="$SIZES $w" ;;
	esac
done
OUT=$RESULTS/bench
CSV=$RESULTS/points.csv
mkdir -p "$OUT"
echo "benchmark,size,mode,kpps,insn,note" > "$CSV"
STREAM=$$
# The guest kernel's instructions per frame, when QEMU runs the TCG
# plugin tools/qemu/xskzc-insn.c (make bench: BENCH_INSN=1); it writes
# its counts to results/insn.txt, where the measuring xsk-bench reads
# them (-K) at each interval.
INSN=
[ -e "$RESULTS/insn.txt" ] && INSN="-K $RESULTS/insn.txt:1"

# The device under test (nicb for rxdrop, l2fwd, xdptx and drop; nica
# for txonly) has vCPU 1: its NIC's interrupts and its side's xsk-bench;
# the other side has vCPU 0. The plugin's count of vCPU 1 is then the
# work of the device under test alone (-K FILE:1), whatever the other
# side and the frames the NIC dropped for want of buffers cost.
# irqs_to IF CPU [netns command...]: IF's interrupts to vCPU CPU. A
# virtio NIC's device is the virtio device; its PCI function, the one
# with the MSI-X vectors, is the parent.
irqs_to() {
	local cpu=$2 n d=/sys/class/net/$1/device
	shift 2
	"$@" test -d "$d/msi_irqs" || d=$d/..
	for n in $("$@" ls "$d/msi_irqs" 2>/dev/null); do
		echo "$cpu" > "/proc/irq/$n/smp_affinity_list" 2>/dev/null
	done
}

guest_setup || exit 1

# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (!NR) exit
		if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# intervals LOG FIELD: the first REPS interval values of FIELD in LOG.
intervals() {
	grep '^t=' "$1" | head -n "$REPS" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# The generator: zero-copy if it binds and completes, else copy (no XDP
# program needed on the sending side then).
GEN=copy
GEN_ARGS="-X"
if "$XSKB" txonly -i $NICA -m zc -D $MAC_B -c 2000 -d 3 -Q > "$OUT/gen-probe.log" 2>&1 &&
   [ "$(field tx_completed "$(summary_of "$OUT/gen-probe.log")")" = 2000 ]; then
	GEN=zc
	GEN_ARGS=
fi
echo "bench: generator: txonly $GEN; $REPS x $SECS s per point"

# nicb's hardware counters: frames the MAC took in, and those it dropped
nic_counters() {
	ip netns exec $NSB ethtool -S $NICB 2>/dev/null |
		grep -E '^ *(rx_packets|rx_no_buffer_count|rx_missed_errors):' |
		tr -s ' ' | tr '\n' ' '
}

# rx_packets of a nic_counters line
rx_packets() {
	echo "$1" | sed -n 's/.*rx_packets: \([0-9]*\).*/\1/p' | grep . || echo 0
}

# point BENCH SIZE MODE
point() {
	case " ${ONLY:-$1} " in *" $1 "*) ;; *) return 0 ;; esac
	case " ${MODES:-$3} " in *" $3 "*) ;; *) return 0 ;; esac
	if [ -n "$SKIP" ]; then
		echo "$1,$2,$3,,,$SKIP" >> "$CSV"
		return 0
	fi
	b=$1
	sz=$2
	m=$3
	STREAM=$((STREAM + 7919))
	log=$OUT/$b-$sz-$m
	run_s=$((REPS * SECS + 2))
	gen="$XSKB txonly $MB -i $NICA -s $sz -D $MAC_B -S $STREAM -d $run_s"
	case $b in
	rxdrop)
		rx="rxdrop $MB -m $m -s $sz -S $STREAM"
		gen="$gen -m $GEN $GEN_ARGS"
		meas=B
		fld=rx_pps
		;;
	l2fwd)
		rx="l2fwd $MB -m $m -s $sz -S $STREAM"
		gen="$gen -m $GEN -R"
		meas=B
		fld=tx_pps
		;;
	xdptx)
		rx="l2fwd -x -m $m -s $sz -S $STREAM"
		gen="$gen -m $GEN -R -I $SECS"
		meas=A
		fld=rx_pps
		;;
	txonly)
		rx="drop $MB"
		gen="$gen -m $m -I $SECS"
		meas=A
		fld=tx_pps
		;;
	drop)
		rx="drop $MB"
		gen="$gen -m $GEN $GEN_ARGS"
		meas=B
		fld=rx_pps
		m=xdp-drop
		;;
	esac
	if [ $meas = A ]; then
		gen="$gen $INSN"
	else
		rx="$rx $INSN"
	fi
	if [ "$b" = txonly ]; then
		cpua=1 cpub=0
	else
		cpua=0 cpub=1
	fi
	irqs_to $NICA $cpua
	irqs_to $NICB $cpub onB
	nic0=$(nic_counters)
	ip netns exec $NSB taskset -c $cpub "$XSKB" $rx -i $NICB -I "$SECS" -d $((run_s + 30)) -W 2 > "$log.B.log" 2>&1 &
	bpid=$!
	wait_ready "$log.B.log"
	note=
	s=$(summary_of "$log.B.log")
	if [ -z "$s" ]; then
		taskset -c $cpua $gen > "$log.A.log" 2>&1
		sa=$(summary_of "$log.A.log")
		if [ "$(field status "$sa")" != ok ]; then
			note="$(field status "$sa" | sed 's/-failed//'): $(field errno "$sa")"
			kill -TERM $bpid 2>/dev/null
		fi
	fi
	# the XDP_TX socket receives nothing: it ends when the stream does
	[ "$b" != xdptx ] || kill -TERM $bpid 2>/dev/null
	wait $bpid
	s=$(summary_of "$log.B.log")
	if [ "$(field status "$s")" != ok ]; then
		note="$(field status "$s" | sed 's/-failed//'): $(field errno "$s")"
	fi
	if [ "$b" != txonly ] && [ "$m" = zc ] && [ -z "$note" ] &&
	   [ "$(field zerocopy "$s")" != 1 ]; then
		note="not zero-copy"
	fi
	if [ "$b" = xdptx ] && [ -z "$note" ] &&
	   [ "$(field status "$sa")" != ok ]; then
		note="$(field status "$sa" | sed 's/-failed//'): $(field errno "$sa")"
	fi
	if [ "$b" = txonly ] && [ -z "$note" ] &&
	   [ "$m" = zc ] && [ "$(field zerocopy "$sa")" != 1 ]; then
		note="not zero-copy"
	fi
	kpps=
	insn=
	if [ -z "$note" ]; then
		if [ $meas = A ]; then
			f=$log.A.log
		else
			f=$log.B.log
		fi
		n=$(intervals "$f" $fld | wc -l)
		v=$(intervals "$f" $fld | median)
		if [ "$n" -lt "$REPS" ] || [ -z "$v" ]; then
			note="only $n of $REPS intervals"
			# Did the frames reach nicb (a stall) or not (the link)?
			nic1=$(nic_counters)
			{
				echo "nicb before: $nic0"
				echo "nicb after:  $nic1"
				dmesg | tail -n 8
			} > "$log.diag"
			took=$(($(rx_packets "$nic1") - $(rx_packets "$nic0")))
			[ "$n" != 0 ] || [ $took -le 0 ] ||
				note="$note; nicb rx_packets +$took"
		else
			kpps=$(awk -v v="$v" 'BEGIN { printf "%.1f", v / 1000 }')
			[ -z "$INSN" ] ||
				insn=$(intervals "$f" "insn_${fld%_pps}" | median)
			corrupt=$(field corrupt "$s")
			[ "$b" != xdptx ] || corrupt=$(field corrupt "$sa")
			[ "${corrupt:-0}" = 0 ] || note="corrupt=$corrupt"
		fi
	fi
	echo "$b,$sz,$m,$kpps,$insn,$note" >> "$CSV"
	printf 'bench: %-7s %4s B %-8s %s\n' "$b" "$sz" "$m" \
		"${kpps:+$kpps Kpps}${insn:+ $insn insn/frame}${note:+${kpps:+ }n/a ($note)}"
	ip link set dev $NICA xdpgeneric off 2>/dev/null
	ip link set dev $NICA xdpdrv off 2>/dev/null
	onB ip link set dev $NICB xdpgeneric off 2>/dev/null
	onB ip link set dev $NICB xdpdrv off 2>/dev/null
	wait_up $NICA
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
}

# set_mtu MTU: both NICs, and wait for their links
set_mtu() {
	ip link set dev $NICA mtu "$1" &&
		onB ip link set dev $NICB mtu "$1" || return 1
	wait_up $NICA
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
}

# SKIP: the reason the points of this size cannot run (n/a rows)
for sz in ${SIZES:-64 1500 9000}; do
	MB=
	SKIP=
	if [ "$sz" -gt 1518 ]; then
		MB=-M
		if ! set_mtu "$sz" 2>"$OUT/mtu-$sz.log"; then
			SKIP="MTU $sz refused"
			echo "bench: $sz B: $SKIP: $(cat "$OUT/mtu-$sz.log")"
			set_mtu 1500
		fi
	fi
	point drop $sz xdp-drop
	for b in rxdrop txonly l2fwd; do
		for m in skb copy zc; do
			point $b $sz $m
		done
	done
	if [ -z "$MB" ]; then
		for m in copy zc; do
			point xdptx $sz $m
		done
	fi
	[ -z "$MB" ] || [ -n "$SKIP" ] || set_mtu 1500
done
echo "bench: generator=$GEN reps=$REPS secs=$SECS" > "$RESULTS/meta.txt"
exit 0
