# SPDX-License-Identifier: GPL-2.0-only
#
# hwtstamp.py IFACE RX_FILTER - SIOCSHWTSTAMP on IFACE with tx_type off
# and RX_FILTER (enum hwtstamp_rx_filters: 0 none, 1 all, 12 PTPv2 L2
# event), then print the filter the driver took:
#   hwtstamp IFACE rx_filter=N
# or the error.
import ctypes
import fcntl
import socket
import struct
import sys

SIOCSHWTSTAMP = 0x89b0

ifc, filt = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
cfg = ctypes.create_string_buffer(struct.pack("iii", 0, 0, filt))
ifr = struct.pack("16sP", ifc.encode(), ctypes.addressof(cfg))
try:
    fcntl.ioctl(s, SIOCSHWTSTAMP, ifr)
    print("hwtstamp %s rx_filter=%d" % (ifc, struct.unpack("iii", cfg.raw[:12])[2]))
except OSError as e:
    print("hwtstamp %s: %s" % (ifc, e))
