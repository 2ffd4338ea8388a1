#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Tests of the project's fixes to QEMU's igb model
# (tools/qemu/patches/igb-*.patch), in the style of tsnep-test.py, whose
# qtest harness (the QEMU process, qtest commands, PCI config space) this
# file imports.
#
# Each case starts its own QEMU with -accel qtest (no guest is booted) and
# two igb functions on one hub, as tools/guest/run.sh wires them: A in
# slot 4 sends, B in slot 8 receives.  The test plays the Linux igb
# driver through BAR0 and guest RAM: A's TX ring of advanced data
# descriptors, B's RX ring of advanced one-buffer descriptors with few
# descriptors posted, refilled the way igb_alloc_rx_buffers() refills it
# (buffers written, then one tail write).  A's frames that find B's ring
# full wait in QEMU's net queues; B's tail write flushes them into the
# model.  Every frame sent must then reach B's ring, in order, or, where
# the 82576 drops (SRRCTL.DROP_EN, a frame no ring size could take), be
# counted in B's RQDPC or MPC.  And B's RX timestamp latch must be
# released the way igb releases it, by a read of RXSTMPH.
#
# Usage: igb-test.py [QEMU-BINARY] [CASE-FILTER]
#   QEMU-BINARY  default build/qemu/src/build/qemu-system-x86_64
#   CASE-FILTER  run only the cases whose name contains this string
#
# Output: "ok N NAME" or "not ok N NAME: reason" per case, then
# "igb-test: P passed, F failed".  Exit code 0 only if all cases pass.

import importlib.util
import os
import shutil
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    'tsnep_test', os.path.join(HERE, 'tsnep-test.py'))
qtest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(qtest)
Qemu, Failure, HarnessError = qtest.Qemu, qtest.Failure, qtest.HarnessError
expect_eq, setup_check = qtest.expect_eq, qtest.setup_check
expect_bytes, make_frame, frame_seq = (qtest.expect_bytes, qtest.make_frame,
                                       qtest.frame_seq)

DEFAULT_QEMU, CASE_TIMEOUT = qtest.DEFAULT_QEMU, qtest.CASE_TIMEOUT

# --- e1000_regs.h, e1000_82575.h (drivers/net/ethernet/intel/igb) -------

PCI_VENDOR_ID_INTEL = 0x8086
E1000_DEV_ID_82576 = 0x10c9

E1000_CTRL = 0x00000
E1000_CTRL_SLU = 0x00000040
E1000_CTRL_RST = 0x04000000
E1000_STATUS = 0x00008
E1000_STATUS_LU = 0x00000002
E1000_MDIC = 0x00020
E1000_MDIC_REG_SHIFT = 16
E1000_MDIC_PHY_SHIFT = 21
E1000_MDIC_OP_WRITE = 0x04000000
MII_BMCR = 0
BMCR_ANRESTART = 0x0200
BMCR_ANENABLE = 0x1000

E1000_RCTL = 0x00100
E1000_RCTL_EN = 0x00000002
E1000_RCTL_UPE = 0x00000008
E1000_RCTL_MPE = 0x00000010
E1000_RCTL_LPE = 0x00000020
E1000_RCTL_BAM = 0x00008000
E1000_RCTL_SECRC = 0x04000000
E1000_RLPML = 0x05004
E1000_TCTL = 0x00400
E1000_TCTL_EN = 0x00000002


def E1000_RDBAL(n): return 0x0c000 + 0x40 * n
def E1000_RDBAH(n): return 0x0c004 + 0x40 * n
def E1000_RDLEN(n): return 0x0c008 + 0x40 * n
def E1000_SRRCTL(n): return 0x0c00c + 0x40 * n
def E1000_RDH(n): return 0x0c010 + 0x40 * n
def E1000_RDT(n): return 0x0c018 + 0x40 * n
def E1000_RQDPC(n): return 0x0c030 + 0x40 * n
def E1000_TDBAL(n): return 0x0e000 + 0x40 * n
def E1000_TDBAH(n): return 0x0e004 + 0x40 * n
def E1000_TDLEN(n): return 0x0e008 + 0x40 * n
def E1000_TDH(n): return 0x0e010 + 0x40 * n
def E1000_TDT(n): return 0x0e018 + 0x40 * n


