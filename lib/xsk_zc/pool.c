// SPDX-License-Identifier: GPL-2.0
/*
 * xsk_zc: XSK pool setup and teardown, wakeup and the features guard.
 *
 * Setup runs every step that can fail before the queue is stopped, so a
 * failure leaves the queue exactly as it was; once the queue is stopped,
 * only infallible steps run.
 */

#include <kunit/visibility.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/pm_runtime.h>
#include <linux/slab.h>
#include <net/xsk_zc.h>

/* The per-buffer sync helpers do the syncs the pool needs. */
#define XSK_ZC_DMA_ATTRS	DMA_ATTR_SKIP_CPU_SYNC

/* Explains a rejected request in the log. The core gives these paths no
 * extack (ndo_bpf's XSK pool command and ndo_change_mtu carry none), so
 * the caller sees the errno and the log says why.
 */
#define xsk_zc_reject(zc, err, msg) \
	({ netdev_dbg((zc)->netdev, "xsk_zc: %s\n", msg); err; })

/**
 * xsk_zc_dev_init - set up the xsk_zc state of a netdev
 * @zc: the state, usually embedded in the driver's private data
 * @netdev: the netdev
 * @dma_dev: the device that DMA-maps the UMEM (the PCI or platform device)
 * @ops: the driver's operations, a static const table
 * @max_queues: the most queues the netdev can have
 *
 * A driver whose @ops has &xsk_zc_ops.max_segs above 1 gets it announced
 * as @netdev's &net_device.xdp_zc_max_segs, before registering @netdev.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an incomplete @ops, or -ENOMEM.
 */
int xsk_zc_dev_init(struct xsk_zc_dev *zc, struct net_device *netdev,
		    struct device *dma_dev, const struct xsk_zc_ops *ops,
		    u32 max_queues)
{
	if (!ops->queue || !ops->queue_stop || !ops->queue_start ||
	    !max_queues)
		return -EINVAL;

	zc->queues = kcalloc(max_queues, sizeof(*zc->queues), GFP_KERNEL);
	if (!zc->queues)
		return -ENOMEM;

	zc->ops = ops;
	zc->netdev = netdev;
	zc->dma_dev = dma_dev;
	zc->max_queues = max_queues;
	if (ops->max_segs > 1)
		netdev->xdp_zc_max_segs = ops->max_segs;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_dev_init, "XSK_ZC");

/**
 * xsk_zc_dev_destroy - free the xsk_zc state of a netdev
 * @zc: the state
 *
 * Call after unregister_netdev(), when the core has torn down every pool.
 * Safe on state whose xsk_zc_dev_init() failed or never ran.
 */
void xsk_zc_dev_destroy(struct xsk_zc_dev *zc)
{
	if (!zc->queues)
		return;	/* init failed or never ran: a probe error path */
	WARN_ON(xsk_zc_any_zc(zc));
	kfree(zc->queues);
	zc->queues = NULL;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_dev_destroy, "XSK_ZC");

/* Whether @pool's receive buffers hold a frame of @mtu on this NIC: one
 * buffer, or on an XDP_USE_SG pool as many as a frame may take.
 */
static bool xsk_zc_frame_fits(struct xsk_zc_dev *zc, struct xsk_buff_pool *pool,
			      unsigned int mtu)
{
	const struct xsk_zc_ops *ops = zc->ops;
	u32 len = ops->rx_buf_len ? ops->rx_buf_len(zc->netdev, pool, mtu) :
				    xsk_pool_get_rx_frame_size(pool);
	u32 segs = 1;

	if (pool->umem->flags & XDP_UMEM_SG_FLAG)
		segs = zc->netdev->xdp_zc_max_segs;
	return (u64)len * segs >= mtu + ops->frame_overhead;
}

/**
 * xsk_zc_queue_is_zc - whether a queue runs zero-copy
 * @zc: the netdev's xsk_zc state
 * @qid: queue index
 *
 * Return: true when @qid has a zero-copy pool.
 */
VISIBLE_IF_KUNIT bool xsk_zc_queue_is_zc(const struct xsk_zc_dev *zc, u32 qid)
{
	return qid < zc->max_queues && READ_ONCE(zc->queues[qid].pool);
}
EXPORT_SYMBOL_IF_KUNIT(xsk_zc_queue_is_zc);

