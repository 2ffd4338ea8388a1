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

#include <kunit/device.h>
#include <kunit/test.h>
#include <net/page_pool/helpers.h>
#include "cpsw_ale.h"
#include "fixture.h"

#include "am65-cpsw-xsk.c"

/* Smaller than the driver's 500, above the reserve of two ports */
#define AM65_TEST_DESCS		48
#define AM65_TEST_PORTS		2
#define AM65_TEST_HDESC_SIZE	cppi5_hdesc_calc_size(true, \
				AM65_CPSW_NAV_PS_DATA_SIZE, 16)
#define AM65_TEST_LOG		256
/* Page mode's pages posted before a pool change */
#define AM65_TEST_PAGES		8

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

/* The RX channel: the descriptors pushed, in order, and those the test
 * has completed, which pop returns in order.
 */
struct k3_udma_glue_rx_channel {
	struct cppi5_host_desc_t *ring[AM65_TEST_DESCS];
	u32 pushed;
	u32 done[AM65_TEST_DESCS];	/* indices into ring[] */
	u32 nr_done;
	u32 popped;
	struct k3_cppi_desc_pool *pool;
	char *log;			/* the queue change's steps */
};

/* Appends @step to a log of what a queue change did, in order */
static void am65_test_log(char *log, const char *step)
{
	if (log)
		strlcat(log, step, AM65_TEST_LOG);
}

/* Whether the @i-th descriptor pushed is still on the RX ring */
static bool am65_test_rx_posted(struct k3_udma_glue_rx_channel *rx_chn, u32 i)
{
	u32 k;

	for (k = 0; k < rx_chn->popped; k++)
		if (rx_chn->done[k] == i)
			return false;
	return true;
}

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
			     u32 flow_num, struct cppi5_host_desc_t *desc_rx,
			     dma_addr_t desc_dma)
{
	if (rx_chn->pushed == AM65_TEST_DESCS)
		return -ENOMEM;
	rx_chn->ring[rx_chn->pushed++] = desc_rx;
	return 0;
}

int k3_udma_glue_pop_rx_chn(struct k3_udma_glue_rx_channel *rx_chn,
			    u32 flow_num, dma_addr_t *desc_dma)
{
	struct cppi5_host_desc_t *desc;

	if (rx_chn->popped == rx_chn->nr_done)
		return -ENODATA;
	desc = rx_chn->ring[rx_chn->done[rx_chn->popped++]];
	*desc_dma = k3_cppi_desc_pool_virt2dma(rx_chn->pool, desc);
	return 0;
}

void k3_udma_glue_rx_dma_to_cppi5_addr(struct k3_udma_glue_rx_channel *rx_chn,
				       dma_addr_t *addr)
{
}

void k3_udma_glue_rx_cppi5_to_dma_addr(struct k3_udma_glue_rx_channel *rx_chn,
				       dma_addr_t *addr)
{
}

void k3_udma_glue_tdown_rx_chn(struct k3_udma_glue_rx_channel *rx_chn,
			       bool sync)
{
	am65_test_log(rx_chn->log, "rx-tdown ");
}

/* The ring forgets every descriptor, giving back those still posted */
void k3_udma_glue_reset_rx_chn(struct k3_udma_glue_rx_channel *rx_chn,
			       u32 flow_num, void *data,
			       void (*cleanup)(void *data, dma_addr_t desc_dma))
{
	u32 i;

	for (i = 0; i < rx_chn->pushed; i++)
		if (am65_test_rx_posted(rx_chn, i))
			cleanup(data, k3_cppi_desc_pool_virt2dma(rx_chn->pool,
								 rx_chn->ring[i]));
	rx_chn->pushed = 0;
	rx_chn->nr_done = 0;
	rx_chn->popped = 0;
}

void k3_udma_glue_disable_rx_chn(struct k3_udma_glue_rx_channel *rx_chn)
{
	am65_test_log(rx_chn->log, "rx-disable ");
}

int k3_udma_glue_enable_rx_chn(struct k3_udma_glue_rx_channel *rx_chn)
{
	am65_test_log(rx_chn->log, "rx-enable ");
	return 0;
}

/* cpsw_ale.c: only the host port's state matters here, in the log of
 * the test that runs (NULL: none)
 */
static char *am65_test_ale_log;

