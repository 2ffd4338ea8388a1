// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of am65-cpsw-xsk.c itself: the driver's own descriptor
 * callbacks and polls, compiled into this suite together with the real
 * CPPI descriptor pool (k3-cppi-desc-pool.c), on a stand-in for what
 * sits below them: the k3-udma glue channels, and the calls into
 * am65-cpsw-nuss.c. The driver needs ARCH_K3; the suite builds only
 * where the driver is not built (lib/xsk_zc/kunit/Makefile), so the two
 * never define the same symbols.
 */

/* first: it defines its pr_fmt before any header does */
#include "k3-cppi-desc-pool.c"

#include <kunit/test.h>
#include "fixture.h"

#include "am65-cpsw-xsk.c"

/* Smaller than the driver's 500, above the reserve of two ports */
#define AM65_TEST_DESCS		48
#define AM65_TEST_PORTS		2
#define AM65_TEST_HDESC_SIZE	cppi5_hdesc_calc_size(true, \
				AM65_CPSW_NAV_PS_DATA_SIZE, 16)

/* A TX channel: the descriptors pushed, in order, until the test pops
 * them as the hardware would complete them.
 */
struct k3_udma_glue_tx_channel {
	struct cppi5_host_desc_t *ring[AM65_TEST_DESCS];
	u32 pushed;
	u32 xsk_bufs;		/* descriptors typed AM65_CPSW_TX_BUF_TYPE_XSK */

	/* Another port's xmit on another CPU, in the middle of a batch:
	 * it takes every free descriptor of the pool.
	 */
	bool steal;
	struct k3_cppi_desc_pool *pool;
	void *stolen[AM65_TEST_DESCS];
	u32 nr_stolen;
};

/* Only the TX cases below use the RX channel's calls, none of them. */
struct k3_udma_glue_rx_channel {
	u32 unused;
};

int k3_udma_glue_push_tx_chn(struct k3_udma_glue_tx_channel *tx_chn,
			     struct cppi5_host_desc_t *desc_tx,
			     dma_addr_t desc_dma)
{
	if (tx_chn->pushed == AM65_TEST_DESCS)
		return -ENOMEM;
	tx_chn->ring[tx_chn->pushed++] = desc_tx;
	return 0;
}

void k3_udma_glue_tx_dma_to_cppi5_addr(struct k3_udma_glue_tx_channel *tx_chn,
				       dma_addr_t *addr)
{
	void *desc;

	if (!tx_chn->steal)
		return;
	tx_chn->steal = false;
	while ((desc = k3_cppi_desc_pool_alloc(tx_chn->pool)))
		tx_chn->stolen[tx_chn->nr_stolen++] = desc;
}

int k3_udma_glue_push_rx_chn(struct k3_udma_glue_rx_channel *rx_chn,
			     u32 flow_num, struct cppi5_host_desc_t *desc_tx,
			     dma_addr_t desc_dma)
{
	return -ENOMEM;
}

int k3_udma_glue_pop_rx_chn(struct k3_udma_glue_rx_channel *rx_chn,
			    u32 flow_num, dma_addr_t *desc_dma)
{
	return -ENODATA;
}

void k3_udma_glue_rx_dma_to_cppi5_addr(struct k3_udma_glue_rx_channel *rx_chn,
				       dma_addr_t *addr)
{
}

/* am65-cpsw-nuss.c: the buffer type goes with the descriptor. */
void am65_cpsw_nuss_set_buf_type(struct am65_cpsw_tx_chn *tx_chn,
				 struct cppi5_host_desc_t *desc,
				 enum am65_cpsw_tx_buf_type buf_type)
{
	if (buf_type == AM65_CPSW_TX_BUF_TYPE_XSK)
		tx_chn->tx_chn->xsk_bufs++;
}

void am65_cpsw_nuss_rx_csum(struct sk_buff *skb, u32 csum_info)
{
}

void am65_cpsw_nuss_queue_stop(struct net_device *ndev, u32 qid)
{
}

void am65_cpsw_nuss_queue_start(struct net_device *ndev, u32 qid)
{
}

