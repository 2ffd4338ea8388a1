// SPDX-License-Identifier: GPL-2.0-only
/*
 * xsk-txmeta - AF_XDP TX metadata from a zero-copy socket, end to end.
 *
 * Binds a TX-only AF_XDP socket zero-copy to IF's queue Q, with a UMEM
 * that keeps TX metadata (struct xsk_tx_metadata) before each frame,
 * and sends FRAMES frames (EtherType 0x88b5, broadcast), one per
 * sendto(), each asking for a TX timestamp (XDP_TXMD_FLAGS_TIMESTAMP)
 * unless -N; with -1 each once the one before completed. Every completed
 * frame's metadata is read back from the UMEM: the timestamp the driver
 * wrote there.
 *
 * With -P /dev/ptpN (the NIC's clock) the PHC time is read before the
 * first frame and after the last completion: every stamp must lie in
 * between, and each must follow the one before.
 *
 * Raw sockets, no libxdp: libxdp 1.3 (Debian 12) cannot register a UMEM
 * with TX metadata, and the system's <linux/if_xdp.h> (6.1) predates it,
 * so the 6.8 UAPI bits are spelled out below.
 *
 * Output: one "stamp I NS" line per frame, then
 *   summary sent=N completed=N stamped=N zero=N in_window=N ordered=N
 *           status=ok|error errno=NAME
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#include "xsk-ring.h"
#include "xsk-util.h"

/* UAPI of 6.8 (include/uapi/linux/if_xdp.h) */
#define UMEM_TX_METADATA_LEN	(1 << 2)	/* XDP_UMEM_TX_METADATA_LEN */
#define DESC_TX_METADATA	(1 << 1)	/* XDP_TX_METADATA */
#define TXMD_FLAGS_TIMESTAMP	(1 << 0)	/* XDP_TXMD_FLAGS_TIMESTAMP */

struct umem_reg {			/* struct xdp_umem_reg */
	uint64_t addr;
	uint64_t len;
	uint32_t chunk_size;
	uint32_t headroom;
	uint32_t flags;
	uint32_t tx_metadata_len;
};

struct tx_meta {			/* struct xsk_tx_metadata */
	uint64_t flags;
	union {
		struct {
			uint16_t csum_start;
			uint16_t csum_offset;
		} request;
		struct {
			uint64_t tx_timestamp;
		} completion;
	};
};

#define FRAME		2048
#define FRAMES_MAX	256
#define RING		256
#define LEN		60
#define ETH_P_XSKB	0x88b5
/* the clock id of a PHC file descriptor (clock_gettime(2)) */
#define FD_TO_CLOCKID(fd)	((~(clockid_t)(fd) << 3) | 3)

static void usage(void)
{
	fprintf(stderr,
		"usage: xsk-txmeta -i IF [-q QUEUE] [-n FRAMES] [-N] [-P PHC] [-t SECONDS] [-1]\n"
		"  -n  frames to send, at most %d (default 16)\n"
		"  -N  ask for no timestamp (the metadata says nothing)\n"
		"  -P  the NIC's PTP clock, to check each stamp against\n"
		"  -t  how long to wait for the completions (default 5)\n"
		"  -1  one frame in flight: the next once the one before completed\n"
		"      (a NIC with one timestamp latch stamps one frame at a time)\n",
		FRAMES_MAX);
	exit(2);
}

