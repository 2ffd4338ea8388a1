/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types of the AF_XDP zero-copy driver helpers, for the driver headers
 * that embed them: no includes beyond what the definitions need. The
 * setup calls are in <net/xsk_zc.h>, the data path in
 * <net/xsk_zc/datapath.h>.
 */
#ifndef _NET_XSK_ZC_TYPES_H
#define _NET_XSK_ZC_TYPES_H

#include <linux/llist.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

struct net_device;
struct netdev_queue;
struct napi_struct;
struct sk_buff;
struct xdp_buff;
struct xdp_desc;
struct xdp_rxq_info;
struct xsk_buff_pool;
struct xsk_tx_metadata_compl;
struct xsk_tx_metadata_ops;

/* A tail equal to the head means "empty" on most NICs, so one descriptor
 * of every RX ring stays without a buffer.
 */
#define XSK_ZC_RX_RING_GAP	1

/**
 * struct xsk_zc_rx_stats - per-queue RX counters, updated once per poll
 * @packets: frames received and handed to the program or the stack, as
 *	a netdev's rx_packets counts them: not @errors or @fill_empty
 * @bytes: bytes of @packets, inline metadata not included
 * @redirect: frames redirected (XDP_REDIRECT, usually into the socket)
 * @xdp_tx: frames sent back out with XDP_TX
 * @pass: frames copied into an skb for the stack
 * @drop: frames of @packets dropped: XDP_DROP, XDP_ABORTED, a failed
 *	redirect or XDP_TX, no memory for the skb
 * @errors: frames dropped unseen: the NIC reported an error in one of
 *	their descriptors, or a multi-buffer frame the ring cannot take (a
 *	pool without XDP_USE_SG, more than %MAX_SKB_FRAGS fragments, or an
 *	XDP program that does not take fragments)
 * @fill_short: polls that left descriptors without a buffer because the
 *	fill ring ran short (user space, not memory: no allocation failed)
 * @fill_empty: frames dropped unseen to keep one buffer on an empty ring
 * @syncp: protects the counters for 32-bit readers
 */
struct xsk_zc_rx_stats {
	u64 packets;
	u64 bytes;
	u64 redirect;
	u64 xdp_tx;
	u64 pass;
	u64 drop;
	u64 errors;
	u64 fill_short;
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
 * @pending: descriptors without a buffer (the ring deficit). A ``next``
 *	callback that does not use xsk_zc_rx_take() (a ring whose hardware
 *	returns buffers by pointer, not by index) adds one per buffer.
 * @gap: descriptors that always stay without a buffer,
 *	%XSK_ZC_RX_RING_GAP unless the driver sets it after
 *	xsk_zc_rx_ring_init() (0 for a ring that is a pool of descriptors)
 * @keep_one_posted: when the fill ring is empty and the last posted buffer
 *	comes back (the hardware ring is then empty), drop its frame and post
 *	the buffer again, so the NIC never sees an empty ring (tsnep)
 * @napi: the NAPI instance polling this ring; set by the library while
 *	the ring has a pool. xsk_zc_tx_xdp_done() schedules it when XDP_TX
 *	buffers start to wait on @xdp_tx_done.
 * @tx_napi: the NAPI instance serving the queue's TX when it is not the
 *	one polling this ring, NULL when one serves both; set by the library
 *	while the ring has a pool. A socket that busy-polls sends no TX
 *	wakeups and polls only the NAPI its pool's rxq names, this ring's:
 *	xsk_zc_rx_poll() schedules @tx_napi from a busy poll.
 * @xdp_tx_done: buffers XDP_TX sent without a copy (&xsk_zc_rx_hw.xmit_zc)
 *	that @tx_napi completed. Only this ring's NAPI may return buffers
 *	to the pool, so they wait here for its next poll, which the first
 *	of them schedules, or for the ring clean.
 * @first: the first buffer of a frame whose last descriptor has not come
 *	yet, NULL between frames. Its later buffers are its fragments
 *	(xsk_buff_add_frag()). A frame may span polls.
 * @discard: the rest of the current frame is dropped, its last descriptor
 *	included
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
	u32 gap;
	bool keep_one_posted;
	struct napi_struct *napi;
	struct napi_struct *tx_napi;
	struct llist_head xdp_tx_done;
	struct xdp_buff *first;
	bool discard;

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
 * @in_flight: zero-copy TX descriptors on the ring, not yet completed:
 *	one per UMEM buffer, so a multi-buffer frame counts each of its
 *	buffers. The driver counts the frames it sends where it counts its
 *	others, at completion.
 * @rx: the RX ring of the same queue while the ring has a pool: buffers
 *	that XDP_TX sent without a copy go back to it (xsk_zc_tx_xdp_done())
 * @netdev: the owning netdev
 * @qid: queue index
 */
struct xsk_zc_tx_ring {
	/* fast */
	struct xsk_buff_pool *pool;
	struct netdev_queue *txq;
	u32 reserve;
	u32 in_flight;
	struct xsk_zc_rx_ring *rx;

