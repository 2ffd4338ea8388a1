// SPDX-License-Identifier: GPL-2.0
/*
 * The xsk_zc KUnit fixture: a fake NIC whose "hardware" is an array of
 * software descriptors, driven by the real xsk_zc library, and the user
 * space side of real AF_XDP sockets (UMEM, fill, completion, RX and TX
 * rings) bound to it through the real socket calls.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/jhash.h>
#include <linux/mman.h>
#include <linux/net.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>
#include <net/gro.h>
#include <net/sock.h>
#include <net/xdp_sock.h>
#include <net/xsk_buff_pool.h>
#include <uapi/linux/if_xdp.h>

#include "xsk_queue.h"	/* the ring layout user space sees */
#include "fixture.h"

static struct fake_nic *fake_nic_of(struct net_device *dev)
{
	return *(struct fake_nic **)netdev_priv(dev);
}

/* ---- the fake NIC's descriptor callbacks (the hot path) ---- */

static struct xdp_buff *fake_rx_next(struct xsk_zc_rx_ring *rx,
				     struct xsk_zc_rx_desc *desc)
{
	struct fake_queue *q = container_of(rx, struct fake_queue, zrx);
	struct fake_rx_desc *d = &q->rx_desc[rx->next_to_clean];

	if (!d->done)
		return NULL;

	d->done = false;
	desc->len = d->len;
	desc->offset = q->rx_offset;
	desc->drop = d->error;
	desc->more = d->more;
	desc->hw_desc = d;
	return xsk_zc_rx_take(rx);
}

static void fake_rx_fill(struct xsk_zc_rx_ring *rx, u32 idx,
			 struct xdp_buff *xdp, dma_addr_t dma)
{
	struct fake_queue *q = container_of(rx, struct fake_queue, zrx);
	struct fake_rx_desc *d = &q->rx_desc[idx];

	d->dma = dma;
	d->va = xdp->data_hard_start + XDP_PACKET_HEADROOM;
	d->done = false;
	d->error = false;
	d->more = false;
	d->len = 0;
}

static void fake_rx_kick(struct xsk_zc_rx_ring *rx, u32 ntu)
{
	struct fake_queue *q = container_of(rx, struct fake_queue, zrx);

	q->rx_kicks++;
	q->rx_tail = ntu;
}

/* One TX descriptor at tx_ntu: a socket's frame or, with @xdp, an XSK
 * buffer XDP_TX sends itself.
 */
static void fake_tx_put_desc(struct fake_queue *q, dma_addr_t dma, u32 len,
			     struct xdp_buff *xdp)
{
	struct fake_tx_desc *d = &q->tx_desc[q->tx_ntu];

	d->dma = dma;
	d->len = len;
	d->zc = !xdp;
	/* what fake_tx_clean() finds the frame by, last (a driver's
	 * next_to_watch)
	 */
	xsk_zc_tx_publish(&d->xdp_tx, xdp);
	q->tx_ntu = (q->tx_ntu + 1) % FAKE_RING;
	q->tx_used++;
}

/* XDP_TX without a copy: the buffer itself goes on the queue's TX ring */
static bool fake_rx_xmit_zc(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			    dma_addr_t dma, u32 len)
{
	struct fake_queue *q = container_of(rx, struct fake_queue, zrx);

	if (q->xdp_tx_fails || q->tx_used == FAKE_RING - 1)
		return false;
	fake_tx_put_desc(q, dma, len, xdp);
	q->xdp_tx_frames++;
	return true;
}

static void fake_rx_xmit_flush(struct xsk_zc_rx_ring *rx)
{
	struct fake_queue *q = container_of(rx, struct fake_queue, zrx);

	q->xdp_tx_flushes++;
}

static void fake_rx_populate(struct xsk_zc_rx_ring *rx, struct sk_buff *skb,
			     const struct xdp_buff *xdp,
			     const struct xsk_zc_rx_desc *desc)
{
	struct fake_queue *q = container_of(rx, struct fake_queue, zrx);

	q->pass_len = skb->len;
	q->pass_dev = skb->dev;
	q->pass_hash = jhash(skb->data, skb->len, 0);
	q->pass_meta_len = skb_metadata_len(skb);
	memcpy(q->pass_head, skb->data, min_t(u32, skb->len, sizeof(q->pass_head)));
	memcpy(q->pass_meta, skb->data - q->pass_meta_len,
	       min_t(u32, q->pass_meta_len, sizeof(q->pass_meta)));
}

/* RX hints: the hash the "NIC" wrote in the frame's descriptor */
static int fake_xmo_rx_hash(const struct xdp_md *ctx, u32 *hash,
			    enum xdp_rss_hash_type *rss_type)
{
	const struct xsk_zc_rx_desc *desc = xsk_zc_rx_hint_desc(ctx);
	const struct fake_rx_desc *d;

	if (!desc)
		return -ENODATA;
	d = desc->hw_desc;
	*hash = d->hash;
	*rss_type = XDP_RSS_TYPE_L2;
	return 0;
}

const struct xdp_metadata_ops fake_xdp_metadata_ops = {
	.xmo_rx_hash = fake_xmo_rx_hash,
};

static const struct xsk_zc_rx_hw fake_rx_hw = {
	.next = fake_rx_next,
	.fill = fake_rx_fill,
	.kick = fake_rx_kick,
	.xmit_zc = fake_rx_xmit_zc,
	.xmit_flush = fake_rx_xmit_flush,
	.populate = fake_rx_populate,
};

