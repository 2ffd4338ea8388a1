#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/xskxceiver.sh [MODE|TEST...] - the kernel's AF_XDP
# conformance suite (xskxceiver of the staged tree, build/xskxceiver) on
# nica -> nicb; "tools/guest/run.sh xskxceiver 1500 [MODE,...][,TEST,...]"
# runs it. MODE: skb, drv, zc, zc-bp (zc with busy poll, set up as the
# tree's test_xsk.sh does); default: all four. ~MODE runs MODE but only
# reports its failures (NOTE lines) instead of failing the job, for a mode
# under investigation; "make e2e" gates drv, zc and zc-bp. TEST: a test
# name of the suite ("xskxceiver -l"); with any, only those run, each on
# its own (-t), in every mode; default: the whole suite in one run per
# mode ("make e2e XSKX_TESTS=A,B" passes them).
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
# Each run of the suite, its TAP output in results/xskxceiver/, must be
# whole, or the mode fails: a TAP plan, as many results as planned, and
# an exit status that they explain (0: all ok or skipped; 1: some "not
# ok"; 2: the suite exited on a setup error, after a "not ok" that says
# so; the tests after it then run one per run). A run cut by the time
# limit or a signal, or with any other exit, fails. Then, per mode, the
# verdict of each test against tools/xskxceiver/expected-failures (the
# reviewed list of explained failures, each with the text its failure
# prints): a "not ok" that is not listed fails, and so does a listed one
# whose output lacks its entry's text. A zc or zc-bp failure fails unless
# drv fails the same test too, listed or not, or drv skips it
# (multi-buffer: igb's page mode has none): then the same test must fail
# the same way on veth, the suite's own pair, in drv mode in this guest
# (no igb code on that path; veth from build/xskx-veth, "make
# xskxceiver-veth"), and veth passing it fails the job; an entry whose
# reason starts with "nic:" (zc and zc-bp only) is a limit of the NIC's
# hardware that no software pair has, and its evidence must say which
# register or descriptor field sets it. Only a drv
# failure whose entry's reason is "timing" runs again, on its own: if it
# passes there it is FLAKY (and results/no-reuse keeps the run from
# being reused by run.sh's cache), if not it fails. The NICs' drop
# counters over a failing test's run (rx_no_buffer_count,
# rx_missed_errors, ...) are printed with it, as diagnostics only. A
# listed failure that passes is reported (INFO), so the list stays
# short. A TABLE line per mode, then
# "xskxceiver: N passed, N failed, N skipped, N flaky".

. "$XSKZC_REPO/tools/guest/lib.sh"
. "$XSKZC_REPO/tools/guest/kcheck.sh"

XSKX_DIR=$XSKZC_REPO/build/xskxceiver
XSKX=$XSKX_DIR/xskxceiver
SHIM=$XSKX_DIR/carrier-wait.so
EXPECTED=$XSKZC_REPO/tools/xskxceiver/expected-failures
LOGS=$RESULTS/xskxceiver
# A run of the suite is cut after this many seconds (a hung test), and
# fails.
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
# with 1024, two runs had no RXO drop and no test a gap. drv loses none
# with either. A frame lost anyway is a gap in the test's stream, and
# the test fails: the drop counters printed with it tell where.
RX_RING=1024
# veth, the suite's own pair, for the entries that drv on igb cannot
# confirm (veth_confirms()): the guest kernel has no CONFIG_VETH, so
# the tree's veth.c is built as a module of it ("make xskxceiver-veth").
VETH_KO=$XSKZC_REPO/build/xskx-veth/veth.ko
VETH_A=xskv0
VETH_B=xskv1
mkdir -p "$LOGS"

PASS=0
FAIL=0
SKIP=0
FLAKY=0
pass() { PASS=$((PASS + 1)); echo "PASS $*"; }
fail() {
	case " $REPORT_ONLY " in
	*" ${1%% *} "*) NOTED=$((NOTED + 1)); echo "NOTE $*" ;;
	*) FAIL=$((FAIL + 1)); echo "FAIL $*" ;;
	esac
}
skip() { SKIP=$((SKIP + 1)); echo "SKIP $*"; }
# A FLAKY result is not a failure, but no cache may stand for it: the
# next run must show it again (run.sh does not keep a result with
# results/no-reuse).
flaky() {
	FLAKY=$((FLAKY + 1))
	echo "FLAKY $*"
	echo "FLAKY $*" >> "$RESULTS/no-reuse"
}
info() { echo "INFO $*"; }

