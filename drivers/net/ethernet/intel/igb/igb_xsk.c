// SPDX-License-Identifier: GPL-2.0
/* igb: AF_XDP zero-copy RX and TX on the xsk_zc helpers */

#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/xsk_zc/datapath.h>

#include "igb.h"

MODULE_IMPORT_NS("XSK_ZC");

#define igb_of_zrx(rx)	container_of(rx, struct igb_ring, zrx)
#define igb_of_ztx(tx)	container_of(tx, struct igb_ring, ztx)

static struct xdp_buff *igb_xsk_rx_next(struct xsk_zc_rx_ring *rx,
					struct xsk_zc_rx_desc *desc)
{
	struct igb_ring *ring = igb_of_zrx(rx);
	union e1000_adv_rx_desc *d = IGB_RX_DESC(ring, rx->next_to_clean);
	u32 staterr = le32_to_cpu(d->wb.upper.status_error);
	bool eop = staterr & E1000_RXD_STAT_EOP;

	if (!(staterr & E1000_RXD_STAT_DD))
		return NULL;
	dma_rmb();	/* the rest of the descriptor only after DD */

	desc->len = le16_to_cpu(d->wb.upper.length);
	desc->offset = (staterr & E1000_RXDADV_STAT_TSIP) ? IGB_TS_HDR_LEN : 0;
	/* 82576 latches one timestamp in registers and stamps no other frame
	 * until they are read: read them now, whatever the verdict.
	 */
	if ((staterr & (E1000_RXDADV_STAT_TS | E1000_RXDADV_STAT_TSIP)) ==
	    E1000_RXDADV_STAT_TS) {
		ring->xsk_hwts.hwtstamp = 0;
		igb_ptp_rx_rgtstamp(ring->q_vector, &ring->xsk_hwts);
	}
	/* A frame larger than the buffer spans descriptors, and its errors
	 * are in the last one.
	 */
	desc->more = !eop;
	desc->drop = eop && (staterr & E1000_RXDEXT_ERR_FRAME_ERR_MASK) &&
		     !(ring->netdev->features & NETIF_F_RXALL);
	desc->hw_desc = d;
	return xsk_zc_rx_take(rx);
}

static void igb_xsk_rx_fill(struct xsk_zc_rx_ring *rx, u32 idx,
			    struct xdp_buff *xdp, dma_addr_t dma)
{
	union e1000_adv_rx_desc *d = IGB_RX_DESC(igb_of_zrx(rx), idx);

	d->read.pkt_addr = cpu_to_le64(dma);
	d->read.hdr_addr = 0;	/* clears the status word, DD included */
}

static void igb_xsk_rx_kick(struct xsk_zc_rx_ring *rx, u32 ntu)
{
	wmb();	/* descriptors before the tail */
	writel(ntu, igb_of_zrx(rx)->tail);
}

/* An AF_XDP frame that asked for a TX timestamp takes the adapter's latch,
 * and its completion slot with it, when it can: the descriptor then asks
 * for one, and igb_xsk_tx_tstamp_done() fills it in.
 */
static u32 igb_xsk_tx_tstamp(struct igb_ring *ring, struct igb_tx_buffer *buf,
			     const struct igb_xsk_tx_meta *meta)
{
	struct igb_adapter *adapter = netdev_priv(ring->netdev);

	if (!meta->compl.tx_timestamp || !igb_ptp_xsk_tx_claim(adapter))
		return 0;
	adapter->xsk_tx_ts.compl = meta->compl;
	buf->tx_flags = IGB_TX_FLAGS_TSTAMP;
	return E1000_ADVTXD_MAC_TSTAMP;
}

/* Starts an AF_XDP TX frame at next_to_use, with its TX metadata requests
 * @meta: its tx_buffer, after a context descriptor when @meta asks for a
 * checksum, as for skbs. Sets the cmd_type_len bits of each of its data
 * descriptors in *@cmd and the olinfo_status of its first, but for the
 * length, in *@olinfo. A frame of one buffer that asks for nothing takes
 * igb_xsk_tx_one() instead.
 */
