#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/stress.sh [cycles[,N[,RATE]]] | [txhang[,ROUNDS[,SECS[,TXRING]]]] - guest
# job: the zero-copy lifecycle of igb off the happy path.
#
# cycles (the default, N = 1000): N zero-copy bind/unbind cycles on nicb
# through xsk-cycle (build/xsk-bench/xsk-cycle, which documents a cycle),
# under traffic from nica (RATE pps, 10000 by default): 70% of them with a copy-mode (native XDP)
# sender, the rest with an skb-mode (generic XDP) one. Each cycle binds
# on queue 0 (every 7th on another queue), with need_wakeup on or off,
# busy polling or poll(), its fill ring filled before the bind or, half
# the cycles, after it as xdpsock does; checks that RX moves frames and
# that every TX descriptor completes; unbinds. Every 25th cycle also, in
# turn: ifdown/ifup, XDP program removal, unbind with TX in flight,
# unbind with a full RX ring, all while bound. The sender's own
# completions are checked too.
#
# txhang: the TX unit hang of issue 9, item 9: a copy-mode 64-byte
# txonly on nica at full speed while nicb runs ZC rxdrop sockets with
# need_wakeup on, then off, then in poll() mode, SECS (20) each, for
# ROUNDS (5) rounds; nica's TX ring has TXRING descriptors if given
# (lib.sh's 4096 otherwise). nica's vectors and counters are sampled
# after each socket (results/stress/txhang-samples.txt). On a TX hang
# message, a stalled sender or a process that does not exit, the blocked
# tasks (sysrq w), all tasks (sysrq t), /proc/interrupts, softirqs and
# the NICs' counters go to results/stress/.
#
# Both end with the splats in dmesg and, on the debug kernel, a kmemleak
# scan (tools/guest/kcheck.sh), one "stress: ..." line of figures and
# "stress: OK" or "stress: FAILED". Any splat fails it, and so does any
# kmemleak report: at boot, before the job (unless
# tools/guest/kmemleak-known lists it; a job that runs the stress, as
# e2e-debug does, checks those itself), or at the end; and a kmemleak
# that is off or cannot scan. Logs in results/stress/.

. "$XSKZC_REPO/tools/guest/lib.sh"
. "$XSKZC_REPO/tools/guest/kcheck.sh"

CYCLE=$XSKZC_REPO/build/xsk-bench/xsk-cycle
LOGS=$RESULTS/stress
mkdir -p "$LOGS"
MODE=${1:-cycles}
RATE=${STRESS_RATE:-10000}
FAILED=0

now() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }

# nica and nicb, as lib.sh sets them up; a job that ran before in the
# same boot (e2e-debug) has done it already.
setup() {
	if [ -e /sys/class/net/$NICA ] && ip netns list | grep -q "^$NSB\b"; then
		ip link set dev $NICA xdpgeneric off 2>/dev/null
		ip link set dev $NICA xdpdrv off 2>/dev/null
		onB ip link set dev $NICB xdpgeneric off 2>/dev/null
		onB ip link set dev $NICB xdpdrv off 2>/dev/null
		ip link set $NICA up
		onB ip link set $NICB up
		wait_up $NICA && onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
		return
	fi
	guest_setup
}

# dump NAME: what a stuck or stalled run leaves behind.
dump() {
	local d=$LOGS/$1.dump
	{
		echo "== uptime $(cat /proc/uptime)"
		echo "== /proc/interrupts"; cat /proc/interrupts
		echo "== /proc/softirqs"; cat /proc/softirqs
		echo "== softnet_stat"; cat /proc/net/softnet_stat
		echo "== ethtool -S $NICA"; ethtool -S $NICA 2>&1
		echo "== ethtool -S $NICB"; onB ethtool -S $NICB 2>&1
		echo "== ps"; ps -eo pid,stat,wchan:32,comm 2>&1
	} > "$d" 2>&1
	echo w > /proc/sysrq-trigger
	[ "${2:-}" = all ] && echo t > /proc/sysrq-trigger
	sleep 1
	dmesg > "$LOGS/$1.dmesg"
}

# start_sender NAME MODE [ARGS]: xsk-bench txonly on nica in the
# background (pid SPID), until stop_sender.
start_sender() {
	local name=$1 m=$2
	shift 2
	"$XSKB" txonly -m "$m" -i $NICA -D $MAC_B -d 100000 "$@" \
		> "$LOGS/$name.tx.log" 2>&1 &
	SPID=$!
	wait_ready "$LOGS/$name.tx.log" || echo "stress: $name: sender not ready"
}

