#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/py/xskfeatures.py KSRC IFNAME: the AF_XDP features IFNAME's
# driver announces (the netdev netlink family's dev-get, xsk-features:
# tx-timestamp, tx-checksum), one per line, read with the kernel tree's
# own YNL library (KSRC/tools/net/ynl/pyynl). Nothing for a driver without TX
# metadata ops. Exits 1, with the error on stderr, when the request fails.

import socket
import sys

ksrc, ifname = sys.argv[1], sys.argv[2]
sys.path.insert(0, ksrc + '/tools/net/ynl/pyynl')
from lib import YnlFamily, NlError  # noqa: E402

ynl = YnlFamily(ksrc + '/Documentation/netlink/specs/netdev.yaml',
                schema='')
try:
    dev = ynl.do('dev-get', {'ifindex': socket.if_nametoindex(ifname)})
except NlError as e:
    print(f'dev-get {ifname}: {e}', file=sys.stderr)
    sys.exit(1)
for f in sorted(dev.get('xsk-features', [])):
    print(f)