static __always_inline struct igb_tx_buffer *
igb_xsk_tx_start(struct igb_ring *ring, struct igb_xsk_tx_meta *meta,
		 u32 *cmd, u32 *olinfo)
{
	struct igb_tx_buffer *buf = &ring->tx_buffer_info[ring->next_to_use];

	buf->type = IGB_TYPE_XSK;
	buf->tx_flags = 0;
	*olinfo = 0;
	if (meta->vlan_macip_lens) {
		igb_tx_ctxtdesc(ring, buf, meta->vlan_macip_lens,
				meta->type_tucmd, 0);
		*olinfo |= E1000_TXD_POPTS_TXSM << 8;
		meta->type_tucmd = 0;
		meta->vlan_macip_lens = 0;
	}
	*cmd = igb_xsk_tx_tstamp(ring, buf, meta);
	if (test_bit(IGB_RING_FLAG_TX_CTX_IDX, &ring->flags))
		*olinfo |= ring->reg_idx << 4;	/* 82575: index per ring */

	buf->xsk_descs = 0;
	buf->bytecount = 0;
	buf->gso_segs = 1;
	buf->time_stamp = jiffies;	/* igb's TX hang check reads it */
	return buf;
}

/* Writes a data descriptor of @len bytes at @dma, at next_to_use */
static __always_inline union e1000_adv_tx_desc *
igb_xsk_tx_desc(struct igb_ring *ring, dma_addr_t dma, u32 len, u32 cmd,
		u32 olinfo)
{
	u16 i = ring->next_to_use;
	union e1000_adv_tx_desc *d = IGB_TX_DESC(ring, i);

	d->read.buffer_addr = cpu_to_le64(dma);
	d->read.cmd_type_len = cpu_to_le32(E1000_ADVTXD_DTYP_DATA |
					   E1000_ADVTXD_DCMD_DEXT |
					   E1000_ADVTXD_DCMD_IFCS | cmd | len);
	d->read.olinfo_status = cpu_to_le32(olinfo);
	ring->next_to_use = i + 1 < ring->count ? i + 1 : 0;
	return d;
}

/* Ends @buf's frame, whose data descriptors are @sop to @eop: the frame's
 * length in the first one (known only now; the NIC reads none of them
 * before the tail moves), end of packet and RS on the last, where
 * igb_clean_tx_irq() looks for it done. RS on every frame, since igb
 * completes per tx_buffer, not per batch. next_to_watch last, ordered
 * after the rest (xsk_zc_tx_publish()): XDP_TX writes the frame from
 * the RX vector, and the TX vector's clean, on another CPU, must not
 * find @eop before it is written. The caller tells BQL of the frame
 * before the tail moves: igb_clean_tx_irq() completes its bytes.
 */
static __always_inline void
igb_xsk_tx_end(struct igb_ring *ring, struct igb_tx_buffer *buf,
	       union e1000_adv_tx_desc *sop, union e1000_adv_tx_desc *eop,
	       u32 olinfo)
{
	olinfo |= buf->bytecount << E1000_ADVTXD_PAYLEN_SHIFT;
	sop->read.olinfo_status = cpu_to_le32(olinfo);
	eop->read.cmd_type_len |= cpu_to_le32(IGB_TXD_DCMD);
	xsk_zc_tx_publish(&buf->next_to_watch, eop);
}

/* A frame of one buffer that asks for neither a checksum nor a timestamp,
 * the usual one, AF_XDP's or, with @xdp, XDP_TX's: igb_xsk_tx_start(),
 * igb_xsk_tx_desc() and igb_xsk_tx_end() in one, each field written once
 * and in registers until then. Through those three, the compiler keeps
 * every store to the tx_buffer, the descriptor and the ring's
 * igb_xsk_tx_meta, as any might alias the others, and reads most back.
 */
static __always_inline void igb_xsk_tx_one(struct igb_ring *ring,
					   struct xdp_buff *xdp,
					   dma_addr_t dma, u32 len)
{
	struct igb_tx_buffer *buf = &ring->tx_buffer_info[ring->next_to_use];
	u32 olinfo = len << E1000_ADVTXD_PAYLEN_SHIFT;
	union e1000_adv_tx_desc *d;

	if (test_bit(IGB_RING_FLAG_TX_CTX_IDX, &ring->flags))
		olinfo |= ring->reg_idx << 4;	/* 82575: index per ring */

	if (xdp) {
		buf->type = IGB_TYPE_XSK_XDP_TX;
		buf->xsk_xdp = xdp;
	} else {
		buf->type = IGB_TYPE_XSK;
		buf->xsk_descs = 1;
	}
	buf->tx_flags = 0;
	buf->bytecount = len;
	buf->gso_segs = 1;
	buf->time_stamp = jiffies;	/* igb's TX hang check reads it */

	d = igb_xsk_tx_desc(ring, dma, len, IGB_TXD_DCMD, olinfo);
	xsk_zc_tx_publish(&buf->next_to_watch, d);
}

