/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2021 Gerhard Engleder <gerhard@engleder-embedded.com> */

/* Descriptor writes of the TSN endpoint and the xsk_zc descriptor
 * callbacks built on them. Kept in a header so that the KUnit test can
 * run them on a software ring.
 */

#ifndef _TSNEP_DESC_H
#define _TSNEP_DESC_H

#include <linux/io.h>
#include <net/xsk_zc/datapath.h>

#include "tsnep.h"

/* mapping type */
#define TSNEP_TX_TYPE_MAP		BIT(0)
#define TSNEP_TX_TYPE_MAP_PAGE		BIT(1)
#define TSNEP_TX_TYPE_INLINE		BIT(2)
/* buffer type */
#define TSNEP_TX_TYPE_SKB		BIT(8)
#define TSNEP_TX_TYPE_SKB_MAP		(TSNEP_TX_TYPE_SKB | TSNEP_TX_TYPE_MAP)
#define TSNEP_TX_TYPE_SKB_INLINE	(TSNEP_TX_TYPE_SKB | TSNEP_TX_TYPE_INLINE)
#define TSNEP_TX_TYPE_SKB_FRAG		BIT(9)
#define TSNEP_TX_TYPE_SKB_FRAG_MAP_PAGE	(TSNEP_TX_TYPE_SKB_FRAG | TSNEP_TX_TYPE_MAP_PAGE)
#define TSNEP_TX_TYPE_SKB_FRAG_INLINE	(TSNEP_TX_TYPE_SKB_FRAG | TSNEP_TX_TYPE_INLINE)
#define TSNEP_TX_TYPE_XDP_TX		BIT(10)
#define TSNEP_TX_TYPE_XDP_NDO		BIT(11)
#define TSNEP_TX_TYPE_XDP_NDO_MAP_PAGE	(TSNEP_TX_TYPE_XDP_NDO | TSNEP_TX_TYPE_MAP_PAGE)
#define TSNEP_TX_TYPE_XDP		(TSNEP_TX_TYPE_XDP_TX | TSNEP_TX_TYPE_XDP_NDO)
#define TSNEP_TX_TYPE_XSK		BIT(12)
#define TSNEP_TX_TYPE_TSTAMP		BIT(13)
#define TSNEP_TX_TYPE_XSK_XDP_TX	BIT(14)
#define TSNEP_TX_TYPE_SKB_TSTAMP	(TSNEP_TX_TYPE_SKB | TSNEP_TX_TYPE_TSTAMP)

/* TX descriptors kept free for an skb with all its fragments */
#define TSNEP_TX_RESERVE (MAX_SKB_FRAGS + 1)

static inline void tsnep_tx_activate(struct tsnep_tx *tx, int index, int length,
				     bool last)
{
	struct tsnep_tx_entry *entry = &tx->entry[index];

	entry->properties = 0;
	/* xdpf and zc are union with skb */
	if (entry->skb) {
		entry->properties = length & TSNEP_DESC_LENGTH_MASK;
		entry->properties |= TSNEP_DESC_INTERRUPT_FLAG;
		/* an skb or an XSK frame that asked for a TX timestamp */
		if (entry->type & TSNEP_TX_TYPE_TSTAMP)
			entry->properties |= TSNEP_DESC_EXTENDED_WRITEBACK_FLAG;

		/* toggle user flag to prevent false acknowledge
		 *
		 * Only the first fragment is acknowledged. For all other
		 * fragments no acknowledge is done and the last written owner
		 * counter stays in the writeback descriptor. Therefore, it is
		 * possible that the last written owner counter is identical to
		 * the new incremented owner counter and a false acknowledge is
		 * detected before the real acknowledge has been done by
		 * hardware.
		 *
		 * The user flag is used to prevent this situation. The user
		 * flag is copied to the writeback descriptor by the hardware
		 * and is used as additional acknowledge data. By toggeling the
		 * user flag only for the first fragment (which is
		 * acknowledged), it is guaranteed that the last acknowledge
		 * done for this descriptor has used a different user flag and
		 * cannot be detected as false acknowledge.
		 */
		entry->owner_user_flag = !entry->owner_user_flag;
	}
	if (last)
		entry->properties |= TSNEP_TX_DESC_LAST_FRAGMENT_FLAG;
	if (index == tx->increment_owner_counter) {
		tx->owner_counter++;
		if (tx->owner_counter == 4)
			tx->owner_counter = 1;
		tx->increment_owner_counter--;
		if (tx->increment_owner_counter < 0)
			tx->increment_owner_counter = TSNEP_RING_SIZE - 1;
	}
	entry->properties |=
		(tx->owner_counter << TSNEP_DESC_OWNER_COUNTER_SHIFT) &
		TSNEP_DESC_OWNER_COUNTER_MASK;
	if (entry->owner_user_flag)
		entry->properties |= TSNEP_TX_DESC_OWNER_USER_FLAG;
	entry->desc->more_properties =
		__cpu_to_le32(entry->len & TSNEP_DESC_LENGTH_MASK);
	if (entry->type & TSNEP_TX_TYPE_INLINE)
		entry->properties |= TSNEP_TX_DESC_DATA_AFTER_DESC_FLAG;

	/* descriptor properties shall be written last, because valid data is
	 * signaled there
	 */
	dma_wmb();

	entry->desc->properties = __cpu_to_le32(entry->properties);
}