/* One CPSW with two ports, port 1 owning queue 0 in zero-copy. */
struct am65_test {
	struct fake_nic *nic;		/* the pool's DMA device and binding */
	struct fake_xsk *x;
	struct am65_cpsw_common common;
	struct am65_cpsw_port ports[AM65_TEST_PORTS];
	struct net_device *ndev;
	struct am65_cpsw_tx_chn *tx_chn;
	struct k3_udma_glue_tx_channel chn;
};

static void am65_test_free_netdev(void *ndev)
{
	free_netdev(ndev);
}

static void am65_test_destroy_pool(void *data)
{
	struct am65_test *t = data;
	struct k3_udma_glue_tx_channel *chn = &t->chn;

	/* every descriptor back, as the channel's teardown does */
	while (chn->pushed)
		k3_cppi_desc_pool_free(t->tx_chn->desc_pool,
				       chn->ring[--chn->pushed]);
	while (chn->nr_stolen)
		k3_cppi_desc_pool_free(t->tx_chn->desc_pool,
				       chn->stolen[--chn->nr_stolen]);
	t->tx_chn->ztx.pool = NULL;
	k3_cppi_desc_pool_destroy(t->tx_chn->desc_pool);
}

static int am65_test_init(struct kunit *test)
{
	struct fake_xsk_cfg cfg = { .qid = 0 };
	struct am65_cpsw_ndev_priv *priv;
	struct am65_test *t;
	int i, err;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;

	/* frames of 4 KiB: prepare() wants AM65_CPSW_MAX_PACKET_SIZE */
	t->nic = fake_nic_create(test, &fake_ops);
	t->x = fake_xsk_create_sized(test, 4096, FAKE_XSK_RING);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(t->x, t->nic, &cfg), 0);

	t->common.port_num = AM65_TEST_PORTS;
	t->common.ports = t->ports;
	t->common.rx_ch_num_flows = 1;
	t->common.rx_chns.flows[0].common = &t->common;
	t->common.usage_count = 1;

	t->ndev = alloc_etherdev(sizeof(*priv));
	KUNIT_ASSERT_NOT_NULL(test, t->ndev);
	err = kunit_add_action_or_reset(test, am65_test_free_netdev, t->ndev);
	KUNIT_ASSERT_EQ(test, err, 0);
	for (i = 0; i < AM65_TEST_PORTS; i++) {
		t->ports[i].common = &t->common;
		t->ports[i].port_id = i + 1;
	}
	t->ports[0].ndev = t->ndev;
	priv = netdev_priv(t->ndev);
	priv->port = &t->ports[0];
	netif_carrier_on(t->ndev);

	t->tx_chn = &t->common.tx_chns[0];
	t->tx_chn->common = &t->common;
	t->tx_chn->tx_chn = &t->chn;
	spin_lock_init(&t->tx_chn->lock);
	t->tx_chn->desc_pool = k3_cppi_desc_pool_create_name(t->nic->dma_dev,
							     AM65_TEST_DESCS,
							     AM65_TEST_HDESC_SIZE,
							     "am65-test-tx");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->tx_chn->desc_pool));
	t->chn.pool = t->tx_chn->desc_pool;
	err = kunit_add_action_or_reset(test, am65_test_destroy_pool, t);
	KUNIT_ASSERT_EQ(test, err, 0);

	/* the driver's own setup of the rings, then the pool as attached */
	KUNIT_ASSERT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool), 0);
	t->tx_chn->ztx.pool = t->x->pool;
	return 0;
}

/* The TX channel's NAPI poll, in softirq context as NAPI runs it */
static void am65_test_tx_napi(struct am65_test *t)
{
	local_bh_disable();
	am65_cpsw_xsk_tx_poll(t->tx_chn, NAPI_POLL_WEIGHT);
	local_bh_enable();
}

/* Another port takes the free descriptors in the middle of a batch: every
 * frame the batch took off the socket's TX ring still goes on the wire,
 * and none comes back on the completion ring before the hardware
 * completes it (the ring is positional: a frame counted done early
 * returns the buffer of an older one, whose DMA is still pending).
 */
