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
# Exits with the job's exit code, or 1 if the guest crashed, timed out or
# did not power off by itself once the job had ended (a kernel stuck
# behind the job: a task in D state, RTNL held, is a failure even when
# the job's own checks passed).
#
# Host-side requests: QEMU's QMP monitor listens on results/qmp.sock.
# The job asks for a host action by writing results/hostreq/ID.req, one
# line "set_link NIC on|off" (NIC: nica or nicb, or their netdevs p0 and
# p1); this script runs it over QMP and answers in results/hostreq/ID.ans
# ("ok" or "error: ..."), logging it in results/hostreq.log. lib.sh's
# host_link() is the guest side.
#
# A job that may crash the guest keeps in results/on-crash.txt what to
# report if it does: if the guest dies or times out before the job ends,
# that file is printed and appended to output.log.
#
# Acceleration: TCG (multi-threaded). /dev/kvm may be a nested hypervisor
# that hangs ordinary guests, so KVM is used only when XSKZC_ACCEL=kvm.

set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
JOB=${1:?usage: run.sh JOB [TIMEOUT_S] [ARGS]}
TIMEOUT=${2:-600}
ARGS=${3:-}
# XSKZC_NIC: igb, tsnep or virtio, all on the project's QEMU ("make
# qemu": its tsnep model, QEMU's igb model with the fixes of
# tools/qemu/patches, QEMU's virtio-net); for tsnep the guest loads the
# PCI shim of tools/guest/tsnep-shim/, "make tsnep-shim"). A tsnep or
# virtio run has its own results and cache: build/guest-run/JOB-tsnep,
# build/guest-cache/JOB-tsnep.
NIC=${XSKZC_NIC:-igb}
RUN=$JOB
[ "$NIC" = igb ] || RUN=$JOB-$NIC
# XSKZC_RUN_TAG: results and cache of their own, JOB[-NIC]-TAG ("make
# e2e-pristine": pristine).
[ -z "${XSKZC_RUN_TAG:-}" ] || RUN=$RUN-$XSKZC_RUN_TAG
RES=$REPO/build/guest-run/$RUN
# XSKZC_KERNEL: another bzImage (the debug one), XSKZC_MEM: MiB of RAM.
KERNEL=${XSKZC_KERNEL:-$REPO/build/guest-x86_64/arch/x86/boot/bzImage}
MEM=${XSKZC_MEM:-1024}
ACCEL=${XSKZC_ACCEL:-tcg}
QEMU=$REPO/build/qemu/src/build/qemu-system-x86_64
case "$NIC" in
igb|tsnep|virtio) ;;
*) echo "guest: error: XSKZC_NIC=$NIC: igb, tsnep or virtio" >&2; exit 2 ;;
esac

die() { echo "guest: error: $*" >&2; exit 2; }

[ "${XSKZC_PROFILE:-0}" != 1 ] || [ "${XSKZC_INSN:-0}" = 1 ] ||
	die "XSKZC_PROFILE=1 needs XSKZC_INSN=1 (make bench: BENCH_INSN=1)"
[ -f "$KERNEL" ] || die "no guest kernel: run make guest"
[ -x "$REPO/tools/guest/$JOB.sh" ] || die "no job tools/guest/$JOB.sh"
[ -x "$QEMU" ] || die "no QEMU at $QEMU: make qemu"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
command -v $PY >/dev/null || die "python3 not installed (the QMP client)"
case "$REPO" in *[[:space:],]*) die "the repo path must not contain spaces or commas" ;; esac

case "$ACCEL" in
kvm) accel=(-accel kvm -cpu host) ;;
*) accel=(-accel tcg,thread=multi -cpu max) ;;
esac

