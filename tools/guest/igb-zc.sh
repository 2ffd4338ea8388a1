#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/igb-zc.sh [SCENARIO...] - igb AF_XDP zero-copy checks that
# tools/guest/e2e.sh does not make; "tools/guest/run.sh igb-zc 900
# [SCENARIO,...]" runs them (all by default):
#
#  sriov      sriov_numvfs with a zero-copy queue is refused
#  meta       XDP_PASS copies of zero-copy frames: checksum, VLAN tag,
#             hardware RX timestamp (meta-ptp); a PTP frame an XDP
#             program drops on a zero-copy ring frees the 82576's
#             timestamp latch (meta-latch: its registers, read through
#             the PCI BAR)
#  hints      RX hints for a dev-bound XDP program on the zero-copy rings:
#             the tree's xdp_hw_metadata on nicb reads each frame's RSS
#             hash and VLAN tag through the kfuncs (and its timestamp,
#             which an 82576 gives PTP event frames only); its answers
#             ask for their UDP checksum through AF_XDP TX metadata
#  bufsz      MTU 1518 with 2 KB chunks, RLPML and DROP_EN while
#             zero-copy, RXALL kept off while bound and refused with it
#  resize     ethtool -G, then zero-copy RX
#  counters   a short fill ring: rx_xsk_fill_short, not alloc_failed
#  qstats     the netdev family's qstats-get: zero-copy RX and TX frames
#             in their queue's counters, the queues adding up to the
#             netdev's, and a read while runtime-suspended (rings freed)
#  reinit     a failed open under a running netdev (ethtool -L with
#             fail_page_alloc), then a zero-copy bind and down/up
#  reopen-N   the same through an XDP program removal, N = fail_page_alloc
#             times (1: the reopen with the old program works, -1: not)
#  leave-zc   a queue leaves zero-copy while every page allocation that
#             cannot sleep fails: it allocates nothing (page mode's
#             buffers were kept), its RX ring is posted again in full
#
# A failure injected must be seen to happen: fail_page_alloc's count of
# the failures it made, and igb's own message of the ring it could not
# allocate, in the kernel log after the test's mark.
#
# sriov runs last by default: after VFs came and went on nica, traffic
# through nica was unreliable in the QEMU guest (not investigated).
# sriov needs CONFIG_PCI_IOV; reinit, reopen-N and leave-zc CONFIG_FAIL_PAGE_ALLOC,
# CONFIG_FAULT_INJECTION_DEBUG_FS. A check SKIPs only where
# tools/guest/allowed-skips lets it (the NIC model cannot do it); any
# other SKIP is a FAIL, and so is a listed check that runs. One
# PASS/FAIL/SKIP/INFO line per check, then "igb-zc: N passed, ...". A
# step that may hang the kernel runs with a deadline; a stuck one ends
# the job after dumping the blocked tasks.

. "$XSKZC_REPO/tools/guest/lib.sh"
. "$XSKZC_REPO/tools/guest/kcheck.sh"

LOGS=$RESULTS/igb-zc
mkdir -p "$LOGS"
PASS=0
FAIL=0
SKIP=0