/* XDP_TX: the XSK buffer itself goes on the queue's TX ring, which the
 * stack shares, and back to the pool when igb_clean_tx_irq() sees it
 * sent. The tail is written once per poll, by igb_xsk_rx_xmit_flush().
 */
static bool igb_xsk_rx_xmit(struct xsk_zc_rx_ring *rx, struct xdp_buff *xdp,
			    dma_addr_t dma, u32 len)
{
	struct igb_adapter *adapter = netdev_priv(rx->netdev);
	struct igb_ring *ring = adapter->tx_ring[rx->qid];
	struct netdev_queue *nq = txring_txq(ring);
	bool sent = false;

	__netif_tx_lock(nq, smp_processor_id());
	/* the stack keeps its reserve; a stopped ring takes nothing */
	if (!test_bit(IGB_RING_FLAG_TX_DISABLED, &ring->flags) &&
	    xsk_zc_tx_claimable(&ring->ztx, igb_desc_unused(ring), 1)) {
		/* BQL hears of the frame before igb_clean_tx_irq() can
		 * complete it
		 */
		netdev_tx_sent_queue(nq, len);
		igb_xsk_tx_one(ring, xdp, dma, len);
		txq_trans_cond_update(nq);
		sent = true;
	}
	__netif_tx_unlock(nq);
	return sent;
}

static void igb_xsk_rx_xmit_flush(struct xsk_zc_rx_ring *rx)
{
	struct igb_adapter *adapter = netdev_priv(rx->netdev);
	struct igb_ring *ring = adapter->tx_ring[rx->qid];
	struct netdev_queue *nq = txring_txq(ring);

	__netif_tx_lock(nq, smp_processor_id());
	wmb();	/* descriptors before the tail */
	writel(ring->next_to_use, ring->tail);
	__netif_tx_unlock(nq);
}

/* An XDP_PASS copy gets what igb_clean_rx_irq() gives its skbs */
static void igb_xsk_rx_populate(struct xsk_zc_rx_ring *rx, struct sk_buff *skb,
				const struct xdp_buff *xdp,
				const struct xsk_zc_rx_desc *desc)
{
	struct igb_ring *ring = igb_of_zrx(rx);
	const union e1000_adv_rx_desc *d = desc->hw_desc;
	ktime_t ts;

	/* a frame shorter than ETH_ZLEN (a minimum frame whose VLAN tag the
	 * NIC stripped) is padded as igb_cleanup_headers() pads, in the
	 * copy's tailroom
	 */
	if (unlikely(skb->len < ETH_ZLEN) &&
	    skb_tailroom(skb) >= ETH_ZLEN - skb->len)
		skb_put_zero(skb, ETH_ZLEN - skb->len);

	if (igb_test_staterr(d, E1000_RXDADV_STAT_TSIP)) {
		if (igb_ptp_rx_pktstamp(ring->q_vector, xsk_zc_rx_hw_data(xdp),
					&ts))
			skb_hwtstamps(skb)->hwtstamp = ts;
	} else if (igb_test_staterr(d, E1000_RXDADV_STAT_TS)) {
		*skb_hwtstamps(skb) = ring->xsk_hwts;
	}
	igb_rx_skb_fields(ring, d, skb);
}

static const struct xsk_zc_rx_hw igb_xsk_rx_hw = {
	.next = igb_xsk_rx_next,
	.fill = igb_xsk_rx_fill,
	.kick = igb_xsk_rx_kick,
	.xmit_zc = igb_xsk_rx_xmit,
	.xmit_flush = igb_xsk_rx_xmit_flush,
	.populate = igb_xsk_rx_populate,
};

/* RX hints for a dev-bound XDP program on a zero-copy ring: what
 * igb_xsk_rx_populate() gives an skb, read from the frame's descriptor.
 * igb's page-mode XDP keeps no descriptor with its buffer: -ENODATA there.
 */
static const union e1000_adv_rx_desc *
igb_xdp_rx_desc(const struct xdp_md *ctx, struct igb_ring **ring)
{
	const struct xsk_zc_rx_desc *desc = xsk_zc_rx_hint_desc(ctx);
	const struct xdp_buff *xdp = (const void *)ctx;

	if (!desc)
		return NULL;
	*ring = container_of(xdp->rxq, struct igb_ring, xdp_rxq);
	return desc->hw_desc;
}