static uint64_t phc_ns(int fd)
{
	struct timespec ts;

	if (clock_gettime(FD_TO_CLOCKID(fd), &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int fail(const char *what, int err)
{
	printf("summary sent=0 completed=0 stamped=0 zero=0 in_window=0 ordered=0 status=error errno=%s what=%s\n",
	       errname(err), what);
	return 1;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *phc = NULL;
	unsigned int queue = 0, frames = 16, i;
	unsigned int sent = 0, completed = 0, stamped = 0, zero = 0;
	unsigned int in_window = 0, ordered = 0;
	uint64_t stamps[FRAMES_MAX], t0 = 0, t1 = 0, prev = 0;
	bool want_stamp = true, one = false;
	double timeout = 5, end;
	struct xdp_mmap_offsets off;
	struct ring cq, fq, txr;
	struct sockaddr_xdp sa;
	struct umem_reg mr;
	struct xdp_options xo;
	int fd, phc_fd = -1, sz = RING, c;
	socklen_t len;
	uint8_t *area;

	while ((c = getopt(argc, argv, "i:q:n:NP:t:1h")) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 'q': queue = atoi(optarg); break;
		case 'n': frames = atoi(optarg); break;
		case 'N': want_stamp = false; break;
		case 'P': phc = optarg; break;
		case 't': timeout = atof(optarg); break;
		case '1': one = true; break;
		default: usage();
		}
	}
	if (!ifname || !frames || frames > FRAMES_MAX)
		usage();
	if (phc) {
		phc_fd = open(phc, O_RDONLY);
		if (phc_fd < 0)
			return fail("open PHC", errno);
	}

	area = mmap(NULL, (size_t)FRAMES_MAX * FRAME, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (area == MAP_FAILED)
		return fail("mmap UMEM", errno);
	memset(&mr, 0, sizeof(mr));
	mr.addr = (uintptr_t)area;
	mr.len = (uint64_t)FRAMES_MAX * FRAME;
	mr.chunk_size = FRAME;
	mr.flags = UMEM_TX_METADATA_LEN;
	mr.tx_metadata_len = sizeof(struct tx_meta);

	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0)
		return fail("socket", errno);
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)))
		return fail("XDP_UMEM_REG with tx_metadata_len", errno);
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &sz, sizeof(sz)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &sz, sizeof(sz)) ||
	    setsockopt(fd, SOL_XDP, XDP_TX_RING, &sz, sizeof(sz)))
		return fail("rings", errno);
	len = sizeof(off);
	if (getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &len))
		return fail("XDP_MMAP_OFFSETS", errno);
	errno = ring_map(fd, &fq, &off.fr, XDP_UMEM_PGOFF_FILL_RING,
			 sizeof(uint64_t), sz);
	if (!errno)
		errno = ring_map(fd, &cq, &off.cr, XDP_UMEM_PGOFF_COMPLETION_RING,
				 sizeof(uint64_t), sz);
	if (!errno)
		errno = ring_map(fd, &txr, &off.tx, XDP_PGOFF_TX_RING,
				 sizeof(struct xdp_desc), sz);
	if (errno)
		return fail("mmap rings", errno);

	memset(&sa, 0, sizeof(sa));
	sa.sxdp_family = AF_XDP;
	sa.sxdp_ifindex = if_nametoindex(ifname);
	sa.sxdp_queue_id = queue;
	sa.sxdp_flags = XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP;
	if (!sa.sxdp_ifindex)
		return fail("if_nametoindex", errno);
	/* A previous socket's pool goes away in a work item: EBUSY until then */
	end = now_s() + timeout;
	while (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (errno != EBUSY || now_s() > end)
			return fail("bind zero-copy", errno);
		usleep(2000);
	}
	len = sizeof(xo);
	if (getsockopt(fd, SOL_XDP, XDP_OPTIONS, &xo, &len) ||
	    !(xo.flags & XDP_OPTIONS_ZEROCOPY))
		return fail("XDP_OPTIONS: not zero-copy", EPROTO);

	if (phc_fd >= 0)
		t0 = phc_ns(phc_fd);
	end = now_s() + timeout;
	while (completed < frames && now_s() < end) {
		uint32_t n;

		if (sent < frames && prod_free(&txr) &&
		    (!one || completed == sent)) {
			/* frame i at chunk i, after its metadata */
			uint64_t chunk = (uint64_t)sent * FRAME;
			struct tx_meta *meta = (void *)(area + chunk);
			uint8_t *pkt = area + chunk + sizeof(*meta);
			struct xdp_desc *d = (struct xdp_desc *)txr.desc +
					     (*txr.producer & txr.mask);

			memset(meta, 0, sizeof(*meta));
			meta->flags = want_stamp ? TXMD_FLAGS_TIMESTAMP : 0;
			memset(pkt, 0xff, 6);
			memcpy(pkt + 6, "\x02\x00\x00\x00\x00\x01", 6);
			pkt[12] = ETH_P_XSKB >> 8;
			pkt[13] = ETH_P_XSKB & 0xff;
			memset(pkt + 14, sent & 0xff, LEN - 14);
			d->addr = chunk + sizeof(*meta);
			d->len = LEN;
			d->options = DESC_TX_METADATA;
			store_rel(txr.producer, *txr.producer + 1);
			sent++;
		}
		if (needs_wakeup(&txr))
			sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
		n = cons_ready(&cq);
		while (n--) {
			uint64_t addr = ((uint64_t *)cq.desc)[*cq.consumer & cq.mask];
			struct tx_meta *meta = (void *)(area + addr -
							 sizeof(struct tx_meta));

			store_rel(cq.consumer, *cq.consumer + 1);
			i = (addr - sizeof(struct tx_meta)) / FRAME;
			if (i >= frames)
				continue;
			stamps[completed++] = meta->completion.tx_timestamp;
		}
		if (sent == frames && completed < frames)
			usleep(1000);
	}
	if (phc_fd >= 0)
		t1 = phc_ns(phc_fd);

	for (i = 0; i < completed; i++) {
		uint64_t s = stamps[i];

		printf("stamp %u %" PRIu64 "\n", i, s);
		if (!s) {
			zero++;
			continue;
		}
		stamped++;
		if (phc_fd >= 0 && s >= t0 && s <= t1)
			in_window++;
		if (s > prev)
			ordered++;
		prev = s;
	}
	if (phc_fd >= 0)
		printf("phc %s %" PRIu64 " .. %" PRIu64 "\n", phc, t0, t1);
	printf("summary sent=%u completed=%u stamped=%u zero=%u in_window=%u ordered=%u status=%s errno=0\n",
	       sent, completed, stamped, zero, in_window, ordered,
	       completed == frames ? "ok" : "error");
	return completed == frames ? 0 : 1;
}
