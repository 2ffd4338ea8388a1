// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: refill, RX verdicts, need_wakeup, TX batching and completion on
 * the fake NIC, with real AF_XDP sockets.
 */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/jhash.h>
#include <linux/vmstat.h>
#include <net/net_namespace.h>
#include <net/netdev_queues.h>
#include <net/xsk_buff_pool.h>

#include "fixture.h"

#define POSTED_FULL	(FAKE_RING - XSK_ZC_RX_RING_GAP)

struct rig {
	struct fake_nic *nic;
	struct fake_xsk *x;
	struct fake_queue *q;
};

/* NIC up, a socket bound zero-copy to queue 1 with @fill frames offered. */
static struct rig rig_up(struct kunit *test, u32 fill, bool need_wakeup,
			 u32 rx_ring)
{
	struct fake_xsk_cfg cfg = { .qid = 1, .need_wakeup = need_wakeup };
	struct rig r;

	r.nic = fake_nic_create(test, &fake_ops);
	fake_nic_set_up(test, r.nic, true);
	r.x = fake_xsk_create_sized(test, FAKE_FRAME, rx_ring ?: FAKE_XSK_RING);
	fake_fq_put(r.x, fill);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(r.x, r.nic, &cfg), 0);
	r.q = &r.nic->q[1];
	return r;
}

static void receive_frames(struct fake_queue *q, u32 n, u32 len)
{
	u8 frame[128];
	u32 i;

	for (i = 0; i < n; i++) {
		memset(frame, i, sizeof(frame));
		eth_broadcast_addr(frame);
		fake_nic_receive(q, frame, len, false);
	}
}

/* ---- refill ---- */

static void refill_posts_buffers_for_the_whole_deficit(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, r.q->zrx.pending, 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.next_to_use, POSTED_FULL);
}

static void refill_writes_the_buffer_dma_address_in_each_descriptor(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	u32 i;

	for (i = 0; i < POSTED_FULL; i++)
		KUNIT_EXPECT_EQ(test, r.q->rx_desc[i].dma,
				xsk_buff_xdp_get_dma(r.q->zrx.bufs[i]));
}

static void refill_kicks_the_nic_once_per_batch(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	u32 kicks = r.q->rx_kicks;

	receive_frames(r.q, 5, 60);
	fake_poll_rx(r.q, NULL, 64);
	KUNIT_EXPECT_EQ(test, r.q->rx_kicks, kicks + 1);
	KUNIT_EXPECT_EQ(test, r.q->rx_tail, r.q->zrx.next_to_use);
}

static void refill_wraps_around_the_end_of_the_ring(struct kunit *test)
{
	struct rig r = rig_up(test, 60, true, 0);
	struct bpf_prog *drop = fake_prog_create(test, XDP_DROP);

	/* 15 posted at 0..14; consume 10 and refill 10: 15, then 0..8. */
	receive_frames(r.q, 10, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, drop, 64), 10);
	KUNIT_EXPECT_EQ(test, r.q->zrx.next_to_use, (POSTED_FULL + 10) % FAKE_RING);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_NOT_NULL(test, r.q->zrx.bufs[FAKE_RING - 1]);
	KUNIT_EXPECT_NOT_NULL(test, r.q->zrx.bufs[0]);
	KUNIT_EXPECT_NULL(test, r.q->zrx.bufs[POSTED_FULL + 10 - FAKE_RING]);
}

static void refill_with_short_fill_ring_posts_what_there_is(struct kunit *test)
{
	struct rig r = rig_up(test, 5, true, 0);

	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), 5);
	KUNIT_EXPECT_EQ(test, r.q->zrx.pending, POSTED_FULL - 5);
	KUNIT_EXPECT_TRUE(test, fake_fq_needs_wakeup(r.x));
}

static void refill_with_empty_fill_ring_posts_nothing_and_does_not_kick(struct kunit *test)
{
	struct rig r = rig_up(test, 0, true, 0);

	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), 0);
	KUNIT_EXPECT_EQ(test, r.q->rx_kicks, 0);
	KUNIT_EXPECT_FALSE(test, fake_rx_refill(r.q));
	KUNIT_EXPECT_EQ(test, r.q->rx_kicks, 0);
}

static void refill_without_a_kick_callback_posts_and_kicks_nothing(struct kunit *test)
{
	struct rig r = rig_up(test, 0, true, 0);

	fake_fq_put(r.x, 32);
	KUNIT_EXPECT_TRUE(test, fake_rx_refill_doorbell(r.q));
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, r.q->rx_kicks, 0);
}

/* The start, not a poll, must ask for buffers: no frame, no interrupt. */
static void start_with_short_fill_ring_sets_rx_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, 5, true, 0);
	u32 polls;

	fake_nic_set_up(test, r.nic, false);
	xsk_clear_rx_need_wakeup(r.x->pool);
	polls = r.q->rx_napi_polls;
	fake_nic_set_up(test, r.nic, true);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), 5);
	KUNIT_EXPECT_TRUE(test, fake_fq_needs_wakeup(r.x));
	KUNIT_EXPECT_EQ(test, r.q->rx_napi_polls, polls);
}

static void start_with_full_fill_ring_clears_rx_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, 0, true, 0);

	KUNIT_ASSERT_TRUE(test, fake_fq_needs_wakeup(r.x));
	fake_nic_set_up(test, r.nic, false);
	fake_fq_put(r.x, 32);
	fake_nic_set_up(test, r.nic, true);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_FALSE(test, fake_fq_needs_wakeup(r.x));
}

static void dropped_buffer_is_reposted_without_the_fill_ring(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *drop = fake_prog_create(test, XDP_DROP);

	receive_frames(r.q, 4, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, drop, 64), 4);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 4);
}

/* ---- need_wakeup and an empty fill ring ---- */

static void poll_with_full_refill_clears_rx_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, 5, true, 0);

	KUNIT_ASSERT_TRUE(test, fake_fq_needs_wakeup(r.x));
	fake_fq_put(r.x, 20);
	fake_poll_rx(r.q, NULL, 64);
	KUNIT_EXPECT_FALSE(test, fake_fq_needs_wakeup(r.x));
}

/* POSTED_FULL is 15: the ring is low with half of it, 7, or fewer posted. */
#define POSTED_LOW	(POSTED_FULL / 2)

static void poll_leaving_the_ring_low_sets_rx_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	KUNIT_ASSERT_FALSE(test, fake_fq_needs_wakeup(r.x));
	receive_frames(r.q, POSTED_FULL - POSTED_LOW, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64),
			POSTED_FULL - POSTED_LOW);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_LOW);
	KUNIT_EXPECT_TRUE(test, fake_fq_needs_wakeup(r.x));
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.fill_short, 1);
}

/* The NIC interrupts for the next frame and that poll refills: a wakeup
 * for every recvmsg() (the core wakes while the flag is set) would only
 * raise interrupts.
 */
static void short_refill_with_most_of_the_ring_posted_needs_no_rx_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	receive_frames(r.q, POSTED_FULL - POSTED_LOW - 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64),
			POSTED_FULL - POSTED_LOW - 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_LOW + 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.fill_short, 1);
	KUNIT_EXPECT_FALSE(test, fake_fq_needs_wakeup(r.x));
}

static void empty_fill_ring_does_not_stall_the_queue(struct kunit *test)
{
	struct rig r = rig_up(test, 0, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	r.nic->prog = redirect;
	KUNIT_ASSERT_TRUE(test, fake_fq_needs_wakeup(r.x));
	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, r.q->rx_hw_drops, 2);

	/* User space refills and wakes the queue, as poll()/sendto() do. */
	fake_fq_put(r.x, 32);
	KUNIT_ASSERT_EQ(test, r.nic->netdev->netdev_ops->ndo_xsk_wakeup(r.nic->netdev,
									1, XDP_WAKEUP_RX), 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_FALSE(test, fake_fq_needs_wakeup(r.x));

	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 2);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 2);
}

