// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: XSK pool setup and teardown, wakeup, MTU and the features guard,
 * through real AF_XDP sockets bound to the fake NIC.
 */

#include <kunit/test.h>
#include <linux/irq.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>
#include <net/busy_poll.h>
#include <net/xsk_buff_pool.h>

#include "fixture.h"

static const struct fake_xsk_cfg zc_q1 = { .qid = 1, .need_wakeup = true };

/* @nic up, and a socket with 32 frames on its fill ring. */
static struct fake_xsk *socket_on_up_nic(struct kunit *test,
					 struct fake_nic *nic)
{
	struct fake_xsk *x;

	fake_nic_set_up(test, nic, true);
	x = fake_xsk_create(test);
	fake_fq_put(x, 32);
	return x;
}

static struct fake_xsk *up_nic_and_socket(struct kunit *test,
					  struct fake_nic **nic)
{
	*nic = fake_nic_create(test, &fake_ops);
	return socket_on_up_nic(test, *nic);
}

static void zc_bind_marks_only_that_queue_zero_copy(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_TRUE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 0));
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 2));
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_rx_pool(&nic->q[1].zrx), x->pool);
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_tx_pool(&nic->q[1].ztx), x->pool);
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_pool(&nic->q[0].zrx));
}

static void zc_bind_maps_the_umem_for_dma(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_NOT_NULL(test, x->pool->dma_pages);
	KUNIT_EXPECT_PTR_EQ(test, x->pool->dev, nic->dma_dev);
}

static void zc_bind_on_running_netdev_restarts_only_that_queue(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops, 1);
	KUNIT_EXPECT_EQ(test, nic->q[1].starts, 1);
	KUNIT_EXPECT_EQ(test, nic->q[0].stops + nic->q[2].stops, 0);
	KUNIT_EXPECT_EQ(test, nic->prepares, 1);
}

static void zc_bind_on_running_netdev_fills_ring_and_kicks_napi(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(&nic->q[1]),
			FAKE_RING - XSK_ZC_RX_RING_GAP);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_tail, FAKE_RING - XSK_ZC_RX_RING_GAP);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, 1);
}

static void zc_bind_on_stopped_netdev_leaves_the_queue_alone(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct fake_xsk *x = fake_xsk_create(test);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops + nic->q[1].starts, 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, 0);
	KUNIT_EXPECT_TRUE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
}

static void zc_queue_is_filled_when_the_netdev_comes_up(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct fake_xsk *x = fake_xsk_create(test);

	fake_fq_put(x, 32);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	fake_nic_set_up(test, nic, true);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(&nic->q[1]),
			FAKE_RING - XSK_ZC_RX_RING_GAP);
}

static void ifdown_ifup_with_bound_socket_keeps_zero_copy(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	fake_nic_set_up(test, nic, false);
	KUNIT_EXPECT_EQ(test, x->pool->free_list_cnt,
			FAKE_RING - XSK_ZC_RX_RING_GAP);
	fake_nic_set_up(test, nic, true);
	KUNIT_EXPECT_TRUE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_EQ(test, fake_rx_posted(&nic->q[1]),
			FAKE_RING - XSK_ZC_RX_RING_GAP);
	KUNIT_EXPECT_EQ(test, x->pool->free_list_cnt, 0);
}

/* Calls the library directly, as ndo_bpf would, with a pool the core
 * made for a copy-mode socket on another queue.
 */
static int direct_setup(struct fake_nic *nic, struct xsk_buff_pool *pool,
			u32 qid)
{
	int err;

	rtnl_lock();
	err = xsk_zc_pool_setup(&nic->zc, pool, qid);
	rtnl_unlock();
	return err;
}

static struct xsk_buff_pool *copy_mode_pool(struct kunit *test,
					    struct fake_nic *nic, u32 qid)
{
	struct fake_xsk_cfg cfg = { .qid = qid, .copy = true };
	struct fake_xsk *x = fake_xsk_create(test);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &cfg), 0);
	return x->copy_pool;
}

static void nothing_changed(struct kunit *test, struct fake_nic *nic, u32 qid,
			    struct xsk_buff_pool *pool)
{
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, qid));
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_pool(&nic->q[qid].zrx));
	KUNIT_EXPECT_NULL(test, xsk_zc_tx_pool(&nic->q[qid].ztx));
	KUNIT_EXPECT_NULL(test, nic->q[qid].zrx.bufs);
	KUNIT_EXPECT_EQ(test, nic->q[qid].stops, 0);
	KUNIT_EXPECT_EQ(test, nic->q[qid].starts, 0);
	if (pool)
		KUNIT_EXPECT_NULL(test, pool->dma_pages);
}