# IEEE 1588 (igb_ptp.c's setup for PTP v2 over L2)
E1000_ETQF_FILTER_ENABLE = 1 << 26
E1000_ETQF_1588 = 1 << 30
ETH_P_1588 = 0x88f7
E1000_TSYNCRXCTL = 0x0b620
E1000_TSYNCRXCTL_VALID = 0x00000001
E1000_TSYNCRXCTL_TYPE_L2_V2 = 0x00
E1000_TSYNCRXCTL_ENABLED = 0x00000010
E1000_TSYNCRXCFG = 0x05f50
E1000_RXSTMPL = 0x0b624
E1000_RXSTMPH = 0x0b628


def E1000_ETQF(n): return 0x05cb0 + 4 * n


E1000_SRRCTL_BSIZEPKT_SHIFT = 10
E1000_SRRCTL_DESCTYPE_ADV_ONEBUF = 0x02000000
E1000_SRRCTL_DROP_EN = 0x80000000

# statistics, all clear on read
E1000_MPC = 0x04010
E1000_GPRC = 0x04074
E1000_GPTC = 0x04080
E1000_RNBC = 0x040a0

E1000_ADVTXD_DTYP_DATA = 0x00300000
E1000_ADVTXD_DCMD_EOP = 0x01000000
E1000_ADVTXD_DCMD_IFCS = 0x02000000
E1000_ADVTXD_DCMD_RS = 0x08000000
E1000_ADVTXD_DCMD_DEXT = 0x20000000
E1000_ADVTXD_PAYLEN_SHIFT = 14
E1000_TXD_STAT_DD = 0x00000001
E1000_RXD_STAT_DD = 0x01
E1000_RXD_STAT_EOP = 0x02

DESC_LEN = 16           # advanced TX and RX descriptors
RX_BUF = 0x1000         # guest RAM per RX buffer
TX_BUF = 0x4000         # guest RAM per TX buffer (up to 9000 byte frames)


class Igb:
    """One igb function: BAR0 registers and guest RAM for its rings."""

    def __init__(self, qt, index, name, slot, mac):
        self.qt = qt
        self.name = name
        self.mac = mac
        self.devfn = slot << 3
        self.bar0 = 0xfe000000 + index * 0x100000
        self.ram = 0x01000000 * (index + 1)     # 16 MiB of RAM each
        self.stats = {}

        ids = qt.cfg_read(self.devfn, 0)
        if ids != (E1000_DEV_ID_82576 << 16) | PCI_VENDOR_ID_INTEL:
            raise HarnessError('no igb at slot %d: vendor/device read '
                               '0x%08x' % (slot, ids))
        qt.cfg_write(self.devfn, 0x10, self.bar0)
        qt.cfg_write(self.devfn, 0x04, 0x0006, 2)   # memory, bus master

    def rd(self, off):
        return self.qt.readl(self.bar0 + off)

    def wr(self, off, val):
        self.qt.writel(self.bar0 + off, val)

    def alloc(self, size):
        addr = self.ram
        self.ram += (size + 0xfff) & ~0xfff
        return addr

    def start(self):
        """igb_reset(), then the link up as the PHY code brings it."""
        self.wr(E1000_CTRL, self.rd(E1000_CTRL) | E1000_CTRL_RST |
                E1000_CTRL_SLU)
        self.wr(E1000_MDIC, (BMCR_ANENABLE | BMCR_ANRESTART) |
                (MII_BMCR << E1000_MDIC_REG_SHIFT) |
                (1 << E1000_MDIC_PHY_SHIFT) | E1000_MDIC_OP_WRITE)
        self.qt.clock_step(900 * 1000 * 1000)
        setup_check(self.rd(E1000_STATUS) & E1000_STATUS_LU,
                    '%s has its link up after autonegotiation' % self.name)

    def counters(self):
        """The statistics registers (clear on read) since the last read,
        added to self.stats."""
        got = {}
        for name, off in (('GPTC', E1000_GPTC), ('GPRC', E1000_GPRC),
                          ('MPC', E1000_MPC), ('RNBC', E1000_RNBC),
                          ('RQDPC0', E1000_RQDPC(0))):
            got[name] = self.rd(off)
            self.stats[name] = self.stats.get(name, 0) + got[name]
        return got

    def stats_text(self):
        self.counters()
        return '%s: %s' % (self.name, ' '.join(
            '%s=%d' % kv for kv in sorted(self.stats.items())))


