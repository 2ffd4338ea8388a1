#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/xskxceiver.sh [MODE...] - the kernel's AF_XDP conformance
# suite (xskxceiver of the staged tree, build/xskxceiver) on nica -> nicb;
# "tools/guest/run.sh xskxceiver 1500 [MODE,...]" runs it. MODE: skb, drv,
# zc, zc-bp (zc with busy poll, set up as the tree's test_xsk.sh does);
# default: all four. ~MODE runs MODE but only reports its failures (NOTE
# lines) instead of failing the job, for a mode under investigation;
# "make e2e" gates drv, zc and zc-bp.
#
# Both NICs stay in the root namespace, as the suite wants; nica sends,
# nicb receives (the suite swaps them in BIDIRECTIONAL). The MTU starts at
# 1500, the suite sets 1518 itself. 64 huge pages of 2 MB back the
# unaligned-UMEM tests.
#
# Harness, named here and in the log: one queue per NIC and RX rings of
# 1024 descriptors (setup() says why); both NICs are promiscuous (the
# suite's frames carry made-up MAC addresses, which veth, the suite's
# usual pair, never filters); the suite and the NICs' interrupts are on
# CPU 0 (pin_to_cpu0() says why); and the suite runs under
# build/xskxceiver/carrier-wait.so (tools/xskxceiver/carrier-wait.c),
# which waits for the carrier after each XDP attach, MTU or ring change
# that reset igb's link; the waits are counted in the log ("harness:").
#
# One suite run per mode, its TAP output in results/xskxceiver/MODE.tap.
# Then, per mode, the verdict of each test against
# tools/xskxceiver/expected-failures (the reviewed list of explained
# failures): a "not ok" that is not listed fails, and so does a failure in
# zc or zc-bp that drv does not have too, listed or not, unless its entry
# is a timing one (reason "timing ..."), which is reported, or drv skips
# the test (multi-buffer), when only the entry stands. A failure that
# is not listed gets one more run, of that test alone: if it passes
# there, it is reported as FLAKY (TCG's timing: the suite's receive loop
# has 3 s, THREAD_TMOUT) and does not fail the job; if it fails again, it
# fails the job, except when all it failed on there is a gap in the
# frames received and the hardware counters of that run show the frames
# never reached a ring: the NICs sent more frames (GPTC) than they wrote
# into RX rings (GPRC), and no zero-copy ring dropped one. That is
# reported as LOST, not failed: QEMU dropped them (see RX_RING for how
# and why that should no longer happen). A listed failure that passes
# is reported (INFO), so the list stays short. A TABLE line per mode, then
# "xskxceiver: N passed, N failed, N skipped, N flaky, N lost on the wire".

. "$XSKZC_REPO/tools/guest/lib.sh"
. "$XSKZC_REPO/tools/guest/kcheck.sh"

XSKX_DIR=$XSKZC_REPO/build/xskxceiver
XSKX=$XSKX_DIR/xskxceiver
SHIM=$XSKX_DIR/carrier-wait.so
EXPECTED=$XSKZC_REPO/tools/xskxceiver/expected-failures
LOGS=$RESULTS/xskxceiver
# A mode's run is cut after this many seconds (a hung test).
MODE_TIMEOUT=${XSKX_MODE_TIMEOUT:-600}
XSKX_PIN=()
HUGEPAGES=64
# RX_RING: the RX ring size of both NICs, at least the receiver's UMEM
# (DEFAULT_UMEM_BUFFERS, 1024 frames, xskxceiver.h:51). Under TCG the
# wire is faster than the receiving NAPI, and QEMU 10.0.2 drops a backlog
# its igb model cannot take: while the ring has no free descriptor the
# model refuses frames (igb_can_receive(), hw/net/igb_core.c:959) and
# the hub queues them; the driver's next tail write flushes that queue
# (igb_start_recv()) and the flush hands every queued frame to the model
# without asking it again (qemu_net_queue_flush(), net/queue.c:262),
# which writes as many as the free descriptors take and drops the rest
# (ICR.RXO, igb_core.c:2077, no counter). The suite's own flow control
# keeps at most 960 + one batch = 1023 frames in flight until the
# receiver has handed their buffers back to its fill ring
# (xskxceiver.c:1234,1309), so the frames queued in QEMU or on the ring
# not yet cleaned are always fewer than the receiver's buffers that are
# posted or in the fill ring: a ring that can post all of them never
# drops. igb's default of 256 posts 255; in zero-copy mode, whose TX is
# fast enough to build a backlog, zc lost 829 frames in a run with 256
# (317 RXO drops in QEMU's trace, gaps in UMEM_HEADROOM and TEARDOWN);
# with 1024, two runs had no RXO drop and no test a gap (their "wire"
# lines still count 512 frames in zc and zc-bp that the model dropped
# some other way, outside any test's stream). drv loses none with either.
RX_RING=1024
mkdir -p "$LOGS"

