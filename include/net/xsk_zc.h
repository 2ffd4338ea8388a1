/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driver-side helpers for AF_XDP zero-copy: the setup calls, for every
 * file of a driver. Types in <net/xsk_zc/types.h>; the data path (NAPI
 * poll, descriptor callbacks) in <net/xsk_zc/datapath.h>.
 */
#ifndef _NET_XSK_ZC_H
#define _NET_XSK_ZC_H

#include <linux/llist.h>
#include <linux/netdevice.h>
#include <net/xdp_sock_drv.h>
#include <net/xsk_zc/types.h>

struct netdev_queue_stats_rx;

/**
 * DOC: xsk_zc overview
 *
 * xsk_zc does what every AF_XDP zero-copy driver does alike. Which call
 * to use when:
 *
 * - probe: fill a ``static const struct xsk_zc_ops``, call
 *   xsk_zc_dev_init() and OR %NETDEV_XDP_ACT_XSK_ZEROCOPY into
 *   ``netdev->xdp_features``. The library does RX and TX zero-copy:
 *   the core binds a socket for both.
 * - ring allocation: xsk_zc_rx_ring_init() and xsk_zc_tx_ring_init() on
 *   the &struct xsk_zc_rx_ring and &struct xsk_zc_tx_ring embedded in the
 *   driver's own rings.
 * - ``ndo_bpf(XDP_SETUP_XSK_POOL)``: xsk_zc_pool_setup(). It validates,
 *   prepares, maps, quiesces the queue through the ops table, swaps and
 *   restarts; a failure changes nothing.
 * - ring (re)configuration, from ``ops->queue_start`` or open:
 *   xsk_zc_rx_pool() tells whether the ring runs zero-copy; if so,
 *   xsk_zc_rx_start() fills it.
 * - NAPI poll: xsk_zc_rx_poll() for RX, xsk_zc_tx_complete() for the
 *   zero-copy frames the driver cleaned, then xsk_zc_tx_xmit(). A driver
 *   whose XDP_TX posts the buffer itself (&xsk_zc_rx_hw.xmit_zc) gives
 *   each one it cleans to xsk_zc_tx_xdp_done(). One with AF_XDP TX
 *   metadata (&xsk_zc_tx_hw.tmo) gives each zero-copy frame it cleans
 *   to xsk_zc_tx_meta_done() first.
 * - ``ndo_xsk_wakeup``: xsk_zc_wakeup().
 * - ``xdp_metadata_ops`` (RX hints for the XDP program):
 *   xsk_zc_rx_hint_desc() gives each callback the frame's descriptor.
 * - ``ndo_change_mtu``: xsk_zc_check_mtu() before accepting the MTU.
 * - ``ndo_get_stats64`` and ethtool: xsk_zc_rx_stats_read();
 *   ``netdev_stat_ops.get_queue_stats_rx``: xsk_zc_rx_queue_stats().
 * - rings freed and allocated anew with pools bound (resume):
 *   xsk_zc_rings_reattach() before configuring them.
 * - remove: xsk_zc_dev_destroy().
 *
 * The hot-path helpers are ``static __always_inline`` and take a pointer
 * to a ``static const`` table of descriptor callbacks (&struct
 * xsk_zc_rx_hw, &struct xsk_zc_tx_hw). The compiler resolves those calls
 * in the driver's poll function, so there is no indirect call per packet.
 *
 * Headers: a driver header that embeds the rings includes
 * <net/xsk_zc/types.h>; the file that holds the NAPI poll and the
 * descriptor callbacks includes <net/xsk_zc/datapath.h>; every other
 * file this one. One file of the driver says
 * ``MODULE_IMPORT_NS("XSK_ZC");``.
 */

int xsk_zc_dev_init(struct xsk_zc_dev *zc, struct net_device *netdev,
		    struct device *dma_dev, const struct xsk_zc_ops *ops,
		    u32 max_queues);
void xsk_zc_dev_destroy(struct xsk_zc_dev *zc);
void xsk_zc_rx_ring_init(struct xsk_zc_rx_ring *rx, struct net_device *dev,
			 u32 qid, u32 count, struct xdp_rxq_info *xdp_rxq);
void xsk_zc_tx_ring_init(struct xsk_zc_tx_ring *tx, struct net_device *dev,
			 u32 qid, u32 reserve, bool shared_with_stack);
int xsk_zc_pool_setup(struct xsk_zc_dev *zc, struct xsk_buff_pool *pool,
		      u32 qid);