/**
 * xsk_zc_any_zc - whether any queue of the netdev runs zero-copy
 * @zc: the netdev's xsk_zc state
 *
 * For refusing changes that would reallocate the rings under a pool
 * (ring resize, channel count).
 *
 * Return: true when some queue has a zero-copy pool.
 */
bool xsk_zc_any_zc(const struct xsk_zc_dev *zc)
{
	u32 qid;

	for (qid = 0; zc->queues && qid < zc->max_queues; qid++)
		if (READ_ONCE(zc->queues[qid].pool))
			return true;
	return false;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_any_zc, "XSK_ZC");

/* Whether @qid is below the real RX and TX queue counts. */
static bool xsk_zc_qid_valid(struct xsk_zc_dev *zc, u32 qid)
{
	struct net_device *dev = zc->netdev;

	return qid < zc->max_queues && qid < dev->real_num_rx_queues &&
	       qid < dev->real_num_tx_queues;
}

/* What the driver says of @qid now: its rings and NAPI instances, and
 * whether its DMA runs.
 */
static void xsk_zc_queue_get(struct xsk_zc_dev *zc, u32 qid,
			     struct xsk_zc_queue_info *qi)
{
	*qi = (struct xsk_zc_queue_info){
		.running = netif_running(zc->netdev),
	};
	zc->ops->queue(zc->netdev, qid, qi);
}

/* Checks that @qid can take @pool; on success @qi describes the queue. */
static int xsk_zc_validate(struct xsk_zc_dev *zc, struct xsk_buff_pool *pool,
			   u32 qid, struct xsk_zc_queue_info *qi)
{
	struct net_device *dev = zc->netdev;
	struct xsk_zc_rx_ring *rx;
	struct xsk_zc_tx_ring *tx;

	if (!xsk_zc_qid_valid(zc, qid))
		return xsk_zc_reject(zc, -EINVAL,
				     "queue id beyond the device's queues");
	if (xsk_zc_queue_is_zc(zc, qid))
		return xsk_zc_reject(zc, -EBUSY,
				     "queue already has a zero-copy pool");
	xsk_zc_queue_get(zc, qid, qi);
	rx = qi->rx;
	tx = qi->tx;
	if (!rx || !tx)
		return xsk_zc_reject(zc, -ENETDOWN,
				     "queue has no rings now");
	/* A ring that several netdevs share takes one pool. */
	if (xsk_zc_tx_pool(tx))
		return xsk_zc_reject(zc, -EBUSY,
				     "TX ring has the zero-copy pool of another netdev");
	if (!rx->count)
		return xsk_zc_reject(zc, -EINVAL,
				     "queue has no RX ring");
	if (xsk_zc_rx_pool(rx))
		return xsk_zc_reject(zc, -EBUSY,
				     "RX ring has the zero-copy pool of another netdev");
	if (!xsk_zc_frame_fits(zc, pool, dev->mtu))
		return xsk_zc_reject(zc, -EINVAL,
				     "XSK frame too small for the MTU");
	return 0;
}

/* Whether the queue's DMA runs, so that setup must stop and restart it.
 * Rings that are gone (a reset shrank the queues) do not run, and a
 * detached netdev (suspended, or being reset) has no running DMA,
 * whatever the driver says.
 */
static bool xsk_zc_queue_running(struct xsk_zc_dev *zc,
				 const struct xsk_zc_queue_info *qi)
{
	return qi->rx && qi->tx && qi->running &&
	       netif_device_present(zc->netdev);
}

/* Whether @napi's interrupt (netif_napi_set_irq()) is delivered to this
 * CPU, so that scheduling it here runs it where the interrupt would.
 * Called with BHs off. An affinity change racing with it only moves
 * one poll to the other CPU.
 */
static bool xsk_zc_napi_irq_is_here(const struct napi_struct *napi)
{
	const struct cpumask *mask;

	if (napi->irq < 0)
		return false;
	mask = irq_get_effective_affinity_mask(napi->irq);
	return mask && cpumask_test_cpu(smp_processor_id(), mask);
}

/* Schedules the NAPI instance unless it is running, in which case it is
 * told to run once more. A driver with ``irq_raise`` keeps NAPI on the
 * CPU of its interrupt: on that CPU NAPI is scheduled directly (an
 * interrupt would run it right here, at a cost of a register write and
 * an interrupt per wakeup), from any other the interrupt is raised.
 */
