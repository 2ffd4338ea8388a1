// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the am65-cpsw zero-copy bookkeeping: port tags to
 * ports[], and the descriptor accounting of a ring whose descriptors
 * hold the buffers, on the library's refill by deficit. Ownership of the
 * shared RX flow is the library's (xsk_zc_pool suite).
 */

#include <kunit/test.h>
#include "am65-cpsw-nuss.h"
#include "fixture.h"

#define AM65_TEST_RING	8

static void am65_port_by_id_test(struct kunit *test)
{
	struct am65_cpsw_port *ports = kunit_kcalloc(test, 3, sizeof(*ports),
						     GFP_KERNEL);
	struct am65_cpsw_common common = { .port_num = 3, .ports = ports };
	struct net_device *nd = (struct net_device *)test;	/* never read */

	KUNIT_ASSERT_NOT_NULL(test, ports);

	ports[0].ndev = nd;
	ports[2].ndev = nd;	/* ports[1] disabled in DT: no netdev */

	KUNIT_EXPECT_NULL(test, am65_cpsw_port_by_id(&common, 0));	/* host */
	KUNIT_EXPECT_PTR_EQ(test, am65_cpsw_port_by_id(&common, 1), &ports[0]);
	KUNIT_EXPECT_NULL(test, am65_cpsw_port_by_id(&common, 2));
	KUNIT_EXPECT_PTR_EQ(test, am65_cpsw_port_by_id(&common, 3), &ports[2]);
	KUNIT_EXPECT_NULL(test, am65_cpsw_port_by_id(&common, 4));
	KUNIT_EXPECT_NULL(test, am65_cpsw_port_by_id(&common, 0xff));
}

/* A stand-in for the CPPI free/completion queues: buffers in push order,
 * handled as the driver's fill and next callbacks handle them.
 */
struct am65_test_dma {
	struct am65_cpsw_rx_flow flow;
	struct xdp_buff *fifo[AM65_TEST_RING];
	u32 head, tail;
	struct xdp_buff *user[2 * AM65_TEST_RING];	/* redirected */
	u32 nr_user;
};

static void am65_test_fill(struct xsk_zc_rx_ring *rx, u32 idx,
			   struct xdp_buff *xdp, dma_addr_t dma)
{
	struct am65_test_dma *d = container_of(rx, struct am65_test_dma,
					       flow.zrx);

	d->fifo[d->tail++ % AM65_TEST_RING] = xdp;
	rx->bufs[idx] = NULL;	/* the descriptor owns it */
}

static u32 am65_test_posted(struct am65_test_dma *d)
{
	return d->tail - d->head;
}

static const struct xsk_zc_rx_hw am65_test_hw = {
	.fill = am65_test_fill,
};

/* The DMA completes @n frames and NAPI pops them; they go to user space
 * (as XDP_REDIRECT would), which holds them: a freed buffer would be
 * recycled by the pool without the fill ring.
 */
static void am65_test_pop(struct am65_test_dma *d, u32 n)
{
	while (n-- && d->head != d->tail) {
		d->user[d->nr_user++] = d->fifo[d->head++ % AM65_TEST_RING];
		d->flow.zrx.pending++;	/* returned by pointer */
	}
}

static u32 am65_test_bufs_held(struct am65_test_dma *d)
{
	u32 i, n = 0;

	for (i = 0; i < AM65_TEST_RING; i++)
		n += !!d->flow.zrx.bufs[i];
	return n;
}

/* l2fwd at 64 B: the fill ring runs dry while frames wait for TX. A
 * refill of "what this poll consumed" loses those slots for good; a
 * refill by deficit gets them back once user space returns frames. The
 * ring is a pool of descriptors (gap 0): all of them get a buffer.
 */
static void am65_refill_deficit_test(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct fake_xsk *x = fake_xsk_create(test);
	struct fake_xsk_cfg cfg = { .qid = 0 };
	struct xsk_zc_rx_ring *rx;
	struct am65_test_dma *d;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &cfg), 0);
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	rx = &d->flow.zrx;
	rx->bufs = kunit_kcalloc(test, AM65_TEST_RING, sizeof(*rx->bufs),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rx->bufs);
	rx->pool = x->pool;
	rx->count = AM65_TEST_RING;
	rx->gap = 0;
	__xsk_zc_rx_ring_reset(rx);
	KUNIT_EXPECT_EQ(test, rx->pending, AM65_TEST_RING);

	/* only 3 frames in the fill ring */
	KUNIT_ASSERT_EQ(test, fake_fq_put(x, 3), 3);
	KUNIT_EXPECT_FALSE(test, __xsk_zc_rx_refill(rx, &am65_test_hw));
	KUNIT_EXPECT_EQ(test, am65_test_posted(d), 3);
	KUNIT_EXPECT_EQ(test, rx->pending, AM65_TEST_RING - 3);
	KUNIT_EXPECT_EQ(test, am65_test_bufs_held(d), 0);

	/* all 3 come back, the fill ring is empty: nothing posted */
	am65_test_pop(d, 3);
	KUNIT_EXPECT_FALSE(test, __xsk_zc_rx_refill(rx, &am65_test_hw));
	KUNIT_EXPECT_EQ(test, am65_test_posted(d), 0);
	KUNIT_EXPECT_EQ(test, rx->pending, AM65_TEST_RING);

	/* user space returns frames: a poll that saw none refills it all */
	KUNIT_ASSERT_EQ(test, fake_fq_put(x, AM65_TEST_RING), AM65_TEST_RING);
	KUNIT_EXPECT_TRUE(test, __xsk_zc_rx_refill(rx, &am65_test_hw));
	KUNIT_EXPECT_EQ(test, am65_test_posted(d), AM65_TEST_RING);
	KUNIT_EXPECT_EQ(test, rx->pending, 0);
	KUNIT_EXPECT_EQ(test, am65_test_bufs_held(d), 0);

	/* teardown: every posted descriptor is returned exactly once */
	am65_test_pop(d, AM65_TEST_RING);
	KUNIT_EXPECT_EQ(test, am65_test_posted(d), 0);
	KUNIT_EXPECT_EQ(test, rx->pending, AM65_TEST_RING);
	xsk_zc_rx_ring_clean(rx);	/* must not free anything twice */
	while (d->nr_user)
		xsk_buff_free(d->user[--d->nr_user]);
	rx->pool = NULL;
}

static struct kunit_case am65_cases[] = {
	KUNIT_CASE(am65_port_by_id_test),
	KUNIT_CASE(am65_refill_deficit_test),
	{}
};

static struct kunit_suite am65_suite = {
	.name = "xsk_zc_am65_cpsw",
	.test_cases = am65_cases,
};

kunit_test_suite(am65_suite);