pass() { PASS=$((PASS + 1)); echo "PASS $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
info() { echo "INFO $*"; }

# skip TEST WHY: TEST cannot run. A SKIP only if tools/guest/allowed-skips
# lists TEST of igb-zc on this NIC (a reason outside the project's code,
# with its evidence); any other is a FAIL.
skip() {
	local t=$1
	shift
	if skip_allowed igb-zc "$t"; then
		SKIP=$((SKIP + 1))
		echo "SKIP $t: $*"
	else
		fail "$t: $* (a SKIP tools/guest/allowed-skips does not list)"
	fi
}

# ran TEST: TEST ran. An entry of allowed-skips for it is stale: a FAIL,
# so that the list keeps only what still cannot run.
ran() {
	skip_allowed igb-zc "$1" || return 0
	fail "$1: ran, yet tools/guest/allowed-skips lists it as a SKIP (stale entry)"
}

# mark TAG: a line in the kernel log; since TAG prints the log from it on
mark() { echo "igb-zc: mark $1" > /dev/kmsg; }
since() { dmesg | sed -n "/igb-zc: mark $1\$/,\$p"; }

# bounded CMD...: run CMD in the background, wait at most $DEADLINE s.
# Returns its exit code, or 254 when it is still running (stuck).
DEADLINE=40
bounded() {
	local p n
	"$@" &
	p=$!
	n=$((DEADLINE * 10))
	while [ $n -gt 0 ] && kill -0 $p 2>/dev/null; do
		sleep 0.1
		n=$((n - 1))
	done
	if kill -0 $p 2>/dev/null; then
		kill -KILL $p 2>/dev/null
		return 254
	fi
	wait $p
}

stuck() {
	echo w > /proc/sysrq-trigger 2>/dev/null
	sleep 2
	dmesg | grep -A12 'task:.*state:D' | head -40 | sed 's/^/INFO dmesg: /'
	fail "$1: stuck for $DEADLINE s (tasks in D state above)"
	finish
}

# tools/guest/kcheck.sh's list of kernel splats: none may show up.
dmesg_bad() {
	dmesg | grep -E "$SPLAT_RE" | head -3
}

finish() {
	bad=$(dmesg_bad)
	if [ -n "$bad" ]; then
		fail "dmesg: $(echo "$bad" | head -1)"
		dmesg > "$LOGS/dmesg.txt"
	fi
	[ "$RAN" = "$WANTED" ] ||
		fail "only $RAN of the $WANTED scenarios ran"
	echo "igb-zc: $PASS passed, $FAIL failed, $SKIP skipped"
	exit $([ $FAIL -eq 0 ] && echo 0 || echo 1)
}

# regs IFACE: the raw register dump of igb_get_regs() as one u32 a line
regs() { ethtool -d "$1" raw on 2>/dev/null | od -An -v -tu4 -w4 | tr -d ' '; }
reg() { regs "$1" | sed -n "$(($2 + 1))p"; }	# reg IFACE INDEX
RLPML_IDX=34
SRRCTL0_IDX=121

zc_bg() {	# zc_bg LOG ARGS...: xsk-bench in the background on nica
	local log=$1
	shift
	"$XSKB" "$@" -i $NICA > "$LOGS/$log.log" 2>&1 &
	ZPID=$!
	wait_ready "$LOGS/$log.log"
	# attaching the program reopened the netdev: frames sent before the
	# link is back are lost (and operstate follows the carrier late)
	sleep 1
	wait_up $NICA
}

zc_stop() { kill -TERM $ZPID 2>/dev/null; wait $ZPID 2>/dev/null; }

summary() { summary_of "$LOGS/$1.log"; }

# ping_back SECONDS: the peer answers through nica within SECONDS. After
# a reset of nica the operstate wait_up reads lags the carrier (linkwatch):
# it can still say up when the reset's link down has not shown yet, and
# pings sent then die with the link. A reset's check waits for an answer.
# PING_TRIES: the pings it took.
ping_back() {
	PING_TRIES=0
	while [ $PING_TRIES -lt "$1" ]; do
		PING_TRIES=$((PING_TRIES + 1))
		ping -c 1 -W 1 $IP_B > /dev/null 2>&1 && return 0
	done
	return 1
}

# --- SR-IOV: sriov_numvfs with a zero-copy queue ------------------------
s_sriov() {
	local dev numvfs out rc s q
	dev=/sys/class/net/$NICA/device
	if [ ! -e $dev/sriov_numvfs ] || [ "$(cat $dev/sriov_totalvfs)" = 0 ]; then
		skip sriov "no SR-IOV on $NICA"
		return
	fi
	q=$(($(ls -d /sys/class/net/$NICA/queues/rx-* | wc -l) - 1))
	info "sriov: $NICA has $((q + 1)) queues, totalvfs $(cat $dev/sriov_totalvfs); ZC socket on the last, $q"
	zc_bg sriov-zc rxdrop -m zc -q $q -d 60 -Q
	grep -q '^ready zerocopy=1' "$LOGS/sriov-zc.log" ||
		{ fail "sriov: no ZC bind on queue $q: $(tail -1 "$LOGS/sriov-zc.log")"; zc_stop; return; }
	bounded sh -c "/bin/echo 1 > $dev/sriov_numvfs" > "$LOGS/out.txt" 2>&1
	rc=$?
	out=$(cat "$LOGS/out.txt")
	[ $rc -eq 254 ] && stuck "sriov: echo 1 > sriov_numvfs"
	numvfs=$(cat $dev/sriov_numvfs)
	if [ $rc -ne 0 ] && [ "$numvfs" = 0 ] && echo "$out" | grep -q 'busy'; then
		pass "sriov: sriov_numvfs=1 refused with the ZC socket on queue $q: $out"
	else
		fail "sriov: sriov_numvfs=1 with the ZC socket on queue $q: rc=$rc numvfs=$numvfs $out; now $(ls -d /sys/class/net/$NICA/queues/rx-* | wc -l) queues"
	fi
	bad=$(dmesg_bad)
	[ -n "$bad" ] && { fail "sriov: kernel: $bad"; dmesg > "$LOGS/dmesg.txt"; finish; }
	# the socket must still work: a wakeup and a clean teardown
	zc_stop
	s=$(summary sriov-zc)
	[ "$(field status "$s")" = ok ] && pass "sriov: ZC socket still fine: $s" ||
		fail "sriov: ZC socket: ${s:-no summary}"
	[ "$(cat $dev/sriov_numvfs)" = 0 ] || echo 0 > $dev/sriov_numvfs
	# without a socket VFs come and go
	if bounded sh -c "echo 1 > $dev/sriov_numvfs && echo 0 > $dev/sriov_numvfs"; then
		pass "sriov: VFs on and off without a ZC socket"
	else
		fail "sriov: VFs on and off without a ZC socket"
	fi
	ip link set $NICA up
	sleep 2		# the reinit took the link down; operstate follows late
	wait_up $NICA
}

# --- a failed reopen: XDP program removal with fail_page_alloc ---------
FI=/sys/kernel/debug/fail_page_alloc
# fi_on TIMES: fail TIMES order >= 4 allocations of a failing task; -1,
# every one, is FI_MANY, more than a test makes: fail_page_alloc counts
# its times down with each failure, so fi_off can tell how many there were
FI_MANY=1000
fi_on() {
	local times=$1
	[ "$times" = -1 ] && times=$FI_MANY
	# order 4: the 64 KiB descriptor rings of 4096
	fi_set "$times" 4 N Y 1
}
# fi_set TIMES MIN_ORDER IGNORE_GFP_WAIT TASK_FILTER VERBOSE: fail_page_alloc
# on, for every allocation that matches (-1 TIMES: with no end), but
# those of vmalloc (fi_reject)
fi_set() {
	FI_TIMES=$1
	echo 0 > $FI/probability
	fi_reject __vmalloc_node_range_noprof || return 1
	echo "$3" > $FI/ignore-gfp-wait
	echo N > $FI/ignore-gfp-highmem
	echo "$2" > $FI/min-order
	echo "$4" > $FI/task-filter
	echo 1 > $FI/interval
	echo "$1" > $FI/times
	echo "$5" > $FI/verbose
	echo 100 > $FI/probability
}
# fi_reject FUNC: no failure for an allocation FUNC makes. vmalloc()
# asks for large pages first, without reclaim and without a warning, and
# falls back to small ones (7.2's mm/vmalloc.c, vm_area_alloc_pages(),
# inlined into __vmalloc_node_range_noprof(), which every vmalloc()
# goes through): a failure injected there is absorbed, silently, and
# never reaches igb, whose buffer-info arrays are vmalloc()ed. The stack
# filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER) rejects a failure
# with an address of FUNC on the stack: FUNC's text, from its symbol to
# the next.
fi_reject() {
	local range
	range=$(sort /proc/kallsyms | awk -v f="$1" '
		found { print "0x" $1; exit }
		$3 == f && $2 ~ /^[tT]$/ { printf "0x%s ", $1; found = 1 }')
	if [ "${range#* 0x}" = "$range" ] || [ ! -w $FI/reject-start ]; then
		echo "igb-zc: no stack filter for $1 (kallsyms, $FI/reject-start)"
		return 1
	fi
	echo "${range% *}" > $FI/reject-start
	echo "${range#* }" > $FI/reject-end
}
# fi_off: no more failures; FI_FIRED: how many allocations failed
fi_off() {
	echo 0 > $FI/probability
	FI_FIRED=$((FI_TIMES - $(cat $FI/times)))
}

# igb_said TAG REGEX: the first line nica's igb logged since mark TAG
# that matches the extended REGEX
igb_said() {
	since "$1" | grep -F "igb $(basename "$(readlink -f /sys/class/net/$NICA/device)")" |
		grep -E -m1 "$2"
}
# what igb logs when it cannot allocate a ring (or its queues)
NO_RING='Allocation for [RT]x Queue|Unable to allocate memory for'

# in a task that fails order >= 4 page allocations
failing() { sh -c 'echo 1 > /proc/self/make-it-fail && exec "$@"' failing "$@"; }

PROG=/usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog.o
prog_id() { ip -d link show dev $NICA | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
is_up() { ip link show dev $NICA | grep -q '<[^>]*[,<]UP[,>]'; }

s_reopen() {	# s_reopen TIMES
	local times=$1 out rc s ring closed t=reopen-$1
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[ -d $FI ] || { skip $t "no $FI (CONFIG_FAIL_PAGE_ALLOC)"; return; }
	ip link set dev $NICA xdpdrv obj $PROG sec xdp 2>"$LOGS/$t.attach.err" ||
		ip link set dev $NICA xdpdrv obj $PROG 2>>"$LOGS/$t.attach.err" ||
		{ fail "$t: cannot attach $PROG: $(tail -1 "$LOGS/$t.attach.err")"; return; }
	info "$t: program $(prog_id) attached"
	mark $t
	fi_on "$times" || { fail "$t: cannot target the failures"; return; }
	bounded failing ip link set dev $NICA xdpdrv off > "$LOGS/out.txt" 2>&1
	rc=$?
	out=$(cat "$LOGS/out.txt")
	fi_off
	[ $rc -eq 254 ] && stuck "$t: XDP removal"
	info "$t: XDP removal with order>=4 allocations failing (times $times): rc=$rc ${out:+($out)}; $FI_FIRED failed; IFF_UP $(is_up && echo on || echo off), operstate $(cat /sys/class/net/$NICA/operstate), program '$(prog_id)'"
	since $t | grep -E "igb.*(cannot reopen|$NO_RING)" | tail -3 | sed 's/^/INFO dmesg: /'
	# It must fail for the injected failures: the reopen got no ring.
	# After one, the reopen with the old program works; when every
	# allocation fails, that one fails too and igb closes the netdev.
	ring=$(igb_said $t "$NO_RING")
	closed=$(igb_said $t 'cannot reopen')
	if [ $rc -eq 0 ]; then
		fail "$t: the XDP removal reported success although the reopen failed"
	elif [ "$FI_FIRED" -lt 1 ] || [ -z "$ring" ]; then
		fail "$t: the XDP removal failed (rc $rc), not for the injected failures: $FI_FIRED allocation(s) failed, igb logged ${ring:-no ring allocation failure}"
	elif [ -z "$(prog_id)" ]; then
		fail "$t: the XDP removal failed, yet the program is gone"
	elif [ "$times" = 1 ] && { [ -n "$closed" ] || ! is_up; }; then
		fail "$t: after one failed allocation the reopen with the old program failed too: IFF_UP $(is_up && echo on || echo off) ${closed#*: }"
	elif [ "$times" != 1 ] && { [ -z "$closed" ] || is_up; }; then
		fail "$t: with every ring allocation failing, igb left the netdev IFF_UP $(is_up && echo on || echo off) and logged ${closed:-no 'cannot reopen'}"
	else
		pass "$t: the XDP removal failed for $FI_FIRED injected allocation failure(s) (igb: ${ring#*: }), the program stayed, the netdev $(is_up && echo runs it || echo closed)"
	fi
	# a pool setup on the netdev as the failure left it
	DEADLINE=30
	bounded "$XSKB" rxdrop -m zc -X -d 1 -Q -i $NICA > "$LOGS/$t-bind.log" 2>&1
	rc=$?
	[ $rc -eq 254 ] && stuck "$t: ZC bind after the failed reopen"
	s=$(summary $t-bind)
	if [ "$(field status "$s")" = ok ] && [ "$(field zerocopy "$s")" = 1 ]; then
		pass "$t: ZC bind and unbind after the failed reopen: status ok, zerocopy 1"
	else
		fail "$t: ZC bind after the failed reopen (rc $rc): ${s:-no summary: $(tail -1 "$LOGS/$t-bind.log")}"
	fi
	bounded sh -c "ip link set dev $NICA down && ip link set dev $NICA up" > "$LOGS/out.txt" 2>&1
	rc=$?
	out=$(cat "$LOGS/out.txt")
	[ $rc -eq 254 ] && stuck "$t: ip link set down/up after the failed reopen"
	if [ $rc -eq 0 ] && wait_up $NICA; then
		pass "$t: down and up again: link up"
	else
		fail "$t: down and up again: rc $rc $out, operstate $(cat /sys/class/net/$NICA/operstate)"
	fi
	if ping_back 15; then
		pass "$t: ping through $NICA ($PING_TRIES tries)"
	else
		fail "$t: no ping through $NICA in 15 s"
	fi
	# zero-copy RX works again
	ip link set dev $NICA xdpdrv off 2>/dev/null
	wait_up $NICA
	zc_bg $t-rx rxdrop -m zc -S 77 -d 30 -W 2 -Q
	onB "$XSKB" txonly -m skb -i $NICB -D $MAC_A -S 77 -c 5000 -r 5000 -d 10 -Q > "$LOGS/$t-tx.log" 2>&1
	wait $ZPID
	s=$(summary $t-rx)
	if [ "$(field zerocopy "$s")" = 1 ] && [ "$(field rx "$s")" -gt 4000 ]; then
		pass "$t: ZC RX after recovery: rx=$(field rx "$s")"
	else
		fail "$t: ZC RX after recovery: $s"
	fi
	ip link set dev $NICA xdpdrv off 2>/dev/null
}

# --- leaving zero-copy allocates nothing ----------------------------------
# The library calls queue_start() after the point of no return, where it
# must not fail, so igb keeps page mode's RX buffers while a queue is
# zero-copy and posts them again when it leaves. Here the socket (no XDP
# program: its removal would reopen the netdev and allocate) closes
# while every page allocation that cannot sleep fails, igb's RX buffers
# among them, in any task: the pool is released in a kworker.
RDLEN0_IDX=137
RDH0_IDX=141
RDT0_IDX=145
isnum() { [[ ${1:-} =~ ^[0-9]+$ ]]; }
alloc_failed() { ethtool -S $NICA | sed -n 's/^ *rx_queue_0_alloc_failed: //p'; }
# every page allocation that cannot sleep, of any order, in any task
fi_atomic() { fi_set -1 0 Y N 0; }
# ring0: "BSIZEPKT POSTED COUNT" of RX ring 0 (SRRCTL0's buffer size in
# KB; the buffers the NIC owns, from its head and tail; its size), or
# nothing when a register could not be read
ring0() {
	local r l n h t
	r=$(regs $NICA)
	l=$(echo "$r" | sed -n "$((SRRCTL0_IDX + 1))p")
	n=$(echo "$r" | sed -n "$((RDLEN0_IDX + 1))p")
	h=$(echo "$r" | sed -n "$((RDH0_IDX + 1))p")
	t=$(echo "$r" | sed -n "$((RDT0_IDX + 1))p")
	isnum "$l" && isnum "$n" && isnum "$h" && isnum "$t" && [ "$n" -gt 0 ] ||
		return 0
	n=$((n / 16))
	echo "$((l & 0x7f)) $(((t - h + n) % n)) $n"
}
s_leave_zc() {
	local t=leave-zc pm zc now a0 a1 a2 i
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[ -d $FI ] || { skip $t "no $FI (CONFIG_FAIL_PAGE_ALLOC)"; return; }
	# page mode's ring as it is: what leaving zero-copy must give back
	pm=$(ring0)
	[ -n "$pm" ] || { fail "$t: cannot read RX ring 0's registers"; return; }
	zc_bg $t rxdrop -m zc -X -q 0 -d 60 -Q
	zc=$(ring0)
	a0=$(alloc_failed)
	if ! grep -q '^ready zerocopy=1' "$LOGS/$t.log" || [ -z "$zc" ] ||
	   [ "${zc%% *}" = "${pm%% *}" ] || ! isnum "$a0"; then
		fail "$t: no zero-copy queue 0 to leave: $(tail -1 "$LOGS/$t.log"); RX ring 0 (KB posted count) page mode '$pm', now '$zc'; alloc_failed '$a0'"
		zc_stop
		return
	fi
	info "$t: RX ring 0 (BSIZEPKT KB, posted, count): page mode $pm, zero-copy $zc"
	fi_atomic || { fail "$t: cannot target the failures"; zc_stop; return; }
	# the socket must still be bound, zero-copy, as the fault begins
	now=$(ring0)
	if ! kill -0 $ZPID 2>/dev/null || [ "$now" != "$zc" ]; then
		fi_off
		fail "$t: the socket was gone before the fault began: RX ring 0 '$now'"
		zc_stop
		return
	fi
	zc_stop
	# back in page mode when the buffer size is page mode's again
	for i in $(seq 50); do
		now=$(ring0)
		[ "${now%% *}" = "${pm%% *}" ] && break
		sleep 0.1
	done
	a1=$(alloc_failed)
	# the fault reaches igb's RX buffers: an open allocates them anew
	ip link set dev $NICA down
	ip link set dev $NICA up
	a2=$(alloc_failed)
	fi_off
	info "$t: socket closed with non-sleeping page allocations failing: RX ring 0 $now, rx_queue_0_alloc_failed $a0 -> $a1; after down/up under the fault ${a2:-?}"
	if ! isnum "$a1" || ! isnum "$a2" || [ -z "$now" ]; then
		fail "$t: cannot read the counters or registers: alloc_failed '$a1' '$a2', RX ring 0 '$now'"
	elif [ "${now%% *}" != "${pm%% *}" ]; then
		fail "$t: queue 0 did not leave zero-copy in 5 s (RX ring 0 $now)"
	elif [ "$a2" -le "$a1" ]; then
		fail "$t: the fault did not reach igb's RX buffers: a down/up under it left rx_queue_0_alloc_failed at $a2"
	elif [ "$a1" != "$a0" ] || [ "$now" != "$pm" ]; then
		fail "$t: leaving zero-copy allocated: rx_queue_0_alloc_failed $a0 -> $a1, RX ring 0 $now where page mode had $pm"
	else
		pass "$t: queue 0 left zero-copy with no page allocation: RX ring 0 $now as page mode had it, rx_queue_0_alloc_failed stays $a1"
	fi
	ip link set dev $NICA down
	ip link set dev $NICA up
	wait_up $NICA
	ping_back 15 && pass "$t: ping through $NICA after the fault ($PING_TRIES tries)" ||
		fail "$t: no ping through $NICA in 15 s after the fault"
}

# --- XDP_PASS copies keep the descriptor's metadata ---------------------
# Receives on nicb with PACKET_AUXDATA and SO_TIMESTAMPING while ZC
# sockets without a program hold both its queues: every frame is an
# XDP_PASS copy (rx_start and the other helpers: lib.sh).

# send_udp COUNT: COUNT UDP datagrams of 100 bytes from nica to nicb,
# 0.1 s apart, one destination port each (9000 on)
send_udp() {
	python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range($1):
    s.sendto(b'x' * 100, ('$IP_B', 9000 + i)); time.sleep(0.1)
"
}

# The 82576 stamps one PTP frame at a time: it latches the frame's time in
# RXSTMPL/H, sets TSYNCRXCTL.VALID (bit 0) and stamps no other frame until
# RXSTMPH is read ("Only need to read the high RXSTMP register to clear
# the lock", igb_ptp.c). igb must read it for every stamped frame,
# whatever becomes of the frame. bar_read REG...: nicb's registers at
# these offsets, read through its BAR 0 (PCI sysfs), in hex, in order.
TSYNCRXCTL=0xb620
RXSTMPL=0xb624
RXSTMPH=0xb628
bar_read() {
	python3 -c '
import mmap, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0x10000, access=mmap.ACCESS_READ)
r = memoryview(m).cast("I")
print(" ".join("%#x" % r[int(a, 0) // 4] for a in sys.argv[2:]))
' "$(onB readlink -f /sys/class/net/$NICB/device)/resource0" "$@"
}

# latch_probe: whether the latch is free once igb read the stamped frames.
# LATCH: free; held (igb left a stamp unread: this read of RXSTMPH frees
# it); model (it stays held after this read of RXSTMPL/H: the NIC model
# does not free it as the 82576 does). LATCH_WHY: the registers read.
latch_probe() {
	local r
	r=$(bar_read $TSYNCRXCTL $RXSTMPL $RXSTMPH $TSYNCRXCTL)
	set -- $r
	LATCH_WHY="TSYNCRXCTL $1, then RXSTMPL/H $2 $3 read, then TSYNCRXCTL $4"
	if [ -z "$4" ]; then
		LATCH=unknown
		LATCH_WHY="no read of nicb's registers: $r"
	elif [ $(($1 & 1)) = 0 ]; then
		LATCH=free
	elif [ $(($4 & 1)) = 0 ]; then
		LATCH=held
	else
		LATCH=model
	fi
}

# stamped NAME: how many frames of $LOGS/NAME.txt (rxmeta.py) have a stamp
stamped() { grep '^frame' "$LOGS/$1.txt" | grep -vc 'hwts=0.000000000'; }

# stamps_own FILE COUNT GAP: FILE (rxmeta.py) has COUNT frames, each with
# a hardware stamp of its own: none 0, each about GAP s after the one
# before (a stale stamp, or one of another frame, breaks this). WHY: what not.
stamps_own() {
	WHY=$(sed -n 's/^frame .* hwts=\([0-9.]*\)$/\1/p' "$1" | awk -v n="$2" -v gap="$3" '
		{ s = s " " $1; if ($1 == 0) z++; else if (NR > 1 && ($1 - p < gap / 2 || $1 - p > gap * 10)) o++; p = $1 }
		END { if (NR != n || z || o) printf "%d of %d frames, %d without a stamp, %d out of step:%s", NR, n, z, o, s }')
	[ -z "$WHY" ]
}

# latch_drop: a PTP frame that an XDP program drops on nicb's zero-copy
# rings (xsk-bench drop, while ZC sockets without a program hold both
# queues) is stamped, and igb_xsk_rx_next() reads its stamp all the same:
# RXSTMPL/H hold a new time, and the latch is free again well before
# igb's watchdog would free it (igb_ptp_rx_hang(), after 5 s).
latch_drop() {
	local q0 q1 d s before after n0 n1
	ip netns exec $NSB "$XSKB" rxdrop -m zc -X -q 0 -d 60 -Q -i $NICB > "$LOGS/latch-q0.log" 2>&1 &
	q0=$!
	ip netns exec $NSB "$XSKB" rxdrop -m zc -X -q 1 -d 60 -Q -i $NICB > "$LOGS/latch-q1.log" 2>&1 &
	q1=$!
	wait_ready "$LOGS/latch-q0.log"
	wait_ready "$LOGS/latch-q1.log"
	ip netns exec $NSB "$XSKB" drop -m zc -d 60 -i $NICB > "$LOGS/latch-drop.log" 2>&1 &
	d=$!
	wait_ready "$LOGS/latch-drop.log"
	# attaching the program reopened nicb
	sleep 1
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
	before=$(bar_read $RXSTMPL $RXSTMPH)
	n0=$(onB ethtool -S $NICB | sed -n 's/^ *rx_hwtstamp_cleared: //p')
	ptp_send 1 1
	after=$(bar_read $TSYNCRXCTL $RXSTMPL $RXSTMPH)
	n1=$(onB ethtool -S $NICB | sed -n 's/^ *rx_hwtstamp_cleared: //p')
	kill -TERM $d
	wait $d
	kill $q0 $q1 2>/dev/null
	wait $q0 $q1 2>/dev/null
	s=$(summary_of "$LOGS/latch-drop.log")
	set -- $after
	if ! grep -q '^ready zerocopy=1' "$LOGS/latch-q0.log" ||
	   ! grep -q '^ready zerocopy=1' "$LOGS/latch-q1.log"; then
		fail "meta-latch: no ZC bind on both queues of $NICB"
	elif ! [ "$(field rx "$s")" -ge 1 ] 2>/dev/null; then
		fail "meta-latch: the XDP program dropped no frame: ${s:-$(tail -1 "$LOGS/latch-drop.log")}"
	elif [ -z "$3" ] || [ -z "$before" ]; then
		fail "meta-latch: no read of nicb's registers: '$before' '$after'"
	elif [ "$2 $3" = "$before" ]; then
		fail "meta-latch: the PTP frame dropped on the ZC ring was not stamped: RXSTMPL/H $before before and after, TSYNCRXCTL $1"
	elif [ $(($1 & 1)) = 1 ]; then
		fail "meta-latch: the latch is still held after the PTP frame dropped on the ZC ring (TSYNCRXCTL $1, RXSTMPL/H $before -> $2 $3): igb did not read its stamp"
	elif [ "$n0" != "$n1" ]; then
		fail "meta-latch: igb's watchdog freed the latch (rx_hwtstamp_cleared $n0 -> $n1), not the RX path"
	else
		pass "meta-latch: a PTP frame dropped by XDP on the ZC ring was stamped (RXSTMPL/H $before -> $2 $3) and its latch freed (TSYNCRXCTL $1)"
	fi
}

s_meta() {
	local out n ok
	# every frame of nicb through the zero-copy path, to the stack
	ip netns exec $NSB "$XSKB" rxdrop -m zc -X -q 0 -d 60 -Q -i $NICB > "$LOGS/meta-q0.log" 2>&1 &
	P0=$!
	ip netns exec $NSB "$XSKB" rxdrop -m zc -X -q 1 -d 60 -Q -i $NICB > "$LOGS/meta-q1.log" 2>&1 &
	P1=$!
	wait_ready "$LOGS/meta-q0.log"
	wait_ready "$LOGS/meta-q1.log"
	if ! grep -q '^ready zerocopy=1' "$LOGS/meta-q0.log" ||
	   ! grep -q '^ready zerocopy=1' "$LOGS/meta-q1.log"; then
		fail "meta: no ZC bind on both queues of $NICB"
		kill $P0 $P1
		return
	fi
	# UDP: the checksum
	# GRO would validate the UDP checksum in software before the packet
	# socket sees the frame
	onB ethtool -K $NICB gro off
	ping_back 10 || :	# ARP first, once the link is back
	rx_start "$LOGS/meta-udp.txt" 8 0x0800
	send_udp 8
	wait $R
	n=$(grep -c '^frame' "$LOGS/meta-udp.txt")
	ok=$(grep -c 'csum_valid=1' "$LOGS/meta-udp.txt")
	info "meta: UDP frames: $(grep '^frame' "$LOGS/meta-udp.txt" | head -2 | tr '\n' ' ')"
	if [ "$n" -ge 6 ] && [ "$ok" = "$n" ]; then
		pass "meta: $ok/$n UDP frames passed from the ZC rings with TP_STATUS_CSUM_VALID"
	else
		fail "meta: $ok/$n UDP frames passed from the ZC rings with TP_STATUS_CSUM_VALID"
	fi
	# VLAN tag (no 8021q in the guest: a tagged frame by hand; no VLAN
	# filter - promiscuous - or the NIC drops VID 5)
	onB ip link set $NICB promisc on
	rx_start "$LOGS/meta-vlan.txt" 6 0x0003
	python3 -c "
import socket, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('$NICA', 0))
for i in range(6):
    s.send(bytes.fromhex('52540012340b52540012340a8100000588b5') + bytes(50)); time.sleep(0.1)
"
	wait $R
	onB ip link set $NICB promisc off
	n=$(grep -c 'vlan=5' "$LOGS/meta-vlan.txt")
	[ "$n" -ge 3 ] && pass "meta: $n VLAN 5 frames with their tag" ||
		fail "meta: VLAN: $(grep '^frame' "$LOGS/meta-vlan.txt" | head -2 | tr '\n' ' ')"
	# hardware RX timestamps: PTPv2 over L2 on 82576 (register latch)
	out=$(hwtstamp 12)
	info "meta: $out (12 = PTP_V2_L2_EVENT)"
	rx_start "$LOGS/meta-ptp.txt" 6 0x88f7
	ptp_send 6 0.3
	wait $R
	info "meta: PTP frames: $(grep '^frame' "$LOGS/meta-ptp.txt" | head -3 | tr '\n' ' ')"
	kill $P0 $P1 2>/dev/null
	wait $P0 $P1 2>/dev/null
	# the stock (page) path, for comparison: what the QEMU model gives
	rx_start "$LOGS/meta-ptp-stock.txt" 4 0x88f7
	ptp_send 4 0.3
	wait $R
	info "meta: stock path PTP frames: $(grep '^frame' "$LOGS/meta-ptp-stock.txt" | head -2 | tr '\n' ' ')"
	latch_probe
	info "meta: RX timestamp latch after them: $LATCH ($LATCH_WHY)"
	case $LATCH in
	model)
		skip meta-ptp "the NIC model keeps the RX timestamp latch after RXSTMPH is read ($LATCH_WHY): it stamps no frame after the first ($(stamped meta-ptp)/6 ZC, $(stamped meta-ptp-stock)/4 stock frames stamped)"
		;;
	held)
		fail "meta-ptp: igb left a stamp in the RX timestamp latch unread ($LATCH_WHY)"
		;;
	free)
		ran meta-ptp
		if stamps_own "$LOGS/meta-ptp.txt" 6 0.3; then
			pass "meta-ptp: 6/6 PTP frames passed from the ZC rings with their own hardware timestamp"
		else
			fail "meta-ptp: PTP frames passed from the ZC rings: $WHY"
		fi
		;;
	*)
		fail "meta-ptp: $LATCH_WHY"
		;;
	esac
	rx_start "$LOGS/meta-udp-stock.txt" 4 0x0800
	send_udp 6
	wait $R
	info "meta: stock path UDP frames: $(grep '^frame' "$LOGS/meta-udp-stock.txt" | head -2 | tr '\n' ' ')"
	if [ "$LATCH" = model ]; then
		skip meta-latch "the NIC model keeps the RX timestamp latch after RXSTMPH is read ($LATCH_WHY): whether igb frees it for a frame it does not pass cannot be seen"
	else
		ran meta-latch
		latch_drop
	fi
	onB ip link set $NICB xdpdrv off 2>/dev/null
	onB ethtool -K $NICB gro on
	onB ip link set $NICB up
	dmesg | grep -i 'timestamp hang' | sed 's/^/INFO dmesg: /'
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
}

# --- RX hints: the tree's xdp_hw_metadata on the zero-copy rings --------
# It binds a zero-copy socket to every queue of nicb and loads its program
# bound to nicb: every UDP frame to port 9091 gets the three RX hint
# kfuncs, and their answers travel in the frame's XDP metadata to the
# tool, which prints them. rxhints.py sends five flows of two frames (two
# of them VLAN 5 tagged, which igb strips; promiscuous: no VLAN filter)
# and reads what the tool printed for each, in order.
XHM=$XSKZC_REPO/build/xskxceiver
s_hints() {
	local log=$LOGS/hints.log r n
	if [ ! -x "$XHM/xdp_hw_metadata" ]; then
		skip hints "no $XHM/xdp_hw_metadata (make xdp-hw-metadata)"
		return
	fi
	onB ip link set $NICB promisc on
	onB env LD_PRELOAD="$XHM/hwtstamp-fallback.so" \
		"$XHM/xdp_hw_metadata" $NICB > "$log" 2>&1 &
	P0=$!
	wait_line "$log" '^attach bpf program'
	# attaching reopened nicb: its link comes back after
	sleep 1
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
	ping_back 10 || :
	python3 "$PY/rxhints.py" replies $NICA 10 > "$LOGS/hints-replies.txt" &
	R=$!
	wait_line "$LOGS/hints-replies.txt" listening 50
	python3 "$PY/rxhints.py" send $NICA $MAC_B $IP_B 0.3
	wait $R
	# $P0 is the shell of the background job, which ignores SIGINT: the
	# tool itself detaches its program on SIGINT
	pkill -INT -x xdp_hw_metadata
	n=0
	while [ $n -lt 200 ] && kill -0 $P0 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -KILL $P0 2>/dev/null
	wait $P0 2>/dev/null
	onB ip link set $NICB promisc off
	grep -E '^hwtstamp-fallback|error|Error' "$log" | head -3 | sed 's/^/INFO hints: /'
	r=$(python3 "$PY/rxhints.py" check "$log")
	info "hints: $(grep -m1 -E '^rx_hash|^No rx_hash' "$log"); $(grep -m1 -E 'rx_timestamp|RX-time' "$log")"
	if [ "$(field frames "$r")" = 10 ] && [ "$(field hashed "$r")" = 10 ] &&
	   [ "$(field flows_hash_alike "$r")" = 1 ] &&
	   [ "$(field flows_hash_apart "$r")" = 1 ]; then
		pass "hints: RX hash of 10/10 frames from the ZC rings, one per flow, 5 flows apart ($r)"
	else
		fail "hints: RX hash: $r"
	fi
	if [ "$(field vlan_ok "$r")" = 4 ] && [ "$(field vlan_absent_ok "$r")" = 6 ]; then
		pass "hints: VLAN tag of 4/4 tagged frames, ENODATA for 6/6 untagged"
	else
		fail "hints: VLAN tag: $r"
	fi
	# the tool answers each frame from its ZC socket, with the UDP
	# checksum asked of the NIC through TX metadata (igb's context
	# descriptor); the answers' checksums must verify on nica
	r=$(grep replies= "$LOGS/hints-replies.txt")
	if [ "$(field replies "$r")" = 10 ] && [ "$(field csum_ok "$r")" = 10 ]; then
		pass "hints: TX checksum offload of 10/10 ZC answers through TX metadata ($r)"
	else
		fail "hints: TX checksum offload through TX metadata: ${r:-no answer}; $(grep -m1 ping-pong "$log")"
	fi
	onB ip link set $NICB xdpdrv off 2>/dev/null
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB"
}

# --- RX buffer sizing: MTU 1518 with 2 KB chunks, RXALL, DROP_EN -------
s_bufsz() {
	local s r l
	ip link set dev $NICA mtu 1518
	onB ip link set dev $NICB mtu 1518
	wait_up $NICA
	zc_bg buf-1518 rxdrop -m zc -f 2048 -S 55 -d 30 -W 2 -Q
	if grep -q '^ready zerocopy=1' "$LOGS/buf-1518.log"; then
		r=$(reg $NICA $RLPML_IDX)
		l=$(reg $NICA $SRRCTL0_IDX)
		info "bufsz: MTU 1518, 2 KB chunks: RLPML=$r SRRCTL0=$(printf %#x "$l") (BSIZEPKT $((l & 0x7f)) KB, DROP_EN $((l >> 31)))"
		onB "$XSKB" txonly -m skb -i $NICB -D $MAC_A -S 55 -s 1536 -c 5000 -r 5000 -d 10 -Q > "$LOGS/buf-1518-tx.log" 2>&1
		wait $ZPID
		s=$(summary buf-1518)
		if [ "$(field rx "$s")" -gt 4000 ] && [ "$(field corrupt "$s")" = 0 ]; then
			pass "bufsz: MTU 1518 with 2 KB chunks: bound, $(field rx "$s") frames of 1536 bytes received"
		else
			fail "bufsz: MTU 1518 with 2 KB chunks: $s"
		fi
		[ "$r" = 1544 ] && pass "bufsz: RLPML $r = MTU 1518 + 26 while zero-copy" ||
			fail "bufsz: RLPML $r while zero-copy at MTU 1518, want 1544"
		[ $((l >> 31)) = 1 ] && pass "bufsz: DROP_EN on the zero-copy ring" ||
			fail "bufsz: no DROP_EN on the zero-copy ring (SRRCTL0 $(printf %#x "$l"))"
	else
		wait $ZPID
		fail "bufsz: MTU 1518 with 2 KB chunks: $(summary buf-1518)"
	fi
	ip link set dev $NICA mtu 1500
	onB ip link set dev $NICB mtu 1500
	wait_up $NICA
	info "bufsz: RLPML after the socket, MTU 1500: $(reg $NICA $RLPML_IDX)"
	# RXALL while bound: RLPML would no longer bound the frames
	zc_bg buf-rxall rxdrop -m zc -f 2048 -d 30 -Q
	ethtool -K $NICA rx-all on > "$LOGS/buf-rxall.txt" 2>&1
	r=$(ethtool -k $NICA | sed -n 's/^rx-all: //p')
	zc_stop
	case "$r" in
	off*) pass "bufsz: rx-all stays off while a 2 KB ZC pool is bound ($r)" ;;
	*) fail "bufsz: rx-all '$r' with a 2 KB ZC pool bound (buffer rounded up to 2048)" ;;
	esac
	# what was asked takes effect at the next feature change
	ethtool -K $NICA rx-all off 2>/dev/null
	ethtool -K $NICA rx-all on 2>/dev/null
	info "bufsz: rx-all now: $(ethtool -k $NICA | sed -n 's/^rx-all: //p')"
	wait_up $NICA
	"$XSKB" rxdrop -m zc -f 2048 -d 1 -Q -i $NICA > "$LOGS/buf-rxall2.log" 2>&1
	s=$(summary buf-rxall2)
	if [ "$(field status "$s")" != ok ] && [ "$(field errno "$s")" = EINVAL ]; then
		pass "bufsz: with rx-all on, 2 KB chunks at MTU 1500 are refused (EINVAL)"
	else
		fail "bufsz: with rx-all on, 2 KB chunks at MTU 1500: $s"
	fi
	"$XSKB" rxdrop -m zc -f 4096 -d 1 -Q -i $NICA > "$LOGS/buf-rxall3.log" 2>&1
	s=$(summary buf-rxall3)
	[ "$(field status "$s")" = ok ] && pass "bufsz: with rx-all on, 4 KB chunks bind" ||
		fail "bufsz: with rx-all on, 4 KB chunks: $s"
	ethtool -K $NICA rx-all off
	wait_up $NICA
}

