// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of tsnep_main.c itself: the driver is compiled into this
 * suite and probed by the driver core on a platform device of the test's,
 * whose register block is memory. The test is the hardware below: it
 * writes back the descriptors the driver posted. Only the calls that
 * would reach real hardware are stood in for: the ioremap of the
 * registers, the MDIO bus (one PHY), and the driver's other files (PTP,
 * TAPRIO, RX classification, ethtool), which these cases do not use.
 *
 * The suite builds only where the driver is not built in
 * (lib/xsk_zc/kunit/Makefile), so the two never define the same symbols.
 */

#include <linux/irq.h>
#include <linux/kthread.h>
#include <linux/of_mdio.h>
#include <linux/platform_device.h>

/* Sized for the MAC's registers and those of queue 0, which follow. */
static u32 tsnep_glue_regs[0x4000 / sizeof(u32)];
static struct resource tsnep_glue_io = DEFINE_RES_MEM(0, sizeof(tsnep_glue_regs));

/* Where I/O memory is memory (x86): the registers are the array. */
static void __iomem *tsnep_glue_ioremap(struct platform_device *pdev,
					unsigned int index,
					struct resource **res)
{
	memset(tsnep_glue_regs, 0, sizeof(tsnep_glue_regs));
	*res = &tsnep_glue_io;
	return (void __iomem __force *)tsnep_glue_regs;
}

/* The MDIO registers are memory too: the control word the driver writes
 * is the status it reads back. Without a preamble, whose bit is the busy
 * bit's, a read completes at once with data 0, which is a PHY of ID 0:
 * the scan is kept to one address, whose PHY the generic driver takes.
 */
static int tsnep_glue_mdiobus_register(struct mii_bus *bus,
				       struct device_node *np);

#define devm_platform_get_and_ioremap_resource tsnep_glue_ioremap
#define of_mdiobus_register tsnep_glue_mdiobus_register

/* This copy of the driver registers under a name of its own, so that it
 * never binds a real tsnep device and leaves "tsnep" to the driver
 * itself, a module beside this suite in the debug guest kernel.
 */
#include "tsnep.h"
#undef TSNEP
#define TSNEP "xsk_zc_tsnep_glue"

#include "tsnep_main.c"
#include "tsnep_xdp.c"

#undef devm_platform_get_and_ioremap_resource
#undef of_mdiobus_register

#include <kunit/test.h>
#include "fixture.h"

#define TSNEP_GLUE_PHY_ADDR	1

static int tsnep_glue_mdiobus_register(struct mii_bus *bus,
				       struct device_node *np)
{
	struct tsnep_adapter *adapter = bus->priv;

	adapter->suppress_preamble = true;
	bus->phy_mask = (u32)~BIT(TSNEP_GLUE_PHY_ADDR);
	return mdiobus_register(bus);
}

/* ---- the driver's other files ---- */

const struct ethtool_ops tsnep_ethtool_ops = {};

int tsnep_ptp_init(struct tsnep_adapter *adapter)
{
	return 0;
}

void tsnep_ptp_cleanup(struct tsnep_adapter *adapter)
{
}

int tsnep_ptp_hwtstamp_get(struct net_device *netdev,
			   struct kernel_hwtstamp_config *config)
{
	return -EOPNOTSUPP;
}

int tsnep_ptp_hwtstamp_set(struct net_device *netdev,
			   struct kernel_hwtstamp_config *config,
			   struct netlink_ext_ack *extack)
{
	return -EOPNOTSUPP;
}

int tsnep_tc_init(struct tsnep_adapter *adapter)
{
	return 0;
}

void tsnep_tc_cleanup(struct tsnep_adapter *adapter)
{
}

int tsnep_tc_setup(struct net_device *netdev, enum tc_setup_type type,
		   void *type_data)
{
	return -EOPNOTSUPP;
}

int tsnep_rxnfc_init(struct tsnep_adapter *adapter)
{
	return 0;
}

void tsnep_rxnfc_cleanup(struct tsnep_adapter *adapter)
{
}

/* ---- the device ---- */

struct tsnep_glue {
	struct kunit *test;
	struct platform_device *pdev;
	struct tsnep_adapter *adapter;
	struct net_device *netdev;
	int irq;

	/* The hardware's TX: it sends what was posted, late */
	struct delayed_work tx_done;

	struct completion stopped;
	bool stuck;		/* the driver never returned: leave it be */
};

