// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of tsnep's xsk_zc descriptor callbacks (tsnep_desc.h): they
 * run on a software ring laid out as tsnep_rx_ring_create() and
 * tsnep_tx_ring_create() lay out the hardware's, and the registers of
 * the queue are a fake MMIO window that records the writes.
 */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/skbuff.h>
#if IS_ENABLED(CONFIG_INDIRECT_IOMEM)
#include <linux/logic_iomem.h>
#endif

#include "tsnep_desc.h"

#define TEST_REGS_SIZE		0x200
#define TEST_BUF_SIZE		2048
#define TEST_DMA(i)		(0x40000000ULL + (u64)(i) * 0x1000)

struct tsnep_test {
	struct tsnep_adapter *adapter;
	struct tsnep_rx *rx;
	struct tsnep_tx *tx;
	struct xdp_buff *xdp;		/* one per RX descriptor */
	u8 *data;			/* their buffers */
};

/* ---- the queue's registers ---- */

static u32 tsnep_test_regs[TEST_REGS_SIZE / sizeof(u32)];

#if IS_ENABLED(CONFIG_INDIRECT_IOMEM)
static unsigned long tsnep_test_read(void *priv, unsigned int offset, int size)
{
	return tsnep_test_regs[offset / sizeof(u32)];
}

static void tsnep_test_write(void *priv, unsigned int offset, int size,
			     unsigned long val)
{
	tsnep_test_regs[offset / sizeof(u32)] = val;
}

static const struct logic_iomem_ops tsnep_test_iomem_ops = {
	.read = tsnep_test_read,
	.write = tsnep_test_write,
};

static long tsnep_test_map(unsigned long offset, size_t size,
			   const struct logic_iomem_ops **ops, void **priv)
{
	*ops = &tsnep_test_iomem_ops;
	return offset;
}

static const struct logic_iomem_region_ops tsnep_test_region_ops = {
	.map = tsnep_test_map,
};

static struct resource tsnep_test_res = {
	.name = "tsnep_test",
	.start = 0x2f000000,
	.end = 0x2f000000 + TEST_REGS_SIZE - 1,
	.flags = IORESOURCE_MEM,
};

static void tsnep_test_iounmap(void *addr)
{
	iounmap((void __iomem *)addr);
}

static void __iomem *tsnep_test_map_regs(struct kunit *test)
{
	static bool added;
	void __iomem *addr;

	if (!added) {
		KUNIT_ASSERT_EQ(test, logic_iomem_add_region(&tsnep_test_res,
							     &tsnep_test_region_ops),
				0);
		added = true;
	}
	addr = ioremap(tsnep_test_res.start, TEST_REGS_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, (void __force *)addr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tsnep_test_iounmap,
							(void __force *)addr),
			0);
	return addr;
}
#else
/* Where I/O memory is memory (x86): the registers are the array. */
static void __iomem *tsnep_test_map_regs(struct kunit *test)
{
	return (void __iomem __force *)tsnep_test_regs;
}
#endif

static u32 tsnep_test_reg(u32 offset)
{
	return READ_ONCE(tsnep_test_regs[offset / sizeof(u32)]);
}

/* ---- a software ring ---- */

/* tsnep_rx_ring_create() and tsnep_tx_ring_create()'s layout: writeback
 * at the start of each TSNEP_DESC_SIZE slot, descriptor at its middle.
 */
static u8 *tsnep_test_ring_area(struct kunit *test)
{
	u8 *area = kunit_kzalloc(test, TSNEP_RING_SIZE * TSNEP_DESC_SIZE,
				 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, area);
	return area;
}

