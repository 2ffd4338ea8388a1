/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driver-side helpers for AF_XDP zero-copy.
 */
#ifndef _NET_XSK_ZC_H
#define _NET_XSK_ZC_H

#include <linux/bpf_trace.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <net/xdp.h>
#include <net/xdp_sock_drv.h>

/**
 * DOC: xsk_zc overview
 *
 * xsk_zc does the parts of AF_XDP zero-copy that are the same in every
 * driver, so that a driver only describes its descriptors and queues.
 *
 * Which call to use when:
 *
 * - probe: fill a ``static const struct xsk_zc_ops``, call
 *   xsk_zc_dev_init() and OR xsk_zc_xdp_features() into
 *   ``netdev->xdp_features``.
 * - ring allocation: xsk_zc_rx_ring_init() and xsk_zc_tx_ring_init() on
 *   the &struct xsk_zc_rx_ring and &struct xsk_zc_tx_ring embedded in the
 *   driver's own rings.
 * - ``ndo_bpf(XDP_SETUP_XSK_POOL)``: xsk_zc_pool_setup(). It validates,
 *   prepares, maps, quiesces the queue through the ops table, swaps and
 *   restarts; a failure changes nothing.
 * - ring (re)configuration, from ``ops->queue_start`` or open:
 *   xsk_zc_rx_pool() tells whether the ring runs zero-copy; if so,
 *   xsk_zc_rx_ring_reset() and xsk_zc_rx_refill().
 * - NAPI poll: xsk_zc_rx_poll() for RX, xsk_zc_tx_complete() for the
 *   zero-copy frames the driver cleaned, then xsk_zc_tx_xmit().
 * - ``ndo_xsk_wakeup``: xsk_zc_wakeup().
 * - ``ndo_change_mtu``: xsk_zc_check_mtu() before accepting the MTU.
 * - remove: xsk_zc_dev_destroy().
 *
 * The hot-path helpers are ``static __always_inline`` and take a pointer
 * to a ``static const`` table of descriptor callbacks (&struct
 * xsk_zc_rx_hw, &struct xsk_zc_tx_hw). The compiler resolves those calls
 * in the driver's poll function, so there is no indirect call per packet.
 */

struct xsk_zc_dev;

/* A tail equal to the head means "empty" on most NICs, so one descriptor
 * of every RX ring stays without a buffer.
 */
#define XSK_ZC_RX_RING_GAP	1

/**
 * struct xsk_zc_rx_stats - per-queue RX counters, updated once per poll
 * @packets: frames received
 * @bytes: bytes received
 * @redirect: frames redirected (XDP_REDIRECT, usually into the socket)
 * @xdp_tx: frames sent back out with XDP_TX
 * @pass: frames copied into an skb for the stack
 * @drop: frames dropped: XDP_DROP, XDP_ABORTED, failed redirect or TX
 * @alloc_fail: polls that could not fill the whole ring deficit
 * @fill_empty: frames dropped to keep one buffer on an empty ring
 * @syncp: protects the counters for 32-bit readers
 */
struct xsk_zc_rx_stats {
	u64 packets;
	u64 bytes;
	u64 redirect;
	u64 xdp_tx;
	u64 pass;
	u64 drop;
	u64 alloc_fail;
	u64 fill_empty;
	struct u64_stats_sync syncp;
};

/**
 * struct xsk_zc_rx_ring - zero-copy state of one RX ring
 * @pool: the XSK buffer pool, NULL while the ring is not zero-copy.
 *	Written by the library with WRITE_ONCE() while the queue is stopped.
 * @bufs: the buffer posted at each descriptor index
 * @count: descriptors in the hardware ring
 * @next_to_use: next descriptor the refill writes
 * @next_to_clean: next descriptor the driver's ``next`` callback reads
 * @pending: descriptors without a buffer (the ring deficit)
 * @keep_one_posted: when the fill ring is empty and the last posted buffer
 *	comes back, drop its frame and post the buffer again, so the NIC
 *	never sees an empty ring (tsnep relies on this)
 * @netdev: the owning netdev, for redirect and skb delivery
 * @xdp_rxq: the driver's rxq info registered with MEM_TYPE_XSK_BUFF_POOL
 * @qid: queue index
 * @stats: counters
 *
 * Embed it in the driver's RX ring; callbacks get back to the driver ring
 * with container_of().
 */