static void poll_without_need_wakeup_stays_scheduled_while_the_ring_is_low(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, false, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	receive_frames(r.q, POSTED_FULL - POSTED_LOW, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 64);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), POSTED_FULL - POSTED_LOW);
}

static void poll_without_need_wakeup_completes_with_most_of_the_ring_posted(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, false, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	receive_frames(r.q, 3, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 3);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 3);
}

static void keep_one_posted_reuses_the_last_buffer_on_empty_fill_ring(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	r.q->zrx.keep_one_posted = true;
	receive_frames(r.q, POSTED_FULL, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), POSTED_FULL - 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.fill_empty, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), 1);
}

static void without_keep_one_posted_the_last_frame_is_delivered(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	receive_frames(r.q, POSTED_FULL, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), 0);
	KUNIT_EXPECT_TRUE(test, fake_fq_needs_wakeup(r.x));
}

/* ---- RX verdicts ---- */

static void redirect_delivers_the_frame_to_the_socket(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);
	u8 frame[100];
	struct xdp_desc desc;

	fake_prog_set_redirect(redirect, r.x);
	memset(frame, 0x3c, sizeof(frame));
	fake_nic_receive(r.q, frame, sizeof(frame), false);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 1);
	KUNIT_ASSERT_TRUE(test, fake_rx_get(r.x, &desc));
	KUNIT_EXPECT_EQ(test, desc.len, sizeof(frame));
	KUNIT_EXPECT_MEMEQ(test, fake_umem_va(r.x, desc.addr), frame, sizeof(frame));
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.redirect, 1);
}

static void redirect_to_a_full_socket_ends_the_poll_and_sets_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 4);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	receive_frames(r.q, 8, 60);
	/* Four fit, the fifth finds the ring full and ends the poll. */
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 5);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 4);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 1);
	KUNIT_EXPECT_TRUE(test, fake_fq_needs_wakeup(r.x));
	KUNIT_EXPECT_TRUE(test, r.q->rx_desc[r.q->zrx.next_to_clean].done);
}

static void pass_copies_the_frame_into_an_skb_of_its_length(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *pass = fake_prog_create(test, XDP_PASS);
	u8 frame[90];

	memset(frame, 0x5a, sizeof(frame));
	fake_nic_receive(r.q, frame, sizeof(frame), false);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, pass, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->pass_len, sizeof(frame));
	KUNIT_EXPECT_MEMEQ(test, r.q->pass_head, frame, sizeof(r.q->pass_head));
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.pass, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

/* A NIC with several ports on one NAPI (am65-cpsw): the skb populate
 * fills in belongs to the ring's netdev, whose features it reads, not
 * to the NAPI's.
 */
static void pass_populates_an_skb_of_the_ring_netdev(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *pass = fake_prog_create(test, XDP_PASS);
	struct net_device *napi_dev = r.q->rx_napi.dev;
	struct net_device *other = alloc_etherdev(0);
	u8 frame[90];

	KUNIT_ASSERT_NOT_NULL(test, other);
	memset(frame, 0x5a, sizeof(frame));
	fake_nic_receive(r.q, frame, sizeof(frame), false);
	r.q->rx_napi.dev = other;
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, pass, 64), 1);
	r.q->rx_napi.dev = napi_dev;
	free_netdev(other);
	KUNIT_EXPECT_PTR_EQ(test, r.q->pass_dev, r.q->zrx.netdev);
}

static void pass_keeps_the_xdp_metadata(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *pass = fake_prog_create(test, XDP_PASS);
	u8 meta[8];

	fake_prog_set_meta(pass, sizeof(meta));
	memset(meta, 0xa5, sizeof(meta));
	receive_frames(r.q, 1, 70);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, pass, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->pass_meta_len, sizeof(meta));
	KUNIT_EXPECT_MEMEQ(test, r.q->pass_meta, meta, sizeof(meta));
	KUNIT_EXPECT_EQ(test, r.q->pass_len, 70);
}

static void no_program_passes_frames_to_the_stack(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	receive_frames(r.q, 3, 64);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, NULL, 64), 3);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.pass, 3);
	KUNIT_EXPECT_EQ(test, r.q->pass_len, 64);
}

static void inline_metadata_offset_is_skipped(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	u8 buf[8 + 64];

	memset(buf, 0xee, 8);
	memset(buf + 8, 0x11, 64);
	r.q->rx_offset = 8;
	fake_nic_receive(r.q, buf, sizeof(buf), false);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, NULL, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->pass_len, 64);
	KUNIT_EXPECT_MEMEQ(test, r.q->pass_head, buf + 8, sizeof(r.q->pass_head));
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.bytes, 64);
}

static void xdp_tx_hands_frames_to_the_driver_and_flushes_once(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);

	receive_frames(r.q, 3, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 3);
	KUNIT_EXPECT_EQ(test, r.q->xdp_tx_frames, 3);
	KUNIT_EXPECT_EQ(test, r.q->xdp_tx_flushes, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.xdp_tx, 3);
}

static void failed_xdp_tx_frees_the_buffer_and_counts_a_drop(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);

	r.q->xdp_tx_fails = true;
	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 2);
	KUNIT_EXPECT_EQ(test, r.q->xdp_tx_flushes, 0);
	/* Both buffers came back and were posted again. */
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

/* A socket bound zero-copy to queue 1 of a NIC whose XDP_TX posts the
 * XSK buffer itself, with @fill frames offered; @one_napi: one NAPI
 * instance serves RX and TX.
 */
static struct rig rig_up_xmit_zc_fill(struct kunit *test, bool one_napi,
				      u32 fill)
{
	struct fake_xsk_cfg cfg = { .qid = 1, .need_wakeup = true };
	struct rig r;

	r.nic = fake_nic_create(test, &fake_ops);
	r.nic->one_napi = one_napi;
	fake_nic_set_up(test, r.nic, true);
	r.x = fake_xsk_create_sized(test, FAKE_FRAME, FAKE_XSK_RING);
	fake_fq_put(r.x, fill);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(r.x, r.nic, &cfg), 0);
	r.q = &r.nic->q[1];
	return r;
}

static struct rig rig_up_xmit_zc(struct kunit *test, bool one_napi)
{
	return rig_up_xmit_zc_fill(test, one_napi, 32);
}

static void xdp_tx_without_a_copy_sends_the_rx_buffer_itself(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, false);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);
	dma_addr_t dma[3];
	u32 i;

	for (i = 0; i < 3; i++)
		dma[i] = r.q->rx_desc[i].dma;
	receive_frames(r.q, 3, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 3);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, r.q->tx_desc[i].dma, dma[i]);
		KUNIT_EXPECT_EQ(test, r.q->tx_desc[i].len, 60);
		KUNIT_EXPECT_NOT_NULL(test, r.q->tx_desc[i].xdp_tx);
	}
	KUNIT_EXPECT_EQ(test, r.q->xdp_tx_flushes, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.xdp_tx, 3);
	/* the three buffers are on the wire: the fill ring gave three more */
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_fq_taken(r.x), POSTED_FULL + 3);
}

static void xdp_tx_without_a_copy_sends_from_where_the_program_moved_the_frame(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, false);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);
	dma_addr_t dma = r.q->rx_desc[0].dma;

	fake_prog_set_head(tx, ETH_HLEN);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[0].dma, dma + ETH_HLEN);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[0].len, 60 - ETH_HLEN);
}

static void xdp_tx_without_a_copy_skips_the_nic_metadata(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, false);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);
	dma_addr_t dma = r.q->rx_desc[0].dma;

	r.q->rx_offset = 16;
	receive_frames(r.q, 1, 76);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[0].dma, dma + 16);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[0].len, 60);
}