static int igb_xdp_rx_timestamp(const struct xdp_md *ctx, u64 *timestamp)
{
	const struct xdp_buff *xdp = (const void *)ctx;
	const union e1000_adv_rx_desc *d;
	struct igb_ring *ring;
	ktime_t ts;

	d = igb_xdp_rx_desc(ctx, &ring);
	if (!d)
		return -ENODATA;
	if (igb_test_staterr(d, E1000_RXDADV_STAT_TSIP)) {
		if (!igb_ptp_rx_pktstamp(ring->q_vector, xsk_zc_rx_hw_data(xdp),
					 &ts))
			return -ENODATA;
		*timestamp = ts;
		return 0;
	}
	/* read from the latch by igb_xsk_rx_next(), 0 if it held none */
	if (!igb_test_staterr(d, E1000_RXDADV_STAT_TS) ||
	    !ring->xsk_hwts.hwtstamp)
		return -ENODATA;
	*timestamp = ring->xsk_hwts.hwtstamp;
	return 0;
}

/* The RSS type field of the write-back: what the NIC hashed */
static enum xdp_rss_hash_type igb_xdp_rss_type(const union e1000_adv_rx_desc *d)
{
	switch (le16_to_cpu(d->wb.lower.lo_dword.pkt_info) & 0xf) {
	case 0x1:
		return XDP_RSS_TYPE_L4_IPV4_TCP;
	case 0x2:
		return XDP_RSS_TYPE_L3_IPV4;
	case 0x3:
		return XDP_RSS_TYPE_L4_IPV6_TCP;
	case 0x4:
		return XDP_RSS_TYPE_L3_IPV6_EX;
	case 0x5:
		return XDP_RSS_TYPE_L3_IPV6;
	case 0x6:
		return XDP_RSS_TYPE_L4_IPV6_TCP_EX;
	case 0x7:
		return XDP_RSS_TYPE_L4_IPV4_UDP;
	case 0x8:
		return XDP_RSS_TYPE_L4_IPV6_UDP;
	case 0x9:
		return XDP_RSS_TYPE_L4_IPV6_UDP_EX;
	default:	/* 0: not hashed; 10-15 reserved */
		return XDP_RSS_TYPE_NONE;
	}
}

static int igb_xdp_rx_hash(const struct xdp_md *ctx, u32 *hash,
			   enum xdp_rss_hash_type *rss_type)
{
	const union e1000_adv_rx_desc *d;
	struct igb_ring *ring;

	d = igb_xdp_rx_desc(ctx, &ring);
	if (!d || !(ring->netdev->features & NETIF_F_RXHASH))
		return -ENODATA;
	*rss_type = igb_xdp_rss_type(d);
	if (*rss_type == XDP_RSS_TYPE_NONE)
		return -ENODATA;
	*hash = le32_to_cpu(d->wb.lower.hi_dword.rss);
	return 0;
}

static int igb_xdp_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
			       u16 *vlan_tci)
{
	const union e1000_adv_rx_desc *d;
	struct igb_ring *ring;

	d = igb_xdp_rx_desc(ctx, &ring);
	if (!d || !(ring->netdev->features & NETIF_F_HW_VLAN_CTAG_RX) ||
	    !igb_test_staterr(d, E1000_RXD_STAT_VP))
		return -ENODATA;
	*vlan_proto = htons(ETH_P_8021Q);
	*vlan_tci = igb_rx_vlan_tci(ring, d);
	return 0;
}

const struct xdp_metadata_ops igb_xdp_metadata_ops = {
	.xmo_rx_timestamp = igb_xdp_rx_timestamp,
	.xmo_rx_hash = igb_xdp_rx_hash,
	.xmo_rx_vlan_tag = igb_xdp_rx_vlan_tag,
};

/* A frame of a pool with TX metadata may ask for a checksum, which takes a
 * context descriptor before its data descriptor: claim two for each.
 */
static u32 igb_xsk_tx_claim(struct xsk_zc_tx_ring *tx, u32 want)
{
	u32 free = igb_desc_unused(igb_of_ztx(tx));

	if (xp_tx_metadata_enabled(tx->pool))
		return xsk_zc_tx_claimable(tx, free, want * 2) / 2;
	return xsk_zc_tx_claimable(tx, free, want);
}

/* One descriptor per buffer: a frame of several (XDP_PKT_CONTD) starts
 * at its first and ends at its last, which xsk_zc hands over in one
 * batch, in order. Inlined into the library's loop, with what it calls:
 * a call per frame to each cost more than igb's descriptor writes
 * themselves (guest instructions per frame, make bench).
 */