static u32 fake_tx_claim(struct xsk_zc_tx_ring *tx, u32 want)
{
	struct fake_queue *q = container_of(tx, struct fake_queue, ztx);

	return xsk_zc_tx_claimable(tx, FAKE_RING - 1 - q->tx_used, want);
}

static void fake_tx_fill(struct xsk_zc_tx_ring *tx, const struct xdp_desc *desc,
			 dma_addr_t dma)
{
	struct fake_queue *q = container_of(tx, struct fake_queue, ztx);

	q->tx_desc[q->tx_ntu].more = xp_mb_desc(desc);
	fake_tx_put_desc(q, dma, desc->len, NULL);
}

static void fake_tx_kick(struct xsk_zc_tx_ring *tx, u32 bytes)
{
	struct fake_queue *q = container_of(tx, struct fake_queue, ztx);

	q->tx_kicks++;
	q->tx_kick_bytes += bytes;
}

static const struct xsk_zc_tx_hw fake_tx_hw = {
	.claim = fake_tx_claim,
	.fill = fake_tx_fill,
	.kick = fake_tx_kick,
};

/* TX metadata: the requests land in the descriptor's slot, as a NIC
 * driver keeps them with its buffer until the descriptor is written.
 */
static void fake_tmo_request_checksum(u16 csum_start, u16 csum_offset,
				      void *priv)
{
	struct fake_tx_desc *d = container_of(priv, struct fake_tx_desc, compl);

	d->csum = true;
	d->csum_start = csum_start;
	d->csum_offset = csum_offset;
}

static u64 fake_tmo_fill_timestamp(void *priv)
{
	return container_of(priv, struct fake_tx_desc, compl)->stamp;
}

static const struct xsk_tx_metadata_ops fake_tmo = {
	.tmo_fill_timestamp = fake_tmo_fill_timestamp,
	.tmo_request_checksum = fake_tmo_request_checksum,
};

static struct xsk_tx_metadata_compl *fake_tx_compl(struct xsk_zc_tx_ring *tx)
{
	struct fake_queue *q = container_of(tx, struct fake_queue, ztx);

	return &q->tx_desc[q->tx_ntu].compl;
}

static void fake_tx_fill_meta(struct xsk_zc_tx_ring *tx,
			      const struct xdp_desc *desc, dma_addr_t dma)
{
	struct fake_queue *q = container_of(tx, struct fake_queue, ztx);

	q->tx_desc[q->tx_ntu].stamp_asked = !!q->tx_desc[q->tx_ntu].compl.tx_timestamp;
	q->tx_desc[q->tx_ntu].more = xp_mb_desc(desc);
	fake_tx_put_desc(q, dma, desc->len, NULL);
}

static const struct xsk_zc_tx_hw fake_tx_hw_meta = {
	.claim = fake_tx_claim,
	.fill = fake_tx_fill_meta,
	.kick = fake_tx_kick,
	.tmo = &fake_tmo,
	.compl = fake_tx_compl,
};

/* The instantiations of the hot path; `make lint` checks that they
 * contain no indirect call.
 */
noinline int fake_rx_poll(struct fake_queue *q, struct bpf_prog *prog,
			  int budget)
{
	return xsk_zc_rx_poll(&q->zrx, &q->rx_napi, prog, budget, &fake_rx_hw);
}

noinline bool fake_rx_refill(struct fake_queue *q)
{
	return __xsk_zc_rx_refill(&q->zrx, &fake_rx_hw);
}

noinline bool fake_tx_xmit(struct fake_queue *q, u32 budget)
{
	if (q->tx_meta)
		return xsk_zc_tx_xmit(&q->ztx, budget, &fake_tx_hw_meta);
	return xsk_zc_tx_xmit(&q->ztx, budget, &fake_tx_hw);
}

/* A NIC whose every descriptor write is its own doorbell: no kicks. */
static const struct xsk_zc_rx_hw fake_rx_hw_doorbell = {
	.next = fake_rx_next,
	.fill = fake_rx_fill,
};

static const struct xsk_zc_tx_hw fake_tx_hw_doorbell = {
	.claim = fake_tx_claim,
	.fill = fake_tx_fill,
};

bool fake_rx_refill_doorbell(struct fake_queue *q)
{
	return __xsk_zc_rx_refill(&q->zrx, &fake_rx_hw_doorbell);
}

bool fake_tx_xmit_doorbell(struct fake_queue *q, u32 budget)
{
	return xsk_zc_tx_xmit(&q->ztx, budget, &fake_tx_hw_doorbell);
}

/* The NIC completes @n TX descriptors, which the TX NAPI cleans (BHs
 * off, as in its poll); returns the zero-copy ones.
 */
u32 fake_tx_clean(struct fake_queue *q, u32 n)
{
	u32 zc = 0;

	local_bh_disable();
	while (n-- && q->tx_used) {
		struct fake_tx_desc *d = &q->tx_desc[q->tx_ntc];

		if (d->zc && q->tx_meta) {
			d->stamp = ++q->tx_clock;
			xsk_zc_tx_meta_done(&d->compl, &fake_tx_hw_meta);
			d->csum = false;
		}
		zc += d->zc;
		d->zc = false;
		if (d->xdp_tx)
			xsk_zc_tx_xdp_done(&q->ztx, d->xdp_tx);
		d->xdp_tx = NULL;
		q->tx_ntc = (q->tx_ntc + 1) % FAKE_RING;
		q->tx_used--;
	}
	xsk_zc_tx_complete(&q->ztx, zc);
	local_bh_enable();
	return zc;
}

