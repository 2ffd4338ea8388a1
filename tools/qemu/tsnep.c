/*
 * QEMU model of the Engleder TSN endpoint Ethernet MAC ("tsnep") on PCI
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The real TSN endpoint is an FPGA IP core that Linux drives as a platform
 * device (drivers/net/ethernet/engleder).  This device puts its register
 * block into BAR0 of a PCI function so that a small guest-side shim can
 * register a "tsnep" platform device on top of it: the MEM resource is
 * BAR0, the IRQ resources are the MSI-X vectors of BAR1.  The unmodified
 * driver then probes as on hardware.
 *
 * Everything below is derived from what the driver does with the device:
 *
 * - ECM block at 0x0000: type (version, revision, queue count), system
 *   time (PHC) and free running counter, clock rate adjustment, interrupt
 *   enable/active/acknowledge, interrupt delay (stored only), link mode
 *   status, MDIO with one generic clause-22 PHY at address 1, statistics.
 * - MAC block at 0x0800: MAC address, RX filter, RX queue assignment by
 *   EtherType.
 * - One TX/RX queue pair per "queues" (queue 0 registers live at 0x0100,
 *   queue n at 0x4000 + 0x1000 * (n - 1) + 0x0100): descriptor ring base
 *   addresses, control (TX doorbell, RX enable/disable), RX statistics.
 * - Descriptors in 256 byte slots: write-back at slot + 0, descriptor at
 *   slot + 128, slots linked by the descriptor's next pointer.  Ownership
 *   is signalled by a 2 bit owner counter (1, 2, 3, 1, ...) in the
 *   descriptor; the device writes it back to acknowledge completion.
 * - RX frames are written behind 16 bytes of inline metadata (counter and
 *   system time stamps) and followed by the FCS.
 * - MSI-X: vector 0 carries the link interrupt and queue 0, vector n
 *   carries queue n.
 *
 * Not modelled: gate control (taprio; ECM_TYPE does not announce it),
 * interrupt delay/coalescing, TX launch time, PHY errors, FIFO overflow.
 * Device ID 0x00f5 of the Red Hat vendor ID is for testing only and not
 * assigned to anything.
 */

#include "qemu/osdep.h"
#include <zlib.h> /* crc32() for the FCS */
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/net/mii.h"
#include "migration/vmstate.h"
#include "net/eth.h"
#include "net/net.h"
#include "qapi/error.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object.h"

#define TYPE_TSNEP_PCI "tsnep-pci"
OBJECT_DECLARE_SIMPLE_TYPE(TsnepState, TSNEP_PCI)

#define TSNEP_PCI_DEVICE_ID     0x00f5  /* test only, not an assigned ID */
#define TSNEP_MMIO_SIZE         0x10000
#define TSNEP_MAX_QUEUES        8       /* queue windows of the layout */
#define TSNEP_MAX_QUEUE_COUNT   7       /* what ECM_TYPE can announce */
#define TSNEP_VERSION           1
#define TSNEP_REVISION          0

/* ECM registers */
#define ECM_TYPE                0x0000
#define ECM_VERSION_SHIFT       8
#define ECM_QUEUE_COUNT_SHIFT   16      /* 3 bits: number of queue pairs */
#define ECM_SYSTEM_TIME_LOW     0x0008
#define ECM_SYSTEM_TIME_HIGH    0x000c  /* written: taken with LOW write */
#define ECM_CLOCK_RATE          0x0010
#define ECM_CLOCK_RATE_SIGN     0x80000000u
#define ECM_INT_ENABLE          0x0018
#define ECM_INT_ACTIVE          0x001c  /* read */
#define ECM_INT_ACKNOWLEDGE     0x001c  /* write */
#define ECM_INT_LINK            0x00000020u
#define ECM_INT_TX_0            0x00000100u
#define ECM_INT_RX_0            0x00000200u
#define ECM_INT_TXRX_SHIFT      2       /* per queue */
#define ECM_INT_ALL             0x7fffffffu
#define ECM_INT_DISABLE         0x80000000u
#define ECM_RESET               0x0020
#define ECM_RESET_COMMON        0x00000001u
#define ECM_COUNTER_LOW         0x0028
#define ECM_COUNTER_HIGH        0x002c
#define ECM_INT_DELAY           0x0030  /* one byte per queue */
#define ECM_STATUS              0x0080
#define ECM_NO_LINK             0x01000000u
#define ECM_MD_CONTROL          0x0084  /* write */
#define ECM_MD_STATUS           0x0084  /* read */
#define ECM_MD_WRITE            0x00000002u
#define ECM_MD_READ             0x00000004u
#define ECM_MD_ADDR_SHIFT       3
#define ECM_MD_PHY_ADDR_SHIFT   8
#define ECM_MD_DATA_SHIFT       16
#define ECM_STAT                0x00b0

/* MAC registers */
#define TSNEP_MAC_ADDRESS_LOW   0x0800
#define TSNEP_MAC_ADDRESS_HIGH  0x0804  /* 16 bit, TSNEP_RX_FILTER above */
#define TSNEP_RX_FILTER_SHIFT   16      /* TSNEP_RX_FILTER is 16 bit 0x806 */
#define TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS 0x0001
#define TSNEP_RX_FILTER_ACCEPT_ALL_UNICASTS   0x0002
#define TSNEP_RX_ASSIGN         0x0840  /* one byte per rule */
#define TSNEP_RX_ASSIGN_ACTIVE  0x01
#define TSNEP_RX_ASSIGN_QUEUE_MASK  0x06
#define TSNEP_RX_ASSIGN_QUEUE_SHIFT 1
#define TSNEP_RX_ASSIGN_ETHER_TYPE  0x0880  /* 16 bit per rule */
#define TSNEP_RX_ASSIGN_COUNT   2