# --- a failed open under a running netdev: ethtool -L with
# fail_page_alloc leaves it running, down and without NAPI; then a ZC
# bind, and down/up
s_reinit() {
	local out rc s c ring t=reinit
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[ -d $FI ] || { skip $t "no $FI (CONFIG_FAIL_PAGE_ALLOC)"; return; }
	mark $t
	fi_on -1 || { fail "$t: cannot target the failures"; return; }
	bounded failing ethtool -L $NICA combined 1 > "$LOGS/out.txt" 2>&1
	rc=$?
	out=$(cat "$LOGS/out.txt")
	fi_off
	[ $rc -eq 254 ] && stuck "$t: ethtool -L"
	info "$t: ethtool -L combined 1 with order>=4 allocations failing: rc=$rc ${out:+($out)}; $FI_FIRED failed; IFF_UP $(is_up && echo on || echo off), operstate $(cat /sys/class/net/$NICA/operstate)"
	# the open after the reinit must have failed for the injected
	# failures (no ring), said so, and left the netdev IFF_UP: the state
	# the rest of the test is about
	ring=$(igb_said $t "$NO_RING")
	if [ $rc -ne 0 ] && [ "$FI_FIRED" -ge 1 ] && [ -n "$ring" ] && is_up; then
		pass "$t: ethtool -L failed (rc $rc) for $FI_FIRED injected allocation failure(s) (igb: ${ring#*: }), IFF_UP kept"
	else
		fail "$t: ethtool -L combined 1 under fail_page_alloc: rc $rc, $FI_FIRED allocation(s) failed, igb logged ${ring:-no ring allocation failure}, IFF_UP $(is_up && echo on || echo off)"
	fi
	DEADLINE=30
	bounded "$XSKB" rxdrop -m zc -X -d 1 -Q -i $NICA > "$LOGS/$t-bind.log" 2>&1
	rc=$?
	[ $rc -eq 254 ] && stuck "$t: ZC bind on the netdev the failed open left running"
	s=$(summary $t-bind)
	if [ "$(field status "$s")" = ok ] && [ "$(field zerocopy "$s")" = 1 ]; then
		pass "$t: ZC bind and unbind on it: status ok, zerocopy 1"
	else
		fail "$t: ZC bind on the netdev the failed open left running (rc $rc): ${s:-no summary: $(tail -1 "$LOGS/$t-bind.log")}"
	fi
	bounded sh -c "ip link set dev $NICA down && ip link set dev $NICA up" > "$LOGS/out.txt" 2>&1
	rc=$?
	[ $rc -eq 254 ] && stuck "$t: ip link set down/up after the failed open"
	if [ $rc -eq 0 ] && wait_up $NICA; then
		pass "$t: down and up again: link up"
	else
		fail "$t: down and up again: rc $rc $(cat "$LOGS/out.txt")"
	fi
	bounded ethtool -L $NICA combined 2 > "$LOGS/out.txt" 2>&1
	rc=$?
	[ $rc -eq 254 ] && stuck "$t: ethtool -L combined 2"
	c=$(ethtool -l $NICA | sed -n '/^Current/,$s/^Combined:[[:space:]]*//p')
	if [ $rc -eq 0 ] && [ "$c" = 2 ]; then
		pass "$t: ethtool -L combined 2 without a fault: 2 combined channels"
	else
		fail "$t: ethtool -L combined 2: rc $rc $(cat "$LOGS/out.txt"), combined channels '$c'"
	fi
	wait_up $NICA
	ping_back 15 && pass "$t: ping through $NICA ($PING_TRIES tries)" ||
		fail "$t: no ping through $NICA in 15 s"
}