int cpsw_ale_control_set(struct cpsw_ale *ale, int port, int control,
			 int value)
{
	if (port == HOST_PORT_NUM && control == ALE_PORT_STATE)
		am65_test_log(am65_test_ale_log,
			      value == ALE_PORT_STATE_FORWARD ?
			      "host-port-on" : "host-port-off ");
	return 0;
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

/* am65-cpsw-nuss.c's half of a queue change: the stack's TX queues and
 * the TX channel. The log says whether the RX NAPI was off (disabled:
 * NAPI_STATE_NPSVC set) when the channel went down.
 */
void am65_cpsw_nuss_txqs_run(struct am65_cpsw_common *common, u32 qid,
			     bool run)
{
	am65_test_log(common->rx_chns.rx_chn->log,
		      run ? "txqs-run " : "txqs-stop ");
}

void am65_cpsw_nuss_tx_chn_stop(struct am65_cpsw_common *common, u32 qid)
{
	bool napi_off = test_bit(NAPI_STATE_NPSVC,
				 &common->rx_chns.flows[0].napi_rx.state);

	am65_test_log(common->rx_chns.rx_chn->log,
		      napi_off ? "tx-stop(rx-napi-off) | " : "tx-stop | ");
}

void am65_cpsw_nuss_tx_chn_start(struct am65_cpsw_common *common, u32 qid)
{
	am65_test_log(common->rx_chns.rx_chn->log, "tx-start ");
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
	struct am65_cpsw_rx_flow *flow;
	struct k3_udma_glue_rx_channel rxc;
	struct page *pages[AM65_TEST_PAGES];	/* page mode's, posted */
	char log[AM65_TEST_LOG];
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

static void am65_test_destroy_rx_pool(void *data)
{
	struct am65_test *t = data;
	struct k3_cppi_desc_pool *pool = t->common.rx_chns.desc_pool;
	struct k3_udma_glue_rx_channel *rxc = &t->rxc;
	u32 i;

	/* the buffers of the descriptors still posted, then those */
	for (i = 0; i < rxc->pushed; i++) {
		struct am65_cpsw_swdata *swdata;
		dma_addr_t dma;
		u32 len;

		if (!am65_test_rx_posted(rxc, i))
			continue;
		swdata = cppi5_hdesc_get_swdata(rxc->ring[i]);
		if (t->flow->zrx.pool) {
			xsk_buff_free(swdata->xdp);
		} else {
			cppi5_hdesc_get_obuf(rxc->ring[i], &dma, &len);
			dma_unmap_single(t->nic->dma_dev, dma, len,
					 DMA_FROM_DEVICE);
			page_pool_put_full_page(t->flow->page_pool,
						swdata->page, false);
		}
		k3_cppi_desc_pool_free(pool, rxc->ring[i]);
	}
	if (t->flow->kept) {
		am65_cpsw_xsk_rx_free_kept(t->flow);
		kfree(t->flow->kept);
	}
	t->flow->zrx.pool = NULL;
	k3_cppi_desc_pool_destroy(pool);
	if (t->flow->page_pool)
		page_pool_destroy(t->flow->page_pool);
}

/* The CPSW with its channels and pools, no mode set up yet. The socket's
 * pool is bound to the fake NIC, in zero-copy there unless @copy: with
 * @copy, the fake NIC neither sets it up nor maps it, and the tests'
 * pool changes on the CPSW are the pool's one DMA user, as a pool has
 * one netdev queue.
 */
static int am65_test_init_base(struct kunit *test, bool copy)
{
	struct fake_xsk_cfg cfg = { .qid = 0, .copy = copy };
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
	/* released as a bound pool: without zero-copy, nothing to undo */
	if (copy)
		t->x->pool = t->x->copy_pool;

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
	/* one DMA device for both channels, as UDMA has */
	t->common.rx_chns.dma_dev = t->nic->dma_dev;
	t->tx_chn->dma_dev = t->nic->dma_dev;
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

	t->flow = &t->common.rx_chns.flows[0];
	t->common.rx_chns.rx_chn = &t->rxc;
	t->common.rx_chns.desc_pool =
		k3_cppi_desc_pool_create_name(t->nic->dma_dev, AM65_TEST_DESCS,
					      AM65_TEST_HDESC_SIZE, "am65-test-rx");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->common.rx_chns.desc_pool));
	t->rxc.pool = t->common.rx_chns.desc_pool;
	err = kunit_add_action_or_reset(test, am65_test_destroy_rx_pool, t);
	KUNIT_ASSERT_EQ(test, err, 0);
	return 0;
}

