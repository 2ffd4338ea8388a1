/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_XDP zero-copy for the TI K3 am65-cpsw on the xsk_zc helpers: the
 * calls the rest of the driver makes, and the port/queue bookkeeping,
 * kept inline and free of hardware access so KUnit can test it.
 */
#ifndef AM65_CPSW_XSK_H_
#define AM65_CPSW_XSK_H_

#include <net/xsk_zc.h>
#include "am65-cpsw-nuss.h"

/* CPPI source/destination tags carry 1-based MAC port numbers (0 is the
 * host port). The only place a tag becomes an index into ports[].
 */
static inline struct am65_cpsw_port *
am65_cpsw_port_by_id(struct am65_cpsw_common *common, u32 port_id)
{
	if (!port_id || port_id > common->port_num ||
	    !common->ports[port_id - 1].ndev)
		return NULL;
	return &common->ports[port_id - 1];
}

/* The RX flow is shared by every port; its zero-copy pool belongs to
 * one port's queue. Returns 0 or -EBUSY when another port owns it.
 */
static inline int am65_cpsw_xsk_claim(struct am65_cpsw_rx_flow *flow,
				      struct am65_cpsw_port *port)
{
	if (flow->xsk_port && flow->xsk_port != port)
		return -EBUSY;
	flow->xsk_port = port;
	return 0;
}

static inline void am65_cpsw_xsk_release(struct am65_cpsw_rx_flow *flow,
					 struct am65_cpsw_port *port)
{
	if (flow->xsk_port == port)
		flow->xsk_port = NULL;
}

/* A CPPI descriptor now carries the buffer the refill put at bufs[idx]:
 * the descriptor's swdata owns it, the library's slot is emptied so that
 * its ring clean never frees it a second time.
 */
static inline void am65_cpsw_xsk_posted(struct am65_cpsw_rx_flow *flow,
					u32 idx)
{
	flow->zrx.bufs[idx] = NULL;
	flow->xsk_posted++;
}

/* A descriptor came back (popped or cleaned): one more to refill. */
static inline void am65_cpsw_xsk_returned(struct am65_cpsw_rx_flow *flow)
{
	flow->xsk_posted--;
	flow->zrx.pending++;
}

int am65_cpsw_xsk_init(struct am65_cpsw_port *port);
void am65_cpsw_xsk_destroy(struct am65_cpsw_port *port);
bool am65_cpsw_xsk_busy(struct am65_cpsw_common *common);
int am65_cpsw_xsk_setup_pool(struct net_device *ndev,
			     struct xsk_buff_pool *pool, u32 qid);
int am65_cpsw_xsk_wakeup(struct net_device *ndev, u32 qid, u32 flags);
void am65_cpsw_xsk_rx_start(struct am65_cpsw_rx_flow *flow);
void am65_cpsw_xsk_rx_cleanup(struct am65_cpsw_rx_flow *flow,
			      struct xdp_buff *xdp);
int am65_cpsw_xsk_rx_poll(struct am65_cpsw_rx_flow *flow, int budget);
void am65_cpsw_xsk_tx_done(struct am65_cpsw_tx_chn *tx_chn,
			   dma_addr_t desc_dma);
bool am65_cpsw_xsk_tx_poll(struct am65_cpsw_tx_chn *tx_chn, int budget);

#endif /* AM65_CPSW_XSK_H_ */