static __always_inline void igb_xsk_tx_fill(struct xsk_zc_tx_ring *tx,
					    const struct xdp_desc *desc,
					    dma_addr_t dma)
{
	struct igb_ring *ring = igb_of_ztx(tx);
	struct igb_xsk_tx_meta *f = &ring->xsk_meta;
	union e1000_adv_tx_desc *d;

	if (likely(!f->first && !xp_mb_desc(desc) &&
		   !f->vlan_macip_lens && !f->compl.tx_timestamp)) {
		igb_xsk_tx_one(ring, NULL, dma, desc->len);
		return;
	}

	if (!f->first)
		f->first = igb_xsk_tx_start(ring, f, &f->cmd, &f->olinfo);
	/* olinfo goes into the first descriptor once the frame's length
	 * is known: igb_xsk_tx_end()
	 */
	d = igb_xsk_tx_desc(ring, dma, desc->len, f->cmd, 0);
	if (!f->first->xsk_descs++)
		f->sop = d;
	f->first->bytecount += desc->len;
	if (xp_mb_desc(desc))
		return;
	igb_xsk_tx_end(ring, f->first, f->sop, d, f->olinfo);
	f->first = NULL;
}

/* AF_XDP TX metadata: the checksum of a TCP or UDP frame, which igb's
 * context descriptor describes by the L4 type and where the L4 header
 * starts, MACLEN + IPLEN (IPLEN 9 bits): the header lengths themselves
 * only matter for an IP header checksum, which AF_XDP does not ask for.
 * The checksum field holds the pseudo-header sum, as for skbs. Any other
 * request is not offloaded: the frame goes out as it is.
 */
static void igb_xsk_tmo_request_checksum(u16 csum_start, u16 csum_offset,
					 void *priv)
{
	struct igb_xsk_tx_meta *csum = container_of(priv, struct igb_xsk_tx_meta,
						    compl);
	u32 type_tucmd;

	switch (csum_offset) {
	case offsetof(struct tcphdr, check):
		type_tucmd = E1000_ADVTXD_TUCMD_L4T_TCP;
		break;
	case offsetof(struct udphdr, check):
		type_tucmd = E1000_ADVTXD_TUCMD_L4T_UDP;
		break;
	default:
		return;
	}
	if (csum_start <= ETH_HLEN || csum_start - ETH_HLEN > 511)
		return;
	csum->type_tucmd = type_tucmd;
	csum->vlan_macip_lens = (ETH_HLEN << E1000_ADVTXD_MACLEN_SHIFT) |
				(csum_start - ETH_HLEN);
}

/* The timestamp igb_xsk_tx_tstamp_done() read, for xsk_zc_tx_meta_done() */
static u64 igb_xsk_tmo_fill_timestamp(void *priv)
{
	return container_of(priv, struct igb_xsk_tx_ts, compl)->ns;
}

const struct xsk_tx_metadata_ops igb_xsk_tx_metadata_ops = {
	.tmo_request_checksum = igb_xsk_tmo_request_checksum,
	.tmo_fill_timestamp = igb_xsk_tmo_fill_timestamp,
};

/* The slot xsk_zc sets before each fill; a frame that gets the timestamp
 * latch takes it along (igb_xsk_tx_tstamp())
 */
static struct xsk_tx_metadata_compl *igb_xsk_tx_compl(struct xsk_zc_tx_ring *tx)
{
	return &igb_of_ztx(tx)->xsk_meta.compl;
}

/* BQL hears of a batch once, as igb_tx_map() tells it of an skb */
static void igb_xsk_tx_kick(struct xsk_zc_tx_ring *tx, u32 bytes)
{
	struct igb_ring *ring = igb_of_ztx(tx);

	netdev_tx_sent_queue(txring_txq(ring), bytes);
	wmb();	/* descriptors before the tail */
	writel(ring->next_to_use, ring->tail);
}

static const struct xsk_zc_tx_hw igb_xsk_tx_hw = {
	.claim = igb_xsk_tx_claim,
	.fill = igb_xsk_tx_fill,
	.kick = igb_xsk_tx_kick,
	.tmo = &igb_xsk_tx_metadata_ops,
	.compl = igb_xsk_tx_compl,
};

/**
 * igb_xsk_tx_tstamp_done - complete the TX timestamp of an AF_XDP frame
 * @ring: the frame's TX ring
 * @tx_buffer: the frame, which holds the adapter's TX timestamp latch
 *
 * For igb_clean_tx_irq(), once the frame's descriptor is done: its
 * timestamp goes into its metadata in the UMEM.
 *
 * Return: false while the NIC has not latched the timestamp yet: the frame
 * and those behind it are not completed.
 */
bool igb_xsk_tx_tstamp_done(struct igb_ring *ring,
			    struct igb_tx_buffer *tx_buffer)
{
	struct igb_adapter *adapter = netdev_priv(ring->netdev);
	int err;

