# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/kcheck.sh - sourced by the guest jobs that read the
# kernel's own detectors back: splats in dmesg and, on the debug kernel
# (build/guest-x86_64-debug, "uname -r" ending in -debug), kmemleak.
# It holds the one list of splats every job uses (SPLAT_RE below).
#
#   kcheck_init            debugfs; on the debug kernel, once per boot, a
#                          first kmemleak scan: its reports (what boot
#                          leaked; for the kunit job, boot and the suites)
#                          that tools/guest/kmemleak-known does not list
#                          are counted in BOOT_LEAKS, and fail the job
#                          that ran the scan; all of them in
#                          results/kmemleak-boot.txt, the listed ones
#                          counted in BOOT_KNOWN; then cleared, so that
#                          later scans report only what is newer.
#                          Returns 1, with a "kcheck: error:" line, if
#                          the debug kernel's kmemleak is off or its
#                          scan fails: a leak check that did not run
#                          fails the job too.
#   kcheck_mark            the dmesg line from which kcheck_splats reads
#   kcheck_splats NAME     the splats since the mark: count in SPLATS,
#                          lines in results/splats-NAME.txt
#   kcheck_kmemleak NAME   scan twice, 5 s apart; the reports in
#                          results/kmemleak-NAME.txt, their count in
#                          LEAKS (none is excused: after kcheck_init,
#                          every one is newer than boot); then cleared
#                          for the next NAME. Returns 1 as kcheck_init.

RESULTS=${XSKZC_RESULTS:-/tmp}
KMEMLEAK=/sys/kernel/debug/kmemleak
KMEMLEAK_KNOWN=$XSKZC_REPO/tools/guest/kmemleak-known

# Every detector of the debug kernel, and what the plain kernel says
# about itself: KASAN, UBSAN, the DMA API's checks (WARNINGs; and the
# checker turning itself off), list corruption, lockdep (circular,
# recursive, inconsistent and IRQ-unsafe locking, RCU misuse),
# sleeping in atomic context, ODEBUG, hung tasks, RCU stalls, soft
# lockups, a softirq left pending when a CPU goes idle, the stack's TX
# watchdog, WARN/BUG/Oops, a panic, a page_pool whose pages are not
# coming back (page_pool_release_retry(): "stalled pool shutdown"), a
# netdev whose references are not coming back, kmemleak turning itself
# off, and igb's "Detected Tx Unit Hang": SPLAT_RE, the one list every
# job uses (e2e.sh, igb-zc.sh, kunit.sh, stress.sh, e2e-debug.sh). Not
# kmemleak's "N new suspected memory leaks": only the scans below print
# it, and their callers judge every report themselves, the boot ones
# that tools/guest/kmemleak-known excuses included (e2e.sh, which looks
# at the whole dmesg, would fail on those).
# No job allows igb's TX hang report: a cable pull under TX costs igb's
# watchdog one reset, not a hang report (e2e.sh says why).
SPLAT_RE='WARNING:|BUG:|BUG |Oops|Call Trace|general protection|kernel BUG|Kernel panic'
SPLAT_RE="$SPLAT_RE|list_add corruption|list_del corruption|refcount_t:|UBSAN|KASAN"
SPLAT_RE="$SPLAT_RE|DMA-API: .*(disabl|out of memory)"
SPLAT_RE="$SPLAT_RE|possible circular locking|possible recursive locking"
SPLAT_RE="$SPLAT_RE|inconsistent lock state|lock held when returning|suspicious RCU usage"
SPLAT_RE="$SPLAT_RE|sleeping function called from invalid context|scheduling while atomic"
SPLAT_RE="$SPLAT_RE|ODEBUG|blocked for more than|rcu.*(stall|detected stalls)|soft lockup"
SPLAT_RE="$SPLAT_RE|watchdog: |NOHZ tick-stop error|NETDEV WATCHDOG"
SPLAT_RE="$SPLAT_RE|stalled pool shutdown|unregister_netdevice: waiting for"
SPLAT_RE="$SPLAT_RE|Kernel memory leak detector disabled"
SPLAT_RE="$SPLAT_RE|Detected Tx Unit Hang"

KCHECK_MARK=0
SPLATS=0
LEAKS=0
BOOT_LEAKS=0
BOOT_KNOWN=0

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
# it is 5 s old and unreferenced, and found so by two scans: the first
# one that sees it only takes its checksum), the reports to FILE.
# Returns 1 if kmemleak refused (it answers EPERM once it has turned
# itself off) or could not be read.
_kmemleak_scan() {
	echo scan 2>/dev/null > $KMEMLEAK || return 1
	sleep 5
	echo scan 2>/dev/null > $KMEMLEAK || return 1
	cat $KMEMLEAK > "$1" 2>/dev/null
}

