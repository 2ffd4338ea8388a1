// SPDX-License-Identifier: GPL-2.0
/*
 * AF_XDP zero-copy for the TI K3 am65-cpsw, on the xsk_zc helpers.
 *
 * All ports share the RX flows and TX channels. A zero-copy queue belongs
 * to one port's netdev: frames of the other ports that land in its UMEM
 * buffers are copied to their own stack. The UMEM buffer of an RX
 * descriptor lives in the descriptor's swdata, so the library's bufs[]
 * is bookkeeping only; the rings are refilled by deficit (zrx.pending).
 */

#include <linux/kernel.h>
#include <linux/platform_device.h>
#include <linux/dma/k3-udma-glue.h>
#include <linux/dma/ti-cppi5.h>
#include "am65-cpsw-nuss.h"
#include "am65-cpsw-xsk.h"
#include "am65-cpsw-switchdev.h"
#include "am65-cpts.h"
#include "k3-cppi-desc-pool.h"

#define am65_zrx_flow(rx) container_of(rx, struct am65_cpsw_rx_flow, zrx)
#define am65_ztx_chn(tx) container_of(tx, struct am65_cpsw_tx_chn, ztx)

static void am65_cpsw_xsk_skb_fixup(struct am65_cpsw_port *port,
				    struct sk_buff *skb, u32 csum)
{
	skb->dev = port->ndev;
	am65_cpsw_nuss_set_offload_fwd_mark(skb,
					    am65_ndev_to_priv(port->ndev)->offload_fwd_mark);
	if (port->rx_ts_enabled)
		am65_cpts_rx_timestamp(port->common->cpts, skb);
	am65_cpsw_nuss_rx_csum(skb, csum);
}

/* A frame of another port on the ZC flow: copy it to that port's stack. */
static void am65_cpsw_xsk_rx_other(struct am65_cpsw_rx_flow *flow,
				   struct am65_cpsw_port *port,
				   struct xdp_buff *xdp, u32 len, u32 csum)
{
	struct sk_buff *skb = NULL;

	if (port) {
		xsk_buff_set_size(xdp, len);
		xsk_buff_dma_sync_for_cpu(xdp);
		skb = xsk_zc_build_skb(&flow->napi_rx, xdp);
	}
	xsk_buff_free(xdp);
	if (!skb)
		return;
	am65_cpsw_xsk_skb_fixup(port, skb, csum);
	skb->protocol = eth_type_trans(skb, port->ndev);
	napi_gro_receive(&flow->napi_rx, skb);
}

static struct xdp_buff *am65_cpsw_xsk_rx_next(struct xsk_zc_rx_ring *rx,
					      struct xsk_zc_rx_desc *d)
{
	struct am65_cpsw_rx_flow *flow = am65_zrx_flow(rx);
	struct am65_cpsw_common *common = flow->common;
	struct am65_cpsw_rx_chn *rx_chn = &common->rx_chns;
	struct cppi5_host_desc_t *desc;
	struct am65_cpsw_swdata *swdata;
	struct am65_cpsw_port *port;
	u32 port_id = 0, len, csum;
	struct xdp_buff *xdp;
	dma_addr_t desc_dma;

	while (!k3_udma_glue_pop_rx_chn(rx_chn->rx_chn, flow->id, &desc_dma)) {
		if (cppi5_desc_is_tdcm(desc_dma)) {
			if (common->pdata.quirks & AM64_CPSW_QUIRK_DMA_RX_TDOWN_IRQ)
				complete(&common->tdown_complete);
			break;
		}
		desc = k3_cppi_desc_pool_dma2virt(rx_chn->desc_pool, desc_dma);
		swdata = cppi5_hdesc_get_swdata(desc);
		xdp = swdata->xdp;
		len = cppi5_hdesc_get_pktlen(desc);
		cppi5_desc_get_tags_ids(&desc->hdr, &port_id, NULL);
		csum = ((u32 *)cppi5_hdesc_get_psdata(desc))[2];
		k3_cppi_desc_pool_free(rx_chn->desc_pool, desc);
		am65_cpsw_xsk_returned(flow);

		port = am65_cpsw_port_by_id(common, port_id & 0xff);
		if (likely(port == flow->xsk_port)) {
			d->len = len;
			flow->xsk_csum = csum;
			return xdp;
		}
		/* Bounded: nothing is refilled before the poll ends. */
		am65_cpsw_xsk_rx_other(flow, port, xdp, len, csum);
	}
	return NULL;
}