static int tsnep_test_init(struct kunit *test)
{
	struct xsk_zc_rx_ring *zrx;
	u8 *rx_area, *tx_area;
	void __iomem *regs;
	struct tsnep_test *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->adapter = kunit_kzalloc(test, sizeof(*t->adapter), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->adapter);
	t->xdp = kunit_kcalloc(test, TSNEP_RING_SIZE, sizeof(*t->xdp),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->xdp);
	t->data = kunit_kzalloc(test, TSNEP_RING_SIZE * TEST_BUF_SIZE,
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->data);
	memset(tsnep_test_regs, 0, sizeof(tsnep_test_regs));
	regs = tsnep_test_map_regs(test);

	t->rx = &t->adapter->rx[0];
	t->tx = &t->adapter->tx[0];
	t->rx->adapter = t->adapter;
	t->tx->adapter = t->adapter;
	t->rx->addr = regs;
	t->tx->addr = regs;
	t->rx->queue_index = 3;

	/* what tsnep_rx_init() and tsnep_tx_init() set */
	t->rx->owner_counter = 1;
	t->rx->increment_owner_counter = TSNEP_RING_SIZE - 1;
	t->tx->owner_counter = 1;
	t->tx->increment_owner_counter = TSNEP_RING_SIZE - 1;

	rx_area = tsnep_test_ring_area(test);
	tx_area = tsnep_test_ring_area(test);
	for (i = 0; i < TSNEP_RING_SIZE; i++) {
		struct tsnep_rx_entry *re = &t->rx->entry[i];
		struct tsnep_tx_entry *te = &t->tx->entry[i];

		re->desc_wb = (void *)(rx_area + TSNEP_DESC_SIZE * i);
		re->desc = (void *)(rx_area + TSNEP_DESC_SIZE * i +
				    TSNEP_DESC_OFFSET);
		te->desc_wb = (void *)(tx_area + TSNEP_DESC_SIZE * i);
		te->desc = (void *)(tx_area + TSNEP_DESC_SIZE * i +
				    TSNEP_DESC_OFFSET);
		t->xdp[i].data_hard_start = t->data + i * TEST_BUF_SIZE;
		t->xdp[i].data = t->xdp[i].data_hard_start;
	}

	zrx = &t->rx->zrx;
	zrx->count = TSNEP_RING_SIZE;
	zrx->bufs = kunit_kcalloc(test, TSNEP_RING_SIZE, sizeof(*zrx->bufs),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, zrx->bufs);
	zrx->pending = TSNEP_RING_SIZE - XSK_ZC_RX_RING_GAP;
	t->rx->xsk_buf_size = 1796;

	test->priv = t;
	return 0;
}

/* Posts @n buffers the way __xsk_zc_rx_refill() does: fill in ring order,
 * then one kick.
 */
static void tsnep_test_refill(struct tsnep_test *t, u32 n)
{
	struct xsk_zc_rx_ring *zrx = &t->rx->zrx;
	u32 ntu = zrx->next_to_use;

	while (n--) {
		zrx->bufs[ntu] = &t->xdp[ntu];
		tsnep_rx_zc_fill(zrx, ntu, &t->xdp[ntu], TEST_DMA(ntu));
		ntu = (ntu + 1) % TSNEP_RING_SIZE;
		zrx->pending--;
	}
	zrx->next_to_use = ntu;
	tsnep_rx_zc_kick(zrx, ntu);
}

/* The NIC writes back descriptor @i: its owner counter and @len bytes. */
static void tsnep_test_rx_done(struct tsnep_test *t, int i, u32 len)
{
	struct tsnep_rx_entry *e = &t->rx->entry[i];
	u32 owner = le32_to_cpu(e->desc->properties) &
		    TSNEP_DESC_OWNER_COUNTER_MASK;

	e->desc_wb->properties = cpu_to_le32(owner | len);
}

static u32 owner_of(__le32 properties)
{
	return (le32_to_cpu(properties) & TSNEP_DESC_OWNER_COUNTER_MASK) >>
	       TSNEP_DESC_OWNER_COUNTER_SHIFT;
}

/* ---- RX ---- */