/* Three frames sent back with XDP_TX, then completed by the NIC; returns
 * the pool's free count from before the completion.
 */
static u32 xdp_tx_three_and_complete(struct kunit *test, struct rig *r)
{
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);
	u32 free;

	receive_frames(r->q, 3, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r->q, tx, 64), 3);
	free = r->x->pool->free_list_cnt;
	KUNIT_EXPECT_EQ(test, fake_tx_clean(r->q, 3), 0);
	return free;
}

static void xdp_tx_buffers_another_napi_completed_go_back_at_the_next_rx_poll(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, false);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);
	u32 free, free_in_tx_napi;
	bool waiting;

	receive_frames(r.q, 3, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 3);
	free = r.x->pool->free_list_cnt;
	/* inside the TX NAPI, before any other softirq can run */
	local_bh_disable();
	fake_tx_clean(r.q, 3);
	free_in_tx_napi = r.x->pool->free_list_cnt;
	waiting = !llist_empty(&r.q->zrx.xdp_tx_done);
	local_bh_enable();
	/* the TX NAPI may not touch the pool's free list */
	KUNIT_EXPECT_EQ(test, free_in_tx_napi, free);
	KUNIT_EXPECT_TRUE(test, waiting);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, NULL, 64), 0);
	KUNIT_EXPECT_EQ(test, r.x->pool->free_list_cnt, free + 3);
	KUNIT_EXPECT_TRUE(test, llist_empty(&r.q->zrx.xdp_tx_done));
}

static void xdp_tx_buffers_go_back_at_once_when_one_napi_serves_the_queue(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, true);
	u32 free = xdp_tx_three_and_complete(test, &r);

	KUNIT_EXPECT_EQ(test, r.x->pool->free_list_cnt, free + 3);
	KUNIT_EXPECT_TRUE(test, llist_empty(&r.q->zrx.xdp_tx_done));
}

/* The fill ring held one ring's worth and XDP_TX sent every frame back:
 * no buffer is posted, so the NIC raises no RX interrupt. The TX NAPI's
 * completion is all that can bring the RX NAPI round to post them again.
 */
static void xdp_tx_completed_by_another_napi_refills_a_ring_left_empty(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc_fill(test, false, POSTED_FULL);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);

	receive_frames(r.q, POSTED_FULL, 60);
	KUNIT_ASSERT_EQ(test, fake_poll_rx(r.q, tx, 64), POSTED_FULL);
	KUNIT_ASSERT_EQ(test, fake_rx_posted(r.q), 0);
	/* the TX NAPI cleans them: nothing else runs the RX NAPI now */
	fake_tx_clean(r.q, POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void a_ring_short_of_buffers_posts_the_xdp_tx_buffers_that_came_back(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);

	receive_frames(r.q, POSTED_FULL - POSTED_LOW, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), POSTED_FULL - POSTED_LOW);
	/* the fill ring is empty: the ring is low, waiting for buffers */
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_LOW);
	KUNIT_EXPECT_TRUE(test, fake_fq_needs_wakeup(r.x));
	fake_tx_clean(r.q, POSTED_FULL - POSTED_LOW);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_FALSE(test, fake_fq_needs_wakeup(r.x));
}

static void xdp_tx_without_a_copy_on_a_full_tx_ring_frees_the_buffer(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, false);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);

	r.q->xdp_tx_fails = true;
	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.xdp_tx, 0);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 0);
	/* both came back and were posted again: the fill ring gave none */
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_fq_taken(r.x), POSTED_FULL);
}

static void unbinding_gives_back_the_xdp_tx_buffers_still_on_the_tx_ring(struct kunit *test)
{
	struct rig r = rig_up_xmit_zc(test, false);
	struct bpf_prog *tx = fake_prog_create(test, XDP_TX);
	u32 free;

	receive_frames(r.q, 3, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 3);
	free = r.x->pool->free_list_cnt;
	fake_xsk_unbind(r.x);
	/* the posted buffers and the three the NIC never sent */
	KUNIT_EXPECT_EQ(test, r.x->pool->free_list_cnt, free + POSTED_FULL + 3);
	KUNIT_EXPECT_TRUE(test, llist_empty(&r.q->zrx.xdp_tx_done));
	KUNIT_EXPECT_NULL(test, r.q->ztx.rx);
}

static void aborted_counts_a_drop(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *aborted = fake_prog_create(test, XDP_ABORTED);

	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, aborted, 64), 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 2);
}

static void aborted_gives_the_buffer_back(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *aborted = fake_prog_create(test, XDP_ABORTED);

	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, aborted, 64), 2);
	/* Both buffers came back and were posted again. */
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

/* A verdict this kernel does not know is an XDP_ABORTED that warns. */
static void unknown_verdict_drops_the_frame_and_gives_the_buffer_back(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *bad = fake_prog_create(test, XDP_REDIRECT + 10);

	receive_frames(r.q, 2, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, bad, 64), 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.pass, 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void error_descriptor_is_dropped_without_running_the_program(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);
	u8 frame[60] = {};

	fake_prog_set_redirect(redirect, r.x);
	fake_nic_receive(r.q, frame, sizeof(frame), true);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 1);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 1);
}

/* A program redirecting to the rig's socket, on a ring that keeps its
 * last buffer posted.
 */
static struct bpf_prog *redirect_keeping_one_posted(struct kunit *test,
						    struct rig *r)
{
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r->x);
	r->q->zrx.keep_one_posted = true;
	return redirect;
}

/* keep_one_posted exists for the last buffer on the ring, whatever the
 * NIC wrote into it.
 */
static void error_descriptor_in_the_last_buffer_keeps_it_posted(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *redirect = redirect_keeping_one_posted(test, &r);
	u8 frame[60] = {};

	receive_frames(r.q, POSTED_FULL - 1, 60);
	fake_nic_receive(r.q, frame, sizeof(frame), true);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.fill_empty, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 0);
}

/* igb keeps old write-backs in its descriptor memory across a queue
 * restart; with an empty fill ring nothing overwrites them.
 */
static void stale_write_back_on_an_empty_ring_is_not_taken(struct kunit *test)
{
	struct rig r = rig_up(test, 0, true, 0);

	KUNIT_ASSERT_EQ(test, fake_rx_posted(r.q), 0);
	r.q->rx_desc[0].done = true;
	r.q->rx_desc[0].len = 60;
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, NULL, 64), 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.next_to_clean, 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.pending, POSTED_FULL);

	/* once user space fills, the ring starts where it should */
	fake_fq_put(r.x, 32);
	fake_poll_rx(r.q, NULL, 64);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, r.q->zrx.pending, 0);
}

/* ---- RX hints ---- */

/* A dev-bound program's RX hint kfunc reads the descriptor of the frame it
 * runs on, for each frame of a poll; an error descriptor between two frames
 * runs no program and moves no hint.
 */
static void rx_hint_kfunc_reads_the_descriptor_of_its_own_frame(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *drop = fake_prog_create(test, XDP_DROP);
	u8 frame[3][60];
	u32 i;

	fake_prog_set_hints(drop);
	for (i = 0; i < 3; i++) {
		memset(frame[i], 0x10 + i, sizeof(frame[i]));
		fake_nic_receive(r.q, frame[i], sizeof(frame[i]), false);
		if (!i)
			fake_nic_receive(r.q, frame[i], sizeof(frame[i]), true);
	}
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, drop, 64), 4);
	KUNIT_EXPECT_EQ(test, r.q->hint_err, 0);
	KUNIT_ASSERT_EQ(test, r.q->hints, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, r.q->hint_hash[i],
				jhash(frame[i], sizeof(frame[i]), 0));
}

/* The same driver callback on its page-mode XDP path, whose buffer is not
 * the pool's: no descriptor, no data, nothing read out of bounds.
 */
