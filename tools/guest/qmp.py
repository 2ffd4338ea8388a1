#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/qmp.py SOCKET COMMAND [JSON_ARGS] - run one QMP command on
# the QEMU of tools/guest/run.sh through its unix socket.
#
# Prints "ok" and exits 0 when QEMU returns, or "error: ..." and exits 1
# (QEMU's error, no socket, no answer within 5 s). Events QEMU sends in
# between are skipped. Only the Python standard library.
#
#   qmp.py build/guest-run/e2e/qmp.sock set_link '{"name":"p0","up":false}'

import json
import socket
import sys

TIMEOUT = 5.0


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: qmp.py SOCKET COMMAND [JSON_ARGS]", file=sys.stderr)
        return 2
    path, cmd = sys.argv[1], sys.argv[2]
    try:
        args = json.loads(sys.argv[3]) if len(sys.argv) == 4 else None
    except ValueError as e:
        print("error: bad JSON arguments: %s" % e)
        return 1
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(TIMEOUT)
        s.connect(path)
        f = s.makefile("rw", encoding="utf-8", newline="\n")

        def answer():
            while True:
                line = f.readline()
                if not line:
                    raise OSError("QEMU closed the QMP socket")
                msg = json.loads(line)
                if "return" in msg or "error" in msg:
                    return msg

        def execute(name, arguments=None):
            req = {"execute": name}
            if arguments is not None:
                req["arguments"] = arguments
            f.write(json.dumps(req) + "\n")
            f.flush()
            return answer()

        greeting = json.loads(f.readline() or "{}")
        if "QMP" not in greeting:
            raise OSError("no QMP greeting")
        msg = execute("qmp_capabilities")
        if "error" in msg:
            raise OSError("qmp_capabilities: %s" % msg["error"])
        msg = execute(cmd, args)
        s.close()
    except (OSError, ValueError) as e:
        print("error: %s" % e)
        return 1
    if "error" in msg:
        print("error: %s: %s" % (msg["error"].get("class", "?"),
                                 msg["error"].get("desc", "")))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
