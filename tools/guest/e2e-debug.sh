#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/e2e-debug.sh [CYCLES [SCALE [RATE [TEST...]]]] - guest job
# of "make e2e-debug", on the debug kernel (build/guest-x86_64-debug:
# KASAN, lockdep, atomic sleep, kmemleak, debugobjects, hung tasks).
#
# In one boot: e2e's TESTs, or all of e2e for "all" (tools/guest/e2e.sh,
# whose own per-test dmesg check now sees every detector's report); by
# default the teardown, XDP removal, cable pull, runtime suspend, SR-IOV,
# failed reopen and unbind tests, the paths where the lifecycle bugs were. A
# test takes 45 to 80 s on this kernel, the whole e2e 20 min. Then the
# lifecycle stress (tools/guest/stress.sh, CYCLES bind/unbind cycles,
# 1000 by default), whose kmemleak scan at the end finds what either
# leaked; if e2e failed, no stress (a failed test may have left the
# kernel stuck, and the run has failed anyway), a kmemleak scan alone.
# It fails on e2e failing (its exit code, or no "e2e: N passed, 0
# failed" line), a failed stress check (lost completions among them),
# any splat in dmesg (tools/guest/kcheck.sh lists what counts), any
# kmemleak report: at boot (before e2e; but those
# tools/guest/kmemleak-known lists) or after the runs, and a kmemleak
# that is off or cannot scan. Reports: results/splats-*.txt,
# results/kmemleak-*.txt; e2e's logs in results/e2e/, the stress's in
# results/stress/.
#
# The debug kernel moves frames through the stack 20 to 40 times slower
# than the plain one (700 pps from a copy-mode sender under TCG): e2e
# runs with its frame counts and rates at SCALE percent (2: 500 pps,
# each test as long as on the plain kernel), the stress's sender at
# RATE pps (200).
#
# Ends with "e2e-debug: OK" or "e2e-debug: FAILED".

. "$XSKZC_REPO/tools/guest/kcheck.sh"

CYCLES=${1:-1000}
export E2E_SCALE=${2:-2}
export STRESS_RATE=${3:-200}
[ $# -lt 3 ] || shift 3
TESTS=${*:-teardown xdp-remove link-flap-zc-tx runtime-pm-bound sriov-bound failed-reopen failed-reinit-suspend unbind-up}
[ "$TESTS" != all ] || TESTS=
rc=0

kcheck_debug_kernel ||
	echo "e2e-debug: warning: kernel $(uname -r) is not the debug kernel"
kcheck_init || rc=1
kcheck_boot_leaks e2e-debug || rc=1

# e2e: its PASS/FAIL lines as they come; its exit code.
kcheck_mark
# shellcheck disable=SC2086
{
	"$XSKZC_REPO/tools/guest/e2e.sh" $TESTS
	echo $? > "$RESULTS/e2e.rc"
} | tee "$RESULTS/e2e.out"
e2e_rc=$(cat "$RESULTS/e2e.rc" 2>/dev/null || echo 1)
e2e_ok=1
[ "$e2e_rc" = 0 ] && grep -q '^e2e: [0-9]* passed, 0 failed' "$RESULTS/e2e.out" || e2e_ok=0
[ $e2e_ok -eq 1 ] || rc=1
kcheck_splats e2e
e2e_splats=$SPLATS
# No kmemleak scan here when the stress follows: what e2e leaked is
# still unreferenced when the stress scans at its end, and a scan costs
# a minute on this kernel.

# The stress, if e2e passed: a failed test may have left a task stuck
# in the kernel, or RTNL held, and the stress would hang behind it.
# Whether it did is e2e's business, not a message of its to match: a
# kmemleak scan alone then (it needs no lock a stuck test holds).
if [ $e2e_ok -eq 0 ]; then
	echo "e2e-debug: stress skipped: e2e failed (exit $e2e_rc); kmemleak scan only"
	stress_splats=-
	kcheck_kmemleak e2e || rc=1
	stress_leaks=$LEAKS
else
	"$XSKZC_REPO/tools/guest/stress.sh" cycles "$CYCLES" | tee "$RESULTS/stress.out"
	grep -q '^stress: OK' "$RESULTS/stress.out" || rc=1
	l=$(grep '^stress: splats=' "$RESULTS/stress.out" | tail -n 1)
	stress_splats=$(echo "$l" | sed -n 's/.*splats=\([0-9]*\).*/\1/p')
	stress_leaks=$(echo "$l" | sed -n 's/.*kmemleak=\([0-9]*\).*/\1/p')
	stress_splats=${stress_splats:-?} stress_leaks=${stress_leaks:-?}
fi

[ "$e2e_splats" = 0 ] || rc=1
[ "$stress_splats" = 0 ] || [ "$stress_splats" = - ] || rc=1
[ "$stress_leaks" = 0 ] || rc=1

for f in "$RESULTS"/splats-e2e.txt "$RESULTS"/splats-stress.txt; do
	[ -f "$f" ] && head -n 5 "$f" | sed "s|^|e2e-debug: splat ($(basename "$f" .txt)): |"
done
for f in "$RESULTS"/kmemleak-e2e.txt "$RESULTS"/kmemleak-stress.txt; do
	[ -f "$f" ] && grep -A8 -m 3 '^unreferenced object' "$f" |
		sed "s|^|e2e-debug: leak ($(basename "$f" .txt)): |"
done
echo "e2e-debug: $(grep '^e2e: ' "$RESULTS/e2e.out" | tail -n 1); $(grep '^stress: cycles=' "$RESULTS/stress.out" 2>/dev/null | tail -n 1 | cut -d' ' -f2-)"
echo "e2e-debug: splats e2e=$e2e_splats stress=$stress_splats; kmemleak e2e+stress=$stress_leaks boot=$BOOT_LEAKS"
if [ $rc -eq 0 ]; then
	echo "e2e-debug: OK"
else
	echo "e2e-debug: FAILED"
fi
exit $rc