static void setup_beyond_real_queues_fails_with_einval(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct xsk_buff_pool *pool;

	fake_nic_set_up(test, nic, true);
	pool = copy_mode_pool(test, nic, 0);
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, netif_set_real_num_rx_queues(nic->netdev, 2), 0);
	rtnl_unlock();

	KUNIT_EXPECT_EQ(test, direct_setup(nic, pool, 3), -EINVAL);
	nothing_changed(test, nic, 3, pool);
	KUNIT_EXPECT_EQ(test, direct_setup(nic, pool, FAKE_QUEUES), -EINVAL);
}

static void setup_with_frame_too_small_for_mtu_fails_with_einval(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct xsk_buff_pool *pool;

	fake_nic_set_up(test, nic, true);
	pool = copy_mode_pool(test, nic, 0);
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_mtu(nic->netdev, 3000), 0);
	rtnl_unlock();

	KUNIT_EXPECT_EQ(test, direct_setup(nic, pool, 1), -EINVAL);
	nothing_changed(test, nic, 1, pool);
}

static void zc_bind_with_frame_too_small_for_mtu_fails(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_mtu(nic->netdev, 3000), 0);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), -EINVAL);
	nothing_changed(test, nic, 1, NULL);
}

static void setup_on_zero_copy_queue_fails_with_ebusy(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct xsk_buff_pool *other;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	other = copy_mode_pool(test, nic, 0);
	KUNIT_EXPECT_EQ(test, direct_setup(nic, other, 1), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_rx_pool(&nic->q[1].zrx), x->pool);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops, 1);
}

/* Two switch ports whose queues are the rings of one NIC */
static struct fake_nic *ring_owner;

/* A port's queue is the owner's: its rings and NAPI instances */
static void owner_queue(struct net_device *dev, u32 qid,
			struct xsk_zc_queue_info *qi)
{
	fake_ops.queue(ring_owner->netdev, qid, qi);
}

static struct xsk_zc_ops port_ops;

static void setup_on_a_ring_another_netdev_holds_fails_with_ebusy(struct kunit *test)
{
	struct fake_nic *port;
	struct fake_xsk *x = up_nic_and_socket(test, &ring_owner);

	port_ops = fake_ops;
	port_ops.queue = owner_queue;
	port = fake_nic_create(test, &port_ops);
	fake_nic_set_up(test, port, true);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, ring_owner, &zc_q1), 0);

	KUNIT_EXPECT_EQ(test, direct_setup(port, copy_mode_pool(test, port, 0),
					   1), -EBUSY);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&port->zc, 1));
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_rx_pool(&ring_owner->q[1].zrx), x->pool);
	KUNIT_EXPECT_EQ(test, port->prepares + port->q[1].stops, 0);
}

/* igb frees its rings on suspend and allocates new ones on resume (and
 * on its MSI fallback), while the pools stay bound.
 */
static void reattach_gives_new_rings_their_pool_and_buffers_back(struct kunit *test)
{
	struct xdp_rxq_info old_rxq = {};
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct fake_queue *q = &nic->q[1];
	struct xdp_buff **bufs;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	bufs = q->zrx.bufs;
	fake_nic_set_up(test, nic, false);
	xsk_pool_set_rxq_info(x->pool, &old_rxq);	/* the freed ring's */
	fake_nic_new_rings(nic);
	KUNIT_ASSERT_NULL(test, xsk_zc_rx_pool(&q->zrx));

	xsk_zc_rings_reattach(&nic->zc);
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_rx_pool(&q->zrx), x->pool);
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_tx_pool(&q->ztx), x->pool);
	KUNIT_EXPECT_PTR_EQ(test, q->zrx.bufs, bufs);
	KUNIT_EXPECT_PTR_EQ(test, x->pool->heads[0].xdp.rxq, &q->xdp_rxq);
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_pool(&nic->q[0].zrx));

	fake_nic_set_up(test, nic, true);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(q), FAKE_RING - XSK_ZC_RX_RING_GAP);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_pool(&q->zrx));
}

/* XDP_TX buffers another NAPI completes schedule the ring's own NAPI
 * (xsk_zc_tx_xdp_done()): a new ring must know it as the old one did.
 */