class TxRing:
    """Queue 0's TX ring as igb_configure_tx_ring() sets it up; frames
    sent as igb_tx_map() maps them (one advanced data descriptor each)."""

    def __init__(self, dev, count=16):
        self.dev, self.count = dev, count
        self.base = dev.alloc(count * DESC_LEN)
        self.bufs = [dev.alloc(TX_BUF) for _ in range(count)]
        self.tail = 0
        dev.wr(E1000_TDBAL(0), self.base & 0xffffffff)
        dev.wr(E1000_TDBAH(0), self.base >> 32)
        dev.wr(E1000_TDLEN(0), count * DESC_LEN)
        dev.wr(E1000_TDH(0), 0)
        dev.wr(E1000_TDT(0), 0)
        dev.wr(E1000_TCTL, E1000_TCTL_EN)

    def send(self, frames):
        """All frames with one tail write; the model sends them then."""
        setup_check(len(frames) < self.count, 'frames fit into the TX ring')
        slots = []
        for f in frames:
            i = self.tail
            self.dev.qt.memwrite(self.bufs[i], f)
            desc = struct.pack('<QII', self.bufs[i],
                               E1000_ADVTXD_DTYP_DATA |
                               E1000_ADVTXD_DCMD_DEXT |
                               E1000_ADVTXD_DCMD_EOP |
                               E1000_ADVTXD_DCMD_IFCS |
                               E1000_ADVTXD_DCMD_RS | len(f),
                               len(f) << E1000_ADVTXD_PAYLEN_SHIFT)
            self.dev.qt.memwrite(self.base + i * DESC_LEN, desc)
            slots.append(i)
            self.tail = (i + 1) % self.count
        self.dev.wr(E1000_TDT(0), self.tail)
        for i in slots:
            status = self.dev.qt.readl(self.base + i * DESC_LEN + 12)
            setup_check(status & E1000_TXD_STAT_DD,
                        '%s sent the frame of TX slot %d'
                        % (self.dev.name, i))


