#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/qstats.py KSRC IFNAME [queue]: the netdev netlink family's
# qstats-get for IFNAME, read with the kernel tree's own YNL library
# (KSRC/tools/net/ynl/pyynl) and its netdev.yaml spec. One line per object:
#   dev rx-packets=N rx-bytes=N ... (without "queue": the device's sums)
#   rx 0 rx-packets=N ...           (with "queue": one line per queue)
# Exits 1, with the error on stderr, when the request fails.

import socket
import sys

ksrc, ifname = sys.argv[1], sys.argv[2]
by_queue = len(sys.argv) > 3 and sys.argv[3] == 'queue'
sys.path.insert(0, ksrc + '/tools/net/ynl/pyynl')
from lib import YnlFamily, NlError  # noqa: E402

ynl = YnlFamily(ksrc + '/Documentation/netlink/specs/netdev.yaml',
                schema='')
req = {'ifindex': socket.if_nametoindex(ifname)}
if by_queue:
    req['scope'] = 'queue'
try:
    replies = ynl.dump('qstats-get', req)
except NlError as e:
    print(f'qstats-get {ifname}: {e}', file=sys.stderr)
    sys.exit(1)
for r in replies:
    vals = ' '.join(f'{k}={v}' for k, v in sorted(r.items())
                    if k not in ('ifindex', 'queue-type', 'queue-id'))
    if by_queue:
        print(f"{r['queue-type']} {r['queue-id']} {vals}")
    else:
        print(f'dev {vals}')