/* queue registers, relative to the queue window */
#define TSNEP_MAC_SIZE          0x4000
#define TSNEP_QUEUE_SIZE        0x1000
#define TSNEP_QUEUE_REGS_START  0x0100
#define TSNEP_QUEUE_REGS_END    0x0200
#define TSNEP_INFO              0x0100
#define TSNEP_CONTROL           0x0108
#define TSNEP_CONTROL_TX_RESET      0x00000001u
#define TSNEP_CONTROL_TX_ENABLE     0x00000002u
#define TSNEP_CONTROL_TX_DMA_ERROR  0x00000010u
#define TSNEP_CONTROL_TX_DESC_ERROR 0x00000020u
#define TSNEP_CONTROL_RX_RESET      0x00000100u
#define TSNEP_CONTROL_RX_ENABLE     0x00000200u
#define TSNEP_CONTROL_RX_DISABLE    0x00000400u
#define TSNEP_CONTROL_RX_DMA_ERROR  0x00001000u
#define TSNEP_CONTROL_RX_DESC_ERROR 0x00002000u
#define TSNEP_CONTROL_TX_ERRORS     0x00000030u
#define TSNEP_CONTROL_RX_ERRORS     0x00003000u
#define TSNEP_TX_DESC_ADDR_LOW  0x0140
#define TSNEP_TX_DESC_ADDR_HIGH 0x0144
#define TSNEP_RX_DESC_ADDR_LOW  0x0180
#define TSNEP_RX_DESC_ADDR_HIGH 0x0184
#define TSNEP_RESET_OWNER_COUNTER 0x1   /* in the ring base address */
#define TSNEP_RX_STATISTIC      0x0190  /* four saturating 8 bit counters */

/* descriptors */
#define TSNEP_DESC_OFFSET       128     /* descriptor behind write-back */
#define TSNEP_DESC_OWNER_COUNTER_MASK  0xc0000000u
#define TSNEP_DESC_OWNER_COUNTER_SHIFT 30
#define TSNEP_DESC_LENGTH_MASK  0x00003fffu
#define TSNEP_DESC_INTERRUPT_FLAG          0x00040000u
#define TSNEP_DESC_EXTENDED_WRITEBACK_FLAG 0x00080000u
#define TSNEP_DESC_NO_LINK_FLAG            0x01000000u
#define TSNEP_TX_DESC_OWNER_MASK           0xe0000000u /* + user flag */
#define TSNEP_TX_DESC_LAST_FRAGMENT_FLAG   0x00010000u
#define TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG 0x00020000u
#define TSNEP_RX_DESC_BUFFER_SIZE_MASK     0x00003ffcu
#define TSNEP_RX_INLINE_SIZE    16      /* counter, timestamp */

/* the driver's max_mtu plus header and two VLAN tags, without FCS */
#define TSNEP_MAX_FRAME_LEN     (2048 + ETH_HLEN + 2 * 4)
#define TSNEP_RING_SIZE         256     /* the driver's ring, bounds walks */
#define TSNEP_TX_BUDGET         (2 * TSNEP_RING_SIZE)

/* PHY */
#define TSNEP_PHY_ADDR          1
#define TSNEP_PHY_ID1           0x1b36  /* claimed by no Linux PHY driver */
#define TSNEP_PHY_ID2           0xf501
#define TSNEP_PHY_BMCR_RESET    (MII_BMCR_AUTOEN | MII_BMCR_FD | \
                                 MII_BMCR_SPEED1000)
#define TSNEP_PHY_BMSR          (MII_BMSR_100TX_FD | MII_BMSR_10T_FD | \
                                 MII_BMSR_EXTSTAT | MII_BMSR_AUTONEG | \
                                 MII_BMSR_EXTCAP)
#define TSNEP_PHY_ANAR_RESET    (MII_ANAR_TXFD | MII_ANAR_10FD | \
                                 MII_ANAR_CSMACD)
#define TSNEP_PHY_LP_ABILITY    (MII_ANLPAR_ACK | MII_ANLPAR_TXFD | \
                                 MII_ANLPAR_10FD | MII_ANLPAR_CSMACD)
#define TSNEP_PHY_LP_1000       (MII_STAT1000_LOK | MII_STAT1000_ROK | \
                                 MII_STAT1000_FULL)

/* TX and RX descriptor as the driver writes it, at slot + 128 */
typedef struct TsnepDesc {
    uint32_t properties;
    uint32_t more_properties;   /* TX: length of this fragment */
    uint32_t reserved[2];
    uint64_t next;              /* slot of the next descriptor */
    uint64_t buffer;            /* TX: data, or inline data from here on */
} TsnepDesc;

/* TX write-back, at slot + 0; RX write-back has only properties */
typedef struct TsnepTxDescWb {
    uint32_t properties;
    uint32_t reserved1;
    uint64_t counter;
    uint64_t timestamp;
    uint32_t dma_delay;
    uint32_t reserved2;
} TsnepTxDescWb;

QEMU_BUILD_BUG_ON(sizeof(TsnepDesc) != 32);
QEMU_BUILD_BUG_ON(sizeof(TsnepTxDescWb) != 32);

enum {
    TSNEP_STAT_NO_DESC,
    TSNEP_STAT_BUFFER_TOO_SMALL,
    TSNEP_STAT_FIFO_OVERFLOW,
    TSNEP_STAT_INVALID_FRAME,
    TSNEP_STAT_COUNT,
};

typedef struct TsnepRing {
    uint32_t base_low;
    uint32_t base_high;
    uint64_t pos;               /* slot of the next descriptor */
    uint8_t owner;              /* owner counter last taken, 1..3 */
} TsnepRing;

typedef struct TsnepQueue {
    TsnepRing tx;
    TsnepRing rx;
    bool rx_enabled;
    bool tx_stalled;            /* a frame's fragments are not all owned */
    uint32_t errors;            /* TSNEP_CONTROL_*_ERROR */
    uint8_t rx_stat[TSNEP_STAT_COUNT];
} TsnepQueue;

typedef struct TsnepPhy {
    uint16_t bmcr;
    uint16_t anar;
    uint16_t ctrl1000;
    bool link;                  /* what BMSR reports */
} TsnepPhy;

struct TsnepState {
    PCIDevice parent_obj;

    NICState *nic;
    NICConf conf;
    MemoryRegion mmio;
    uint32_t num_queues;

