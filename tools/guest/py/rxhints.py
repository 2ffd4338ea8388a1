# SPDX-License-Identifier: GPL-2.0-only
#
# rxhints.py send IFACE DST_MAC DST_IP GAP - send the frames of FLOWS below
#   from IFACE, raw IPv4/UDP to DST_IP port 9091 (what the tree's
#   xdp_hw_metadata redirects to its AF_XDP sockets), GAP seconds apart,
#   in order.
# rxhints.py replies IFACE COUNT - receive up to COUNT of the tool's answers
#   (it sends each frame back with its addresses and ports swapped, and
#   asks the NIC for the UDP checksum through AF_XDP TX metadata, after
#   putting the pseudo-header sum in the field) on IFACE, and print
#   "replies=N csum_ok=N": answers whose UDP checksum verifies. Prints
#   "listening" once the socket is open; gives up after 8 s without one.
# rxhints.py check LOG - read the RX hints xdp_hw_metadata printed for
#   those frames, in the same order, and print one line:
#     frames=N hashed=N flows_hash_alike=0|1 flows_hash_apart=0|1
#     types=T,... vlan_ok=N vlan_absent_ok=N ts=N ts_err=E,...
#     tx_ts=N tx_ts_none=N
#   frames: frames the tool received; hashed: with an RX hash; the flows
#   check: every frame of a flow has its flow's hash, and flows differ;
#   vlan_ok: tagged frames whose tag the kfunc gave back; vlan_absent_ok:
#   untagged frames for which it reported ENODATA; ts: frames with an RX
#   timestamp; tx_ts, tx_ts_none: the tool's answers it saw completed
#   with and without a TX timestamp.
import select
import socket
import struct
import sys
import time

# (source IP, source port, VLAN TCI or None), two frames each
FLOWS = [
    ("192.0.2.101", 40001, None),
    ("192.0.2.102", 40002, None),
    ("192.0.2.103", 40003, None),
    ("192.0.2.104", 40004, 0x6005),	# PCP 3, VID 5
    ("192.0.2.105", 40005, 0x6005),
]
FRAMES = [f for f in FLOWS for _ in range(2)]
ENODATA = 61


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_csum(src, dst, udp):
    return csum(src + dst + struct.pack("!BBH", 0, 17, len(udp)) + udp)


def frame(src_mac, dst_mac, src_ip, dst_ip, sport, tci):
    payload = b"rx-hints" + bytes(range(24))
    src, dst = socket.inet_aton(src_ip), socket.inet_aton(dst_ip)
    udp = struct.pack("!HHHH", sport, 9091, 8 + len(payload), 0) + payload
    udp = udp[:6] + struct.pack("!H", udp_csum(src, dst, udp) or 0xffff) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = dst_mac + src_mac
    if tci is not None:
        eth += struct.pack("!HH", 0x8100, tci)
    return eth + struct.pack("!H", 0x0800) + ip + udp


def send(ifc, dst_mac, dst_ip, gap):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifc, 0))
    src_mac = s.getsockname()[4]
    dst_mac = bytes.fromhex(dst_mac.replace(":", ""))
    for src_ip, sport, tci in FRAMES:
        s.send(frame(src_mac, dst_mac, src_ip, dst_ip, sport, tci))
        time.sleep(gap)


def replies(ifc, count):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    s.bind((ifc, 0))
    print("listening", flush=True)
    got = ok = 0
    while got < count:
        r, _, _ = select.select([s], [], [], 8)
        if not r:
            break
        data, addr = s.recvfrom(4096)
        ip = data[14:]
        if addr[2] == socket.PACKET_OUTGOING or ip[9] != 17:
            continue
        udp = ip[(ip[0] & 0xf) * 4:struct.unpack("!H", ip[2:4])[0]]
        if struct.unpack("!H", udp[:2])[0] != 9091:
            continue
        got += 1
        ok += udp_csum(ip[12:16], ip[16:20], udp) == 0
    print("replies=%d csum_ok=%d" % (got, ok), flush=True)


def check(log):
    recs = []
    tx_ts = [0, 0]	# answers completed with, without a TX timestamp
    unstamped = None
    for line in open(log, errors="replace"):
        line = line.strip()
        if "rx_desc[" in line and "->addr=" in line:
            recs.append({})
        elif not recs:
            continue
        elif line.startswith("rx_hash: "):
            # rx_hash: 0x%X with RSS type:0x%X
            w = line.split()
            recs[-1]["hash"] = int(w[1], 16)
            recs[-1]["type"] = int(w[-1].split(":")[1], 16)
        elif line.startswith("HW RX-time:") and "to User RX-time" in line:
            recs[-1]["ts"] = True
        elif line.startswith("No rx_timestamp, err="):
            recs[-1]["ts_err"] = int(line.split("=")[1])
        elif line.startswith("rx_vlan_tci: "):
            # rx_vlan_tci: PCP=%u, DEI=%d, VID=0x%X
            f = dict(kv.split("=") for kv in line[13:].split(", "))
            recs[-1]["tci"] = (int(f["PCP"]) << 13 | int(f["DEI"]) << 12 |
                               int(f["VID"], 16))
        elif line.startswith("No rx_vlan_tci or rx_vlan_proto, err="):
            recs[-1]["vlan_err"] = int(line.split("=")[1])
        elif "ping-pong with csum=" in line:
            # the request shares the completion's bytes: a frame no
            # driver stamped reads csum_start | csum_offset << 16 back
            f = dict(w.split("=") for w in line.split() if "=" in w)
            unstamped = int(f["csum_start"]) | int(f["csum_offset"]) << 16
        elif line.startswith("HW TX-complete-time:"):
            tx_ts[int(line.split()[2]) == unstamped] += 1
        elif line == "No tx_timestamp":
            tx_ts[1] += 1
    hashed = [r for r in recs if "hash" in r]
    alike = apart = 0
    if len(recs) == len(FRAMES) and len(hashed) == len(recs):
        by_flow = {}
        for r, f in zip(recs, FRAMES):
            by_flow.setdefault(f, set()).add(r["hash"])
        alike = int(all(len(h) == 1 for h in by_flow.values()))
        apart = int(len(set(min(h) for h in by_flow.values())) == len(FLOWS))
    vlan_ok = vlan_absent_ok = 0
    for r, f in zip(recs, FRAMES):
        if f[2] is not None and r.get("tci") == f[2]:
            vlan_ok += 1
        if f[2] is None and r.get("vlan_err") == -ENODATA:
            vlan_absent_ok += 1
    types = sorted(set("0x%x" % r["type"] for r in hashed))
    ts_err = sorted(set(str(r["ts_err"]) for r in recs if "ts_err" in r))
    print("frames=%d hashed=%d flows_hash_alike=%d flows_hash_apart=%d "
          "types=%s vlan_ok=%d vlan_absent_ok=%d ts=%d ts_err=%s "
          "tx_ts=%d tx_ts_none=%d" %
          (len(recs), len(hashed), alike, apart, ",".join(types) or "-",
           vlan_ok, vlan_absent_ok, sum(1 for r in recs if r.get("ts")),
           ",".join(ts_err) or "-", tx_ts[0], tx_ts[1]))


if sys.argv[1] == "send":
    send(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]))
elif sys.argv[1] == "replies":
    replies(sys.argv[2], int(sys.argv[3]))
else:
    check(sys.argv[2])