# A MODE written ~MODE runs and is reported, its failures as NOTE lines,
# but does not fail the job. An upper-case word is a test name.
modes=()
tests=()
REPORT_ONLY=
NOTED=0
for a in "${@:-skb drv zc zc-bp}"; do
	for m in $a; do
		case $m in
		'~'*) m=${m#\~}; REPORT_ONLY="$REPORT_ONLY $m" ;;
		*[A-Z]*) tests+=("$m"); continue ;;
		esac
		case $m in
		skb | drv | zc | zc-bp) modes+=("$m") ;;
		*) echo "xskxceiver: no mode $m (skb, drv, zc, zc-bp)"; exit 1 ;;
		esac
	done
done
[ ${#modes[@]} -gt 0 ] || modes=(skb drv zc zc-bp)

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

# counters_delta BEFORE AFTER: the counters that changed, "NAME +N ...".
counters_delta() {
	awk 'NR == FNR { a[$1] = $2; next }
		$2 != a[$1] { printf "%s +%d ", $1, $2 - a[$1] }' "$1" "$2"
}

# tap_check TAP RC SECONDS: whether one run of the suite, which took
# SECONDS, is whole: it printed its
# plan ("1..N") and as many results, and its exit status is what they
# explain (kselftest.h: 0 all passed, 1 some failed; 2 is
# exit_with_error(), which prints a "not ok ... ERROR: ..." and exits on
# the spot, so the results may be fewer). If not, why, on stdout.
tap_check() {
	local tap=$1 rc=$2 plan n nok last
	if [ "$rc" -eq 124 ] || { [ "$rc" -gt 128 ] && [ "$3" -ge "$MODE_TIMEOUT" ]; }; then
		echo "cut at the time limit, $MODE_TIMEOUT s (exit $rc)"
		return 1
	fi
	[ "$rc" -le 128 ] || { echo "killed by signal $((rc - 128)) after $3 s"; return 1; }
	plan=$(sed -n -E 's/^1\.\.([0-9]+)$/\1/p' "$tap" | head -n 1)
	[ -n "$plan" ] || { echo "exit $rc and no TAP plan"; return 1; }
	n=$(grep -c -E '^(not )?ok [0-9]+ ' "$tap")
	nok=$(grep -c -E '^not ok [0-9]+ ' "$tap")
	last=$(grep -E '^(not )?ok [0-9]+ ' "$tap" | tail -n 1)
	case $rc in
	0) [ "$nok" -eq 0 ] && [ "$n" -eq "$plan" ] ;;
	1) [ "$nok" -gt 0 ] && [ "$n" -eq "$plan" ] ;;
	2) [ "$n" -le "$plan" ] && [ "${last#not ok }" != "$last" ] &&
	   [ "${last#*ERROR: }" != "$last" ] ;;
	*) false ;;
	esac && return 0
	echo "exit $rc with $n of $plan results planned, $nok not ok${last:+, the last: $last}"
	return 1
}

# suite MODE OUT ARGS...: one run of the suite in MODE on IFS_PAIR (nica
# and nicb, unless veth_confirms() sets it), TAP in OUT.tap and stderr
# (with the harness's lines) in OUT.err, the NICs' drop counters over it
# in OUT.counters. A run that is not whole (tap_check) goes into
# runs-bad, "OUT: why", and fails its mode.
IFS_PAIR=()
suite() {
	local m=$1 out=$2 args=() rc why t0 a=${IFS_PAIR[0]:-$NICA} b=${IFS_PAIR[1]:-$NICB} d
	shift 2
	case $m in
	skb | drv | zc) args=(-m "$m") ;;
	zc-bp) args=(-m zc -b) ;;
	esac
	# The suite sets the MTU of a multi-buffer test and leaves it: a run
	# after one would find XDP unsupported (igb's page mode takes no
	# program without frags at 9000) and exit before its plan.
	for d in "$a" "$b"; do
		[ "$(cat /sys/class/net/$d/mtu)" = 1500 ] && continue
		ip link set dev $d mtu 1500 && wait_up $d
	done
	nic_counters > "$out.counters0"
	t0=$(date +%s)
	LD_PRELOAD=$SHIM timeout -k 5 "$MODE_TIMEOUT" "${XSKX_PIN[@]}" \
		"$XSKX" -i "$a" -i "$b" \
		"${args[@]}" "$@" < /dev/null > "$out.tap" 2> "$out.err"
	rc=$?
	echo $rc > "$out.rc"
	nic_counters > "$out.counters1"
	counters_delta "$out.counters0" "$out.counters1" > "$out.counters"
	rm -f "$out.counters0" "$out.counters1"
	why=$(tap_check "$out.tap" $rc $(($(date +%s) - t0))) ||
		echo "${out##*/}: $why" >> "$LOGS/runs-bad"
	# No program may stay attached into the next run (or mode).
	for d in "$a" "$b"; do
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

