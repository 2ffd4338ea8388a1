// SPDX-License-Identifier: GPL-2.0
/*
 * AF_XDP zero-copy for the TI K3 am65-cpsw, on the xsk_zc helpers.
 *
 * All ports share the one RX flow and the TX channels, and every port's
 * frames land in the flow's buffers: zero-copy belongs to one port, and
 * only while the other ports are down (prepare() here, ndo_open in
 * am65-cpsw-nuss.c), or one port's socket would decide what the others
 * receive and skip their XDP programs. An RX descriptor's swdata holds
 * its buffer, so the library's bufs[] stays empty and next() counts
 * zrx.pending itself. Each CPPI push is its own doorbell: no kicks.
 * XDP_TX sends the XSK buffer itself on the queue's TX channel. A TX
 * descriptor's swdata names the port's netdev, as every TX descriptor's
 * does, and holds that buffer, or NULL for a socket's frame.
 *
 * A pool change stops and restarts the flow and one TX channel without
 * touching what the interface's open set up: both XDP RX queue infos
 * stay registered, and page mode's pages stay with the flow, DMA-mapped,
 * while it is zero-copy, so that leaving zero-copy allocates nothing.
 */

#include <linux/kernel.h>
#include <linux/platform_device.h>	/* k3-udma-glue.h needs both */
#include <linux/dma/k3-udma-glue.h>
#include <linux/dma/ti-cppi5.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <net/page_pool/helpers.h>
#include <net/xsk_zc/datapath.h>
#include "am65-cpsw-nuss.h"
#include "am65-cpsw-switchdev.h"
#include "am65-cpts.h"
#include "cpsw_ale.h"
#include "k3-cppi-desc-pool.h"

MODULE_IMPORT_NS("XSK_ZC");

#define am65_zrx_flow(rx) container_of(rx, struct am65_cpsw_rx_flow, zrx)
#define am65_ztx_chn(tx) container_of(tx, struct am65_cpsw_tx_chn, ztx)

static struct xdp_buff *am65_cpsw_xsk_rx_next(struct xsk_zc_rx_ring *rx,
					      struct xsk_zc_rx_desc *d)
{
	struct am65_cpsw_rx_flow *flow = am65_zrx_flow(rx);
	struct am65_cpsw_common *common = flow->common;
	struct am65_cpsw_rx_chn *rx_chn = &common->rx_chns;
	struct cppi5_host_desc_t *desc;
	struct am65_cpsw_port *port;
	struct xdp_buff *xdp;
	dma_addr_t desc_dma;
	u32 port_id = 0;

	if (k3_udma_glue_pop_rx_chn(rx_chn->rx_chn, flow->id, &desc_dma))
		return NULL;
	if (cppi5_desc_is_tdcm(desc_dma)) {
		if (common->pdata.quirks & AM64_CPSW_QUIRK_DMA_RX_TDOWN_IRQ)
			complete(&common->tdown_complete);
		return NULL;
	}
	desc = k3_cppi_desc_pool_dma2virt(rx_chn->desc_pool, desc_dma);
	xdp = ((struct am65_cpsw_swdata *)cppi5_hdesc_get_swdata(desc))->xdp;
	d->len = cppi5_hdesc_get_pktlen(desc);
	cppi5_desc_get_tags_ids(&desc->hdr, &port_id, NULL);
	flow->xsk_csum = ((u32 *)cppi5_hdesc_get_psdata(desc))[2];
	k3_cppi_desc_pool_free(rx_chn->desc_pool, desc);
	rx->pending++;

	/* A frame of no port, or of another one (down while the flow is
	 * zero-copy: it raced its ndo_stop), counts as an error.
	 */
	port = am65_cpsw_port_by_id(common, port_id & 0xff);
	d->drop = !port || port->ndev != rx->netdev;
	return xdp;
}

/* Posts a buffer of @len bytes at @dma on the flow, @sw in its swdata:
 * false without a free descriptor or room on the ring.
 */