class RxRing:
    """Queue 0's RX ring as igb_configure_rx_ring() sets it up, with
    buffers of buf_kb KiB; post() refills as igb_alloc_rx_buffers() does,
    poll() takes frames as igb_clean_rx_irq() does."""

    def __init__(self, dev, count=8, buf_kb=2, drop_en=False, lpe=False):
        self.dev, self.count = dev, count
        self.base = dev.alloc(count * DESC_LEN)
        self.bufs = [dev.alloc(RX_BUF) for _ in range(count)]
        self.tail = 0           # next slot to post
        self.next = 0           # next slot to clean
        self.posted = 0         # posted, not cleaned
        dev.wr(E1000_RCTL, 0)
        dev.wr(E1000_RDBAL(0), self.base & 0xffffffff)
        dev.wr(E1000_RDBAH(0), self.base >> 32)
        dev.wr(E1000_RDLEN(0), count * DESC_LEN)
        dev.wr(E1000_RDH(0), 0)
        dev.wr(E1000_RDT(0), 0)
        dev.wr(E1000_SRRCTL(0), E1000_SRRCTL_DESCTYPE_ADV_ONEBUF |
               buf_kb | (E1000_SRRCTL_DROP_EN if drop_en else 0))
        rctl = (E1000_RCTL_EN | E1000_RCTL_UPE | E1000_RCTL_MPE |
                E1000_RCTL_BAM | E1000_RCTL_SECRC)
        if lpe:
            dev.wr(E1000_RLPML, 9018 + 4)
            rctl |= E1000_RCTL_LPE
        dev.wr(E1000_RCTL, rctl)

    def post(self, n):
        """n more buffers, then one tail write (which flushes QEMU's
        queues into the model)."""
        setup_check(self.posted + n < self.count,
                    'at most %d of %d RX descriptors posted'
                    % (self.count - 1, self.count))
        for _ in range(n):
            i = self.tail
            self.dev.qt.memwrite(self.base + i * DESC_LEN,
                                 struct.pack('<QQ', self.bufs[i], 0))
            self.tail = (i + 1) % self.count
        self.posted += n
        self.dev.wr(E1000_RDT(0), self.tail)

    def poll(self):
        """The frames written back since the last poll, in ring order."""
        frames, data = [], b''
        while self.posted:
            i = self.next
            status, length = struct.unpack(
                '<IH', self.dev.qt.memread(self.base + i * DESC_LEN + 8, 6))
            if not status & E1000_RXD_STAT_DD:
                break
            data += self.dev.qt.memread(self.bufs[i], length)
            self.next = (i + 1) % self.count
            self.posted -= 1
            if status & E1000_RXD_STAT_EOP:
                frames.append(data)
                data = b''
        setup_check(not data, '%s: no frame left without its last '
                    'descriptor' % self.dev.name)
        return frames


class Case:
    """Two igb functions on one hub: A (slot 4) and B (slot 8)."""

    def __init__(self, binary):
        self.binary = binary
        self.deadline = time.monotonic() + CASE_TIMEOUT
        self.tmpdir = tempfile.mkdtemp(prefix='igb-test-')
        self.qt = None

    def start(self):
        args = []
        specs = []
        for i, (name, slot) in enumerate((('A', 4), ('B', 8))):
            mac = bytes([0x52, 0x54, 0x00, 0x12, 0x34, 0x0a + i])
            args += ['-netdev', 'hubport,id=p%d,hubid=0' % i,
                     '-device', 'igb,netdev=p%d,bus=pcie.0,addr=0x%x,mac=%s'
                     % (i, slot, ':'.join('%02x' % b for b in mac))]
            specs.append((name, slot, mac))
        self.qt = Qemu(self.binary, args, self.deadline, self.tmpdir)
        devs = [Igb(self.qt, i, *spec) for i, spec in enumerate(specs)]
        for d in devs:
            d.start()
        return devs

    def close(self):
        if self.qt:
            self.qt.close()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def frames_from(a, b, first, count, length=60):
    return [make_frame(b.mac, a.mac, seq, length)
            for seq in range(first, first + count)]


def expect_frames(what, b, got, sent):
    """got must be sent, frame by frame; the counters in the message."""
    seqs = [frame_seq(f) for f in got]
    if seqs != [frame_seq(f) for f in sent]:
        raise Failure('%s: expected frames %s, read %s (%s)'
                      % (what, [frame_seq(f) for f in sent], seqs,
                         b.stats_text()))
    for f, s in zip(got, sent):
        expect_bytes('%s: frame %d' % (what, frame_seq(s)), f, s)


# --- the cases ----------------------------------------------------------