static void reattach_tells_new_rings_the_napi_that_polls_them(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct fake_queue *q = &nic->q[1];

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_ASSERT_PTR_EQ(test, q->zrx.napi, &q->rx_napi);
	fake_nic_set_up(test, nic, false);
	fake_nic_new_rings(nic);
	xsk_zc_rings_reattach(&nic->zc);
	KUNIT_EXPECT_PTR_EQ(test, q->zrx.napi, &q->rx_napi);
	KUNIT_EXPECT_PTR_EQ(test, q->zrx.tx_napi, &q->tx_napi);
}

static void reattach_leaves_rings_that_kept_their_pool_alone(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct fake_queue *q = &nic->q[1];
	u32 posted;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	posted = fake_rx_posted(q);
	KUNIT_ASSERT_GT(test, posted, 0);
	xsk_zc_rings_reattach(&nic->zc);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(q), posted);
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_rx_pool(&q->zrx), x->pool);
}

/* A reset that shrank the queues (igb's SR-IOV reinit) or a suspend
 * freed the rings: the driver returned their buffers, its ops find none.
 */
static void free_the_rings(struct fake_nic *nic)
{
	int i;

	for (i = 0; i < FAKE_QUEUES; i++) {
		xsk_zc_rx_ring_clean(&nic->q[i].zrx);
		xsk_zc_tx_complete(&nic->q[i].ztx, nic->q[i].ztx.in_flight);
	}
	nic->rings_gone = true;
}

static void setup_on_a_queue_without_rings_fails_with_enetdown(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct xsk_buff_pool *pool;

	fake_nic_set_up(test, nic, true);
	pool = copy_mode_pool(test, nic, 0);
	nic->rings_gone = true;
	KUNIT_EXPECT_EQ(test, direct_setup(nic, pool, 1), -ENETDOWN);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_EQ(test, nic->calls_without_rings, 0);
	KUNIT_EXPECT_NULL(test, pool->dma_pages);
}

static void teardown_of_a_queue_without_rings_only_clears_the_pool(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	free_the_rings(nic);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, nic->calls_without_rings, 0);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_EQ(test, x->pool->free_list_cnt,
			FAKE_RING - XSK_ZC_RX_RING_GAP);
	KUNIT_EXPECT_NULL(test, x->pool->dma_pages);
	/* the driver's new rings, for the fixture to close */
	nic->rings_gone = false;
	fake_nic_new_rings(nic);
}

static void reattach_leaves_a_queue_without_rings_bound(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	free_the_rings(nic);
	xsk_zc_rings_reattach(&nic->zc);
	KUNIT_EXPECT_TRUE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	nic->rings_gone = false;
	fake_xsk_unbind(x);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
}

static void wakeup_on_a_queue_without_rings_fails_with_enetdown(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	free_the_rings(nic);
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX |
					    XDP_WAKEUP_TX), -ENETDOWN);
	nic->rings_gone = false;
}

static void wakeup_on_a_detached_netdev_fails_with_enetdown(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	u32 polls;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	polls = nic->q[1].rx_napi_polls;
	netif_device_detach(nic->netdev);	/* suspended, or being reset */
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX),
			-ENETDOWN);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, polls);
	netif_device_attach(nic->netdev);
}

/* A port whose shared DMA channels no port runs, or igb after a failed
 * open: NAPI is off, a poll scheduled now would never run.
 */
static void wakeup_on_a_queue_whose_dma_is_stopped_fails_with_enetdown(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	u32 polls;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	polls = nic->q[1].rx_napi_polls;
	nic->dma_stopped = true;
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX |
					    XDP_WAKEUP_TX), -ENETDOWN);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, polls);
	nic->dma_stopped = false;
}

static void setup_on_a_detached_netdev_leaves_its_queues_alone(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	netif_device_detach(nic->netdev);
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops + nic->q[1].starts, 0);
	netif_device_attach(nic->netdev);
}

/* The same with a NIC that has runtime PM. */
static struct fake_xsk *up_pm_nic_and_socket(struct kunit *test,
					     struct fake_nic **nic)
{
	*nic = fake_nic_create_pm(test);
	return socket_on_up_nic(test, *nic);
}

static void teardown_on_a_runtime_suspended_netdev_resumes_it_first(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_pm_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	/* no link for 5 s: igb's runtime suspend frees the rings */
	KUNIT_ASSERT_EQ(test, pm_runtime_suspend(nic->dma_dev), 0);
	KUNIT_ASSERT_TRUE(test, nic->rings_gone);
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_TX),
			-ENETDOWN);

	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, nic->runtime_resumes, 1);
	KUNIT_EXPECT_EQ(test, nic->calls_without_rings, 0);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_pool(&nic->q[1].zrx));
	KUNIT_EXPECT_EQ(test, x->pool->free_list_cnt,
			FAKE_RING - XSK_ZC_RX_RING_GAP);
}