static void rx_hint_of_a_buffer_outside_zero_copy_finds_no_descriptor(struct kunit *test)
{
	struct xdp_rxq_info rxq = { .mem.type = MEM_TYPE_PAGE_SHARED };
	enum xdp_rss_hash_type type;
	struct xdp_buff xdp = {};
	u32 hash = 0;

	xdp.rxq = &rxq;
	KUNIT_EXPECT_NULL(test, xsk_zc_rx_hint_desc((struct xdp_md *)&xdp));
	KUNIT_EXPECT_EQ(test, fake_xdp_metadata_ops.xmo_rx_hash((struct xdp_md *)&xdp,
								&hash, &type),
			-ENODATA);
}

/* ---- multi-buffer frames (XDP_USE_SG) ---- */

#define MB_SEG	1000	/* what the fake NIC writes per descriptor */

/* NIC up, a socket bound zero-copy to queue 1, with or without SG. */
static struct rig rig_up_sg(struct kunit *test, bool sg)
{
	struct fake_xsk_cfg cfg = { .qid = 1, .need_wakeup = true, .sg = sg };
	struct rig r;

	r.nic = fake_nic_create(test, &fake_ops);
	fake_nic_set_up(test, r.nic, true);
	r.x = fake_xsk_create(test);
	fake_fq_put(r.x, FAKE_RX_FRAMES);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(r.x, r.nic, &cfg), 0);
	r.q = &r.nic->q[1];
	return r;
}

/* A broadcast frame of @len bytes, no two nearby bytes alike. */
static u8 *mb_frame(struct kunit *test, u32 len)
{
	u8 *f = kunit_kmalloc(test, len, GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < len; i++)
		f[i] = i * 7 + i / 256;
	eth_broadcast_addr(f);
	return f;
}

/* The NIC writes descriptors @from to @to - 1 of @frame, MB_SEG bytes
 * each, the last one without "more"; descriptor @error_at reports an
 * error (-1: none).
 */
static void receive_segs(struct fake_queue *q, const u8 *frame, u32 len,
			 u32 from, u32 to, int error_at)
{
	u32 i, n = DIV_ROUND_UP(len, MB_SEG);

	for (i = from; i < to && i < n; i++)
		fake_nic_receive_desc(q, frame + i * MB_SEG,
				      min(MB_SEG, len - i * MB_SEG), i + 1 < n,
				      i == error_at);
}

static struct bpf_prog *frags_prog(struct kunit *test, u32 act,
				   struct fake_xsk *x)
{
	struct bpf_prog *prog = fake_prog_create(test, act);

	fake_prog_set_frags(prog);
	if (act == XDP_REDIRECT)
		fake_prog_set_redirect(prog, x);
	return prog;
}

static void multi_buffer_frame_reaches_the_socket_one_descriptor_per_buffer(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *redirect = frags_prog(test, XDP_REDIRECT, r.x);
	u8 *frame = mb_frame(test, 2500);
	struct xdp_desc d[3];
	u32 i;

	receive_segs(r.q, frame, 2500, 0, 3, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 3);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_TRUE(test, fake_rx_get(r.x, &d[i]));
		KUNIT_EXPECT_EQ(test, d[i].len, i < 2 ? MB_SEG : 500);
		KUNIT_EXPECT_EQ(test, d[i].options, i < 2 ? XDP_PKT_CONTD : 0);
		KUNIT_EXPECT_MEMEQ(test, fake_umem_va(r.x, d[i].addr),
				   frame + i * MB_SEG, d[i].len);
	}
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.redirect, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.bytes, 2500);
}

static void program_sees_a_multi_buffer_frame_whole(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *drop = frags_prog(test, XDP_DROP, r.x);
	u8 *frame = mb_frame(test, 2500);

	receive_segs(r.q, frame, 2500, 0, 3, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, drop, 64), 3);
	KUNIT_EXPECT_EQ(test, r.q->prog_len, 2500);
	KUNIT_EXPECT_EQ(test, r.q->prog_frags, 2);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void frame_whose_last_descriptor_comes_in_a_later_poll_goes_out_then(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *redirect = frags_prog(test, XDP_REDIRECT, r.x);
	u8 *frame = mb_frame(test, 2500);

	receive_segs(r.q, frame, 2500, 0, 2, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 2);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, 0);
	receive_segs(r.q, frame, 2500, 2, 3, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 1);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 3);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, 1);
}

static void error_in_any_descriptor_drops_the_whole_frame_once(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *redirect = frags_prog(test, XDP_REDIRECT, r.x);
	u8 *frame = mb_frame(test, 2500);
	struct xdp_desc d;

	receive_segs(r.q, frame, 2500, 0, 3, 1);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 4);
	/* the next frame only */
	KUNIT_ASSERT_TRUE(test, fake_rx_get(r.x, &d));
	KUNIT_EXPECT_EQ(test, d.len, 60);
	KUNIT_EXPECT_EQ(test, d.options, 0);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void multi_buffer_frame_on_a_pool_without_sg_is_dropped(struct kunit *test)
{
	struct rig r = rig_up_sg(test, false);
	struct bpf_prog *redirect = frags_prog(test, XDP_REDIRECT, r.x);
	u8 *frame = mb_frame(test, 2500);

	receive_segs(r.q, frame, 2500, 0, 3, -1);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 4);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void multi_buffer_frame_is_not_given_to_a_program_without_frags(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);
	u8 *frame = mb_frame(test, 2500);

	fake_prog_set_redirect(redirect, r.x);
	receive_segs(r.q, frame, 2500, 0, 3, -1);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 4);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void pass_copies_every_fragment_into_the_skb(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *pass = frags_prog(test, XDP_PASS, r.x);
	u8 *frame = mb_frame(test, 2500);

	receive_segs(r.q, frame, 2500, 0, 3, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, pass, 64), 3);
	KUNIT_EXPECT_EQ(test, r.q->pass_len, 2500);
	KUNIT_EXPECT_EQ(test, r.q->pass_hash, jhash(frame, 2500, 0));
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.pass, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void xdp_tx_drops_a_multi_buffer_frame(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *tx = frags_prog(test, XDP_TX, r.x);
	u8 *frame = mb_frame(test, 2500);

	receive_segs(r.q, frame, 2500, 0, 3, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, tx, 64), 3);
	KUNIT_EXPECT_EQ(test, r.q->xdp_tx_frames, 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.xdp_tx, 0);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void unbinding_frees_a_frame_whose_last_descriptor_never_came(struct kunit *test)
{
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *redirect = frags_prog(test, XDP_REDIRECT, r.x);
	u8 *frame = mb_frame(test, 2500);
	u32 free;

	receive_segs(r.q, frame, 2500, 0, 2, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 2);
	free = r.x->pool->free_list_cnt;
	fake_xsk_unbind(r.x);
	/* the posted buffers and the two of the frame */
	KUNIT_EXPECT_EQ(test, r.x->pool->free_list_cnt, free + POSTED_FULL + 2);
	KUNIT_EXPECT_NULL(test, r.q->zrx.first);
}

static void frame_of_more_fragments_than_an_skb_holds_is_dropped(struct kunit *test)
{
	u32 segs = MAX_SKB_FRAGS + 2, len = segs * MB_SEG;
	struct rig r = rig_up_sg(test, true);
	struct bpf_prog *redirect = frags_prog(test, XDP_REDIRECT, r.x);
	u8 *frame = mb_frame(test, len);

	/* more buffers than the ring holds: the frame spans polls */
	receive_segs(r.q, frame, len, 0, POSTED_FULL, -1);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), POSTED_FULL);
	receive_segs(r.q, frame, len, POSTED_FULL, segs, -1);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64),
			segs - POSTED_FULL + 1);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 1);
	KUNIT_EXPECT_NULL(test, r.q->zrx.first);
}

