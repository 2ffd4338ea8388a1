# SPDX-License-Identifier: GPL-2.0-only
#
# ptp-send.py IFACE DST_MAC COUNT GAP - send COUNT PTPv2 Sync frames
# (EtherType 0x88f7, sequenceId 0..COUNT-1) from IFACE to DST_MAC, GAP
# seconds apart.
import socket
import struct
import sys
import time

ifc, dst, count, gap = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifc, 0))
src = s.getsockname()[4]
dst = bytes.fromhex(dst.replace(":", ""))
for i in range(count):
    # messageType 0 (Sync), versionPTP 2, messageLength 44, sequenceId i
    ptp = struct.pack("!BBHBBHQIHHHBB", 0x00, 0x02, 44, 0, 0, 0, 0, 0, 0, 0, i, 0, 0)
    ptp = ptp + bytes(44 - len(ptp))
    s.send(dst + src + struct.pack("!H", 0x88f7) + ptp + bytes(16))
    time.sleep(gap)