static void setup_on_a_runtime_suspended_netdev_resumes_it_first(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_pm_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, pm_runtime_suspend(nic->dma_dev), 0);
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, nic->runtime_resumes, 1);
	KUNIT_EXPECT_EQ(test, nic->calls_without_rings, 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(&nic->q[1]),
			FAKE_RING - XSK_ZC_RX_RING_GAP);
}

static void failed_prepare_leaves_the_queue_untouched(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	nic->prepare_err = -ENOMEM;
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, nic->prepares, 1);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_EQ(test, nic->q[1].stops + nic->q[1].starts, 0);
	KUNIT_EXPECT_TRUE(test, netif_running(nic->netdev));
}

static void failed_dma_map_leaves_the_queue_untouched(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	/* A device that can reach no memory: every mapping fails. */
	nic->dma_dev->dma_mask = NULL;
	KUNIT_EXPECT_NE(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	nic->dma_dev->dma_mask = &nic->dma_dev->coherent_dma_mask;
	/* the driver's prepare, which may describe the rings, comes last */
	KUNIT_EXPECT_EQ(test, nic->prepares, 0);
	nothing_changed(test, nic, 1, NULL);
}

static void failed_setup_can_be_retried(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct fake_xsk *y = fake_xsk_create(test);

	nic->prepare_err = -ENOMEM;
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), -ENOMEM);
	nic->prepare_err = 0;
	fake_fq_put(y, 32);
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(y, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(&nic->q[1]),
			FAKE_RING - XSK_ZC_RX_RING_GAP);
}

static void teardown_restarts_the_queue_once(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops, 2);
	KUNIT_EXPECT_EQ(test, nic->q[1].starts, 2);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_pool(&nic->q[1].zrx));
	KUNIT_EXPECT_NULL(test, xsk_zc_tx_pool(&nic->q[1].ztx));
	KUNIT_EXPECT_NULL(test, nic->q[1].zrx.bufs);
}

static void teardown_returns_every_posted_buffer(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_ASSERT_EQ(test, x->pool->free_list_cnt, 0);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, x->pool->free_list_cnt,
			FAKE_RING - XSK_ZC_RX_RING_GAP);
	KUNIT_EXPECT_NULL(test, x->pool->dma_pages);
}

static void teardown_completes_tx_frames_in_flight(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	fake_tx_put(x, 5, 64);
	fake_poll_tx(&nic->q[1], 64);
	KUNIT_ASSERT_EQ(test, nic->q[1].ztx.in_flight, 5);
	KUNIT_ASSERT_EQ(test, fake_cq_take(x), 0);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, fake_cq_take(x), 5);
	KUNIT_EXPECT_EQ(test, nic->q[1].ztx.in_flight, 0);
}

static void teardown_of_queue_without_pool_fails_with_einval(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);

	KUNIT_EXPECT_EQ(test, direct_setup(nic, NULL, 2), -EINVAL);
	nothing_changed(test, nic, 2, NULL);
}

static void rebind_after_teardown_succeeds(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct fake_xsk *y = fake_xsk_create(test);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	fake_xsk_release(x);
	fake_fq_put(y, 32);
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(y, nic, &zc_q1), 0);
	KUNIT_EXPECT_PTR_EQ(test, xsk_zc_rx_pool(&nic->q[1].zrx), y->pool);
}

static void unregistering_the_netdev_tears_down_bound_queues(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	rtnl_lock();
	unregister_netdevice_queue(nic->netdev, NULL);
	/* unregister_netdevice() calls the xsk notifier; check before the
	 * fixture's own unregister, which would find nothing left.
	 */
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, x->pool->free_list_cnt,
			FAKE_RING - XSK_ZC_RX_RING_GAP);
	x->pool = NULL;
	nic->unregistered = true;
}

static void mtu_beyond_the_pool_frame_is_rejected(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	int err;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	rtnl_lock();
	err = dev_set_mtu(nic->netdev, 2000);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_EQ(test, nic->netdev->mtu, ETH_DATA_LEN);
}

static void mtu_within_the_pool_frame_is_accepted(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	int err;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	rtnl_lock();
	err = dev_set_mtu(nic->netdev, 1700);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, nic->netdev->mtu, 1700);
}