/* Port 1 owning queue 0 in zero-copy, set up as attached */
static int am65_test_init(struct kunit *test)
{
	struct am65_test *t;
	int err;

	err = am65_test_init_base(test, false);
	if (err)
		return err;
	t = test->priv;

	/* the driver's own setup of the rings, then the pool as attached */
	KUNIT_ASSERT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool), 0);
	t->tx_chn->ztx.pool = t->x->pool;
	t->flow->zrx.bufs = kunit_kcalloc(test, t->flow->zrx.count,
					  sizeof(*t->flow->zrx.bufs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->flow->zrx.bufs);
	t->flow->zrx.pool = t->x->pool;
	return 0;
}

/* The hardware's RX: completes the @i-th descriptor pushed with a frame
 * of @len bytes from port @port_id.
 */
static void am65_test_rx_done(struct am65_test *t, u32 i, u32 port_id, u32 len)
{
	struct cppi5_host_desc_t *desc = t->rxc.ring[i];

	cppi5_hdesc_set_pktlen(desc, len);
	cppi5_desc_set_tags_ids(&desc->hdr, port_id, 0);
	((u32 *)cppi5_hdesc_get_psdata(desc))[2] = 0;
	t->rxc.done[t->rxc.nr_done++] = i;
}

/* The buffer the @i-th descriptor pushed carries */
static struct xdp_buff *am65_test_rx_buf(struct am65_test *t, u32 i)
{
	return ((struct am65_cpsw_swdata *)cppi5_hdesc_get_swdata(t->rxc.ring[i]))->xdp;
}

/* The RX flow's NAPI poll, in softirq context as NAPI runs it */
static void am65_test_rx_napi(struct am65_test *t)
{
	local_bh_disable();
	am65_cpsw_xsk_rx_poll(t->flow, NAPI_POLL_WEIGHT);
	local_bh_enable();
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

/* The second port, a netdev of its own, up or not. */
static struct net_device *am65_test_second_port(struct kunit *test, bool up)
{
	struct am65_test *t = test->priv;
	struct am65_cpsw_ndev_priv *priv;
	struct net_device *ndev;

	ndev = alloc_etherdev(sizeof(*priv));
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, am65_test_free_netdev, ndev), 0);
	priv = netdev_priv(ndev);
	priv->port = &t->ports[1];
	t->ports[1].ndev = ndev;
	if (up)
		set_bit(__LINK_STATE_START, &ndev->state);	/* netif_running() */
	return ndev;
}

static void am65_test_second_port_down(void *ndev)
{
	clear_bit(__LINK_STATE_START, &((struct net_device *)ndev)->state);
}

/* All ports receive on the one RX flow, into the owner's fill ring
 * buffers: zero-copy only while the other ports are down, or one port's
 * socket would decide what the others receive and skip their programs.
 */
static void am65_prepare_refuses_while_another_port_is_up(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct net_device *other = am65_test_second_port(test, true);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, am65_test_second_port_down,
							other), 0);
	t->tx_chn->ztx.reserve = 0;
	KUNIT_EXPECT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool), -EBUSY);
	KUNIT_EXPECT_EQ(test, t->tx_chn->ztx.reserve, 0);
}

/* A frame tagged for another port, which is down, is dropped: it never
 * reaches a stack, nor the owner's program or socket.
 */
static void am65_rx_frame_of_another_port_is_dropped(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct xsk_zc_rx_stats st;

	am65_test_second_port(test, false);
	KUNIT_ASSERT_EQ(test, fake_fq_put(t->x, 4), 4);
	am65_cpsw_xsk_rx_start(t->flow);
	am65_test_rx_done(t, 0, 2, 60);
	am65_test_rx_napi(t);

	xsk_zc_rx_stats_read(&t->flow->zrx, &st);
	KUNIT_EXPECT_EQ(test, st.errors, 1);
	KUNIT_EXPECT_EQ(test, st.pass, 0);
	KUNIT_EXPECT_EQ(test, fake_rx_count(t->x), 0);
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

static void am65_test_root_unregister(void *dev)
{
	root_device_unregister(dev);
}

/* A DMA device of its own for the TX channel, as PKTDMA gives each
 * channel, able to reach @bits bits of address.
 */
static struct device *am65_test_tx_dma_dev(struct kunit *test, u32 bits)
{
	struct device *dev = kunit_device_register(test, "am65-test-tchan");

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits)),
			0);
	return dev;
}