PASS=0
FAIL=0
SKIP=0
FLAKY=0
LOST=0
pass() { PASS=$((PASS + 1)); echo "PASS $*"; }
fail() {
	case " $REPORT_ONLY " in
	*" ${1%% *} "*) NOTED=$((NOTED + 1)); echo "NOTE $*" ;;
	*) FAIL=$((FAIL + 1)); echo "FAIL $*" ;;
	esac
}
skip() { SKIP=$((SKIP + 1)); echo "SKIP $*"; }
flaky() { FLAKY=$((FLAKY + 1)); echo "FLAKY $*"; }
lost() { LOST=$((LOST + 1)); echo "LOST $*"; }
info() { echo "INFO $*"; }

# A MODE written ~MODE runs and is reported, its failures as NOTE lines,
# but does not fail the job.
modes=()
REPORT_ONLY=
NOTED=0
for a in "${@:-skb drv zc zc-bp}"; do
	for m in $a; do
		case $m in
		'~'*) m=${m#\~}; REPORT_ONLY="$REPORT_ONLY $m" ;;
		esac
		modes+=("$m")
	done
done

setup() {
	local a b
	a=$(ifname_of_mac $MAC_A)
	b=$(ifname_of_mac $MAC_B)
	[ -n "$a" ] && [ -n "$b" ] || { echo "setup: the two igb NICs are missing"; return 1; }
	ip link set lo up
	ip link set "$a" name $NICA && ip link set "$b" name $NICB || return 1
	# One queue per NIC: QEMU's igb model takes a frame in as long as
	# any RX queue has a buffer and drops it if its own queue has none
	# (hw/net/igb_core.c:959,2077, igb_can_receive()). With one queue
	# it refuses the frame until the driver posts a buffer, and QEMU
	# holds it (but see RX_RING). The suite posts its fill ring
	# after the bind and wakes the kernel only in its receive loop,
	# after the sender may have started: with two queues, the first
	# frames of a zc test are lost whenever the ring is empty.
	ethtool -L $NICA combined 1 && ethtool -L $NICB combined 1 || return 1
	info "harness: one queue per NIC (ethtool -L combined 1)"
	# The suite restores these after its ring-size tests (xskxceiver.c:469).
	ethtool -G $NICA rx $RX_RING && ethtool -G $NICB rx $RX_RING || return 1
	info "harness: RX rings of $RX_RING descriptors, the receiver's UMEM (ethtool -G rx $RX_RING)"
	ip link set $NICA up && ip link set $NICB up || return 1
	wait_up $NICA && wait_up $NICB || { echo "setup: link down"; return 1; }
	# The suite's frames carry its own MAC addresses (veth takes them
	# all): the receiving NIC must not filter them out.
	ip link set $NICA promisc on && ip link set $NICB promisc on || return 1
	pin_to_cpu0 || return 1
	echo $HUGEPAGES > /proc/sys/vm/nr_hugepages 2>/dev/null
	info "huge pages: $(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo none) of 2 MB"
	return 0
}

# pin_to_cpu0: the suite and every interrupt of both NICs on CPU 0. A
# wakeup from a task on another CPU than its NAPI's interrupt raises that
# interrupt (igb: EICS), so that NAPI runs on the interrupt's CPU; under
# TCG such a cross-CPU interrupt costs HW_SW_MIN_RING_SIZE, 4096 frames
# of one sendto() wakeup each, about 2 s of the 3 s its receive loop has
# (THREAD_TMOUT), in zc only: drv mode sends inside the syscall. On one
# CPU every mode runs its NAPI where the suite runs.
pin_to_cpu0() {
	local i n=0
	for i in $(awk -F: "/ ($NICA|$NICB)(-|\$)/ { print \$1 + 0 }" /proc/interrupts); do
		echo 0 > /proc/irq/$i/smp_affinity_list || return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ] || { echo "setup: no interrupts of $NICA and $NICB"; return 1; }
	XSKX_PIN=(taskset -c 0)
	info "harness: the suite and the $n interrupts of $NICA and $NICB on CPU 0 (taskset, smp_affinity)"
}