static int tsnep_glue_irq_alloc(struct tsnep_glue *g)
{
	int irq = irq_alloc_desc(NUMA_NO_NODE);

	if (irq < 0)
		return irq;
	irq_set_chip_and_handler(irq, &dummy_irq_chip, handle_simple_irq);
	irq_clear_status_flags(irq, IRQ_NOREQUEST | IRQ_NOPROBE);
	g->irq = irq;
	return 0;
}

static void tsnep_glue_teardown(void *data)
{
	struct tsnep_glue *g = data;

	if (g->stuck)
		return;
	cancel_delayed_work_sync(&g->tx_done);
	if (g->pdev)
		platform_device_unregister(g->pdev);
	if (g->irq > 0)
		irq_free_desc(g->irq);
}

/* Writes back every descriptor the driver posted and not yet cleaned,
 * as tsnep's TX DMA does once it sent the frames, then reports TX done.
 */
static void tsnep_glue_tx_done(struct work_struct *work)
{
	struct tsnep_glue *g = container_of(to_delayed_work(work),
					    struct tsnep_glue, tx_done);
	struct tsnep_tx *tx = &g->adapter->tx[0];
	int i;

	for (i = READ_ONCE(tx->read); i != READ_ONCE(tx->write);
	     i = (i + 1) & TSNEP_RING_MASK) {
		struct tsnep_tx_entry *entry = &tx->entry[i];

		entry->desc_wb->properties = entry->desc->properties;
	}
	/* the TX_ENABLE bit clears when the ring is done */
	WRITE_ONCE(tsnep_glue_regs[TSNEP_CONTROL / sizeof(u32)], 0);
}

/* Probes tsnep on a new platform device, brings it up with carrier. */
static struct tsnep_glue *tsnep_glue_up(struct kunit *test)
{
	struct platform_device_info info = {
		.name = TSNEP,
		.id = PLATFORM_DEVID_AUTO,
		.dma_mask = DMA_BIT_MASK(64),
		.num_res = 1,
	};
	struct platform_device *pdev;
	struct resource irq_res;
	struct phy_device *phydev;
	struct tsnep_glue *g;
	int err;

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->test = test;
	INIT_DELAYED_WORK(&g->tx_done, tsnep_glue_tx_done);
	init_completion(&g->stopped);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tsnep_glue_teardown, g), 0);

	KUNIT_ASSERT_EQ(test, tsnep_glue_irq_alloc(g), 0);
	irq_res = DEFINE_RES_IRQ(g->irq);
	info.res = &irq_res;

	/* the driver core binds tsnep_driver: tsnep_probe() */
	pdev = platform_device_register_full(&info);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pdev));
	g->pdev = pdev;
	g->adapter = platform_get_drvdata(g->pdev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, g->adapter, "tsnep_probe() failed");
	g->netdev = g->adapter->netdev;

	rtnl_lock();
	err = dev_open(g->netdev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);

	/* The PHY's state machine ran once (link down: the registers say
	 * nothing); the MAC interrupt that would report a link never comes.
	 */
	phydev = g->netdev->phydev;
	KUNIT_ASSERT_NOT_NULL(test, phydev);
	flush_delayed_work(&phydev->state_queue);
	netif_carrier_on(g->netdev);
	return g;
}

/* What user space's sendto() does, with the poll run before it returns */
static int tsnep_glue_wakeup_tx(struct tsnep_glue *g)
{
	const struct net_device_ops *ops = g->netdev->netdev_ops;
	int err;

	local_bh_disable();
	err = ops->ndo_xsk_wakeup(g->netdev, 0, XDP_WAKEUP_TX);
	local_bh_enable();
	return err;
}

static int tsnep_glue_stop_thread(void *data)
{
	struct tsnep_glue *g = data;

	/* what xsk_zc calls to stop a queue, tsnep_queue_disable(), under
	 * RTNL as the core's XDP_SETUP_XSK_POOL holds it
	 */
	rtnl_lock();
	tsnep_zc_queue_stop(g->netdev, 0);
	rtnl_unlock();
	complete(&g->stopped);
	return 0;
}

/* The hardware's RX: writes @len bytes of frame, behind the inline
 * metadata and followed by the FCS, to the buffer posted at descriptor
 * @i, found by its DMA address among the socket's @n fill ring frames,
 * then writes the descriptor back.
 */