u32 fake_rx_posted(struct fake_queue *q)
{
	u32 i, n = 0;

	for (i = 0; i < FAKE_RING; i++)
		n += q->zrx.bufs && q->zrx.bufs[i] && !q->rx_desc[i].done;
	return n;
}

/* The NIC receives a frame into the next posted buffer, or drops it. */
/* One descriptor's worth of a frame: with @more, the frame goes on in
 * the next one, as a NIC without end of packet in the descriptor says.
 */
void fake_nic_receive_desc(struct fake_queue *q, const void *data, u32 len,
			   bool more, bool error)
{
	struct fake_rx_desc *d = &q->rx_desc[q->rx_hw_head];

	if (!q->zrx.bufs || !q->zrx.bufs[q->rx_hw_head] || d->done) {
		q->rx_hw_drops++;
		return;
	}
	memcpy(d->va, data, len);
	d->len = len;
	d->hash = jhash(data, len, 0);
	d->error = error;
	d->more = more;
	d->done = true;
	q->rx_hw_head = (q->rx_hw_head + 1) % FAKE_RING;
}

void fake_nic_receive(struct fake_queue *q, const void *data, u32 len,
		      bool error)
{
	fake_nic_receive_desc(q, data, len, false, error);
}

/* Runs the RX poll in the context net_rx_action gives a NAPI poll. */
int fake_poll_rx(struct fake_queue *q, struct bpf_prog *prog, int budget)
{
	struct bpf_net_context ctx, *set;
	int done;

	local_bh_disable();
	set = bpf_net_ctx_set(&ctx);
	done = fake_rx_poll(q, prog, budget);
	napi_gro_flush(&q->rx_napi, false);
	gro_normal_list(&q->rx_napi.gro);
	bpf_net_ctx_clear(set);
	local_bh_enable();
	return done;
}

bool fake_poll_tx(struct fake_queue *q, u32 budget)
{
	bool done;

	local_bh_disable();
	done = fake_tx_xmit(q, budget);
	local_bh_enable();
	return done;
}

/* ---- the fake NIC's queues, NAPI and slow-path ops ---- */

static int fake_rx_napi_poll(struct napi_struct *napi, int budget)
{
	struct fake_queue *q = container_of(napi, struct fake_queue, rx_napi);
	int done = 0;

	q->rx_napi_polls++;
	if (xsk_zc_rx_pool(&q->zrx))
		done = fake_rx_poll(q, READ_ONCE(q->nic->prog), budget);
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

static int fake_tx_napi_poll(struct napi_struct *napi, int budget)
{
	struct fake_queue *q = container_of(napi, struct fake_queue, tx_napi);

	q->tx_napi_polls++;
	if (xsk_zc_tx_pool(&q->ztx))
		fake_tx_xmit(q, budget);
	napi_complete_done(napi, 0);
	return 0;
}

static void fake_queue_hw_start(struct fake_queue *q)
{
	memset(q->rx_desc, 0, sizeof(q->rx_desc));
	q->rx_hw_head = 0;
	q->tx_ntu = 0;
	q->tx_ntc = 0;
	q->tx_used = 0;
	if (xsk_zc_rx_pool(&q->zrx))
		xsk_zc_rx_start(&q->zrx, &fake_rx_hw);
	napi_enable(&q->rx_napi);
	napi_enable(&q->tx_napi);
}

/* Stops the queue and, as a driver's TX ring cleanup, hands back the
 * buffers XDP_TX left on the TX ring.
 */
static void fake_queue_hw_stop(struct fake_queue *q)
{
	u32 i;

	napi_disable(&q->tx_napi);
	napi_disable(&q->rx_napi);
	for (i = 0; i < FAKE_RING; i++) {
		if (q->tx_desc[i].xdp_tx)
			xsk_zc_tx_xdp_done(&q->ztx, q->tx_desc[i].xdp_tx);
		q->tx_desc[i].xdp_tx = NULL;
	}
}

static void fake_op_queue(struct net_device *dev, u32 qid,
			  struct xsk_zc_queue_info *qi)
{
	struct fake_nic *nic = fake_nic_of(dev);
	struct fake_queue *q = &nic->q[qid];

	if (nic->rings_gone)
		return;
	qi->rx = &q->zrx;
	qi->tx = &q->ztx;
	qi->rx_napi = &q->rx_napi;
	qi->tx_napi = nic->one_napi ? &q->rx_napi : &q->tx_napi;
	if (nic->dma_stopped)
		qi->running = false;
}

static int fake_op_prepare(struct net_device *dev, u32 qid,
			   struct xsk_buff_pool *pool)
{
	struct fake_nic *nic = fake_nic_of(dev);

	nic->prepares++;
	return nic->prepare_err;
}

static void fake_op_queue_stop(struct net_device *dev, u32 qid)
{
	struct fake_nic *nic = fake_nic_of(dev);
	struct fake_queue *q = &nic->q[qid];

	/* igb would dereference a NULL ring here */
	if (nic->rings_gone) {
		nic->calls_without_rings++;
		return;
	}
	q->stops++;
	fake_queue_hw_stop(q);
}

static void fake_op_queue_start(struct net_device *dev, u32 qid)
{
	struct fake_nic *nic = fake_nic_of(dev);
	struct fake_queue *q = &nic->q[qid];

	if (nic->rings_gone) {
		nic->calls_without_rings++;
		return;
	}
	q->starts++;
	fake_queue_hw_start(q);
}

const struct xsk_zc_ops fake_ops = {
	.frame_overhead = ETH_HLEN + 2 * VLAN_HLEN,
	.max_segs = FAKE_MAX_SEGS,
	.queue = fake_op_queue,
	.prepare = fake_op_prepare,
	.queue_stop = fake_op_queue_stop,
	.queue_start = fake_op_queue_start,
};

/* The interrupt it raises runs NAPI, as igb's EICS write does. */
static void fake_op_irq_raise(struct net_device *dev, u32 qid,
			      struct napi_struct *napi)
{
	fake_nic_of(dev)->irqs_raised++;
	local_bh_disable();
	napi_schedule(napi);
	local_bh_enable();
}

/* fake_ops with irq_raise, as a driver that runs NAPI on its IRQ's CPU */
const struct xsk_zc_ops fake_irq_ops = {
	.frame_overhead = ETH_HLEN + 2 * VLAN_HLEN,
	.max_segs = FAKE_MAX_SEGS,
	.queue = fake_op_queue,
	.prepare = fake_op_prepare,
	.queue_stop = fake_op_queue_stop,
	.queue_start = fake_op_queue_start,
	.irq_raise = fake_op_irq_raise,
};

static int fake_ndo_open(struct net_device *dev)
{
	struct fake_nic *nic = fake_nic_of(dev);
	int i, err;

	for (i = 0; i < FAKE_QUEUES; i++) {
		struct fake_queue *q = &nic->q[i];

		/* Registered at open, as tsnep does, so pool setup cannot
		 * fail on it.
		 */
		err = xdp_rxq_info_reg(&q->xdp_rxq, dev, i, q->rx_napi.napi_id);
		if (!err)
			err = xdp_rxq_info_reg_mem_model(&q->xdp_rxq,
							 MEM_TYPE_XSK_BUFF_POOL,
							 NULL);
		if (err)
			return err;
		fake_queue_hw_start(q);
	}
	return 0;
}

static int fake_ndo_stop(struct net_device *dev)
{
	struct fake_nic *nic = fake_nic_of(dev);
	int i;

	/* as __igb_close(): a suspended NIC is woken to be closed */
	if (dev->dev.parent)
		pm_runtime_get_sync(dev->dev.parent);
	for (i = 0; i < FAKE_QUEUES; i++) {
		fake_queue_hw_stop(&nic->q[i]);
		xsk_zc_rx_ring_clean(&nic->q[i].zrx);
		xdp_rxq_info_unreg(&nic->q[i].xdp_rxq);
	}
	if (dev->dev.parent)
		pm_runtime_put(dev->dev.parent);
	return 0;
}

static int fake_ndo_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	struct fake_nic *nic = fake_nic_of(dev);

	switch (bpf->command) {
	case XDP_SETUP_XSK_POOL:
		return xsk_zc_pool_setup(&nic->zc, bpf->xsk.pool,
					 bpf->xsk.queue_id);
	default:
		return -EINVAL;
	}
}