static void am65_cpsw_xsk_rx_fill(struct xsk_zc_rx_ring *rx, u32 idx,
				  struct xdp_buff *xdp, dma_addr_t dma)
{
	struct am65_cpsw_rx_flow *flow = am65_zrx_flow(rx);
	struct am65_cpsw_rx_chn *rx_chn = &flow->common->rx_chns;
	u32 len = xsk_pool_get_rx_frame_size(rx->pool);
	struct am65_cpsw_swdata *swdata;
	struct cppi5_host_desc_t *desc;
	dma_addr_t desc_dma;

	desc = k3_cppi_desc_pool_alloc(rx_chn->desc_pool);
	if (unlikely(!desc))
		goto drop;
	desc_dma = k3_cppi_desc_pool_virt2dma(rx_chn->desc_pool, desc);
	cppi5_hdesc_init(desc, CPPI5_INFO0_HDESC_EPIB_PRESENT,
			 AM65_CPSW_NAV_PS_DATA_SIZE);
	k3_udma_glue_rx_dma_to_cppi5_addr(rx_chn->rx_chn, &dma);
	cppi5_hdesc_attach_buf(desc, dma, len, dma, len);
	swdata = cppi5_hdesc_get_swdata(desc);
	swdata->flow_id = flow->id;
	swdata->xsk = true;
	swdata->xdp = xdp;
	if (likely(!k3_udma_glue_push_rx_chn(rx_chn->rx_chn, flow->id, desc,
					     desc_dma))) {
		am65_cpsw_xsk_posted(flow, idx);
		return;
	}
	k3_cppi_desc_pool_free(rx_chn->desc_pool, desc);
drop:	/* back into the deficit: the refill subtracts what it allocated */
	rx->bufs[idx] = NULL;
	xsk_buff_free(xdp);
	rx->pending++;
}

/* Each push is its own doorbell. */
static void am65_cpsw_xsk_rx_kick(struct xsk_zc_rx_ring *rx, u32 ntu)
{
}

static void am65_cpsw_xsk_rx_populate(struct xsk_zc_rx_ring *rx,
				      struct sk_buff *skb,
				      const struct xsk_zc_rx_desc *d)
{
	struct am65_cpsw_rx_flow *flow = am65_zrx_flow(rx);

	am65_cpsw_xsk_skb_fixup(flow->xsk_port, skb, flow->xsk_csum);
}

static const struct xsk_zc_rx_hw am65_cpsw_xsk_rx_hw = {
	.next = am65_cpsw_xsk_rx_next,
	.fill = am65_cpsw_xsk_rx_fill,
	.kick = am65_cpsw_xsk_rx_kick,
	.populate = am65_cpsw_xsk_rx_populate,
};

static u32 am65_cpsw_xsk_tx_free(struct xsk_zc_tx_ring *tx)
{
	return k3_cppi_desc_pool_avail(am65_ztx_chn(tx)->desc_pool);
}