# --- counters: a fill ring too small for the ring -----------------------
s_counters() {
	local s a a0 f
	# the count since the start of this scenario: another one (leave-zc)
	# may have counted failures it made on purpose
	a0=$(alloc_failed)
	zc_bg counters rxdrop -m zc -n 256 -o 64 -S 88 -d 30 -W 2 -Q
	onB "$XSKB" txonly -m skb -i $NICB -D $MAC_A -S 88 -c 5000 -r 5000 -d 10 -Q > "$LOGS/counters-tx.log" 2>&1
	wait $ZPID
	s=$(summary counters)
	ethtool -S $NICA > "$LOGS/counters.txt"
	a=$(sed -n 's/^ *rx_queue_0_alloc_failed: //p' "$LOGS/counters.txt")
	f=$(sed -n 's/^ *rx_xsk_fill_short: //p' "$LOGS/counters.txt")
	info "counters: socket rx=$(field rx "$s") xsk_fill_empty=$(field xsk_fill_empty "$s"); ethtool -S: $(grep -E 'rx_queue_0_(packets|alloc_failed)|rx_xsk_' "$LOGS/counters.txt" | tr -s ' ' | tr '\n' ' ')"
	if isnum "$a0" && [ "$a" = "$a0" ]; then
		pass "counters: rx_queue_0_alloc_failed stays $a with a short fill ring"
	else
		fail "counters: rx_queue_0_alloc_failed $a0 -> $a with a short fill ring (no allocation failed)"
	fi
	[ -n "$f" ] && [ "$f" -gt 0 ] && pass "counters: rx_xsk_fill_short $f" ||
		fail "counters: rx_xsk_fill_short '${f}'"
}