# busy_poll MODE: the per-netdev NAPI settings of test_xsk.sh's busy-poll
# run for zc-bp, the defaults for any other MODE ("off").
busy_poll() {
	local d v=0 t=0
	[ "$1" = zc-bp ] && v=2 t=200000
	for d in $NICA $NICB; do
		echo $v > /sys/class/net/$d/napi_defer_hard_irqs
		echo $t > /sys/class/net/$d/gro_flush_timeout
	done
}

# ethtool_counters REGEX: "NIC:COUNTER VALUE" for the ethtool -S
# counters of both NICs whose names match REGEX (an ERE group).
ethtool_counters() {
	local d
	for d in $NICA $NICB; do
		ethtool -S $d 2>/dev/null |
			sed -n -E "s/^ *($1): ([0-9]+)/$d:\1 \2/p"
	done
}

# nic_counters: the drop counters of both NICs: the hardware's (no
# buffer, missed, per-queue drops) and the zero-copy ring's (rx_xsk_*:
# dropped by the program, the socket or the stack, error descriptors,
# short fill-ring polls).
nic_counters() {
	ethtool_counters 'rx_missed_errors|rx_no_buffer_count|rx_fifo_errors|rx_queue_[0-9]+_drops|rx_xsk_[a-z_]+'
}

# suite MODE OUT ARGS...: one run of the suite in MODE, TAP in OUT.tap
# and stderr (with the harness's lines) in OUT.err.
suite() {
	local m=$1 out=$2 args=() rc
	shift 2
	case $m in
	skb | drv | zc) args=(-m "$m") ;;
	zc-bp) args=(-m zc -b) ;;
	esac
	LD_PRELOAD=$SHIM timeout -k 5 "$MODE_TIMEOUT" "${XSKX_PIN[@]}" \
		"$XSKX" -i $NICA -i $NICB "${args[@]}" "$@" \
		> "$out.tap" 2> "$out.err"
	rc=$?
	[ $rc -eq 124 ] && echo "not ok 0 timeout: still running after $MODE_TIMEOUT s" >> "$out.tap"
	# No program may stay attached into the next run (or mode).
	for d in $NICA $NICB; do
		ip link set dev $d xdpgeneric off 2>/dev/null
		ip link set dev $d xdpdrv off 2>/dev/null
	done
	return $rc
}

# tap_lines TAP: the "ok"/"not ok" lines, as "N ok|fail|skip REST".
tap_lines() {
	sed -n -E -e 's/^not ok ([0-9]+) (.*)/\1 fail \2/p' \
		-e 's/^ok ([0-9]+) # SKIP (.*)/\1 skip \2/p' \
		-e 's/^ok ([0-9]+) (.*)/\1 ok \2/p' "$1"
}