static int fake_ndo_xsk_wakeup(struct net_device *dev, u32 qid, u32 flags)
{
	return xsk_zc_wakeup(&fake_nic_of(dev)->zc, qid, flags);
}

static int fake_ndo_change_mtu(struct net_device *dev, int mtu)
{
	int err = xsk_zc_check_mtu(&fake_nic_of(dev)->zc, mtu);

	if (!err)
		WRITE_ONCE(dev->mtu, mtu);
	return err;
}

static netdev_tx_t fake_ndo_start_xmit(struct sk_buff *skb,
				       struct net_device *dev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops fake_netdev_ops = {
	.ndo_open = fake_ndo_open,
	.ndo_stop = fake_ndo_stop,
	.ndo_start_xmit = fake_ndo_start_xmit,
	.ndo_change_mtu = fake_ndo_change_mtu,
	.ndo_bpf = fake_ndo_bpf,
	.ndo_xsk_wakeup = fake_ndo_xsk_wakeup,
};

static void fake_nic_destroy(void *data)
{
	struct fake_nic *nic = data;
	int i;

	if (!nic->unregistered)
		unregister_netdev(nic->netdev);
	for (i = 0; i < FAKE_QUEUES; i++) {
		netif_napi_del(&nic->q[i].rx_napi);
		netif_napi_del(&nic->q[i].tx_napi);
	}
	xsk_zc_dev_destroy(&nic->zc);
	free_netdev(nic->netdev);
}

/* New ring structures, as a driver that frees and allocates its rings
 * anew (igb on resume) has them: blank, then described.
 */
void fake_nic_new_rings(struct fake_nic *nic)
{
	int i;

	for (i = 0; i < FAKE_QUEUES; i++) {
		struct fake_queue *q = &nic->q[i];

		memset(&q->zrx, 0, sizeof(q->zrx));
		memset(&q->ztx, 0, sizeof(q->ztx));
		xsk_zc_rx_ring_init(&q->zrx, nic->netdev, i, FAKE_RING,
				    &q->xdp_rxq);
		xsk_zc_tx_ring_init(&q->ztx, nic->netdev, i, FAKE_TX_RESERVE,
				    true);
	}
}

/* ---- runtime PM as igb does it: the rings go with the power ---- */

static int fake_runtime_suspend(struct device *dma_dev)
{
	struct fake_nic *nic = dev_get_drvdata(dma_dev);
	int i;

	/* __igb_shutdown(): detach, close the queues, free the rings */
	rtnl_lock();
	netif_device_detach(nic->netdev);
	for (i = 0; netif_running(nic->netdev) && i < FAKE_QUEUES; i++) {
		struct fake_queue *q = &nic->q[i];

		fake_queue_hw_stop(q);
		xsk_zc_rx_ring_clean(&q->zrx);
		xsk_zc_tx_complete(&q->ztx, q->ztx.in_flight);
	}
	nic->rings_gone = true;
	rtnl_unlock();
	nic->runtime_suspends++;
	return 0;
}

static int fake_runtime_resume(struct device *dma_dev)
{
	struct fake_nic *nic = dev_get_drvdata(dma_dev);
	int i;

	/* __igb_resume(rpm = true): new rings, open; no RTNL taken */
	fake_nic_new_rings(nic);
	nic->rings_gone = false;
	xsk_zc_rings_reattach(&nic->zc);
	for (i = 0; netif_running(nic->netdev) && i < FAKE_QUEUES; i++)
		fake_queue_hw_start(&nic->q[i]);
	netif_device_attach(nic->netdev);
	nic->runtime_resumes++;
	return 0;
}

/* Only a link loss suspends igb; here only the test does. */
static int fake_runtime_idle(struct device *dma_dev)
{
	return -EBUSY;
}

/* The callbacks of the PCI device's driver (igb_pm_ops) */
static const struct dev_pm_ops fake_pm_ops = {
	.runtime_suspend = fake_runtime_suspend,
	.runtime_resume = fake_runtime_resume,
	.runtime_idle = fake_runtime_idle,
};

static void fake_pm_disable(void *data)
{
	pm_runtime_disable(data);
}

static struct fake_nic *__fake_nic_create(struct kunit *test,
					  const struct xsk_zc_ops *ops,
					  bool pm)
{
	static atomic_t nics = ATOMIC_INIT(0);
	struct device_driver *drv;
	struct net_device *dev;
	struct fake_nic *nic;
	char name[24];
	int i, err;

	nic = kunit_kzalloc(test, sizeof(*nic), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nic);

	/* unique: a test may have two NICs */
	snprintf(name, sizeof(name), "xsk_zc_fake%d", atomic_inc_return(&nics));
	/* bound to a driver of its own, which has the runtime PM callbacks */
	drv = kunit_driver_create(test, name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(drv));
	if (pm)
		drv->pm = &fake_pm_ops;
	nic->dma_dev = kunit_device_register_with_driver(test, name, drv);
	KUNIT_ASSERT_FALSE(test, IS_ERR(nic->dma_dev));
	nic->dma_dev->dma_mask = &nic->dma_dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(nic->dma_dev,
							DMA_BIT_MASK(64)), 0);

	dev = alloc_etherdev_mqs(sizeof(nic), FAKE_QUEUES, FAKE_QUEUES);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	if (pm) {
		/* the PCI device of a NIC with runtime PM, active */
		dev_set_drvdata(nic->dma_dev, nic);
		pm_runtime_set_active(nic->dma_dev);
		pm_runtime_enable(nic->dma_dev);
		err = kunit_add_action_or_reset(test, fake_pm_disable,
						nic->dma_dev);
		KUNIT_ASSERT_EQ(test, err, 0);
		SET_NETDEV_DEV(dev, nic->dma_dev);
	}
	*(struct fake_nic **)netdev_priv(dev) = nic;
	nic->netdev = dev;
	dev->netdev_ops = &fake_netdev_ops;
	dev->xdp_metadata_ops = &fake_xdp_metadata_ops;
	dev->max_mtu = 9000;
	dev->xdp_features = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT |
			    NETDEV_XDP_ACT_XSK_ZEROCOPY;
	eth_hw_addr_random(dev);

	err = xsk_zc_dev_init(&nic->zc, dev, nic->dma_dev, ops, FAKE_QUEUES);
	if (err)
		free_netdev(dev);
	KUNIT_ASSERT_EQ(test, err, 0);

	for (i = 0; i < FAKE_QUEUES; i++) {
		struct fake_queue *q = &nic->q[i];

		q->nic = nic;
		q->qid = i;
		netif_napi_add(dev, &q->rx_napi, fake_rx_napi_poll);
		netif_napi_add_tx(dev, &q->tx_napi, fake_tx_napi_poll);
		xsk_zc_rx_ring_init(&q->zrx, dev, i, FAKE_RING, &q->xdp_rxq);
		xsk_zc_tx_ring_init(&q->ztx, dev, i, FAKE_TX_RESERVE, true);
	}

	err = register_netdev(dev);
	if (err) {
		xsk_zc_dev_destroy(&nic->zc);
		free_netdev(dev);
	}
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fake_nic_destroy,
							nic), 0);
	return nic;
}