static void tsnep_glue_rx_frame(struct tsnep_glue *g, struct fake_xsk *x,
				u32 n, int i, const void *frame, u32 len,
				u64 timestamp)
{
	struct tsnep_rx_entry *entry = &g->adapter->rx[0].entry[i];
	dma_addr_t dma = le64_to_cpu(entry->desc->rx);
	struct tsnep_rx_inline meta = {
		.counter = cpu_to_le64(1),
		.timestamp = cpu_to_le64(timestamp),
	};
	u8 *va = NULL;
	u32 k;

	for (k = 0; k < n; k++) {
		u64 addr = k * FAKE_FRAME;

		if (xsk_buff_raw_get_dma(x->pool, addr) + XDP_PACKET_HEADROOM == dma)
			va = fake_umem_va(x, addr) + XDP_PACKET_HEADROOM;
	}
	KUNIT_ASSERT_NOT_NULL_MSG(g->test, va, "descriptor %d: no buffer at %pad", i, &dma);

	memcpy(va, &meta, sizeof(meta));
	memcpy(va + sizeof(meta), frame, len);
	memset(va + sizeof(meta) + len, 0, ETH_FCS_LEN);
	entry->desc_wb->properties =
		cpu_to_le32((le32_to_cpu(entry->desc->properties) &
			     TSNEP_DESC_OWNER_COUNTER_MASK) |
			    (sizeof(meta) + len + ETH_FCS_LEN));
}

/* Raises the queue's interrupt for @active, as the hardware does. */
static void tsnep_glue_irq(struct tsnep_glue *g, u32 active)
{
	WRITE_ONCE(tsnep_glue_regs[ECM_INT_ACTIVE / sizeof(u32)], active);
	local_bh_disable();
	KUNIT_EXPECT_EQ(g->test, generic_handle_irq_safe(g->irq), 0);
	local_bh_enable();
}

/* What the stack got from the device */
struct tsnep_glue_tap {
	struct packet_type pt;
	u32 frames;
	u32 len;
	ktime_t hwtstamp;
};

static int tsnep_glue_tap_rcv(struct sk_buff *skb, struct net_device *dev,
			      struct packet_type *pt, struct net_device *orig)
{
	struct tsnep_glue_tap *tap = container_of(pt, struct tsnep_glue_tap, pt);

	tap->frames++;
	tap->len = skb->len + skb_mac_header_len(skb);
	tap->hwtstamp = skb_hwtstamps(skb)->hwtstamp;
	kfree_skb(skb);
	return 0;
}

static void tsnep_glue_tap_remove(void *data)
{
	dev_remove_pack(data);
}

static struct tsnep_glue_tap *tsnep_glue_tap(struct tsnep_glue *g)
{
	struct tsnep_glue_tap *tap;

	tap = kunit_kzalloc(g->test, sizeof(*tap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(g->test, tap);
	tap->pt.type = htons(ETH_P_ALL);
	tap->pt.dev = g->netdev;
	tap->pt.func = tsnep_glue_tap_rcv;
	dev_add_pack(&tap->pt);
	KUNIT_ASSERT_EQ(g->test, kunit_add_action_or_reset(g->test, tsnep_glue_tap_remove,
							   &tap->pt), 0);
	return tap;
}

/* ---- cases ---- */

/* Without an XDP program a zero-copy frame goes to the stack, copied,
 * with the hardware timestamp of its inline metadata, from the first use
 * of its buffer on.
 */
static void tsnep_glue_zc_rx_pass_has_the_metadata_timestamp(struct kunit *test)
{
	struct fake_xsk_cfg cfg = { .qid = 0, .need_wakeup = true };
	struct tsnep_glue_tap *tap;
	struct tsnep_glue *g;
	struct tsnep_rx *rx;
	struct fake_xsk *x;
	u8 frame[60] = {};

	g = tsnep_glue_up(test);
	rx = &g->adapter->rx[0];
	tap = tsnep_glue_tap(g);
	/* what SIOCSHWTSTAMP sets, in tsnep_ptp.c */
	g->adapter->hwtstamp_config.rx_filter = HWTSTAMP_FILTER_ALL;

	x = fake_xsk_create(test);
	KUNIT_ASSERT_EQ(test, fake_fq_put(x, 8), 8);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind_dev(x, g->netdev, &cfg), 0);
	/* the queue start posted the fill ring's buffers */
	KUNIT_ASSERT_EQ(test, (rx->write - rx->read) & TSNEP_RING_MASK, 8);

	eth_broadcast_addr(frame);
	ether_addr_copy(frame + ETH_ALEN, g->netdev->dev_addr);
	frame[12] = 0x88;	/* a local experimental EtherType */
	frame[13] = 0xb5;
	tsnep_glue_rx_frame(g, x, 8, rx->read, frame, sizeof(frame),
			    1234567890123ULL);
	tsnep_glue_irq(g, ECM_INT_RX_0);

	KUNIT_EXPECT_EQ(test, tap->frames, 1);
	KUNIT_EXPECT_EQ(test, tap->len, sizeof(frame));
	KUNIT_EXPECT_EQ(test, ktime_to_ns(tap->hwtstamp), 1234567890123LL);
	/* the buffer went back to the pool, nothing to the socket */
	KUNIT_EXPECT_EQ(test, fake_rx_count(x), 0);
}

/* A zero-copy socket without need_wakeup and an empty fill ring: the RX
 * poll returns its whole budget, so the queue's NAPI never goes idle.
 * Stopping the queue with TX frames the hardware has not sent yet must
 * still end once the hardware sends them.
 */
static void tsnep_glue_queue_stop_ends_while_the_poll_stays_scheduled(struct kunit *test)
{
	struct fake_xsk_cfg cfg = { .qid = 0 };
	struct task_struct *thread;
	struct tsnep_glue *g;
	struct tsnep_tx *tx;
	struct fake_xsk *x;

	g = tsnep_glue_up(test);
	tx = &g->adapter->tx[0];
	x = fake_xsk_create(test);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind_dev(x, g->netdev, &cfg), 0);
	KUNIT_ASSERT_PTR_EQ(test, xsk_zc_tx_pool(&tx->ztx), x->pool);