static void tsnep_test_rx_fill(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct tsnep_rx_entry *e = &t->rx->entry[7];
	u32 p;

	tsnep_test_refill(t, 8);

	p = le32_to_cpu(e->desc->properties);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e->desc->rx), TEST_DMA(7));
	KUNIT_EXPECT_EQ(test, p & TSNEP_DESC_LENGTH_MASK, 1796);
	KUNIT_EXPECT_TRUE(test, p & TSNEP_DESC_INTERRUPT_FLAG);
	KUNIT_EXPECT_EQ(test, owner_of(e->desc->properties), 1);
	/* the software copy is what completion is checked against */
	KUNIT_EXPECT_EQ(test, e->properties, p);
	/* nothing posted beyond */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(t->rx->entry[8].desc->properties), 0);
}

static void tsnep_test_rx_kick(struct kunit *test)
{
	struct tsnep_test *t = test->priv;

	tsnep_test_refill(t, 5);

	KUNIT_EXPECT_EQ(test, t->rx->write, 5);
	KUNIT_EXPECT_EQ(test, tsnep_test_reg(TSNEP_CONTROL),
			TSNEP_CONTROL_RX_ENABLE);
}

/* Every time a descriptor is posted again, its owner counter differs from
 * the last one, so that a stale writeback never reads as done. The
 * counter is 1, 2 or 3, never 0 (a zeroed writeback).
 */
static void tsnep_test_rx_owner_wrap(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct xsk_zc_rx_ring *zrx = &t->rx->zrx;
	u32 last[TSNEP_RING_SIZE] = {};
	int round, i;

	tsnep_test_refill(t, TSNEP_RING_SIZE - 1);
	for (i = 0; i < TSNEP_RING_SIZE - 1; i++)
		last[i] = owner_of(t->rx->entry[i].desc->properties);
	/* the first pass uses counter 1 */
	KUNIT_EXPECT_EQ(test, last[0], 1);
	KUNIT_EXPECT_EQ(test, last[TSNEP_RING_SIZE - 2], 1);

	for (round = 0; round < 4 * TSNEP_RING_SIZE; round++) {
		struct xsk_zc_rx_desc desc = {};
		int ntc = zrx->next_to_clean;
		int ntu = zrx->next_to_use;
		u32 now;

		tsnep_test_rx_done(t, ntc, 100);
		KUNIT_ASSERT_PTR_EQ(test, tsnep_rx_zc_next(zrx, &desc),
				    &t->xdp[ntc]);
		tsnep_test_refill(t, 1);

		now = owner_of(t->rx->entry[ntu].desc->properties);
		KUNIT_EXPECT_GE(test, now, 1);
		KUNIT_EXPECT_LE(test, now, 3);
		KUNIT_EXPECT_NE_MSG(test, now, last[ntu], "descriptor %d", ntu);
		last[ntu] = now;
	}
}

static void tsnep_test_rx_next(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct xsk_zc_rx_ring *zrx = &t->rx->zrx;
	struct xsk_zc_rx_desc desc = {};

	tsnep_test_refill(t, 4);

	/* not written back yet */
	KUNIT_EXPECT_NULL(test, tsnep_rx_zc_next(zrx, &desc));

	/* 16 bytes of metadata, a 60 byte frame and its FCS */
	tsnep_test_rx_done(t, 0, TSNEP_RX_INLINE_METADATA_SIZE + 60 + 4);
	KUNIT_EXPECT_PTR_EQ(test, tsnep_rx_zc_next(zrx, &desc), &t->xdp[0]);
	KUNIT_EXPECT_EQ(test, desc.len, TSNEP_RX_INLINE_METADATA_SIZE + 60);
	KUNIT_EXPECT_EQ(test, desc.offset, TSNEP_RX_INLINE_METADATA_SIZE);
	KUNIT_EXPECT_FALSE(test, desc.drop);
	KUNIT_EXPECT_EQ(test, t->rx->read, 1);
	KUNIT_EXPECT_EQ(test, zrx->next_to_clean, 1);
	KUNIT_EXPECT_NULL(test, zrx->bufs[0]);

	/* in order: 2 is done, 1 is not */
	tsnep_test_rx_done(t, 2, 100);
	KUNIT_EXPECT_NULL(test, tsnep_rx_zc_next(zrx, &desc));
	tsnep_test_rx_done(t, 1, 100);
	KUNIT_EXPECT_PTR_EQ(test, tsnep_rx_zc_next(zrx, &desc), &t->xdp[1]);
	KUNIT_EXPECT_EQ(test, desc.len, 96);
	KUNIT_EXPECT_PTR_EQ(test, tsnep_rx_zc_next(zrx, &desc), &t->xdp[2]);

	/* too short to hold the metadata and the FCS */
	tsnep_test_rx_done(t, 3, TSNEP_RX_INLINE_METADATA_SIZE + 3);
	KUNIT_EXPECT_PTR_EQ(test, tsnep_rx_zc_next(zrx, &desc), &t->xdp[3]);
	KUNIT_EXPECT_TRUE(test, desc.drop);
}

