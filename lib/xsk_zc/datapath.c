// SPDX-License-Identifier: GPL-2.0
/*
 * xsk_zc: the out-of-line parts of the data path - ring setup, XDP_PASS
 * copies, verdict exceptions and TX completion. The per-frame loops are
 * inline, in <net/xsk_zc/datapath.h>.
 */

#include <linux/bpf_trace.h>
#include <linux/export.h>
#include <linux/skbuff.h>
#include <net/netdev_queues.h>
#include <net/xsk_zc/datapath.h>

/**
 * xsk_zc_rx_ring_init - describe an RX ring to the library
 * @rx: the ring state embedded in the driver's RX ring
 * @dev: the netdev
 * @qid: queue index
 * @count: descriptors in the hardware ring
 * @xdp_rxq: the rxq info the ring registers with MEM_TYPE_XSK_BUFF_POOL
 *	in zero-copy mode, or NULL
 *
 * Call when the ring is allocated or resized. The pool, if any, is kept;
 * a driver must not resize a zero-copy ring.
 */
void xsk_zc_rx_ring_init(struct xsk_zc_rx_ring *rx, struct net_device *dev,
			 u32 qid, u32 count, struct xdp_rxq_info *xdp_rxq)
{
	WARN_ON_ONCE(rx->bufs && count != rx->count);

	rx->netdev = dev;
	rx->qid = qid;
	rx->count = count;
	rx->gap = XSK_ZC_RX_RING_GAP;
	rx->xdp_rxq = xdp_rxq;
	init_llist_head(&rx->xdp_tx_done);
	u64_stats_init(&rx->stats.syncp);
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_rx_ring_init, "XSK_ZC");

/**
 * xsk_zc_tx_ring_init - describe a TX ring to the library
 * @tx: the ring state embedded in the driver's TX ring
 * @dev: the netdev
 * @qid: queue index
 * @reserve: descriptors zero-copy TX leaves free for the stack
 * @shared_with_stack: the stack transmits skbs on this ring too, so
 *	zero-copy TX must take the queue's lock and feed its hang detector
 */
void xsk_zc_tx_ring_init(struct xsk_zc_tx_ring *tx, struct net_device *dev,
			 u32 qid, u32 reserve, bool shared_with_stack)
{
	tx->netdev = dev;
	tx->qid = qid;
	tx->reserve = reserve;
	tx->txq = shared_with_stack ? netdev_get_tx_queue(dev, qid) : NULL;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_tx_ring_init, "XSK_ZC");

/**
 * __xsk_zc_rx_reclaim - free the XDP_TX buffers another NAPI completed
 * @rx: the ring
 *
 * Returns to the pool what xsk_zc_tx_xdp_done() left on the ring.
 * xsk_zc_rx_poll() and xsk_zc_rx_ring_clean() call it.
 *
 * Context: the ring's NAPI poll, or with the ring stopped.
 */
void __xsk_zc_rx_reclaim(struct xsk_zc_rx_ring *rx)
{
	struct xsk_zc_buff *b, *tmp;
	struct llist_node *first;

	XSK_CHECK_PRIV_TYPE(struct xsk_zc_buff);

	first = llist_del_all(&rx->xdp_tx_done);
	llist_for_each_entry_safe(b, tmp, first, xdp_tx_done)
		xsk_buff_free(&b->xdp);
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_rx_reclaim, "XSK_ZC");

/**
 * xsk_zc_rx_ring_clean - free the buffers posted on an RX ring
 * @rx: the ring, its hardware stopped
 *
 * Returns every buffer still posted to the pool's free list, and the
 * XDP_TX buffers waiting on the ring (xsk_zc_tx_xdp_done()): clean the
 * queue's TX ring first.
 */
void xsk_zc_rx_ring_clean(struct xsk_zc_rx_ring *rx)
{
	u32 i;

	__xsk_zc_rx_reclaim(rx);
	/* a multi-buffer frame whose last descriptor never came */
	__xsk_zc_rx_drop_desc(rx, NULL, false);
	if (!rx->bufs)
		return;

	for (i = 0; i < rx->count; i++) {
		if (rx->bufs[i]) {
			xsk_buff_free(rx->bufs[i]);
			rx->bufs[i] = NULL;
		}
	}
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_rx_ring_clean, "XSK_ZC");