struct fake_nic *fake_nic_create(struct kunit *test,
				 const struct xsk_zc_ops *ops)
{
	return __fake_nic_create(test, ops, false);
}

/* The fake NIC as a runtime-PM device (pm_runtime_suspend(nic->dma_dev)
 * frees its rings, a resume gives them back), with fake_ops.
 */
struct fake_nic *fake_nic_create_pm(struct kunit *test)
{
	return __fake_nic_create(test, &fake_ops, true);
}

void fake_nic_set_up(struct kunit *test, struct fake_nic *nic, bool up)
{
	int err = 0;

	rtnl_lock();
	if (up)
		err = dev_open(nic->netdev, NULL);
	else
		dev_close(nic->netdev);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
}

/* ---- the user-space side of an AF_XDP socket ---- */

static void fake_xsk_action_release(void *data)
{
	fake_xsk_release(data);
}

static int fake_setsockopt_int(struct socket *sock, int opt, int val)
{
	return sock->ops->setsockopt(sock, SOL_XDP, opt, KERNEL_SOCKPTR(&val),
				     sizeof(val));
}

static struct fake_xsk *__fake_xsk_create(struct kunit *test, u32 frame_size,
					  u32 rx_ring, u32 tx_metadata_len)
{
	struct xdp_umem_reg mr = {
		.len = FAKE_UMEM_FRAMES * frame_size,
		.chunk_size = frame_size,
		.flags = tx_metadata_len ? XDP_UMEM_TX_METADATA_LEN : 0,
		.tx_metadata_len = tx_metadata_len,
	};
	struct socket *sock;
	struct fake_xsk *x;
	unsigned long umem;
	int err;

	x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	x->test = test;
	x->frame_size = frame_size;
	x->tx_metadata_len = tx_metadata_len;

	/* The UMEM must be user memory: this gives the test thread an mm. */
	umem = kunit_vm_mmap(test, NULL, 0, FAKE_UMEM_SIZE,
			     PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE,
			     0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(umem));
	KUNIT_ASSERT_NE(test, umem, 0);
	x->umem = (u8 __user *)umem;
	mr.addr = umem;

	err = sock_create_kern(&init_net, PF_XDP, SOCK_RAW, 0, &x->sock);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = kunit_add_action_or_reset(test, fake_xsk_action_release, x);
	KUNIT_ASSERT_EQ(test, err, 0);
	sock = x->sock;
	x->xs = xdp_sk(sock->sk);

	err = sock->ops->setsockopt(sock, SOL_XDP, XDP_UMEM_REG,
				    KERNEL_SOCKPTR(&mr), sizeof(mr));
	err = err ?: fake_setsockopt_int(sock, XDP_UMEM_FILL_RING, FAKE_XSK_RING);
	err = err ?: fake_setsockopt_int(sock, XDP_UMEM_COMPLETION_RING,
					 FAKE_XSK_RING);
	err = err ?: fake_setsockopt_int(sock, XDP_RX_RING, rx_ring);
	err = err ?: fake_setsockopt_int(sock, XDP_TX_RING, FAKE_XSK_RING);
	KUNIT_ASSERT_EQ(test, err, 0);

	x->fq = x->xs->fq_tmp;
	x->cq = x->xs->cq_tmp;
	x->rx = x->xs->rx;
	x->tx = x->xs->tx;
	x->umem_kva = x->xs->umem->addrs;
	return x;
}