static inline int tsnep_tx_desc_available(struct tsnep_tx *tx)
{
	if (tx->read <= tx->write)
		return TSNEP_RING_SIZE - tx->write + tx->read - 1;
	else
		return tx->read - tx->write - 1;
}

static inline void tsnep_xdp_xmit_flush(struct tsnep_tx *tx)
{
	iowrite32(TSNEP_CONTROL_TX_ENABLE, tx->addr + TSNEP_CONTROL);
}

static inline void tsnep_rx_enable(struct tsnep_rx *rx)
{
	/* descriptor properties shall be valid before hardware is notified */
	dma_wmb();

	iowrite32(TSNEP_CONTROL_RX_ENABLE, rx->addr + TSNEP_CONTROL);
}

static inline void tsnep_rx_activate(struct tsnep_rx *rx, int index)
{
	struct tsnep_rx_entry *entry = &rx->entry[index];

	/* buffer sizes are multiple of 4 */
	entry->properties = entry->len & TSNEP_DESC_LENGTH_MASK;
	entry->properties |= TSNEP_DESC_INTERRUPT_FLAG;
	if (index == rx->increment_owner_counter) {
		rx->owner_counter++;
		if (rx->owner_counter == 4)
			rx->owner_counter = 1;
		rx->increment_owner_counter--;
		if (rx->increment_owner_counter < 0)
			rx->increment_owner_counter = TSNEP_RING_SIZE - 1;
	}
	entry->properties |=
		(rx->owner_counter << TSNEP_DESC_OWNER_COUNTER_SHIFT) &
		TSNEP_DESC_OWNER_COUNTER_MASK;

	/* descriptor properties shall be written last, because valid data is
	 * signaled there
	 */
	dma_wmb();

	entry->desc->properties = __cpu_to_le32(entry->properties);
}

/* xsk_zc RX callbacks. The library's ring indices are the hardware ring's:
 * next_to_clean is rx->read, next_to_use is rx->write.
 */
static inline struct xdp_buff *tsnep_rx_zc_next(struct xsk_zc_rx_ring *zrx,
						struct xsk_zc_rx_desc *desc)
{
	struct tsnep_rx *rx = container_of(zrx, struct tsnep_rx, zrx);
	struct tsnep_rx_entry *entry = &rx->entry[zrx->next_to_clean];
	struct xdp_buff *xdp;
	u32 properties;

	if (zrx->next_to_clean == zrx->next_to_use)
		return NULL;
	properties = __le32_to_cpu(entry->desc_wb->properties);
	if ((properties & TSNEP_DESC_OWNER_COUNTER_MASK) !=
	    (entry->properties & TSNEP_DESC_OWNER_COUNTER_MASK))
		return NULL;

	/* descriptor properties shall be read first, because valid data is
	 * signaled there
	 */
	dma_rmb();

	/* RX metadata with timestamps is in front of the frame, the FCS is
	 * behind it
	 */
	desc->len = properties & TSNEP_DESC_LENGTH_MASK;
	desc->drop = desc->len < TSNEP_RX_INLINE_METADATA_SIZE + ETH_FCS_LEN;
	desc->len -= ETH_FCS_LEN;
	desc->offset = TSNEP_RX_INLINE_METADATA_SIZE;

	xdp = xsk_zc_rx_take(zrx);
	rx->read = zrx->next_to_clean;

	return xdp;
}

static inline void tsnep_rx_zc_fill(struct xsk_zc_rx_ring *zrx, u32 idx,
				    struct xdp_buff *xdp, dma_addr_t dma)
{
	struct tsnep_rx *rx = container_of(zrx, struct tsnep_rx, zrx);
	struct tsnep_rx_entry *entry = &rx->entry[idx];

	/* entry->page keeps its page pool page for leaving zero-copy mode */
	entry->len = rx->xsk_buf_size;
	entry->desc->rx = __cpu_to_le64(dma);
	tsnep_rx_activate(rx, idx);
}

/* Hands the descriptors before @ntu to the device, without a doorbell */
static inline void tsnep_rx_zc_post(struct xsk_zc_rx_ring *zrx, u32 ntu)
{
	container_of(zrx, struct tsnep_rx, zrx)->write = ntu;
}

static inline void tsnep_rx_zc_kick(struct xsk_zc_rx_ring *zrx, u32 ntu)
{
	tsnep_rx_zc_post(zrx, ntu);
	tsnep_rx_enable(container_of(zrx, struct tsnep_rx, zrx));
}