static const struct fake_xsk_cfg sg_q1 = {
	.qid = 1, .need_wakeup = true, .sg = true,
};

static void max_segs_of_the_ops_is_what_the_netdev_announces(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);

	KUNIT_EXPECT_EQ(test, nic->netdev->xdp_zc_max_segs, FAKE_MAX_SEGS);
}

static void an_sg_pool_takes_an_mtu_longer_than_one_buffer(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &sg_q1), 0);
	/* 2 KB chunks: no frame of MTU 4000 fits one buffer */
	KUNIT_EXPECT_EQ(test, xsk_zc_check_mtu(&nic->zc, 4000), 0);
}

static void an_sg_pool_refuses_an_mtu_beyond_its_most_buffers(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	u32 most;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &sg_q1), 0);
	most = xsk_pool_get_rx_frame_size(x->pool) * FAKE_MAX_SEGS;
	KUNIT_EXPECT_EQ(test, xsk_zc_check_mtu(&nic->zc, most -
					       fake_ops.frame_overhead), 0);
	KUNIT_EXPECT_EQ(test, xsk_zc_check_mtu(&nic->zc, most -
					       fake_ops.frame_overhead + 1),
			-EINVAL);
}

static void an_sg_ring_gives_its_rxq_the_frame_step(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &sg_q1), 0);
	/* bpf_xdp_adjust_tail() grows a fragment up to the next chunk */
	KUNIT_EXPECT_EQ(test, nic->q[1].xdp_rxq.frag_size, FAKE_FRAME);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, nic->q[1].xdp_rxq.frag_size, 0);
}

static void a_single_buffer_ring_gives_its_rxq_no_frame_step(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].xdp_rxq.frag_size, 0);
}

/* A copy of the fake driver's ops for one case to change; KUnit frees it
 * after the NIC that uses it.
 */
static struct xsk_zc_ops *ops_copy(struct kunit *test)
{
	struct xsk_zc_ops *ops = kunit_kmalloc(test, sizeof(*ops), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ops);
	*ops = fake_ops;
	return ops;
}

static void a_driver_without_max_segs_gets_no_sg_pool(struct kunit *test)
{
	struct xsk_zc_ops *ops = ops_copy(test);
	struct fake_nic *nic;
	struct fake_xsk *x;

	ops->max_segs = 0;	/* descriptors that do not chain */
	nic = fake_nic_create(test, ops);
	x = socket_on_up_nic(test, nic);
	KUNIT_EXPECT_EQ(test, nic->netdev->xdp_zc_max_segs, 1);
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &sg_q1), -EOPNOTSUPP);
	KUNIT_EXPECT_FALSE(test, xsk_zc_queue_is_zc(&nic->zc, 1));
}

/* A NIC running @ops that is up, and a socket. */
static struct fake_xsk *up_nic_with(struct kunit *test,
				    const struct xsk_zc_ops *ops,
				    struct fake_nic **nic)
{
	*nic = fake_nic_create(test, ops);
	fake_nic_set_up(test, *nic, true);
	return fake_xsk_create(test);
}

static u32 coarse_rx_buf_len(struct net_device *dev, struct xsk_buff_pool *pool,
			     unsigned int mtu)
{
	return 1536;	/* a NIC that can only use 1536 of the 1792 bytes */
}

static void setup_checks_the_driver_rx_buffer_length(struct kunit *test)
{
	struct xsk_zc_ops *coarse = ops_copy(test);
	struct fake_nic *nic;
	struct fake_xsk *x;

	coarse->rx_buf_len = coarse_rx_buf_len;
	x = up_nic_with(test, coarse, &nic);
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, dev_set_mtu(nic->netdev, 1600), 0);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), -EINVAL);
	nothing_changed(test, nic, 1, NULL);
}

static void mtu_check_uses_the_driver_rx_buffer_length(struct kunit *test)
{
	struct xsk_zc_ops *coarse = ops_copy(test);
	struct fake_nic *nic;
	struct fake_xsk *x;
	int err;

	coarse->rx_buf_len = coarse_rx_buf_len;
	x = up_nic_with(test, coarse, &nic);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	rtnl_lock();
	/* 1600 + 22 fits the 1792-byte frame but not a 1536-byte buffer. */
	err = dev_set_mtu(nic->netdev, 1600);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_EQ(test, nic->netdev->mtu, ETH_DATA_LEN);
}

