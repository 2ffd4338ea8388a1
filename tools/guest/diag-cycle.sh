#!/bin/sh
# temporary diagnostic job (not committed): fill before vs after bind
. "$XSKZC_REPO/tools/guest/lib.sh"
L=$RESULTS/diag; mkdir -p $L
guest_setup || exit 1
C=$XSKZC_REPO/build/xsk-bench/xsk-cycle
"$XSKB" txonly -m copy -i $NICA -D $MAC_B -r 10000 -d 100000 -Q > $L/tx.log 2>&1 &
S=$!
wait_ready $L/tx.log
for a in "" -L "" -L; do
	echo "== xsk-cycle $a"
	ip netns exec $NSB timeout 300 $C -i $NICB -c 64 -e 0 -o 0 -T 3 $a > $L/c$a.log 2>&1
	grep -E '^fail' $L/c$a.log | head -8
	grep summary $L/c$a.log
done
kill $S; wait $S