/* The pool is mapped for the RX channel's DMA device, and the TX channel
 * sends from the same addresses: a TX device of its own that cannot
 * reach all of them (here, 32 bits of the RX device's 64) is refused.
 */
static void am65_prepare_refuses_a_tx_dma_device_that_maps_differently(struct kunit *test)
{
	struct am65_test *t = test->priv;

	t->tx_chn->dma_dev = am65_test_tx_dma_dev(test, 32);
	KUNIT_EXPECT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool),
			-EOPNOTSUPP);
}

/* A TX device that is not a channel of the RX device's DMA controller
 * (here, one with no parent at all) may translate the addresses its own
 * way, whatever its mask: it is refused.
 */
static void am65_prepare_refuses_a_tx_dma_device_of_another_controller(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct device *dev = root_device_register("am65-test-other-dma");

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, am65_test_root_unregister,
							dev), 0);
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64)),
			0);
	t->tx_chn->dma_dev = dev;
	KUNIT_EXPECT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool),
			-EOPNOTSUPP);
}

/* A TX device of its own that maps as the RX one does is taken. */
static void am65_prepare_takes_a_tx_dma_device_that_maps_alike(struct kunit *test)
{
	struct am65_test *t = test->priv;

	t->tx_chn->dma_dev = am65_test_tx_dma_dev(test, 64);
	KUNIT_EXPECT_EQ(test, am65_cpsw_xsk_prepare(t->ndev, 0, t->x->pool), 0);
}

/* Starting the flow posts every fill ring buffer on a descriptor of the
 * flow's pool: the whole frame, at the buffer's DMA address, and the
 * buffer in the descriptor's swdata.
 */
static void am65_rx_start_posts_each_fill_ring_buffer(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct k3_cppi_desc_pool *pool = t->common.rx_chns.desc_pool;
	u32 frame = xsk_pool_get_rx_frame_size(t->x->pool);
	u32 i;

	KUNIT_ASSERT_EQ(test, fake_fq_put(t->x, 4), 4);
	am65_cpsw_xsk_rx_start(t->flow);

	KUNIT_ASSERT_EQ(test, t->rxc.pushed, 4);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(pool), AM65_TEST_DESCS - 4);
	for (i = 0; i < 4; i++) {
		struct cppi5_host_desc_t *desc = t->rxc.ring[i];
		struct am65_cpsw_swdata *swdata = cppi5_hdesc_get_swdata(desc);
		dma_addr_t buf;
		u32 len;

		cppi5_hdesc_get_obuf(desc, &buf, &len);
		KUNIT_EXPECT_EQ(test, buf, xsk_buff_raw_get_dma(t->x->pool, i * 4096) +
				XDP_PACKET_HEADROOM);
		KUNIT_EXPECT_EQ(test, len, frame);
		KUNIT_EXPECT_EQ(test, swdata->flow_id, 0);
		KUNIT_EXPECT_EQ(test, xsk_buff_xdp_get_dma(swdata->xdp), buf);
	}
}

/* A frame tagged with no port of the CPSW is an error: its buffer and
 * its descriptor go back to their pools, and the refill posts that
 * buffer again, and the next fill ring buffer, on new descriptors.
 */
static void am65_rx_frame_of_no_port_is_dropped_and_refilled(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct k3_cppi_desc_pool *pool = t->common.rx_chns.desc_pool;
	struct xsk_zc_rx_stats st;
	struct xdp_buff *buf;

	KUNIT_ASSERT_EQ(test, fake_fq_put(t->x, 4), 4);
	am65_cpsw_xsk_rx_start(t->flow);
	KUNIT_ASSERT_EQ(test, fake_fq_put(t->x, 1), 1);

	buf = am65_test_rx_buf(t, 0);
	am65_test_rx_done(t, 0, AM65_TEST_PORTS + 1, 60);
	am65_test_rx_napi(t);

	xsk_zc_rx_stats_read(&t->flow->zrx, &st);
	KUNIT_EXPECT_EQ(test, st.errors, 1);
	KUNIT_EXPECT_EQ(test, st.packets, 0);
	KUNIT_EXPECT_EQ(test, fake_rx_count(t->x), 0);
	/* three still posted, two posted again */
	KUNIT_EXPECT_EQ(test, t->rxc.pushed, 6);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(pool), AM65_TEST_DESCS - 5);
	KUNIT_EXPECT_EQ(test, fake_fq_taken(t->x), 5);
	KUNIT_EXPECT_PTR_EQ(test, am65_test_rx_buf(t, 4), buf);
}

