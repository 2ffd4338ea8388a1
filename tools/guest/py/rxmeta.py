# SPDX-License-Identifier: GPL-2.0-only
#
# rxmeta.py IFACE COUNT ETHERTYPE - receive COUNT frames of ETHERTYPE
# (0x0003: all) on IFACE with a packet socket, PACKET_AUXDATA and
# SO_TIMESTAMPING (hardware RX), and print one line per frame:
#   frame len=N csum_valid=0|1 vlan=VID hwts=SECONDS
# hwts is 0.000000000 for a frame without a hardware timestamp.
# Prints "listening" once the socket is open; gives up after 8 s
# without a frame.
import select
import socket
import struct
import sys

SOL_PACKET, PACKET_AUXDATA = 263, 8
SO_TIMESTAMPING = 37
TP_STATUS_VLAN_VALID, TP_STATUS_CSUM_VALID = 1 << 4, 1 << 7
# SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE
TS_FLAGS = (1 << 2) | (1 << 6)

ifc, count, etype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(etype))
s.bind((ifc, 0))
s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TS_FLAGS)
print("listening", flush=True)
got = 0
while got < count:
    r, _, _ = select.select([s], [], [], 8)
    if not r:
        break
    data, anc, flags, addr = s.recvmsg(4096, 1024)
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    csum = vlan = 0
    hwts = 0.0
    for lvl, typ, d in anc:
        if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
            st, ln, sn, mac, net, tci, tpid = struct.unpack("IIIHHHH", d[:20])
            csum = 1 if st & TP_STATUS_CSUM_VALID else 0
            vlan = tci if st & TP_STATUS_VLAN_VALID else 0
        if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPING:
            t = struct.unpack("qqqqqq", d[:48])
            hwts = t[4] + t[5] / 1e9	# the third timespec: raw hardware
    print("frame len=%d csum_valid=%d vlan=%d hwts=%.9f" %
          (len(data), csum, vlan, hwts), flush=True)
    got += 1
