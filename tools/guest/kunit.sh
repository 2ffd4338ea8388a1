#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/kunit.sh - guest job of "make kunit", on the debug kernel
# (build/guest-x86_64-debug), which has the project's KUnit suites built
# in (tools/configs/guest-debug.config).
#
# The suites have already run when this starts: built-in KUnit tests run
# at boot, before init, unless the command line says kunit.enable=0
# (tools/guest/run.sh says it for every other job). This saves the
# kernel's log, where KUnit writes its KTAP results at KERN_INFO (the
# console shows only warnings), in results/kunit.log for the host's
# kunit.py to parse, and fails on any splat in it (tools/guest/kcheck.sh
# lists what counts) but the one a test sets off on purpose: a KASAN
# report fails the test it happens in by itself, a lockdep or WARN
# report does not. Then kmemleak scans (kcheck.sh's kcheck_init: boot
# and the suites): any report that tools/guest/kmemleak-known does not
# list fails the job (results/kmemleak-boot.txt), and so does a
# kmemleak that is off or cannot scan.
#
# Ends with "kunit: guest OK" or "kunit: guest FAILED".

. "$XSKZC_REPO/tools/guest/kcheck.sh"

kcheck_debug_kernel ||
	echo "kunit: warning: kernel $(uname -r) is not the debug kernel"
dmesg > "$RESULTS/kunit.log"
if ! grep -q 'KTAP version' "$RESULTS/kunit.log"; then
	echo "kunit: no KTAP output in the kernel log: were the suites built in and enabled?"
	echo "kunit: guest FAILED"
	exit 1
fi
# The whole boot counts: the suites ran before the job started. Each
# splat line goes to the test whose result line follows it.
awk -v re="$SPLAT_RE" '
	{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
	$0 ~ re { held[n++] = $0; next }
	/^ *(not )?ok [0-9]+ / && n {
		t = $0
		sub(/^ *(not )?ok [0-9]+ /, "", t)
		sub(/ .*/, "", t)
		for (i = 0; i < n; i++)
			print t "\t" held[i]
		n = 0
	}
	END { for (i = 0; i < n; i++) print "(after the last test)\t" held[i] }
' "$RESULTS/kunit.log" > "$RESULTS/splats-kunit-by-test.txt"
# The one splat a test sets off on purpose: the DMA API warns, once per
# boot, on a mapping through a device without a DMA mask, which is how
# the pool suite makes the UMEM's mapping fail (dma_map_phys() in 7.2,
# the format of 7.2's __warn()).
EXPECTED='^failed_dma_map_leaves_the_queue_untouched	(WARNING: kernel/dma/mapping\.c:[0-9]+ at dma_map_phys\+|Call Trace:$)'
rc=0
bad=$(grep -v -E "$EXPECTED" "$RESULTS/splats-kunit-by-test.txt")
if [ -n "$bad" ]; then
	echo "kunit: splats in the kernel log, by test (results/splats-kunit-by-test.txt):"
	echo "$bad" | head -n 20 | sed 's/^/kunit:   /'
	rc=1
else
	splats=$(wc -l < "$RESULTS/splats-kunit-by-test.txt")
	[ "$splats" -eq 0 ] ||
		echo "kunit: $splats splat lines, all expected (results/splats-kunit-by-test.txt)"
fi

# What the suites (or boot) allocated and lost. The suites have ended:
# every object they freed is gone, every one they still hold is
# referenced from somewhere kmemleak scans.
kcheck_init || rc=1
kcheck_boot_leaks kunit || rc=1
[ ! -e "$KMEMLEAK" ] ||
	echo "kunit: kmemleak: $BOOT_LEAKS reports after the suites, $BOOT_KNOWN listed as known"
if [ $rc -eq 0 ]; then
	echo "kunit: guest OK"
else
	echo "kunit: guest FAILED"
fi
exit $rc