static struct kunit_case am65_glue_cases[] = {
	KUNIT_CASE(am65_rx_start_posts_each_fill_ring_buffer),
	KUNIT_CASE(am65_rx_frame_of_no_port_is_dropped_and_refilled),
	KUNIT_CASE(am65_tx_sends_every_frame_when_another_port_takes_descriptors),
	KUNIT_CASE(am65_tx_leaves_the_stack_reserve_in_the_pool),
	KUNIT_CASE(am65_tx_gives_back_the_descriptors_it_did_not_use),
	KUNIT_CASE(am65_prepare_refuses_frames_smaller_than_the_ports_take),
	KUNIT_CASE(am65_prepare_refuses_more_than_one_rx_flow),
	KUNIT_CASE(am65_prepare_refuses_while_another_port_is_up),
	KUNIT_CASE(am65_prepare_refuses_a_tx_dma_device_that_maps_differently),
	KUNIT_CASE(am65_prepare_refuses_a_tx_dma_device_of_another_controller),
	KUNIT_CASE(am65_prepare_takes_a_tx_dma_device_that_maps_alike),
	KUNIT_CASE(am65_rx_frame_of_another_port_is_dropped),
	{}
};

static struct kunit_suite am65_glue_suite = {
	.name = "xsk_zc_am65_cpsw_glue",
	.init = am65_test_init,
	.test_cases = am65_glue_cases,
};

/* The pacing timers: the queue change only cancels them */
static enum hrtimer_restart am65_test_hrtimer(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

static int am65_test_napi_poll(struct napi_struct *napi, int budget)
{
	napi_complete_done(napi, 0);
	return 0;
}

static void am65_test_napi_del(void *data)
{
	struct am65_test *t = data;

	napi_disable(&t->flow->napi_rx);
	napi_disable(&t->tx_chn->napi_tx);
	netif_napi_del(&t->flow->napi_rx);
	netif_napi_del(&t->tx_chn->napi_tx);
	am65_test_ale_log = NULL;
}

static void am65_test_zc_destroy(void *data)
{
	struct am65_test *t = data;
	struct xsk_zc_dev *zc = &am65_ndev_to_priv(t->ndev)->zc;

	rtnl_lock();
	if (xsk_zc_rx_pool(&t->flow->zrx))
		xsk_zc_pool_setup(zc, NULL, 0);
	rtnl_unlock();
	xsk_zc_dev_destroy(zc);
}

/* What am65-cpsw-nuss.c's open leaves in page mode, which this suite
 * does not build: a page pool, and AM65_TEST_PAGES of its pages posted,
 * mapped after the headroom. The driver's own keep and repost post them,
 * as they are posted again when zero-copy ends.
 */
static void am65_test_open_page_mode(struct kunit *test, struct am65_test *t)
{
	struct page_pool_params pp = {
		.pool_size = AM65_TEST_DESCS,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	u32 i;

	t->flow->page_pool = page_pool_create(&pp);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->flow->page_pool));
	t->flow->kept = kcalloc(AM65_CPSW_MAX_RX_DESC, sizeof(*t->flow->kept),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->flow->kept);
	for (i = 0; i < AM65_TEST_PAGES; i++) {
		t->pages[i] = page_pool_dev_alloc_pages(t->flow->page_pool);
		KUNIT_ASSERT_NOT_NULL(test, t->pages[i]);
		KUNIT_ASSERT_EQ(test, am65_cpsw_xsk_rx_keep_page(t->flow,
								 t->pages[i]), 0);
	}
	am65_cpsw_xsk_rx_repost(t->flow);
	KUNIT_ASSERT_EQ(test, t->rxc.pushed, AM65_TEST_PAGES);
}