static void poll_stops_at_the_budget(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	receive_frames(r.q, 10, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, NULL, 4), 4);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, NULL, 64), 6);
}

static void rx_stats_count_packets_and_bytes(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	receive_frames(r.q, 3, 60);
	receive_frames(r.q, 2, 100);
	fake_poll_rx(r.q, NULL, 64);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, 5);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.bytes, 3 * 60 + 2 * 100);
}

/* The driver sets its own counters first; the library adds its frames. */
static void queue_stats_add_the_zero_copy_frames_to_the_drivers(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct netdev_queue_stats_rx qs;

	receive_frames(r.q, 3, 60);
	fake_poll_rx(r.q, NULL, 64);
	memset(&qs, 0xff, sizeof(qs));
	qs.packets = 10;
	qs.bytes = 1000;
	xsk_zc_rx_queue_stats(&r.q->zrx, &qs);
	KUNIT_EXPECT_EQ(test, qs.packets, 10 + 3);
	KUNIT_EXPECT_EQ(test, qs.bytes, 1000 + 3 * 60);
}

/* Errors, drops and a short fill ring have no queue statistic: a counter
 * the driver does not set stays unset (all ones), as the core reads it.
 */
static void queue_stats_set_nothing_but_packets_and_bytes(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct netdev_queue_stats_rx qs;
	u8 frame[60] = {};

	fake_nic_receive(r.q, frame, sizeof(frame), true);
	receive_frames(r.q, 2, 60);
	fake_poll_rx(r.q, fake_prog_create(test, XDP_DROP), 64);
	KUNIT_ASSERT_EQ(test, r.q->zrx.stats.errors, 1);
	KUNIT_ASSERT_EQ(test, r.q->zrx.stats.drop, 2);
	memset(&qs, 0xff, sizeof(qs));
	qs.packets = 0;
	qs.bytes = 0;
	xsk_zc_rx_queue_stats(&r.q->zrx, &qs);
	KUNIT_EXPECT_EQ(test, qs.packets, 2);
	KUNIT_EXPECT_EQ(test, qs.bytes, 2 * 60);
	KUNIT_EXPECT_EQ(test, qs.alloc_fail, U64_MAX);
	KUNIT_EXPECT_EQ(test, qs.hw_drops, U64_MAX);
	KUNIT_EXPECT_EQ(test, qs.csum_bad, U64_MAX);
	KUNIT_EXPECT_EQ(test, qs.hw_drop_overruns, U64_MAX);
}

/* rx_packets and rx_bytes of the netdev count the same frames. */
static void rx_stats_count_neither_errors_nor_kept_buffers_as_packets(struct kunit *test)
{
	struct rig r = rig_up(test, POSTED_FULL, true, 0);
	struct bpf_prog *redirect = redirect_keeping_one_posted(test, &r);
	u8 frame[60] = {};

	fake_nic_receive(r.q, frame, sizeof(frame), true);
	receive_frames(r.q, POSTED_FULL - 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), POSTED_FULL);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.errors, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, POSTED_FULL - 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.bytes, (POSTED_FULL - 1) * 60);

	/* the fill ring is empty: the last buffer stays posted */
	KUNIT_ASSERT_EQ(test, fake_rx_posted(r.q), 1);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.fill_empty, 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.packets, POSTED_FULL - 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.redirect, POSTED_FULL - 1);
}

/* A redirect to a netdev (devmap, cpumap, bpf_redirect()) copies the
 * frame into a page first; an enqueue that fails must not leak it.
 */
static void failed_redirect_to_a_netdev_leaks_no_memory(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);
	unsigned long before, after;
	u32 i, frames = 0;

	/* the loopback device has no ndo_xdp_xmit: -EOPNOTSUPP */
	fake_prog_set_redirect_ifindex(redirect, init_net.loopback_dev->ifindex);
	before = global_zone_page_state(NR_FREE_PAGES);
	for (i = 0; i < 200; i++) {
		receive_frames(r.q, 10, 60);
		frames += fake_poll_rx(r.q, redirect, 64);
	}
	after = global_zone_page_state(NR_FREE_PAGES);
	KUNIT_EXPECT_EQ(test, frames, 2000);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 2000);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
	/* one page a frame if the copies leak; per-CPU lists hide a few */
	KUNIT_EXPECT_LT(test, before > after ? before - after : 0, 500);
}

/* The buffer of a redirect the socket refused goes back to the pool, so
 * the next refill takes it rather than a new one from the fill ring.
 */
static void failed_redirect_to_a_full_socket_returns_the_buffer(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 1);	/* RX ring of one */
	struct bpf_prog *redirect = fake_prog_create(test, XDP_REDIRECT);

	fake_prog_set_redirect(redirect, r.x);
	KUNIT_ASSERT_EQ(test, fake_fq_taken(r.x), POSTED_FULL);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 1);
	receive_frames(r.q, 1, 60);
	KUNIT_EXPECT_EQ(test, fake_poll_rx(r.q, redirect, 64), 1);
	KUNIT_EXPECT_EQ(test, r.q->zrx.stats.drop, 1);
	KUNIT_EXPECT_EQ(test, fake_rx_count(r.x), 1);
	KUNIT_EXPECT_EQ(test, fake_fq_taken(r.x), POSTED_FULL + 1);
	KUNIT_EXPECT_EQ(test, r.x->pool->free_list_cnt, 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(r.q), POSTED_FULL);
}

static void stats_read_returns_a_copy_of_the_counters(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct bpf_prog *drop = fake_prog_create(test, XDP_DROP);
	struct xsk_zc_rx_stats s;

	receive_frames(r.q, 2, 60);
	fake_poll_rx(r.q, NULL, 64);
	receive_frames(r.q, 3, 100);
	fake_poll_rx(r.q, drop, 64);
	xsk_zc_rx_stats_read(&r.q->zrx, &s);
	KUNIT_EXPECT_EQ(test, s.packets, 5);
	KUNIT_EXPECT_EQ(test, s.bytes, 2 * 60 + 3 * 100);
	KUNIT_EXPECT_EQ(test, s.pass, 2);
	KUNIT_EXPECT_EQ(test, s.drop, 3);
}

static void ring_without_gap_is_filled_to_the_last_descriptor(struct kunit *test)
{
	struct fake_xsk_cfg cfg = { .qid = 1, .need_wakeup = true };
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);
	struct fake_xsk *x = fake_xsk_create(test);

	nic->q[1].zrx.gap = 0;
	fake_fq_put(x, 32);
	fake_nic_set_up(test, nic, true);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(x, nic, &cfg), 0);
	KUNIT_EXPECT_EQ(test, fake_rx_posted(&nic->q[1]), FAKE_RING);
	KUNIT_EXPECT_EQ(test, nic->q[1].zrx.pending, 0);
}

/* ---- TX ---- */

static void xmit_sends_the_socket_frames_with_their_dma_address(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	u32 i;

	fake_tx_put(r.x, 3, 200);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 3);
	for (i = 0; i < 3; i++) {
		u64 addr = (u64)(FAKE_RX_FRAMES + i) * FAKE_FRAME;

		KUNIT_EXPECT_EQ(test, r.q->tx_desc[i].len, 200);
		KUNIT_EXPECT_EQ(test, r.q->tx_desc[i].dma,
				xsk_buff_raw_get_dma(r.x->pool, addr));
	}
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 3);
}

static void xmit_kicks_once_per_batch(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 5, 64);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_kicks, 1);
}

/* what a driver's BQL is told, once per batch */
static void xmit_kick_is_told_the_bytes_of_its_batch(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 3, 64);
	fake_tx_put(r.x, 2, 1000);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 5);
	KUNIT_EXPECT_EQ(test, r.q->tx_kicks, 1);
	KUNIT_EXPECT_EQ(test, r.q->tx_kick_bytes, 3 * 64 + 2 * 1000);
}