# --- qstats: per-queue counters, read as the kernel's YNL reads them --
qstats() { python3 "$XSKZC_REPO/tools/guest/qstats.py" "$XSKZC_REPO/build/linux" "$@"; }
qval() {	# qval LINES OBJECT KEY: KEY's value on OBJECT's line ("rx 0", "dev")
	echo "$1" | sed -n "s/^$2 .*\<$3=\([0-9]*\).*/\1/p"
}

s_qstats() {
	local q0 q1 s t d rx tx n0 n1 pm st i
	q0=$(qstats $NICA queue 2>&1) || { fail "qstats: qstats-get: $q0"; return; }
	zc_bg qstats-rx rxdrop -m zc -S 91 -d 30 -W 2 -Q
	onB "$XSKB" txonly -m skb -i $NICB -D $MAC_A -S 91 -c 5000 -r 5000 -d 10 -Q > "$LOGS/qstats-tx.log" 2>&1
	wait $ZPID
	s=$(summary qstats-rx)
	"$XSKB" txonly -m zc -i $NICA -D $MAC_B -S 92 -c 5000 -r 5000 -d 10 -Q > "$LOGS/qstats-ztx.log" 2>&1
	t=$(summary qstats-ztx)
	q1=$(qstats $NICA queue 2>&1) || { fail "qstats: qstats-get: $q1"; return; }
	echo "$q1" > "$LOGS/qstats-queues.txt"
	rx=$(($(qval "$q1" "rx 0" rx-packets) - $(qval "$q0" "rx 0" rx-packets)))
	tx=$(($(qval "$q1" "tx 0" tx-packets) - $(qval "$q0" "tx 0" tx-packets)))
	info "qstats: queue 0: $(echo "$q1" | grep -E '^(rx|tx) 0 ' | tr '\n' ' ')"
	if [ "$(field zerocopy "$s")" = 1 ] && [ "$(field rx "$s")" -ge 4000 ] &&
	   [ $rx -ge "$(field rx "$s")" ]; then
		pass "qstats: rx queue 0 +$rx rx-packets, the zero-copy socket got $(field rx "$s")"
	else
		fail "qstats: rx queue 0 +$rx rx-packets, the zero-copy socket: $s"
	fi
	if [ "$(field zerocopy "$t")" = 1 ] && [ "$(field tx_completed "$t")" = 5000 ] &&
	   [ $tx -ge 5000 ]; then
		pass "qstats: tx queue 0 +$tx tx-packets, the zero-copy socket sent 5000"
	else
		fail "qstats: tx queue 0 +$tx tx-packets, the zero-copy socket: $t"
	fi

	# The device's sums (base + queues) between two reads of the netdev's.
	n0=$(cat /sys/class/net/$NICA/statistics/rx_packets)
	d=$(qstats $NICA 2>&1) || { fail "qstats: qstats-get: $d"; return; }
	n1=$(cat /sys/class/net/$NICA/statistics/rx_packets)
	rx=$(qval "$d" dev rx-packets)
	if [ -n "$rx" ] && [ "$rx" -ge "$n0" ] && [ "$rx" -le "$n1" ]; then
		pass "qstats: the queues add up to the netdev's rx_packets ($rx)"
	else
		fail "qstats: device rx-packets '$rx', netdev rx_packets $n0..$n1"
	fi

	# Runtime-suspended, igb has freed its rings: the read must not
	# touch them.
	pm=/sys/class/net/$NICA/device/power
	echo auto > $pm/control
	host_link nica off || { fail "qstats: host_link nica off"; return; }
	for i in $(seq 60); do
		read -r st < $pm/runtime_status
		[ "$st" = suspended ] && break
		sleep 0.5
	done
	if [ "$st" != suspended ]; then
		fail "qstats: runtime_status $st 30 s after the link went"
	elif ! d=$(bounded qstats $NICA queue 2>&1); then
		fail "qstats: read while suspended: $d"
	elif [ -n "$d" ]; then
		fail "qstats: read while suspended (no rings) reports: $(echo "$d" | tr '\n' ' ')"
	else
		pass "qstats: read while suspended: no queue reported"
	fi
	host_link nica on
	echo on > $pm/control
	wait_up $NICA
}