static inline void tsnep_rx_zc_populate(struct xsk_zc_rx_ring *zrx,
					struct sk_buff *skb,
					const struct xdp_buff *xdp,
					const struct xsk_zc_rx_desc *desc)
{
	struct tsnep_rx *rx = container_of(zrx, struct tsnep_rx, zrx);
	const struct tsnep_rx_inline *rx_inline = xsk_zc_rx_hw_data(xdp);

	if (rx->adapter->hwtstamp_config.rx_filter == HWTSTAMP_FILTER_ALL)
		skb_hwtstamps(skb)->hwtstamp =
			ns_to_ktime(__le64_to_cpu(rx_inline->timestamp));
	skb_record_rx_queue(skb, rx->queue_index);
	if (is_multicast_ether_addr(skb->data) &&
	    !is_broadcast_ether_addr(skb->data))
		rx->multicast++;
}

/* XDP_TX without a copy: the XSK buffer itself goes on the queue's TX
 * ring, if that ring is zero-copy with the same pool (a queue without a
 * TX ring of its own sends XDP_TX on another queue's) and has room
 * beyond the stack's reserve. tsnep_tx_poll() gives it back.
 */
static inline bool tsnep_rx_zc_xmit_zc(struct xsk_zc_rx_ring *zrx,
				       struct xdp_buff *xdp, dma_addr_t dma,
				       u32 len)
{
	struct tsnep_rx *rx = container_of(zrx, struct tsnep_rx, zrx);
	struct tsnep_tx *tx = &rx->adapter->tx[rx->tx_queue_index];
	struct tsnep_tx_entry *entry;
	struct netdev_queue *nq;
	bool xmit = false;

	if (tx->ztx.rx != zrx)
		return false;

	nq = netdev_get_tx_queue(rx->adapter->netdev, rx->tx_queue_index);
	__netif_tx_lock(nq, smp_processor_id());
	/* not on a ring tsnep_tx_disable() drains */
	if (!tx->disabled &&
	    tsnep_tx_desc_available(tx) >= TSNEP_TX_RESERVE + 1) {
		entry = &tx->entry[tx->write];
		entry->xsk_xdp = xdp;
		entry->type = TSNEP_TX_TYPE_XSK_XDP_TX;
		entry->len = len;
		entry->desc->tx = __cpu_to_le64(dma);
		tsnep_tx_activate(tx, tx->write, len, true);
		tx->write = (tx->write + 1) & TSNEP_RING_MASK;
		/* valid before xmit_flush notifies the hardware */
		dma_wmb();
		/* the shared queue's watchdog sees it moving */
		txq_trans_cond_update(nq);
		xmit = true;
	}
	__netif_tx_unlock(nq);

	return xmit;
}

/* xsk_zc TX callbacks */
static inline u32 tsnep_tx_zc_claim(struct xsk_zc_tx_ring *ztx, u32 want)
{
	struct tsnep_tx *tx = container_of(ztx, struct tsnep_tx, ztx);

	return xsk_zc_tx_claimable(ztx, tsnep_tx_desc_available(tx), want);
}

static inline void tsnep_tx_zc_fill(struct xsk_zc_tx_ring *ztx,
				    const struct xdp_desc *xdpd, dma_addr_t dma)
{
	struct tsnep_tx *tx = container_of(ztx, struct tsnep_tx, ztx);
	struct tsnep_tx_entry *entry = &tx->entry[tx->write];

	entry->zc = true;
	entry->type = TSNEP_TX_TYPE_XSK;
	/* AF_XDP TX metadata asked for a timestamp (tsnep_tx_zc_compl()),
	 * stamped as skbs are: while TX timestamping is on
	 */
	if (entry->xsk_compl.tx_timestamp &&
	    tx->adapter->hwtstamp_config.tx_type == HWTSTAMP_TX_ON)
		entry->type |= TSNEP_TX_TYPE_TSTAMP;
	entry->len = xdpd->len;
	entry->desc->tx = __cpu_to_le64(dma);
	tsnep_tx_activate(tx, tx->write, xdpd->len, true);
	tx->write = (tx->write + 1) & TSNEP_RING_MASK;
}

/* The completion slot of the descriptor tsnep_tx_zc_fill() writes next */
static inline struct xsk_tx_metadata_compl *
tsnep_tx_zc_compl(struct xsk_zc_tx_ring *ztx)
{
	struct tsnep_tx *tx = container_of(ztx, struct tsnep_tx, ztx);

	return &tx->entry[tx->write].xsk_compl;
}

/* The time the frame of a completed descriptor went out, from its
 * extended writeback (the time skbs get as their TX timestamp)
 */
static inline u64 tsnep_tx_zc_fill_timestamp(void *priv)
{
	struct tsnep_tx_entry *entry =
		container_of(priv, struct tsnep_tx_entry, xsk_compl);

	return __le64_to_cpu(entry->desc_wb->timestamp);
}

/* tsnep has no BQL: @bytes is not needed */
static inline void tsnep_tx_zc_kick(struct xsk_zc_tx_ring *ztx, u32 bytes)
{
	/* descriptor properties shall be valid before hardware is notified */
	dma_wmb();

	tsnep_xdp_xmit_flush(container_of(ztx, struct tsnep_tx, ztx));
}

#endif /* _TSNEP_DESC_H */
