#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Unit tests for the tsnep-pci QEMU device model (tools/qemu/tsnep.c).
#
# Each case starts its own QEMU with -accel qtest (no guest is booted),
# plays the part of the Linux tsnep driver through the qtest protocol
# (PCI config space through 0xcf8/0xcfc, BAR0 register accesses, guest RAM
# reads and writes) and checks one behaviour of the device that the driver
# (drivers/net/ethernet/engleder/tsnep_main.c, tsnep_desc.h, tsnep_hw.h)
# relies on.  Descriptor rings are built in guest RAM the way the driver
# builds them: 256 slots of 256 bytes in 16 separately allocated pages,
# write-back at slot + 0, descriptor at slot + 128, linked by next
# pointers, owner counters stepped as tsnep_tx_activate() and
# tsnep_rx_activate() step them.  MSI-X vectors are routed to guest RAM
# addresses so that a message is a word of data appearing there.
#
# Usage: tsnep-test.py [QEMU-BINARY] [CASE-FILTER]
#   QEMU-BINARY  default build/qemu/src/build/qemu-system-x86_64
#   CASE-FILTER  run only the cases whose name contains this string
#
# Output: "ok N NAME" or "not ok N NAME: reason" per case, then
# "tsnep-test: P passed, F failed".  Exit code 0 only if all cases pass.

import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

DEFAULT_QEMU = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            '../../build/qemu/src/build/qemu-system-x86_64')
CASE_TIMEOUT = 20.0     # seconds per case, QEMU start included

# --- tsnep_hw.h ---------------------------------------------------------

ECM_TYPE = 0x0000
ECM_QUEUE_COUNT_MASK = 0x00070000
ECM_QUEUE_COUNT_SHIFT = 16
ECM_GATE_CONTROL = 0x02000000
ECM_SYSTEM_TIME_LOW = 0x0008
ECM_SYSTEM_TIME_HIGH = 0x000c
ECM_INT_ENABLE = 0x0018
ECM_INT_ACTIVE = 0x001c
ECM_INT_ACKNOWLEDGE = 0x001c
ECM_INT_LINK = 0x00000020
ECM_INT_TX_0 = 0x00000100
ECM_INT_RX_0 = 0x00000200
ECM_INT_TXRX_SHIFT = 2
ECM_INT_ALL = 0x7fffffff
ECM_INT_DISABLE = 0x80000000
ECM_COUNTER_LOW = 0x0028
ECM_COUNTER_HIGH = 0x002c
ECM_MD_CONTROL = 0x0084
ECM_MD_STATUS = 0x0084
ECM_MD_PREAMBLE = 0x00000001
ECM_MD_READ = 0x00000004
ECM_MD_WRITE = 0x00000002
ECM_MD_ADDR_SHIFT = 3
ECM_MD_PHY_ADDR_SHIFT = 8
ECM_MD_BUSY = 0x00000001
ECM_MD_DATA_SHIFT = 16

TSNEP_CONTROL = 0x0108
TSNEP_CONTROL_TX_ENABLE = 0x00000002
TSNEP_CONTROL_RX_ENABLE = 0x00000200
TSNEP_TX_DESC_ADDR_LOW = 0x0140
TSNEP_TX_DESC_ADDR_HIGH = 0x0144
TSNEP_RX_DESC_ADDR_LOW = 0x0180
TSNEP_RX_DESC_ADDR_HIGH = 0x0184
TSNEP_RESET_OWNER_COUNTER = 0x01
TSNEP_RX_STATISTIC = 0x0190
TSNEP_MAC_ADDRESS_LOW = 0x0800
TSNEP_RX_FILTER = 0x0806
TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS = 0x0001
TSNEP_RX_FILTER_ACCEPT_ALL_UNICASTS = 0x0002
TSNEP_RX_ASSIGN = 0x0840
TSNEP_RX_ASSIGN_ACTIVE = 0x01
TSNEP_RX_ASSIGN_QUEUE_SHIFT = 1
TSNEP_RX_ASSIGN_ETHER_TYPE = 0x0880

TSNEP_DESC_SIZE = 256
TSNEP_DESC_OFFSET = 128
TSNEP_DESC_OWNER_COUNTER_MASK = 0xc0000000
TSNEP_DESC_OWNER_COUNTER_SHIFT = 30
TSNEP_DESC_LENGTH_MASK = 0x00003fff
TSNEP_DESC_INTERRUPT_FLAG = 0x00040000
TSNEP_DESC_EXTENDED_WRITEBACK_FLAG = 0x00080000
TSNEP_DESC_NO_LINK_FLAG = 0x01000000
TSNEP_TX_DESC_OWNER_MASK = 0xe0000000
TSNEP_TX_DESC_OWNER_USER_FLAG = 0x20000000
TSNEP_TX_DESC_LAST_FRAGMENT_FLAG = 0x00010000
TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG = 0x00020000
TSNEP_RX_INLINE_METADATA_SIZE = 16
ETH_FCS_LEN = 4

# struct tsnep_tx_desc / tsnep_rx_desc field offsets inside the slot
DESC_PROPERTIES = TSNEP_DESC_OFFSET + 0
DESC_MORE_PROPERTIES = TSNEP_DESC_OFFSET + 4
DESC_NEXT = TSNEP_DESC_OFFSET + 16
DESC_BUFFER = TSNEP_DESC_OFFSET + 24        # tx / rx

# --- tsnep.h, tsnep_main.c ----------------------------------------------

TSNEP_RING_SIZE = 256
TSNEP_RING_MASK = TSNEP_RING_SIZE - 1
TSNEP_RING_ENTRIES_PER_PAGE = 4096 // TSNEP_DESC_SIZE
TSNEP_RING_PAGE_COUNT = TSNEP_RING_SIZE // TSNEP_RING_ENTRIES_PER_PAGE
TSNEP_RING_RX_REFILL = 16
# TSNEP_DESC_SIZE_DATA_AFTER_INLINE: 64 - sizeof(tsnep_tx_desc) + 8
TSNEP_TX_INLINE_MAX = 64 - 32 + 8
# TSNEP_RX_OFFSET on x86_64: max(NET_SKB_PAD, XDP_PACKET_HEADROOM) + 0
TSNEP_RX_OFFSET = 256
# TSNEP_MAX_RX_BUF_SIZE: PAGE_SIZE - TSNEP_HEADROOM (256) -
# SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) (320 on x86_64)
TSNEP_MAX_RX_BUF_SIZE = 4096 - 256 - 320
NAPI_POLL_WEIGHT = 64

# clause 22 registers (include/uapi/linux/mii.h)
MII_BMCR = 0
MII_BMSR = 1
MII_PHYSID1 = 2
MII_PHYSID2 = 3
BMSR_LSTATUS = 0x0004
BMSR_ANEGCOMPLETE = 0x0020

# --- the PCI function, tsnep.md -----------------------------------------

PCI_VENDOR_ID_REDHAT = 0x1b36
TSNEP_PCI_DEVICE_ID = 0x00f5
PCI_CAP_ID_MSIX = 0x11
PHY_ID1 = 0x1b36
PHY_ID2 = 0xf501

ETHER_TYPE_TEST = 0x88b5        # IEEE local experimental
BROADCAST = b'\xff' * 6
MULTICAST = bytes.fromhex('01005e0000fb')
FOREIGN = bytes.fromhex('525400999999')


class Failure(Exception):
    """The device did not do what the driver relies on."""


class HarnessError(Exception):
    """QEMU died, refused a command or ran out of time."""


def fmt(v):
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return '0x%x' % v
    if isinstance(v, (bytes, bytearray)):
        h = bytes(v).hex()
        return h if len(h) <= 40 else '%s... (%d bytes)' % (h[:40], len(v))
    if isinstance(v, (list, tuple)):
        return '[%s]' % ', '.join(fmt(x) for x in v)
    return repr(v)