# run_mode MODE: the whole suite in one run, as test_xsk.sh does. A test
# that ends the run (the suite exits on a setup error) counts as failed,
# and the tests after it run one per run. MODE.results gets one line per
# test: "INDEX NAME ok|fail|skip DETAIL".
run_mode() {
	local m=$1 t0 n i last w0 d
	t0=$(date +%s)
	nic_counters > "$LOGS/$m.counters0"
	w0=$(wire_counters)
	busy_poll "$m"
	ip link set $NICA mtu 1500
	ip link set $NICB mtu 1500
	suite "$m" "$LOGS/$m"
	: > "$LOGS/$m.results"
	tap_lines "$LOGS/$m.tap" > "$LOGS/$m.lines"
	last=0
	while read -r n v rest; do
		[ "$n" -ge 1 ] || { echo "$last ${NAMES[$last]} fail $rest" >> "$LOGS/$m.results"; last=$((last + 1)); continue; }
		i=$((n - 1))
		echo "$i ${NAMES[$i]} $v $rest" >> "$LOGS/$m.results"
		last=$n
	done < "$LOGS/$m.lines"
	if [ "$last" -lt ${#NAMES[@]} ]; then
		info "$m: the run ended after test $last of ${#NAMES[@]}; the rest one per run"
		for ((i = last; i < ${#NAMES[@]}; i++)); do
			suite "$m" "$LOGS/$m-$i" -t $i
			cat "$LOGS/$m-$i.err" >> "$LOGS/$m.err"
			tap_lines "$LOGS/$m-$i.tap" | head -n 1 |
				while read -r n v rest; do echo "$i ${NAMES[$i]} $v $rest"; done \
				>> "$LOGS/$m.results"
			grep -q "^$i " "$LOGS/$m.results" ||
				echo "$i ${NAMES[$i]} fail no result: $(tail -n 1 "$LOGS/$m-$i.tap")" >> "$LOGS/$m.results"
		done
	fi
	info "$m: $(($(date +%s) - t0)) s"
	# what the mode's runs lost before any ring, to set a FLAKY gap against
	d=$(wire_delta "$w0" "$(wire_counters)")
	info "$m: wire: ${d% *} frames sent and never received by a NIC"
	nic_counters > "$LOGS/$m.counters1"
	info "$m: NIC counters: $(awk 'NR == FNR { a[$1] = $2; next }
		$2 != a[$1] { printf "%s +%d ", $1, $2 - a[$1] }' \
		"$LOGS/$m.counters0" "$LOGS/$m.counters1")"
	grep -h -E '^# (ERROR|\[)' "$LOGS/$m.tap" "$LOGS/$m"-*.tap 2>/dev/null |
		sort | uniq -c | sed "s/^/INFO $m: suite: /"
	grep '^carrier-wait' "$LOGS/$m.err" | sed -E 's/after [0-9]+ ms/after ... ms/' |
		sort | uniq -c | sed "s/^/INFO $m: harness: /"
	busy_poll off
}

# wire_counters: the hardware's frame counters of both NICs (GPTC and
# GPRC: frames the NIC sent, frames it wrote into an RX ring) and the
# zero-copy rings' drops, as "NAME VALUE".
wire_counters() {
	ethtool_counters 'tx_packets|rx_packets|rx_xsk_drop|rx_xsk_errors' |
		awk '{ sub(/^[^:]*:/, "", $1); a[$1] += $2 }
		     END { for (k in a) print k, a[k] }'
}

# wire_delta BEFORE AFTER: "LOST DROPS" between two wire_counters
# readings: the frames both NICs sent and neither wrote into a ring, and
# what the zero-copy rings dropped.
wire_delta() {
	printf '%s\n%s\n' "$1" "$2" | awk '
		{ if ($1 in a) d[$1] = $2 - a[$1]; else a[$1] = $2 }
		END { print d["tx_packets"] - d["rx_packets"],
			d["rx_xsk_drop"] + d["rx_xsk_errors"] }'
}

# rerun_passes MODE INDEX: run the test once more, on its own (not for
# a mode that is only reported: that would take time and change nothing).
# WIRE_LOST gets the frames both NICs sent and neither wrote into a ring
# in that run, DRV_DROPS what the zero-copy rings dropped.
rerun_passes() {
	local c0 c1 d
	WIRE_LOST=0 DRV_DROPS=0 RING_IN=0
	case " $REPORT_ONLY " in *" $1 "*) return 1 ;; esac
	busy_poll "$1"
	c0=$(wire_counters)
	suite "$1" "$LOGS/$1-rerun-$2" -t "$2"
	c1=$(wire_counters)
	busy_poll off
	d=$(wire_delta "$c0" "$c1")
	WIRE_LOST=${d% *} DRV_DROPS=${d#* }
	RING_IN=$(printf '%s\n%s\n' "$c0" "$c1" |
		awk '$1 == "rx_packets" { if (n++) print $2 - v; else v = $2 }')
	grep -q '^ok 1 PASS' "$LOGS/$1-rerun-$2.tap"
}

# lost_frames TAP: how the one test of TAP failed, if all it failed on
# is frames that did not come: "A B" for a gap (the suite expected
# frame A and got B > A), "timeout" for a receive loop that timed out
# waiting; nothing, and false, for any other failure.
lost_frames() {
	local t=$1
	if grep -E '^# .*(ERROR|incorrect|Too many)' "$t" |
		grep -q -v 'ERROR: \[receive_pkts\] Receive loop timed out'; then
		return 1
	fi
	sed -n -E 's/^# \[is_frag_valid\] expected pkt_nb \[([0-9]+)\], got pkt_nb \[([0-9]+)\].*/\1 \2/p' "$t" |
		awk '$2 > $1 { print; found = 1 } END { exit !found }' && return 0
	grep -q 'ERROR: \[receive_pkts\] Receive loop timed out' "$t" && echo timeout
}

# wire_loss MODE INDEX TEST: true if the test's run on its own lost frames
# that the receiving NIC never wrote into its ring: the NICs counted
# frames out (GPTC) and never in (GPRC), at least as many as the gap
# the suite saw (one, for a receive loop that timed out waiting), and
# no zero-copy ring dropped anything. TEST's own program may drop: the
# rings' drop counter counts its XDP_DROP verdicts too, and
# XDP_DROP_HALF's (xsk_xdp_drop) drops every other frame that reaches the
# ring (RING_IN): that many are the program's, not the driver's.
wire_loss() {
	local gap need=1 allowed=0
	[ "$3" != XDP_DROP_HALF ] || allowed=$(((${RING_IN:-0} + 1) / 2))
	[ -f "$LOGS/$1-rerun-$2.tap" ] || return 1	# not rerun
	gap=$(lost_frames "$LOGS/$1-rerun-$2.tap") || return 1
	case $gap in
	timeout) LOSS_DETAIL="the receive loop timed out" ;;
	*)	LOSS_DETAIL="expected frame ${gap% *}, got ${gap#* }"
		need=$((${gap#* } - ${gap% *})) ;;
	esac
	LOSS_DETAIL="$LOSS_DETAIL; on its own: $WIRE_LOST frames sent and never received by the NIC, $DRV_DROPS dropped by the driver"
	[ "$allowed" -eq 0 ] ||
		LOSS_DETAIL="$LOSS_DETAIL (of $RING_IN into the ring, up to $allowed dropped by the program)"
	[ "$WIRE_LOST" -ge "$need" ] && [ "$DRV_DROPS" -le "$allowed" ]
}

expected() {	# expected MODE TEST: the list's reason, or nothing
	[ -f "$EXPECTED" ] || return 0
	awk -v m="$1" -v t="$2" '$2 == t && index("," $1 ",", "," m ",") {
		$1 = $2 = ""; sub(/^ +/, ""); print }' \
		"$EXPECTED"
}

verdicts() {
	local m=$1 i name v detail reason
	while read -r i name v detail; do
		reason=$(expected "$m" "$name")
		LOSS_DETAIL=
		case $v in
		ok) pass "$m $name" ;;
		skip) skip "$m $name: $detail" ;;
		fail)
			if [ -n "$reason" ]; then
				info "$m $name: expected failure: $reason"
			elif rerun_passes "$m" "$i"; then
				flaky "$m $name: failed in the suite's run ($detail), passed on its own"
				continue
			elif wire_loss "$m" "$i" "$name"; then
				lost "$m $name: frames lost in QEMU before the driver ($LOSS_DETAIL)"
				continue
			elif [ ! -f "$LOGS/$m-rerun-$i.tap" ]; then
				fail "$m $name: $detail (not on tools/xskxceiver/expected-failures; a reported mode, not run again)"
			else
				fail "$m $name: $detail (not on tools/xskxceiver/expected-failures; failed on its own too${LOSS_DETAIL:+: $LOSS_DETAIL})"
			fi
			case $m in zc | zc-bp)
				if grep -q -E "^[0-9]+ $name fail" "$LOGS/drv.results" 2>/dev/null; then
					:
				elif [ -n "$reason" ] &&
				     grep -q -E "^[0-9]+ $name skip" "$LOGS/drv.results" 2>/dev/null; then
					info "$m $name: drv skips it: only the list's entry stands for it"
				elif [ -z "$reason" ]; then
					# failed on its own too: counted above
					info "$m $name: fails in $m but not in drv"
				elif rerun_passes "$m" "$i"; then
					flaky "$m $name: failed in the suite's run, not in drv's, passed on its own"
				elif wire_loss "$m" "$i" "$name"; then
					lost "$m $name: fails in $m but not in drv: frames lost in QEMU before the driver ($LOSS_DETAIL)"
				elif [ "${reason#timing}" != "$reason" ]; then
					info "$m $name: fails in $m but not in drv; listed as timing, not gated (see the list)${LOSS_DETAIL:+; $LOSS_DETAIL}"
				else
					fail "$m $name: fails in $m but not in drv${LOSS_DETAIL:+ ($LOSS_DETAIL)}"
				fi
			esac ;;
		esac
		if [ $v != fail ] && [ -n "$reason" ]; then
			info "$m $name: on the expected-failure list but did not fail"
		fi
	done < "$LOGS/$m.results"
}

[ -x "$XSKX" ] && [ -f "$SHIM" ] || { echo "xskxceiver: not built (make xskxceiver)"; exit 1; }
setup || exit 1
"$XSKX" -l | sed -n -E 's/^[0-9]+: //p' > "$LOGS/tests.txt"
mapfile -t NAMES < "$LOGS/tests.txt"
[ ${#NAMES[@]} -gt 0 ] || { echo "xskxceiver: -l lists no tests"; exit 1; }
kcheck_mark
for m in "${modes[@]}"; do
	run_mode "$m"
done
for m in "${modes[@]}"; do
	verdicts "$m"
done
for m in "${modes[@]}"; do
	echo "TABLE $m: $(grep -c ' ok ' "$LOGS/$m.results") ok," \
		"$(grep -c ' fail ' "$LOGS/$m.results") not ok," \
		"$(grep -c ' skip ' "$LOGS/$m.results") skipped"
done
kcheck_splats xskxceiver
[ "${SPLATS:-0}" -eq 0 ] || fail "dmesg: $SPLATS kernel splats"
[ -z "$REPORT_ONLY" ] || echo "xskxceiver: reported, not gated:$REPORT_ONLY ($NOTED NOTE lines)"
echo "xskxceiver: $PASS passed, $FAIL failed, $SKIP skipped, $FLAKY flaky, $LOST lost on the wire"
[ $FAIL -eq 0 ]