static void any_zc_is_true_only_while_a_queue_is_bound(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	KUNIT_EXPECT_FALSE(test, xsk_zc_any_zc(&nic->zc));
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_TRUE(test, xsk_zc_any_zc(&nic->zc));
	fake_xsk_unbind(x);
	KUNIT_EXPECT_FALSE(test, xsk_zc_any_zc(&nic->zc));
}

static void setup_leaves_a_queue_whose_dma_is_stopped_alone(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);

	nic->dma_stopped = true;
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops + nic->q[1].starts, 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, 0);
	fake_xsk_unbind(x);
	KUNIT_EXPECT_EQ(test, nic->q[1].stops + nic->q[1].starts, 0);
}

static void dev_init_rejects_incomplete_ops(struct kunit *test)
{
	struct xsk_zc_ops ops = fake_ops;
	struct xsk_zc_dev zc = {};

	ops.queue_stop = NULL;
	KUNIT_EXPECT_EQ(test, xsk_zc_dev_init(&zc, NULL, NULL, &ops, 4), -EINVAL);
	ops = fake_ops;
	ops.queue = NULL;
	KUNIT_EXPECT_EQ(test, xsk_zc_dev_init(&zc, NULL, NULL, &ops, 4), -EINVAL);
	ops = fake_ops;
	KUNIT_EXPECT_EQ(test, xsk_zc_dev_init(&zc, NULL, NULL, &ops, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, zc.queues);
	/* A probe error path destroys what failed to init. */
	xsk_zc_dev_destroy(&zc);
	KUNIT_EXPECT_NULL(test, zc.queues);
}

static void wakeup_on_down_netdev_fails_with_enetdown(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);

	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 0, XDP_WAKEUP_RX),
			-ENETDOWN);
}

static void wakeup_beyond_the_queues_fails_with_einval(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);

	fake_nic_set_up(test, nic, true);
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, FAKE_QUEUES,
					    XDP_WAKEUP_RX), -EINVAL);
}

static void wakeup_on_queue_without_pool_fails_with_enxio(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);

	fake_nic_set_up(test, nic, true);
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 2, XDP_WAKEUP_RX), -ENXIO);
	KUNIT_EXPECT_EQ(test, nic->q[2].rx_napi_polls, 0);
}

static void wakeup_rx_runs_the_rx_napi(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	u32 rx_polls, tx_polls;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	rx_polls = nic->q[1].rx_napi_polls;
	tx_polls = nic->q[1].tx_napi_polls;
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, rx_polls + 1);
	KUNIT_EXPECT_EQ(test, nic->q[1].tx_napi_polls, tx_polls);
}

static void wakeup_tx_runs_the_tx_napi_which_sends(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	u32 rx_polls;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	rx_polls = nic->q[1].rx_napi_polls;
	fake_tx_put(x, 3, 64);
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_TX), 0);
	KUNIT_EXPECT_EQ(test, nic->q[1].tx_napi_polls, 1);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, rx_polls);
	KUNIT_EXPECT_EQ(test, nic->q[1].tx_used, 3);
}

/* A socket that busy-polls (SO_PREFER_BUSY_POLL) sends no TX wakeup: its
 * sendmsg() busy-polls the NAPI of the pool's rxq, the fake NIC's RX one,
 * and that poll is all it does.
 */
static void busy_poll_of_the_rx_napi_runs_the_tx_napi_which_sends(struct kunit *test)
{
#ifdef CONFIG_NET_RX_BUSY_POLL
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct fake_queue *q = &nic->q[1];
	u32 tx_polls;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	tx_polls = q->tx_napi_polls;
	fake_tx_put(x, 3, 64);
	napi_busy_loop(q->rx_napi.napi_id, NULL, NULL, true, 8);
	KUNIT_EXPECT_EQ(test, q->tx_napi_polls, tx_polls + 1);
	KUNIT_EXPECT_EQ(test, q->tx_used, 3);
#else
	kunit_skip(test, "no CONFIG_NET_RX_BUSY_POLL");
#endif
}

static void wakeup_of_a_scheduled_napi_marks_it_missed(struct kunit *test)
{
	struct fake_nic *nic;
	struct fake_xsk *x = up_nic_and_socket(test, &nic);
	struct napi_struct *napi = &nic->q[1].rx_napi;
	u32 polls;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	polls = nic->q[1].rx_napi_polls;

	local_bh_disable();
	napi_schedule(napi);
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX), 0);
	KUNIT_EXPECT_TRUE(test, test_bit(NAPI_STATE_MISSED, &napi->state));
	local_bh_enable();
	/* One poll, then one more for the missed wakeup. */
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, polls + 2);
}