/**
 * __xsk_zc_rx_ring_reset - start a zero-copy RX ring from empty
 * @rx: the ring, its hardware stopped
 *
 * Frees what is posted and sets the deficit to the whole ring, less
 * @rx->gap. Follow with __xsk_zc_rx_refill().
 *
 * On a pool with XDP_USE_SG it also sets the frame step of @rx's rxq
 * (&xdp_rxq_info.frag_size), which bpf_xdp_adjust_tail() needs to grow
 * the last fragment of a frame: the driver registers its rxq with none,
 * and may do so again whenever it opens, so the ring gets it here, where
 * it starts.
 */
void __xsk_zc_rx_ring_reset(struct xsk_zc_rx_ring *rx)
{
	xsk_zc_rx_ring_clean(rx);
	rx->next_to_use = 0;
	rx->next_to_clean = 0;
	rx->pending = rx->count - rx->gap;
	if (rx->xdp_rxq && rx->pool &&
	    (rx->pool->umem->flags & XDP_UMEM_SG_FLAG))
		rx->xdp_rxq->frag_size = xsk_pool_get_rx_frag_step(rx->pool);
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_rx_ring_reset, "XSK_ZC");

/**
 * __xsk_zc_rx_drop_desc - drop a descriptor's buffer and the frame it is in
 * @rx: the ring
 * @xdp: the buffer, or NULL when it stays posted
 * @more: the frame goes on after this descriptor
 *
 * For xsk_zc_rx_poll(), on a descriptor the NIC reported an error in, on
 * one the ring keeps posted mid-frame, and on each later one of a frame
 * dropped before: frees @xdp and what the ring gathered of the frame so
 * far, and with @more drops the frame's descriptors up to its last.
 *
 * Context: the ring's NAPI poll, or with the ring stopped.
 * Return: true when this started dropping a frame, to count it once.
 */
bool __xsk_zc_rx_drop_desc(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			   bool more)
{
	bool first_drop = !rx->discard;

	if (xdp)
		xsk_buff_free(xdp);
	if (rx->first) {
		xsk_buff_free(rx->first);
		rx->first = NULL;
	}
	rx->discard = more;
	return first_drop;
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_rx_drop_desc, "XSK_ZC");

/* The page and offset of @va, an address in the pool's UMEM. The UMEM is
 * mapped with vmap(): virt_to_page() does not apply to it.
 */
static struct page *xsk_zc_umem_page(const struct xsk_buff_pool *pool,
				     const void *va, u32 *off)
{
	u64 addr = va - pool->addrs;

	*off = offset_in_page(addr);
	return pool->umem->pgs[addr >> PAGE_SHIFT];
}

/**
 * __xsk_zc_rx_chain - add a buffer to the multi-buffer frame it is part of
 * @rx: the ring
 * @xdp: the buffer, its size set
 * @more: the frame goes on after this buffer
 * @prog: the XDP program the poll runs, or NULL
 *
 * For xsk_zc_rx_poll(), on each buffer of a frame that spans descriptors.
 * The first one becomes @rx->first, each later one a fragment of it, in
 * its &skb_shared_info and on the pool's list, the two places the core
 * and the XDP helpers look for it. A fragment the NIC wrote nothing into
 * goes back to the pool.
 *
 * Not xsk_buff_add_frag(): it takes the fragment's page from
 * virt_to_netmem() of its address, and the UMEM is mapped with vmap().
 *
 * Context: the ring's NAPI poll.
 * Return: the frame's first buffer when @xdp is its last one; NULL when
 * the frame goes on; ERR_PTR(-EMSGSIZE) when it was dropped: the pool
 * was not bound with XDP_USE_SG, the frame has more fragments than an
 * &skb_shared_info holds, or @prog does not take fragments.
 */