static bool am65_cpsw_xsk_rx_push(struct am65_cpsw_rx_flow *flow,
				  dma_addr_t dma, u32 len,
				  const struct am65_cpsw_swdata *sw)
{
	struct am65_cpsw_rx_chn *rx_chn = &flow->common->rx_chns;
	struct cppi5_host_desc_t *desc;
	dma_addr_t desc_dma;

	desc = k3_cppi_desc_pool_alloc(rx_chn->desc_pool);
	if (unlikely(!desc))
		return false;
	desc_dma = k3_cppi_desc_pool_virt2dma(rx_chn->desc_pool, desc);
	cppi5_hdesc_init(desc, CPPI5_INFO0_HDESC_EPIB_PRESENT,
			 AM65_CPSW_NAV_PS_DATA_SIZE);
	k3_udma_glue_rx_dma_to_cppi5_addr(rx_chn->rx_chn, &dma);
	cppi5_hdesc_attach_buf(desc, dma, len, dma, len);
	*(struct am65_cpsw_swdata *)cppi5_hdesc_get_swdata(desc) = *sw;
	if (likely(!k3_udma_glue_push_rx_chn(rx_chn->rx_chn, flow->id, desc,
					     desc_dma)))
		return true;
	k3_cppi_desc_pool_free(rx_chn->desc_pool, desc);
	return false;
}

static void am65_cpsw_xsk_rx_fill(struct xsk_zc_rx_ring *rx, u32 idx,
				  struct xdp_buff *xdp, dma_addr_t dma)
{
	struct am65_cpsw_rx_flow *flow = am65_zrx_flow(rx);
	struct am65_cpsw_swdata sw = { .flow_id = flow->id, .xdp = xdp };

	rx->bufs[idx] = NULL;	/* the descriptor owns it */
	if (likely(am65_cpsw_xsk_rx_push(flow, dma,
					 xsk_pool_get_rx_frame_size(rx->pool),
					 &sw)))
		return;
	/* back into the deficit, which the refill lowered for it */
	xsk_buff_free(xdp);
	rx->pending++;
}

static void am65_cpsw_xsk_rx_populate(struct xsk_zc_rx_ring *rx,
				      struct sk_buff *skb,
				      const struct xdp_buff *xdp,
				      const struct xsk_zc_rx_desc *d)
{
	struct am65_cpsw_ndev_priv *priv = am65_ndev_to_priv(rx->netdev);
	struct am65_cpsw_port *port = priv->port;

	am65_cpsw_nuss_set_offload_fwd_mark(skb, priv->offload_fwd_mark);
	if (port->rx_ts_filter)
		am65_cpts_rx_timestamp(port->common->cpts, port->port_id, skb);
	am65_cpsw_nuss_rx_csum(skb, am65_zrx_flow(rx)->xsk_csum);
}

/* Sends @len bytes of UMEM at @dma on @desc, a descriptor of @tx_chn's
 * pool, for @ndev's port. @xdp is the buffer of an XDP_TX frame, NULL
 * for a socket's frame: am65_cpsw_xsk_tx_cleanup() tells them apart by
 * it. On error @desc is back in the pool.
 */
static int am65_cpsw_xsk_tx_push(struct am65_cpsw_tx_chn *tx_chn,
				 struct cppi5_host_desc_t *desc,
				 struct net_device *ndev, struct xdp_buff *xdp,
				 dma_addr_t dma, u32 len)
{
	dma_addr_t desc_dma = k3_cppi_desc_pool_virt2dma(tx_chn->desc_pool,
							 desc);
	struct am65_cpsw_tx_swdata *swdata;
	int ret;

	am65_cpsw_nuss_set_buf_type(tx_chn, desc, AM65_CPSW_TX_BUF_TYPE_XSK);
	cppi5_hdesc_init(desc, CPPI5_INFO0_HDESC_EPIB_PRESENT,
			 AM65_CPSW_NAV_PS_DATA_SIZE);
	cppi5_hdesc_set_pkttype(desc, AM65_CPSW_CPPI_TX_PKT_TYPE);
	cppi5_hdesc_set_pktlen(desc, len);
	cppi5_desc_set_pktids(&desc->hdr, 0, AM65_CPSW_CPPI_TX_FLOW_ID);
	cppi5_desc_set_tags_ids(&desc->hdr, 0, am65_ndev_to_port(ndev)->port_id);
	/* where the swdata is depends on the flags cppi5_hdesc_init() set */
	swdata = cppi5_hdesc_get_swdata(desc);
	swdata->ndev = ndev;	/* the TX completion counts the frame there */
	swdata->xdp = xdp;
	k3_udma_glue_tx_dma_to_cppi5_addr(tx_chn->tx_chn, &dma);
	cppi5_hdesc_attach_buf(desc, dma, len, dma, len);
	spin_lock(&tx_chn->lock);	/* other ports push here too */
	ret = k3_udma_glue_push_tx_chn(tx_chn->tx_chn, desc, desc_dma);
	spin_unlock(&tx_chn->lock);
	if (unlikely(ret))
		k3_cppi_desc_pool_free(tx_chn->desc_pool, desc);
	return ret;
}

