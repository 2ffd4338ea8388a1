/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xsk-ring.h - an AF_XDP ring mapped from its socket, without libxdp:
 * for xsk-cycle and xsk-txmeta, which need what libxdp 1.3 does not do
 * (bind cycles with their own timing, UMEMs with TX metadata).
 */
#ifndef XSK_RING_H
#define XSK_RING_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

/* the socket family and level, for libcs that lack them */
#ifndef AF_XDP
#define AF_XDP		44
#endif
#ifndef SOL_XDP
#define SOL_XDP		283
#endif

struct ring {
	uint32_t *producer, *consumer, *flags;
	void *desc;
	uint32_t mask, size;
	void *map;
	size_t map_len;
};

static inline int ring_map(int fd, struct ring *r,
			   const struct xdp_ring_offset *off, uint64_t pgoff,
			   size_t desc_size, uint32_t size)
{
	r->map_len = off->desc + (size_t)size * desc_size;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, fd, (off_t)pgoff);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return errno;
	}
	r->producer = (uint32_t *)((char *)r->map + off->producer);
	r->consumer = (uint32_t *)((char *)r->map + off->consumer);
	r->flags = (uint32_t *)((char *)r->map + off->flags);
	r->desc = (char *)r->map + off->desc;
	r->size = size;
	r->mask = size - 1;
	return 0;
}

static inline void ring_unmap(struct ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

static inline uint32_t load_acq(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void store_rel(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Producer: free slots. Consumer: entries ready. */
static inline uint32_t prod_free(struct ring *r)
{
	return r->size - (*r->producer - load_acq(r->consumer));
}

static inline uint32_t cons_ready(struct ring *r)
{
	return load_acq(r->producer) - *r->consumer;
}

static inline bool needs_wakeup(struct ring *r)
{
	return __atomic_load_n(r->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP;
}

#endif /* XSK_RING_H */