	KUNIT_ASSERT_EQ(test, READ_ONCE(tx->read), tx->write);
	KUNIT_ASSERT_EQ(test, fake_tx_put(x, 4, 64), 4);
	KUNIT_ASSERT_EQ(test, tsnep_glue_wakeup_tx(g), 0);
	/* the poll ran: tsnep_tx_xmit_zc() posted the frames */
	KUNIT_ASSERT_EQ(test, (tx->write - READ_ONCE(tx->read)) & TSNEP_RING_MASK, 4);
	KUNIT_EXPECT_TRUE(test, napi_is_scheduled(&g->adapter->queue[0].napi));

	/* the hardware is slower than the driver's 1 s wait for it */
	schedule_delayed_work(&g->tx_done, 3 * HZ);
	thread = kthread_run(tsnep_glue_stop_thread, g, "tsnep_glue_stop");
	KUNIT_ASSERT_FALSE(test, IS_ERR(thread));
	if (!wait_for_completion_timeout(&g->stopped, 20 * HZ)) {
		/* it waits for the NAPI for good: its socket, ring and
		 * device stay as they are
		 */
		g->stuck = true;
		x->sock = NULL;
		KUNIT_FAIL(test, "queue stop still waiting after 20 s, TX read %d write %d",
			   READ_ONCE(tx->read), tx->write);
		return;
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(tx->read), tx->write);
	/* every frame went back to user space */
	KUNIT_EXPECT_EQ(test, fake_cq_take(x), 4);

	rtnl_lock();
	tsnep_zc_queue_start(g->netdev, 0);
	rtnl_unlock();
}

/* The hardware under steady XDP_TX: each pass it writes back a frame on
 * the next RX descriptor the driver posted and raises the queue's
 * interrupt, then sends what the driver had queued on the TX ring two
 * passes before. The frames of the last two passes are in flight, so
 * the TX ring is never empty while RX goes on.
 */
struct tsnep_glue_traffic {
	struct tsnep_glue *g;
	int rx_next;		/* the next RX descriptor it writes back */
	u32 rx_frames;
};

/* Writes back the TX descriptors from tx->read up to @end */
static void tsnep_glue_tx_done_to(struct tsnep_glue *g, int end)
{
	struct tsnep_tx *tx = &g->adapter->tx[0];
	int i;

	for (i = READ_ONCE(tx->read); i != end; i = (i + 1) & TSNEP_RING_MASK) {
		struct tsnep_tx_entry *entry = &tx->entry[i];

		WRITE_ONCE(entry->desc_wb->properties,
			   READ_ONCE(entry->desc->properties));
	}
	WRITE_ONCE(tsnep_glue_regs[TSNEP_CONTROL / sizeof(u32)], 0);
}

