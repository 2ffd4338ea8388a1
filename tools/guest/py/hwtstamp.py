# SPDX-License-Identifier: GPL-2.0-only
#
# hwtstamp.py IFACE RX_FILTER [TX_TYPE] - SIOCSHWTSTAMP on IFACE with
# RX_FILTER (enum hwtstamp_rx_filters: 0 none, 1 all, 12 PTPv2 L2 event)
# and TX_TYPE (enum hwtstamp_tx_types: 0 off, the default, 1 on), then
# print the filter the driver took, and with TX_TYPE its TX type:
#   hwtstamp IFACE rx_filter=N [tx_type=N]
# or the error.
import ctypes
import fcntl
import socket
import struct
import sys

SIOCSHWTSTAMP = 0x89b0

ifc, filt = sys.argv[1], int(sys.argv[2])
tx = int(sys.argv[3]) if len(sys.argv) > 3 else None
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
cfg = ctypes.create_string_buffer(struct.pack("iii", 0, tx or 0, filt))
ifr = struct.pack("16sP", ifc.encode(), ctypes.addressof(cfg))
try:
    fcntl.ioctl(s, SIOCSHWTSTAMP, ifr)
    flags, tx_type, rx_filter = struct.unpack("iii", cfg.raw[:12])
    print("hwtstamp %s rx_filter=%d" % (ifc, rx_filter) +
          ("" if tx is None else " tx_type=%d" % tx_type))
except OSError as e:
    print("hwtstamp %s: %s" % (ifc, e))