static void xmit_without_a_kick_callback_sends_and_kicks_nothing(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 5, 64);
	local_bh_disable();
	KUNIT_EXPECT_TRUE(test, fake_tx_xmit_doorbell(r.q, 64));
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 5);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 5);
	KUNIT_EXPECT_EQ(test, r.q->tx_kicks, 0);
}

static void xmit_leaves_the_reserve_free_for_the_stack(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 40, 64);
	KUNIT_EXPECT_FALSE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, FAKE_RING - 1 - FAKE_TX_RESERVE);
	/* A full ring sends nothing more and reports done: its completion
	 * calls again.
	 */
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, FAKE_RING - 1 - FAKE_TX_RESERVE);
}

static void xmit_with_budget_zero_sends_nothing(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 3, 64);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 0));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 0);
	KUNIT_EXPECT_EQ(test, r.q->tx_kicks, 0);
}

static void xmit_with_budget_one_sends_one(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 3, 64);
	KUNIT_EXPECT_FALSE(test, fake_poll_tx(r.q, 1));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 1);
}

static void xmit_with_budget_beyond_the_ring_is_capped(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 60, 64);
	fake_poll_tx(r.q, 1000);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, FAKE_RING - 1 - FAKE_TX_RESERVE);
}

static void xmit_with_fewer_free_than_the_reserve_does_not_underflow(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	/* The stack filled the ring past the reserve. */
	r.q->tx_used = FAKE_RING - 2;
	fake_tx_put(r.x, 3, 64);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, FAKE_RING - 2);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 0);
	r.q->tx_used = 0;
}

static void xmit_sets_tx_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	xsk_clear_tx_need_wakeup(r.x->pool);
	KUNIT_ASSERT_FALSE(test, fake_tx_needs_wakeup(r.x));
	fake_tx_put(r.x, 2, 64);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_TRUE(test, fake_tx_needs_wakeup(r.x));
}

static void xmit_without_carrier_sends_nothing_and_asks_for_a_kick(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	netif_carrier_off(r.nic->netdev);
	xsk_clear_tx_need_wakeup(r.x->pool);
	fake_tx_put(r.x, 5, 64);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 0);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 0);
	KUNIT_EXPECT_TRUE(test, fake_tx_needs_wakeup(r.x));
}

static void xmit_sends_again_once_the_carrier_is_back(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	netif_carrier_off(r.nic->netdev);
	fake_tx_put(r.x, 5, 64);
	fake_poll_tx(r.q, 64);
	netif_carrier_on(r.nic->netdev);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 5);
}

static void xmit_on_a_stopped_queue_sends_nothing(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct netdev_queue *txq = netdev_get_tx_queue(r.nic->netdev, 1);

	netif_tx_stop_queue(txq);
	fake_tx_put(r.x, 5, 64);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 0);
	netif_tx_wake_queue(txq);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 5);
}

static void xmit_on_a_shared_ring_feeds_the_hang_detector(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);
	struct netdev_queue *txq = netdev_get_tx_queue(r.nic->netdev, 1);
	unsigned long before;

	WRITE_ONCE(txq->trans_start, jiffies - HZ);
	before = jiffies;
	fake_tx_put(r.x, 1, 64);
	fake_poll_tx(r.q, 64);
	/* jiffies may tick during the poll */
	KUNIT_EXPECT_TRUE(test, time_after_eq(READ_ONCE(txq->trans_start), before));
}

static void completion_posts_zero_copy_frames_to_the_completion_ring(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 6, 64);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 4), 4);
	KUNIT_EXPECT_EQ(test, fake_cq_take(r.x), 4);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 2);
	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 10), 2);
	KUNIT_EXPECT_EQ(test, fake_cq_take(r.x), 2);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 0);
}

static void completion_sets_tx_need_wakeup(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	fake_tx_put(r.x, 1, 64);
	fake_poll_tx(r.q, 64);
	xsk_clear_tx_need_wakeup(r.x->pool);
	fake_tx_clean(r.q, 1);
	KUNIT_EXPECT_TRUE(test, fake_tx_needs_wakeup(r.x));
}

static void completion_of_no_frames_posts_nothing(struct kunit *test)
{
	struct rig r = rig_up(test, 32, true, 0);

	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 4), 0);
	KUNIT_EXPECT_EQ(test, fake_cq_take(r.x), 0);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 0);
}

static void completion_on_a_ring_without_pool_does_nothing(struct kunit *test)
{
	struct fake_nic *nic = fake_nic_create(test, &fake_ops);

	xsk_zc_tx_complete(&nic->q[2].ztx, 0);
	KUNIT_EXPECT_EQ(test, nic->q[2].ztx.in_flight, 0);
	KUNIT_EXPECT_NULL(test, xsk_zc_tx_pool(&nic->q[2].ztx));
}

/* NIC up with TX metadata ops (with @meta), a socket bound zero-copy to
 * queue 1, with XDP_USE_SG or not, whose UMEM has TX metadata with @meta.
 */
static struct rig rig_up_tx(struct kunit *test, bool meta, bool sg)
{
	struct fake_xsk_cfg cfg = { .qid = 1, .need_wakeup = true, .sg = sg };
	struct rig r;

	r.nic = fake_nic_create(test, &fake_ops);
	fake_nic_set_up(test, r.nic, true);
	r.x = meta ? fake_xsk_create_tx_meta(test) : fake_xsk_create(test);
	KUNIT_ASSERT_EQ(test, fake_xsk_bind(r.x, r.nic, &cfg), 0);
	r.q = &r.nic->q[1];
	r.q->tx_meta = meta;
	return r;
}

/* For the TX metadata tests: the ops always, TX metadata in the UMEM
 * with @meta, no SG.
 */
static struct rig rig_up_tx_meta(struct kunit *test, bool meta)
{
	struct rig r = rig_up_tx(test, meta, false);

	r.q->tx_meta = true;
	return r;
}

static void tx_timestamp_request_reaches_the_fill_and_its_stamp_the_umem(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, true);
	struct xsk_tx_metadata *meta;

	KUNIT_ASSERT_NOT_NULL(test, fake_tx_put_meta(r.x, 64, XDP_TX_METADATA, 0));
	meta = fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
				XDP_TXMD_FLAGS_TIMESTAMP);
	KUNIT_ASSERT_NOT_NULL(test, meta);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].stamp_asked);
	KUNIT_EXPECT_TRUE(test, r.q->tx_desc[1].stamp_asked);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[1].csum);

	/* the first frame is stamped 1, the second 2 */
	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 2), 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(meta->completion.tx_timestamp), 2);
	KUNIT_EXPECT_EQ(test, fake_cq_take(r.x), 2);
}

static void tx_checksum_request_reaches_the_driver_with_its_offsets(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, true);

	KUNIT_ASSERT_NOT_NULL(test, fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
						     XDP_TXMD_FLAGS_CHECKSUM));
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_TRUE(test, r.q->tx_desc[0].csum);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[0].csum_start, 14);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[0].csum_offset, 16);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].stamp_asked);
}

static void tx_metadata_without_the_descriptor_option_is_not_read(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, true);
	struct xsk_tx_metadata *meta;
	u64 before;

	meta = fake_tx_put_meta(r.x, 64, 0, XDP_TXMD_FLAGS_TIMESTAMP |
				XDP_TXMD_FLAGS_CHECKSUM);
	KUNIT_ASSERT_NOT_NULL(test, meta);
	before = READ_ONCE(meta->completion.tx_timestamp);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].stamp_asked);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].csum);
	fake_tx_clean(r.q, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(meta->completion.tx_timestamp), before);
}