static void am65_cpsw_xsk_tx_fill(struct xsk_zc_tx_ring *tx,
				  const struct xdp_desc *xd, dma_addr_t dma)
{
	struct am65_cpsw_tx_chn *tx_chn = am65_ztx_chn(tx);
	struct cppi5_host_desc_t *desc;
	int ret = -ENOMEM;

	desc = k3_cppi_desc_pool_alloc(tx_chn->desc_pool);
	if (likely(desc)) {
		am65_cpsw_nuss_set_buf_type(tx_chn, desc,
					    AM65_CPSW_TX_BUF_TYPE_XSK);
		cppi5_hdesc_init(desc, CPPI5_INFO0_HDESC_EPIB_PRESENT,
				 AM65_CPSW_NAV_PS_DATA_SIZE);
		cppi5_hdesc_set_pkttype(desc, AM65_CPSW_CPPI_TX_PKT_TYPE);
		cppi5_hdesc_set_pktlen(desc, xd->len);
		cppi5_desc_set_pktids(&desc->hdr, 0, AM65_CPSW_CPPI_TX_FLOW_ID);
		cppi5_desc_set_tags_ids(&desc->hdr, 0,
					am65_ndev_to_port(tx->netdev)->port_id);
		k3_udma_glue_tx_dma_to_cppi5_addr(tx_chn->tx_chn, &dma);
		cppi5_hdesc_attach_buf(desc, dma, xd->len, dma, xd->len);
		/* other ports push on this channel too */
		spin_lock(&tx_chn->lock);
		ret = k3_udma_glue_push_tx_chn(tx_chn->tx_chn, desc,
					       k3_cppi_desc_pool_virt2dma(tx_chn->desc_pool, desc));
		spin_unlock(&tx_chn->lock);
		if (ret)
			k3_cppi_desc_pool_free(tx_chn->desc_pool, desc);
	}
	/* Not sent: completed by the next poll (the reserve makes it rare) */
	if (unlikely(ret))
		tx_chn->xsk_done++;
}

static void am65_cpsw_xsk_tx_kick(struct xsk_zc_tx_ring *tx)
{
}

static const struct xsk_zc_tx_hw am65_cpsw_xsk_tx_hw = {
	.free_descs = am65_cpsw_xsk_tx_free,
	.fill = am65_cpsw_xsk_tx_fill,
	.kick = am65_cpsw_xsk_tx_kick,
};

/* The hot-path instantiations, checked for indirect calls by make lint. */
noinline int am65_cpsw_xsk_rx_poll(struct am65_cpsw_rx_flow *flow, int budget)
{
	return xsk_zc_rx_poll(&flow->zrx, &flow->napi_rx,
			      READ_ONCE(flow->xsk_port->xdp_prog), budget,
			      &am65_cpsw_xsk_rx_hw);
}

noinline bool am65_cpsw_xsk_tx_poll(struct am65_cpsw_tx_chn *tx_chn, int budget)
{
	u32 done = tx_chn->xsk_done;

	tx_chn->xsk_done = 0;
	xsk_zc_tx_complete(&tx_chn->ztx, done);
	return xsk_zc_tx_xmit(&tx_chn->ztx, budget, &am65_cpsw_xsk_tx_hw);
}

static noinline bool am65_cpsw_xsk_rx_refill(struct am65_cpsw_rx_flow *flow)
{
	return xsk_zc_rx_refill(&flow->zrx, &am65_cpsw_xsk_rx_hw);
}

void am65_cpsw_xsk_rx_start(struct am65_cpsw_rx_flow *flow)
{
	xsk_zc_rx_ring_reset(&flow->zrx);
	if (!am65_cpsw_xsk_rx_refill(flow) &&
	    xsk_uses_need_wakeup(flow->zrx.pool))
		xsk_set_rx_need_wakeup(flow->zrx.pool);
}

void am65_cpsw_xsk_rx_cleanup(struct am65_cpsw_rx_flow *flow,
			      struct xdp_buff *xdp)
{
	xsk_buff_free(xdp);
	am65_cpsw_xsk_returned(flow);
}

void am65_cpsw_xsk_tx_done(struct am65_cpsw_tx_chn *tx_chn, dma_addr_t desc_dma)
{
	k3_cppi_desc_pool_free(tx_chn->desc_pool,
			       k3_cppi_desc_pool_dma2virt(tx_chn->desc_pool,
							  desc_dma));
	tx_chn->xsk_done++;
}

