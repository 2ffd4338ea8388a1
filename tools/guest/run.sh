#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/run.sh JOB [TIMEOUT_S] [ARGS] - boot the QEMU test guest
# and run tools/guest/JOB.sh in it.
#
# The guest runs the kernel of build/guest-x86_64 ("make guest") on the
# host's root file system shared read-only over 9p, with two igb (82576)
# NICs wired to each other through a QEMU hub and nothing else. Its
# results directory, build/guest-run/JOB/, is shared writable: the job's
# output.log, dmesg.txt, rc and whatever the job writes there, plus the
# serial console in console.log.
#
# Bounded by TIMEOUT_S (default 600); no QEMU is left running, whatever
# happens. ARGS (comma separated, no spaces) are passed to the job.
# Exits with the job's exit code, or 1 if the guest crashed or timed out.
#
# Acceleration: TCG (multi-threaded). /dev/kvm may be a nested hypervisor
# that hangs ordinary guests, so KVM is used only when XSKZC_ACCEL=kvm.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
JOB=${1:?usage: run.sh JOB [TIMEOUT_S] [ARGS]}
TIMEOUT=${2:-600}
ARGS=${3:-}
RES=$REPO/build/guest-run/$JOB
# XSKZC_KERNEL: another bzImage (the debug one), XSKZC_MEM: MiB of RAM.
KERNEL=${XSKZC_KERNEL:-$REPO/build/guest-x86_64/arch/x86/boot/bzImage}
MEM=${XSKZC_MEM:-1024}
ACCEL=${XSKZC_ACCEL:-tcg}
QEMU=qemu-system-x86_64

die() { echo "guest: error: $*" >&2; exit 2; }

[ -f "$KERNEL" ] || die "no guest kernel: run make guest"
[ -x "$REPO/tools/guest/$JOB.sh" ] || die "no job tools/guest/$JOB.sh"
command -v $QEMU >/dev/null || die "$QEMU not installed: tools/qemu-deps.sh"
case "$REPO" in *[[:space:],]*) die "the repo path must not contain spaces or commas" ;; esac

case "$ACCEL" in
kvm) accel=(-accel kvm -cpu host) ;;
*) accel=(-accel tcg,thread=multi -cpu max) ;;
esac

rm -rf "$RES"
mkdir -p "$RES"

cmdline="console=ttyS0 loglevel=4 panic=-1"
cmdline+=" root=host0 rootfstype=9p ro"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
cmdline+=" init=$REPO/tools/guest/init xskzc.repo=$REPO xskzc.job=$JOB"
[ -n "$ARGS" ] && cmdline+=" xskzc.args=$ARGS"

# Two igb PFs on one hub. Each PF reserves device functions for its VFs,
# so the two sit far apart on the bus.
qemu_args=(
	-M q35 "${accel[@]}" -smp 2 -m "$MEM"
	-nodefaults -no-reboot -display none -monitor none -serial stdio
	-kernel "$KERNEL" -append "$cmdline"
	-virtfs local,path=/,mount_tag=host0,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=$RES,mount_tag=results,security_model=none"
	-netdev hubport,id=p0,hubid=0
	-device igb,netdev=p0,bus=pcie.0,addr=0x4,mac=52:54:00:12:34:0a
	-netdev hubport,id=p1,hubid=0
	-device igb,netdev=p1,bus=pcie.0,addr=0x8,mac=52:54:00:12:34:0b
)

start=$(date +%s)
echo "guest: booting ($ACCEL, 2 CPUs) for $JOB, at most $TIMEOUT s; console: build/guest-run/$JOB/console.log"
timeout -k 5 "$TIMEOUT" $QEMU "${qemu_args[@]}" > "$RES/console.log" 2>&1 < /dev/null &
qpid=$!
tail -n +1 -F --pid=$qpid "$RES/console.log" 2>/dev/null |
	grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\]|^$|is not connected to host network' &
tpid=$!
cleanup() {
	kill $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	kill $tpid 2>/dev/null
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT
# The job has finished once results/rc exists; a guest that then fails to
# power off (a shutdown stuck behind a hung task) is stopped 20 s later.
stuck=0
while kill -0 $qpid 2>/dev/null; do
	if [ -f "$RES/rc" ] && [ $(( $(date +%s) - $(stat -c %Y "$RES/rc") )) -ge 20 ]; then
		stuck=1
		kill $qpid 2>/dev/null
		break
	fi
	sleep 1
done
wait $qpid
qrc=$?
[ $stuck -eq 0 ] || echo "guest: did not power off 20 s after the job; stopped"
sleep 1
kill $tpid 2>/dev/null
wait $tpid 2>/dev/null
elapsed=$(( $(date +%s) - start ))

if [ ! -f "$RES/rc" ] && { [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; }; then
	echo "guest: TIMEOUT after $elapsed s (limit $TIMEOUT s)"
	tail -n 20 "$RES/console.log"
	exit 1
fi
# A kernel crash anywhere (the job's own dmesg checks see the warnings).
crash=$(grep -n -E '^\[ *[0-9]+\.[0-9]+\] .*(Kernel panic|Oops|BUG:|kernel BUG|general protection fault|Call Trace)' \
	"$RES/console.log" | grep -v 'Attempted to kill init' | head -5)
if [ -n "$crash" ]; then
	echo "guest: kernel crash on the console:"
	echo "$crash"
fi
if [ ! -f "$RES/rc" ]; then
	echo "guest: the job did not finish (QEMU exit $qrc after $elapsed s)"
	tail -n 30 "$RES/console.log"
	exit 1
fi
rc=$(cat "$RES/rc")
echo "guest: $JOB finished in $elapsed s (rc $rc)"
[ -z "$crash" ] || exit 1
exit "$rc"