static void fake_irq_free(void *irq)
{
	irq_free_desc((long)irq);
}

static void fake_irq_deliver_to(int irq, const struct cpumask *cpus)
{
	struct irq_data *d = irq_get_irq_data(irq);

	irq_data_update_affinity(d, cpus);
	irq_data_update_effective_affinity(d, cpus);
}

/* An interrupt descriptor (no handler, never raised) delivered to any
 * CPU, set as the irq of @napi. Freed when the test ends.
 */
static int napi_irq_on_any_cpu(struct kunit *test, struct napi_struct *napi)
{
	int irq;

	irq = irq_alloc_desc(NUMA_NO_NODE);
	KUNIT_ASSERT_GE(test, irq, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fake_irq_free,
							(void *)(long)irq), 0);
	KUNIT_ASSERT_NOT_NULL(test, irq_get_irq_data(irq));
	fake_irq_deliver_to(irq, cpu_possible_mask);
	netif_napi_set_irq(napi, irq);
	return irq;
}

static void wakeup_raises_the_interrupt_of_a_napi_without_an_irq(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_irq_ops);
	struct fake_xsk *x = socket_on_up_nic(test, nic);
	u32 polls, irqs;

	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	polls = nic->q[1].rx_napi_polls;
	irqs = nic->irqs_raised;
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX), 0);
	KUNIT_EXPECT_EQ(test, nic->irqs_raised, irqs + 1);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, polls + 1);
}

/* A wakeup on the CPU the interrupt goes to runs NAPI there directly: an
 * interrupt would run it on the same CPU, at the cost of a register
 * write and an interrupt.
 */
static void wakeup_on_the_cpu_of_the_napi_irq_raises_no_interrupt(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_irq_ops);
	struct fake_xsk *x = socket_on_up_nic(test, nic);
	u32 polls, irqs;

	napi_irq_on_any_cpu(test, &nic->q[1].rx_napi);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	polls = nic->q[1].rx_napi_polls;
	irqs = nic->irqs_raised;
	KUNIT_EXPECT_EQ(test, xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX), 0);
	KUNIT_EXPECT_EQ(test, nic->irqs_raised, irqs);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, polls + 1);
}

static void wakeup_from_another_cpu_than_the_napi_irq_raises_it(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_irq_ops);
	struct fake_xsk *x = socket_on_up_nic(test, nic);
	cpumask_var_t others;
	u32 polls, irqs;
	int irq, err;

	/* UML (make kunit-uml) has one CPU; the QEMU guest has two */
	if (num_possible_cpus() < 2)
		kunit_skip(test, "needs a second CPU for the interrupt");
	irq = napi_irq_on_any_cpu(test, &nic->q[1].rx_napi);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &zc_q1), 0);
	polls = nic->q[1].rx_napi_polls;
	irqs = nic->irqs_raised;
	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&others, GFP_KERNEL));

	/* every CPU but this one, which the test stays on */
	migrate_disable();
	cpumask_andnot(others, cpu_possible_mask, cpumask_of(smp_processor_id()));
	fake_irq_deliver_to(irq, others);
	err = xsk_zc_wakeup(&nic->zc, 1, XDP_WAKEUP_RX);
	migrate_enable();
	free_cpumask_var(others);

	KUNIT_EXPECT_EQ(test, err, 0);

	KUNIT_EXPECT_EQ(test, nic->irqs_raised, irqs + 1);
	KUNIT_EXPECT_EQ(test, nic->q[1].rx_napi_polls, polls + 1);
}