static void xsk_zc_kick_napi(struct xsk_zc_dev *zc, u32 qid,
			     struct napi_struct *napi)
{
	if (napi_if_scheduled_mark_missed(napi))
		return;
	local_bh_disable();
	if (zc->ops->irq_raise && !xsk_zc_napi_irq_is_here(napi))
		zc->ops->irq_raise(zc->netdev, qid, napi);
	else
		napi_schedule(napi);
	local_bh_enable();
}

static void xsk_zc_kick(struct xsk_zc_dev *zc, u32 qid,
			const struct xsk_zc_queue_info *qi, u32 flags)
{
	if (flags & XDP_WAKEUP_RX)
		xsk_zc_kick_napi(zc, qid, qi->rx_napi);
	if ((flags & XDP_WAKEUP_TX) &&
	    (qi->tx_napi != qi->rx_napi || !(flags & XDP_WAKEUP_RX)))
		xsk_zc_kick_napi(zc, qid, qi->tx_napi);
}

/* Gives @rx its pool and what its polls need of the queue: the NAPI
 * instance serving its TX, for busy polls, NULL when its own does.
 */
static void xsk_zc_rx_attach(struct xsk_zc_rx_ring *rx,
			     struct xsk_buff_pool *pool,
			     const struct xsk_zc_queue_info *qi)
{
	rx->napi = qi->rx_napi;
	rx->tx_napi = qi->tx_napi != qi->rx_napi ? qi->tx_napi : NULL;
	WRITE_ONCE(rx->pool, pool);
}

static int xsk_zc_pool_enable(struct xsk_zc_dev *zc, struct xsk_buff_pool *pool,
			      u32 qid)
{
	const struct xsk_zc_ops *ops = zc->ops;
	struct net_device *dev = zc->netdev;
	struct xsk_zc_queue_info qi;
	struct xsk_zc_rx_ring *rx;
	struct xsk_zc_tx_ring *tx;
	struct xdp_buff **bufs;
	bool running;
	int err;

	err = xsk_zc_validate(zc, pool, qid, &qi);
	if (err)
		return err;
	rx = qi.rx;
	tx = qi.tx;

	bufs = kvcalloc(rx->count, sizeof(*bufs), GFP_KERNEL);
	if (!bufs)
		return xsk_zc_reject(zc, -ENOMEM,
				     "no memory for the RX buffer array");

	err = xsk_pool_dma_map(pool, zc->dma_dev, XSK_ZC_DMA_ATTRS);
	if (err) {
		kvfree(bufs);
		return xsk_zc_reject(zc, err, "cannot DMA-map the UMEM");
	}

	/* Last of the steps that can fail: a prepare that succeeds may
	 * describe the rings for the pool, since nothing fails after it.
	 */
	if (ops->prepare) {
		err = ops->prepare(dev, qid, pool);
		if (err) {
			xsk_pool_dma_unmap(pool, XSK_ZC_DMA_ATTRS);
			kvfree(bufs);
			return xsk_zc_reject(zc, err,
					     "the driver cannot take the pool");
		}
	}
	if (rx->xdp_rxq)
		xsk_pool_set_rxq_info(pool, rx->xdp_rxq);

	/* Nothing below may fail. */
	running = xsk_zc_queue_running(zc, &qi);
	if (running)
		ops->queue_stop(dev, qid);

	rx->bufs = bufs;
	xsk_zc_rx_attach(rx, pool, &qi);
	tx->in_flight = 0;
	tx->rx = rx;
	WRITE_ONCE(tx->pool, pool);
	zc->queues[qid].rx_bufs = bufs;
	zc->queues[qid].rx_count = rx->count;
	WRITE_ONCE(zc->queues[qid].pool, pool);	/* the queue is zero-copy */

	if (running) {
		ops->queue_start(dev, qid);
		/* The ring may be empty, and an empty ring raises no
		 * interrupt: run NAPI once so it fills the ring.
		 */
		xsk_zc_kick(zc, qid, &qi, XDP_WAKEUP_RX);
	}
	return 0;
}