def test_frames_flushed_beyond_the_free_descriptors_wait_for_more(t):
    """B's ring (8 descriptors, DROP_EN clear, as igb leaves it with one
    RX queue) has 4 posted; A sends 12 frames.  4 fit, the other 8 wait in
    QEMU's queues.  Each refill of 4 (one tail write) must bring the next
    4, also of the 4 that A sends while 8..11 still wait (they must not
    overtake them), and no frame may be lost: MPC and RQDPC stay 0.
    Catches the model that takes as many of a flushed queue as there are
    free descriptors and drops the rest uncounted."""
    a, b = t.start()
    tx, rx = TxRing(a), RxRing(b)
    rx.post(4)
    first = frames_from(a, b, 0, 12)
    tx.send(first)
    expect_frames('4 buffers posted', b, rx.poll(), first[:4])
    rx.post(4)
    expect_frames('4 more posted', b, rx.poll(), first[4:8])
    more = frames_from(a, b, 12, 4)
    tx.send(more)
    rx.post(4)
    expect_frames('4 more posted, frames 8..11 waiting', b, rx.poll(),
                  first[8:12])
    rx.post(4)
    expect_frames('4 more posted, frames 12..15 waiting', b, rx.poll(), more)
    rx.post(3)
    expect_frames('3 more posted, nothing waiting', b, rx.poll(), [])
    b.counters()
    expect_eq('A GPTC (frames sent)', a.counters()['GPTC'], 16)
    expect_eq('B MPC (missed frames)', b.stats['MPC'], 0)
    expect_eq('B RQDPC0 (queue 0 drops)', b.stats['RQDPC0'], 0)
    expect_eq('B GPRC (frames received)', b.stats['GPRC'], 16)


def test_with_drop_en_a_frame_without_room_is_dropped_and_counted(t):
    """The same with SRRCTL.DROP_EN set (igb sets it with several RX
    queues and no RX flow control): the 82576 drops a frame that finds
    no free descriptor and counts it in the queue's RQDPC, which
    igb_update_stats() adds to rx_fifo_errors.  Frames 8..11 are flushed
    into a full ring: they must be dropped and counted there, not held,
    and frames sent after that, with room, must arrive."""
    a, b = t.start()
    tx, rx = TxRing(a), RxRing(b, drop_en=True)
    rx.post(4)
    first = frames_from(a, b, 0, 12)
    tx.send(first)
    expect_frames('4 buffers posted', b, rx.poll(), first[:4])
    rx.post(4)
    expect_frames('4 more posted', b, rx.poll(), first[4:8])
    rx.post(4)
    expect_frames('4 more posted after frames 8..11 were dropped', b,
                  rx.poll(), [])
    more = frames_from(a, b, 12, 4)
    tx.send(more)
    expect_frames('frames 12..15, sent with room', b, rx.poll(), more)
    b.counters()
    c = b.counters()
    expect_eq('B RQDPC0 (frames 8..11 dropped by DROP_EN; %s)'
              % b.stats_text(), b.stats['RQDPC0'], 4)
    expect_eq('B MPC (missed frames)', b.stats['MPC'], 0)
    expect_eq('B RNBC (no-buffer events) at least RQDPC0',
              b.stats['RNBC'] >= 4, True)
    expect_eq('B GPRC (frames received)', b.stats['GPRC'], 12)
    expect_eq('B RQDPC0, RNBC read again (clear on read, as '
              'igb_update_stats() adds every read)',
              (c['RQDPC0'], c['RNBC']), (0, 0))


def test_frame_of_two_buffers_waits_for_the_second_descriptor(t):
    """1 KiB buffers, one posted: a 1500 byte frame needs two.  It must
    wait for the second buffer, not be dropped because the one free
    descriptor was not enough, and then arrive across both."""
    a, b = t.start()
    tx, rx = TxRing(a), RxRing(b, buf_kb=1)
    rx.post(1)
    sent = frames_from(a, b, 0, 1, 1500)
    tx.send(sent)
    expect_frames('1 buffer of 1 KiB posted', b, rx.poll(), [])
    rx.post(1)
    expect_frames('a second buffer posted', b, rx.poll(), sent)
    b.counters()
    expect_eq('B MPC (missed frames)', b.stats['MPC'], 0)


def test_frame_the_ring_can_never_take_is_dropped_and_counted_in_mpc(t):
    """A 9000 byte frame into a ring of 8 descriptors of 1 KiB (7 KiB
    at most posted): it can never fit, so waiting for buffers would stall
    every frame behind it.  It must be dropped and counted in MPC, and the
    frame behind it must arrive."""
    a, b = t.start()
    tx, rx = TxRing(a), RxRing(b, buf_kb=1, lpe=True)
    rx.post(7)
    big = frames_from(a, b, 0, 1, 9000)
    small = frames_from(a, b, 1, 1, 60)
    tx.send(big + small)
    expect_frames('7 buffers of 1 KiB posted', b, rx.poll(), small)
    b.counters()
    c = b.counters()
    expect_eq('B MPC (the 9000 byte frame; %s)' % b.stats_text(),
              b.stats['MPC'], 1)
    expect_eq('B MPC, RNBC read again (clear on read, as '
              'igb_update_stats() adds every read)',
              (c['MPC'], c['RNBC']), (0, 0))