# split_tap TAP DIR RUN [INDEX]: each test's output, the lines from the
# result before it through its own, in DIR/I (I: the test's index, INDEX
# for a run of one test, else the TAP number - 1), and DIR/I.run the
# name of the run (for its counters). What follows the last result (a
# run cut in a test) goes to DIR/tail.
split_tap() {
	awk -v dir="$2" -v run="$3" -v fixed="${4:--1}" '
		{ buf = buf $0 "\n" }
		/^(not )?ok [0-9]+ / {
			f = dir "/" (fixed >= 0 ? fixed : ($1 == "not" ? $3 : $2) - 1)
			printf "%s", buf > f; close(f)
			print run > (f ".run"); close(f ".run")
			buf = ""
		}
		END { f = dir "/tail"; printf "%s", buf > f; close(f) }' "$1"
}

# one_test MODE INDEX OUT: test INDEX alone, its result line appended to
# MODE.results, its output in MODE.out/INDEX.
one_test() {
	local m=$1 i=$2 out=$3 r
	suite "$m" "$out" -t "$i"
	cat "$out.err" >> "$LOGS/$m.err"
	split_tap "$out.tap" "$LOGS/$m.out" "${out##*/}" "$i"
	r=$(tap_lines "$out.tap" | head -n 1)
	if [ -n "$r" ]; then
		echo "$i ${NAMES[$i]} ${r#* }" >> "$LOGS/$m.results"
	else
		cp "$LOGS/$m.out/tail" "$LOGS/$m.out/$i"
		echo "${out##*/}" > "$LOGS/$m.out/$i.run"
		echo "$i ${NAMES[$i]} fail no result: $(tail -n 1 "$out.tap")" >> "$LOGS/$m.results"
	fi
}