/* At next_to_use the ring is empty, whatever the stale writeback says. */
static void tsnep_test_rx_next_empty(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct xsk_zc_rx_ring *zrx = &t->rx->zrx;
	struct xsk_zc_rx_desc desc = {};

	tsnep_test_refill(t, 1);
	tsnep_test_rx_done(t, 0, 100);
	KUNIT_ASSERT_NOT_NULL(test, tsnep_rx_zc_next(zrx, &desc));

	/* entry 0 still matches its writeback, entry 1 was never posted */
	tsnep_test_rx_done(t, 1, 100);
	t->rx->entry[1].properties = le32_to_cpu(t->rx->entry[1].desc_wb->properties);
	KUNIT_EXPECT_NULL(test, tsnep_rx_zc_next(zrx, &desc));
	KUNIT_EXPECT_EQ(test, zrx->next_to_clean, 1);
}

static void tsnep_test_rx_populate(struct kunit *test)
{
	static const u8 mc[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	struct tsnep_test *t = test->priv;
	struct tsnep_rx_inline meta = {
		.counter = cpu_to_le64(111),
		.timestamp = cpu_to_le64(1234567890123ULL),
	};
	struct xsk_zc_rx_desc desc = { .offset = sizeof(meta) };
	u8 *buf = kunit_kzalloc(test, XDP_PACKET_HEADROOM + 256, GFP_KERNEL);
	struct xdp_buff xdp = {};
	struct sk_buff *skb;

	/* as the poll leaves it: the NIC wrote the metadata, then the frame;
	 * a program moved data further on
	 */
	KUNIT_ASSERT_NOT_NULL(test, buf);
	xdp.data_hard_start = buf;
	memcpy(buf + XDP_PACKET_HEADROOM, &meta, sizeof(meta));
	xdp.data = buf + XDP_PACKET_HEADROOM + sizeof(meta) + ETH_HLEN;

	skb = alloc_skb(128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memcpy(skb_put_zero(skb, 60), mc, ETH_ALEN);

	t->adapter->hwtstamp_config.rx_filter = HWTSTAMP_FILTER_NONE;
	tsnep_rx_zc_populate(&t->rx->zrx, skb, &xdp, &desc);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(skb_hwtstamps(skb)->hwtstamp), 0);
	KUNIT_EXPECT_EQ(test, skb_get_rx_queue(skb), 3);
	KUNIT_EXPECT_EQ(test, t->rx->multicast, 1);

	t->adapter->hwtstamp_config.rx_filter = HWTSTAMP_FILTER_ALL;
	eth_broadcast_addr(skb->data);
	tsnep_rx_zc_populate(&t->rx->zrx, skb, &xdp, &desc);
	KUNIT_EXPECT_EQ(test, ktime_to_ns(skb_hwtstamps(skb)->hwtstamp),
			1234567890123LL);
	/* broadcast is not multicast */
	KUNIT_EXPECT_EQ(test, t->rx->multicast, 1);

	kfree_skb(skb);
}

/* ---- TX ---- */

static void tsnep_test_tx_send(struct tsnep_test *t, u32 len, u64 dma)
{
	struct xdp_desc d = { .len = len };

	tsnep_tx_zc_fill(&t->tx->ztx, &d, dma);
}

static void tsnep_test_tx_fill(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct tsnep_tx_entry *e = &t->tx->entry[0];
	u32 p;

	tsnep_test_tx_send(t, 60, 0x1234000);

	p = le32_to_cpu(e->desc->properties);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e->desc->tx), 0x1234000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e->desc->more_properties), 60);
	KUNIT_EXPECT_EQ(test, p & TSNEP_DESC_LENGTH_MASK, 60);
	KUNIT_EXPECT_TRUE(test, p & TSNEP_DESC_INTERRUPT_FLAG);
	KUNIT_EXPECT_TRUE(test, p & TSNEP_TX_DESC_LAST_FRAGMENT_FLAG);
	KUNIT_EXPECT_FALSE(test, p & TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG);
	KUNIT_EXPECT_FALSE(test, p & TSNEP_DESC_EXTENDED_WRITEBACK_FLAG);
	KUNIT_EXPECT_EQ(test, owner_of(e->desc->properties), 1);
	KUNIT_EXPECT_TRUE(test, p & TSNEP_TX_DESC_OWNER_USER_FLAG);
	KUNIT_EXPECT_EQ(test, e->properties, p);
	/* completion counts it as a zero-copy frame and unmaps nothing */
	KUNIT_EXPECT_EQ(test, e->type, TSNEP_TX_TYPE_XSK);
	KUNIT_EXPECT_EQ(test, e->len, 60);
	KUNIT_EXPECT_EQ(test, t->tx->write, 1);
}