/* XDP_TX: the XSK buffer itself goes out on the queue's TX channel, the
 * one bound to the same pool, and back to the pool through
 * am65_cpsw_xsk_tx_cleanup() once the channel completed it. Under the
 * queue's TX lock, as page mode's XDP_TX: a channel stopped for a pool
 * change takes nothing, and the stack keeps its reserve of descriptors.
 * Each push is its own doorbell: no xmit_flush.
 */
static bool am65_cpsw_xsk_rx_xmit(struct xsk_zc_rx_ring *rx,
				  struct xdp_buff *xdp, dma_addr_t dma, u32 len)
{
	struct am65_cpsw_common *common = am65_zrx_flow(rx)->common;
	struct am65_cpsw_tx_chn *tx_chn = &common->tx_chns[rx->qid];
	struct k3_cppi_desc_pool *pool = tx_chn->desc_pool;
	struct netdev_queue *nq = netdev_get_tx_queue(rx->netdev, rx->qid);
	struct cppi5_host_desc_t *desc = NULL;
	bool sent = false;

	__netif_tx_lock(nq, smp_processor_id());
	if (likely(!READ_ONCE(tx_chn->stopped) &&
		   xsk_zc_tx_claimable(&tx_chn->ztx,
				       k3_cppi_desc_pool_avail(pool), 1)))
		desc = k3_cppi_desc_pool_alloc(pool);
	if (likely(desc))
		sent = !am65_cpsw_xsk_tx_push(tx_chn, desc, rx->netdev, xdp,
					      dma, len);
	if (likely(sent))
		txq_trans_cond_update(nq);
	__netif_tx_unlock(nq);
	return sent;
}

static const struct xsk_zc_rx_hw am65_cpsw_xsk_rx_hw = {
	.next = am65_cpsw_xsk_rx_next,
	.fill = am65_cpsw_xsk_rx_fill,
	.xmit_zc = am65_cpsw_xsk_rx_xmit,
	.populate = am65_cpsw_xsk_rx_populate,
};

/* Every port's skbs, XDP_TX and ndo_xdp_xmit take descriptors from the
 * channel's pool without the owner's TX lock: the batch allocates its
 * descriptors before the library takes a frame off the socket's ring.
 */
static u32 am65_cpsw_xsk_tx_claim(struct xsk_zc_tx_ring *tx, u32 want)
{
	struct am65_cpsw_tx_chn *tx_chn = am65_ztx_chn(tx);
	struct k3_cppi_desc_pool *pool = tx_chn->desc_pool;
	void *desc;

	want = min(want, AM65_CPSW_XSK_TX_BATCH);
	want = xsk_zc_tx_claimable(tx, k3_cppi_desc_pool_avail(pool), want);
	while (tx_chn->xsk_nclaimed < want) {
		desc = k3_cppi_desc_pool_alloc(pool);
		if (!desc)	/* another port was quicker */
			break;
		tx_chn->xsk_claimed[tx_chn->xsk_nclaimed++] = desc;
	}
	return tx_chn->xsk_nclaimed;
}

