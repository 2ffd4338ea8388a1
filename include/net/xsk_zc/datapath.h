/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driver-side helpers for AF_XDP zero-copy: the data path, for the file
 * that holds a driver's NAPI poll and its descriptor callbacks. Every
 * per-frame helper is inline and resolves the callbacks of the driver's
 * static const tables at compile time; what is rare (XDP_PASS copies,
 * multi-buffer chaining, verdict exceptions) is out of line, in the
 * __xsk_zc_ functions a driver never calls itself.
 */
#ifndef _NET_XSK_ZC_DATAPATH_H
#define _NET_XSK_ZC_DATAPATH_H

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <net/xsk_zc.h>

void __xsk_zc_rx_ring_reset(struct xsk_zc_rx_ring *rx);
void __xsk_zc_rx_reclaim(struct xsk_zc_rx_ring *rx);
struct sk_buff *__xsk_zc_build_skb(struct napi_struct *napi,
				   const struct xdp_buff *xdp);
struct xdp_buff *__xsk_zc_rx_chain(struct xsk_zc_rx_ring *rx,
				   struct xdp_buff *xdp, bool more,
				   const struct bpf_prog *prog);
bool __xsk_zc_rx_drop_desc(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			   bool more);
void __xsk_zc_rx_stats_add(struct xsk_zc_rx_ring *rx,
			   const struct xsk_zc_rx_stats *acc);
void __xsk_zc_rx_exception(struct xsk_zc_rx_ring *rx,
			   const struct bpf_prog *prog, struct xdp_buff *xdp,
			   u32 act);

/**
 * xsk_zc_rx_hw_data - where the NIC wrote a received frame
 * @xdp: the buffer
 *
 * Return: the first byte the NIC wrote: its inline metadata, if any, then
 * the frame.
 */
static inline void *xsk_zc_rx_hw_data(const struct xdp_buff *xdp)
{
	return xdp->data_hard_start + XDP_PACKET_HEADROOM;
}

/**
 * xsk_zc_rx_hint_desc - the descriptor of the frame an XDP program runs on
 * @ctx: the context a driver's &struct xdp_metadata_ops callback gets
 *
 * For a driver's RX hint kfuncs (``xmo_rx_hash``, ``xmo_rx_timestamp``,
 * ``xmo_rx_vlan_tag``): what its ``next`` callback read from the frame's
 * descriptor, ``hw_desc`` included. xsk_zc_rx_poll() keeps it with the
 * buffer while the program runs, the only time a kfunc can be called, and
 * the descriptor is not written again before the poll's refill, after
 * every program of the poll has run.
 *
 * Return: the frame's descriptor, or NULL when @ctx is not a zero-copy
 * buffer (the driver's own XDP path, in page mode): the driver then
 * answers from its own state, or ``-ENODATA``.
 */
static inline const struct xsk_zc_rx_desc *
xsk_zc_rx_hint_desc(const struct xdp_md *ctx)
{
	const struct xdp_buff *xdp = (const void *)ctx;

	if (xdp->rxq->mem.type != MEM_TYPE_XSK_BUFF_POOL)
		return NULL;
	return container_of(xdp, struct xsk_zc_buff, xdp)->rx_desc;
}

/**
 * xsk_zc_rx_take - detach the buffer at next_to_clean and advance
 * @rx: the ring
 *
 * For ``next`` callbacks of index-based rings, once the descriptor at
 * @rx->next_to_clean is known to be complete.
 *
 * Return: the buffer posted at that descriptor.
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
 * __xsk_zc_rx_refill - post buffers from the fill ring to cover the deficit
 * @rx: the ring
 * @hw: the driver's descriptor callbacks
 *
 * Allocates in batches, wrapping at the end of the ring, writes each
 * descriptor through @hw->fill and calls @hw->kick once.
 *
 * Return: true when the whole deficit was covered.
 */