static void tx_metadata_with_invalid_flags_requests_nothing(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, true);

	KUNIT_ASSERT_NOT_NULL(test, fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
						     XDP_TXMD_FLAGS_CHECKSUM |
						     BIT_ULL(40)));
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 1);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].csum);
}

/* The completion field shares its bytes with the request: a frame that
 * asked for no timestamp, or whose flags are invalid, keeps them.
 */
static void tx_frame_without_a_valid_timestamp_request_is_not_stamped(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, true);
	struct xsk_tx_metadata *csum, *bad;
	u64 csum_before, bad_before;

	csum = fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
				XDP_TXMD_FLAGS_CHECKSUM);
	bad = fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
			       XDP_TXMD_FLAGS_TIMESTAMP | BIT_ULL(40));
	KUNIT_ASSERT_NOT_NULL(test, csum);
	KUNIT_ASSERT_NOT_NULL(test, bad);
	csum_before = READ_ONCE(csum->completion.tx_timestamp);
	bad_before = READ_ONCE(bad->completion.tx_timestamp);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].stamp_asked);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[1].stamp_asked);
	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 2), 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(csum->completion.tx_timestamp),
			csum_before);
	KUNIT_EXPECT_EQ(test, READ_ONCE(bad->completion.tx_timestamp),
			bad_before);
}

static void tx_metadata_option_on_a_umem_without_metadata_requests_nothing(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, false);

	KUNIT_ASSERT_NOT_NULL(test, fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
						     XDP_TXMD_FLAGS_TIMESTAMP));
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 1);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].stamp_asked);
}

/* A slot that carried a timestamp request does not stamp the next frame
 * written into it.
 */
static void tx_slot_of_a_stamped_frame_stamps_no_later_frame(struct kunit *test)
{
	struct rig r = rig_up_tx_meta(test, true);
	struct xsk_tx_metadata *meta;
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
						     XDP_TXMD_FLAGS_TIMESTAMP));
	fake_poll_tx(r.q, 64);
	fake_tx_clean(r.q, 1);
	/* the ring restarts at its first slot, as after a reset */
	r.q->tx_ntu = 0;
	r.q->tx_ntc = 0;
	/* no metadata: nothing would clear the slot but the library */
	meta = fake_tx_put_meta(r.x, 64, 0, XDP_TXMD_FLAGS_TIMESTAMP);
	KUNIT_ASSERT_NOT_NULL(test, meta);
	before = READ_ONCE(meta->completion.tx_timestamp);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[0].stamp_asked);
	fake_tx_clean(r.q, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(meta->completion.tx_timestamp), before);
}

/* ---- multi-buffer TX (XDP_USE_SG) ---- */

static void multi_buffer_frame_reaches_the_driver_in_order_ending_on_its_last(struct kunit *test)
{
	struct rig r = rig_up_tx(test, false, true);
	u32 i;

	KUNIT_ASSERT_EQ(test, fake_tx_put_frame(r.x, 3, 100), 3);
	KUNIT_ASSERT_EQ(test, fake_tx_put_frame(r.x, 1, 60), 1);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_ASSERT_EQ(test, r.q->tx_used, 4);
	for (i = 0; i < 4; i++) {
		u64 addr = (u64)(FAKE_RX_FRAMES + i) * FAKE_FRAME;

		KUNIT_EXPECT_EQ(test, r.q->tx_desc[i].dma,
				xsk_buff_raw_get_dma(r.x->pool, addr));
	}
	KUNIT_EXPECT_TRUE(test, r.q->tx_desc[0].more);
	KUNIT_EXPECT_TRUE(test, r.q->tx_desc[1].more);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[2].more);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[3].more);
	KUNIT_EXPECT_EQ(test, r.q->tx_desc[3].len, 60);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 4);
}

static void multi_buffer_frame_waits_whole_until_the_ring_has_room(struct kunit *test)
{
	struct rig r = rig_up_tx(test, false, true);

	/* the stack's frames leave two descriptors beyond the reserve */
	r.q->tx_used = FAKE_RING - 1 - FAKE_TX_RESERVE - 2;
	KUNIT_ASSERT_EQ(test, fake_tx_put_frame(r.x, 3, 100), 3);
	KUNIT_EXPECT_TRUE(test, fake_poll_tx(r.q, 64));
	KUNIT_EXPECT_EQ(test, r.q->tx_used, FAKE_RING - 1 - FAKE_TX_RESERVE - 2);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 0);

	/* their completion makes room: the frame goes, whole */
	r.q->tx_used = 0;
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, 3);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[2].more);
}

static void budget_below_a_frame_s_buffers_still_sends_the_frame(struct kunit *test)
{
	struct rig r = rig_up_tx(test, false, true);

	KUNIT_ASSERT_EQ(test, fake_tx_put_frame(r.x, FAKE_MAX_SEGS, 100),
			FAKE_MAX_SEGS);
	fake_poll_tx(r.q, 1);
	KUNIT_EXPECT_EQ(test, r.q->tx_used, FAKE_MAX_SEGS);
}

static void completion_counts_each_buffer_of_a_multi_buffer_frame(struct kunit *test)
{
	struct rig r = rig_up_tx(test, false, true);

	fake_tx_put_frame(r.x, 3, 100);
	fake_tx_put_frame(r.x, 1, 100);
	fake_poll_tx(r.q, 64);
	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 4), 4);
	KUNIT_EXPECT_EQ(test, fake_cq_take(r.x), 4);
	KUNIT_EXPECT_EQ(test, r.q->ztx.in_flight, 0);
}

static void tx_metadata_of_a_multi_buffer_frame_is_its_first_buffer_s(struct kunit *test)
{
	struct rig r = rig_up_tx(test, true, true);
	struct xsk_tx_metadata *head, *frag;
	u64 before;

	head = fake_tx_put_meta(r.x, 64, XDP_PKT_CONTD | XDP_TX_METADATA,
				XDP_TXMD_FLAGS_TIMESTAMP);
	frag = fake_tx_put_meta(r.x, 64, XDP_TX_METADATA,
				XDP_TXMD_FLAGS_TIMESTAMP |
				XDP_TXMD_FLAGS_CHECKSUM);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_ASSERT_NOT_NULL(test, frag);
	/* the checksum request shares the completion's bytes */
	before = READ_ONCE(frag->completion.tx_timestamp);
	fake_poll_tx(r.q, 64);
	KUNIT_ASSERT_EQ(test, r.q->tx_used, 2);
	KUNIT_EXPECT_TRUE(test, r.q->tx_desc[0].stamp_asked);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[1].stamp_asked);
	KUNIT_EXPECT_FALSE(test, r.q->tx_desc[1].csum);

	KUNIT_EXPECT_EQ(test, fake_tx_clean(r.q, 2), 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(head->completion.tx_timestamp), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(frag->completion.tx_timestamp), before);
}