def ptp_sync_frame(a, b, seq):
    """A PTP v2 Sync message over L2 from A to B, sequence id seq."""
    ptp = bytearray(46)         # a frame of the minimum 60 bytes
    ptp[0] = 0x00               # transportSpecific 0, messageType Sync
    ptp[1] = 0x02               # versionPTP 2
    struct.pack_into('>H', ptp, 2, len(ptp))
    struct.pack_into('>H', ptp, 30, seq)
    return b.mac + a.mac + struct.pack('>H', ETH_P_1588) + bytes(ptp)


def test_reading_rxstmph_releases_the_rx_timestamp_latch(t):
    """B stamps PTP v2 event frames over L2 as igb_ptp_set_timestamp_mode()
    sets it up (ETQF 3 for EtherType 0x88F7 with its 1588 bit,
    TSYNCRXCTL enabled).  The first Sync frame latches its time:
    TSYNCRXCTL.VALID set.  Reading RXSTMPL, then RXSTMPH, as
    igb_ptp_rx_rgtstamp() does, must release the latch, so that the
    second Sync frame is stamped too, and not before RXSTMPH.  Catches the
    model that releases it only on a read of RXSATRH, which igb never
    reads."""
    a, b = t.start()
    tx, rx = TxRing(a), RxRing(b)
    b.wr(E1000_ETQF(3), E1000_ETQF_FILTER_ENABLE | E1000_ETQF_1588 |
         ETH_P_1588)
    b.wr(E1000_TSYNCRXCFG, 0)
    b.wr(E1000_TSYNCRXCTL, E1000_TSYNCRXCTL_ENABLED |
         E1000_TSYNCRXCTL_TYPE_L2_V2)
    rx.post(4)
    first = ptp_sync_frame(a, b, 1)
    tx.send([first])
    expect_eq('frames received after the first Sync frame',
              rx.poll(), [first])
    expect_eq('TSYNCRXCTL.VALID after the first Sync frame',
              b.rd(E1000_TSYNCRXCTL) & E1000_TSYNCRXCTL_VALID, 1)
    b.rd(E1000_RXSTMPL)
    expect_eq('TSYNCRXCTL.VALID after RXSTMPL alone was read (held)',
              b.rd(E1000_TSYNCRXCTL) & E1000_TSYNCRXCTL_VALID, 1)
    b.rd(E1000_RXSTMPH)
    expect_eq('TSYNCRXCTL.VALID after RXSTMPL and RXSTMPH were read',
              b.rd(E1000_TSYNCRXCTL) & E1000_TSYNCRXCTL_VALID, 0)
    second = ptp_sync_frame(a, b, 2)
    tx.send([second])
    expect_eq('frames received after the second Sync frame',
              rx.poll(), [second])
    expect_eq('TSYNCRXCTL.VALID after the second Sync frame (stamped)',
              b.rd(E1000_TSYNCRXCTL) & E1000_TSYNCRXCTL_VALID, 1)


CASES = [
    test_frames_flushed_beyond_the_free_descriptors_wait_for_more,
    test_with_drop_en_a_frame_without_room_is_dropped_and_counted,
    test_frame_of_two_buffers_waits_for_the_second_descriptor,
    test_frame_the_ring_can_never_take_is_dropped_and_counted_in_mpc,
    test_reading_rxstmph_releases_the_rx_timestamp_latch,
]


if __name__ == '__main__':
    sys.exit(qtest.main(sys.argv, CASES, 'igb-test', Case, DEFAULT_QEMU))
