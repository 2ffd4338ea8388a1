# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/kcheck.sh - sourced by the guest jobs that read the
# kernel's own detectors back: splats in dmesg and, on the debug kernel
# (build/guest-x86_64-debug, "uname -r" ending in -debug), kmemleak.
# It holds the one list of splats every job uses (KERNEL_SPLAT_RE,
# SPLAT_RE below).
#
#   kcheck_init            debugfs; on the debug kernel, once per boot, a
#                          first kmemleak scan, whose reports (boot, in
#                          BOOT_LEAKS) are saved in
#                          results/kmemleak-boot.txt and then cleared
#   kcheck_mark            the dmesg line from which kcheck_splats reads
#   kcheck_splats NAME     the splats since the mark: count in SPLATS,
#                          lines in results/splats-NAME.txt
#   kcheck_kmemleak NAME   scan twice, 5 s apart; the reports in
#                          results/kmemleak-NAME.txt, their count in
#                          LEAKS; then cleared for the next NAME

RESULTS=${XSKZC_RESULTS:-/tmp}
KMEMLEAK=/sys/kernel/debug/kmemleak

# Every detector of the debug kernel, and what the plain kernel says
# about itself: KASAN, UBSAN, the DMA API's checks (WARNINGs; and the
# checker turning itself off), list corruption, lockdep (circular,
# recursive, inconsistent and IRQ-unsafe locking, RCU misuse),
# sleeping in atomic context, ODEBUG, hung tasks, RCU stalls, soft
# lockups, a softirq left pending when a CPU goes idle, the stack's TX
# watchdog, WARN/BUG/Oops, a panic, a page_pool whose pages are not
# coming back (page_pool_release_retry(): "stalled pool shutdown"), a
# netdev whose references are not coming back, kmemleak (reports, and
# the detector turning itself off): KERNEL_SPLAT_RE, which e2e.sh and
# igb-zc.sh use too. SPLAT_RE adds igb's own TX hang detector, which a
# cable pulled with frames queued may set off once: e2e's cable-pull
# tests count it in their reset-loop check, and the other jobs (the
# stress, the kunit boot, xskxceiver) allow none.
KERNEL_SPLAT_RE='WARNING:|BUG:|BUG |Oops|Call Trace|general protection|kernel BUG|Kernel panic'
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|list_add corruption|list_del corruption|refcount_t:|UBSAN|KASAN"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|DMA-API: .*(disabl|out of memory)"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|possible circular locking|possible recursive locking"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|inconsistent lock state|lock held when returning|suspicious RCU usage"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|sleeping function called from invalid context|scheduling while atomic"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|ODEBUG|blocked for more than|rcu.*(stall|detected stalls)|soft lockup"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|watchdog: |NOHZ tick-stop error|NETDEV WATCHDOG"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|stalled pool shutdown|unregister_netdevice: waiting for"
KERNEL_SPLAT_RE="$KERNEL_SPLAT_RE|new suspected memory leaks|Kernel memory leak detector disabled"
SPLAT_RE="$KERNEL_SPLAT_RE|Detected Tx Unit Hang"

KCHECK_MARK=0
SPLATS=0
LEAKS=0
BOOT_LEAKS=0

kcheck_debug_kernel() {
	case "$(uname -r)" in *-debug) return 0 ;; esac
	return 1
}

kcheck_mark() {
	KCHECK_MARK=$(dmesg | wc -l)
}

kcheck_splats() {
	local f=$RESULTS/splats-$1.txt
	dmesg | tail -n +$((KCHECK_MARK + 1)) | grep -E "$SPLAT_RE" > "$f"
	SPLATS=$(wc -l < "$f")
	[ "$SPLATS" -gt 0 ] || rm -f "$f"
}

# _kmemleak_scan FILE: two scans 5 s apart (an object is reported once
# it is 5 s old and unreferenced), the reports to FILE, count to stdout.
_kmemleak_scan() {
	echo scan > $KMEMLEAK 2>/dev/null
	sleep 5
	echo scan > $KMEMLEAK 2>/dev/null
	cat $KMEMLEAK > "$1" 2>/dev/null
	grep -c '^unreferenced object' "$1"
}

kcheck_kmemleak() {
	local f=$RESULTS/kmemleak-$1.txt
	LEAKS=0
	[ -w $KMEMLEAK ] || return 0
	LEAKS=$(_kmemleak_scan "$f")
	[ "$LEAKS" -gt 0 ] || rm -f "$f"
	echo clear > $KMEMLEAK 2>/dev/null
}

kcheck_init() {
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	kcheck_mark
	# once per boot: a job run by another one (e2e-debug) skips it
	[ -z "${KCHECK_INITED:-}" ] || return 0
	export KCHECK_INITED=1
	if kcheck_debug_kernel && [ ! -w $KMEMLEAK ]; then
		echo "kcheck: debug kernel without $KMEMLEAK (kmemleak off?)"
	fi
	if [ -w $KMEMLEAK ]; then
		BOOT_LEAKS=$(_kmemleak_scan "$RESULTS/kmemleak-boot.txt")
		[ "$BOOT_LEAKS" -gt 0 ] || rm -f "$RESULTS/kmemleak-boot.txt"
		echo clear > $KMEMLEAK
	fi
}