struct xsk_zc_rx_ring {
	/* fast: read for every frame */
	struct xsk_buff_pool *pool;
	struct xdp_buff **bufs;
	u32 count;
	u32 next_to_use;
	u32 next_to_clean;
	u32 pending;
	bool keep_one_posted;

	/* slow: setup only */
	struct net_device *netdev;
	struct xdp_rxq_info *xdp_rxq;
	u32 qid;
	struct xsk_zc_rx_stats stats;
};

/**
 * struct xsk_zc_tx_ring - zero-copy state of one TX ring
 * @pool: the XSK buffer pool, NULL while the ring is not zero-copy
 * @txq: the stack's queue when the ring is shared with it: xmit then runs
 *	under its lock and feeds its hang detector. NULL for a ring that
 *	only carries XDP frames.
 * @reserve: descriptors kept free for the stack's skb path (an skb with
 *	all its fragments must still fit: MAX_SKB_FRAGS + 1 is typical)
 * @in_flight: zero-copy frames on the ring, not yet completed
 * @packets: frames sent
 * @bytes: bytes sent
 * @syncp: protects @packets and @bytes for 32-bit readers
 * @netdev: the owning netdev
 * @qid: queue index
 */
struct xsk_zc_tx_ring {
	/* fast */
	struct xsk_buff_pool *pool;
	struct netdev_queue *txq;
	u32 reserve;
	u32 in_flight;
	u64 packets;
	u64 bytes;
	struct u64_stats_sync syncp;

	/* slow */
	struct net_device *netdev;
	u32 qid;
};

/**
 * struct xsk_zc_ops - per-driver slow-path operations
 * @rx_zc: the driver does RX zero-copy
 * @tx_zc: the driver does TX zero-copy
 * @frame_overhead: bytes a received frame needs beyond the MTU: Ethernet
 *	header, VLAN tags, FCS or inline metadata the NIC writes
 * @rx_ring: the RX ring of a queue
 * @tx_ring: the TX ring of a queue
 * @prepare: optional; allocate what the queue needs in zero-copy mode.
 *	Runs before the queue is stopped and may fail.
 * @unprepare: optional; free what @prepare allocated. Runs on a failed
 *	setup or after teardown, with the queue not using it.
 * @queue_stop: stop the queue's hardware rings and disable its NAPI; must
 *	not fail. Only called while the netdev is running.
 * @queue_start: reconfigure the rings from what they hold now (pool or
 *	not), enable NAPI and the hardware; must not fail.
 * @napi: the NAPI instance serving RX (@tx false) or TX of a queue
 * @irq_raise: optional; raise the interrupt of @napi instead of
 *	scheduling it from the caller's CPU
 * @xdp_active: optional; whether the driver runs an XDP program. Without
 *	it, a pool works with or without a program.
 */
struct xsk_zc_ops {
	bool rx_zc;
	bool tx_zc;
	u32 frame_overhead;

	struct xsk_zc_rx_ring *(*rx_ring)(struct net_device *dev, u32 qid);
	struct xsk_zc_tx_ring *(*tx_ring)(struct net_device *dev, u32 qid);
	int (*prepare)(struct net_device *dev, u32 qid,
		       struct xsk_buff_pool *pool,
		       struct netlink_ext_ack *extack);
	void (*unprepare)(struct net_device *dev, u32 qid,
			  struct xsk_buff_pool *pool);
	void (*queue_stop)(struct net_device *dev, u32 qid);
	void (*queue_start)(struct net_device *dev, u32 qid);
	struct napi_struct *(*napi)(struct net_device *dev, u32 qid, bool tx);
	void (*irq_raise)(struct net_device *dev, u32 qid,
			  struct napi_struct *napi);
	bool (*xdp_active)(struct net_device *dev);
};

/**
 * struct xsk_zc_dev - per-netdev state
 * @ops: the driver's operations
 * @netdev: the netdev
 * @dma_dev: the device that DMA-maps the UMEM
 * @max_queues: size of @zc_queues
 * @zc_queues: which queues run zero-copy
 */
