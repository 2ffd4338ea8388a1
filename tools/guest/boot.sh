#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/boot.sh - guest job: report what the guest sees (CPUs,
# the two igb NICs and their queues). "make guest-boot" runs it.

. "$XSKZC_REPO/tools/guest/lib.sh"

echo "boot: $(nproc) CPUs, kernel $(uname -r)"
guest_setup || exit 1
show() {
	echo "boot: $1: driver $(basename "$(readlink "/sys/class/net/$1/device/driver")"), $(ls -d /sys/class/net/$1/queues/rx-* | wc -l) RX queues, MTU $(cat /sys/class/net/$1/mtu), $(cat /sys/class/net/$1/operstate)"
}
show $NICA
onB sh -c ". '$XSKZC_REPO/tools/guest/lib.sh'; $(typeset -f show 2>/dev/null || true)
	echo \"boot: $NICB: driver \$(basename \$(readlink /sys/class/net/$NICB/device/driver)), \$(ls -d /sys/class/net/$NICB/queues/rx-* | wc -l) RX queues, MTU \$(cat /sys/class/net/$NICB/mtu), \$(cat /sys/class/net/$NICB/operstate)\""
ping -c 1 -W 2 $IP_B >/dev/null && echo "boot: ping $IP_A -> $IP_B ok"
exit 0