static void am65_cpsw_xsk_tx_unclaim(struct xsk_zc_tx_ring *tx, u32 n)
{
	struct am65_cpsw_tx_chn *tx_chn = am65_ztx_chn(tx);

	while (n--)
		k3_cppi_desc_pool_free(tx_chn->desc_pool,
				       tx_chn->xsk_claimed[--tx_chn->xsk_nclaimed]);
}

static void am65_cpsw_xsk_tx_fill(struct xsk_zc_tx_ring *tx,
				  const struct xdp_desc *xd, dma_addr_t dma)
{
	struct am65_cpsw_tx_chn *tx_chn = am65_ztx_chn(tx);
	struct cppi5_host_desc_t *desc;

	desc = tx_chn->xsk_claimed[--tx_chn->xsk_nclaimed];
	/* The channel's ring holds every descriptor of its pool: a push
	 * fails only on a channel torn down under us, which completes
	 * nothing anyway. Count the frame done, as the stack drops an skb.
	 */
	if (unlikely(am65_cpsw_xsk_tx_push(tx_chn, desc, tx->netdev, NULL,
					   dma, xd->len)))
		tx_chn->xsk_done++;
}

static const struct xsk_zc_tx_hw am65_cpsw_xsk_tx_hw = {
	.claim = am65_cpsw_xsk_tx_claim,
	.unclaim = am65_cpsw_xsk_tx_unclaim,
	.fill = am65_cpsw_xsk_tx_fill,
};

/**
 * am65_cpsw_xsk_tx_cleanup - give back a zero-copy TX descriptor
 * @tx_chn: the TX channel that completed it, or whose teardown returns it
 * @desc: a descriptor of type %AM65_CPSW_TX_BUF_TYPE_XSK
 *
 * A socket's frame counts for the next TX poll's completion; the buffer
 * of an XDP_TX frame goes back towards the pool (xsk_zc_tx_xdp_done()).
 * Neither is unmapped here: the pool maps the UMEM.
 *
 * Context: the channel's TX NAPI, or with the channel stopped.
 */
void am65_cpsw_xsk_tx_cleanup(struct am65_cpsw_tx_chn *tx_chn,
			      struct cppi5_host_desc_t *desc)
{
	struct am65_cpsw_tx_swdata *swdata = cppi5_hdesc_get_swdata(desc);

	if (swdata->xdp)
		xsk_zc_tx_xdp_done(&tx_chn->ztx, swdata->xdp);
	else
		tx_chn->xsk_done++;	/* completed by the next TX poll */
	k3_cppi_desc_pool_free(tx_chn->desc_pool, desc);
}

/* The hot path, checked for indirect calls by make lint */
int am65_cpsw_xsk_rx_poll(struct am65_cpsw_rx_flow *flow, int budget)
{
	struct am65_cpsw_port *port = am65_ndev_to_port(flow->zrx.netdev);

	return xsk_zc_rx_poll(&flow->zrx, &flow->napi_rx,
			      READ_ONCE(port->xdp_prog), budget,
			      &am65_cpsw_xsk_rx_hw);
}

bool am65_cpsw_xsk_tx_poll(struct am65_cpsw_tx_chn *tx_chn, int budget)
{
	xsk_zc_tx_complete(&tx_chn->ztx, tx_chn->xsk_done);
	tx_chn->xsk_done = 0;
	return xsk_zc_tx_xmit(&tx_chn->ztx, budget, &am65_cpsw_xsk_tx_hw);
}

void am65_cpsw_xsk_rx_start(struct am65_cpsw_rx_flow *flow)
{
	xsk_zc_rx_start(&flow->zrx, &am65_cpsw_xsk_rx_hw);
}

/**
 * am65_cpsw_xsk_rx_keep_page - keep a page of page mode for later
 * @flow: an RX flow created in zero-copy mode
 * @page: a page of the flow's page pool
 *
 * The flow's creation gives zero-copy mode the pages page mode would
 * post, so that leaving zero-copy reposts them instead of allocating.
 *
 * Return: 0, or -ENOMEM when the page cannot be DMA-mapped; the page is
 * the caller's again then.
 */