/* ---- slow path ---- */

static struct xsk_zc_rx_ring *am65_cpsw_xsk_rx_ring(struct net_device *ndev,
						    u32 qid)
{
	return &am65_ndev_to_common(ndev)->rx_chns.flows[qid].zrx;
}

static struct xsk_zc_tx_ring *am65_cpsw_xsk_tx_ring(struct net_device *ndev,
						    u32 qid)
{
	return &am65_ndev_to_common(ndev)->tx_chns[qid].ztx;
}

static int am65_cpsw_xsk_prepare(struct net_device *ndev, u32 qid,
				 struct xsk_buff_pool *pool,
				 struct netlink_ext_ack *extack)
{
	struct am65_cpsw_port *port = am65_ndev_to_port(ndev);
	struct am65_cpsw_common *common = port->common;
	struct am65_cpsw_rx_flow *flow = &common->rx_chns.flows[qid];

	if (qid >= common->rx_ch_num_flows || qid >= common->tx_ch_num) {
		NL_SET_ERR_MSG_MOD(extack, "no such DMA flow or channel");
		return -EINVAL;
	}
	/* All flows share one free descriptor queue. */
	if (common->rx_ch_num_flows != 1) {
		NL_SET_ERR_MSG_MOD(extack, "zero-copy needs a single RX flow");
		return -EOPNOTSUPP;
	}
	/* The ports accept frames up to AM65_CPSW_MAX_PACKET_SIZE. */
	if (xsk_pool_get_rx_frame_size(pool) < AM65_CPSW_MAX_PACKET_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "XSK frame smaller than 2024 bytes");
		return -EINVAL;
	}
	if (am65_cpsw_xsk_claim(flow, port)) {
		NL_SET_ERR_MSG_MOD(extack, "RX flow is zero-copy on another port");
		return -EBUSY;
	}
	xsk_zc_rx_ring_init(&flow->zrx, ndev, qid, AM65_CPSW_MAX_RX_DESC,
			    &port->xdp_rxq[qid]);
	/* Room for one skb of every port sharing the channel */
	xsk_zc_tx_ring_init(&common->tx_chns[qid].ztx, ndev, qid,
			    (MAX_SKB_FRAGS + 1) * common->port_num, true);
	return 0;
}

static void am65_cpsw_xsk_unprepare(struct net_device *ndev, u32 qid,
				    struct xsk_buff_pool *pool)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);

	am65_cpsw_xsk_release(&common->rx_chns.flows[qid],
			      am65_ndev_to_port(ndev));
}

/* Stops RX flow and TX channel @qid through the DMA channels. */
static void am65_cpsw_xsk_queue_stop(struct net_device *ndev, u32 qid)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);
	struct am65_cpsw_tx_chn *tx_chn = &common->tx_chns[qid];

	atomic_set(&common->tdown_cnt, 1);
	/* the TX NAPI that sees the teardown marker reads tdown_cnt */
	smp_mb__after_atomic();
	reinit_completion(&common->tdown_complete);
	k3_udma_glue_tdown_tx_chn(tx_chn->tx_chn, false);
	if (!wait_for_completion_timeout(&common->tdown_complete,
					 msecs_to_jiffies(1000)))
		dev_err(common->dev, "tx%u teardown timeout\n", qid);
	napi_disable(&tx_chn->napi_tx);
	hrtimer_cancel(&tx_chn->tx_hrtimer);
	k3_udma_glue_reset_tx_chn(tx_chn->tx_chn, tx_chn,
				  am65_cpsw_nuss_tx_cleanup);
	k3_udma_glue_disable_tx_chn(tx_chn->tx_chn);
	am65_cpsw_destroy_rxqs(common, true);
}