# run_mode MODE: the whole suite in one run, as test_xsk.sh does, or the
# tests asked for one per run. A test that ends the run (the suite exits
# on a setup error) counts as failed, and the tests after it run one per
# run. MODE.results gets one line per test: "INDEX NAME ok|fail|skip
# DETAIL", MODE.out/INDEX its output.
run_mode() {
	local m=$1 t0 n i last v rest rc
	t0=$(date +%s)
	: > "$LOGS/$m.results"
	: > "$LOGS/$m.err"
	rm -rf "$LOGS/$m.out"
	mkdir -p "$LOGS/$m.out"
	nic_counters > "$LOGS/$m.mode-counters0"
	busy_poll "$m"
	ip link set $NICA mtu 1500
	ip link set $NICB mtu 1500
	if [ ${#SELECTED[@]} -gt 0 ]; then
		for i in "${SELECTED[@]}"; do
			one_test "$m" "$i" "$LOGS/$m-$i"
		done
	else
		suite "$m" "$LOGS/$m"
		rc=$?
		split_tap "$LOGS/$m.tap" "$LOGS/$m.out" "$m"
		# (a file: the guest has no /dev/fd for a process substitution)
		tap_lines "$LOGS/$m.tap" > "$LOGS/$m.lines"
		last=0
		while read -r n v rest; do
			i=$((n - 1))
			echo "$i ${NAMES[$i]} $v $rest" >> "$LOGS/$m.results"
			last=$n
		done < "$LOGS/$m.lines"
		# A run cut in a test (timeout: 124, or a signal): that test
		# failed, and is not run again (the run fails too).
		if { [ "$rc" -eq 124 ] || [ "$rc" -gt 128 ]; } &&
		   [ "$last" -lt ${#NAMES[@]} ]; then
			cp "$LOGS/$m.out/tail" "$LOGS/$m.out/$last"
			echo "$m" > "$LOGS/$m.out/$last.run"
			echo "$last ${NAMES[$last]} fail the run was cut in it (exit $rc)" >> "$LOGS/$m.results"
			last=$((last + 1))
		fi
		if [ "$last" -lt ${#NAMES[@]} ]; then
			info "$m: the run ended after test $last of ${#NAMES[@]}; the rest one per run"
			for ((i = last; i < ${#NAMES[@]}; i++)); do
				one_test "$m" "$i" "$LOGS/$m-$i"
			done
		fi
	fi
	info "$m: $(($(date +%s) - t0)) s"
	nic_counters > "$LOGS/$m.mode-counters1"
	info "$m: NIC counters: $(counters_delta "$LOGS/$m.mode-counters0" "$LOGS/$m.mode-counters1")"
	grep -h -E '^# (ERROR|\[)' "$LOGS/$m.tap" "$LOGS/$m"-[0-9]*.tap 2>/dev/null |
		sort | uniq -c | sed "s/^/INFO $m: suite: /"
	grep '^carrier-wait' "$LOGS/$m.err" | sed -E 's/after [0-9]+ ms/after ... ms/' |
		sort | uniq -c | sed "s/^/INFO $m: harness: /"
	busy_poll off
}

# The list: "MODES TEST 'TEXT' reason", TEXT an ERE that the test's
# failure output must match. read_list checks every entry (modes, a
# test the suite has, a TEXT grep takes; "timing" only for drv, the one
# mode that may be FLAKY) and fails the job on a bad one, so that no
# entry is silently ignored; LIST gets the entries as
# "MODES<TAB>TEST<TAB>TEXT<TAB>REASON".
LIST=$LOGS/expected-failures.tsv
read_list() {
	local line modes test text reason bad=0 n=0 md
	local re="^([a-z,-]+) ([A-Z0-9_]+) '([^']+)' (.+)\$"
	: > "$LIST"
	while IFS= read -r line; do
		n=$((n + 1))
		case $line in '' | '#'*) continue ;; esac
		if [[ ! $line =~ $re ]]; then
			echo "xskxceiver: expected-failures:$n: not MODES TEST 'TEXT' reason"
			bad=1; continue
		fi
		modes=${BASH_REMATCH[1]} test=${BASH_REMATCH[2]}
		text=${BASH_REMATCH[3]} reason=${BASH_REMATCH[4]}
		for md in ${modes//,/ }; do
			case $md in skb | drv | zc | zc-bp) ;;
			*) echo "xskxceiver: expected-failures:$n: no mode $md"; bad=1 ;;
			esac
		done
		printf '%s\n' "${NAMES[@]}" | grep -q -x -F -e "$test" ||
			{ echo "xskxceiver: expected-failures:$n: the suite has no test $test"; bad=1; }
		grep -q -E -e "$text" /dev/null; [ $? -le 1 ] ||
			{ echo "xskxceiver: expected-failures:$n: TEXT is no ERE: $text"; bad=1; }
		[ "${reason#timing}" = "$reason" ] || [ "$modes" = drv ] ||
			{ echo "xskxceiver: expected-failures:$n: a timing entry is for drv alone"; bad=1; }
		case $reason in
		nic:*) case ,$modes, in *,skb,* | *,drv,*)
			echo "xskxceiver: expected-failures:$n: a nic entry is for zc and zc-bp alone"; bad=1 ;;
			esac ;;
		esac
		printf '%s\t%s\t%s\t%s\n' "$modes" "$test" "$text" "$reason" >> "$LIST"
	done < "$EXPECTED"
	return $bad
}

# entry MODE TEST: the list's entry for TEST in MODE, in E_TEXT and
# E_REASON; false if there is none.
entry() {
	local modes test text reason
	E_TEXT='' E_REASON=''
	while IFS=$'\t' read -r modes test text reason; do
		[ "$test" = "$2" ] || continue
		case ",$modes," in *",$1,"*) ;; *) continue ;; esac
		E_TEXT=$text E_REASON=$reason
		return 0
	done < "$LIST"
	return 1
}

# failure_line OUT: the first line of a test's output that says why it
# failed, for the log.
failure_line() {
	grep -m 1 -E '^# .*(ERROR|Too many|incorrect|expected|Error)|^not ok' "$1" 2>/dev/null
}

# counters_of MODE INDEX: the NICs' drop counters over the run the test
# was in (diagnostics, not a verdict): the test's own run, or the mode's
# whole run, whose counters are every test's up to the last.
counters_of() {
	local run what=own
	run=$(cat "$LOGS/$1.out/$2.run" 2>/dev/null)
	[ -n "$run" ] || return 0
	[ "$run" != "$1" ] || what="the mode's whole"
	info "$1 ${NAMES[$2]}: NIC drop counters over its run ($run, $what run): $(cat "$LOGS/$run.counters" 2>/dev/null)"
}

# veth_confirms TEST TEXT: the list says TEST fails in zero-copy for a
# reason outside igb, and drv on igb skips it. veth, the suite's own pair
# (multi-buffer in drv mode), runs it in drv mode: no igb code on that
# path. True if it fails there with TEXT too, or with the receive loop's
# timeout alone: in drv mode the sender's invalid descriptors often let
# the receiver's 3 s run out before its completions overrun, as the
# drv and skb entries of the *_INV_DESC tests say (there too no igb code
# decides it); VETH_DETAIL says what it did.
VETH_DRV_TEXT='Receive loop timed out'
VETH_UP=
veth_confirms() {
	local i out r v
	for i in "${!NAMES[@]}"; do [ "${NAMES[$i]}" = "$1" ] && break; done
	out=$LOGS/veth-drv-$i
	if [ ! -f "$out.tap" ]; then
		if [ -z "$VETH_UP" ]; then
			[ -d /sys/module/veth ] || insmod "$VETH_KO" ||
				{ VETH_DETAIL="no veth ($VETH_KO: make xskxceiver-veth)"; return 1; }
			ip link add $VETH_A numtxqueues 4 numrxqueues 4 type veth \
				peer name $VETH_B numtxqueues 4 numrxqueues 4 &&
			ip link set $VETH_A mtu 1500 && ip link set $VETH_B mtu 1500 &&
			ip link set $VETH_A up && ip link set $VETH_B up &&
			wait_up $VETH_A && wait_up $VETH_B ||
				{ VETH_DETAIL="no veth pair"; return 1; }
			VETH_UP=1
			info "veth: $VETH_A -> $VETH_B, for the entries drv on igb cannot confirm"
		fi
		IFS_PAIR=("$VETH_A" "$VETH_B")
		suite drv "$out" -t "$i"
		IFS_PAIR=()
	fi
	r=$(tap_lines "$out.tap" | head -n 1)
	v=${r#* }
	v=${v%% *}
	case $v in
	fail)	if grep -q -E -e "$2|$VETH_DRV_TEXT" "$out.tap"; then
			VETH_DETAIL="veth fails it in drv mode too: $(grep -m 1 -E -e "$2|$VETH_DRV_TEXT" "$out.tap")"
			return 0
		fi
		VETH_DETAIL="veth fails it in drv mode, but not with '$2' or '$VETH_DRV_TEXT': $(failure_line "$out.tap")" ;;
	ok)	VETH_DETAIL="veth passes it in drv mode: the entry does not hold" ;;
	skip)	VETH_DETAIL="veth skips it in drv mode (${r#* skip }): nothing confirms the entry" ;;
	*)	VETH_DETAIL="veth gave no result: $(tail -n 1 "$out.tap")" ;;
	esac
	return 1
}