def expect_eq(what, got, expected):
    if got != expected:
        raise Failure('%s: expected %s, read %s'
                      % (what, fmt(expected), fmt(got)))


def setup_check(cond, what):
    """A check of this file's own driver emulation, not of the device."""
    if not cond:
        raise HarnessError('test setup: %s' % what)


def expect_bytes(what, got, expected):
    if got == expected:
        return
    if len(got) != len(expected):
        raise Failure('%s: expected %d bytes, read %d'
                      % (what, len(expected), len(got)))
    i = next(i for i in range(len(got)) if got[i] != expected[i])
    raise Failure('%s: expected %s, read %s (first difference at byte %d)'
                  % (what, fmt(expected[i:]), fmt(got[i:]), i))


def make_frame(dst, src, seq, length, ether_type=ETHER_TYPE_TEST):
    """An Ethernet frame without FCS, numbered by seq."""
    body = struct.pack('>I', seq)
    body += bytes((seq * 7 + i) & 0xff for i in range(length - 18))
    return dst + src + struct.pack('>H', ether_type) + body


def frame_seq(data):
    return struct.unpack('>I', data[14:18])[0] if len(data) >= 18 else None


# --- QEMU, qtest and HMP ------------------------------------------------

class Qemu:
    """One QEMU process spoken to with the qtest protocol on its stdio."""

    def __init__(self, binary, args, deadline, tmpdir):
        self.deadline = deadline
        self.timed_out = False
        self.last = None
        self.buf = b''
        self.err_path = os.path.join(tmpdir, 'qemu.stderr')
        self.err = open(self.err_path, 'wb')
        cmd = [binary, '-M', 'q35', '-accel', 'qtest', '-nodefaults',
               '-display', 'none', '-L', '/usr/share/seabios',
               '-L', '/usr/share/qemu', '-m', '128M',
               '-qtest', 'stdio', '-qtest-log', '/dev/null'] + args
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE,
                                         stderr=self.err)
        except OSError as e:
            self.err.close()
            raise HarnessError('cannot start QEMU: %s' % e)
        self.timer = threading.Timer(max(0.0, deadline - time.monotonic()),
                                     self._expire)
        self.timer.daemon = True
        self.timer.start()

    def _expire(self):
        self.timed_out = True
        self.proc.kill()

    def _stderr_tail(self):
        try:
            with open(self.err_path, 'rb') as f:
                lines = f.read().decode(errors='replace').strip().splitlines()
            return lines[-1] if lines else ''
        except OSError:
            return ''

    def _died(self):
        if self.timed_out:
            return HarnessError('timed out after %.0f s (last command: %s)'
                                % (CASE_TIMEOUT, self.last))
        self.proc.poll()
        return HarnessError('QEMU exited (status %s) after "%s": %s'
                            % (self.proc.returncode, self.last,
                               self._stderr_tail()))

    def cmd(self, line):
        self.last = line
        data = (line + '\n').encode()
        try:
            while data:
                data = data[os.write(self.proc.stdin.fileno(), data):]
        except OSError:
            raise self._died()
        fd = self.proc.stdout.fileno()
        while True:
            while b'\n' not in self.buf:
                left = self.deadline - time.monotonic()
                if left <= 0:
                    self._expire()
                    raise self._died()
                if not select.select([fd], [], [], left)[0]:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self._died()
                self.buf += chunk
            reply, self.buf = self.buf.split(b'\n', 1)
            reply = reply.decode(errors='replace').strip()
            if reply.startswith('OK'):
                return reply[2:].strip()
            if reply.startswith(('FAIL', 'ERR')):
                raise HarnessError('qtest refused "%s": %s' % (line, reply))
            # anything else (IRQ notifications) is not a reply

    def readl(self, addr):
        return int(self.cmd('readl 0x%x' % addr), 16)

    def readw(self, addr):
        return int(self.cmd('readw 0x%x' % addr), 16)

    def readq(self, addr):
        return int(self.cmd('readq 0x%x' % addr), 16)

    def writel(self, addr, val):
        self.cmd('writel 0x%x 0x%x' % (addr, val))

    def writew(self, addr, val):
        self.cmd('writew 0x%x 0x%x' % (addr, val))

    def writeb(self, addr, val):
        self.cmd('writeb 0x%x 0x%x' % (addr, val))

    def writeq(self, addr, val):
        self.cmd('writeq 0x%x 0x%x' % (addr, val))

    def memread(self, addr, size):
        return bytes.fromhex(self.cmd('read 0x%x %d' % (addr, size))[2:])

    def memwrite(self, addr, data):
        self.cmd('write 0x%x %d 0x%s' % (addr, len(data), data.hex()))

    def clock_step(self, ns):
        return int(self.cmd('clock_step %d' % ns))

    def _cfg_addr(self, devfn, reg):
        self.cmd('outl 0xcf8 0x%x' % (0x80000000 | (devfn << 8) |
                                      (reg & 0xfc)))

    def cfg_read(self, devfn, reg, size=4):
        self._cfg_addr(devfn, reg)
        op = {1: 'inb', 2: 'inw', 4: 'inl'}[size]
        return int(self.cmd('%s 0x%x' % (op, 0xcfc + (reg & 3))), 16)

    def cfg_write(self, devfn, reg, val, size=4):
        self._cfg_addr(devfn, reg)
        op = {1: 'outb', 2: 'outw', 4: 'outl'}[size]
        self.cmd('%s 0x%x 0x%x' % (op, 0xcfc + (reg & 3), val))

    def close(self):
        self.timer.cancel()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.proc.stdout.close()
        self.err.close()


class Hmp:
    """The human monitor on a unix socket, for set_link."""

    PROMPT = b'(qemu) '

    def __init__(self, path, deadline):
        self.deadline = deadline
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            try:
                self.sock.connect(path)
                break
            except OSError as e:
                if time.monotonic() > deadline:
                    raise HarnessError('no HMP monitor at %s: %s' % (path, e))
                time.sleep(0.01)
        self._read(banner=True)

    def _read(self, banner=False):
        data = b''
        while not (data.endswith(self.PROMPT) and
                   (banner or b'\n' in data)):
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise HarnessError('timed out after %.0f s waiting for HMP'
                                   % CASE_TIMEOUT)
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                continue
            if not chunk:
                raise HarnessError('HMP monitor closed')
            data += chunk
        return data.decode(errors='replace')

    def cmd(self, line):
        self.sock.sendall((line + '\n').encode())
        out = self._read()
        if 'Error' in out:
            raise HarnessError('HMP "%s": %s' % (line,
                               out.split('Error', 1)[1].splitlines()[0]))
        return out

    def close(self):
        self.sock.close()


# --- the device as the driver sees it -----------------------------------