static struct kunit_case xsk_zc_datapath_cases[] = {
	KUNIT_CASE(refill_posts_buffers_for_the_whole_deficit),
	KUNIT_CASE(refill_writes_the_buffer_dma_address_in_each_descriptor),
	KUNIT_CASE(refill_kicks_the_nic_once_per_batch),
	KUNIT_CASE(refill_wraps_around_the_end_of_the_ring),
	KUNIT_CASE(refill_with_short_fill_ring_posts_what_there_is),
	KUNIT_CASE(refill_with_empty_fill_ring_posts_nothing_and_does_not_kick),
	KUNIT_CASE(refill_without_a_kick_callback_posts_and_kicks_nothing),
	KUNIT_CASE(start_with_short_fill_ring_sets_rx_need_wakeup),
	KUNIT_CASE(start_with_full_fill_ring_clears_rx_need_wakeup),
	KUNIT_CASE(dropped_buffer_is_reposted_without_the_fill_ring),
	KUNIT_CASE(poll_with_full_refill_clears_rx_need_wakeup),
	KUNIT_CASE(poll_leaving_the_ring_low_sets_rx_need_wakeup),
	KUNIT_CASE(short_refill_with_most_of_the_ring_posted_needs_no_rx_wakeup),
	KUNIT_CASE(empty_fill_ring_does_not_stall_the_queue),
	KUNIT_CASE(poll_without_need_wakeup_stays_scheduled_while_the_ring_is_low),
	KUNIT_CASE(poll_without_need_wakeup_completes_with_most_of_the_ring_posted),
	KUNIT_CASE(keep_one_posted_reuses_the_last_buffer_on_empty_fill_ring),
	KUNIT_CASE(without_keep_one_posted_the_last_frame_is_delivered),
	KUNIT_CASE(redirect_delivers_the_frame_to_the_socket),
	KUNIT_CASE(redirect_to_a_full_socket_ends_the_poll_and_sets_need_wakeup),
	KUNIT_CASE(pass_copies_the_frame_into_an_skb_of_its_length),
	KUNIT_CASE(pass_populates_an_skb_of_the_ring_netdev),
	KUNIT_CASE(pass_keeps_the_xdp_metadata),
	KUNIT_CASE(no_program_passes_frames_to_the_stack),
	KUNIT_CASE(inline_metadata_offset_is_skipped),
	KUNIT_CASE(xdp_tx_hands_frames_to_the_driver_and_flushes_once),
	KUNIT_CASE(failed_xdp_tx_frees_the_buffer_and_counts_a_drop),
	KUNIT_CASE(xdp_tx_without_a_copy_sends_the_rx_buffer_itself),
	KUNIT_CASE(xdp_tx_without_a_copy_sends_from_where_the_program_moved_the_frame),
	KUNIT_CASE(xdp_tx_without_a_copy_skips_the_nic_metadata),
	KUNIT_CASE(xdp_tx_buffers_another_napi_completed_go_back_at_the_next_rx_poll),
	KUNIT_CASE(xdp_tx_buffers_go_back_at_once_when_one_napi_serves_the_queue),
	KUNIT_CASE(xdp_tx_completed_by_another_napi_refills_a_ring_left_empty),
	KUNIT_CASE(a_ring_short_of_buffers_posts_the_xdp_tx_buffers_that_came_back),
	KUNIT_CASE(xdp_tx_without_a_copy_on_a_full_tx_ring_frees_the_buffer),
	KUNIT_CASE(unbinding_gives_back_the_xdp_tx_buffers_still_on_the_tx_ring),
	KUNIT_CASE(aborted_counts_a_drop),
	KUNIT_CASE(aborted_gives_the_buffer_back),
	KUNIT_CASE(unknown_verdict_drops_the_frame_and_gives_the_buffer_back),
	KUNIT_CASE(error_descriptor_is_dropped_without_running_the_program),
	KUNIT_CASE(error_descriptor_in_the_last_buffer_keeps_it_posted),
	KUNIT_CASE(stale_write_back_on_an_empty_ring_is_not_taken),
	KUNIT_CASE(rx_hint_kfunc_reads_the_descriptor_of_its_own_frame),
	KUNIT_CASE(rx_hint_of_a_buffer_outside_zero_copy_finds_no_descriptor),
	KUNIT_CASE(multi_buffer_frame_reaches_the_socket_one_descriptor_per_buffer),
	KUNIT_CASE(program_sees_a_multi_buffer_frame_whole),
	KUNIT_CASE(frame_whose_last_descriptor_comes_in_a_later_poll_goes_out_then),
	KUNIT_CASE(error_in_any_descriptor_drops_the_whole_frame_once),
	KUNIT_CASE(multi_buffer_frame_on_a_pool_without_sg_is_dropped),
	KUNIT_CASE(multi_buffer_frame_is_not_given_to_a_program_without_frags),
	KUNIT_CASE(pass_copies_every_fragment_into_the_skb),
	KUNIT_CASE(xdp_tx_drops_a_multi_buffer_frame),
	KUNIT_CASE(unbinding_frees_a_frame_whose_last_descriptor_never_came),
	KUNIT_CASE(frame_of_more_fragments_than_an_skb_holds_is_dropped),
	KUNIT_CASE(poll_stops_at_the_budget),
	KUNIT_CASE(rx_stats_count_packets_and_bytes),
	KUNIT_CASE(rx_stats_count_neither_errors_nor_kept_buffers_as_packets),
	KUNIT_CASE(queue_stats_add_the_zero_copy_frames_to_the_drivers),
	KUNIT_CASE(queue_stats_set_nothing_but_packets_and_bytes),
	KUNIT_CASE(failed_redirect_to_a_netdev_leaks_no_memory),
	KUNIT_CASE(failed_redirect_to_a_full_socket_returns_the_buffer),
	KUNIT_CASE(stats_read_returns_a_copy_of_the_counters),
	KUNIT_CASE(ring_without_gap_is_filled_to_the_last_descriptor),
	KUNIT_CASE(xmit_sends_the_socket_frames_with_their_dma_address),
	KUNIT_CASE(xmit_kicks_once_per_batch),
	KUNIT_CASE(xmit_kick_is_told_the_bytes_of_its_batch),
	KUNIT_CASE(xmit_without_a_kick_callback_sends_and_kicks_nothing),
	KUNIT_CASE(xmit_leaves_the_reserve_free_for_the_stack),
	KUNIT_CASE(xmit_with_budget_zero_sends_nothing),
	KUNIT_CASE(xmit_with_budget_one_sends_one),
	KUNIT_CASE(xmit_with_budget_beyond_the_ring_is_capped),
	KUNIT_CASE(xmit_with_fewer_free_than_the_reserve_does_not_underflow),
	KUNIT_CASE(xmit_sets_tx_need_wakeup),
	KUNIT_CASE(xmit_without_carrier_sends_nothing_and_asks_for_a_kick),
	KUNIT_CASE(xmit_sends_again_once_the_carrier_is_back),
	KUNIT_CASE(xmit_on_a_stopped_queue_sends_nothing),
	KUNIT_CASE(xmit_on_a_shared_ring_feeds_the_hang_detector),
	KUNIT_CASE(completion_posts_zero_copy_frames_to_the_completion_ring),
	KUNIT_CASE(completion_sets_tx_need_wakeup),
	KUNIT_CASE(completion_of_no_frames_posts_nothing),
	KUNIT_CASE(completion_on_a_ring_without_pool_does_nothing),
	KUNIT_CASE(tx_timestamp_request_reaches_the_fill_and_its_stamp_the_umem),
	KUNIT_CASE(tx_checksum_request_reaches_the_driver_with_its_offsets),
	KUNIT_CASE(tx_metadata_without_the_descriptor_option_is_not_read),
	KUNIT_CASE(tx_metadata_with_invalid_flags_requests_nothing),
	KUNIT_CASE(tx_frame_without_a_valid_timestamp_request_is_not_stamped),
	KUNIT_CASE(tx_metadata_option_on_a_umem_without_metadata_requests_nothing),
	KUNIT_CASE(tx_slot_of_a_stamped_frame_stamps_no_later_frame),
	KUNIT_CASE(multi_buffer_frame_reaches_the_driver_in_order_ending_on_its_last),
	KUNIT_CASE(multi_buffer_frame_waits_whole_until_the_ring_has_room),
	KUNIT_CASE(budget_below_a_frame_s_buffers_still_sends_the_frame),
	KUNIT_CASE(completion_counts_each_buffer_of_a_multi_buffer_frame),
	KUNIT_CASE(tx_metadata_of_a_multi_buffer_frame_is_its_first_buffer_s),
	{}
};

static struct kunit_suite xsk_zc_datapath_suite = {
	.name = "xsk_zc_datapath",
	.test_cases = xsk_zc_datapath_cases,
};

kunit_test_suite(xsk_zc_datapath_suite);