# XSKZC_REUSE=1 ("make check" sets it): a job that passed before with
# the same inputs is not booted again; its results of that pass are put
# back in build/guest-run/JOB and its output is printed again, under a
# line that says so. The inputs: the job, its time limit and ARGS, the
# guest's memory and accelerator, its trace events, the plugin's modes
# (XSKZC_INSN, XSKZC_PROFILE), the kernel image, QEMU's binary, every
# file of tools/guest, tools/xskxceiver, tools/xsk-bench and tools/qemu
# (the model, its patches and tests), and dpkg's
# status file (the guest runs the host's installed programs, and the
# test tools are built from those sources with them: "make check"
# builds the tools before the jobs that use them, so their binaries,
# which exist for some jobs and not yet for others, are not hashed).
# Only a clean pass is kept, in build/guest-cache/JOB: the job's rc 0, no
# kernel crash on the console, and a guest that powered off by itself
# (QEMU's exit 0). The cache's "clean" file says so; an entry without it
# (a stuck or failed run, or one kept by an older run.sh) is never used.
CACHE=$REPO/build/guest-cache/$RUN
inputs_key() {
	{
		echo "$JOB $TIMEOUT $ARGS $MEM $ACCEL $NIC ${XSKZC_TRACE:-} ${XSKZC_INSN:-0} ${XSKZC_PROFILE:-0}"
		$QEMU --version | head -n 1
		sha256sum "$KERNEL" "$QEMU" /var/lib/dpkg/status | cut -d ' ' -f 1
		(cd "$REPO" && find tools/guest tools/xskxceiver tools/xsk-bench \
			tools/qemu -type f |
			LC_ALL=C sort | xargs -r sha256sum)
	} | sha256sum | cut -d ' ' -f 1
}
key=
if [ "${XSKZC_REUSE:-0}" = 1 ]; then
	key=$(inputs_key)
	if [ -f "$CACHE/key" ] && [ "$(cat "$CACHE/key")" = "$key" ] &&
	   [ -f "$CACHE/clean" ] &&
	   [ -f "$CACHE/res/rc" ] && [ "$(cat "$CACHE/res/rc")" = 0 ]; then
		rm -rf "$RES"
		cp -a "$CACHE/res" "$RES"
		echo "guest: $JOB passed on $(date -r "$CACHE/key" '+%F %T') with the same inputs; not run again (XSKZC_REUSE=0 runs it). Its output then:"
		cat "$RES/output.log"
		echo "guest: $JOB: reused the pass of $(date -r "$CACHE/key" '+%F %T') (rc 0)"
		exit 0
	fi
fi

rm -rf "$RES"
mkdir -p "$RES/hostreq"
# A unix socket path has at most 107 bytes.
QMP=$RES/qmp.sock
qmpdir=
if [ ${#QMP} -gt 100 ]; then
	qmpdir=$(mktemp -d)
	QMP=$qmpdir/qmp.sock
fi

cmdline="console=ttyS0 loglevel=4 panic=-1"
cmdline+=" root=host0 rootfstype=9p ro"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
cmdline+=" init=$REPO/tools/guest/init xskzc.repo=$REPO xskzc.job=$JOB"
[ -n "$ARGS" ] && cmdline+=" xskzc.args=$ARGS"
cmdline+=" xskzc.nic=$NIC"
# The job's time limit, for a job that would rather skip what it has no
# time left for than be cut.
cmdline+=" xskzc.timeout=$TIMEOUT"
# A kernel with KUnit suites built in (the debug one) runs them at boot
# only for the kunit job; a kernel without KUnit ignores the parameter.
[ "$JOB" = kunit ] || cmdline+=" kunit.enable=0"
# IPv6 is there for sockets (xdp_hw_metadata's), not on any interface of
# any namespace: no neighbour or router discovery frames on the test
# links. A kernel without IPv6 ignores the parameter.
cmdline+=" ipv6.disable_ipv6=1"

# Two igb PFs on one hub. Each PF reserves device functions for its VFs,
# so the two sit far apart on the bus.
qemu_args=(
	-M q35 "${accel[@]}" -smp 2 -m "$MEM"
	-nodefaults -no-reboot -display none -monitor none -serial stdio
	-qmp "unix:$QMP,server=on,wait=off"
	-kernel "$KERNEL" -append "$cmdline"
	-virtfs local,path=/,mount_tag=host0,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=$RES,mount_tag=results,security_model=none"
	-netdev hubport,id=p0,hubid=0
	-netdev hubport,id=p1,hubid=0
)
# SeaBIOS (Debian's seabios) and the option ROMs of qemu-system-data:
# the +ds source has no blobs.
qemu_args+=(-L /usr/share/seabios -L /usr/share/qemu)
case "$NIC" in
igb) qemu_args+=(
	-device igb,netdev=p0,bus=pcie.0,addr=0x4,mac=52:54:00:12:34:0a
	-device igb,netdev=p1,bus=pcie.0,addr=0x8,mac=52:54:00:12:34:0b) ;;
tsnep) qemu_args+=(
	-device tsnep-pci,netdev=p0,bus=pcie.0,addr=0x4,mac=52:54:00:12:34:0a
	-device tsnep-pci,netdev=p1,bus=pcie.0,addr=0x8,mac=52:54:00:12:34:0b) ;;
