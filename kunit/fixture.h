/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake NIC on top of xsk_zc, and the user-space side of real AF_XDP
 * sockets, for the xsk_zc KUnit suites.
 */
#ifndef _XSK_ZC_KUNIT_FIXTURE_H
#define _XSK_ZC_KUNIT_FIXTURE_H

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <net/xdp_sock.h>
#include <net/xsk_zc/datapath.h>

#define FAKE_QUEUES	4
#define FAKE_RING	16	/* small, so tests wrap around it */
#define FAKE_TX_RESERVE	4
#define FAKE_UMEM_FRAMES	64
#define FAKE_FRAME	2048
#define FAKE_XSK_RING	64
#define FAKE_MAX_SEGS	4	/* xdp_zc_max_segs, for XDP_USE_SG */
#define FAKE_RX_FRAMES	(FAKE_UMEM_FRAMES / 2)	/* the other half is for TX */
#define FAKE_UMEM_SIZE	(FAKE_UMEM_FRAMES * 4096)

/* A descriptor of the fake NIC: what the NIC reads and writes. */
struct fake_rx_desc {
	dma_addr_t dma;
	void *va;		/* where the "NIC" writes, via the buffer */
	u32 len;
	u32 hash;		/* the "NIC"'s RSS hash: jhash() of the frame */
	bool done;
	bool error;
	bool more;		/* the frame goes on in the next descriptor */
};

struct fake_tx_desc {
	dma_addr_t dma;
	u32 len;
	bool zc;
	bool more;		/* XDP_PKT_CONTD: the frame goes on */
	struct xdp_buff *xdp_tx;	/* an XSK buffer XDP_TX sent itself */

	/* fake_tx_hw_meta: the frame's TX metadata */
	struct xsk_tx_metadata_compl compl;
	bool stamp_asked;	/* compl's tx_timestamp set at fill */
	bool csum;		/* a checksum request, and its offsets */
	u16 csum_start;
	u16 csum_offset;
	u64 stamp;		/* the "NIC's" time when it sent the frame */
};

struct fake_queue {
	struct fake_nic *nic;
	u32 qid;

	struct xsk_zc_rx_ring zrx;
	struct fake_rx_desc rx_desc[FAKE_RING];
	struct xdp_rxq_info xdp_rxq;
	u32 rx_tail;		/* last kick */
	u32 rx_kicks;
	u32 rx_hw_head;		/* where the "NIC" writes the next frame */
	u32 rx_hw_drops;	/* frames that found no buffer */
	u32 rx_offset;		/* inline metadata the "NIC" reports */

	struct xsk_zc_tx_ring ztx;
	struct fake_tx_desc tx_desc[FAKE_RING];
	u32 tx_ntu;
	u32 tx_ntc;
	u32 tx_used;
	u32 tx_kicks;
	u64 tx_kick_bytes;	/* what its BQL would be told */

	struct napi_struct rx_napi;
	struct napi_struct tx_napi;
	u32 rx_napi_polls;
	u32 tx_napi_polls;

	u32 stops;
	u32 starts;
	u32 xdp_tx_frames;
	u32 xdp_tx_flushes;
	bool xdp_tx_fails;
	bool tx_meta;		/* TX with metadata ops (fake_tx_hw_meta) */
	u64 tx_clock;		/* stamps of the frames cleaned */

	/* what a fake_prog_set_hints() program got from the RX hint kfuncs */
	u32 hints;
	u32 hint_hash[FAKE_RING];
	int hint_err;

	/* what the program last saw: the frame's length, its fragments */
	u32 prog_len;
	u32 prog_frags;

	/* what the last XDP_PASS skb looked like before the stack got it */
	struct net_device *pass_dev;	/* skb->dev that populate saw */
	u32 pass_hash;		/* jhash() of its data */
	u32 pass_len;
	u32 pass_meta_len;
	u8 pass_head[16];
	u8 pass_meta[16];
};

struct fake_nic {
	struct net_device *netdev;
	struct device *dma_dev;
	struct xsk_zc_dev zc;
	struct fake_queue q[FAKE_QUEUES];
	struct bpf_prog *prog;
	int prepare_err;
	u32 prepares;
	bool unregistered;

	/* As igb after a runtime suspend or a reset that shrank the queues:
	 * the rings are freed, the ops find none.
	 */
	bool rings_gone;
	bool one_napi;		/* one NAPI instance per queue, RX and TX */
	/* As a port whose DMA channels no port runs, or igb after a failed
	 * open: the netdev runs, the queues do not.
	 */
	bool dma_stopped;
	u32 calls_without_rings;	/* queue_stop/start on freed rings */
	u32 runtime_suspends;
	u32 runtime_resumes;
	u32 irqs_raised;	/* fake_irq_ops: irq_raise calls */
};