struct fake_xsk *fake_xsk_create_sized(struct kunit *test, u32 frame_size,
				       u32 rx_ring)
{
	return __fake_xsk_create(test, frame_size, rx_ring, 0);
}

/* A socket whose UMEM has room for TX metadata before each frame */
struct fake_xsk *fake_xsk_create_tx_meta(struct kunit *test)
{
	return __fake_xsk_create(test, FAKE_FRAME, FAKE_XSK_RING,
				 sizeof(struct xsk_tx_metadata));
}

struct fake_xsk *fake_xsk_create(struct kunit *test)
{
	return fake_xsk_create_sized(test, FAKE_FRAME, FAKE_XSK_RING);
}

int fake_xsk_bind(struct fake_xsk *x, struct fake_nic *nic,
		  const struct fake_xsk_cfg *cfg)
{
	return fake_xsk_bind_dev(x, nic->netdev, cfg);
}

/* Binds to any netdev: a driver's own, in the suites of its glue code. */
int fake_xsk_bind_dev(struct fake_xsk *x, struct net_device *dev,
		      const struct fake_xsk_cfg *cfg)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = dev->ifindex,
		.sxdp_queue_id = cfg->qid,
		.sxdp_flags = cfg->copy ? XDP_COPY : XDP_ZEROCOPY,
	};
	int err;

	if (cfg->need_wakeup)
		sxdp.sxdp_flags |= XDP_USE_NEED_WAKEUP;
	if (cfg->sg)
		sxdp.sxdp_flags |= XDP_USE_SG;

	err = x->sock->ops->bind(x->sock, (struct sockaddr_unsized *)&sxdp,
				 sizeof(sxdp));
	if (!err && !cfg->copy)
		x->pool = x->xs->pool;
	else if (!err)
		x->copy_pool = x->xs->pool;
	return err;
}

/* Detaches the pool from the NIC the way the core does on unbind, but
 * synchronously, while the socket stays alive for inspection.
 */
void fake_xsk_unbind(struct fake_xsk *x)
{
	rtnl_lock();
	xp_clear_dev(x->pool);
	rtnl_unlock();
}

void fake_xsk_release(struct fake_xsk *x)
{
	if (!x->sock)
		return;
	if (x->pool)
		fake_xsk_unbind(x);
	sock_release(x->sock);
	x->sock = NULL;
}

void *fake_umem_va(struct fake_xsk *x, u64 addr)
{
	return x->umem_kva + addr;
}

static u64 *fake_umem_ring(struct xsk_queue *q)
{
	return ((struct xdp_umem_ring *)q->ring)->desc;
}

static struct xdp_desc *fake_rxtx_ring(struct xsk_queue *q)
{
	return ((struct xdp_rxtx_ring *)q->ring)->desc;
}