# failed MODE INDEX NAME DETAIL: the verdict on a "not ok".
failed() {
	local m=$1 i=$2 name=$3 detail=$4 out=$LOGS/$1.out/$2 drv
	if ! entry "$m" "$name"; then
		fail "$m $name: $detail (not on tools/xskxceiver/expected-failures): $(failure_line "$out")"
		counters_of "$m" "$i"
		return
	fi
	if ! grep -q -E -e "$E_TEXT" "$out"; then
		fail "$m $name: listed, but its failure does not print '$E_TEXT': $(failure_line "$out")"
		counters_of "$m" "$i"
		return
	fi
	case $m in
	zc | zc-bp)
		# The NIC's own limit, which no software pair has: veth
		# cannot confirm it, the entry's evidence must.
		if [ "${E_REASON#nic:}" != "$E_REASON" ]; then
			info "$m $name: expected failure, the NIC's ${E_REASON#nic: }"
			return
		fi
		drv=$(awk -v t="$name" '$2 == t { print $3 }' "$LOGS/drv.results" 2>/dev/null)
		case $drv in
		fail)	info "$m $name: expected failure, drv fails it too: $E_REASON" ;;
		skip)	if veth_confirms "$name" "$E_TEXT"; then
				info "$m $name: expected failure, drv on igb skips it; $VETH_DETAIL: $E_REASON"
			else
				fail "$m $name: fails in $m, drv on igb skips it and $VETH_DETAIL"
			fi ;;
		ok)	fail "$m $name: fails in $m but not in drv (listed or not)"
			counters_of "$m" "$i" ;;
		*)	fail "$m $name: fails in $m, and drv did not run it: nothing shows the failure is not the driver's (run drv too)" ;;
		esac ;;
	drv)
		if [ "${E_REASON#timing}" = "$E_REASON" ]; then
			info "$m $name: expected failure: $E_REASON"
			return
		fi
		# Listed as timing: it must pass on its own.
		counters_of "$m" "$i"
		case " $REPORT_ONLY " in
		*" $m "*) fail "$m $name: failed, listed as timing (a reported mode, not run again)"; return ;;
		esac
		busy_poll "$m"
		suite "$m" "$LOGS/$m-rerun-$i" -t "$i"
		busy_poll off
		if grep -q '^ok 1 PASS' "$LOGS/$m-rerun-$i.tap"; then
			flaky "$m $name: failed in the suite's run ($detail), passed on its own; listed as timing: $E_REASON"
		else
			fail "$m $name: listed as timing, but failed on its own too: $(failure_line "$LOGS/$m-rerun-$i.tap")"
		fi ;;
	*)	info "$m $name: expected failure: $E_REASON" ;;
	esac
}