/* Port 1 up in page mode, queue 0's NAPIs running, the library's state
 * set up by the driver's own init; four buffers on the fill ring.
 */
static int am65_queue_test_init(struct kunit *test)
{
	struct am65_test *t;
	int err;

	err = am65_test_init_base(test, true);
	if (err)
		return err;
	t = test->priv;

	t->rxc.log = t->log;
	am65_test_ale_log = t->log;
	/* present, as register_netdev() leaves it: the library asks */
	set_bit(__LINK_STATE_PRESENT, &t->ndev->state);
	init_completion(&t->common.tdown_complete);
	hrtimer_setup(&t->flow->rx_hrtimer, am65_test_hrtimer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	hrtimer_setup(&t->tx_chn->tx_hrtimer, am65_test_hrtimer,
		      CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	am65_test_open_page_mode(test, t);

	netif_napi_add(t->ndev, &t->flow->napi_rx, am65_test_napi_poll);
	netif_napi_add(t->ndev, &t->tx_chn->napi_tx, am65_test_napi_poll);
	napi_enable(&t->flow->napi_rx);
	napi_enable(&t->tx_chn->napi_tx);
	err = kunit_add_action_or_reset(test, am65_test_napi_del, t);
	KUNIT_ASSERT_EQ(test, err, 0);

	KUNIT_ASSERT_EQ(test, am65_cpsw_xsk_init(&t->ports[0]), 0);
	err = kunit_add_action_or_reset(test, am65_test_zc_destroy, t);
	KUNIT_ASSERT_EQ(test, err, 0);

	KUNIT_ASSERT_EQ(test, fake_fq_put(t->x, 4), 4);
	return 0;
}

/* The library's pool change, as ndo_bpf(XDP_SETUP_XSK_POOL) runs it */
static int am65_test_pool_setup(struct am65_test *t, struct xsk_buff_pool *pool)
{
	int err;

	rtnl_lock();
	err = xsk_zc_pool_setup(&am65_ndev_to_priv(t->ndev)->zc, pool, 0);
	rtnl_unlock();
	return err;
}

/* How many descriptors on the RX ring carry one of page mode's pages */
static u32 am65_test_pages_posted(struct am65_test *t)
{
	u32 i, k, n = 0;

	for (i = 0; i < t->rxc.pushed; i++) {
		struct am65_cpsw_swdata *swdata =
			cppi5_hdesc_get_swdata(t->rxc.ring[i]);

		for (k = 0; k < AM65_TEST_PAGES; k++)
			n += swdata->page == t->pages[k];
	}
	return n;
}

/* Attaching takes page mode's pages off the ring, and posts the fill
 * ring's buffers in their place.
 */
static void am65_zero_copy_takes_the_pages_off_the_ring(struct kunit *test)
{
	struct am65_test *t = test->priv;

	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, t->x->pool), 0);
	KUNIT_EXPECT_EQ(test, am65_test_pages_posted(t), 0);
	KUNIT_EXPECT_EQ(test, t->rxc.pushed, 4);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(t->rxc.pool),
			AM65_TEST_DESCS - 4);
	KUNIT_EXPECT_EQ(test, fake_fq_taken(t->x), 4);
}

/* Leaving zero-copy posts the very pages page mode had before, so it
 * needs no memory: it cannot fail, and must not, with the queue stopped.
 */
static void am65_leaving_zero_copy_reposts_the_same_pages(struct kunit *test)
{
	struct am65_test *t = test->priv;

	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, t->x->pool), 0);
	KUNIT_ASSERT_EQ(test, fake_fq_taken(t->x), 4);	/* zero-copy ran */
	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, NULL), 0);
	KUNIT_EXPECT_EQ(test, t->rxc.pushed, AM65_TEST_PAGES);
	KUNIT_EXPECT_EQ(test, am65_test_pages_posted(t), AM65_TEST_PAGES);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(t->rxc.pool),
			AM65_TEST_DESCS - AM65_TEST_PAGES);
}

/* The stop turns the host port off and stops every sender, the stack's
 * queues and XDP, then the RX flow, whose NAPI sends XDP_TX frames, and
 * only then the TX channel.
 */