struct xdp_buff *__xsk_zc_rx_chain(struct xsk_zc_rx_ring *rx,
				   struct xdp_buff *xdp, bool more,
				   const struct bpf_prog *prog)
{
	struct xdp_buff *first = rx->first;
	struct xdp_buff_xsk *frag;
	struct page *page;
	u32 len, off;

	if (!first) {
		if (!(rx->pool->umem->flags & XDP_UMEM_SG_FLAG))
			goto drop;
		rx->first = xdp;
		return NULL;
	}

	len = xdp->data_end - xdp->data;
	if (!len) {
		xsk_buff_free(xdp);
	} else {
		page = xsk_zc_umem_page(rx->pool, xdp->data, &off);
		if (!__xdp_buff_add_frag(first, page_to_netmem(page), off, len,
					 xdp->frame_sz, false))
			goto drop;
		frag = container_of(xdp, struct xdp_buff_xsk, xdp);
		list_add_tail(&frag->list_node, &rx->pool->xskb_list);
	}
	if (more)
		return NULL;

	rx->first = NULL;
	/* Checked last: the program may change while the frame comes in. */
	if (prog && !prog->aux->xdp_has_frags && xdp_buff_has_frags(first)) {
		xsk_buff_free(first);
		return ERR_PTR(-EMSGSIZE);
	}
	return first;

drop:
	__xsk_zc_rx_drop_desc(rx, xdp, more);
	return ERR_PTR(-EMSGSIZE);
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_rx_chain, "XSK_ZC");

/**
 * __xsk_zc_rx_exception - a verdict that drops a frame the program did
 *	not drop
 * @rx: the ring
 * @prog: the XDP program
 * @xdp: the buffer, freed here; NULL when it is not ours any more (a
 *	redirect the socket refused has freed it)
 * @act: the verdict: XDP_ABORTED, an XDP_TX or XDP_REDIRECT that failed,
 *	or one this kernel does not know, which is warned about once
 *
 * The tracepoint and the warning stay out of xsk_zc_rx_poll(), and
 * <linux/bpf_trace.h> out of the drivers: the caller counts the drop.
 */
void __xsk_zc_rx_exception(struct xsk_zc_rx_ring *rx,
			   const struct bpf_prog *prog, struct xdp_buff *xdp,
			   u32 act)
{
	switch (act) {
	case XDP_ABORTED:
	case XDP_TX:
	case XDP_REDIRECT:
		break;
	default:
		bpf_warn_invalid_xdp_action(rx->netdev, prog, act);
		break;
	}
	trace_xdp_exception(rx->netdev, prog, act);
	if (xdp)
		xsk_buff_free(xdp);
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_rx_exception, "XSK_ZC");

/**
 * __xsk_zc_build_skb - copy a zero-copy frame into a new skb
 * @napi: the NAPI instance that will deliver the skb
 * @xdp: the frame; still owned by the caller, which frees it
 *
 * For XDP_PASS: the UMEM buffer goes back to the pool at once, so the
 * frame and the metadata in front of it are copied, and the fragments of
 * a multi-buffer frame after it, from the pool's list, where the XDP
 * program's bpf_xdp_adjust_tail() left them.
 *
 * Context: NAPI (softirq).
 * Return: the skb with its metadata set, or NULL when out of memory.
 */
struct sk_buff *__xsk_zc_build_skb(struct napi_struct *napi,
				   const struct xdp_buff *xdp)
{
	unsigned int metasize = xdp->data - xdp->data_meta;
	unsigned int headsize = xdp->data_end - xdp->data_meta;
	unsigned int totalsize = headsize;
	const struct xdp_buff_xsk *xskb, *pos;
	struct sk_buff *skb;

	net_prefetch(xdp->data_meta);

	if (unlikely(xdp_buff_has_frags(xdp)))
		totalsize += xdp_get_shared_info_from_buff(xdp)->xdp_frags_size;
	skb = napi_alloc_skb(napi, totalsize);
	if (unlikely(!skb))
		return NULL;

	skb_put_data(skb, xdp->data_meta, headsize);
	if (unlikely(xdp_buff_has_frags(xdp))) {
		xskb = container_of(xdp, struct xdp_buff_xsk, xdp);
		list_for_each_entry(pos, &xskb->pool->xskb_list, list_node)
			skb_put_data(skb, pos->xdp.data,
				     pos->xdp.data_end - pos->xdp.data);
	}
	if (metasize) {
		skb_metadata_set(skb, metasize);
		__skb_pull(skb, metasize);
	}
	return skb;
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_build_skb, "XSK_ZC");

