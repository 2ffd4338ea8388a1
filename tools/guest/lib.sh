# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/lib.sh - sourced by the guest jobs (e2e.sh, bench.sh).
#
# The guest has two NICs on one QEMU hub: igb, or tsnep with
# XSKZC_NIC=tsnep (run.sh). guest_setup() names them nica (MAC ...:0a,
# root namespace, 192.0.2.1) and nicb (MAC ...:0b, network namespace
# nsb, 192.0.2.2), so that the stack between them
# really crosses the wire. Run anything on nicb through onB.
# The addresses are from TEST-NET-1; the hub has no way out of QEMU.

XSKB=$XSKZC_REPO/build/xsk-bench/xsk-bench
RESULTS=${XSKZC_RESULTS:-/tmp}
MAC_A=52:54:00:12:34:0a
MAC_B=52:54:00:12:34:0b
NICA=nica
NICB=nicb
NSB=nsb
IP_A=192.0.2.1
IP_B=192.0.2.2

onB() { ip netns exec "$NSB" "$@"; }

ifname_of_mac() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && basename "$d"
	done
}

# wait_up IFACE [TRIES]: wait (50 ms steps, default 10 s) for the link.
wait_up() {
	local n=${2:-200}
	while [ "$n" -gt 0 ]; do
		[ "$(cat "/sys/class/net/$1/operstate" 2>/dev/null)" = up ] && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# nic_driver: with XSKZC_NIC=tsnep (run.sh), load the PCI shim that turns
# the project's QEMU tsnep-pci devices into the platform devices the
# tsnep driver binds to (build/tsnep-shim, "make tsnep-shim"), and wait
# (up to 10 s) for both netdevs. On the debug kernel, tsnep is a module
# too: both from build/tsnep-shim-debug ("make tsnep-shim-debug"), the
# driver first; the pristine kernel's shim is build/tsnep-shim-pristine.
# Nothing to do for igb and virtio.
nic_driver() {
	local dir=$XSKZC_REPO/build/tsnep-shim
	[ "${XSKZC_NIC:-igb}" = tsnep ] || return 0
	case "$(uname -r)" in
	*-debug) dir=$dir-debug ;;
	*-pristine) dir=$dir-pristine ;;
	esac
	if [ ! -d /sys/bus/platform/drivers/tsnep ]; then
		insmod "$dir/tsnep.ko" ||
			{ echo "setup: cannot load $dir/tsnep.ko"; return 1; }
	fi
	if [ ! -d /sys/bus/pci/drivers/tsnep-pci-shim ]; then
		insmod "$dir/tsnep-pci-shim.ko" ||
			{ echo "setup: cannot load the tsnep shim"; return 1; }
	fi
	wait_mac $MAC_A $MAC_B && return 0
	echo "setup: no tsnep netdevs after loading the shim"
	return 1
}

# wait_mac MAC...: wait (50 ms steps, 10 s) for a netdev with each MAC,
# as a driver that binds a NIC registers it.
wait_mac() {
	local n=200 m missing
	while :; do
		missing=
		for m in "$@"; do
			[ -n "$(ifname_of_mac "$m")" ] || missing=$m
		done
		[ -z "$missing" ] && return 0
		[ "$n" -gt 0 ] || return 1
		sleep 0.05
		n=$((n - 1))
	done
}

# nica_setup IFNAME: the NIC of MAC_A as nica, at boot and when its
# driver binds it again: the name, deep rings (a busy vCPU must not
# overflow the 256 default), its address, up with its link.
nica_setup() {
	ip link set "$1" name $NICA || return 1
	ethtool -G $NICA rx 4096 tx 4096 >/dev/null 2>&1
	ip addr add $IP_A/24 dev $NICA
	ip link set $NICA up
	wait_up $NICA || { echo "setup: $NICA link down"; return 1; }
}

guest_setup() {
	local a b
	nic_driver || return 1
	a=$(ifname_of_mac $MAC_A)
	b=$(ifname_of_mac $MAC_B)
	if [ -z "$a" ] || [ -z "$b" ]; then
		echo "setup: the two ${XSKZC_NIC:-igb} NICs are missing; have: $(ls /sys/class/net)"
		return 1
	fi
	ip link set lo up
	ip link set "$b" name $NICB || return 1
	ip netns add $NSB || return 1
	ip link set $NICB netns $NSB || return 1
	onB ip link set lo up
	onB ethtool -G $NICB rx 4096 tx 4096 >/dev/null 2>&1
	onB ip addr add $IP_B/24 dev $NICB
	onB ip link set $NICB up
	nica_setup "$a" || return 1
	onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; wait_up $NICB" ||
		{ echo "setup: $NICB link down"; return 1; }
	return 0
}

