#!/bin/sh
# temporary diagnostic job (not committed): ZC rxdrop bound under traffic
. "$XSKZC_REPO/tools/guest/lib.sh"
L=$RESULTS/diag; mkdir -p $L
guest_setup || exit 1
st() { onB ethtool -S $NICB | grep -E 'rx_queue_[01]_(packets|drops)|rx_packets|rx_no_buffer|rx_missed|rx_fifo'| tr -s ' ' | tr '\n' ' '; echo; }
"$XSKB" txonly -m copy -i $NICA -D $MAC_B -s 64 -d 100000 -I 5 > $L/tx.log 2>&1 &
S=$!
wait_ready $L/tx.log
for r in 1 2 3; do
for v in "" -N -p; do
	echo "== round $r variant '$v'"
	echo "before: $(st)"
	ip netns exec $NSB "$XSKB" rxdrop -m zc -i $NICB -d 8 $v -I 1 > $L/rx.$r$v.log 2>&1 &
	R=$!
	wait_ready $L/rx.$r$v.log
	echo "ready: $(st)"
	onB ethtool -d $NICB 2>&1 | grep -i -E '^ *(0x0*28(1|0)(0|1)(0|8)|.*RDH|.*RDT|.*RXDCTL)' | head -12
	sleep 4
	echo "mid: $(st)"
	onB ethtool -d $NICB 2>&1 | grep -i -E 'RDH|RDT' | head -6
	grep '^t=' $L/rx.$r$v.log | tail -2
	onB cat /proc/interrupts | grep -E 'nicb|eth|CPU' | head -8
	wait $R
	echo "after: $(st)"
	grep summary $L/rx.$r$v.log | tr ' ' '\n' | grep -E '^(rx|xsk_.*|lost|foreign)=' | tr '\n' ' '; echo
done
done
kill $S; wait $S
dmesg | tail -20