	/* slow */
	struct net_device *netdev;
	u32 qid;
};

/**
 * struct xsk_zc_queue_info - a queue as its driver describes it now
 * @rx: its RX ring; NULL while the queue has no rings (freed by a
 *	suspend or a reset, or beyond the current queue count)
 * @tx: its TX ring; NULL while the queue has no rings
 * @rx_napi: the NAPI instance serving @rx, given with it
 * @tx_napi: the NAPI instance serving @tx, given with it; @rx_napi when
 *	one serves both
 * @running: whether the queue's DMA runs, so that a pool change must stop
 *	and restart it. Preset to netif_running(): drivers whose DMA
 *	channels several netdevs share need their own answer, and so do
 *	drivers whose open can fail and leave NAPI disabled on a running
 *	netdev. Not read while the netdev is detached or the queue has no
 *	rings.
 */
struct xsk_zc_queue_info {
	struct xsk_zc_rx_ring *rx;
	struct xsk_zc_tx_ring *tx;
	struct napi_struct *rx_napi;
	struct napi_struct *tx_napi;
	bool running;
};

/**
 * struct xsk_zc_ops - per-driver slow-path operations
 * @frame_overhead: bytes a received frame needs beyond the MTU: Ethernet
 *	header, VLAN tags, FCS or inline metadata the NIC writes
 * @max_segs: optional; the most buffers one frame may take, on RX and on
 *	TX, for a NIC whose descriptors chain (end of packet on the last).
 *	Above 1, xsk_zc_dev_init() announces it as the netdev's
 *	&net_device.xdp_zc_max_segs, so that the core binds XDP_USE_SG
 *	pools: RX frames across descriptors reach the program whole (see
 *	&xsk_zc_rx_desc.more) and &xsk_zc_tx_hw.fill gets the descriptors
 *	of a frame one after another. 0 or 1: one buffer per frame.
 * @rx_buf_len: optional; the receive buffer the NIC would use for @pool
 *	at @mtu, for NICs that size buffers in coarse steps. Without it,
 *	the pool's RX frame size. Setup and xsk_zc_check_mtu() require it
 *	to hold @mtu + @frame_overhead.
 * @queue: describe queue @qid as it is now in @qi, which the library
 *	zeroed but for &xsk_zc_queue_info.running. Called from wakeups
 *	without RTNL, under rcu_read_lock(): it must not sleep, and the
 *	driver frees what it returns after an RCU grace period (igb's
 *	kfree_rcu() of its q_vectors)
 * @prepare: optional; check that the queue can take @pool and describe
 *	its rings for it. Runs before the queue is stopped, the last step of
 *	a setup that may fail (after the buffer array, sized from the RX
 *	ring's count, and the DMA map): it checks everything before it
 *	changes anything, so a failed prepare leaves the queue untouched.
 *	It must not allocate: nothing undoes a prepare when the pool goes.
 * @queue_stop: stop the queue's hardware rings and disable its NAPI; must
 *	not fail. Only called while the netdev is running.
 * @queue_start: reconfigure the rings from what they hold now (pool or
 *	not), enable NAPI and the hardware; must not fail, so it allocates
 *	nothing: page mode's buffers stay with the ring while it is
 *	zero-copy, to be posted again when it leaves zero-copy.
 * @irq_raise: optional; raise the interrupt of @napi, so that a wakeup
 *	runs NAPI on the CPU of the interrupt, not on the caller's. Called
 *	with BHs off, only when the caller is on another CPU than the one
 *	the interrupt goes to: the driver sets @napi's irq with
 *	netif_napi_set_irq() (else it is called for every wakeup)
 */
struct xsk_zc_ops {
	u32 frame_overhead;
	u32 max_segs;