/**
 * __xsk_zc_rx_stats_add - add one poll's counts to a ring's counters
 * @rx: the ring
 * @acc: what the poll counted
 *
 * Called once per poll by xsk_zc_rx_poll().
 */
void __xsk_zc_rx_stats_add(struct xsk_zc_rx_ring *rx,
			   const struct xsk_zc_rx_stats *acc)
{
	struct xsk_zc_rx_stats *s = &rx->stats;

	u64_stats_update_begin(&s->syncp);
	s->packets += acc->packets;
	s->bytes += acc->bytes;
	s->redirect += acc->redirect;
	s->xdp_tx += acc->xdp_tx;
	s->pass += acc->pass;
	s->drop += acc->drop;
	s->errors += acc->errors;
	s->fill_short += acc->fill_short;
	s->fill_empty += acc->fill_empty;
	u64_stats_update_end(&s->syncp);
}
EXPORT_SYMBOL_NS_GPL(__xsk_zc_rx_stats_add, "XSK_ZC");

/**
 * xsk_zc_rx_stats_read - a consistent copy of a ring's counters
 * @rx: the ring
 * @out: where to copy them
 *
 * For ndo_get_stats64 and ethtool; safe against a concurrent poll.
 */
void xsk_zc_rx_stats_read(struct xsk_zc_rx_ring *rx,
			  struct xsk_zc_rx_stats *out)
{
	const struct xsk_zc_rx_stats *s = &rx->stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		out->packets = s->packets;
		out->bytes = s->bytes;
		out->redirect = s->redirect;
		out->xdp_tx = s->xdp_tx;
		out->pass = s->pass;
		out->drop = s->drop;
		out->errors = s->errors;
		out->fill_short = s->fill_short;
		out->fill_empty = s->fill_empty;
	} while (u64_stats_fetch_retry(&s->syncp, start));
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_rx_stats_read, "XSK_ZC");

/**
 * xsk_zc_rx_queue_stats - add a ring's zero-copy frames to its queue stats
 * @rx: the ring
 * @qs: what the driver's &netdev_stat_ops.get_queue_stats_rx reports for
 *	the queue, with its own packets and bytes set already
 *
 * Adds the frames and bytes the ring took in zero-copy mode to @qs, counted
 * as rx_packets counts them, so that the queues add up to the netdev's
 * counters when the driver's ndo_get_stats64 adds the same ones. The other
 * counters of &struct xsk_zc_rx_stats have no queue statistic: error
 * descriptors are the MAC's to count, XDP_DROP and a full socket are the
 * program's and the socket's, and a fill ring that ran short is not an
 * allocation failure (@qs->alloc_fail counts those).
 */
void xsk_zc_rx_queue_stats(struct xsk_zc_rx_ring *rx,
			   struct netdev_queue_stats_rx *qs)
{
	struct xsk_zc_rx_stats zs;

	xsk_zc_rx_stats_read(rx, &zs);
	qs->packets += zs.packets;
	qs->bytes += zs.bytes;
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_rx_queue_stats, "XSK_ZC");

/**
 * xsk_zc_tx_complete - report completed zero-copy TX frames
 * @tx: the ring
 * @descs: zero-copy TX descriptors the driver cleaned from the ring (not
 *	XDP_TX or skb frames): one per frame, or one per buffer of a
 *	multi-buffer frame, as &xsk_zc_tx_hw.fill got them
 *
 * Posts the frames to the completion ring and sets TX need_wakeup, since
 * the next xmit runs only when user space asks for it. Call before
 * xsk_zc_tx_xmit() in the NAPI poll. Does nothing on a ring without a
 * pool, so a driver can call it from its common TX clean path.
 */
void xsk_zc_tx_complete(struct xsk_zc_tx_ring *tx, u32 descs)
{
	struct xsk_buff_pool *pool = tx->pool;

	if (!pool)
		return;
	if (descs) {
		xsk_tx_completed(pool, descs);
		tx->in_flight -= descs;
	}
	if (xsk_uses_need_wakeup(pool))
		xsk_set_tx_need_wakeup(pool);
}
EXPORT_SYMBOL_NS_GPL(xsk_zc_tx_complete, "XSK_ZC");