# stop_sender NAME: SIGTERM, at most 30 s to exit; then its completions.
stop_sender() {
	local name=$1 s n=0
	kill -TERM $SPID 2>/dev/null
	while kill -0 $SPID 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if kill -0 $SPID 2>/dev/null; then
		echo "stress: $name: the sender did not exit 30 s after SIGTERM"
		dump "$name.sender-stuck" all
		kill -KILL $SPID 2>/dev/null
		FAILED=1
	fi
	wait $SPID 2>/dev/null
	s=$(summary_of "$LOGS/$name.tx.log")
	S_TX=$(field tx "$s")
	S_DONE=$(field tx_completed "$s")
	S_OUT=$(field tx_outstanding "$s")
	if [ -z "$s" ] || [ "$(field status "$s")" != ok ]; then
		echo "stress: $name: sender failed: ${s:-no summary}"
		FAILED=1
	elif [ "$S_OUT" != 0 ] || [ "$S_TX" != "$S_DONE" ]; then
		echo "stress: $name: sender lost completions: tx=$S_TX tx_completed=$S_DONE outstanding=$S_OUT"
		FAILED=1
	fi
}

# stall_dump NAME: xsk-cycle's -F command at an rx stall, run in nicb's
# namespace while the stalled socket is still bound: nicb's and nica's
# counters twice, a second apart (do they move?), then nicb's registers,
# to results/stress/NAME.stallN.dump; last, on igb, every interrupt
# cause of nicb raised by hand.
stall_dump() {
	local d=$LOGS/$1.stall$XSK_CYCLE_STALL.dump i
	{
		for i in 1 2; do
			echo "== sample $i, uptime $(cat /proc/uptime)"
			grep -E "$NICB|CPU" /proc/interrupts
			ethtool -S $NICB
			echo "== $NICA"
			nsenter -t 1 -n ethtool -S $NICA | grep -E 'tx_(packets|queue_0)|restart|busy'
			sleep 1
		done
		echo "== ip -s link"; ip -s -d link show $NICB
		echo "== ethtool -d"; ethtool -d $NICB
		# EICS: every MSI-X vector's cause, as 6.12's igb watchdog
		# raised them every 2 s; xsk-cycle then checks again
		[ "${XSKZC_NIC:-igb}" = igb ] || return 0
		echo "== EICS"
		python3 -c 'import mmap, struct, sys
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0x2000)
m[0x1520:0x1524] = struct.pack("<I", 0x3ff)
print("EICS written")' /sys/class/net/$NICB/device/resource0
	} > "$d" 2>&1
}

# --- cycles --------------------------------------------------------------

TOT_C=0 TOT_RX=0 TOT_TX=0 TOT_DONE=0 TOT_LOST=0 TOT_FAILS=0 TOT_SECS=0
PEER_LOST=0