int am65_cpsw_xsk_rx_keep_page(struct am65_cpsw_rx_flow *flow,
			       struct page *page)
{
	struct device *dma_dev = flow->common->rx_chns.dma_dev;
	dma_addr_t dma;

	if (WARN_ON_ONCE(flow->nkept == AM65_CPSW_MAX_RX_DESC))
		return -ENOMEM;
	dma = dma_map_single(dma_dev, page_address(page) + AM65_CPSW_HEADROOM,
			     AM65_CPSW_MAX_PACKET_SIZE, DMA_FROM_DEVICE);
	if (dma_mapping_error(dma_dev, dma))
		return -ENOMEM;
	flow->kept[flow->nkept].page = page;
	flow->kept[flow->nkept++].dma = dma;
	return 0;
}

/**
 * am65_cpsw_xsk_rx_free_kept - give the kept pages back to the page pool
 * @flow: an RX flow being freed
 */
void am65_cpsw_xsk_rx_free_kept(struct am65_cpsw_rx_flow *flow)
{
	struct device *dma_dev = flow->common->rx_chns.dma_dev;
	struct am65_cpsw_rx_kept *kept;

	while (flow->nkept) {
		kept = &flow->kept[--flow->nkept];
		dma_unmap_single(dma_dev, kept->dma, AM65_CPSW_MAX_PACKET_SIZE,
				 DMA_FROM_DEVICE);
		page_pool_put_full_page(flow->page_pool, kept->page, false);
	}
}

/* The ring reset's callback: a zero-copy buffer goes back to its pool,
 * a page is kept, mapped, for page mode.
 */
static void am65_cpsw_xsk_rx_cleanup(void *data, dma_addr_t desc_dma)
{
	struct am65_cpsw_rx_flow *flow = data;
	struct am65_cpsw_rx_chn *rx_chn = &flow->common->rx_chns;
	struct am65_cpsw_swdata *swdata;
	struct cppi5_host_desc_t *desc;
	dma_addr_t dma;
	u32 len;

	desc = k3_cppi_desc_pool_dma2virt(rx_chn->desc_pool, desc_dma);
	swdata = cppi5_hdesc_get_swdata(desc);
	if (xsk_zc_rx_pool(&flow->zrx)) {
		xsk_buff_free(swdata->xdp);
		goto free_desc;
	}
	cppi5_hdesc_get_obuf(desc, &dma, &len);
	k3_udma_glue_rx_cppi5_to_dma_addr(rx_chn->rx_chn, &dma);
	/* as many entries as descriptors: full only on a bug */
	if (WARN_ON_ONCE(flow->nkept == AM65_CPSW_MAX_RX_DESC)) {
		dma_unmap_single(rx_chn->dma_dev, dma, len, DMA_FROM_DEVICE);
		page_pool_put_full_page(flow->page_pool, swdata->page, false);
		goto free_desc;
	}
	flow->kept[flow->nkept].page = swdata->page;
	flow->kept[flow->nkept++].dma = dma;
free_desc:
	k3_cppi_desc_pool_free(rx_chn->desc_pool, desc);
}

/* Stops the flow, whichever mode it is in, as the interface's stop does,
 * but keeps its pages.
 */
static void am65_cpsw_xsk_rx_stop(struct am65_cpsw_rx_flow *flow)
{
	struct am65_cpsw_common *common = flow->common;
	struct am65_cpsw_rx_chn *rx_chn = &common->rx_chns;
	dma_addr_t desc_dma;

	reinit_completion(&common->tdown_complete);
	k3_udma_glue_tdown_rx_chn(rx_chn->rx_chn, true);
	/* the NAPI pops the teardown marker and completes */
	if (common->pdata.quirks & AM64_CPSW_QUIRK_DMA_RX_TDOWN_IRQ &&
	    !wait_for_completion_timeout(&common->tdown_complete,
					 msecs_to_jiffies(1000)))
		dev_err(common->dev, "rx teardown timeout\n");
	napi_disable(&flow->napi_rx);
	hrtimer_cancel(&flow->rx_hrtimer);
	/* completed but not popped: the ring reset would lose them */
	while (!k3_udma_glue_pop_rx_chn(rx_chn->rx_chn, flow->id, &desc_dma))
		if (!cppi5_desc_is_tdcm(desc_dma))
			am65_cpsw_xsk_rx_cleanup(flow, desc_dma);
	k3_udma_glue_reset_rx_chn(rx_chn->rx_chn, flow->id, flow,
				  am65_cpsw_xsk_rx_cleanup);
	k3_udma_glue_disable_rx_chn(rx_chn->rx_chn);
}