struct xsk_zc_dev {
	const struct xsk_zc_ops *ops;
	struct net_device *netdev;
	struct device *dma_dev;
	u32 max_queues;
	unsigned long *zc_queues;
};

/**
 * struct xsk_zc_rx_desc - what the driver read from a completed descriptor
 * @len: bytes the NIC wrote, @offset included
 * @offset: bytes of inline metadata before the frame
 * @drop: the descriptor reports an error: drop the frame
 * @hw_desc: the driver's descriptor, for its ``populate`` callback
 */
struct xsk_zc_rx_desc {
	u32 len;
	u32 offset;
	bool drop;
	const void *hw_desc;
};

/**
 * struct xsk_zc_rx_hw - RX descriptor callbacks, inlined into the poll
 * @next: return the buffer of the next completed descriptor and describe
 *	it in @desc, or NULL when none is complete. Implement it with
 *	xsk_zc_rx_take() for a ring of descriptors indexed like @bufs.
 * @fill: post @xdp, at DMA address @dma, at descriptor @idx
 * @kick: tell the NIC about new descriptors up to @ntu (tail write);
 *	called once per refill
 * @xmit: optional; send @xdp back out (XDP_TX). Returns false when it
 *	could not, and the library then frees @xdp. On success the driver
 *	owns @xdp.
 * @xmit_flush: optional; ring the TX doorbell once after a poll with
 *	XDP_TX frames
 * @populate: optional; fill in checksum, hash or timestamp of an skb made
 *	for XDP_PASS
 *
 * Always pass a pointer to a ``static const`` instance.
 */
struct xsk_zc_rx_hw {
	struct xdp_buff *(*next)(struct xsk_zc_rx_ring *rx,
				 struct xsk_zc_rx_desc *desc);
	void (*fill)(struct xsk_zc_rx_ring *rx, u32 idx, struct xdp_buff *xdp,
		     dma_addr_t dma);
	void (*kick)(struct xsk_zc_rx_ring *rx, u32 ntu);
	bool (*xmit)(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp);
	void (*xmit_flush)(struct xsk_zc_rx_ring *rx);
	void (*populate)(struct xsk_zc_rx_ring *rx, struct sk_buff *skb,
			 const struct xsk_zc_rx_desc *desc);
};

/**
 * struct xsk_zc_tx_hw - TX descriptor callbacks, inlined into xmit
 * @free_descs: free descriptors on the ring, read under the queue lock
 * @fill: write a descriptor for @desc at DMA address @dma
 * @kick: ring the doorbell; called once per batch
 *
 * Always pass a pointer to a ``static const`` instance.
 */
struct xsk_zc_tx_hw {
	u32 (*free_descs)(struct xsk_zc_tx_ring *tx);
	void (*fill)(struct xsk_zc_tx_ring *tx, const struct xdp_desc *desc,
		     dma_addr_t dma);
	void (*kick)(struct xsk_zc_tx_ring *tx);
};

int xsk_zc_dev_init(struct xsk_zc_dev *zc, struct net_device *netdev,
		    struct device *dma_dev, const struct xsk_zc_ops *ops,
		    u32 max_queues);
void xsk_zc_dev_destroy(struct xsk_zc_dev *zc);
xdp_features_t xsk_zc_xdp_features(const struct xsk_zc_ops *ops);
void xsk_zc_rx_ring_init(struct xsk_zc_rx_ring *rx, struct net_device *dev,
			 u32 qid, u32 count, struct xdp_rxq_info *xdp_rxq);
void xsk_zc_tx_ring_init(struct xsk_zc_tx_ring *tx, struct net_device *dev,
			 u32 qid, u32 reserve, bool shared_with_stack);
int xsk_zc_pool_setup(struct xsk_zc_dev *zc, struct xsk_buff_pool *pool,
		      u32 qid, struct netlink_ext_ack *extack);
int xsk_zc_check_mtu(struct xsk_zc_dev *zc, unsigned int mtu,
		     struct netlink_ext_ack *extack);