static __always_inline bool __xsk_zc_rx_refill(struct xsk_zc_rx_ring *rx,
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
	if (posted && hw->kick)
		hw->kick(rx, ntu);

	return !rx->pending;
}

/* A zero-copy ring with fewer buffers posted than this, after a refill that
 * fell short, needs its refill driven from outside the NIC's interrupt: by
 * user space's wakeup (need_wakeup) or by staying scheduled. One NAPI poll's
 * worth: the most a poll takes at once, so a burst of that size still finds
 * buffers before the poll its interrupt starts refills the ring. With more
 * posted, the NIC interrupts for the next frame and that poll refills: a
 * wakeup per recvmsg() or poll() would raise an interrupt for nothing.
 */
#define XSK_ZC_RX_LOW_POSTED	NAPI_POLL_WEIGHT

/* Whether the ring is low: at most half of it, for a ring too small to hold
 * XSK_ZC_RX_LOW_POSTED twice, or fewer than XSK_ZC_RX_LOW_POSTED posted.
 */
static __always_inline bool __xsk_zc_rx_low(const struct xsk_zc_rx_ring *rx)
{
	u32 usable = rx->count - rx->gap;
	u32 posted = usable - min(rx->pending, usable);

	return posted <= min_t(u32, XSK_ZC_RX_LOW_POSTED - 1, usable / 2);
}

/**
 * xsk_zc_rx_start - fill a zero-copy ring as its queue starts
 * @rx: the ring, which must have a pool
 * @hw: the driver's descriptor callbacks
 *
 * Forgets the old ring state and posts what the fill ring holds. When that
 * leaves the ring low (see xsk_zc_rx_poll()) it sets the RX need_wakeup
 * flag at once: with no buffer posted the NIC raises no interrupt, so the
 * first poll may never come.
 *
 * Only @hw's @fill and @kick are called, @kick once if anything was
 * posted, and it runs while the queue may still be stopped (from
 * ``ops->queue_start`` before the driver enables the queue, or from open).
 * A driver whose RX doorbell also enables RX DMA passes a table of its own
 * here whose @kick only publishes the descriptors, and enables RX where it
 * enables the queue's interrupt: frames taken before would complete
 * unseen. One whose NIC may fill the posted buffers before the queue's
 * interrupt is live (igb posts before it requests its IRQs) has the ring
 * polled once it is: the frames waiting at the NIC can take every buffer
 * a zero-copy ring posts, and then no later frame raises the interrupt.
 *
 * Return: true when the whole ring was filled.
 */
static __always_inline bool xsk_zc_rx_start(struct xsk_zc_rx_ring *rx,
					    const struct xsk_zc_rx_hw *hw)
{
	bool filled;

	__xsk_zc_rx_ring_reset(rx);
	filled = __xsk_zc_rx_refill(rx, hw);
	if (xsk_uses_need_wakeup(rx->pool)) {
		if (filled || !__xsk_zc_rx_low(rx))
			xsk_clear_rx_need_wakeup(rx->pool);
		else
			xsk_set_rx_need_wakeup(rx->pool);
	}
	return filled;
}

/* Hands a copy of the frame to the ring's stack and frees the buffer. */
static __always_inline void
__xsk_zc_rx_pass(struct xsk_zc_rx_ring *rx, struct napi_struct *napi,
		 struct xdp_buff *xdp, const struct xsk_zc_rx_desc *desc,
		 const struct xsk_zc_rx_hw *hw, struct xsk_zc_rx_stats *acc)
{
	struct sk_buff *skb = __xsk_zc_build_skb(napi, xdp);

	/* populate may still read the buffer's inline metadata, and the
	 * features of the ring's netdev: the NAPI's may be another port's
	 */
	if (skb && hw->populate) {
		skb->dev = rx->netdev;
		hw->populate(rx, skb, xdp, desc);
	}
	xsk_buff_free(xdp);
	if (unlikely(!skb)) {
		acc->drop++;
		return;
	}
	skb->protocol = eth_type_trans(skb, rx->netdev);
	napi_gro_receive(napi, skb);
	acc->pass++;
}