/* Posts the kept pages again, on a stopped flow: every descriptor is
 * free, so it cannot run short.
 */
static void am65_cpsw_xsk_rx_repost(struct am65_cpsw_rx_flow *flow)
{
	struct am65_cpsw_swdata sw = { .flow_id = flow->id };
	struct am65_cpsw_rx_kept *kept;
	bool posted;

	while (flow->nkept) {
		kept = &flow->kept[flow->nkept - 1];
		sw.page = kept->page;
		posted = am65_cpsw_xsk_rx_push(flow, kept->dma,
					       AM65_CPSW_MAX_PACKET_SIZE, &sw);
		if (WARN_ON_ONCE(!posted))
			return;	/* the rest is freed with the flow */
		flow->nkept--;
	}
}

/* Restarts the flow in the mode its pool says, with the fill ring's
 * buffers or the kept pages: allocates nothing.
 */
static void am65_cpsw_xsk_rx_restart(struct am65_cpsw_rx_flow *flow)
{
	struct am65_cpsw_common *common = flow->common;
	int ret;

	if (xsk_zc_rx_pool(&flow->zrx))
		am65_cpsw_xsk_rx_start(flow);
	else
		am65_cpsw_xsk_rx_repost(flow);
	/* fails only on a channel the probe did not set up */
	ret = k3_udma_glue_enable_rx_chn(common->rx_chns.rx_chn);
	if (ret)
		dev_err(common->dev, "couldn't enable rx chn: %d\n", ret);
	napi_enable(&flow->napi_rx);
}

/* Nothing comes in (the host port is off, as the interface's stop does)
 * and nothing goes out (the stack's queues, XDP) before the flow stops;
 * the flow stops before the TX channel, since its NAPI sends XDP_TX on it.
 */
static void am65_cpsw_xsk_queue_stop(struct net_device *ndev, u32 qid)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);

	cpsw_ale_control_set(common->ale, HOST_PORT_NUM, ALE_PORT_STATE,
			     ALE_PORT_STATE_DISABLE);
	am65_cpsw_nuss_txqs_run(common, qid, false);
	am65_cpsw_xsk_rx_stop(&common->rx_chns.flows[qid]);
	am65_cpsw_nuss_tx_chn_stop(common, qid);
}

static void am65_cpsw_xsk_queue_start(struct net_device *ndev, u32 qid)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);

	am65_cpsw_nuss_tx_chn_start(common, qid);
	am65_cpsw_xsk_rx_restart(&common->rx_chns.flows[qid]);
	am65_cpsw_nuss_txqs_run(common, qid, true);
	cpsw_ale_control_set(common->ale, HOST_PORT_NUM, ALE_PORT_STATE,
			     ALE_PORT_STATE_FORWARD);
}

/* The core maps the UMEM once, for the RX channel's DMA device, and TX
 * sends from the same addresses. On PKTDMA each channel has a DMA device
 * of its own, which k3-udma-glue registers under the UDMA controller and
 * sets up the same way (coherent, a 48-bit mask, direct mapping). So a TX
 * device may use the RX mapping when it is the same device, or a device
 * of the same controller with no IOMMU behind either, the same need for
 * syncs and a mask that reaches every address of the RX one.
 */
static bool am65_cpsw_xsk_dma_alike(struct device *rx, struct device *tx)
{
	if (rx == tx)
		return true;
	return rx->parent && rx->parent == tx->parent &&
	       !device_iommu_mapped(rx) && !device_iommu_mapped(tx) &&
	       dma_dev_need_sync(rx) == dma_dev_need_sync(tx) &&
	       dma_get_mask(tx) >= dma_get_mask(rx);
}