	u32 (*rx_buf_len)(struct net_device *dev, struct xsk_buff_pool *pool,
			  unsigned int mtu);
	void (*queue)(struct net_device *dev, u32 qid,
		      struct xsk_zc_queue_info *qi);
	int (*prepare)(struct net_device *dev, u32 qid,
		       struct xsk_buff_pool *pool);
	void (*queue_stop)(struct net_device *dev, u32 qid);
	void (*queue_start)(struct net_device *dev, u32 qid);
	void (*irq_raise)(struct net_device *dev, u32 qid,
			  struct napi_struct *napi);
};

/**
 * struct xsk_zc_queue - what the library keeps of a zero-copy queue
 * @pool: the queue's pool; set exactly while the queue is zero-copy
 * @rx_bufs: the RX ring's buffer array
 * @rx_count: entries of @rx_bufs
 *
 * Kept here, not only in the rings, so that rings the driver frees and
 * allocates anew (igb on resume) get them back from
 * xsk_zc_rings_reattach().
 */
struct xsk_zc_queue {
	struct xsk_buff_pool *pool;
	struct xdp_buff **rx_bufs;
	u32 rx_count;
};

/**
 * struct xsk_zc_dev - per-netdev state
 * @ops: the driver's operations
 * @netdev: the netdev
 * @dma_dev: the device that DMA-maps the UMEM
 * @max_queues: size of @queues
 * @queues: per queue state
 */
struct xsk_zc_dev {
	const struct xsk_zc_ops *ops;
	struct net_device *netdev;
	struct device *dma_dev;
	u32 max_queues;
	struct xsk_zc_queue *queues;
};

/**
 * struct xsk_zc_rx_desc - what the driver read from a completed descriptor
 * @len: bytes the NIC wrote, @offset included
 * @offset: bytes of inline metadata before the frame
 * @drop: the descriptor reports an error: drop the frame
 * @more: the frame goes on in the next descriptor (the NIC's end of
 *	packet bit is clear). xsk_zc_rx_poll() gathers the buffers of such a
 *	frame into one multi-buffer &xdp_buff when the pool was bound with
 *	XDP_USE_SG, and drops the frame otherwise. Only the first buffer of
 *	a frame has an @offset.
 * @hw_desc: the driver's descriptor, for its ``populate`` callback and
 *	its RX hints (xsk_zc_rx_hint_desc()); of a multi-buffer frame, its
 *	last descriptor
 */
struct xsk_zc_rx_desc {
	u32 len;
	u32 offset;
	bool drop;
	bool more;
	const void *hw_desc;
};

/**
 * struct xsk_zc_rx_hw - RX descriptor callbacks, inlined into the poll
 * @next: return the buffer of the next completed descriptor and describe
 *	it in @desc, or NULL when none is complete. Implement it with
 *	xsk_zc_rx_take() for a ring of descriptors indexed like @bufs.
 * @fill: post @xdp, at DMA address @dma, at descriptor @idx
 * @kick: optional; tell the NIC about new descriptors up to @ntu (tail
 *	write), once per refill. NULL when each @fill is its own doorbell.
 * @xmit_zc: optional; send @xdp itself back out (XDP_TX, without a
 *	copy): post @len bytes at @dma, which the library synced for the
 *	device, on the TX ring of this queue, the one bound to the same
 *	pool, and give the buffer to
 *	xsk_zc_tx_xdp_done() when the NIC has sent it or the ring is
 *	cleaned. Returns false when the ring has no room, and the library
 *	then frees @xdp.
 * @xmit_flush: optional; ring the TX doorbell once after a poll with
 *	XDP_TX frames
 * @populate: optional; fill in checksum, hash or timestamp of an skb made
 *	for XDP_PASS.
 *	Runs before the stack's eth_type_trans() (skb->data at the MAC
 *	header), with skb->dev the ring's netdev (not the NAPI's, which may
 *	be another port's), and while @xdp, the buffer the skb was copied
 *	from, is still the driver's: what the NIC wrote starts at
 *	xsk_zc_rx_hw_data(), even when the program moved ``xdp->data``
 *
 * Always pass a pointer to a ``static const`` instance.
 */
struct xsk_zc_rx_hw {
	struct xdp_buff *(*next)(struct xsk_zc_rx_ring *rx,
				 struct xsk_zc_rx_desc *desc);
	void (*fill)(struct xsk_zc_rx_ring *rx, u32 idx, struct xdp_buff *xdp,
		     dma_addr_t dma);
	void (*kick)(struct xsk_zc_rx_ring *rx, u32 ntu);
	bool (*xmit_zc)(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			dma_addr_t dma, u32 len);
	void (*xmit_flush)(struct xsk_zc_rx_ring *rx);
	void (*populate)(struct xsk_zc_rx_ring *rx, struct sk_buff *skb,
			 const struct xdp_buff *xdp,
			 const struct xsk_zc_rx_desc *desc);
};

/**
 * struct xsk_zc_tx_hw - TX descriptor callbacks, inlined into xmit
 * @claim: claim up to @want descriptors for the @fill calls that follow,
 *	keeping @tx->reserve free for the stack (xsk_zc_tx_claimable()),
 *	and return how many were claimed; read under the queue lock. Each
 *	claimed descriptor is the driver's promise that one @fill gets it:
 *	@fill cannot fail, because the library has taken the frame off the
 *	socket's TX ring by then and completes frames in order. On a ring
 *	only this queue posts to, that is its free count. Descriptors that
 *	other queues or ports also take, from a pool or a ring they share
 *	without this queue's lock, must be allocated here.
 * @unclaim: optional; take back @n claimed descriptors that no @fill
 *	used (the socket had fewer frames). NULL when @claim allocates
 *	nothing.
 * @fill: write a descriptor for @desc at DMA address @dma, on one that
 *	@claim claimed. On a pool with XDP_USE_SG a frame may take several:
 *	@desc has %XDP_PKT_CONTD in its options on every descriptor of a
 *	frame but the last (xp_mb_desc()), which alone ends the packet. A
 *	frame's descriptors come in one batch, in order, never split
 *	between batches; its TX metadata is requested before its first
 *	@fill only. Completions count descriptors, not frames
 *	(xsk_zc_tx_complete()).
 * @kick: optional; ring the doorbell, once per batch. @bytes is the sum
 *	of the batch's descriptor lengths, for a driver whose BQL
 *	(netdev_tx_sent_queue()) counts AF_XDP frames: once per batch, before
 *	the tail moves. NULL when each @fill is its own doorbell.
 * @tmo: optional; the driver's AF_XDP TX metadata ops, the table its
 *	netdev's &net_device.xsk_tx_metadata_ops points to. With it, a frame
 *	of a pool with TX metadata gets its completion slot (@compl) set and
 *	its requests made before @fill: each request callback gets the slot
 *	as its priv. A timestamp request shows as the slot's tx_timestamp
 *	set when @fill runs.
 * @compl: with @tmo; the completion slot of the descriptor the next @fill
 *	writes, kept by the driver with its buffer until the frame's
 *	completion hands it to xsk_zc_tx_meta_done()
 *
 * Always pass a pointer to a ``static const`` instance.
 */
struct xsk_zc_tx_hw {
	u32 (*claim)(struct xsk_zc_tx_ring *tx, u32 want);
	void (*unclaim)(struct xsk_zc_tx_ring *tx, u32 n);
	void (*fill)(struct xsk_zc_tx_ring *tx, const struct xdp_desc *desc,
		     dma_addr_t dma);
	void (*kick)(struct xsk_zc_tx_ring *tx, u32 bytes);
	const struct xsk_tx_metadata_ops *tmo;
	struct xsk_tx_metadata_compl *(*compl)(struct xsk_zc_tx_ring *tx);
};

#endif /* _NET_XSK_ZC_TYPES_H */