# phase NAME SENDER_MODE CYCLES
phase() {
	local name=$1 m=$2 n=$3 s rc tmo
	[ "$n" -gt 0 ] || return 0
	start_sender "$name" "$m" -r "$RATE" -Q
	# generous: a debug kernel under TCG does a few cycles a second
	tmo=$((120 + n * ${STRESS_SECS_PER_CYCLE:-2}))
	ip netns exec $NSB timeout -s KILL $tmo "$CYCLE" -i $NICB -c "$n" -L \
		-F "'$0' stall-dump $name" > "$LOGS/$name.cycle.log" 2>&1
	rc=$?
	grep -E '^(fail|error|stall)' "$LOGS/$name.cycle.log" | head -12 | sed "s/^/stress: $name: /"
	if [ $rc -eq 137 ]; then
		echo "stress: $name: xsk-cycle did not finish within $tmo s"
		dump "$name.cycle-stuck" all
		FAILED=1
	fi
	stop_sender "$name"
	s=$(summary_of "$LOGS/$name.cycle.log")
	if [ -z "$s" ]; then
		echo "stress: $name: xsk-cycle: no summary (rc $rc)"
		FAILED=1
		return
	fi
	[ "$(field status "$s")" = ok ] || FAILED=1
	echo "stress: $name ($m sender): cycles=$(field cycles "$s") in $(field seconds "$s") s ($(field cycles_per_s "$s")/s) rx=$(field rx "$s") tx=$(field tx "$s") completed=$(field tx_completed "$s") lost=$(field lost_completions "$s") fails=$(field fails "$s") rx_stalls=$(field rx_stalls "$s") bind_errors=$(field bind_errors "$s") busy_retries=$(field bind_busy_retries "$s") ifdown=$(field ifdown "$s") (rx resumed $(field ifdown_rx_resumed "$s")) xdp_off=$(field xdp_off "$s") inflight=$(field unbind_tx_inflight "$s") rxfull=$(field unbind_rx_full "$s"); sender tx=$S_TX completed=$S_DONE"
	TOT_C=$((TOT_C + $(field cycles "$s")))
	TOT_RX=$((TOT_RX + $(field rx "$s")))
	TOT_TX=$((TOT_TX + $(field tx "$s")))
	TOT_DONE=$((TOT_DONE + $(field tx_completed "$s")))
	TOT_LOST=$((TOT_LOST + $(field lost_completions "$s")))
	TOT_FAILS=$((TOT_FAILS + $(field fails "$s")))
	TOT_SECS=$(echo "$TOT_SECS + $(field seconds "$s")" | bc 2>/dev/null || echo "$TOT_SECS")
	PEER_LOST=$((PEER_LOST + ${S_TX:-0} - ${S_DONE:-0}))
}

run_cycles() {
	local n=${1:-1000} a
	a=$((n * 7 / 10))
	echo "stress: $n zero-copy bind/unbind cycles on $NICB, $(nproc) CPUs, kernel $(uname -r); sender $RATE pps"
	phase copy copy $a
	phase skb skb $((n - a))
	rate=$(echo "scale=2; $TOT_C / $TOT_SECS" | bc 2>/dev/null)
	echo "stress: cycles=$TOT_C seconds=$TOT_SECS cycles_per_s=${rate:-?} frames_rx=$TOT_RX frames_tx=$TOT_TX tx_completed=$TOT_DONE lost_completions=$TOT_LOST peer_lost_completions=$PEER_LOST fails=$TOT_FAILS"
	[ "$TOT_C" -ge "$n" ] || { echo "stress: only $TOT_C of $n cycles"; FAILED=1; }
	[ "$TOT_LOST" -eq 0 ] && [ "$PEER_LOST" -eq 0 ] && [ "$TOT_FAILS" -eq 0 ] || FAILED=1
}

# --- txhang --------------------------------------------------------------

# hang_seen: igb's TX hang message (or the stack's watchdog, or the
# reset either leads to) since HANG_MARK, the start or the last hang
# seen: which socket to dump for. The splats of the whole job are
# kcheck_splats' (kcheck.sh's list), from the job's start.
HANG_MARK=0
hang_seen() {
	dmesg | tail -n +$((HANG_MARK + 1)) |
		grep -q -E 'Detected Tx Unit Hang|NETDEV WATCHDOG|Reset adapter'
}

# sender_stalled NAME: the sender's last 5 interval lines all show 0 pps.
sender_stalled() {
	local l
	l=$(grep '^t=' "$LOGS/$1.tx.log" | tail -n 5)
	[ "$(echo "$l" | grep -c .)" -ge 5 ] || return 1
	! echo "$l" | grep -v -q 'tx_pps=0 '
}

# sample TAG: nica's vectors and TX counters, nicb's RX ones, to
# results/stress/txhang-samples.txt.
sample() {
	{
		echo "== $1 at $(cut -d' ' -f1 /proc/uptime)"
		grep -E "$NICA|CPU" /proc/interrupts
		ethtool -S $NICA | grep -E 'tx_queue_0_(packets|restart)|tx_timeout|tx_restart|tx_busy|tx_queue_0_bytes'
		onB grep -E "$NICB|CPU" /proc/interrupts
		onB ethtool -S $NICB | grep -E 'rx_queue_0_packets|rx_no_buffer|rx_missed'
	} >> "$LOGS/txhang-samples.txt" 2>&1
}