static void am65_cpsw_xsk_queue_start(struct net_device *ndev, u32 qid)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);
	struct am65_cpsw_tx_chn *tx_chn = &common->tx_chns[qid];
	int i;

	/* Only page allocation can fail, and only back in page mode */
	WARN_ON(am65_cpsw_create_rxqs(common));
	for (i = 0; i < common->port_num; i++) {
		struct net_device *port_ndev = common->ports[i].ndev;

		if (!port_ndev)
			continue;
		netdev_tx_reset_queue(netdev_get_tx_queue(port_ndev, qid));
		if (netif_running(port_ndev))
			netif_tx_wake_queue(netdev_get_tx_queue(port_ndev, qid));
	}
	tx_chn->xsk_done = 0;
	WARN_ON(k3_udma_glue_enable_tx_chn(tx_chn->tx_chn));
	napi_enable(&tx_chn->napi_tx);
}

static struct napi_struct *am65_cpsw_xsk_napi(struct net_device *ndev,
					      u32 qid, bool tx)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);

	return tx ? &common->tx_chns[qid].napi_tx :
		    &common->rx_chns.flows[qid].napi_rx;
}

static const struct xsk_zc_ops am65_cpsw_xsk_ops = {
	.rx_zc = true,
	.tx_zc = true,
	.frame_overhead = VLAN_ETH_HLEN + ETH_FCS_LEN,
	.rx_ring = am65_cpsw_xsk_rx_ring,
	.tx_ring = am65_cpsw_xsk_tx_ring,
	.prepare = am65_cpsw_xsk_prepare,
	.unprepare = am65_cpsw_xsk_unprepare,
	.queue_stop = am65_cpsw_xsk_queue_stop,
	.queue_start = am65_cpsw_xsk_queue_start,
	.napi = am65_cpsw_xsk_napi,
};

int am65_cpsw_xsk_setup_pool(struct net_device *ndev,
			     struct xsk_buff_pool *pool, u32 qid)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);
	/* The library quiesces only a running netdev; the DMA also runs
	 * while another port is up.
	 */
	bool other = !netif_running(ndev) && common->usage_count &&
		     qid < common->rx_ch_num_flows && qid < common->tx_ch_num;
	int err;

	if (other)
		am65_cpsw_xsk_queue_stop(ndev, qid);
	err = xsk_zc_pool_setup(&am65_ndev_to_priv(ndev)->zc, pool, qid, NULL);
	if (other)
		am65_cpsw_xsk_queue_start(ndev, qid);
	return err;
}

int am65_cpsw_xsk_wakeup(struct net_device *ndev, u32 qid, u32 flags)
{
	return xsk_zc_wakeup(&am65_ndev_to_priv(ndev)->zc, qid, flags);
}

bool am65_cpsw_xsk_busy(struct am65_cpsw_common *common)
{
	int i;

	for (i = 0; i < common->rx_ch_num_flows; i++)
		if (common->rx_chns.flows[i].xsk_port)
			return true;
	return false;
}

int am65_cpsw_xsk_init(struct am65_cpsw_port *port)
{
	struct am65_cpsw_rx_flow *flows = port->common->rx_chns.flows;
	int i;

	/* The library checks the ring size before ->prepare binds it */
	for (i = 0; i < AM65_CPSW_MAX_QUEUES; i++)
		if (!flows[i].xsk_port)
			xsk_zc_rx_ring_init(&flows[i].zrx, port->ndev, i,
					    AM65_CPSW_MAX_RX_DESC, NULL);
	port->ndev->xdp_features |= xsk_zc_xdp_features(&am65_cpsw_xsk_ops);
	return xsk_zc_dev_init(&am65_ndev_to_priv(port->ndev)->zc, port->ndev,
			       port->common->rx_chns.dma_dev,
			       &am65_cpsw_xsk_ops, AM65_CPSW_MAX_QUEUES);
}

void am65_cpsw_xsk_destroy(struct am65_cpsw_port *port)
{
	struct am65_cpsw_ndev_priv *priv = am65_ndev_to_priv(port->ndev);

	if (priv->zc.zc_queues)
		xsk_zc_dev_destroy(&priv->zc);
}