static void am65_pool_change_stops_rx_and_xdp_before_the_tx_channel(struct kunit *test)
{
	struct am65_test *t = test->priv;
	char *start;

	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, t->x->pool), 0);
	start = strstr(t->log, "| ");
	KUNIT_ASSERT_NOT_NULL_MSG(test, start, "log: %s", t->log);
	start[2] = '\0';
	KUNIT_EXPECT_STREQ(test, t->log,
			   "host-port-off txqs-stop rx-tdown rx-disable tx-stop(rx-napi-off) | ");
}

/* The restart undoes the stop in reverse: the host port comes on last,
 * once the channels and the senders run again.
 */
static void am65_pool_change_turns_the_host_port_on_last(struct kunit *test)
{
	struct am65_test *t = test->priv;
	char *start;

	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, t->x->pool), 0);
	start = strstr(t->log, "| ");
	KUNIT_ASSERT_NOT_NULL_MSG(test, start, "log: %s", t->log);
	KUNIT_EXPECT_STREQ(test, start + 2,
			   "tx-start rx-enable txqs-run host-port-on");
}

/* XDP_TX on a zero-copy queue sends the frame, as page mode on the same
 * netdev does: the XSK buffer itself goes on the queue's TX channel, at
 * the DMA address of its data, tagged for the port, and the library
 * counts it sent, not dropped.
 */
static void am65_xdp_tx_on_a_zero_copy_queue_sends_the_frame(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct cppi5_host_desc_t *desc;
	struct xsk_zc_rx_stats st;
	struct xdp_buff *buf;
	u32 port_id, len;
	dma_addr_t dma;

	t->ports[0].xdp_prog = fake_prog_create(test, XDP_TX);
	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, t->x->pool), 0);
	KUNIT_ASSERT_EQ(test, t->rxc.pushed, 4);

	buf = am65_test_rx_buf(t, 0);
	am65_test_rx_done(t, 0, t->ports[0].port_id, 60);
	am65_test_rx_napi(t);

	xsk_zc_rx_stats_read(&t->flow->zrx, &st);
	KUNIT_EXPECT_EQ(test, st.xdp_tx, 1);
	KUNIT_EXPECT_EQ(test, st.drop, 0);
	KUNIT_ASSERT_EQ(test, t->chn.pushed, 1);

	desc = t->chn.ring[0];
	cppi5_hdesc_get_obuf(desc, &dma, &len);
	KUNIT_EXPECT_EQ(test, dma, xsk_buff_xdp_get_dma(buf));
	KUNIT_EXPECT_EQ(test, len, 60);
	KUNIT_EXPECT_EQ(test, cppi5_hdesc_get_pktlen(desc), 60);
	cppi5_desc_get_tags_ids(&desc->hdr, NULL, &port_id);
	KUNIT_EXPECT_EQ(test, port_id, t->ports[0].port_id);
	/* on the wire, not back in the pool: the refill had none to post */
	KUNIT_EXPECT_EQ(test, t->rxc.pushed, 4);
	KUNIT_EXPECT_EQ(test, t->tx_chn->xsk_done, 0);
}

/* The buffer XDP_TX sent comes back once the TX channel completed it:
 * the TX cleanup (am65-cpsw-nuss.c's, for a descriptor of the XSK type)
 * leaves it for the RX NAPI, the only one that may free into the pool,
 * whose next poll posts it again. It is no socket frame: nothing goes to
 * the completion ring.
 */
static void am65_xdp_tx_buffer_comes_back_once_sent(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct xdp_buff *buf;

	t->ports[0].xdp_prog = fake_prog_create(test, XDP_TX);
	KUNIT_ASSERT_EQ(test, am65_test_pool_setup(t, t->x->pool), 0);
	buf = am65_test_rx_buf(t, 0);
	am65_test_rx_done(t, 0, t->ports[0].port_id, 60);
	am65_test_rx_napi(t);
	KUNIT_ASSERT_EQ(test, t->chn.pushed, 1);

	/* the channel completed it: what the TX NAPI pops goes here */
	local_bh_disable();
	am65_cpsw_xsk_tx_cleanup(t->tx_chn, t->chn.ring[--t->chn.pushed]);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, t->tx_chn->xsk_done, 0);
	KUNIT_EXPECT_EQ(test, k3_cppi_desc_pool_avail(t->tx_chn->desc_pool),
			AM65_TEST_DESCS);

	am65_test_rx_napi(t);
	KUNIT_ASSERT_EQ(test, t->rxc.pushed, 5);
	KUNIT_EXPECT_PTR_EQ(test, am65_test_rx_buf(t, 4), buf);
	KUNIT_EXPECT_EQ(test, fake_fq_taken(t->x), 4);
	KUNIT_EXPECT_EQ(test, fake_cq_take(t->x), 0);
}