# --- ring resize, then zero-copy: the ring is described with its size --
s_resize() {
	local s
	ethtool -G $NICA rx 512
	zc_bg resize rxdrop -m zc -S 66 -d 30 -W 2 -Q
	onB "$XSKB" txonly -m skb -i $NICB -D $MAC_A -S 66 -c 5000 -r 5000 -d 10 -Q > "$LOGS/resize-tx.log" 2>&1
	wait $ZPID
	s=$(summary resize)
	if [ "$(field zerocopy "$s")" = 1 ] && [ "$(field rx "$s")" -gt 4000 ]; then
		pass "resize: rx 512 then ZC: rx=$(field rx "$s")"
	else
		fail "resize: rx 512 then ZC: $s"
	fi
	ethtool -G $NICA rx 4096
	wait_up $NICA
}

guest_setup || { echo "FAIL setup"; exit 1; }
SCENARIOS=${*:-meta hints bufsz resize counters qstats reinit reopen-1 reopen--1 leave-zc sriov}
echo "igb-zc: $(uname -r), scenarios: $SCENARIOS"
WANTED=$(echo $SCENARIOS | wc -w)
RAN=0
for sc in $SCENARIOS; do
	case $sc in
	reopen-*) s_reopen "${sc#reopen-}" ;;
	leave-zc) s_leave_zc ;;
	*) "s_$sc" ;;
	esac
	RAN=$((RAN + 1))
	bad=$(dmesg_bad)
	[ -n "$bad" ] && { fail "$sc: kernel: $bad"; dmesg > "$LOGS/dmesg.txt"; finish; }
done
finish