static int tsnep_glue_traffic_thread(void *data)
{
	struct tsnep_glue_traffic *tr = data;
	struct tsnep_glue *g = tr->g;
	struct tsnep_rx *rx = &g->adapter->rx[0];
	struct tsnep_tx *tx = &g->adapter->tx[0];
	int tx_end[2];

	tx_end[0] = READ_ONCE(tx->write);
	tx_end[1] = tx_end[0];
	while (!kthread_should_stop()) {
		if (tr->rx_next != READ_ONCE(rx->write)) {
			struct tsnep_rx_entry *entry = &rx->entry[tr->rx_next];
			u32 props = le32_to_cpu(READ_ONCE(entry->desc->properties));

			/* 60 bytes of frame behind the metadata, and the FCS */
			WRITE_ONCE(entry->desc_wb->properties,
				   cpu_to_le32((props & TSNEP_DESC_OWNER_COUNTER_MASK) |
					       (TSNEP_RX_INLINE_METADATA_SIZE + 60 +
						ETH_FCS_LEN)));
			tr->rx_next = (tr->rx_next + 1) & TSNEP_RING_MASK;
			tr->rx_frames++;
			WRITE_ONCE(tsnep_glue_regs[ECM_INT_ACTIVE / sizeof(u32)],
				   ECM_INT_RX_0 | ECM_INT_TX_0);
			local_bh_disable();
			generic_handle_irq_safe(g->irq);
			local_bh_enable();
		}
		tsnep_glue_tx_done_to(g, tx_end[0]);
		tx_end[0] = tx_end[1];
		tx_end[1] = READ_ONCE(tx->write);
		usleep_range(100, 200);
	}
	return 0;
}

/* The test's program is no loaded one (no reference to put): it is set
 * and cleared where ndo_bpf's tsnep_xdp_setup_prog() swaps it.
 */
static void tsnep_glue_xdp_prog_remove(void *data)
{
	struct tsnep_glue *g = data;

	WRITE_ONCE(g->adapter->xdp_prog, NULL);
}

/* An XDP program that sends every frame back (XDP_TX) on a zero-copy
 * queue whose RX goes on: stopping the queue waits for its TX ring to
 * drain, and must end although every poll it schedules receives more
 * frames to send. Nothing may refill the ring once the drain began.
 */
static void tsnep_glue_queue_stop_ends_under_steady_xdp_tx(struct kunit *test)
{
	struct fake_xsk_cfg cfg = { .qid = 0, .need_wakeup = true };
	struct tsnep_glue_traffic tr = {};
	struct task_struct *traffic, *thread;
	struct xsk_zc_rx_stats st;
	struct bpf_prog *prog;
	struct tsnep_glue *g;
	struct tsnep_tx *tx;
	struct fake_xsk *x;
	unsigned long end;
	bool stopped;

	g = tsnep_glue_up(test);
	tx = &g->adapter->tx[0];
	prog = fake_prog_create(test, XDP_TX);
	WRITE_ONCE(g->adapter->xdp_prog, prog);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tsnep_glue_xdp_prog_remove,
							g), 0);

	x = fake_xsk_create(test);
	KUNIT_ASSERT_EQ(test, fake_fq_put(x, 16), 16);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind_dev(x, g->netdev, &cfg), 0);
	KUNIT_ASSERT_PTR_EQ(test, xsk_zc_tx_pool(&tx->ztx), x->pool);

	tr.g = g;
	tr.rx_next = READ_ONCE(g->adapter->rx[0].read);
	traffic = kthread_run(tsnep_glue_traffic_thread, &tr, "tsnep_glue_traffic");
	KUNIT_ASSERT_FALSE(test, IS_ERR(traffic));
	/* steady: frames came in and went back out */
	msleep(200);
	xsk_zc_rx_stats_read(&g->adapter->rx[0].zrx, &st);
	KUNIT_EXPECT_GT(test, st.xdp_tx, 10);

	thread = kthread_run(tsnep_glue_stop_thread, g, "tsnep_glue_stop");
	if (IS_ERR(thread)) {
		kthread_stop(traffic);
		KUNIT_FAIL(test, "no stop thread");
		return;
	}
	stopped = wait_for_completion_timeout(&g->stopped, 10 * HZ);
	xsk_zc_rx_stats_read(&g->adapter->rx[0].zrx, &st);
	kthread_stop(traffic);
	KUNIT_EXPECT_TRUE_MSG(test, stopped,
			      "queue stop still draining the TX ring after 10 s, XDP_TX %llu, RX frames %u",
			      st.xdp_tx, tr.rx_frames);
	/* without new frames, the hardware sends what is left: it ends */
	end = jiffies + 20 * HZ;
	while (!stopped && time_before(jiffies, end)) {
		tsnep_glue_tx_done_to(g, READ_ONCE(tx->write));
		stopped = wait_for_completion_timeout(&g->stopped, HZ / 50);
	}
	if (!stopped) {
		g->stuck = true;
		x->sock = NULL;
		KUNIT_FAIL(test, "stop still waiting once the traffic ended, TX read %d write %d",
			   READ_ONCE(tx->read), tx->write);
		return;
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(tx->read), tx->write);

	rtnl_lock();
	tsnep_zc_queue_start(g->netdev, 0);
	rtnl_unlock();
}