static int xsk_zc_pool_disable(struct xsk_zc_dev *zc, u32 qid)
{
	const struct xsk_zc_ops *ops = zc->ops;
	struct net_device *dev = zc->netdev;
	struct xsk_zc_queue_info qi;
	struct xsk_zc_rx_ring *rx;
	struct xsk_zc_tx_ring *tx;
	struct xsk_buff_pool *pool;
	struct xdp_buff **bufs;
	bool running;

	if (!xsk_zc_queue_is_zc(zc, qid))
		return xsk_zc_reject(zc, -EINVAL,
				     "queue has no zero-copy pool");

	xsk_zc_queue_get(zc, qid, &qi);
	rx = qi.rx;
	tx = qi.tx;
	pool = zc->queues[qid].pool;

	/* Rings that are gone (a reset shrank the queues) cannot be stopped:
	 * the driver returned their buffers and frames when it freed them.
	 */
	running = xsk_zc_queue_running(zc, &qi);
	if (running)
		ops->queue_stop(dev, qid);
	/* A wakeup or a busy poll on another CPU may still see the pool. */
	synchronize_net();

	/* queue_stop cleaned the TX ring: its XDP_TX buffers wait on rx */
	if (rx) {
		WRITE_ONCE(rx->pool, NULL);
		xsk_zc_rx_ring_clean(rx);
		rx->bufs = NULL;
		rx->napi = NULL;
		rx->tx_napi = NULL;
		/* page mode's frames are the driver's again */
		if (rx->xdp_rxq)
			rx->xdp_rxq->frag_size = 0;
	}
	/* Give user space back the frames the NIC never completed. */
	if (tx) {
		if (tx->in_flight)
			xsk_tx_completed(pool, tx->in_flight);
		tx->in_flight = 0;
		tx->rx = NULL;
		WRITE_ONCE(tx->pool, NULL);
	}
	WRITE_ONCE(zc->queues[qid].pool, NULL);
	bufs = zc->queues[qid].rx_bufs;
	zc->queues[qid].rx_bufs = NULL;
	zc->queues[qid].rx_count = 0;

	xsk_pool_dma_unmap(pool, XSK_ZC_DMA_ATTRS);

	if (running)
		ops->queue_start(dev, qid);
	kvfree(bufs);
	return 0;
}

/**
 * xsk_zc_pool_setup - attach or detach the XSK pool of a queue
 * @zc: the netdev's xsk_zc state
 * @pool: the pool to attach, or NULL to detach the queue's pool
 * @qid: queue index
 *
 * The driver's ``ndo_bpf(XDP_SETUP_XSK_POOL)``. Attaching validates the
 * queue id and the frame size, DMA-maps the UMEM, runs ``ops->prepare``,
 * then stops the queue (when the netdev runs), publishes the pool,
 * restarts the queue and kicks its NAPI. Detaching stops the queue,
 * waits for readers, clears the pool, frees the buffers on the ring,
 * completes the TX frames in flight, unmaps and restarts the queue.
 *
 * It holds a runtime PM reference on the netdev's parent device
 * throughout, as a driver's own close does: a driver whose runtime
 * suspend frees the rings gets them back (xsk_zc_rings_reattach()) before
 * the library looks at them, and cannot suspend under it. A queue that
 * ``ops->queue`` describes without its rings even so has none now:
 * attaching fails, detaching only clears the pool.
 *
 * Context: process context under RTNL, may sleep.
 * Return: 0, or a negative errno and nothing changed: -EINVAL (bad queue
 * id, frame too small, no pool to detach), -EBUSY (queue already
 * zero-copy, or its ring shared with another netdev that is), -ENETDOWN
 * (the queue has no rings), -ENOMEM, or the error of ``ops->prepare`` or
 * the DMA map.
 */
int xsk_zc_pool_setup(struct xsk_zc_dev *zc, struct xsk_buff_pool *pool,
		      u32 qid)
{
	struct device *parent = zc->netdev->dev.parent;
	int err;

	ASSERT_RTNL();

	/* Its result does not matter: a device without runtime PM reports
	 * an error and is powered; one that failed to resume has no rings,
	 * which the ops then say.
	 */
	if (parent)
		pm_runtime_get_sync(parent);
	err = pool ? xsk_zc_pool_enable(zc, pool, qid) :
		     xsk_zc_pool_disable(zc, qid);
	if (parent)
		pm_runtime_put(parent);
	return err;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_pool_setup, "XSK_ZC");

/**
 * xsk_zc_rings_reattach - give reallocated rings their zero-copy pool back
 * @zc: the netdev's xsk_zc state
 *
 * For a driver that frees its ring structures and allocates them anew
 * while the netdev is down and pools stay bound (igb on resume and
 * runtime resume): call it once the new rings are described, before
 * they are configured. Each ring of a zero-copy queue that has no pool
 * gets the queue's pool and buffer array back, and the pool points at
 * the new ring's rxq info. Rings that kept their pool are left alone.
 * The driver returns the buffers of a ring (xsk_zc_rx_ring_clean()) before
 * it frees the ring. A queue whose rings are not there (the new scheme
 * has fewer queues) keeps its pool, with no rings, until its socket goes.
 *
 * Context: process context, the rings stopped, serialized against
 * xsk_zc_pool_setup(): under RTNL, in a system resume (user space
 * frozen), or in a runtime resume, which xsk_zc_pool_setup() excludes
 * by holding a runtime PM reference (igb's runtime resume takes no RTNL).
 */