/* A frame whose TX metadata asked for a timestamp (the library set its
 * entry's completion slot) asks the NIC for the extended writeback.
 */
static void tsnep_test_tx_fill_asks_for_the_writeback_of_a_stamped_frame(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct tsnep_tx_entry *e = &t->tx->entry[0];
	u64 stamp = 0;

	KUNIT_ASSERT_PTR_EQ(test, tsnep_tx_zc_compl(&t->tx->ztx), &e->xsk_compl);
	t->adapter->hwtstamp_config.tx_type = HWTSTAMP_TX_ON;
	e->xsk_compl.tx_timestamp = &stamp;
	tsnep_test_tx_send(t, 60, 0x1234000);
	KUNIT_EXPECT_TRUE(test, le32_to_cpu(e->desc->properties) &
			  TSNEP_DESC_EXTENDED_WRITEBACK_FLAG);
	KUNIT_EXPECT_EQ(test, e->type, TSNEP_TX_TYPE_XSK | TSNEP_TX_TYPE_TSTAMP);
	KUNIT_EXPECT_PTR_EQ(test, tsnep_tx_zc_compl(&t->tx->ztx),
			    &t->tx->entry[1].xsk_compl);
}

/* as for skbs: no TX timestamp while TX timestamping is off */
static void tsnep_test_tx_fill_asks_for_no_writeback_with_timestamping_off(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct tsnep_tx_entry *e = &t->tx->entry[0];
	u64 stamp = 0;

	e->xsk_compl.tx_timestamp = &stamp;
	tsnep_test_tx_send(t, 60, 0x1234000);
	KUNIT_EXPECT_FALSE(test, le32_to_cpu(e->desc->properties) &
			   TSNEP_DESC_EXTENDED_WRITEBACK_FLAG);
	KUNIT_EXPECT_EQ(test, e->type, TSNEP_TX_TYPE_XSK);
}

static void tsnep_test_tx_timestamp_is_the_writeback_time(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct tsnep_tx_entry *e = &t->tx->entry[3];

	e->desc_wb->timestamp = cpu_to_le64(1234567890123ULL);
	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_fill_timestamp(&e->xsk_compl),
			1234567890123ULL);
}

static void tsnep_test_free_netdev(void *dev)
{
	free_netdev(dev);
}