/* A socket's frames go out on tsnep's descriptors, at their UMEM DMA
 * addresses, and come back on the completion ring once the hardware
 * wrote the descriptors back and raised the queue's interrupt, which
 * the poll that sent them left enabled.
 */
static void tsnep_glue_zc_tx_completes_through_the_queue_interrupt(struct kunit *test)
{
	struct fake_xsk_cfg cfg = { .qid = 0, .need_wakeup = true };
	u32 *int_enable = &tsnep_glue_regs[ECM_INT_ENABLE / sizeof(u32)];
	struct tsnep_glue *g;
	struct tsnep_tx *tx;
	struct fake_xsk *x;
	int first, i;

	g = tsnep_glue_up(test);
	tx = &g->adapter->tx[0];
	x = fake_xsk_create(test);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind_dev(x, g->netdev, &cfg), 0);

	first = tx->write;
	KUNIT_ASSERT_EQ(test, fake_tx_put(x, 3, 100), 3);
	KUNIT_ASSERT_EQ(test, tsnep_glue_wakeup_tx(g), 0);

	KUNIT_ASSERT_EQ(test, (tx->write - first) & TSNEP_RING_MASK, 3);
	for (i = 0; i < 3; i++) {
		struct tsnep_tx_entry *entry = &tx->entry[(first + i) & TSNEP_RING_MASK];
		u64 addr = (FAKE_RX_FRAMES + i) * FAKE_FRAME;

		KUNIT_EXPECT_EQ(test, le64_to_cpu(entry->desc->tx),
				xsk_buff_raw_get_dma(x->pool, addr));
		KUNIT_EXPECT_EQ(test, le32_to_cpu(entry->desc->properties) &
				TSNEP_DESC_LENGTH_MASK, 100);
		KUNIT_EXPECT_TRUE(test, le32_to_cpu(entry->desc->properties) &
				  TSNEP_TX_DESC_LAST_FRAGMENT_FLAG);
	}
	KUNIT_EXPECT_EQ(test, tsnep_glue_regs[TSNEP_CONTROL / sizeof(u32)],
			TSNEP_CONTROL_TX_ENABLE);
	KUNIT_EXPECT_EQ(test, fake_cq_take(x), 0);

	/* the poll completed NAPI and unmasked the queue's interrupt */
	KUNIT_ASSERT_FALSE(test, napi_is_scheduled(&g->adapter->queue[0].napi));
	KUNIT_ASSERT_EQ(test, READ_ONCE(*int_enable), g->adapter->queue[0].irq_mask);

	tsnep_glue_tx_done(&g->tx_done.work);
	tsnep_glue_irq(g, ECM_INT_TX_0);

	KUNIT_EXPECT_EQ(test, READ_ONCE(tx->read), tx->write);
	KUNIT_EXPECT_EQ(test, fake_cq_take(x), 3);
}

static struct kunit_case tsnep_glue_cases[] = {
	KUNIT_CASE(tsnep_glue_zc_rx_pass_has_the_metadata_timestamp),
	KUNIT_CASE(tsnep_glue_zc_tx_completes_through_the_queue_interrupt),
	KUNIT_CASE_SLOW(tsnep_glue_queue_stop_ends_while_the_poll_stays_scheduled),
	KUNIT_CASE_SLOW(tsnep_glue_queue_stop_ends_under_steady_xdp_tx),
	{}
};

static struct kunit_suite tsnep_glue_suite = {
	.name = "xsk_zc_tsnep_glue",
	.test_cases = tsnep_glue_cases,
};

kunit_test_suite(tsnep_glue_suite);