	err = igb_ptp_xsk_tx_tstamp(adapter, &adapter->xsk_tx_ts.ns);
	if (err == -EAGAIN)
		return false;
	if (!err)
		xsk_zc_tx_meta_done(&adapter->xsk_tx_ts.compl, &igb_xsk_tx_hw);
	tx_buffer->tx_flags = 0;
	return true;
}

/* The hot path: the xsk_zc helpers inlined with igb's descriptors */
int igb_xsk_clean_rx_irq(struct igb_ring *ring, int budget)
{
	const struct xsk_zc_rx_stats *zs = &ring->zrx.stats;
	struct igb_ring_container *rc = &ring->q_vector->rx;
	u64 packets = zs->packets, bytes = zs->bytes;
	int done;

	done = xsk_zc_rx_poll(&ring->zrx, &ring->q_vector->napi,
			      READ_ONCE(ring->xdp_prog), budget,
			      &igb_xsk_rx_hw);
	/* for igb's interrupt moderation, as igb_clean_rx_irq() counts; only
	 * this poll writes the ring's counters
	 */
	rc->total_packets += zs->packets - packets;
	rc->total_bytes += zs->bytes - bytes;
	return done;
}

bool igb_xsk_clean_tx_irq(struct igb_ring *ring, u32 frames, u32 budget)
{
	xsk_zc_tx_complete(&ring->ztx, frames);
	return xsk_zc_tx_xmit(&ring->ztx, budget, &igb_xsk_tx_hw);
}

static void igb_xsk_rx_reverse(struct igb_rx_buffer *bi, u32 from, u32 to)
{
	for (; from + 1 < to; from++, to--)
		swap(bi[from], bi[to - 1]);
}

/* Puts page mode's RX buffers aside, mapped, for when the ring leaves
 * zero-copy: igb_clean_rx_ring() but for the pages, which move to the
 * start of rx_buffer_info, where igb_alloc_rx_buffers() finds them and
 * posts them again without allocating (xsk_zc's queue_start allocates
 * nothing). A ring stopped with its pages aside keeps them there.
 */
static void igb_xsk_rx_keep(struct igb_ring *ring)
{
	struct igb_rx_buffer *bi = ring->rx_buffer_info;
	u16 ntc = ring->next_to_clean, kept;

	/* an error pointer while page mode drops a frame across buffers */
	if (!IS_ERR(ring->skb))
		dev_kfree_skb(ring->skb);
	ring->skb = NULL;
	xsk_zc_rx_ring_clean(&ring->zrx);

	/* the pages are next_to_clean up to next_to_alloc: rotate them to 0 */
	kept = ring->next_to_alloc - ntc;
	if (ring->next_to_alloc < ntc)
		kept += ring->count;
	if (ntc) {
		igb_xsk_rx_reverse(bi, 0, ntc);
		igb_xsk_rx_reverse(bi, ntc, ring->count);
		igb_xsk_rx_reverse(bi, 0, ring->count);
	}

	ring->next_to_clean = 0;
	ring->next_to_use = 0;
	ring->next_to_alloc = kept;
	set_bit(IGB_RING_FLAG_RX_PAGES_ASIDE, &ring->flags);
}

/* Posts the buffers of a configured RX ring: from its pool or pages. A
 * ring that leaves zero-copy posts the pages it put aside; one that opens
 * zero-copy gets its pages now, where igb_configure() may allocate.
 *
 * igb_configure() posts before igb_request_irq() routes the queue's
 * interrupt: frames already waiting for the NIC fill the buffers at once
 * and raise none. A page ring has thousands more for the frame whose
 * interrupt reports them; a zero-copy ring holds only what the fill ring
 * had, so the same flag as a short page refill has the watchdog, which
 * runs once the interrupts are live, raise the vector's interrupt.
 */
void igb_xsk_rx_start(struct igb_ring *ring)
{
	if (!xsk_zc_rx_pool(&ring->zrx)) {
		if (test_and_clear_bit(IGB_RING_FLAG_RX_PAGES_ASIDE,
				       &ring->flags))
			igb_alloc_rx_buffers(ring, ring->next_to_alloc);
		else
			igb_alloc_rx_buffers(ring, igb_desc_unused(ring));
		return;
	}
	if (!test_bit(IGB_RING_FLAG_RX_PAGES_ASIDE, &ring->flags)) {
		igb_alloc_rx_pages(ring);
		set_bit(IGB_RING_FLAG_RX_PAGES_ASIDE, &ring->flags);
	}
	xsk_zc_rx_start(&ring->zrx, &igb_xsk_rx_hw);
	set_bit(IGB_RING_FLAG_RX_ALLOC_FAILED, &ring->flags);
}