/* A pool change that fails after the driver's prepare, at the DMA map,
 * the library's last step that can fail, leaves the queue as it was:
 * the shared flow and TX channel keep the description page mode and
 * the other ports run on, and nothing was stopped.
 */
static void am65_failed_dma_map_leaves_the_queue_untouched(struct kunit *test)
{
	struct am65_test *t = test->priv;
	struct fake_xsk *y = fake_xsk_create_sized(test, 4096, FAKE_XSK_RING);
	struct fake_xsk_cfg cfg = { .qid = 1, .copy = true };
	struct device *dma_dev = t->nic->dma_dev;
	struct xsk_zc_rx_ring *zrx = &t->flow->zrx;
	struct xsk_zc_tx_ring *ztx = &t->tx_chn->ztx;
	struct xsk_zc_rx_ring zrx_before;
	struct xsk_zc_tx_ring ztx_before;

	/* a pool no device has mapped yet (t->x's is the fake NIC's) */
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(y, t->nic, &cfg), 0);
	t->tx_chn->xsk_done = 3;	/* what the last pool left */
	memcpy(&zrx_before, zrx, sizeof(zrx_before));
	memcpy(&ztx_before, ztx, sizeof(ztx_before));

	/* a device that can reach no memory: every mapping fails */
	dma_dev->dma_mask = NULL;
	KUNIT_EXPECT_EQ(test, am65_test_pool_setup(t, y->copy_pool), -ENOMEM);
	dma_dev->dma_mask = &dma_dev->coherent_dma_mask;

	KUNIT_EXPECT_PTR_EQ(test, zrx->netdev, zrx_before.netdev);
	KUNIT_EXPECT_PTR_EQ(test, zrx->xdp_rxq, zrx_before.xdp_rxq);
	KUNIT_EXPECT_EQ(test, zrx->gap, zrx_before.gap);
	KUNIT_EXPECT_EQ(test, zrx->count, zrx_before.count);
	KUNIT_EXPECT_PTR_EQ(test, ztx->netdev, ztx_before.netdev);
	KUNIT_EXPECT_PTR_EQ(test, ztx->txq, ztx_before.txq);
	KUNIT_EXPECT_EQ(test, ztx->reserve, ztx_before.reserve);
	KUNIT_EXPECT_EQ(test, t->tx_chn->xsk_done, 3);
	KUNIT_EXPECT_MEMEQ(test, zrx, &zrx_before, sizeof(zrx_before));
	KUNIT_EXPECT_MEMEQ(test, ztx, &ztx_before, sizeof(ztx_before));
	/* page mode runs on: nothing stopped, its pages still posted */
	KUNIT_EXPECT_STREQ(test, t->log, "");
	KUNIT_EXPECT_EQ(test, am65_test_pages_posted(t), AM65_TEST_PAGES);
	t->tx_chn->xsk_done = 0;
}

static struct kunit_case am65_queue_cases[] = {
	KUNIT_CASE(am65_zero_copy_takes_the_pages_off_the_ring),
	KUNIT_CASE(am65_leaving_zero_copy_reposts_the_same_pages),
	KUNIT_CASE(am65_pool_change_stops_rx_and_xdp_before_the_tx_channel),
	KUNIT_CASE(am65_pool_change_turns_the_host_port_on_last),
	KUNIT_CASE(am65_xdp_tx_on_a_zero_copy_queue_sends_the_frame),
	KUNIT_CASE(am65_xdp_tx_buffer_comes_back_once_sent),
	KUNIT_CASE(am65_failed_dma_map_leaves_the_queue_untouched),
	{}
};

static struct kunit_suite am65_queue_suite = {
	.name = "xsk_zc_am65_cpsw_queue_change",
	.init = am65_queue_test_init,
	.test_cases = am65_queue_cases,
};

kunit_test_suites(&am65_glue_suite, &am65_queue_suite);