/* XDP_TX: the buffer itself goes out. The program may have moved the
 * frame's start (bpf_xdp_adjust_head()) or the NIC put metadata before
 * it: the DMA address is that of xdp->data. Returns true when the
 * driver took the frame; a driver without xmit_zc drops it.
 */
static __always_inline bool
__xsk_zc_rx_xdp_tx(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
		   const struct xsk_zc_rx_hw *hw)
{
	dma_addr_t dma;
	u32 len;

	if (!hw->xmit_zc)
		return false;

	len = xdp->data_end - xdp->data;
	dma = xsk_buff_xdp_get_dma(xdp) + (xdp->data - xsk_zc_rx_hw_data(xdp));
	xsk_buff_raw_dma_sync_for_device(rx->pool, dma, len);
	return hw->xmit_zc(rx, xdp, dma, len);
}

/* Runs the program on one frame and acts on the verdict. The buffer is
 * handed on or freed. Returns true when the poll must end.
 */
static __always_inline bool
__xsk_zc_rx_one(struct xsk_zc_rx_ring *rx, struct napi_struct *napi,
		struct bpf_prog *prog, struct xdp_buff *xdp,
		const struct xsk_zc_rx_desc *desc,
		const struct xsk_zc_rx_hw *hw, struct xsk_zc_rx_stats *acc)
{
	u32 act = XDP_PASS;
	int err;

	if (prog) {
		/* for the driver's RX hint kfuncs */
		container_of(xdp, struct xsk_zc_buff, xdp)->rx_desc = desc;
		act = bpf_prog_run_xdp(prog, xdp);
	}

	if (likely(act == XDP_REDIRECT)) {
		err = xdp_do_redirect(rx->netdev, xdp, prog);
		if (likely(!err)) {
			acc->redirect++;
			return false;
		}
		acc->drop++;
		/* -ENOBUFS: the socket's RX ring is full, and xsk_rcv_zc() has
		 * freed the buffer; with need_wakeup the poll stops here, and
		 * user space wakes it once it made room. On any other error
		 * the buffer is ours.
		 */
		if (err == -ENOBUFS && xsk_uses_need_wakeup(rx->pool))
			return true;
		__xsk_zc_rx_exception(rx, prog, err == -ENOBUFS ? NULL : xdp,
				      act);
		return false;
	}

	switch (act) {
	case XDP_PASS:
		__xsk_zc_rx_pass(rx, napi, xdp, desc, hw, acc);
		break;
	case XDP_TX:
		/* one descriptor per frame: a multi-buffer one is dropped */
		if (!xdp_buff_has_frags(xdp) && __xsk_zc_rx_xdp_tx(rx, xdp, hw)) {
			acc->xdp_tx++;
			break;
		}
		__xsk_zc_rx_exception(rx, prog, xdp, act);
		acc->drop++;
		break;
	case XDP_DROP:
		xsk_buff_free(xdp);
		acc->drop++;
		break;
	default:
		/* XDP_ABORTED, or a verdict this kernel does not know */
		__xsk_zc_rx_exception(rx, prog, xdp, act);
		acc->drop++;
		break;
	}

	return false;
}

/* Whether no descriptor of the ring holds a buffer: the deficit is the
 * whole ring but its gap.
 */
static __always_inline bool
__xsk_zc_rx_none_posted(const struct xsk_zc_rx_ring *rx)
{
	return rx->pending >= rx->count - rx->gap;
}

/* Posts @xdp again when it was the last buffer on the ring and the fill
 * ring has none: an empty ring raises no interrupt and stalls the queue.
 */