/* Puts @n frames from the RX half of the UMEM on the fill ring. */
u32 fake_fq_put(struct fake_xsk *x, u32 n)
{
	struct xsk_queue *q = x->fq;
	u32 prod = q->ring->producer;
	/* Pairs with the kernel's release of the consumer index. */
	u32 cons = smp_load_acquire(&q->ring->consumer);
	u32 i;

	n = min(n, q->nentries - (prod - cons));
	for (i = 0; i < n; i++) {
		fake_umem_ring(q)[(prod + i) & q->ring_mask] =
			(x->next_rx_frame % FAKE_RX_FRAMES) * x->frame_size;
		x->next_rx_frame++;
	}
	/* Publishes the entries before the index, as libxdp does. */
	smp_store_release(&q->ring->producer, prod + n);
	return n;
}

/* Fill ring entries the kernel has taken so far. */
u32 fake_fq_taken(struct fake_xsk *x)
{
	return x->fq->cached_cons;
}

/* Takes everything off the completion ring; returns how much. */
u32 fake_cq_take(struct fake_xsk *x)
{
	struct xsk_queue *q = x->cq;
	/* Pairs with the kernel's release of the producer index. */
	u32 prod = smp_load_acquire(&q->ring->producer);
	u32 n = prod - q->ring->consumer;

	/* Hands the entries back only after reading them. */
	smp_store_release(&q->ring->consumer, prod);
	return n;
}

u32 fake_rx_count(struct fake_xsk *x)
{
	struct xsk_queue *q = x->rx;

	/* Pairs with the kernel's release of the producer index. */
	return smp_load_acquire(&q->ring->producer) - q->ring->consumer;
}

bool fake_rx_get(struct fake_xsk *x, struct xdp_desc *desc)
{
	struct xsk_queue *q = x->rx;
	u32 cons = q->ring->consumer;

	/* Pairs with the kernel's release of the producer index. */
	if (smp_load_acquire(&q->ring->producer) == cons)
		return false;
	*desc = fake_rxtx_ring(q)[cons & q->ring_mask];
	/* Hands the entry back only after reading it. */
	smp_store_release(&q->ring->consumer, cons + 1);
	return true;
}

/* Writes @n descriptors of @len bytes at the TX ring's producer index,
 * each on the next TX frame, and publishes them; with @frame they are one
 * frame: XDP_PKT_CONTD on all but the last. The caller checked the room.
 */
static void fake_tx_write(struct fake_xsk *x, u32 n, u32 len, bool frame)
{
	struct xsk_queue *q = x->tx;
	u32 prod = q->ring->producer;
	u32 i;

	for (i = 0; i < n; i++) {
		u64 chunk = FAKE_RX_FRAMES + x->next_tx_frame % FAKE_RX_FRAMES;
		struct xdp_desc *d = &fake_rxtx_ring(q)[(prod + i) & q->ring_mask];

		d->addr = chunk * x->frame_size;
		d->len = len;
		d->options = frame && i + 1 < n ? XDP_PKT_CONTD : 0;
		memset(fake_umem_va(x, d->addr), x->next_tx_frame & 0xff, len);
		x->next_tx_frame++;
	}
	/* Publishes the descriptors before the index. */
	smp_store_release(&q->ring->producer, prod + n);
}

/* Free entries of the socket's TX ring, as user space sees them */
static u32 fake_tx_room(struct fake_xsk *x)
{
	struct xsk_queue *q = x->tx;
	/* Pairs with the kernel's release of the consumer index. */
	u32 cons = smp_load_acquire(&q->ring->consumer);

	return q->nentries - (q->ring->producer - cons);
}

/* Puts @n frames of @len bytes from the TX half of the UMEM on the TX
 * ring; each frame starts with its index.
 */
u32 fake_tx_put(struct fake_xsk *x, u32 n, u32 len)
{
	n = min(n, fake_tx_room(x));
	fake_tx_write(x, n, len, false);
	return n;
}

/* One frame of @segs descriptors of @len bytes each, XDP_PKT_CONTD on all
 * but the last; returns @segs, or 0 when the TX ring has no room for it.
 */
u32 fake_tx_put_frame(struct fake_xsk *x, u32 segs, u32 len)
{
	if (fake_tx_room(x) < segs)
		return 0;
	fake_tx_write(x, segs, len, true);
	return segs;
}

/* One frame of @len bytes after its TX metadata, with descriptor
 * @options and metadata @flags; returns the metadata in the UMEM, or
 * NULL when the TX ring is full. A checksum request covers the frame
 * from byte 14 and stores the sum at byte 16 of it.
 */
struct xsk_tx_metadata *fake_tx_put_meta(struct fake_xsk *x, u32 len,
					 u32 options, u64 flags)
{
	struct xsk_queue *q = x->tx;
	u32 prod = q->ring->producer;
	/* Pairs with the kernel's release of the consumer index. */
	u32 cons = smp_load_acquire(&q->ring->consumer);
	u64 frame = FAKE_RX_FRAMES + x->next_tx_frame % FAKE_RX_FRAMES;
	struct xsk_tx_metadata *meta;
	struct xdp_desc *d;

	if (prod - cons == q->nentries)
		return NULL;
	d = &fake_rxtx_ring(q)[prod & q->ring_mask];
	d->addr = frame * x->frame_size + x->tx_metadata_len;
	d->len = len;
	d->options = options;
	meta = fake_umem_va(x, d->addr - x->tx_metadata_len);
	memset(meta, 0, sizeof(*meta));
	meta->flags = flags;
	if (flags & XDP_TXMD_FLAGS_CHECKSUM) {
		meta->request.csum_start = 14;
		meta->request.csum_offset = 16;
	}
	memset(fake_umem_va(x, d->addr), x->next_tx_frame & 0xff, len);
	x->next_tx_frame++;
	/* Publishes the descriptor before the index. */
	smp_store_release(&q->ring->producer, prod + 1);
	return meta;
}