# field NAME LINE: value of NAME= in a summary line.
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}

# summary_of FILE: the summary line of an xsk-bench log.
summary_of() {
	grep '^summary ' "$1" 2>/dev/null | tail -n1
}

# wait_ready FILE [TRIES]: wait (50 ms steps, default 20 s) for "ready"
# or a summary (failure) in an xsk-bench log.
wait_ready() {
	local n=${2:-400}
	while [ "$n" -gt 0 ]; do
		grep -q -E '^(ready|summary )' "$1" 2>/dev/null && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# host_link NIC on|off: have the host (run.sh, over QEMU's QMP) set the
# link of NIC's QEMU netdev (nica: p0, nicb: p1), as a cable pulled or
# plugged back. Waits up to 10 s for the host's answer; says why on
# stderr and returns 1 if it fails or never comes.
host_link() {
	local d id n ans
	d=$RESULTS/hostreq
	[ -d "$d" ] || { echo "host_link: no $d (run.sh too old?)" >&2; return 1; }
	id=$(date +%s%N).$$
	echo "set_link $1 $2" > "$d/$id.tmp" && mv "$d/$id.tmp" "$d/$id.req" ||
		return 1
	n=200
	while [ $n -gt 0 ]; do
		if [ -f "$d/$id.ans" ]; then
			ans=$(cat "$d/$id.ans")
			rm -f "$d/$id.ans"
			[ "$ans" = ok ] && return 0
			echo "host_link $1 $2: $ans" >&2
			return 1
		fi
		sleep 0.05
		n=$((n - 1))
	done
	rm -f "$d/$id.req"
	echo "host_link $1 $2: no answer from the host in 10 s" >&2
	return 1
}

# wait_down IFACE [TRIES]: wait (50 ms steps, default 10 s) for the link
# to go down.
wait_down() {
	local n=${2:-200}
	while [ "$n" -gt 0 ]; do
		[ "$(cat "/sys/class/net/$1/operstate" 2>/dev/null)" != up ] && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# --- frame metadata as the stack sees it (tools/guest/py) ---------------
PY=$XSKZC_REPO/tools/guest/py

# wait_line FILE REGEX [TENTHS]: wait until a line of FILE (a background
# tool's log) matches the extended REGEX, at most TENTHS tenths of a
# second (default 200). Fails if none did by then.
wait_line() {
	local f=$1 re=$2 n=${3:-200}
	until grep -q -E -- "$re" "$f" 2>/dev/null; do
		[ $n -gt 0 ] || return 1
		sleep 0.1
		n=$((n - 1))
	done
}

# rx_start FILE COUNT ETHERTYPE: receive COUNT frames of ETHERTYPE on
# nicb with rxmeta.py (one "frame ... hwts=" line each) in the
# background, pid in R, once its socket is open.
rx_start() {
	local f=$1
	shift
	onB python3 "$PY/rxmeta.py" $NICB "$@" > "$f" 2>&1 &
	R=$!
	wait_line "$f" listening
}

# hwtstamp RX_FILTER: set nicb's hardware RX timestamp filter, print the
# one the driver took ("hwtstamp nicb rx_filter=N") or the error.
hwtstamp() { onB python3 "$PY/hwtstamp.py" $NICB "$1"; }

# ptp_send COUNT GAP: PTPv2 Sync frames (EtherType 0x88f7) from nica to
# nicb, GAP s apart.
ptp_send() { python3 "$PY/ptp-send.py" $NICA $MAC_B "$@"; }

# skip_allowed JOB TEST: whether TEST of JOB may SKIP on this NIC
# (XSKZC_NIC): tools/guest/allowed-skips lists it, with the reason
# outside the project's code. Any other SKIP is a failure.
skip_allowed() {
	grep -q -E "^${XSKZC_NIC:-igb}[[:space:]]+$1[[:space:]]+$2([[:space:]]|\$)" \
		"$XSKZC_REPO/tools/guest/allowed-skips"
}