int xsk_zc_wakeup(struct xsk_zc_dev *zc, u32 qid, u32 flags);
void xsk_zc_rx_ring_reset(struct xsk_zc_rx_ring *rx);
void xsk_zc_rx_ring_clean(struct xsk_zc_rx_ring *rx);
struct sk_buff *xsk_zc_build_skb(struct napi_struct *napi,
				 const struct xdp_buff *xdp);
void xsk_zc_tx_complete(struct xsk_zc_tx_ring *tx, u32 frames);

/**
 * xsk_zc_queue_is_zc - whether a queue runs zero-copy
 * @zc: the netdev's xsk_zc state
 * @qid: queue index
 */
static inline bool xsk_zc_queue_is_zc(const struct xsk_zc_dev *zc, u32 qid)
{
	return qid < zc->max_queues && test_bit(qid, zc->zc_queues);
}

/**
 * xsk_zc_rx_pool - the pool of an RX ring, NULL when it is not zero-copy
 * @rx: the ring
 */
static inline struct xsk_buff_pool *xsk_zc_rx_pool(const struct xsk_zc_rx_ring *rx)
{
	return READ_ONCE(rx->pool);
}

/**
 * xsk_zc_tx_pool - the pool of a TX ring, NULL when it is not zero-copy
 * @tx: the ring
 */
static inline struct xsk_buff_pool *xsk_zc_tx_pool(const struct xsk_zc_tx_ring *tx)
{
	return READ_ONCE(tx->pool);
}

/**
 * xsk_zc_rx_update_need_wakeup - set or clear the RX need_wakeup flag
 * @rx: the ring
 * @wake: user space must wake the queue: the fill ring ran short or the
 *	socket's RX ring was full
 */
static inline void xsk_zc_rx_update_need_wakeup(struct xsk_zc_rx_ring *rx,
						bool wake)
{
	if (wake)
		xsk_set_rx_need_wakeup(rx->pool);
	else
		xsk_clear_rx_need_wakeup(rx->pool);
}

/**
 * xsk_zc_rx_take - detach the buffer at next_to_clean and advance
 * @rx: the ring
 *
 * For ``next`` callbacks of index-based rings, once the descriptor at
 * @rx->next_to_clean is known to be complete.
 */
static inline struct xdp_buff *xsk_zc_rx_take(struct xsk_zc_rx_ring *rx)
{
	u32 ntc = rx->next_to_clean;
	struct xdp_buff *xdp = rx->bufs[ntc];

	rx->bufs[ntc] = NULL;
	rx->next_to_clean = ntc + 1 == rx->count ? 0 : ntc + 1;
	rx->pending++;

	return xdp;
}

/**
 * xsk_zc_rx_refill - post buffers from the fill ring to cover the deficit
 * @rx: the ring
 * @hw: the driver's descriptor callbacks
 *
 * Allocates in batches, wrapping at the end of the ring, writes each
 * descriptor through @hw->fill and calls @hw->kick once.
 *
 * Return: true when the whole deficit was covered.
 */
static __always_inline bool xsk_zc_rx_refill(struct xsk_zc_rx_ring *rx,
					     const struct xsk_zc_rx_hw *hw)
{
	u32 want = rx->pending, ntu = rx->next_to_use, posted = 0;

	while (want) {
		u32 chunk = min(want, rx->count - ntu);
		u32 got, i;

		got = xsk_buff_alloc_batch(rx->pool, &rx->bufs[ntu], chunk);
		for (i = 0; i < got; i++) {
			struct xdp_buff *xdp = rx->bufs[ntu + i];

			hw->fill(rx, ntu + i, xdp, xsk_buff_xdp_get_dma(xdp));
		}
		posted += got;
		want -= got;
		ntu += got;
		if (ntu == rx->count)
			ntu = 0;
		if (got < chunk)
			break;
	}

	rx->next_to_use = ntu;
	rx->pending -= posted;
	if (posted)
		hw->kick(rx, ntu);

	return !rx->pending;
}

enum xsk_zc_rx_verdict {
	XSK_ZC_RX_CONSUMED,	/* buffer handed on or freed */
	XSK_ZC_RX_EXIT,		/* socket full: end the poll */
};