static void am65_tx_sends_every_frame_when_another_port_takes_descriptors(struct kunit *test)
{
	struct am65_test *t = test->priv;
	u32 sent;

	KUNIT_ASSERT_EQ(test, fake_tx_put(t->x, 8, 60), 8);
	t->chn.steal = true;
	am65_test_tx_napi(t);
	KUNIT_EXPECT_GT(test, t->chn.nr_stolen, 0);

	/* the next poll completes what the first counted done */
	am65_test_tx_napi(t);
	sent = t->chn.pushed;
	KUNIT_EXPECT_EQ(test, sent, 8);
	KUNIT_EXPECT_EQ(test, t->chn.xsk_bufs, sent);
	KUNIT_EXPECT_EQ(test, fake_cq_take(t->x), 0);
}

/* A batch leaves the reserve of every port's skbs in the pool, and gives
 * back what it claimed and did not use.
 */
static void am65_tx_leaves_the_stack_reserve_in_the_pool(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct k3_cppi_desc_pool *pool = t->tx_chn->desc_pool;
	u32 reserve = t->tx_chn->ztx.reserve;

	KUNIT_ASSERT_LT(test, reserve, AM65_TEST_DESCS);
	KUNIT_ASSERT_EQ(test, fake_tx_put(t->x, 40, 60), 40);
	am65_test_tx_napi(t);
	KUNIT_EXPECT_EQ(test, t->chn.pushed, AM65_TEST_DESCS - reserve);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(pool), reserve);

	/* the pool is at the reserve: nothing more goes */
	am65_test_tx_napi(t);
	KUNIT_EXPECT_EQ(test, t->chn.pushed, AM65_TEST_DESCS - reserve);
}

static void am65_tx_gives_back_the_descriptors_it_did_not_use(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct k3_cppi_desc_pool *pool = t->tx_chn->desc_pool;

	KUNIT_ASSERT_EQ(test, fake_tx_put(t->x, 3, 60), 3);
	am65_test_tx_napi(t);
	KUNIT_EXPECT_EQ(test, t->chn.pushed, 3);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(pool), AM65_TEST_DESCS - 3);
	KUNIT_EXPECT_EQ(test, t->tx_chn->xsk_done, 0);
}

/* The ports take frames of AM65_CPSW_MAX_PACKET_SIZE at any MTU: a
 * smaller XSK frame is refused, and the rings keep their setup.
 */
static void am65_prepare_refuses_frames_smaller_than_the_ports_take(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct fake_xsk_cfg cfg = { .qid = 1 };
	struct fake_xsk *small = fake_xsk_create(test);
	u32 reserve = t->tx_chn->ztx.reserve;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(small, t->nic, &cfg), 0);
	KUNIT_ASSERT_LT(test, xsk_pool_get_rx_frame_size(small->pool),
			AM65_CPSW_MAX_PACKET_SIZE);
	t->tx_chn->ztx.reserve = 0;
	KUNIT_EXPECT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, small->pool),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t->tx_chn->ztx.reserve, 0);
	t->tx_chn->ztx.reserve = reserve;
}

/* The flows share one free descriptor queue: zero-copy needs one flow. */
static void am65_prepare_refuses_more_than_one_rx_flow(struct kunit *test)
{
	struct am65_test *t = test->priv;

	t->common.rx_ch_num_flows = 2;
	t->tx_chn->ztx.reserve = 0;
	KUNIT_EXPECT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, t->tx_chn->ztx.reserve, 0);
}

static struct kunit_case am65_glue_cases[] = {
	KUNIT_CASE(am65_tx_sends_every_frame_when_another_port_takes_descriptors),
	KUNIT_CASE(am65_tx_leaves_the_stack_reserve_in_the_pool),
	KUNIT_CASE(am65_tx_gives_back_the_descriptors_it_did_not_use),
	KUNIT_CASE(am65_prepare_refuses_frames_smaller_than_the_ports_take),
	KUNIT_CASE(am65_prepare_refuses_more_than_one_rx_flow),
	{}
};

static struct kunit_suite am65_glue_suite = {
	.name = "xsk_zc_am65_cpsw_glue",
	.init = am65_test_init,
	.test_cases = am65_glue_cases,
};

kunit_test_suite(am65_glue_suite);