/* Describes the RX ring to the library where it gets its size: when its
 * vector is allocated and when ethtool -G resizes it (never while the
 * queue is zero-copy).
 */
void igb_xsk_rx_ring_resized(struct igb_ring *ring)
{
	xsk_zc_rx_ring_init(&ring->zrx, ring->netdev, ring->queue_index,
			    ring->count, &ring->xdp_rxq);
}

/* igb sizes RX buffers in 1 KB steps (SRRCTL.BSIZEPKT) and may fill the
 * whole buffer, so rounding the XSK frame up to the next step is safe only
 * while nothing longer than the frame reaches the buffer. igb_rlpml()
 * makes RLPML the largest frame of the MTU while a queue is zero-copy: if
 * that, and the timestamp header of 82580 and later, fits in the XSK frame,
 * round up (2 KB chunks work up to MTU 1766, xskxceiver's 1518 included).
 * RXALL stores frames longer than RLPML too, and with VFs RLPML stays at
 * the jumbo size: then round down, and a longer frame spans buffers and is
 * dropped. igb_fix_features() keeps RXALL off while a queue is zero-copy,
 * SR-IOV changes are refused then, and an MTU change asks here again.
 */
static u32 igb_xsk_srrctl_len(struct net_device *dev,
			      struct xsk_buff_pool *pool, unsigned int mtu)
{
	struct igb_adapter *adapter = netdev_priv(dev);
	u32 frame = xsk_pool_get_rx_frame_size(pool);
	u32 longest = mtu + IGB_ETH_PKT_HDR_PAD;

	if (adapter->hw.mac.type >= e1000_82580)
		longest += IGB_TS_HDR_LEN;
	if (!(dev->features & NETIF_F_RXALL) &&
	    !adapter->vfs_allocated_count && longest <= frame)
		return ALIGN(frame, 1024);
	return ALIGN_DOWN(frame, 1024);
}

/* SRRCTL's packet buffer size for a zero-copy ring, in bytes */
u32 igb_xsk_srrctl_buf_size(struct igb_ring *ring)
{
	return igb_xsk_srrctl_len(ring->netdev, ring->zrx.pool,
				  ring->netdev->mtu);
}

/* What a buffer holds of the frame: 82580 and later put a timestamp
 * header in front of it.
 */
static u32 igb_xsk_rx_buf_len(struct net_device *dev,
			      struct xsk_buff_pool *pool, unsigned int mtu)
{
	struct igb_adapter *adapter = netdev_priv(dev);
	u32 len = igb_xsk_srrctl_len(dev, pool, mtu);

	if (adapter->hw.mac.type >= e1000_82580)
		len -= IGB_TS_HDR_LEN;
	return len;
}

/* The rings of a queue, none while it has none: igb frees them with its
 * queue vectors (runtime suspend, SR-IOV reinit, the MSI fallback of
 * open) and the queue count of the next interrupt scheme may be lower.
 * ndo_xsk_wakeup calls in under RCU only: the vectors are freed after a
 * grace period. A netdev that still runs after a failed open (queue or
 * SR-IOV reinit) has its NAPI disabled and no descriptor rings: its
 * queues do not run, igb_open() starts them with the pool.
 */
static void igb_xsk_queue(struct net_device *dev, u32 qid,
			  struct xsk_zc_queue_info *qi)
{
	struct igb_adapter *adapter = netdev_priv(dev);
	struct igb_ring *rx = NULL, *tx = NULL;

	if (qid < READ_ONCE(adapter->num_rx_queues))
		rx = READ_ONCE(adapter->rx_ring[qid]);
	if (qid < READ_ONCE(adapter->num_tx_queues))
		tx = READ_ONCE(adapter->tx_ring[qid]);
	if (rx) {
		qi->rx = &rx->zrx;
		qi->rx_napi = &rx->q_vector->napi;
	}
	if (tx) {
		qi->tx = &tx->ztx;
		qi->tx_napi = &tx->q_vector->napi;
	}
	if (test_bit(__IGB_DOWN, &adapter->state))
		qi->running = false;
}