/* Runs the program on one frame and acts on the verdict. */
static __always_inline enum xsk_zc_rx_verdict
__xsk_zc_rx_one(struct xsk_zc_rx_ring *rx, struct napi_struct *napi,
		struct bpf_prog *prog, struct xdp_buff *xdp,
		const struct xsk_zc_rx_desc *desc,
		const struct xsk_zc_rx_hw *hw, struct xsk_zc_rx_stats *acc)
{
	struct sk_buff *skb;
	u32 act = XDP_PASS;
	int err;

	if (prog)
		act = bpf_prog_run_xdp(prog, xdp);

	if (likely(act == XDP_REDIRECT)) {
		err = xdp_do_redirect(rx->netdev, xdp, prog);
		if (likely(!err)) {
			acc->redirect++;
			return XSK_ZC_RX_CONSUMED;
		}
		xsk_buff_free(xdp);
		acc->drop++;
		/* The socket's RX ring is full: stop here and let user space
		 * wake us once it has made room.
		 */
		if (err == -ENOBUFS && xsk_uses_need_wakeup(rx->pool))
			return XSK_ZC_RX_EXIT;
		trace_xdp_exception(rx->netdev, prog, act);
		return XSK_ZC_RX_CONSUMED;
	}

	switch (act) {
	case XDP_PASS:
		skb = xsk_zc_build_skb(napi, xdp);
		xsk_buff_free(xdp);
		if (unlikely(!skb)) {
			acc->drop++;
			break;
		}
		if (hw->populate)
			hw->populate(rx, skb, desc);
		skb->protocol = eth_type_trans(skb, rx->netdev);
		napi_gro_receive(napi, skb);
		acc->pass++;
		break;
	case XDP_TX:
		if (hw->xmit && hw->xmit(rx, xdp)) {
			acc->xdp_tx++;
			break;
		}
		trace_xdp_exception(rx->netdev, prog, act);
		xsk_buff_free(xdp);
		acc->drop++;
		break;
	default:
		bpf_warn_invalid_xdp_action(rx->netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		trace_xdp_exception(rx->netdev, prog, act);
		fallthrough;
	case XDP_DROP:
		xsk_buff_free(xdp);
		acc->drop++;
		break;
	}

	return XSK_ZC_RX_CONSUMED;
}

/* Gives @xdp straight back to the NIC when it was the last posted buffer
 * and the fill ring has nothing to replace it: an empty ring would raise
 * no interrupt and stall the queue.
 */
static __always_inline bool
__xsk_zc_rx_keep_posted(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			const struct xsk_zc_rx_hw *hw)
{
	u32 ntu = rx->next_to_use;

	if (!rx->keep_one_posted || rx->pending < rx->count - XSK_ZC_RX_RING_GAP)
		return false;
	xsk_zc_rx_refill(rx, hw);
	if (rx->pending < rx->count - XSK_ZC_RX_RING_GAP)
		return false;
	ntu = rx->next_to_use;

	rx->bufs[ntu] = xdp;
	hw->fill(rx, ntu, xdp, xsk_buff_xdp_get_dma(xdp));
	rx->next_to_use = ntu + 1 == rx->count ? 0 : ntu + 1;
	rx->pending--;
	hw->kick(rx, rx->next_to_use);
	return true;
}

/**
 * xsk_zc_rx_poll - receive up to @budget frames on a zero-copy ring
 * @rx: the ring, which must have a pool
 * @napi: the NAPI instance running the poll
 * @prog: the XDP program, or NULL to pass every frame to the stack
 * @budget: the NAPI budget
 * @hw: the driver's descriptor callbacks, a ``static const`` object
 *
 * Budget policy: returns the frames processed, or @budget to stay
 * scheduled when the budget ran out, or when the ring could not be
 * refilled and the socket does not use need_wakeup (the poll is then the
 * only thing that refills the ring). With need_wakeup, a short fill ring,
 * a full socket (``-ENOBUFS``) or an empty hardware ring set the RX
 * need_wakeup flag instead, and a good poll clears it.
 *
 * Return: as above.
 */
static __always_inline int xsk_zc_rx_poll(struct xsk_zc_rx_ring *rx,
					  struct napi_struct *napi,
					  struct bpf_prog *prog, int budget,
					  const struct xsk_zc_rx_hw *hw)
{
	struct xsk_zc_rx_stats acc = {};
	bool stop = false, filled;

	while (acc.packets < budget) {
		struct xsk_zc_rx_desc desc = {};
		struct xdp_buff *xdp;

		xdp = hw->next(rx, &desc);
		if (!xdp)
			break;
		acc.packets++;

		if (unlikely(desc.drop) || __xsk_zc_rx_keep_posted(rx, xdp, hw)) {
			if (!desc.drop)
				acc.fill_empty++;
			else
				xsk_buff_free(xdp);
			acc.drop++;
			continue;
		}

		xsk_buff_set_size(xdp, desc.len);
		xdp->data += desc.offset;
		xdp->data_meta = xdp->data;
		xsk_buff_dma_sync_for_cpu(xdp);
		acc.bytes += desc.len - desc.offset;

		if (__xsk_zc_rx_one(rx, napi, prog, xdp, &desc, hw, &acc) ==
		    XSK_ZC_RX_EXIT) {
			stop = true;
			break;
		}
	}

	if (acc.redirect)
		xdp_do_flush();
	if (acc.xdp_tx && hw->xmit_flush)
		hw->xmit_flush(rx);

	filled = xsk_zc_rx_refill(rx, hw);
	acc.alloc_fail = !filled;

	u64_stats_update_begin(&rx->stats.syncp);
	rx->stats.packets += acc.packets;
	rx->stats.bytes += acc.bytes;
	rx->stats.redirect += acc.redirect;
	rx->stats.xdp_tx += acc.xdp_tx;
	rx->stats.pass += acc.pass;
	rx->stats.drop += acc.drop;
	rx->stats.alloc_fail += acc.alloc_fail;
	rx->stats.fill_empty += acc.fill_empty;
	u64_stats_update_end(&rx->stats.syncp);

	if (xsk_uses_need_wakeup(rx->pool)) {
		xsk_zc_rx_update_need_wakeup(rx, stop || !filled);
		return acc.packets;
	}

	return stop || !filled ? budget : acc.packets;
}

/**
 * xsk_zc_tx_xmit - send a batch of frames from the socket's TX ring
 * @tx: the ring, which must have a pool
 * @budget: the most frames to send
 * @hw: the driver's descriptor callbacks, a ``static const`` object
 *
 * Sends at most @budget frames and never more than the free descriptors
 * minus @tx->reserve. On a ring shared with the stack it runs under the
 * queue's lock and feeds the queue's hang detector.
 *
 * Return: true when the work is done (fewer frames than allowed were
 * waiting, or the ring is full and its completion will call again).
 */
static __always_inline bool xsk_zc_tx_xmit(struct xsk_zc_tx_ring *tx,
					   u32 budget,
					   const struct xsk_zc_tx_hw *hw)
{
	struct xsk_buff_pool *pool = tx->pool;
	struct xdp_desc *descs = pool->tx_descs;
	u32 free, n, i, bytes = 0;

	if (tx->txq) {
		__netif_tx_lock(tx->txq, smp_processor_id());
		txq_trans_cond_update(tx->txq);
	}

	free = hw->free_descs(tx);
	budget = min(budget, free > tx->reserve ? free - tx->reserve : 0);
	n = budget ? xsk_tx_peek_release_desc_batch(pool, budget) : 0;

	for (i = 0; i < n; i++) {
		dma_addr_t dma = xsk_buff_raw_get_dma(pool, descs[i].addr);

		xsk_buff_raw_dma_sync_for_device(pool, dma, descs[i].len);
		hw->fill(tx, &descs[i], dma);
		bytes += descs[i].len;
	}
	if (n) {
		hw->kick(tx);
		tx->in_flight += n;
	}

	if (tx->txq)
		__netif_tx_unlock(tx->txq);

	u64_stats_update_begin(&tx->syncp);
	tx->packets += n;
	tx->bytes += bytes;
	u64_stats_update_end(&tx->syncp);

	if (xsk_uses_need_wakeup(pool))
		xsk_set_tx_need_wakeup(pool);

	return n < budget || !budget;
}

#endif /* _NET_XSK_ZC_H */