/* XDP_TX without a copy, on the TX ring of the RX ring's queue: a netdev
 * for its queue lock, the TX ring zero-copy with the RX ring's pool.
 */
static void tsnep_test_xdp_tx_ring(struct kunit *test, struct tsnep_test *t)
{
	struct net_device *dev = alloc_etherdev_mqs(0, 1, 1);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							tsnep_test_free_netdev,
							dev), 0);
	t->adapter->netdev = dev;
	t->rx->tx_queue_index = 0;
	t->tx->ztx.rx = &t->rx->zrx;
}

/* as the RX NAPI calls it: with BHs off, under the TX queue's lock */
static bool tsnep_test_xmit_zc(struct tsnep_test *t, struct xdp_buff *xdp)
{
	bool ok;

	local_bh_disable();
	ok = tsnep_rx_zc_xmit_zc(&t->rx->zrx, xdp, 0x5000, 60);
	local_bh_enable();
	return ok;
}

static void tsnep_test_xdp_tx_zc_posts_the_xsk_buffer_itself(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct tsnep_tx_entry *e = &t->tx->entry[0];
	u32 p;

	tsnep_test_xdp_tx_ring(test, t);
	KUNIT_ASSERT_TRUE(test, tsnep_test_xmit_zc(t, &t->xdp[5]));
	p = le32_to_cpu(e->desc->properties);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e->desc->tx), 0x5000);
	KUNIT_EXPECT_EQ(test, p & TSNEP_DESC_LENGTH_MASK, 60);
	KUNIT_EXPECT_TRUE(test, p & TSNEP_TX_DESC_LAST_FRAGMENT_FLAG);
	KUNIT_EXPECT_EQ(test, owner_of(e->desc->properties), 1);
	/* completion gives it back, counts no socket frame, unmaps nothing */
	KUNIT_EXPECT_EQ(test, e->type, TSNEP_TX_TYPE_XSK_XDP_TX);
	KUNIT_EXPECT_PTR_EQ(test, e->xsk_xdp, &t->xdp[5]);
	KUNIT_EXPECT_EQ(test, t->tx->write, 1);
}

static void tsnep_test_xdp_tx_zc_refuses_a_tx_ring_of_another_pool(struct kunit *test)
{
	struct tsnep_test *t = test->priv;

	tsnep_test_xdp_tx_ring(test, t);
	t->tx->ztx.rx = NULL;
	KUNIT_EXPECT_FALSE(test, tsnep_test_xmit_zc(t, &t->xdp[0]));
	KUNIT_EXPECT_EQ(test, t->tx->write, 0);
}

static void tsnep_test_xdp_tx_zc_leaves_the_stack_its_reserve(struct kunit *test)
{
	struct tsnep_test *t = test->priv;

	tsnep_test_xdp_tx_ring(test, t);
	/* TSNEP_TX_RESERVE descriptors free: the stack's */
	t->tx->read = TSNEP_TX_RESERVE + 1;
	KUNIT_EXPECT_FALSE(test, tsnep_test_xmit_zc(t, &t->xdp[0]));
	KUNIT_EXPECT_EQ(test, t->tx->write, 0);
	t->tx->read = TSNEP_TX_RESERVE + 2;
	KUNIT_EXPECT_TRUE(test, tsnep_test_xmit_zc(t, &t->xdp[0]));
}

/* The owner counter and the user flag (TSNEP_TX_DESC_OWNER_MASK) of a
 * descriptor differ from its last completion each time it is reused.
 */
static void tsnep_test_tx_owner_wrap(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	u32 last[TSNEP_RING_SIZE] = {};
	int n;

	for (n = 0; n < 3 * TSNEP_RING_SIZE + 17; n++) {
		int i = t->tx->write;
		u32 own;

		tsnep_test_tx_send(t, 64 + n % 64, TEST_DMA(n));
		own = le32_to_cpu(t->tx->entry[i].desc->properties) &
		      TSNEP_TX_DESC_OWNER_MASK;
		KUNIT_EXPECT_NE_MSG(test, own, last[i], "descriptor %d", i);
		last[i] = own;
		/* completed: the NIC wrote it back, the driver freed it */
		t->tx->entry[i].desc_wb->properties = cpu_to_le32(own);
		t->tx->entry[i].skb = NULL;
		t->tx->read = t->tx->write;
	}
	KUNIT_EXPECT_EQ(test, t->tx->write, 17);
}