static __always_inline bool
__xsk_zc_rx_keep_posted(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			const struct xsk_zc_rx_hw *hw)
{
	u32 ntu;

	if (!rx->keep_one_posted || !__xsk_zc_rx_none_posted(rx))
		return false;
	__xsk_zc_rx_refill(rx, hw);
	if (!__xsk_zc_rx_none_posted(rx))
		return false;
	ntu = rx->next_to_use;

	rx->bufs[ntu] = xdp;
	hw->fill(rx, ntu, xdp, xsk_buff_xdp_get_dma(xdp));
	rx->next_to_use = ntu + 1 == rx->count ? 0 : ntu + 1;
	rx->pending--;
	if (hw->kick)
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
 * With need_wakeup, a full socket (``-ENOBUFS``, which ends the poll), or a
 * refill that fell short and left the ring low, sets the RX need_wakeup flag;
 * any other poll clears it. Low is fewer than a NAPI poll's worth of buffers
 * posted (at most half the ring for a small one): with more, the NIC still
 * interrupts for the next frame, and its poll refills.
 * A busy poll (a socket's, not the driver's own) also schedules the
 * queue's TX NAPI when that is another one (&xsk_zc_rx_ring.tx_napi).
 *
 * Return: the descriptors processed; @budget (stay scheduled) when the budget
 * ran out, or when the refill left the ring low and the socket does not use
 * need_wakeup: polling is then what refills the ring.
 */
static __always_inline int xsk_zc_rx_poll(struct xsk_zc_rx_ring *rx,
					  struct napi_struct *napi,
					  struct bpf_prog *prog, int budget,
					  const struct xsk_zc_rx_hw *hw)
{
	struct xsk_zc_rx_stats acc = {};
	bool stop = false, filled, low;
	int done = 0;

	while (done < budget) {
		struct xsk_zc_rx_desc desc = {};
		struct xdp_buff *xdp;

		/* Nothing posted, nothing complete: a NIC's descriptor memory
		 * may hold write-backs from before the ring was reset, done
		 * bits set, on descriptors that have no buffer now.
		 */
		if (unlikely(__xsk_zc_rx_none_posted(rx)))
			break;
		xdp = hw->next(rx, &desc);
		if (!xdp)
			break;
		done++;

		/* First: an error descriptor can hold the last posted buffer
		 * as well as a good one can.
		 */
		if (unlikely(__xsk_zc_rx_keep_posted(rx, xdp, hw))) {
			acc.fill_empty++;
			if (unlikely(rx->first || desc.more))
				__xsk_zc_rx_drop_desc(rx, NULL, desc.more);
			continue;
		}
		if (unlikely(desc.drop || rx->discard)) {
			/* the whole frame, counted once */
			if (__xsk_zc_rx_drop_desc(rx, xdp, desc.more))
				acc.errors++;
			continue;
		}

		xsk_buff_set_size(xdp, desc.len);
		xdp->data += desc.offset;
		xdp->data_meta = xdp->data;
		xsk_buff_dma_sync_for_cpu(xdp);

		/* a frame across descriptors: on to its last one */
		if (unlikely(rx->first || desc.more)) {
			xdp = __xsk_zc_rx_chain(rx, xdp, desc.more, prog);
			if (IS_ERR(xdp))
				acc.errors++;
			if (IS_ERR_OR_NULL(xdp))
				continue;
		}
		acc.packets++;
		acc.bytes += xdp_get_buff_len(xdp);

		if (__xsk_zc_rx_one(rx, napi, prog, xdp, &desc, hw, &acc)) {
			stop = true;
			break;
		}
	}

	if (acc.redirect)
		xdp_do_flush();
	if (acc.xdp_tx && hw->xmit_flush)
		hw->xmit_flush(rx);

	/* XDP_TX buffers another NAPI completed: refill may post them */
	if (unlikely(!llist_empty(&rx->xdp_tx_done)))
		__xsk_zc_rx_reclaim(rx);
	filled = __xsk_zc_rx_refill(rx, hw);
	acc.fill_short = !filled;
	low = !filled && __xsk_zc_rx_low(rx);

	__xsk_zc_rx_stats_add(rx, &acc);

	/* A busy-polling socket kicks no TX: its busy poll is the kick. */
	if (unlikely(rx->tx_napi) &&
	    (READ_ONCE(napi->state) & NAPIF_STATE_IN_BUSY_POLL))
		napi_schedule(rx->tx_napi);

	if (xsk_uses_need_wakeup(rx->pool)) {
		if (stop || low)
			xsk_set_rx_need_wakeup(rx->pool);
		else
			xsk_clear_rx_need_wakeup(rx->pool);
		return done;
	}

	/* Without need_wakeup a full socket does not end the poll. */
	return low ? budget : done;
}

/**
 * xsk_zc_tx_meta_done - complete the TX metadata of a zero-copy frame
 * @compl: the frame's completion slot (&xsk_zc_tx_hw.compl)
 * @hw: the driver's TX descriptor callbacks, with &xsk_zc_tx_hw.tmo
 *
 * For the driver's TX clean, once the NIC is done with the frame and
 * before xsk_zc_tx_complete() counts it: a frame that asked for a TX
 * timestamp gets it from @hw->tmo's tmo_fill_timestamp, with @compl as
 * its priv, in its metadata in the UMEM. Frames that asked for none are
 * left alone. A frame the driver drops without sending (ring cleanup)
 * is not passed here: it has no timestamp.
 */
static __always_inline void
xsk_zc_tx_meta_done(struct xsk_tx_metadata_compl *compl,
		    const struct xsk_zc_tx_hw *hw)
{
	xsk_tx_metadata_complete(compl, hw->tmo, compl);
}

/**
 * xsk_zc_tx_claimable - what a TX claim may take of the free descriptors
 * @tx: the ring
 * @free: its free descriptors
 * @want: the most the library asked for
 *
 * For a driver's &xsk_zc_tx_hw.claim: @tx->reserve of the free
 * descriptors stay for the stack.
 *
 * Return: at most @want, and at most @free minus @tx->reserve.
 */
static inline u32 xsk_zc_tx_claimable(const struct xsk_zc_tx_ring *tx,
				      u32 free, u32 want)
{
	return free > tx->reserve ? min(want, free - tx->reserve) : 0;
}

/* The TX metadata of the frame the next @hw->fill sends: its requests
 * go to the driver with its completion slot as their priv, and the slot
 * is set for a timestamp or cleared. A frame without metadata, or with
 * invalid metadata (the core cannot report that), requests nothing.
 */
static __always_inline void __xsk_zc_tx_meta(struct xsk_zc_tx_ring *tx,
					     const struct xdp_desc *desc,
					     const struct xsk_zc_tx_hw *hw)
{
	struct xsk_tx_metadata_compl *compl = hw->compl(tx);
	struct xsk_tx_metadata *meta;

	compl->tx_timestamp = NULL;
	meta = xsk_buff_get_metadata(tx->pool, desc->addr, desc->options);
	/* Checks the flags first; leaves @meta set only for a timestamp. */
	xsk_tx_metadata_request(tx->pool, &meta, hw->tmo, compl);
	/* a timestamp only from a driver that can fill one in */
	if (meta && hw->tmo->tmo_fill_timestamp)
		xsk_tx_metadata_to_compl(meta, compl);
}

/* Fills up to @budget descriptors, as many as the driver claimed; the
 * caller holds the queue lock on a shared ring. Frames leave the
 * socket's TX ring only once their descriptors are claimed: a frame
 * taken and not sent would make the completion ring, which completes
 * the oldest frames first, return a buffer still on the wire. The core
 * hands out whole frames only, so a batch starts with a frame's first
 * descriptor, the one its TX metadata belongs to. Returns the
 * descriptors sent and sets *@budget to what was allowed.
 */
static __always_inline u32 __xsk_zc_tx_fill(struct xsk_zc_tx_ring *tx,
					    u32 *budget,
					    const struct xsk_zc_tx_hw *hw)
{
	struct xsk_buff_pool *pool = tx->pool;
	struct xdp_desc *descs = pool->tx_descs;
	/* a pool without TX metadata has no requests: its frames only
	 * clear their slot, and skip the lookups
	 */
	bool meta = hw->tmo && xp_tx_metadata_enabled(pool);
	/* Whether the UMEM needs syncing is the device's, and settled when
	 * the pool mapped it: asked once per batch, not once per frame.
	 */
	bool sync = dma_dev_need_sync(pool->dev);
	bool first = true;
	u32 n, i, bytes = 0;

	/* an SG pool's longest frame must fit a claim, or it never leaves */
	if (*budget && (pool->umem->flags & XDP_UMEM_SG_FLAG))
		*budget = max_t(u32, *budget, tx->netdev->xdp_zc_max_segs);
	*budget = *budget ? hw->claim(tx, *budget) : 0;
	n = *budget ? xsk_tx_peek_release_desc_batch(pool, *budget) : 0;
	if (hw->unclaim && n < *budget)
		hw->unclaim(tx, *budget - n);

	for (i = 0; i < n; i++) {
		dma_addr_t dma = xsk_buff_raw_get_dma(pool, descs[i].addr);

		if (sync)
			xsk_buff_raw_dma_sync_for_device(pool, dma, descs[i].len);
		if (meta && first)
			__xsk_zc_tx_meta(tx, &descs[i], hw);
		else if (hw->tmo)
			hw->compl(tx)->tx_timestamp = NULL;
		hw->fill(tx, &descs[i], dma);
		first = !xp_mb_desc(&descs[i]);
		bytes += descs[i].len;
	}
	if (n && hw->kick)
		hw->kick(tx, bytes);
	tx->in_flight += n;
	return n;
}

/**
 * xsk_zc_tx_xmit - send a batch of frames from the socket's TX ring
 * @tx: the ring, which must have a pool
 * @budget: the most descriptors to send (frames, on a pool without
 *	XDP_USE_SG)
 * @hw: the driver's descriptor callbacks, a ``static const`` object
 *
 * Sends at most @budget descriptors and never more than the driver
 * claims (&xsk_zc_tx_hw.claim), which keeps @tx->reserve of them for
 * the stack. A multi-buffer frame goes whole or waits: on an XDP_USE_SG
 * pool @budget is at least the netdev's xdp_zc_max_segs, and a frame
 * longer than what was claimed waits for the completions that free
 * descriptors. On a ring shared with the stack it runs under the
 * queue's lock and feeds the queue's hang detector. Sends nothing
 * without carrier, or while the stack's queue is stopped or frozen: a
 * NIC without link does not complete, and frames left on its ring make
 * the driver's hang check reset it over and over. With need_wakeup,
 * user space is asked to kick again.
 *
 * Return: true when the work is done (fewer frames than allowed were
 * waiting, the ring is full and its completion will call again, or
 * the queue may not send now).
 */
static __always_inline bool xsk_zc_tx_xmit(struct xsk_zc_tx_ring *tx,
					   u32 budget,
					   const struct xsk_zc_tx_hw *hw)
{
	u32 n = 0;

	if (unlikely(!netif_carrier_ok(tx->netdev)))
		budget = 0;
	if (tx->txq && budget) {
		__netif_tx_lock(tx->txq, smp_processor_id());
		if (unlikely(netif_xmit_frozen_or_stopped(tx->txq))) {
			budget = 0;
		} else {
			txq_trans_cond_update(tx->txq);
			n = __xsk_zc_tx_fill(tx, &budget, hw);
		}
		__netif_tx_unlock(tx->txq);
	} else if (budget) {
		n = __xsk_zc_tx_fill(tx, &budget, hw);
	}

	if (xsk_uses_need_wakeup(tx->pool))
		xsk_set_tx_need_wakeup(tx->pool);

	return n < budget || !budget;
}

#endif /* _NET_XSK_ZC_DATAPATH_H */