static int am65_cpsw_xsk_prepare(struct net_device *ndev, u32 qid,
				 struct xsk_buff_pool *pool)
{
	struct am65_cpsw_port *port = am65_ndev_to_port(ndev);
	struct am65_cpsw_common *common = port->common;
	struct am65_cpsw_rx_flow *flow = &common->rx_chns.flows[qid];
	int i;

	/* The flows share one free descriptor queue */
	if (common->rx_ch_num_flows != 1) {
		netdev_dbg(ndev, "zero-copy needs a single RX flow\n");
		return -EOPNOTSUPP;
	}
	/* The ports share the flow: only one of them may be up */
	for (i = 0; i < common->port_num; i++) {
		struct net_device *other = common->ports[i].ndev;

		if (other && other != ndev && netif_running(other)) {
			netdev_dbg(ndev, "zero-copy needs %s down: it shares the RX flow\n",
				   netdev_name(other));
			return -EBUSY;
		}
	}
	if (!am65_cpsw_xsk_dma_alike(common->rx_chns.dma_dev,
				     common->tx_chns[qid].dma_dev)) {
		netdev_dbg(ndev, "the TX channel's DMA device maps the UMEM differently\n");
		return -EOPNOTSUPP;
	}
	/* The ports take frames of AM65_CPSW_MAX_PACKET_SIZE at any MTU */
	if (xsk_pool_get_rx_frame_size(pool) < AM65_CPSW_MAX_PACKET_SIZE) {
		netdev_dbg(ndev, "XSK frame smaller than %d bytes\n",
			   AM65_CPSW_MAX_PACKET_SIZE);
		return -EINVAL;
	}
	/* the ring's netdev is the owner once the pool is attached */
	xsk_zc_rx_ring_init(&flow->zrx, ndev, qid, AM65_CPSW_MAX_RX_DESC,
			    &port->xdp_rxq_zc);
	flow->zrx.gap = 0;	/* a pool of descriptors, not a ring */
	/* room for an skb of every port sharing the channel */
	xsk_zc_tx_ring_init(&common->tx_chns[qid].ztx, ndev, qid,
			    (MAX_SKB_FRAGS + 1) * common->port_num, true);
	common->tx_chns[qid].xsk_done = 0;
	return 0;
}

/* A port's queue is the RX flow and TX channel of the common DMA, which
 * run while any port is up.
 */
static void am65_cpsw_xsk_queue(struct net_device *ndev, u32 qid,
				struct xsk_zc_queue_info *qi)
{
	struct am65_cpsw_common *common = am65_ndev_to_common(ndev);

	qi->rx = &common->rx_chns.flows[qid].zrx;
	qi->tx = &common->tx_chns[qid].ztx;
	qi->rx_napi = &common->rx_chns.flows[qid].napi_rx;
	qi->tx_napi = &common->tx_chns[qid].napi_tx;
	qi->running = common->usage_count;
}

static const struct xsk_zc_ops am65_cpsw_xsk_ops = {
	.queue = am65_cpsw_xsk_queue,
	.prepare = am65_cpsw_xsk_prepare,
	.queue_stop = am65_cpsw_xsk_queue_stop,
	.queue_start = am65_cpsw_xsk_queue_start,
};

int am65_cpsw_xsk_init(struct am65_cpsw_port *port)
{
	struct am65_cpsw_rx_flow *flow = port->common->rx_chns.flows;

	/* For the size check before prepare; once: the first port may
	 * already have a pool when the next registers.
	 */
	if (!flow->zrx.count)
		xsk_zc_rx_ring_init(&flow->zrx, port->ndev, 0,
				    AM65_CPSW_MAX_RX_DESC, NULL);
	port->ndev->xdp_features |= NETDEV_XDP_ACT_XSK_ZEROCOPY;
	/* one queue: zero-copy needs a single RX flow */
	return xsk_zc_dev_init(&am65_ndev_to_priv(port->ndev)->zc, port->ndev,
			       port->common->rx_chns.dma_dev,
			       &am65_cpsw_xsk_ops, 1);
}