# virtio_net maps AF_XDP buffers only through the DMA API, which a virtio
# device uses only when it offers VIRTIO_F_ACCESS_PLATFORM
# (iommu_platform, a modern device's); without it a zero-copy bind fails
# with EINVAL (virtqueue_dma_dev() is NULL). The RX ring as deep as QEMU
# allows (its TX ring stays at 256 on a hub). No option ROM: the guest
# boots no firmware from the NIC, and Debian's +ds QEMU has none.
virtio)
	vnet=disable-legacy=on,iommu_platform=on,rx_queue_size=1024,romfile=
	qemu_args+=(
	-device virtio-net-pci,netdev=p0,bus=pcie.0,addr=0x4,mac=52:54:00:12:34:0a,$vnet
	-device virtio-net-pci,netdev=p1,bus=pcie.0,addr=0x8,mac=52:54:00:12:34:0b,$vnet) ;;
esac

# XSKZC_TRACE: QEMU trace events to log, patterns separated by commas
# ("e1000x_rx_*,e1000e_rx_not_written_to_guest"), into
# build/guest-run/JOB/qemu-trace.log.
if [ -n "${XSKZC_TRACE:-}" ]; then
	for t in ${XSKZC_TRACE//,/ }; do
		qemu_args+=(-trace "enable=$t")
	done
	qemu_args+=(-D "$RES/qemu-trace.log")
fi

# XSKZC_INSN=1: the TCG plugin build/qemu/libxskzc-insn.so
# (tools/qemu/xskzc-insn.c) counts the guest's instructions into
# results/insn.txt, for "make bench".
# XSKZC_PROFILE=1 (with XSKZC_INSN=1 only): the plugin also profiles the
# guest kernel between the first and the last mark of the run, per
# translation block, into results/profile.txt, for tools/insn-profile.pl
# (its header says how). A callback on every kernel block: slower, for
# runs of their own.
if [ "${XSKZC_INSN:-0}" = 1 ]; then
	plugin=$REPO/build/qemu/libxskzc-insn.so
	[ -f "$plugin" ] || die "no $plugin: make qemu"
	popt=
	[ "${XSKZC_PROFILE:-0}" != 1 ] || popt=",profile=$RES/profile.txt"
	qemu_args+=(-plugin "$plugin,out=$RES/insn.txt$popt")
fi

start=$(date +%s)
echo "guest: booting ($ACCEL, 2 CPUs, $NIC NICs) for $JOB, at most $TIMEOUT s; console: build/guest-run/$RUN/console.log"
timeout -k 5 "$TIMEOUT" $QEMU "${qemu_args[@]}" > "$RES/console.log" 2>&1 < /dev/null &
qpid=$!
tail -n +1 -F --pid=$qpid "$RES/console.log" 2>/dev/null |
	grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\]|^$|is not connected to host network' &