run_txhang() {
	local rounds=${1:-5} secs=${2:-20} ring=${3:-} r v args rc t0 hangs=0 stalls=0 stuck=0 frames=0
	# The TX ring of nica: lib.sh's 4096, or as asked (igb's default 256).
	[ -z "$ring" ] || ethtool -G $NICA tx "$ring" ||
		echo "stress: txhang: cannot set $NICA's TX ring to $ring"
	echo "stress: txhang: $rounds rounds; copy-mode 64 B txonly on $NICA (native XDP, queue 0, unpaced, TX ring $(ethtool -g $NICA | grep -A4 Current | sed -n 's/^TX:[[:space:]]*//p')); on $NICB ZC rxdrop with need_wakeup, without, with poll(), $secs s each; kernel $(uname -r)"
	r=1
	while [ $r -le "$rounds" ]; do
		start_sender "hang$r" copy -s 64 -I 1
		for v in wakeup nowakeup poll; do
			case $v in
			wakeup) args= ;;
			nowakeup) args=-N ;;
			poll) args=-p ;;
			esac
			t0=$(now)
			# shellcheck disable=SC2086
			ip netns exec $NSB timeout -s KILL $((secs + 40)) "$XSKB" rxdrop \
				-m zc -i $NICB -d "$secs" $args -I 1 \
				> "$LOGS/hang$r.$v.rx.log" 2>&1
			rc=$?
			sample "round $r $v"
			s=$(summary_of "$LOGS/hang$r.$v.rx.log")
			echo "stress: txhang round $r $v: rx=$(field rx "$s") rx_pps=$(field rx_pps "$s") zerocopy=$(field zerocopy "$s") ($(( $(now) - t0 )) s, rc $rc); sender at $(grep '^t=' "$LOGS/hang$r.tx.log" | tail -n 1)"
			frames=$((frames + $(field rx "$s" | sed 's/^$/0/')))
			if [ $rc -eq 137 ]; then
				echo "stress: txhang round $r $v: rxdrop did not exit"
				stuck=$((stuck + 1))
				dump "hang$r.$v.rx-stuck" all
				FAILED=1
			fi
			if hang_seen; then
				echo "stress: txhang round $r $v: TX hang reported:"
				dmesg | tail -n +$((HANG_MARK + 1)) |
					grep -A12 -E 'Detected Tx Unit Hang|NETDEV WATCHDOG' | head -30
				hangs=$((hangs + 1))
				dump "hang$r.$v.txhang" all
				HANG_MARK=$(dmesg | wc -l)
				FAILED=1
			elif sender_stalled "hang$r"; then
				echo "stress: txhang round $r $v: the sender has sent nothing for 5 s"
				stalls=$((stalls + 1))
				dump "hang$r.$v.stall"
				FAILED=1
			fi
		done
		stop_sender "hang$r"
		echo "stress: txhang round $r: sender tx=$S_TX completed=$S_DONE outstanding=$S_OUT"
		frames=$((frames + ${S_TX:-0}))
		r=$((r + 1))
	done
	echo "stress: txhang: rounds=$rounds tx_hangs=$hangs sender_stalls=$stalls stuck=$stuck frames=$frames"
}

# --- main ----------------------------------------------------------------

if [ "$MODE" = stall-dump ]; then
	stall_dump "$2"
	exit 0
fi

setup || { echo "stress: setup failed"; echo "stress: FAILED"; exit 1; }
kcheck_init || FAILED=1
kcheck_boot_leaks stress || FAILED=1
kcheck_mark
HANG_MARK=$KCHECK_MARK
t_start=$(now)
case "$MODE" in
cycles) RATE=${3:-$RATE}; run_cycles "${2:-1000}" ;;
txhang) run_txhang "${2:-5}" "${3:-20}" "${4:-}" ;;
*) echo "stress: unknown mode $MODE"; exit 2 ;;
esac
kcheck_splats stress
kcheck_kmemleak stress || FAILED=1
[ "$SPLATS" -eq 0 ] && [ "$LEAKS" -eq 0 ] || FAILED=1
echo "stress: splats=$SPLATS kmemleak=$LEAKS runtime=$(( $(now) - t_start ))s"
[ "$SPLATS" -eq 0 ] || head -n 5 "$RESULTS/splats-stress.txt" | sed 's/^/stress: splat: /'
[ "$LEAKS" -eq 0 ] || grep -A12 -m 2 '^unreferenced object' "$RESULTS/kmemleak-stress.txt" | sed 's/^/stress: kmemleak: /'
if [ $FAILED -eq 0 ]; then
	echo "stress: OK"
else
	echo "stress: FAILED"
fi
exit $FAILED