verdicts() {
	local m=$1 i name v detail
	while read -r i name v detail; do
		case $v in
		ok) pass "$m $name" ;;
		skip) skip "$m $name: $detail" ;;
		fail) failed "$m" "$i" "$name" "$detail"; continue ;;
		esac
		! entry "$m" "$name" ||
			info "$m $name: on the expected-failure list but did not fail"
	done < "$LOGS/$m.results"
}

[ -x "$XSKX" ] && [ -f "$SHIM" ] || { echo "xskxceiver: not built (make xskxceiver)"; exit 1; }
setup || exit 1
"$XSKX" -l | sed -n -E 's/^[0-9]+: //p' > "$LOGS/tests.txt"
mapfile -t NAMES < "$LOGS/tests.txt"
[ ${#NAMES[@]} -gt 0 ] || { echo "xskxceiver: -l lists no tests"; exit 1; }
read_list || exit 1
SELECTED=()
for t in "${tests[@]}"; do
	for i in "${!NAMES[@]}"; do
		[ "${NAMES[$i]}" = "$t" ] && SELECTED+=("$i") && continue 2
	done
	echo "xskxceiver: the suite has no test $t"
	exit 1
done
[ ${#SELECTED[@]} -eq 0 ] || info "only: ${tests[*]}"
rm -f "$RESULTS/no-reuse" "$LOGS/runs-bad"
kcheck_mark
for m in "${modes[@]}"; do
	run_mode "$m"
done
for m in "${modes[@]}"; do
	verdicts "$m"
done
# The runs that were not whole: each fails its mode (veth's, drv's).
if [ -f "$LOGS/runs-bad" ]; then
	while read -r run why; do
		run=${run%:}
		m=${run%%-*}
		case $run in veth-*) m=drv ;; zc-bp*) m=zc-bp ;; esac
		fail "$m xskxceiver run $run: $why"
	done < "$LOGS/runs-bad"
fi
for m in "${modes[@]}"; do
	echo "TABLE $m: $(grep -c ' ok ' "$LOGS/$m.results") ok," \
		"$(grep -c ' fail ' "$LOGS/$m.results") not ok," \
		"$(grep -c ' skip ' "$LOGS/$m.results") skipped"
done
kcheck_splats xskxceiver
[ "${SPLATS:-0}" -eq 0 ] || fail "dmesg: $SPLATS kernel splats"
[ -z "$REPORT_ONLY" ] || echo "xskxceiver: reported, not gated:$REPORT_ONLY ($NOTED NOTE lines)"
echo "xskxceiver: $PASS passed, $FAIL failed, $SKIP skipped, $FLAKY flaky"
[ $FAIL -eq 0 ]