/* The user-space side of one AF_XDP socket bound to the fake NIC. */
struct fake_xsk {
	struct kunit *test;
	struct socket *sock;
	struct xdp_sock *xs;
	struct xsk_buff_pool *pool;	/* zero-copy pool while bound */
	struct xsk_buff_pool *copy_pool;
	struct xsk_queue *fq;
	struct xsk_queue *cq;
	struct xsk_queue *rx;
	struct xsk_queue *tx;
	u8 __user *umem;
	void *umem_kva;
	u32 frame_size;
	u32 next_rx_frame;
	u32 next_tx_frame;
	u32 tx_metadata_len;
};

struct fake_xsk_cfg {
	u32 qid;
	bool need_wakeup;
	bool copy;
	bool sg;		/* XDP_USE_SG: multi-buffer frames */
};

struct fake_nic *fake_nic_create(struct kunit *test,
				 const struct xsk_zc_ops *ops);
struct fake_nic *fake_nic_create_pm(struct kunit *test);
void fake_nic_set_up(struct kunit *test, struct fake_nic *nic, bool up);
void fake_nic_new_rings(struct fake_nic *nic);
struct fake_xsk *fake_xsk_create(struct kunit *test);
struct fake_xsk *fake_xsk_create_sized(struct kunit *test, u32 frame_size,
				       u32 rx_ring);
struct fake_xsk *fake_xsk_create_tx_meta(struct kunit *test);
int fake_xsk_bind(struct fake_xsk *x, struct fake_nic *nic,
		  const struct fake_xsk_cfg *cfg);
int fake_xsk_bind_dev(struct fake_xsk *x, struct net_device *dev,
		      const struct fake_xsk_cfg *cfg);
void fake_xsk_unbind(struct fake_xsk *x);
void fake_xsk_release(struct fake_xsk *x);

u32 fake_fq_put(struct fake_xsk *x, u32 n);
u32 fake_fq_taken(struct fake_xsk *x);
u32 fake_cq_take(struct fake_xsk *x);
u32 fake_rx_count(struct fake_xsk *x);
bool fake_rx_get(struct fake_xsk *x, struct xdp_desc *desc);
u32 fake_tx_put(struct fake_xsk *x, u32 n, u32 len);
u32 fake_tx_put_frame(struct fake_xsk *x, u32 segs, u32 len);
struct xsk_tx_metadata *fake_tx_put_meta(struct fake_xsk *x, u32 len,
					 u32 options, u64 flags);
bool fake_fq_needs_wakeup(struct fake_xsk *x);
bool fake_tx_needs_wakeup(struct fake_xsk *x);
void *fake_umem_va(struct fake_xsk *x, u64 addr);

void fake_nic_receive_desc(struct fake_queue *q, const void *data, u32 len,
			   bool more, bool error);
void fake_nic_receive(struct fake_queue *q, const void *data, u32 len,
		      bool error);
int fake_rx_poll(struct fake_queue *q, struct bpf_prog *prog, int budget);
bool fake_rx_refill(struct fake_queue *q);
bool fake_tx_xmit(struct fake_queue *q, u32 budget);
bool fake_rx_refill_doorbell(struct fake_queue *q);
bool fake_tx_xmit_doorbell(struct fake_queue *q, u32 budget);
u32 fake_tx_clean(struct fake_queue *q, u32 n);
u32 fake_rx_posted(struct fake_queue *q);
int fake_poll_rx(struct fake_queue *q, struct bpf_prog *prog, int budget);
bool fake_poll_tx(struct fake_queue *q, u32 budget);

struct bpf_prog *fake_prog_create(struct kunit *test, u32 act);
void fake_prog_set_redirect(struct bpf_prog *prog, struct fake_xsk *x);
void fake_prog_set_redirect_ifindex(struct bpf_prog *prog, u32 ifindex);
void fake_prog_set_meta(struct bpf_prog *prog, u32 meta_len);
void fake_prog_set_head(struct bpf_prog *prog, int delta);
void fake_prog_set_hints(struct bpf_prog *prog);
void fake_prog_set_frags(struct bpf_prog *prog);

extern const struct xsk_zc_ops fake_ops;
extern const struct xsk_zc_ops fake_irq_ops;
extern const struct xdp_metadata_ops fake_xdp_metadata_ops;

#endif