class Device:
    """One tsnep-pci function: BAR0 registers, MSI-X, guest RAM for it."""

    def __init__(self, qt, index, name, nic_id, slot, queues, mac):
        self.qt = qt
        self.index = index
        self.name = name
        self.nic_id = nic_id
        self.devfn = slot << 3
        self.queues = queues
        self.mac = mac
        self.bar0 = 0xfe000000 + index * 0x10000
        self.bar1 = 0xfe800000 + index * 0x1000
        self.ram = 0x01000000 * (index + 1)     # 16 MiB of RAM each
        self.msi_base = 0x00400000 + index * 0x1000
        self.msix_vectors = 0

        ids = qt.cfg_read(self.devfn, 0)
        if ids != (TSNEP_PCI_DEVICE_ID << 16) | PCI_VENDOR_ID_REDHAT:
            raise HarnessError('no tsnep-pci at slot %d: vendor/device '
                               'read 0x%08x' % (slot, ids))
        qt.cfg_write(self.devfn, 0x10, self.bar0)
        qt.cfg_write(self.devfn, 0x14, self.bar1)
        qt.cfg_write(self.devfn, 0x04, 0x0006, 2)   # memory, bus master

    # registers
    def rd(self, off):
        return self.qt.readl(self.bar0 + off)

    def wr(self, off, val):
        self.qt.writel(self.bar0 + off, val)

    def wr16(self, off, val):
        self.qt.writew(self.bar0 + off, val)

    def wr8(self, off, val):
        self.qt.writeb(self.bar0 + off, val)

    @staticmethod
    def queue(n):               # TSNEP_QUEUE(n)
        return 0 if n == 0 else 0x4000 + 0x1000 * (n - 1)

    def enable_irq(self, mask):         # tsnep_enable_irq()
        self.wr(ECM_INT_ENABLE, mask)

    def disable_irq(self, mask):        # tsnep_disable_irq()
        self.wr(ECM_INT_ENABLE, mask | ECM_INT_DISABLE)

    @staticmethod
    def irq_mask(q):                    # queue->irq_mask
        return (ECM_INT_TX_0 | ECM_INT_RX_0) << (ECM_INT_TXRX_SHIFT * q)

    def rx_statistic(self, q):
        return self.rd(self.queue(q) + TSNEP_RX_STATISTIC)

    def set_rx_filter(self, val):       # tsnep_netdev_set_multicast()
        self.wr16(TSNEP_RX_FILTER, val)

    def enable_rule(self, location, ether_type, q):   # tsnep_enable_rule()
        self.wr16(TSNEP_RX_ASSIGN_ETHER_TYPE + 2 * location, ether_type)
        self.wr8(TSNEP_RX_ASSIGN + location, TSNEP_RX_ASSIGN_ACTIVE |
                 (q << TSNEP_RX_ASSIGN_QUEUE_SHIFT))

    def _mdio(self, md):                # tsnep_mdiobus_read/write()
        self.wr(ECM_MD_CONTROL, md | ECM_MD_PREAMBLE)
        for _ in range(64):             # readl_poll_timeout_atomic()
            md = self.rd(ECM_MD_STATUS)
            if not md & ECM_MD_BUSY:
                return md
        raise Failure('ECM_MD_STATUS: BUSY still set after 64 polls '
                      '(read 0x%08x)' % md)

    def mdio_read(self, addr, reg):
        md = self._mdio(ECM_MD_READ | (reg << ECM_MD_ADDR_SHIFT) |
                        (addr << ECM_MD_PHY_ADDR_SHIFT))
        return md >> ECM_MD_DATA_SHIFT

    def mdio_write(self, addr, reg, val):
        self._mdio(ECM_MD_WRITE | (reg << ECM_MD_ADDR_SHIFT) |
                   (addr << ECM_MD_PHY_ADDR_SHIFT) |
                   (val << ECM_MD_DATA_SHIFT))

    def _read64(self, high_reg, low_reg):   # tsnep_get_system_time()
        high = self.rd(high_reg)
        while True:
            low = self.rd(low_reg)
            high_before, high = high, self.rd(high_reg)
            if high == high_before:
                return (high << 32) | low

    def system_time(self):
        return self._read64(ECM_SYSTEM_TIME_HIGH, ECM_SYSTEM_TIME_LOW)

    def counter(self):                      # tsnep_ptp_getcyclesx64()
        return self._read64(ECM_COUNTER_HIGH, ECM_COUNTER_LOW)

    def set_system_time(self, t):           # tsnep_ptp_settime64()
        self.wr(ECM_SYSTEM_TIME_HIGH, t >> 32)
        self.wr(ECM_SYSTEM_TIME_LOW, t & 0xffffffff)

    # guest RAM
    def alloc_page(self):
        page = self.ram
        self.ram += 0x1000
        return page

    def alloc_ring(self):
        """The slots of a ring as tsnep_*_ring_create() lay them out: 16
        pages from dma_alloc_coherent(), which need not be contiguous (here
        they are in descending order with holes, so a device that steps
        through the ring by address instead of by next pointer fails),
        next pointers linking slot i to slot i + 1 and the last to the
        first."""
        pages = [self.alloc_page() for _ in range(2 * TSNEP_RING_PAGE_COUNT)]
        pages = pages[::-2]
        slots = [pages[i // TSNEP_RING_ENTRIES_PER_PAGE] +
                 TSNEP_DESC_SIZE * (i % TSNEP_RING_ENTRIES_PER_PAGE)
                 for i in range(TSNEP_RING_SIZE)]
        for p, page in enumerate(pages):
            image = bytearray(4096)
            for j in range(TSNEP_RING_ENTRIES_PER_PAGE):
                i = p * TSNEP_RING_ENTRIES_PER_PAGE + j
                struct.pack_into('<Q', image, TSNEP_DESC_SIZE * j + DESC_NEXT,
                                 slots[(i + 1) & TSNEP_RING_MASK])
            self.qt.memwrite(page, bytes(image))
        return slots

    # MSI-X
    def msi_addr(self, v):
        return self.msi_base + 16 * v

    def msi_data(self, v):
        return 0x4d530000 | (self.index << 8) | v

    def setup_msix(self):
        """Route every vector to its own word of guest RAM and enable
        MSI-X; returns the table size."""
        qt = self.qt
        cap = qt.cfg_read(self.devfn, 0x34, 1)
        while cap and qt.cfg_read(self.devfn, cap, 1) != PCI_CAP_ID_MSIX:
            cap = qt.cfg_read(self.devfn, cap + 1, 1)
        if not cap:
            raise Failure('no MSI-X capability in config space')
        ctrl = qt.cfg_read(self.devfn, cap + 2, 2)
        table = qt.cfg_read(self.devfn, cap + 4)
        if table & 7 != 1:
            raise Failure('MSI-X table in BAR %d, expected BAR 1'
                          % (table & 7))
        self.msix_vectors = (ctrl & 0x7ff) + 1
        for v in range(self.msix_vectors):
            entry = self.bar1 + (table & ~7) + 16 * v
            qt.writel(entry, self.msi_addr(v))
            qt.writel(entry + 4, 0)
            qt.writel(entry + 8, self.msi_data(v))
            qt.writel(entry + 12, 0)                # unmasked
        qt.cfg_write(self.devfn, cap + 2, (ctrl | 0x8000) & ~0x4000, 2)
        return self.msix_vectors

    def take_msi(self):
        """Vectors whose message arrived since the last call."""
        seen = []
        for v in range(self.msix_vectors):
            got = self.qt.readl(self.msi_addr(v))
            if got == 0:
                continue
            expect_eq('%s MSI-X vector %d message data' % (self.name, v),
                      got, self.msi_data(v))
            seen.append(v)
            self.qt.writel(self.msi_addr(v), 0)
        return seen


class Ring:
    """What the driver's struct tsnep_tx and struct tsnep_rx share: the
    ring base write and the owner counter state of tsnep_tx_init() and
    tsnep_rx_init(), and tsnep_*_desc_available().  DESC_ADDR_LOW and
    DESC_ADDR_HIGH are the queue's TX or RX ring base registers."""

    DESC_ADDR_LOW = DESC_ADDR_HIGH = None

    def init(self):
        dma = self.slot[0] | TSNEP_RESET_OWNER_COUNTER
        self.dev.wr(self.addr + self.DESC_ADDR_LOW, dma & 0xffffffff)
        self.dev.wr(self.addr + self.DESC_ADDR_HIGH, dma >> 32)
        self.write = 0
        self.read = 0
        self.owner_counter = 1
        self.increment_owner_counter = TSNEP_RING_SIZE - 1
        self.history = [1]              # owner counter values, in order

    def owner(self, index):
        """The owner counter bits for the descriptor at index, stepped
        where tsnep_tx_activate() and tsnep_rx_activate() step it."""
        if index == self.increment_owner_counter:
            self.owner_counter += 1
            if self.owner_counter == 4:
                self.owner_counter = 1
            self.history.append(self.owner_counter)
            self.increment_owner_counter -= 1
            if self.increment_owner_counter < 0:
                self.increment_owner_counter = TSNEP_RING_SIZE - 1
        return self.owner_counter << TSNEP_DESC_OWNER_COUNTER_SHIFT

    def available(self):
        if self.read <= self.write:
            return TSNEP_RING_SIZE - self.write + self.read - 1
        return self.read - self.write - 1


class TxRing(Ring):
    """The driver's struct tsnep_tx of one queue."""

    DESC_ADDR_LOW = TSNEP_TX_DESC_ADDR_LOW
    DESC_ADDR_HIGH = TSNEP_TX_DESC_ADDR_HIGH

    def __init__(self, dev, q=0):
        self.dev = dev
        self.qt = dev.qt
        self.addr = dev.queue(q)
        self.slot = dev.alloc_ring()
        self.buf = [None] * TSNEP_RING_SIZE
        self.props = [0] * TSNEP_RING_SIZE      # entry->properties
        self.user_flag = [False] * TSNEP_RING_SIZE
        self.skb = [False] * TSNEP_RING_SIZE
        self.count = [1] * TSNEP_RING_SIZE      # descriptors of the frame
        self.init()

    def activate(self, index, length, last, frag_len, inline, tstamp):
        """tsnep_tx_activate()"""
        props = 0
        if self.skb[index]:
            props = length & TSNEP_DESC_LENGTH_MASK
            props |= TSNEP_DESC_INTERRUPT_FLAG
            if tstamp:
                props |= TSNEP_DESC_EXTENDED_WRITEBACK_FLAG
            self.user_flag[index] = not self.user_flag[index]
        if last:
            props |= TSNEP_TX_DESC_LAST_FRAGMENT_FLAG
        props |= self.owner(index)
        if self.user_flag[index]:
            props |= TSNEP_TX_DESC_OWNER_USER_FLAG
        slot = self.slot[index]
        self.qt.writel(slot + DESC_MORE_PROPERTIES,
                       frag_len & TSNEP_DESC_LENGTH_MASK)
        if inline:
            props |= TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG
        self.props[index] = props
        self.qt.writel(slot + DESC_PROPERTIES, props)   # written last

    def xmit(self, fragments, tstamp=False, doorbell=True):
        """tsnep_xmit_frame_ring(): the skb head and its frags; pieces of
        up to 40 bytes go inline behind the descriptor as tsnep_tx_map()
        puts them.  Returns the index of the first descriptor."""
        count = len(fragments)
        if self.available() < count:
            raise HarnessError('TX ring full (the device completes nothing?)')
        first = self.write
        self.skb[first] = True
        self.count[first] = count
        inline = []
        for i, data in enumerate(fragments):
            index = (first + i) & TSNEP_RING_MASK
            slot = self.slot[index]
            inline.append(len(data) <= TSNEP_TX_INLINE_MAX)
            if inline[i]:
                self.qt.memwrite(slot + DESC_BUFFER, data)
            else:
                if self.buf[index] is None:
                    self.buf[index] = self.dev.alloc_page()
                self.qt.memwrite(self.buf[index], data)
                self.qt.writeq(slot + DESC_BUFFER, self.buf[index])
        length = sum(len(d) for d in fragments)
        for i, data in enumerate(fragments):
            self.activate((first + i) & TSNEP_RING_MASK, length,
                          i == count - 1, len(data), inline[i], tstamp)
        self.write = (first + count) & TSNEP_RING_MASK
        if doorbell:
            self.doorbell()
        return first

    def doorbell(self):
        self.dev.wr(self.addr + TSNEP_CONTROL, TSNEP_CONTROL_TX_ENABLE)

    def writeback(self, index):
        return self.qt.readl(self.slot[index])

    def poll(self):
        """tsnep_tx_poll(): [(index, write-back properties)] completed."""
        done = []
        while self.read != self.write:
            index = self.read
            wb = self.writeback(index)
            if (wb & TSNEP_TX_DESC_OWNER_MASK) != \
               (self.props[index] & TSNEP_TX_DESC_OWNER_MASK):
                break
            self.skb[index] = False
            self.read = (index + self.count[index]) & TSNEP_RING_MASK
            done.append((index, wb))
        return done

    def send(self, fragments, **kw):
        """Send one frame and check that the device completed it."""
        if isinstance(fragments, (bytes, bytearray)):
            fragments = [fragments]
        index = self.xmit(fragments, **kw)
        done = self.poll()
        if [i for i, _ in done] != [index]:
            raise Failure('%s TX completion of the frame in slot %d: expected '
                          'write-back 0x%08x (owner bits), read 0x%08x'
                          % (self.dev.name, index,
                             self.props[index] & TSNEP_TX_DESC_OWNER_MASK,
                             self.writeback(index)))
        return index, done[0][1]


class RxFrame:
    def __init__(self, index, wb, raw):
        length = wb & TSNEP_DESC_LENGTH_MASK
        self.index = index
        self.wb = wb
        self.length = length
        # tsnep_rx_poll(), tsnep_build_skb(): metadata in front, FCS behind
        self.meta = raw[:TSNEP_RX_INLINE_METADATA_SIZE]
        self.data = raw[TSNEP_RX_INLINE_METADATA_SIZE:length - ETH_FCS_LEN]
        self.fcs = raw[length - ETH_FCS_LEN:length]
        self.seq = frame_seq(self.data)


class RxRing(Ring):
    """The driver's struct tsnep_rx of one queue, page pool included."""

    DESC_ADDR_LOW = TSNEP_RX_DESC_ADDR_LOW
    DESC_ADDR_HIGH = TSNEP_RX_DESC_ADDR_HIGH

    def __init__(self, dev, q=0, buf_len=TSNEP_MAX_RX_BUF_SIZE):
        self.dev = dev
        self.qt = dev.qt
        self.q = q
        self.addr = dev.queue(q)
        self.buf_len = buf_len          # entry->len
        self.slot = dev.alloc_ring()
        self.page = [None] * TSNEP_RING_SIZE
        self.props = [0] * TSNEP_RING_SIZE
        self.init()

    def buffer(self, index):
        return self.page[index] + TSNEP_RX_OFFSET

    def activate(self, index):          # tsnep_rx_activate()
        props = self.buf_len & TSNEP_DESC_LENGTH_MASK
        props |= TSNEP_DESC_INTERRUPT_FLAG
        props |= self.owner(index)
        self.props[index] = props
        self.qt.writel(self.slot[index] + DESC_PROPERTIES, props)

    def alloc(self, count):             # tsnep_rx_alloc(), never failing
        for i in range(count):
            index = (self.write + i) & TSNEP_RING_MASK
            if self.page[index] is None:    # tsnep_rx_set_page()
                self.page[index] = self.dev.alloc_page()
            self.qt.writeq(self.slot[index] + DESC_BUFFER,
                           self.buffer(index))
            self.activate(index)
        self.write = (self.write + count) & TSNEP_RING_MASK
        return count

    def enable(self):                   # tsnep_rx_enable()
        self.dev.wr(self.addr + TSNEP_CONTROL, TSNEP_CONTROL_RX_ENABLE)

    def refill(self, count):            # tsnep_rx_refill()
        n = self.alloc(count)
        if n:
            self.enable()
        return n

    def open(self):
        """tsnep_rx_open() fills the ring, tsnep_queue_enable() enables."""
        self.alloc(self.available())
        self.enable()

    def writeback(self, index):
        return self.qt.readl(self.slot[index])

    def poll(self, budget=NAPI_POLL_WEIGHT):
        """tsnep_rx_poll(): the frames taken, refilling as it does."""
        frames = []
        desc_available = self.available()
        while len(frames) < budget and self.read != self.write:
            index = self.read
            wb = self.writeback(index)
            if (wb & TSNEP_DESC_OWNER_COUNTER_MASK) != \
               (self.props[index] & TSNEP_DESC_OWNER_COUNTER_MASK):
                break
            if desc_available >= TSNEP_RING_RX_REFILL:
                desc_available -= self.refill(desc_available)
            length = wb & TSNEP_DESC_LENGTH_MASK
            raw = self.qt.memread(self.buffer(index),
                                  max(length, TSNEP_RX_INLINE_METADATA_SIZE +
                                      ETH_FCS_LEN))
            frames.append(RxFrame(index, wb, raw))
            self.read = (index + 1) & TSNEP_RING_MASK
            desc_available += 1
        if desc_available:
            self.refill(desc_available)
        return frames

    def poll_all(self):
        frames = []
        while True:
            got = self.poll()
            frames += got
            if len(got) < NAPI_POLL_WEIGHT:
                return frames


class Machine:
    def __init__(self, qemu, hmp, devices):
        self.qt = qemu
        self.hmp = hmp
        self.devices = devices
        for d in devices:
            setattr(self, d.name, d)

    def set_link(self, dev, up):
        self.hmp.cmd('set_link %s %s' % (dev.nic_id, 'on' if up else 'off'))


class Case:
    """What one test case gets: start() for its QEMU, killed at the end."""

    def __init__(self, binary):
        self.binary = binary
        self.deadline = time.monotonic() + CASE_TIMEOUT
        self.tmpdir = tempfile.mkdtemp(prefix='tsnep-test-')
        self.qemus = []
        self.hmps = []

    def start(self, monitor=False, **devices):
        """devices: NAME=dict(queues=N); all on one hub.  Device i is in
        PCI slot 4 + i, with MAC address 52:54:00:12:34:0<i + 1>."""
        args = []
        specs = []
        for i, (name, opts) in enumerate(devices.items()):
            mac = bytes([0x52, 0x54, 0x00, 0x12, 0x34, i + 1])
            nic_id = 'n%d' % i
            dev = 'tsnep-pci,netdev=p%d,id=%s,addr=%d,mac=%s' % (
                i, nic_id, 4 + i, ':'.join('%02x' % b for b in mac))
            if 'queues' in opts:
                dev += ',queues=%d' % opts['queues']
            args += ['-netdev', 'hubport,id=p%d,hubid=0' % i, '-device', dev]
            specs.append((name, nic_id, 4 + i, opts.get('queues', 2), mac))
        sock = os.path.join(self.tmpdir, 'hmp%d.sock' % len(self.qemus))
        if monitor:
            args += ['-monitor', 'unix:%s,server=on,wait=off' % sock]
        qt = Qemu(self.binary, args, self.deadline, self.tmpdir)
        self.qemus.append(qt)
        devs = [Device(qt, i, *spec) for i, spec in enumerate(specs)]
        hmp = None
        if monitor:
            hmp = Hmp(sock, self.deadline)
            self.hmps.append(hmp)
        return Machine(qt, hmp, devs)

    def close(self):
        for h in self.hmps:
            h.close()
        for q in self.qemus:
            q.close()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def stream(tx, rx, frames):
    """Send frames from one device, take them on the other."""
    for f in frames:
        tx.send(f)
    return rx.poll_all()


def expect_received(what, got, sent):
    expect_eq('%s: frames received (by sequence number)' % what,
              [f.seq for f in got], [frame_seq(f) for f in sent])
    for f, s in zip(got, sent):
        expect_bytes('%s: frame %d in RX slot %d' % (what, f.seq, f.index),
                     f.data, s)


# --- the cases ----------------------------------------------------------

def test_ecm_type_announces_the_queue_count(t):
    """tsnep_probe() takes the number of TX/RX queue pairs from ECM_TYPE
    and tsnep_queue_init() wants one interrupt per pair; gate control
    must not be announced, it is not modelled."""
    m = t.start(A={}, B=dict(queues=1), C=dict(queues=7))
    for dev, queues in ((m.A, 2), (m.B, 1), (m.C, 7)):
        typ = dev.rd(ECM_TYPE)
        expect_eq('%s (queues=%d) ECM_TYPE queue count' % (dev.name, queues),
                  (typ & ECM_QUEUE_COUNT_MASK) >> ECM_QUEUE_COUNT_SHIFT,
                  queues)
        expect_eq('%s ECM_TYPE gate control bit' % dev.name,
                  typ & ECM_GATE_CONTROL, 0)
        expect_eq('%s MSI-X table size' % dev.name, dev.setup_msix(), queues)


def test_mdio_reads_the_phy_id_at_address_1_and_0xffff_elsewhere(t):
    """phylib scans the bus through tsnep_mdiobus_read(): exactly one PHY,
    at address 1; an ID of 0xffff/0xffff means no PHY (get_phy_c22_id)."""
    m = t.start(A={})
    for addr in range(32):
        ids = (m.A.mdio_read(addr, MII_PHYSID1),
               m.A.mdio_read(addr, MII_PHYSID2))
        expect_eq('PHY ID registers at MDIO address %d' % addr, ids,
                  (PHY_ID1, PHY_ID2) if addr == 1 else (0xffff, 0xffff))


def test_a_frame_sent_on_one_device_arrives_at_the_other_with_its_fcs(t):
    """RX write-back length = 16 bytes inline metadata + frame + 4 bytes
    FCS: tsnep_rx_poll() subtracts TSNEP_RX_INLINE_METADATA_SIZE and
    tsnep_build_skb() ETH_FCS_LEN.  Catches a device that reports the bare
    frame length (the skb would lose 20 bytes) or leaves out the FCS."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    sent = make_frame(m.B.mac, m.A.mac, 1, 98)
    tx.send(sent)
    got = rx.poll_all()
    expect_eq('RX frames taken from the ring', len(got), 1)
    f = got[0]
    expect_eq('RX slot 0 write-back properties', f.wb,
              (rx.props[0] & TSNEP_DESC_OWNER_COUNTER_MASK) |
              (TSNEP_RX_INLINE_METADATA_SIZE + len(sent) + ETH_FCS_LEN))
    expect_bytes('frame as the driver cuts it out of the buffer', f.data, sent)
    expect_bytes('FCS behind the frame', f.fcs,
                 struct.pack('<I', zlib.crc32(sent)))


def test_only_the_first_fragment_is_written_back_with_the_user_flag(t):
    """A frame of three descriptors (inline head, mapped page fragment,
    inline fragment): only the first descriptor is written back, with its
    owner counter and user flag (tsnep_tx_poll() compares all of
    TSNEP_TX_DESC_OWNER_MASK).  Catches a device that writes back only
    bits 31..30 (the frame, whose user flag is set, would never complete)
    and one that writes back every fragment."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    sent = make_frame(m.B.mac, m.A.mac, 7, 160)
    frags = [sent[:34], sent[34:134], sent[134:]]
    first = tx.xmit(frags)
    setup_check(tx.props[first] & TSNEP_TX_DESC_OWNER_USER_FLAG,
                'the user flag is set in the first descriptor')
    wb = tx.writeback(first)
    expect_eq('write-back owner counter and user flag of the first fragment',
              wb & TSNEP_TX_DESC_OWNER_MASK,
              tx.props[first] & TSNEP_TX_DESC_OWNER_MASK)
    for i in (1, 2):
        expect_eq('write-back of fragment %d (slot %d), never acknowledged'
                  % (i, first + i), tx.writeback(first + i), 0)
    expect_eq('TX completions seen by tsnep_tx_poll()',
              [i for i, _ in tx.poll()], [first])
    expect_received('three fragments', rx.poll_all(), [sent])


def test_tx_ring_wraps_through_the_owner_counter(t):
    """800 frames through the 256 entry ring: the owner counter steps
    1, 2, 3, 1 at slots 255, 254, 253 as tsnep_tx_activate() does it and
    every frame is completed at its own slot and sent exactly once.  After
    each frame the doorbell is rung once more with nothing new (as an XDP
    flush can): a device that takes the stale descriptors of the previous
    round (any nonzero counter as 'owned') sends them again, and the peer
    receives them."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    for seq in range(800):
        sent = make_frame(m.B.mac, m.A.mac, seq, 60 + seq % 64)
        index = tx.xmit([sent])
        done = tx.poll()
        if [i for i, _ in done] != [index]:
            raise Failure('frame %d in slot %d: expected write-back owner '
                          'bits 0x%08x, read 0x%08x'
                          % (seq, index,
                             tx.props[index] & TSNEP_TX_DESC_OWNER_MASK,
                             tx.writeback(index)))
        tx.doorbell()
        expect_received('frame %d' % seq, rx.poll(), [sent])
    setup_check(tx.history[:4] == [1, 2, 3, 1],
                'the TX owner counter went 1, 2, 3, 1: %s' % tx.history)
    expect_eq('TSNEP_CONTROL TX_ENABLE after all frames (tsnep_tx_disable)',
              m.A.rd(TSNEP_CONTROL) & TSNEP_CONTROL_TX_ENABLE, 0)


def test_rx_ring_wraps_through_the_owner_counter(t):
    """800 frames in bursts of 40 into the 256 entry ring, taken and
    refilled the way tsnep_rx_poll() does it (refill inside the loop once
    16 descriptors are free, RX_ENABLE after each refill): every frame
    arrives once, in order, in the slot the driver expects it."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    for burst in range(20):
        sent = [make_frame(m.B.mac, m.A.mac, seq, 60 + seq % 100)
                for seq in range(40 * burst, 40 * burst + 40)]
        expect_received('burst %d' % burst, stream(tx, rx, sent), sent)
    setup_check(rx.history[:4] == [1, 2, 3, 1],
                'the RX owner counter went 1, 2, 3, 1: %s' % rx.history)


def test_rx_descriptor_without_owner_counter_match_is_not_used(t):
    """The driver does not poll while a burst fills the ring.  The device
    stops first at slot 255, never posted (counter 0), then, one round
    later, at slot 255 again, which holds the consumed descriptor of the
    previous round (counter 2 while the device is at 3).  The next frame
    must wait for the refill.  Catches a device that takes any descriptor
    with a nonzero counter: it overwrites the stale slot at once (its
    write-back then carries the new frame's different length) and the
    driver, waiting for the new counter, would lose the frame."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    seq = 0
    for round_, stale in enumerate(('counter 0, never posted',
                                    'counter of the previous round')):
        burst = [make_frame(m.B.mac, m.A.mac, seq + i, 64) for i in range(255)]
        for f in burst:
            tx.send(f)
        seq += 255
        index = rx.write        # the device stops at the first unposted slot
        counter = rx.props[index] >> TSNEP_DESC_OWNER_COUNTER_SHIFT
        setup_check(counter == 0 if round_ == 0 else
                    counter not in (0, rx.owner_counter),
                    'slot %d has counter %d, the driver is at %d'
                    % (index, counter, rx.owner_counter))
        wb_before = rx.writeback(index)
        data_before = rx.qt.memread(rx.buffer(index), 100) \
            if rx.page[index] else None
        length = 90 + 10 * round_       # no write-back of an earlier frame
        late = make_frame(m.B.mac, m.A.mac, seq, length)
        seq += 1
        tx.send(late)
        expect_eq('slot %d (%s) write-back after one more frame'
                  % (index, stale), rx.writeback(index), wb_before)
        if data_before is not None:
            expect_bytes('slot %d (%s) buffer after one more frame'
                         % (index, stale),
                         rx.qt.memread(rx.buffer(index), 100), data_before)
        got = rx.poll_all()
        expect_received(stale, got, burst + [late])
        expect_eq('slot of the frame that waited', got[-1].index, index)
        expect_eq('its write-back', got[-1].wb,
                  (rx.props[index] & TSNEP_DESC_OWNER_COUNTER_MASK) |
                  (TSNEP_RX_INLINE_METADATA_SIZE + length + ETH_FCS_LEN))


def test_frames_are_stamped_with_the_counter_and_the_system_time(t):
    """RX inline metadata (tsnep_netdev_get_tstamp()) and the extended TX
    write-back (tsnep_tx_poll(), only if the write-back has
    EXTENDED_WRITEBACK set) carry the free running counter and the system
    time (PHC).  qtest's virtual clock stands still between clock_step
    commands, so both must equal what the registers read.  Catches a
    device that stamps the counter as system time or ignores the flag."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    m.A.set_system_time(0x0000045678abcdef)
    m.B.set_system_time(0x0000012345678000)
    m.qt.clock_step(12345)
    expect_eq('B system time 12345 ns after it was set', m.B.system_time(),
              0x0000012345678000 + 12345)
    index, wb = tx.send(make_frame(m.B.mac, m.A.mac, 1, 60), tstamp=True)
    expect_eq('TX write-back EXTENDED_WRITEBACK flag',
              wb & TSNEP_DESC_EXTENDED_WRITEBACK_FLAG,
              TSNEP_DESC_EXTENDED_WRITEBACK_FLAG)
    counter, stamp = struct.unpack('<QQ',
                                   m.qt.memread(tx.slot[index] + 8, 16))
    expect_eq('TX write-back counter', counter, m.A.counter())
    expect_eq('TX write-back timestamp', stamp, m.A.system_time())
    got = rx.poll_all()
    expect_eq('RX frames', len(got), 1)
    counter, stamp = struct.unpack('<QQ', got[0].meta)
    expect_eq('RX inline counter', counter, m.B.counter())
    expect_eq('RX inline timestamp', stamp, m.B.system_time())


def test_ack_clears_only_the_bits_written(t):
    """tsnep_irq() acknowledges exactly the bits it read from
    ECM_INT_ACTIVE; events of other sources stay latched, and reading
    does not clear them.  Catches read-to-clear and clear-all-on-write."""
    m = t.start(monitor=True, A={}, B=dict(queues=2))
    b = m.B
    b.disable_irq(ECM_INT_ALL)                  # tsnep_probe()
    b.enable_irq(ECM_INT_LINK)                  # tsnep_netdev_open()
    b.enable_irq(b.irq_mask(0))
    b.enable_irq(b.irq_mask(1))
    atx, brx0, brx1, btx = TxRing(m.A), RxRing(b), RxRing(b, 1), TxRing(b)
    brx0.open()
    brx1.open()
    b.enable_rule(0, ETHER_TYPE_TEST + 1, 1)
    btx.send(make_frame(m.A.mac, b.mac, 1, 60))                  # TX_0
    atx.send(make_frame(b.mac, m.A.mac, 2, 60))                  # RX_0
    atx.send(make_frame(b.mac, m.A.mac, 3, 60, ETHER_TYPE_TEST + 1))  # RX_1
    m.set_link(b, False)                                         # LINK
    m.set_link(b, True)
    rx1 = ECM_INT_RX_0 << ECM_INT_TXRX_SHIFT
    events = ECM_INT_LINK | ECM_INT_TX_0 | ECM_INT_RX_0 | rx1
    expect_eq('ECM_INT_ACTIVE after link, TX 0, RX 0, RX 1 events',
              b.rd(ECM_INT_ACTIVE), events)
    expect_eq('ECM_INT_ACTIVE read a second time', b.rd(ECM_INT_ACTIVE),
              events)
    b.wr(ECM_INT_ACKNOWLEDGE, ECM_INT_LINK | ECM_INT_RX_0)
    expect_eq('ECM_INT_ACTIVE after acknowledging LINK and RX_0',
              b.rd(ECM_INT_ACTIVE), ECM_INT_TX_0 | rx1)
    b.wr(ECM_INT_ACKNOWLEDGE, 0)
    expect_eq('ECM_INT_ACTIVE after acknowledging nothing',
              b.rd(ECM_INT_ACTIVE), ECM_INT_TX_0 | rx1)
    b.wr(ECM_INT_ACKNOWLEDGE, ECM_INT_TX_0 | rx1)
    expect_eq('ECM_INT_ACTIVE after acknowledging the rest',
              b.rd(ECM_INT_ACTIVE), 0)


def test_link_event_while_disabled_never_reaches_the_irq_handler(t):
    """tsnep_netdev_close() disables ECM_INT_LINK before tsnep_phy_close()
    and tsnep_netdev_open() enables it before phy_connect_direct(), while
    queue 0's NAPI keeps enabling queue 0 (tsnep_poll()); tsnep_irq()
    hands every ECM_INT_LINK it reads to phy_mac_interrupt() of the
    netdev's PHY, which is NULL then.  So a link change while the bit is
    disabled must neither send vector 0 nor show up in ECM_INT_ACTIVE
    later, when queue 0 or the link bit itself is enabled again (the
    frame for queue 0 comes with the link up: QEMU drops frames for a NIC
    whose link is down).  Catches
    a device that keeps masked events and delivers them at the next
    enable (the model's first version, which crashed the guest on
    ifdown/ifup); the last step, a link change with the bit enabled,
    shows that the path does signal."""
    m = t.start(monitor=True, A={}, B=dict(queues=1))
    b = m.B
    b.setup_msix()
    b.disable_irq(ECM_INT_ALL)                  # tsnep_probe()
    b.enable_irq(ECM_INT_LINK)                  # tsnep_netdev_open()
    b.enable_irq(b.irq_mask(0))
    tx, rx = TxRing(m.A), RxRing(b)
    rx.open()
    b.disable_irq(ECM_INT_LINK)                 # tsnep_netdev_close()
    m.set_link(b, False)                        # cable out and in again
    m.set_link(b, True)
    expect_eq('MSI-X vectors after link changes with ECM_INT_LINK disabled',
              b.take_msi(), [])
    b.disable_irq(b.irq_mask(0))                # queue 0 NAPI runs ...
    b.enable_irq(b.irq_mask(0))                 # ... and completes
    expect_eq('MSI-X vectors after queue 0 is enabled again', b.take_msi(),
              [])
    tx.send(make_frame(b.mac, m.A.mac, 1, 60))
    expect_eq('MSI-X vectors after a frame for queue 0', b.take_msi(), [0])
    active = b.rd(ECM_INT_ACTIVE)               # tsnep_irq()
    expect_eq('ECM_INT_ACTIVE as tsnep_irq() reads it', active, ECM_INT_RX_0)
    b.wr(ECM_INT_ACKNOWLEDGE, active)
    b.enable_irq(ECM_INT_LINK)                  # tsnep_netdev_open()
    expect_eq('MSI-X vectors when ECM_INT_LINK is enabled again',
              b.take_msi(), [])
    expect_eq('ECM_INT_ACTIVE when ECM_INT_LINK is enabled again',
              b.rd(ECM_INT_ACTIVE), 0)
    m.set_link(b, False)
    expect_eq('MSI-X vectors after a link change with ECM_INT_LINK enabled',
              b.take_msi(), [0])
    expect_eq('ECM_INT_ACTIVE after it', b.rd(ECM_INT_ACTIVE), ECM_INT_LINK)


def test_reenable_without_new_event_raises_nothing(t):
    """tsnep_irq_txrx() (vectors >= 1) masks its queue and never reads or
    acknowledges ECM_INT_ACTIVE; when tsnep_poll() enables the queue
    again with no new event, no message may come.  Catches a device that
    signals whenever an active bit is enabled: vector 1 would fire on
    every enable, an interrupt storm."""
    m = t.start(A={}, B=dict(queues=2))
    b = m.B
    b.setup_msix()
    b.disable_irq(ECM_INT_ALL)
    b.enable_irq(ECM_INT_LINK)
    b.enable_irq(b.irq_mask(0))
    b.enable_irq(b.irq_mask(1))
    tx, rx0, rx1 = TxRing(m.A), RxRing(b), RxRing(b, 1)
    rx0.open()
    rx1.open()
    b.enable_rule(0, ETHER_TYPE_TEST, 1)
    for seq in (1, 2):
        tx.send(make_frame(b.mac, m.A.mac, seq, 60))
        expect_eq('MSI-X vectors after frame %d for queue 1' % seq,
                  b.take_msi(), [1])
        b.disable_irq(b.irq_mask(1))            # tsnep_irq_txrx()
        expect_eq('frames taken by queue 1 NAPI', [f.seq for f in rx1.poll()],
                  [seq])
        b.enable_irq(b.irq_mask(1))             # tsnep_poll()
        expect_eq('MSI-X vectors when queue 1 is enabled again with no new '
                  'event', b.take_msi(), [])
        b.disable_irq(b.irq_mask(1))
        b.enable_irq(b.irq_mask(1))
        expect_eq('MSI-X vectors after one more disable/enable', b.take_msi(),
                  [])


def test_link_down_sets_the_link_interrupt_and_clears_bmsr_link(t):
    """The driver runs the PHY with PHY_MAC_INTERRUPT: phylib only looks
    at the PHY when tsnep_irq() sees ECM_INT_LINK, so every link change
    must raise it (vector 0) and BMSR must show the new state; link up
    also needs autonegotiation complete (genphy_update_link())."""
    m = t.start(monitor=True, A={}, B={})
    b = m.B
    b.setup_msix()
    b.disable_irq(ECM_INT_ALL)
    b.enable_irq(ECM_INT_LINK)
    expect_eq('BMSR link and aneg complete before', b.mdio_read(1, MII_BMSR) &
              (BMSR_LSTATUS | BMSR_ANEGCOMPLETE),
              BMSR_LSTATUS | BMSR_ANEGCOMPLETE)
    for up in (False, True):
        m.set_link(b, up)
        expect_eq('MSI-X vectors after set_link %s' % ('on' if up else 'off'),
                  b.take_msi(), [0])
        active = b.rd(ECM_INT_ACTIVE)
        expect_eq('ECM_INT_ACTIVE LINK', active & ECM_INT_LINK, ECM_INT_LINK)
        b.wr(ECM_INT_ACKNOWLEDGE, active)
        bmsr = b.mdio_read(1, MII_BMSR)
        expect_eq('BMSR link and aneg complete with the link %s'
                  % ('up' if up else 'down'),
                  bmsr & (BMSR_LSTATUS | BMSR_ANEGCOMPLETE),
                  BMSR_LSTATUS | BMSR_ANEGCOMPLETE if up else 0)


def test_frame_sent_without_link_completes_with_no_link_and_is_not_sent(t):
    """Without link TX must still complete (tsnep_tx_disable() waits for
    the ring to drain), with TSNEP_DESC_NO_LINK_FLAG in the write-back,
    and the frame must not go out later when the link comes back."""
    m = t.start(monitor=True, A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    rx.open()
    m.set_link(m.A, False)
    _, wb = tx.send(make_frame(m.B.mac, m.A.mac, 1, 60))
    expect_eq('TX write-back NO_LINK flag', wb & TSNEP_DESC_NO_LINK_FLAG,
              TSNEP_DESC_NO_LINK_FLAG)
    m.set_link(m.A, True)
    rx.enable()                                 # flushes anything queued
    sent = make_frame(m.B.mac, m.A.mac, 2, 60)
    _, wb = tx.send(sent)
    expect_eq('TX write-back NO_LINK flag with the link up',
              wb & TSNEP_DESC_NO_LINK_FLAG, 0)
    expect_received('after the link came back', rx.poll_all(), [sent])


def test_queue_without_descriptor_counts_no_desc_drop(t):
    """A frame for queue 1 (RX assign rule) that finds queue 1's ring
    used up is dropped and counted in queue 1's RX_STATISTIC "no
    descriptor" byte, which tsnep_netdev_get_stats64() adds to rx_dropped
    on every read: it must count up, not clear on read, and the frames
    must not turn up later or in queue 0."""
    m = t.start(A={}, B=dict(queues=2))
    b = m.B
    tx, rx0, rx1 = TxRing(m.A), RxRing(b), RxRing(b, 1)
    rx0.open()
    rx1.open()
    b.enable_rule(1, ETHER_TYPE_TEST, 1)
    sent = [make_frame(b.mac, m.A.mac, seq, 60) for seq in range(258)]
    for f in sent:
        tx.send(f)
    for _ in range(2):
        expect_eq('queue 1 RX_STATISTIC (no descriptor in byte 0)',
                  b.rx_statistic(1), 3)
    expect_eq('queue 0 RX_STATISTIC', b.rx_statistic(0), 0)
    expect_eq('frames in queue 0', [f.seq for f in rx0.poll_all()], [])
    expect_received('queue 1', rx1.poll_all(), sent[:255])
    more = make_frame(b.mac, m.A.mac, 300, 60)
    tx.send(more)
    expect_received('queue 1 after the refill', rx1.poll_all(), [more])


def test_frame_bigger_than_buffer_counts_buffer_too_small(t):
    """The size in an RX descriptor (XSK zero-copy posts smaller ones than
    the page pool) must hold metadata + frame + FCS.  A 1000 byte
    broadcast fits into 1020 bytes (C) but not into 1016 (B), which counts
    it in RX_STATISTIC "buffer too small" and writes nothing.  Catches a
    device that forgets the FCS or the metadata in the check (it would
    write past B's buffer) and one that is off by one the other way."""
    m = t.start(A={}, B={}, C={})
    tx = TxRing(m.A)
    small, exact = RxRing(m.B, buf_len=1016), RxRing(m.C, buf_len=1020)
    small.open()
    exact.open()
    sent = make_frame(BROADCAST, m.A.mac, 1, 1000)
    tx.send(sent)
    expect_eq('B (1016 byte buffers) RX_STATISTIC (buffer too small in '
              'byte 1)', m.B.rx_statistic(0), 1 << 8)
    expect_eq('B slot 0 write-back', small.writeback(0), 0)
    expect_bytes('B slot 0 buffer', m.qt.memread(small.buffer(0), 1024),
                 bytes(1024))
    got = exact.poll_all()
    expect_received('C (1020 byte buffers)', got, [sent])
    expect_eq('C slot 0 write-back length', got[0].length, 1020)
    expect_eq('C RX_STATISTIC', m.C.rx_statistic(0), 0)


def test_rx_filter_drops_foreign_unicast_unless_promiscuous(t):
    """RX_FILTER as tsnep_netdev_set_multicast() writes it: 0 passes the
    MAC address and broadcasts, ACCEPT_ALL_MULTICASTS adds multicasts
    (IFF_ALLMULTI), both bits add any unicast (IFF_PROMISC).  Dropped
    frames must be gone, not merely delayed."""
    m = t.start(A={}, B={})
    tx, rx = TxRing(m.A), RxRing(m.B)
    m.B.set_rx_filter(0)                        # tsnep_mac_init()
    rx.open()
    plan = [(0, FOREIGN, False), (0, MULTICAST, False),
            (0, m.B.mac, True), (0, BROADCAST, True),
            (TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS, MULTICAST, True),
            (TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS, FOREIGN, False),
            (TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS |
             TSNEP_RX_FILTER_ACCEPT_ALL_UNICASTS, FOREIGN, True),
            (TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS |
             TSNEP_RX_FILTER_ACCEPT_ALL_UNICASTS, MULTICAST, True),
            (0, FOREIGN, False)]
    expected = []
    for seq, (rx_filter, dst, passes) in enumerate(plan):
        m.B.set_rx_filter(rx_filter)
        sent = make_frame(dst, m.A.mac, seq, 60)
        tx.send(sent)
        if passes:
            expected.append(sent)
    rx.enable()                                 # flushes anything queued
    expect_received('RX filter plan (filter, destination)', rx.poll_all(),
                    expected)


CASES = [
    test_ecm_type_announces_the_queue_count,
    test_mdio_reads_the_phy_id_at_address_1_and_0xffff_elsewhere,
    test_a_frame_sent_on_one_device_arrives_at_the_other_with_its_fcs,
    test_only_the_first_fragment_is_written_back_with_the_user_flag,
    test_tx_ring_wraps_through_the_owner_counter,
    test_rx_ring_wraps_through_the_owner_counter,
    test_rx_descriptor_without_owner_counter_match_is_not_used,
    test_frames_are_stamped_with_the_counter_and_the_system_time,
    test_ack_clears_only_the_bits_written,
    test_link_event_while_disabled_never_reaches_the_irq_handler,
    test_reenable_without_new_event_raises_nothing,
    test_link_down_sets_the_link_interrupt_and_clears_bmsr_link,
    test_frame_sent_without_link_completes_with_no_link_and_is_not_sent,
    test_queue_without_descriptor_counts_no_desc_drop,
    test_frame_bigger_than_buffer_counts_buffer_too_small,
    test_rx_filter_drops_foreign_unicast_unless_promiscuous,
]


def run_case(binary, case, case_class=None):
    """None if the case passed, else the reason, on one line. case_class:
    the harness the case runs on (this file's Case by default)."""
    t = (case_class or Case)(binary)
    try:
        case(t)
        return None
    except (Failure, HarnessError) as e:
        reason = str(e)
    except Exception as e:      # a bug in this file fails the case too
        reason = 'test error: %s: %s' % (type(e).__name__, e)
    finally:
        t.close()
    return ' '.join(reason.split())


def main(argv, cases=None, name='tsnep-test', case_class=None,
         binary=None):
    """Run cases (this file's CASES by default) on case_class, print a
    TAP-like line each and "NAME: N passed, N failed"; igb-test.py runs
    its own cases through it."""
    binary = binary or DEFAULT_QEMU
    all_cases = cases or CASES
    pattern = None
    for arg in argv[1:]:
        if arg in ('-h', '--help'):
            print('usage: %s [QEMU-BINARY] [CASE-FILTER]' % argv[0])
            return 0
        if os.sep in arg or os.path.isfile(arg):
            binary = arg
        elif pattern is None:
            pattern = arg
        else:
            print('%s: unexpected argument %s' % (argv[0], arg),
                  file=sys.stderr)
            return 2
    if not os.access(binary, os.X_OK):
        print('%s: no QEMU binary at %s' % (argv[0], binary), file=sys.stderr)
        return 2
    cases = [c for c in all_cases
             if pattern is None or pattern in c.__name__]
    if not cases:
        print('%s: no case matches "%s"' % (argv[0], pattern),
              file=sys.stderr)
        return 2
    passed = failed = 0
    for n, case in enumerate(cases, 1):
        reason = run_case(binary, case, case_class)
        if reason is None:
            passed += 1
            print('ok %d %s' % (n, case.__name__), flush=True)
        else:
            failed += 1
            print('not ok %d %s: %s' % (n, case.__name__, reason), flush=True)
    print('%s: %d passed, %d failed' % (name, passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