static struct kunit_case xsk_zc_pool_cases[] = {
	KUNIT_CASE(zc_bind_marks_only_that_queue_zero_copy),
	KUNIT_CASE(zc_bind_maps_the_umem_for_dma),
	KUNIT_CASE(zc_bind_on_running_netdev_restarts_only_that_queue),
	KUNIT_CASE(zc_bind_on_running_netdev_fills_ring_and_kicks_napi),
	KUNIT_CASE(zc_bind_on_stopped_netdev_leaves_the_queue_alone),
	KUNIT_CASE(zc_queue_is_filled_when_the_netdev_comes_up),
	KUNIT_CASE(ifdown_ifup_with_bound_socket_keeps_zero_copy),
	KUNIT_CASE(setup_beyond_real_queues_fails_with_einval),
	KUNIT_CASE(setup_with_frame_too_small_for_mtu_fails_with_einval),
	KUNIT_CASE(zc_bind_with_frame_too_small_for_mtu_fails),
	KUNIT_CASE(setup_on_zero_copy_queue_fails_with_ebusy),
	KUNIT_CASE(setup_on_a_ring_another_netdev_holds_fails_with_ebusy),
	KUNIT_CASE(reattach_gives_new_rings_their_pool_and_buffers_back),
	KUNIT_CASE(reattach_tells_new_rings_the_napi_that_polls_them),
	KUNIT_CASE(reattach_leaves_rings_that_kept_their_pool_alone),
	KUNIT_CASE(setup_on_a_queue_without_rings_fails_with_enetdown),
	KUNIT_CASE(teardown_of_a_queue_without_rings_only_clears_the_pool),
	KUNIT_CASE(reattach_leaves_a_queue_without_rings_bound),
	KUNIT_CASE(wakeup_on_a_queue_without_rings_fails_with_enetdown),
	KUNIT_CASE(wakeup_on_a_detached_netdev_fails_with_enetdown),
	KUNIT_CASE(wakeup_on_a_queue_whose_dma_is_stopped_fails_with_enetdown),
	KUNIT_CASE(setup_on_a_detached_netdev_leaves_its_queues_alone),
	KUNIT_CASE(teardown_on_a_runtime_suspended_netdev_resumes_it_first),
	KUNIT_CASE(setup_on_a_runtime_suspended_netdev_resumes_it_first),
	KUNIT_CASE(failed_prepare_leaves_the_queue_untouched),
	KUNIT_CASE(failed_dma_map_leaves_the_queue_untouched),
	KUNIT_CASE(failed_setup_can_be_retried),
	KUNIT_CASE(teardown_restarts_the_queue_once),
	KUNIT_CASE(teardown_returns_every_posted_buffer),
	KUNIT_CASE(teardown_completes_tx_frames_in_flight),
	KUNIT_CASE(teardown_of_queue_without_pool_fails_with_einval),
	KUNIT_CASE(rebind_after_teardown_succeeds),
	KUNIT_CASE(unregistering_the_netdev_tears_down_bound_queues),
	KUNIT_CASE(mtu_beyond_the_pool_frame_is_rejected),
	KUNIT_CASE(mtu_within_the_pool_frame_is_accepted),
	KUNIT_CASE(max_segs_of_the_ops_is_what_the_netdev_announces),
	KUNIT_CASE(a_driver_without_max_segs_gets_no_sg_pool),
	KUNIT_CASE(an_sg_pool_takes_an_mtu_longer_than_one_buffer),
	KUNIT_CASE(an_sg_pool_refuses_an_mtu_beyond_its_most_buffers),
	KUNIT_CASE(an_sg_ring_gives_its_rxq_the_frame_step),
	KUNIT_CASE(a_single_buffer_ring_gives_its_rxq_no_frame_step),
	KUNIT_CASE(setup_checks_the_driver_rx_buffer_length),
	KUNIT_CASE(mtu_check_uses_the_driver_rx_buffer_length),
	KUNIT_CASE(any_zc_is_true_only_while_a_queue_is_bound),
	KUNIT_CASE(setup_leaves_a_queue_whose_dma_is_stopped_alone),
	KUNIT_CASE(dev_init_rejects_incomplete_ops),
	KUNIT_CASE(wakeup_on_down_netdev_fails_with_enetdown),
	KUNIT_CASE(wakeup_beyond_the_queues_fails_with_einval),
	KUNIT_CASE(wakeup_on_queue_without_pool_fails_with_enxio),
	KUNIT_CASE(wakeup_rx_runs_the_rx_napi),
	KUNIT_CASE(wakeup_tx_runs_the_tx_napi_which_sends),
	KUNIT_CASE(busy_poll_of_the_rx_napi_runs_the_tx_napi_which_sends),
	KUNIT_CASE(wakeup_of_a_scheduled_napi_marks_it_missed),
	KUNIT_CASE(wakeup_raises_the_interrupt_of_a_napi_without_an_irq),
	KUNIT_CASE(wakeup_on_the_cpu_of_the_napi_irq_raises_no_interrupt),
	KUNIT_CASE(wakeup_from_another_cpu_than_the_napi_irq_raises_it),
	{}
};

static struct kunit_suite xsk_zc_pool_suite = {
	.name = "xsk_zc_pool",
	.test_cases = xsk_zc_pool_cases,
};

kunit_test_suite(xsk_zc_pool_suite);