static void tsnep_test_tx_claim_takes_the_free_descriptors(struct kunit *test)
{
	struct tsnep_test *t = test->priv;
	struct xsk_zc_tx_ring *ztx = &t->tx->ztx;

	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_claim(ztx, U32_MAX), TSNEP_RING_SIZE - 1);
	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_claim(ztx, 5), 5);
	tsnep_test_tx_send(t, 60, TEST_DMA(0));
	tsnep_test_tx_send(t, 60, TEST_DMA(1));
	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_claim(ztx, U32_MAX), TSNEP_RING_SIZE - 3);

	/* the stack's reserve stays free */
	ztx->reserve = 4;
	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_claim(ztx, U32_MAX), TSNEP_RING_SIZE - 7);
	ztx->reserve = 0;

	/* wrapped: write behind read */
	t->tx->read = 200;
	t->tx->write = 10;
	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_claim(ztx, U32_MAX), 189);
	t->tx->read = 11;
	KUNIT_EXPECT_EQ(test, tsnep_tx_zc_claim(ztx, U32_MAX), 0);
	t->tx->write = 255;
	tsnep_test_tx_send(t, 60, TEST_DMA(2));
	KUNIT_EXPECT_EQ(test, t->tx->write, 0);
}

static void tsnep_test_tx_kick(struct kunit *test)
{
	struct tsnep_test *t = test->priv;

	tsnep_test_tx_send(t, 60, TEST_DMA(0));
	KUNIT_EXPECT_EQ(test, tsnep_test_reg(TSNEP_CONTROL), 0);
	tsnep_tx_zc_kick(&t->tx->ztx, 60);
	KUNIT_EXPECT_EQ(test, tsnep_test_reg(TSNEP_CONTROL),
			TSNEP_CONTROL_TX_ENABLE);
}

static struct kunit_case tsnep_test_cases[] = {
	KUNIT_CASE(tsnep_test_rx_fill),
	KUNIT_CASE(tsnep_test_rx_kick),
	KUNIT_CASE(tsnep_test_rx_owner_wrap),
	KUNIT_CASE(tsnep_test_rx_next),
	KUNIT_CASE(tsnep_test_rx_next_empty),
	KUNIT_CASE(tsnep_test_rx_populate),
	KUNIT_CASE(tsnep_test_tx_fill),
	KUNIT_CASE(tsnep_test_tx_fill_asks_for_the_writeback_of_a_stamped_frame),
	KUNIT_CASE(tsnep_test_tx_fill_asks_for_no_writeback_with_timestamping_off),
	KUNIT_CASE(tsnep_test_tx_timestamp_is_the_writeback_time),
	KUNIT_CASE(tsnep_test_tx_owner_wrap),
	KUNIT_CASE(tsnep_test_xdp_tx_zc_posts_the_xsk_buffer_itself),
	KUNIT_CASE(tsnep_test_xdp_tx_zc_refuses_a_tx_ring_of_another_pool),
	KUNIT_CASE(tsnep_test_xdp_tx_zc_leaves_the_stack_its_reserve),
	KUNIT_CASE(tsnep_test_tx_claim_takes_the_free_descriptors),
	KUNIT_CASE(tsnep_test_tx_kick),
	{}
};

static struct kunit_suite tsnep_test_suite = {
	.name = "xsk_zc_tsnep",
	.init = tsnep_test_init,
	.test_cases = tsnep_test_cases,
};

kunit_test_suite(tsnep_test_suite);

MODULE_DESCRIPTION("KUnit tests of tsnep's xsk_zc descriptor callbacks");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("XSK_ZC");