bool fake_fq_needs_wakeup(struct fake_xsk *x)
{
	return READ_ONCE(x->fq->ring->flags) & XDP_RING_NEED_WAKEUP;
}

bool fake_tx_needs_wakeup(struct fake_xsk *x)
{
	return READ_ONCE(x->tx->ring->flags) & XDP_RING_NEED_WAKEUP;
}

/* ---- a stand-in for a BPF program: a C function with a verdict ---- */

struct fake_prog_cfg {
	u32 act;
	u32 meta_len;
	int head;	/* what bpf_xdp_adjust_head() moves data by */
	bool hints;	/* read the RX hash kfunc, as the verifier calls it */
	bool frags;	/* takes fragments: note what it saw in the fake queue */
	struct xdp_sock *redirect_to;
	u32 redirect_ifindex;
};

static unsigned int fake_prog_run(const void *ctx, const struct bpf_insn *insn)
{
	const struct fake_prog_cfg *cfg = (const void *)insn;
	struct xdp_buff *xdp = (struct xdp_buff *)ctx;

	if (cfg->frags) {
		struct fake_queue *q = container_of(xdp->rxq, struct fake_queue,
						    xdp_rxq);

		q->prog_len = xdp_get_buff_len(xdp);
		q->prog_frags = xdp_buff_has_frags(xdp) ?
			xdp_get_shared_info_from_buff(xdp)->nr_frags : 0;
	}
	if (cfg->head) {
		xdp->data += cfg->head;
		xdp->data_meta = xdp->data;
	}
	if (cfg->hints) {
		/* a dev-bound program's kfunc call, resolved to the driver's */
		struct fake_queue *q = container_of(xdp->rxq, struct fake_queue,
						    xdp_rxq);
		const struct xdp_metadata_ops *xmo = xdp->rxq->dev->xdp_metadata_ops;
		enum xdp_rss_hash_type type;
		u32 hash = 0;
		int err;

		err = xmo->xmo_rx_hash(ctx, &hash, &type);
		if (err)
			q->hint_err = err;
		else
			q->hint_hash[q->hints++ % FAKE_RING] = hash;
	}
	if (cfg->meta_len) {
		xdp->data_meta = xdp->data - cfg->meta_len;
		memset(xdp->data_meta, 0xa5, cfg->meta_len);
	}
	if (cfg->act == XDP_REDIRECT && cfg->redirect_to) {
		/* What bpf_redirect_map() on an XSKMAP leaves behind. */
		struct bpf_redirect_info *ri = bpf_net_ctx_get_ri();

		ri->tgt_value = cfg->redirect_to;
		ri->map_type = BPF_MAP_TYPE_XSKMAP;
		ri->map_id = 0;
	}
	if (cfg->act == XDP_REDIRECT && cfg->redirect_ifindex) {
		/* What bpf_redirect() leaves behind. */
		struct bpf_redirect_info *ri = bpf_net_ctx_get_ri();

		ri->tgt_index = cfg->redirect_ifindex;
		ri->map_type = BPF_MAP_TYPE_UNSPEC;
		ri->map_id = INT_MAX;
		ri->flags = 0;
	}
	return cfg->act;
}

static void fake_prog_free(void *data)
{
	__bpf_prog_free(data);
}

struct bpf_prog *fake_prog_create(struct kunit *test, u32 act)
{
	struct fake_prog_cfg *cfg;
	struct bpf_prog *prog;
	u32 insns = DIV_ROUND_UP(sizeof(*cfg), sizeof(struct bpf_insn));

	prog = bpf_prog_alloc(bpf_prog_size(insns), 0);
	KUNIT_ASSERT_NOT_NULL(test, prog);
	prog->len = insns;
	prog->type = BPF_PROG_TYPE_XDP;
	prog->bpf_func = fake_prog_run;
	cfg = (void *)prog->insnsi;
	cfg->act = act;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fake_prog_free,
							prog), 0);
	return prog;
}

void fake_prog_set_redirect(struct bpf_prog *prog, struct fake_xsk *x)
{
	((struct fake_prog_cfg *)prog->insnsi)->redirect_to = x->xs;
}

void fake_prog_set_redirect_ifindex(struct bpf_prog *prog, u32 ifindex)
{
	((struct fake_prog_cfg *)prog->insnsi)->redirect_ifindex = ifindex;
}

void fake_prog_set_head(struct bpf_prog *prog, int delta)
{
	((struct fake_prog_cfg *)prog->insnsi)->head = delta;
}

void fake_prog_set_hints(struct bpf_prog *prog)
{
	((struct fake_prog_cfg *)prog->insnsi)->hints = true;
}

/* A program that takes multi-buffer frames: SEC("xdp.frags") */
void fake_prog_set_frags(struct bpf_prog *prog)
{
	((struct fake_prog_cfg *)prog->insnsi)->frags = true;
	prog->aux->xdp_has_frags = true;
}

void fake_prog_set_meta(struct bpf_prog *prog, u32 meta_len)
{
	((struct fake_prog_cfg *)prog->insnsi)->meta_len = meta_len;
}

MODULE_DESCRIPTION("KUnit tests for the AF_XDP zero-copy driver helpers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("XSK_ZC");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