# _kmemleak_report FILE WHAT: _kmemleak_scan into FILE where there is a
# kmemleak to ask. Returns 0 once scanned, 2 on a kernel without
# kmemleak that is not the debug one (nothing to check), 1 with the
# error said (WHAT names the scan) on a debug kernel without kmemleak
# or a scan refused.
_kmemleak_report() {
	if [ ! -e $KMEMLEAK ]; then
		kcheck_debug_kernel || return 2
		echo "kcheck: error: debug kernel without $KMEMLEAK: no leak check"
		return 1
	fi
	_kmemleak_scan "$1" && return 0
	echo "kcheck: error: $2 failed: kmemleak turned itself off? (dmesg)"
	return 1
}

# _kmemleak_known FILE: the reports of FILE whose backtrace has a
# function tools/guest/kmemleak-known lists move to FILE.known, each
# with the entry that excuses it; the others stay in FILE. Prints the
# count of the others, then of the listed ones.
_kmemleak_known() {
	awk -v known="$KMEMLEAK_KNOWN" -v out="$1.known" -v rest="$1.rest" '
		BEGIN {
			while ((getline l < known) > 0) {
				if (l ~ /^[[:space:]]*(#|$)/)
					continue
				split(l, w, /[[:space:]]+/)
				fn[w[1]] = l
			}
			printf "" > out
			printf "" > rest
		}
		function flush() {
			if (rep == "")
				return
			if (why != "") {
				printf "%s  (listed: %s)\n", rep, why > out
				k++
			} else {
				printf "%s", rep > rest
				n++
			}
			rep = why = ""
		}
		/^unreferenced object/ { flush(); on = 1 }
		on { rep = rep $0 "\n" }
		# a frame: "    [<address>] fn+0x1a/0x40", or without the
		# address (kmemleak hides it from a reader without the right)
		/^ +(\[<[0-9a-f]+>\] )?[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
			f = $NF
			sub(/\+.*/, "", f)
			if (why == "" && (f in fn))
				why = fn[f]
		}
		END { flush(); print n + 0, k + 0 }
	' "$1" && mv "$1.rest" "$1"
}

kcheck_kmemleak() {
	local f=$RESULTS/kmemleak-$1.txt
	LEAKS=0
	_kmemleak_report "$f" "kmemleak scan ($1)"
	case $? in 2) return 0 ;; 1) return 1 ;; esac
	LEAKS=$(grep -c '^unreferenced object' "$f")
	[ "$LEAKS" -gt 0 ] || rm -f "$f"
	echo clear > $KMEMLEAK 2>/dev/null
	return 0
}

kcheck_init() {
	local f=$RESULTS/kmemleak-boot.txt counts
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	kcheck_mark
	# once per boot: a job run by another one (e2e-debug) skips it
	[ -z "${KCHECK_INITED:-}" ] || return 0
	export KCHECK_INITED=1
	_kmemleak_report "$f" "kmemleak's first scan"
	case $? in 2) return 0 ;; 1) return 1 ;; esac
	counts=$(_kmemleak_known "$f")
	BOOT_LEAKS=${counts% *}
	BOOT_KNOWN=${counts#* }
	[ "$BOOT_KNOWN" -gt 0 ] || rm -f "$f.known"
	[ "$BOOT_LEAKS" -gt 0 ] || rm -f "$f"
	# what the known list excuses, said each time; an entry that
	# excuses nothing this boot may be stale
	grep -v -E '^[[:space:]]*(#|$)' "$KMEMLEAK_KNOWN" 2>/dev/null |
	while read -r fn _; do
		grep -q -F "(listed: $fn " "$f.known" 2>/dev/null ||
			echo "kcheck: note: tools/guest/kmemleak-known: $fn excused no report this boot (stale?)"
	done
	[ "$BOOT_KNOWN" -eq 0 ] ||
		echo "kcheck: kmemleak: $BOOT_KNOWN reports from boot listed in tools/guest/kmemleak-known, not counted (results/kmemleak-boot.txt.known)"
	echo clear > $KMEMLEAK
	return 0
}

# kcheck_boot_leaks WHO: WHO's line for the reports of kcheck_init's
# scan that tools/guest/kmemleak-known does not list, and the first two
# of them; returns 1 if there is any.
kcheck_boot_leaks() {
	[ "$BOOT_LEAKS" -gt 0 ] || return 0
	echo "$1: kmemleak: $BOOT_LEAKS reports from boot not listed in tools/guest/kmemleak-known (results/kmemleak-boot.txt):"
	grep -A12 -m 2 '^unreferenced object' "$RESULTS/kmemleak-boot.txt" |
		sed "s/^/$1: kmemleak: /"
	return 1
}