    uint32_t int_enable;
    uint32_t int_active;
    uint32_t int_delay[2];
    uint32_t ecm_status;
    uint32_t md_status;
    uint32_t clock_rate;
    uint32_t time_high;         /* buffered ECM_SYSTEM_TIME_HIGH write */
    uint64_t time_ref;          /* counter when system time was set */
    uint64_t time_base;         /* system time at time_ref */
    uint32_t mac_low;
    uint32_t mac_high;          /* address bytes 4, 5 and TSNEP_RX_FILTER */
    uint32_t rx_assign;
    uint32_t rx_assign_ether_type;

    TsnepPhy phy;
    TsnepQueue queue[TSNEP_MAX_QUEUES];
    uint8_t tx_buf[TSNEP_MAX_FRAME_LEN];
};

static void tsnep_merge(uint32_t *reg, uint32_t val, uint32_t mask)
{
    *reg = (*reg & ~mask) | (val & mask);
}

static bool tsnep_bus_master(TsnepState *s)
{
    return pci_get_word(PCI_DEVICE(s)->config + PCI_COMMAND) &
           PCI_COMMAND_MASTER;
}

/*
 * Time: the free running counter is QEMU_CLOCK_VIRTUAL in ns, the system
 * time follows it with an offset (set by writing HIGH, then LOW) and the
 * ECM_CLOCK_RATE offset (2^-32 ns per 8 ns clock cycle, sign in bit 31).
 * The driver reads HIGH, LOW, HIGH until HIGH is stable, so no latch.
 */