/* igb_down() for one queue pair: NAPI, then the stack, then the DMA */
static void igb_xsk_queue_stop(struct net_device *dev, u32 qid)
{
	struct igb_adapter *adapter = netdev_priv(dev);
	struct igb_ring *rx = adapter->rx_ring[qid];
	struct igb_ring *tx = adapter->tx_ring[qid];
	struct netdev_queue *nq = txring_txq(tx);
	struct e1000_hw *hw = &adapter->hw;
	u32 val;

	napi_disable(&rx->q_vector->napi);
	if (tx->q_vector != rx->q_vector)
		napi_disable(&tx->q_vector->napi);
	/* no skb, XDP_TX or redirected frame may reach the ring now */
	__netif_tx_lock_bh(nq);
	netif_tx_stop_queue(nq);
	set_bit(IGB_RING_FLAG_TX_DISABLED, &tx->flags);
	__netif_tx_unlock_bh(nq);

	wr32(E1000_RXDCTL(rx->reg_idx), 0);
	wr32(E1000_TXDCTL(tx->reg_idx), 0);
	wrfl();
	/* a queue reads as disabled once its DMA in flight is done; 10 ms
	 * is what igb_rx_fifo_flush_82575() gives the RX queues
	 */
	if (read_poll_timeout(igb_rd32, val,
			      !(val & E1000_RXDCTL_QUEUE_ENABLE), 100, 10000,
			      false, hw, E1000_RXDCTL(rx->reg_idx)) ||
	    read_poll_timeout(igb_rd32, val,
			      !(val & E1000_TXDCTL_QUEUE_ENABLE), 100, 10000,
			      false, hw, E1000_TXDCTL(tx->reg_idx)))
		netdev_warn(dev, "queue %u did not stop within 10 ms\n", qid);
	igb_clean_tx_ring(tx);
	igb_xsk_rx_keep(rx);
}

/* igb_up() for one queue pair, with the pool or the pages it has now */
static void igb_xsk_queue_start(struct net_device *dev, u32 qid)
{
	struct igb_adapter *adapter = netdev_priv(dev);
	struct igb_ring *rx = adapter->rx_ring[qid];
	struct igb_ring *tx = adapter->tx_ring[qid];
	struct e1000_hw *hw = &adapter->hw;

	/* before the ring runs: tight while a queue is zero-copy */
	wr32(E1000_RLPML, igb_rlpml(adapter, adapter->max_frame_size));
	igb_configure_tx_ring(adapter, tx);
	igb_configure_rx_ring(adapter, rx);
	igb_xsk_rx_start(rx);
	clear_bit(IGB_RING_FLAG_TX_DISABLED, &tx->flags);
	netif_tx_wake_queue(txring_txq(tx));

	/* napi_enable() takes the netdev's instance lock, a mutex */
	napi_enable(&rx->q_vector->napi);
	if (tx->q_vector != rx->q_vector)
		napi_enable(&tx->q_vector->napi);

	/* a vector that fired while NAPI was off stays masked until a poll */
	local_bh_disable();
	napi_schedule(&rx->q_vector->napi);
	if (tx->q_vector != rx->q_vector)
		napi_schedule(&tx->q_vector->napi);
	local_bh_enable();
}

/* A software interrupt runs NAPI on the CPU the queue's vector is on */
static void igb_xsk_irq_raise(struct net_device *dev, u32 qid,
			      struct napi_struct *napi)
{
	struct igb_adapter *adapter = netdev_priv(dev);
	struct e1000_hw *hw = &adapter->hw;

	if (adapter->flags & IGB_FLAG_HAS_MSIX)
		wr32(E1000_EICS,
		     container_of(napi, struct igb_q_vector, napi)->eims_value);
	else
		wr32(E1000_ICS, E1000_ICS_RXDMT0);
}

/* The most buffers of a frame: a 9216-byte jumbo frame in 2 KB chunks
 * takes 5, and a frame with its context descriptor fits, twice over, in
 * what a TX claim gets of the smallest ring (IGB_MIN_TXD) once the
 * stack's reserve is kept and TX metadata halves the claim.
 */
#define IGB_XSK_MAX_SEGS	8

const struct xsk_zc_ops igb_xsk_ops = {
	.frame_overhead = IGB_ETH_PKT_HDR_PAD,
	.max_segs = IGB_XSK_MAX_SEGS,
	.rx_buf_len = igb_xsk_rx_buf_len,
	.queue = igb_xsk_queue,
	.queue_stop = igb_xsk_queue_stop,
	.queue_start = igb_xsk_queue_start,
	.irq_raise = igb_xsk_irq_raise,
};

int igb_xsk_wakeup(struct net_device *dev, u32 qid, u32 flags)
{
	struct igb_adapter *adapter = netdev_priv(dev);

	return xsk_zc_wakeup(&adapter->xsk_zc, qid, flags);
}