tpid=$!
cleanup() {
	kill $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	kill $tpid 2>/dev/null
	[ -z "$qmpdir" ] || rm -rf "$qmpdir"
}

# The guest's requests (see the top): each answered once, oldest first.
serve_requests() {
	local req id verb nic state dev up ans
	for req in "$RES"/hostreq/*.req; do
		[ -f "$req" ] || return 0
		id=${req%.req}
		verb='' nic='' state=''
		read -r verb nic state < "$req"
		rm -f "$req"
		case "$nic" in
		nica | p0) dev=p0 ;;
		nicb | p1) dev=p1 ;;
		*) dev= ;;
		esac
		if [ "$verb" != set_link ] || [ -z "$dev" ] ||
		   { [ "$state" != on ] && [ "$state" != off ]; }; then
			ans="error: bad request: $verb $nic $state"
		else
			up=true
			[ "$state" = on ] || up=false
			ans=$(timeout -k 2 10 $PY "$REPO/tools/guest/qmp.py" "$QMP" \
				set_link "{\"name\": \"$dev\", \"up\": $up}" 2>&1 | tail -n 1)
			[ -n "$ans" ] || ans="error: no answer from qmp.py"
		fi
		echo "$(date +%T.%N | cut -c1-12) $verb $nic($dev) $state: $ans" >> "$RES/hostreq.log"
		echo "$ans" > "$id.ans.tmp" && mv "$id.ans.tmp" "$id.ans"
	done
}

# The job's report for a guest that died under it.
on_crash() {
	[ -f "$RES/on-crash.txt" ] || return 0
	echo "guest: the job's report for a guest that died under it:"
	cat "$RES/on-crash.txt"
	cat "$RES/on-crash.txt" >> "$RES/output.log"
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
	serve_requests
	sleep 0.2
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
	on_crash
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
	on_crash
	exit 1
fi
rc=$(cat "$RES/rc")
echo "guest: $JOB finished in $elapsed s (rc $rc)"
# A plugin built before profile= ignores it.
[ "${XSKZC_PROFILE:-0}" != 1 ] || [ -s "$RES/profile.txt" ] ||
	echo "guest: warning: XSKZC_PROFILE=1 but no build/guest-run/$RUN/profile.txt (an older plugin? make qemu)"
# A failed, crashed or stuck run is never reused: drop what an earlier
# pass with other inputs left, so that nothing can stand for this run.
[ -z "$key" ] || rm -rf "$CACHE"
[ -z "$crash" ] || exit 1
# The job ended, but the guest did not power off: something in the
# kernel (a task stuck in D state, RTNL held) kept init's shutdown from
# ending, or QEMU was stopped for it. The job's verdict cannot stand.
if [ $stuck -ne 0 ] || [ $qrc -ne 0 ]; then
	how="QEMU exit $qrc"
	[ $stuck -eq 0 ] || how="stopped 20 s after the job"
	echo "guest: the console's last lines:"
	grep -v -E '^\[ *[0-9]+\.[0-9]+\] *$' "$RES/console.log" | tail -n 20
	echo "guest: FAIL: $JOB ended (rc $rc), but the guest did not power off by itself ($how): the kernel is stuck behind it (console: build/guest-run/$RUN/console.log)"
	exit 1
fi
# A job that passed with a verdict it would rather see again (a FLAKY:
# xskxceiver.sh) leaves results/no-reuse: its pass is not kept either.
if [ -n "$key" ] && [ "$rc" = 0 ] && [ ! -e "$RES/no-reuse" ]; then
	mkdir -p "$CACHE"
	rm -f "$RES/qmp.sock"
	cp -a "$RES" "$CACHE/res" && echo "$key" > "$CACHE/key" &&
		echo "rc 0, powered off, no crash" > "$CACHE/clean"
fi
exit "$rc"