void xsk_zc_rings_reattach(struct xsk_zc_dev *zc)
{
	struct xsk_zc_queue_info qi;
	struct xsk_buff_pool *pool;
	struct xsk_zc_rx_ring *rx;
	struct xsk_zc_tx_ring *tx;
	u32 qid;

	if (!zc->queues)
		return;	/* before xsk_zc_dev_init() */

	for (qid = 0; qid < zc->max_queues; qid++) {
		pool = zc->queues[qid].pool;
		if (!pool)
			continue;
		xsk_zc_queue_get(zc, qid, &qi);
		rx = qi.rx;
		tx = qi.tx;
		/* the driver must not resize a zero-copy ring */
		if (rx && !rx->pool &&
		    !WARN_ON_ONCE(rx->count != zc->queues[qid].rx_count)) {
			rx->bufs = zc->queues[qid].rx_bufs;
			memset(rx->bufs, 0, rx->count * sizeof(*rx->bufs));
			if (rx->xdp_rxq)
				xsk_pool_set_rxq_info(pool, rx->xdp_rxq);
			xsk_zc_rx_attach(rx, pool, &qi);
		}
		if (tx && !tx->pool) {
			tx->in_flight = 0;
			WRITE_ONCE(tx->pool, pool);
		}
		if (tx)
			tx->rx = rx;
	}
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_rings_reattach, "XSK_ZC");

/**
 * xsk_zc_check_mtu - check that every zero-copy queue can take an MTU
 * @zc: the netdev's xsk_zc state
 * @mtu: the MTU asked for
 *
 * Call from ``ndo_change_mtu`` before changing anything.
 *
 * Return: 0, or -EINVAL when a pool's frames are too small for @mtu.
 */
int xsk_zc_check_mtu(struct xsk_zc_dev *zc, unsigned int mtu)
{
	struct xsk_buff_pool *pool;
	u32 qid;

	for (qid = 0; qid < zc->max_queues; qid++) {
		pool = zc->queues[qid].pool;
		if (pool && !xsk_zc_frame_fits(zc, pool, mtu))
			return xsk_zc_reject(zc, -EINVAL,
					     "MTU too large for the XSK frames of a zero-copy queue");
	}
	return 0;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_check_mtu, "XSK_ZC");

/**
 * xsk_zc_wakeup - the driver's ``ndo_xsk_wakeup``
 * @zc: the netdev's xsk_zc state
 * @qid: queue index
 * @flags: XDP_WAKEUP_RX and/or XDP_WAKEUP_TX
 *
 * Marks the queue's running NAPI as missed so it polls once more, or
 * schedules it (through ``ops->irq_raise`` when the driver has it).
 *
 * Context: any context user space calls it from (under rcu_read_lock()
 * in the core), never sleeps.
 * Return: 0, -ENETDOWN when the netdev is down or detached (suspended,
 * being reset), or the queue has no rings now or its driver says its DMA
 * does not run (&xsk_zc_queue_info.running), -ENXIO when the queue has
 * no pool, -EINVAL for a queue id beyond the device's queues.
 */
int xsk_zc_wakeup(struct xsk_zc_dev *zc, u32 qid, u32 flags)
{
	struct net_device *dev = zc->netdev;
	struct xsk_zc_queue_info qi;

	if (!netif_running(dev) || !netif_device_present(dev))
		return -ENETDOWN;
	if (!xsk_zc_qid_valid(zc, qid))
		return -EINVAL;
	if (!xsk_zc_queue_is_zc(zc, qid))
		return -ENXIO;
	xsk_zc_queue_get(zc, qid, &qi);
	if (!xsk_zc_queue_running(zc, &qi) || !qi.rx_napi || !qi.tx_napi)
		return -ENETDOWN;

	xsk_zc_kick(zc, qid, &qi, flags);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_wakeup, "XSK_ZC");

MODULE_DESCRIPTION("AF_XDP zero-copy driver helpers");
MODULE_LICENSE("GPL");