static uint64_t tsnep_counter(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static uint64_t tsnep_system_time(TsnepState *s)
{
    uint64_t elapsed = tsnep_counter() - s->time_ref;
    uint64_t lo, hi, adj;

    mulu64(&lo, &hi, elapsed, s->clock_rate & ~ECM_CLOCK_RATE_SIGN);
    adj = (hi << 29) | (lo >> 35);
    if (s->clock_rate & ECM_CLOCK_RATE_SIGN) {
        return s->time_base + elapsed - adj;
    }
    return s->time_base + elapsed + adj;
}

static void tsnep_set_system_time(TsnepState *s, uint64_t time)
{
    s->time_ref = tsnep_counter();
    s->time_base = time;
}

static void tsnep_clock_rate_write(TsnepState *s, uint32_t val, uint32_t mask)
{
    tsnep_set_system_time(s, tsnep_system_time(s));
    tsnep_merge(&s->clock_rate, val, mask);
}

/*
 * Interrupts.  An event is latched in ECM_INT_ACTIVE, and sends its
 * MSI-X vector, only while it is enabled; ECM_INT_ACTIVE reads the
 * latched events that are still enabled, and ECM_INT_ACKNOWLEDGE clears
 * them.  What comes while an event is disabled is not kept: the driver
 * says so (tsnep_poll() checks its rings after enabling a queue again,
 * for frames that came while it was masked), and relies on it
 * (tsnep_netdev_open() enables ECM_INT_LINK before the PHY is connected,
 * tsnep_netdev_close() disables it before the PHY goes, and tsnep_irq()
 * hands any ECM_INT_LINK it reads to the netdev's PHY).  Vector 0
 * carries ECM_INT_LINK and queue 0, vector n queue n.
 */
static uint32_t tsnep_int_vector_bits(unsigned vector)
{
    uint32_t bits = (ECM_INT_TX_0 | ECM_INT_RX_0) <<
                    (ECM_INT_TXRX_SHIFT * vector);

    return vector ? bits : bits | ECM_INT_LINK;
}

static void tsnep_int_raise(TsnepState *s, uint32_t bits)
{
    unsigned v;

    bits &= s->int_enable;
    s->int_active |= bits;
    for (v = 0; v < s->num_queues; v++) {
        if (bits & tsnep_int_vector_bits(v)) {
            msix_notify(PCI_DEVICE(s), v);
        }
    }
}

static void tsnep_int_enable_write(TsnepState *s, uint32_t val)
{
    uint32_t bits = val & ECM_INT_ALL;

    if (val & ECM_INT_DISABLE) {
        s->int_enable &= ~bits;
    } else {
        s->int_enable |= bits;
    }
}

static void tsnep_int_acknowledge(TsnepState *s, uint32_t val)
{
    s->int_active &= ~val;
}

/* DMA helpers; failures are guest errors and set the queue's error bit */
static bool tsnep_dma_read(TsnepState *s, TsnepQueue *q, uint64_t addr,
                           void *buf, size_t len, uint32_t err)
{
    if (pci_dma_read(PCI_DEVICE(s), addr, buf, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "tsnep: DMA read of %zu bytes at 0x%"
                      PRIx64 " failed\n", len, addr);
        q->errors |= err;
        return false;
    }
    return true;
}

static bool tsnep_dma_write(TsnepState *s, TsnepQueue *q, uint64_t addr,
                            const void *buf, size_t len, uint32_t err)
{
    if (pci_dma_write(PCI_DEVICE(s), addr, buf, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "tsnep: DMA write of %zu bytes at 0x%"
                      PRIx64 " failed\n", len, addr);
        q->errors |= err;
        return false;
    }
    return true;
}

static bool tsnep_desc_read(TsnepState *s, TsnepQueue *q, uint64_t slot,
                            TsnepDesc *d, uint32_t err)
{
    if (!tsnep_dma_read(s, q, slot + TSNEP_DESC_OFFSET, d, sizeof(*d), err)) {
        return false;
    }
    d->properties = le32_to_cpu(d->properties);
    d->more_properties = le32_to_cpu(d->more_properties);
    d->next = le64_to_cpu(d->next);
    d->buffer = le64_to_cpu(d->buffer);
    return true;
}

static bool tsnep_wb_write(TsnepState *s, TsnepQueue *q, uint64_t slot,
                           uint32_t properties, uint32_t err)
{
    uint32_t val = cpu_to_le32(properties);

    return tsnep_dma_write(s, q, slot, &val, sizeof(val), err);
}

/*
 * Owner counter.  After a ring base write with TSNEP_RESET_OWNER_COUNTER
 * the driver hands out descriptors with counter 1 and steps the counter
 * (1, 2, 3, 1, ...) every 255 descriptors, at a slot that moves back by
 * one each round of its 256 entry ring.  A stale descriptor thus always
 * carries the counter before the one last taken, a new one the same or
 * the next.  Counter 0 (zeroed ring) is never owned.
 */
static uint8_t tsnep_owner_counter(uint32_t properties)
{
    return (properties & TSNEP_DESC_OWNER_COUNTER_MASK) >>
           TSNEP_DESC_OWNER_COUNTER_SHIFT;
}

static bool tsnep_desc_owned(const TsnepRing *r, uint32_t properties)
{
    uint8_t c = tsnep_owner_counter(properties);

    return c && (c == r->owner || c == r->owner % 3 + 1);
}

static void tsnep_ring_take(TsnepRing *r, const TsnepDesc *d)
{
    r->owner = tsnep_owner_counter(d->properties);
    r->pos = d->next;
}

static void tsnep_ring_base_write(TsnepRing *r, bool high, uint32_t val,
                                  uint32_t mask)
{
    if (high) {
        tsnep_merge(&r->base_high, val, mask);
    } else {
        tsnep_merge(&r->base_low, val, mask);
        if (val & mask & TSNEP_RESET_OWNER_COUNTER) {
            r->owner = 1;
        }
    }
    r->pos = ((uint64_t)r->base_high << 32) |
             (r->base_low & ~TSNEP_RESET_OWNER_COUNTER);
}

static void tsnep_ring_reset(TsnepRing *r)
{
    r->pos = ((uint64_t)r->base_high << 32) |
             (r->base_low & ~TSNEP_RESET_OWNER_COUNTER);
    r->owner = 1;
}

static void tsnep_rx_stat_inc(TsnepQueue *q, unsigned stat)
{
    if (q->rx_stat[stat] < UINT8_MAX) {
        q->rx_stat[stat]++;
    }
}

/* PHY: generic clause-22 gigabit PHY, autonegotiation completes at once */
static bool tsnep_phy_loopback(TsnepState *s)
{
    return s->phy.bmcr & MII_BMCR_LOOPBACK;
}

static bool tsnep_phy_link_state(TsnepState *s)
{
    return tsnep_phy_loopback(s) ||
           (!(s->phy.bmcr & MII_BMCR_PDOWN) &&
            !qemu_get_queue(s->nic)->link_down);
}

/* a PHY link change is signalled as ECM_INT_LINK (PHY_MAC_INTERRUPT) */
static void tsnep_phy_update_link(TsnepState *s)
{
    bool link = tsnep_phy_link_state(s);

    if (link != s->phy.link) {
        s->phy.link = link;
        tsnep_int_raise(s, ECM_INT_LINK);
    }
}

static void tsnep_phy_reset(TsnepState *s)
{
    s->phy.bmcr = TSNEP_PHY_BMCR_RESET;
    s->phy.anar = TSNEP_PHY_ANAR_RESET;
    s->phy.ctrl1000 = MII_CTRL1000_FULL;
}

static uint16_t tsnep_phy_read(TsnepState *s, unsigned reg)
{
    TsnepPhy *phy = &s->phy;
    bool an = phy->link && (phy->bmcr & MII_BMCR_AUTOEN) &&
              !tsnep_phy_loopback(s);

    switch (reg) {
    case MII_BMCR:
        return phy->bmcr;
    case MII_BMSR:
        return TSNEP_PHY_BMSR | (phy->link ? MII_BMSR_LINK_ST : 0) |
               (an ? MII_BMSR_AN_COMP : 0);
    case MII_PHYID1:
        return TSNEP_PHY_ID1;
    case MII_PHYID2:
        return TSNEP_PHY_ID2;
    case MII_ANAR:
        return phy->anar;
    case MII_ANLPAR:
        return an ? TSNEP_PHY_LP_ABILITY : 0;
    case MII_ANER:
        return an ? MII_ANER_NWAY : 0;
    case MII_CTRL1000:
        return phy->ctrl1000;
    case MII_STAT1000:
        return an ? TSNEP_PHY_LP_1000 : 0;
    case MII_EXTSTAT:
        return MII_EXTSTAT_1000T_FD;
    default:
        return 0;
    }
}

static void tsnep_phy_write(TsnepState *s, unsigned reg, uint16_t val)
{
    switch (reg) {
    case MII_BMCR:
        if (val & MII_BMCR_RESET) {
            tsnep_phy_reset(s);
        } else {
            s->phy.bmcr = val & ~MII_BMCR_ANRESTART;
        }
        tsnep_phy_update_link(s);
        break;
    case MII_ANAR:
        s->phy.anar = val;
        break;
    case MII_CTRL1000:
        s->phy.ctrl1000 = val;
        break;
    default:
        break;
    }
}

/* ECM_MD_CONTROL: a clause-22 access that completes at once (no BUSY) */
static void tsnep_mdio_write(TsnepState *s, uint32_t val)
{
    unsigned phy = extract32(val, ECM_MD_PHY_ADDR_SHIFT, 5);
    unsigned reg = extract32(val, ECM_MD_ADDR_SHIFT, 5);
    uint16_t data = val >> ECM_MD_DATA_SHIFT;

    if (val & ECM_MD_READ) {
        data = phy == TSNEP_PHY_ADDR ? tsnep_phy_read(s, reg) : 0xffff;
    } else if (val & ECM_MD_WRITE) {
        if (phy == TSNEP_PHY_ADDR) {
            tsnep_phy_write(s, reg, data);
        }
    } else {
        return;
    }
    s->md_status = (uint32_t)data << ECM_MD_DATA_SHIFT;
}

/* RX: address filter, queue assignment, descriptor write-back */
static void tsnep_mac_address(TsnepState *s, uint8_t *mac)
{
    stl_le_p(mac, s->mac_low);
    stw_le_p(mac + 4, s->mac_high);
}

static bool tsnep_rx_accept(TsnepState *s, const uint8_t *buf)
{
    uint16_t filter = s->mac_high >> TSNEP_RX_FILTER_SHIFT;
    uint8_t mac[ETH_ALEN];

    if (is_broadcast_ether_addr(buf)) {
        return true;
    }
    if (is_multicast_ether_addr(buf)) {
        return filter & TSNEP_RX_FILTER_ACCEPT_ALL_MULTICASTS;
    }
    tsnep_mac_address(s, mac);
    return !memcmp(buf, mac, ETH_ALEN) ||
           (filter & TSNEP_RX_FILTER_ACCEPT_ALL_UNICASTS);
}

static unsigned tsnep_rx_queue(TsnepState *s, const uint8_t *buf)
{
    uint16_t ether_type = lduw_be_p(buf + 12);
    unsigned i;

    for (i = 0; i < TSNEP_RX_ASSIGN_COUNT; i++) {
        uint8_t assign = extract32(s->rx_assign, 8 * i, 8);
        unsigned qi = (assign & TSNEP_RX_ASSIGN_QUEUE_MASK) >>
                      TSNEP_RX_ASSIGN_QUEUE_SHIFT;

        if ((assign & TSNEP_RX_ASSIGN_ACTIVE) && qi < s->num_queues &&
            extract32(s->rx_assign_ether_type, 16 * i, 16) == ether_type) {
            return qi;
        }
    }
    return 0;
}

/* is RX of queue @qi enabled and its next descriptor owned? */
static bool tsnep_rx_peek(TsnepState *s, unsigned qi, TsnepDesc *d)
{
    TsnepQueue *q = &s->queue[qi];

    return q->rx_enabled && tsnep_bus_master(s) &&
           tsnep_desc_read(s, q, q->rx.pos, d, TSNEP_CONTROL_RX_DESC_ERROR) &&
           tsnep_desc_owned(&q->rx, d->properties);
}

/*
 * Write one frame into the next descriptor of its queue: 16 bytes inline
 * metadata (counter, system time), the frame, its FCS; the write-back
 * length counts all three (the driver subtracts metadata and FCS).
 * Returns 0 if the frame has to wait for RX descriptors (@may_wait only).
 */
static ssize_t tsnep_rx_frame(TsnepState *s, const uint8_t *buf, size_t len,
                              bool may_wait)
{
    uint8_t meta[TSNEP_RX_INLINE_SIZE];
    const uint32_t err = TSNEP_CONTROL_RX_DMA_ERROR;
    TsnepQueue *q;
    TsnepDesc d;
    uint64_t slot;
    uint32_t fcs;
    size_t total;
    unsigned qi;

    if (len < ETH_HLEN) {
        tsnep_rx_stat_inc(&s->queue[0], TSNEP_STAT_INVALID_FRAME);
        return len;
    }
    if (!tsnep_rx_accept(s, buf)) {
        return len;
    }
    qi = tsnep_rx_queue(s, buf);
    q = &s->queue[qi];
    if (!tsnep_rx_peek(s, qi, &d)) {
        if (may_wait && (qi == 0 || !q->rx_enabled)) {
            return 0;
        }
        tsnep_rx_stat_inc(q, TSNEP_STAT_NO_DESC);
        return len;
    }

    total = TSNEP_RX_INLINE_SIZE + len + ETH_FCS_LEN;
    if (total > (d.properties & TSNEP_RX_DESC_BUFFER_SIZE_MASK)) {
        tsnep_rx_stat_inc(q, TSNEP_STAT_BUFFER_TOO_SMALL);
        return len;
    }
    stq_le_p(meta, tsnep_counter());
    stq_le_p(meta + 8, tsnep_system_time(s));
    fcs = cpu_to_le32(crc32(0, buf, len));
    if (!tsnep_dma_write(s, q, d.buffer, meta, sizeof(meta), err) ||
        !tsnep_dma_write(s, q, d.buffer + sizeof(meta), buf, len, err) ||
        !tsnep_dma_write(s, q, d.buffer + sizeof(meta) + len, &fcs,
                         sizeof(fcs), err)) {
        return len;
    }

    slot = q->rx.pos;
    tsnep_ring_take(&q->rx, &d);
    tsnep_wb_write(s, q, slot, (d.properties & TSNEP_DESC_OWNER_COUNTER_MASK) |
                   total, err);
    if (d.properties & TSNEP_DESC_INTERRUPT_FLAG) {
        tsnep_int_raise(s, ECM_INT_RX_0 << (ECM_INT_TXRX_SHIFT * qi));
    }
    return len;
}

static bool tsnep_can_receive(NetClientState *nc)
{
    TsnepState *s = qemu_get_nic_opaque(nc);
    TsnepDesc d;

    /* frames not assigned by EtherType go to queue 0 */
    return tsnep_phy_loopback(s) || tsnep_rx_peek(s, 0, &d);
}

static ssize_t tsnep_receive(NetClientState *nc, const uint8_t *buf,
                             size_t len)
{
    TsnepState *s = qemu_get_nic_opaque(nc);

    if (tsnep_phy_loopback(s)) {
        return len;     /* PHY loopback isolates the MAC from the wire */
    }
    return tsnep_rx_frame(s, buf, len, true);
}

static void tsnep_set_link_status(NetClientState *nc)
{
    tsnep_phy_update_link(qemu_get_nic_opaque(nc));
}

/*
 * TX: a frame is a run of owned descriptors up to the one flagged
 * TSNEP_TX_DESC_LAST_FRAGMENT_FLAG, each carrying its fragment length in
 * more_properties and the data at its buffer address or, with
 * TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG, inline from the buffer field on.
 * Only the first descriptor is written back: its owner counter and user
 * flag, the length and, if asked for with the extended write-back flag,
 * counter and system time.
 */
typedef enum {
    TSNEP_TX_IDLE,
    TSNEP_TX_DONE,
    TSNEP_TX_STALLED,
} TsnepTxResult;

static void tsnep_tx_writeback(TsnepState *s, TsnepQueue *q, uint64_t slot,
                               uint32_t first, size_t len, bool no_link)
{
    const uint32_t err = TSNEP_CONTROL_TX_DMA_ERROR;
    uint32_t properties;
    TsnepTxDescWb wb = { 0 };

    properties = (first & (TSNEP_TX_DESC_OWNER_MASK |
                           TSNEP_DESC_EXTENDED_WRITEBACK_FLAG)) |
                 (len & TSNEP_DESC_LENGTH_MASK) |
                 (no_link ? TSNEP_DESC_NO_LINK_FLAG : 0);
    if (first & TSNEP_DESC_EXTENDED_WRITEBACK_FLAG) {
        wb.counter = cpu_to_le64(tsnep_counter());
        wb.timestamp = cpu_to_le64(tsnep_system_time(s));
        /* everything before the properties, which signal completion */
        if (!tsnep_dma_write(s, q, slot + sizeof(wb.properties),
                             (uint8_t *)&wb + sizeof(wb.properties),
                             sizeof(wb) - sizeof(wb.properties), err)) {
            return;
        }
    }
    tsnep_wb_write(s, q, slot, properties, err);
}

/* hand the gathered frame to the network, or to RX in PHY loopback */
static bool tsnep_tx_deliver(TsnepState *s, size_t len)
{
    if (tsnep_phy_loopback(s)) {
        tsnep_rx_frame(s, s->tx_buf, len, false);
    } else if (s->phy.link) {
        qemu_send_packet(qemu_get_queue(s->nic), s->tx_buf, len);
    } else {
        return false;
    }
    return true;
}

static TsnepTxResult tsnep_tx_frame(TsnepState *s, TsnepQueue *q,
                                    unsigned *descs, bool *irq)
{
    TsnepRing ring = q->tx;     /* taken over once the frame is complete */
    uint64_t first_slot = ring.pos;
    uint32_t first = 0;
    bool too_long = false;
    bool no_link = false;
    size_t len = 0;
    unsigned n;

    for (n = 0; ; n++) {
        uint64_t slot = ring.pos;
        uint64_t src;
        uint32_t flen;
        TsnepDesc d;

        if (n == TSNEP_RING_SIZE) {
            qemu_log_mask(LOG_GUEST_ERROR, "tsnep: TX frame without last "
                          "fragment at 0x%" PRIx64 "\n", first_slot);
            return TSNEP_TX_STALLED;
        }
        if (!tsnep_desc_read(s, q, slot, &d, TSNEP_CONTROL_TX_DESC_ERROR)) {
            return TSNEP_TX_STALLED;
        }
        if (!tsnep_desc_owned(&ring, d.properties)) {
            return n ? TSNEP_TX_STALLED : TSNEP_TX_IDLE;
        }
        tsnep_ring_take(&ring, &d);
        if (!n) {
            first = d.properties;
        }

        flen = d.more_properties & TSNEP_DESC_LENGTH_MASK;
        src = d.buffer;
        if (d.properties & TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG) {
            src = slot + TSNEP_DESC_OFFSET + offsetof(TsnepDesc, buffer);
        }
        if (len + flen > TSNEP_MAX_FRAME_LEN) {
            too_long = true;
        }
        if (!too_long && !tsnep_dma_read(s, q, src, s->tx_buf + len, flen,
                                         TSNEP_CONTROL_TX_DMA_ERROR)) {
            return TSNEP_TX_STALLED;
        }
        len += flen;
        if (d.properties & TSNEP_TX_DESC_LAST_FRAGMENT_FLAG) {
            break;
        }
    }
    q->tx.pos = ring.pos;
    q->tx.owner = ring.owner;
    *descs += n + 1;

    if (too_long) {
        qemu_log_mask(LOG_GUEST_ERROR, "tsnep: TX frame of %zu bytes "
                      "dropped\n", len);
    } else {
        no_link = !tsnep_tx_deliver(s, len);
    }
    tsnep_tx_writeback(s, q, first_slot, first, len, no_link);
    *irq |= first & TSNEP_DESC_INTERRUPT_FLAG;
    return TSNEP_TX_DONE;
}

/* TSNEP_CONTROL_TX_ENABLE: the doorbell, send all owned frames */
static void tsnep_tx_run(TsnepState *s, unsigned qi)
{
    TsnepQueue *q = &s->queue[qi];
    TsnepTxResult r;
    unsigned descs = 0;
    bool irq = false;

    /*
     * The driver rings after every frame and never has more than a ring
     * of descriptors outstanding; the budget only stops a looping ring.
     */
    do {
        r = tsnep_tx_frame(s, q, &descs, &irq);
    } while (r == TSNEP_TX_DONE && descs < TSNEP_TX_BUDGET);
    q->tx_stalled = r == TSNEP_TX_STALLED;

    if (irq) {
        tsnep_int_raise(s, ECM_INT_TX_0 << (ECM_INT_TXRX_SHIFT * qi));
    }
}

static void tsnep_tx_reset(TsnepQueue *q)
{
    tsnep_ring_reset(&q->tx);
    q->tx_stalled = false;
    q->errors &= ~TSNEP_CONTROL_TX_ERRORS;
}

static void tsnep_rx_reset(TsnepQueue *q)
{
    tsnep_ring_reset(&q->rx);
    q->rx_enabled = false;
    q->errors &= ~TSNEP_CONTROL_RX_ERRORS;
    memset(q->rx_stat, 0, sizeof(q->rx_stat));
}

static void tsnep_control_write(TsnepState *s, unsigned qi, uint32_t val)
{
    TsnepQueue *q = &s->queue[qi];

    if (val & TSNEP_CONTROL_TX_RESET) {
        tsnep_tx_reset(q);
    }
    if (val & TSNEP_CONTROL_RX_RESET) {
        tsnep_rx_reset(q);
    }
    if (val & TSNEP_CONTROL_RX_DISABLE) {
        q->rx_enabled = false;
    }
    if (val & TSNEP_CONTROL_RX_ENABLE) {
        /* also written after every refill of the RX ring */
        q->rx_enabled = true;
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
    if (val & TSNEP_CONTROL_TX_ENABLE) {
        tsnep_tx_run(s, qi);
    }
}

/* TX is done at once, so TX_ENABLE reads back set only for a stuck frame */
static uint32_t tsnep_control_read(TsnepQueue *q)
{
    return q->errors |
           (q->tx_stalled ? TSNEP_CONTROL_TX_ENABLE : 0) |
           (q->rx_enabled ? TSNEP_CONTROL_RX_ENABLE : 0);
}

static void tsnep_ecm_reset_write(TsnepState *s, uint32_t val)
{
    unsigned i;

    if (!val) {
        return;
    }
    for (i = 0; i < TSNEP_MAX_QUEUES; i++) {
        tsnep_tx_reset(&s->queue[i]);
        tsnep_rx_reset(&s->queue[i]);
    }
    if (val & ECM_RESET_COMMON) {
        s->int_enable = 0;
        s->int_active = 0;
    }
}

/* register access, on aligned 32-bit words; false: unknown register */
static bool tsnep_queue_read(TsnepState *s, unsigned qi, hwaddr off,
                             uint32_t *val)
{
    TsnepQueue *q;

    if (qi >= s->num_queues) {
        return false;
    }
    q = &s->queue[qi];
    switch (off) {
    case TSNEP_INFO:
        *val = 0;
        return true;
    case TSNEP_CONTROL:
        *val = tsnep_control_read(q);
        return true;
    case TSNEP_TX_DESC_ADDR_LOW:
        *val = q->tx.base_low;
        return true;
    case TSNEP_TX_DESC_ADDR_HIGH:
        *val = q->tx.base_high;
        return true;
    case TSNEP_RX_DESC_ADDR_LOW:
        *val = q->rx.base_low;
        return true;
    case TSNEP_RX_DESC_ADDR_HIGH:
        *val = q->rx.base_high;
        return true;
    case TSNEP_RX_STATISTIC:
        *val = ldl_le_p(q->rx_stat);
        return true;
    default:
        return false;
    }
}

static bool tsnep_queue_write(TsnepState *s, unsigned qi, hwaddr off,
                              uint32_t val, uint32_t mask)
{
    TsnepQueue *q;

    if (qi >= s->num_queues) {
        return false;
    }
    q = &s->queue[qi];
    switch (off) {
    case TSNEP_CONTROL:
        tsnep_control_write(s, qi, val & mask);
        return true;
    case TSNEP_TX_DESC_ADDR_LOW:
    case TSNEP_TX_DESC_ADDR_HIGH:
        tsnep_ring_base_write(&q->tx, off == TSNEP_TX_DESC_ADDR_HIGH,
                              val, mask);
        q->tx_stalled = false;
        return true;
    case TSNEP_RX_DESC_ADDR_LOW:
    case TSNEP_RX_DESC_ADDR_HIGH:
        tsnep_ring_base_write(&q->rx, off == TSNEP_RX_DESC_ADDR_HIGH,
                              val, mask);
        return true;
    default:
        return false;
    }
}

/* ECM and MAC registers that just hold what the driver writes */
static uint32_t *tsnep_plain_reg(TsnepState *s, hwaddr off)
{
    switch (off) {
    case ECM_CLOCK_RATE:
        return &s->clock_rate;          /* written with a side effect */
    case ECM_INT_DELAY:                 /* coalescing is not modelled */
    case ECM_INT_DELAY + 4:
        return &s->int_delay[(off - ECM_INT_DELAY) / 4];
    case ECM_STATUS:                    /* link mode, not used by TX/RX */
        return &s->ecm_status;
    case ECM_MD_STATUS:                 /* written with a side effect */
        return &s->md_status;
    case TSNEP_MAC_ADDRESS_LOW:
        return &s->mac_low;
    case TSNEP_MAC_ADDRESS_HIGH:
        return &s->mac_high;
    case TSNEP_RX_ASSIGN:
        return &s->rx_assign;
    case TSNEP_RX_ASSIGN_ETHER_TYPE:
        return &s->rx_assign_ether_type;
    default:
        return NULL;
    }
}

static bool tsnep_ecm_read(TsnepState *s, hwaddr off, uint32_t *val)
{
    uint32_t *reg = tsnep_plain_reg(s, off);

    switch (off) {
    case ECM_TYPE:
        *val = (s->num_queues << ECM_QUEUE_COUNT_SHIFT) |
               (TSNEP_VERSION << ECM_VERSION_SHIFT) | TSNEP_REVISION;
        return true;
    case ECM_SYSTEM_TIME_LOW:
        *val = tsnep_system_time(s);
        return true;
    case ECM_SYSTEM_TIME_HIGH:
        *val = tsnep_system_time(s) >> 32;
        return true;
    case ECM_INT_ENABLE:
        *val = s->int_enable;
        return true;
    case ECM_INT_ACTIVE:
        *val = s->int_active & s->int_enable;
        return true;
    case ECM_RESET:
    case ECM_STAT:                      /* no PHY errors */
        *val = 0;
        return true;
    case ECM_COUNTER_LOW:
        *val = tsnep_counter();
        return true;
    case ECM_COUNTER_HIGH:
        *val = tsnep_counter() >> 32;
        return true;
    default:
        if (reg) {
            *val = *reg;
        }
        return reg != NULL;
    }
}

static bool tsnep_ecm_write(TsnepState *s, hwaddr off, uint32_t val,
                            uint32_t mask)
{
    uint32_t *reg = tsnep_plain_reg(s, off);

    switch (off) {
    case ECM_SYSTEM_TIME_LOW:
        tsnep_set_system_time(s, ((uint64_t)s->time_high << 32) |
                                 (val & mask));
        return true;
    case ECM_SYSTEM_TIME_HIGH:
        tsnep_merge(&s->time_high, val, mask);
        return true;
    case ECM_CLOCK_RATE:
        tsnep_clock_rate_write(s, val, mask);
        return true;
    case ECM_INT_ENABLE:
        tsnep_int_enable_write(s, val & mask);
        return true;
    case ECM_INT_ACKNOWLEDGE:
        tsnep_int_acknowledge(s, val & mask);
        return true;
    case ECM_RESET:
        tsnep_ecm_reset_write(s, val & mask);
        return true;
    case ECM_MD_CONTROL:
        tsnep_mdio_write(s, val & mask);
        return true;
    default:
        if (reg) {
            tsnep_merge(reg, val, mask);
        }
        return reg != NULL;
    }
}

/*
 * Split an aligned 32-bit word offset into queue and register: queue 0's
 * registers lie inside the ECM/MAC window, queue n >= 1 has its own.
 */
static bool tsnep_decode_queue(hwaddr *off, unsigned *qi)
{
    hwaddr addr = *off;

    if (addr < TSNEP_MAC_SIZE) {
        *qi = 0;
        return addr >= TSNEP_QUEUE_REGS_START && addr < TSNEP_QUEUE_REGS_END;
    }
    *qi = 1 + (addr - TSNEP_MAC_SIZE) / TSNEP_QUEUE_SIZE;
    *off = (addr - TSNEP_MAC_SIZE) % TSNEP_QUEUE_SIZE;
    return true;
}

/* the driver uses 8, 16 and 32 bit accesses; all map to 32 bit words */
static uint64_t tsnep_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    TsnepState *s = opaque;
    hwaddr off = addr & ~3ULL;
    uint32_t val = 0;
    unsigned qi;
    bool known;

    if (tsnep_decode_queue(&off, &qi)) {
        known = tsnep_queue_read(s, qi, off, &val);
    } else {
        known = tsnep_ecm_read(s, off, &val);
    }
    if (!known) {
        qemu_log_mask(LOG_UNIMP, "tsnep: read of unknown register 0x%"
                      HWADDR_PRIx "\n", addr);
        return 0;
    }
    return extract32(val, (addr & 3) * 8, size * 8);
}

static void tsnep_mmio_write(void *opaque, hwaddr addr, uint64_t data,
                             unsigned size)
{
    TsnepState *s = opaque;
    unsigned shift = (addr & 3) * 8;
    uint32_t mask = MAKE_64BIT_MASK(shift, size * 8);
    uint32_t val = data << shift;
    hwaddr off = addr & ~3ULL;
    unsigned qi;
    bool known;

    if (tsnep_decode_queue(&off, &qi)) {
        known = tsnep_queue_write(s, qi, off, val, mask);
    } else {
        known = tsnep_ecm_write(s, off, val, mask);
    }
    if (!known) {
        qemu_log_mask(LOG_UNIMP, "tsnep: write of 0x%" PRIx64 " to unknown "
                      "or read-only register 0x%" HWADDR_PRIx "\n",
                      data, addr);
    }
}

static const MemoryRegionOps tsnep_mmio_ops = {
    .read = tsnep_mmio_read,
    .write = tsnep_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

static NetClientInfo tsnep_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = tsnep_can_receive,
    .receive = tsnep_receive,
    .link_status_changed = tsnep_set_link_status,
};

static void tsnep_reset_hold(Object *obj, ResetType type)
{
    TsnepState *s = TSNEP_PCI(obj);
    unsigned i;

    s->int_enable = 0;
    s->int_active = 0;
    memset(s->int_delay, 0, sizeof(s->int_delay));
    s->ecm_status = ECM_NO_LINK;
    s->md_status = 0;
    s->clock_rate = 0;
    s->time_high = 0;
    tsnep_set_system_time(s, tsnep_counter());
    s->mac_low = ldl_le_p(s->conf.macaddr.a);
    s->mac_high = lduw_le_p(s->conf.macaddr.a + 4);
    s->rx_assign = 0;
    s->rx_assign_ether_type = 0;

    memset(s->queue, 0, sizeof(s->queue));
    for (i = 0; i < TSNEP_MAX_QUEUES; i++) {
        s->queue[i].tx.owner = 1;
        s->queue[i].rx.owner = 1;
    }
    tsnep_phy_reset(s);
    s->phy.link = tsnep_phy_link_state(s);
}

static void tsnep_realize(PCIDevice *pdev, Error **errp)
{
    TsnepState *s = TSNEP_PCI(pdev);
    DeviceState *dev = DEVICE(pdev);
    unsigned i;

    if (s->num_queues < 1 || s->num_queues > TSNEP_MAX_QUEUE_COUNT) {
        error_setg(errp, "queues must be 1..%d (3 bit field in ECM_TYPE)",
                   TSNEP_MAX_QUEUE_COUNT);
        return;
    }

    memory_region_init_io(&s->mmio, OBJECT(s), &tsnep_mmio_ops, s,
                          "tsnep-mmio", TSNEP_MMIO_SIZE);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->mmio);

    if (msix_init_exclusive_bar(pdev, s->num_queues, 1, errp)) {
        return;
    }
    for (i = 0; i < s->num_queues; i++) {
        msix_vector_use(pdev, i);
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&tsnep_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
}

static void tsnep_exit(PCIDevice *pdev)
{
    TsnepState *s = TSNEP_PCI(pdev);

    qemu_del_nic(s->nic);
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
}

static const VMStateDescription tsnep_vmstate = {
    .name = TYPE_TSNEP_PCI,
    .unmigratable = 1,
};

static const Property tsnep_properties[] = {
    DEFINE_NIC_PROPERTIES(TsnepState, conf),
    DEFINE_PROP_UINT32("queues", TsnepState, num_queues, 2),
};

static void tsnep_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = tsnep_realize;
    k->exit = tsnep_exit;
    k->vendor_id = PCI_VENDOR_ID_REDHAT;
    k->device_id = TSNEP_PCI_DEVICE_ID;
    k->revision = 0;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = tsnep_reset_hold;
    dc->desc = "Engleder TSN endpoint Ethernet MAC (tsnep), test only";
    dc->vmsd = &tsnep_vmstate;
    device_class_set_props(dc, tsnep_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo tsnep_info = {
    .name = TYPE_TSNEP_PCI,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(TsnepState),
    .class_init = tsnep_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void tsnep_register_types(void)
{
    type_register_static(&tsnep_info);
}

type_init(tsnep_register_types)