void xsk_zc_rings_reattach(struct xsk_zc_dev *zc);
int xsk_zc_check_mtu(struct xsk_zc_dev *zc, unsigned int mtu);
int xsk_zc_wakeup(struct xsk_zc_dev *zc, u32 qid, u32 flags);
void xsk_zc_rx_ring_clean(struct xsk_zc_rx_ring *rx);
void xsk_zc_tx_complete(struct xsk_zc_tx_ring *tx, u32 descs);
void xsk_zc_rx_stats_read(struct xsk_zc_rx_ring *rx,
			  struct xsk_zc_rx_stats *out);
void xsk_zc_rx_queue_stats(struct xsk_zc_rx_ring *rx,
			   struct netdev_queue_stats_rx *qs);
bool xsk_zc_any_zc(const struct xsk_zc_dev *zc);
#if IS_ENABLED(CONFIG_KUNIT)
/* the library's own KUnit cases only */
bool xsk_zc_queue_is_zc(const struct xsk_zc_dev *zc, u32 qid);
#endif

/**
 * struct xsk_zc_buff - the library's view of an XSK buffer
 * @xdp: the buffer the pool hands out
 * @rx_desc: while the XDP program runs on a received frame, what the
 *	driver read from its descriptor, for the driver's RX hint kfuncs
 *	(xsk_zc_rx_hint_desc()); stale at any other time
 * @xdp_tx_done: its node on &xsk_zc_rx_ring.xdp_tx_done, used only from
 *	XDP_TX until the buffer is back in the pool
 *
 * Both fields after @xdp live in the buffer's driver area
 * (&xdp_buff_xsk.cb).
 */
struct xsk_zc_buff {
	struct xdp_buff xdp;
	const struct xsk_zc_rx_desc *rx_desc;
	struct llist_node xdp_tx_done;
};

/**
 * xsk_zc_rx_pool - the pool of an RX ring
 * @rx: the ring
 *
 * Return: the pool, or NULL when the ring is not zero-copy.
 */
static inline struct xsk_buff_pool *xsk_zc_rx_pool(const struct xsk_zc_rx_ring *rx)
{
	return READ_ONCE(rx->pool);
}

/**
 * xsk_zc_tx_pool - the pool of a TX ring
 * @tx: the ring
 *
 * Return: the pool, or NULL when the ring is not zero-copy.
 */
static inline struct xsk_buff_pool *xsk_zc_tx_pool(const struct xsk_zc_tx_ring *tx)
{
	return READ_ONCE(tx->pool);
}

/**
 * xsk_zc_tx_xdp_done - give back a buffer XDP_TX sent without a copy
 * @tx: the TX ring it was sent on, the queue's own
 * @xdp: the buffer, as &xsk_zc_rx_hw.xmit_zc got it
 *
 * For the driver's TX completion and its TX ring cleanup. A pool's free
 * list has no lock: only the NAPI instance of the queue's RX ring may
 * free into it. When that instance also serves @tx, the buffer goes back
 * to the pool at once; otherwise it waits on the RX ring for its next
 * poll, or for xsk_zc_rx_ring_clean(). The first buffer to wait
 * schedules that poll: XDP_TX may have taken every buffer of the ring,
 * and a ring with none posted raises no RX interrupt.
 *
 * Context: the NAPI poll that cleans @tx, or with the queue stopped
 * (its NAPI instances disabled: nothing is scheduled).
 */
static inline void xsk_zc_tx_xdp_done(struct xsk_zc_tx_ring *tx,
				      struct xdp_buff *xdp)
{
	struct xsk_zc_rx_ring *rx = tx->rx;

	if (!rx->tx_napi) {
		xsk_buff_free(xdp);
		return;
	}
	if (llist_add(&container_of(xdp, struct xsk_zc_buff, xdp)->xdp_tx_done,
		      &rx->xdp_tx_done))
		napi_schedule(rx->napi);
}

/**
 * xsk_zc_tx_publish - hand a written TX frame to the driver's TX clean
 * @watch: where the driver's TX clean looks for the frame (igb's
 *	``next_to_watch``): a pointer variable, NULL while the slot is free
 * @eop: what the clean then reads, the frame's last descriptor
 *
 * For &xsk_zc_rx_hw.xmit_zc, and a &xsk_zc_tx_hw.fill that shares its
 * descriptor write, as the last write of a frame. XDP_TX runs in the RX
 * NAPI, and the TX clean may run in another one, on another CPU, without
 * the queue's lock. On a weakly ordered CPU that clean could see @eop
 * before the descriptors and the frame's own fields, read the done bit
 * the NIC wrote back at the slot's previous use, and free a buffer the
 * NIC has not read yet. A store-release orders every earlier write of
 * the frame before @eop: the clean reads @watch with smp_load_acquire(),
 * or reads it and then calls smp_rmb() as igb_clean_tx_irq() does.
 * Clearing @watch needs no ordering.
 */
#define xsk_zc_tx_publish(watch, eop)	smp_store_release(watch, eop)

#endif /* _NET_XSK_ZC_H */
