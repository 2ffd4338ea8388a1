// SPDX-License-Identifier: GPL-2.0-only
/*
 * xsk-cycle - AF_XDP zero-copy bind/unbind cycles, many per process.
 *
 * The lifecycle stress of tools/guest/stress.sh: xsk-bench pays a UMEM,
 * an XDP program and a link wait per bind, this pays one socket per
 * cycle. On raw AF_XDP system calls (no libxdp), libbpf for the program.
 *
 * Once: load an XDP program that redirects our EtherType (0x88b5, the
 * frames xsk-bench sends) to an XSKMAP, attach it in native mode, map
 * one UMEM area per queue. Then each cycle:
 *
 *   bind    a new socket in zero-copy on the cycle's queue (queue 0, and
 *           every --other-every'th cycle the next other queue), with
 *           need_wakeup on or off, and with busy polling or poll();
 *           EBUSY (the previous socket's pool not yet released, which
 *           the core does from a work item) is retried
 *   rx      on a queue the peer's traffic lands on: at least --rx-min
 *           frames, each one of ours (EtherType, magic, length)
 *   tx      --tx frames, every one back on the completion ring
 *   unbind  close the socket
 *
 * and every --event-every'th cycle one of these, in turn, while bound:
 *
 *   ifdown  the link down for -H seconds (3: QEMU holds the peer's
 *           frames for a NIC that cannot receive, and they wait for
 *           the ring at ifup) and up, then rx and tx again
 *   xdpoff  the XDP program removed, then tx (rx goes to the stack);
 *           the program is attached again after the unbind
 *   inflight  tx without waiting: unbind with frames in flight
 *   rxfull  rx without consuming: unbind with the RX ring full
 *
 * An event cycle takes its need_wakeup and poll mode in turn among the
 * cycles of its event, so that every event meets every mode.
 *
 * A check that times out (--timeout) counts as a failure and is printed;
 * the run goes on. Prints "ready", a progress line every 100 cycles, and
 * at the end a "summary key=value ..." line. Exits 0 when no check
 * failed, 1 otherwise, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xsk-ring.h"
#include "xsk-util.h"

#define ETH_P_XSKB	0x88b5
#define XSKB_MAGIC	0x58534b42u
#define HDR_OFF		14
#define TX_LEN		60
#define RING		512

struct opts {
	const char *ifname;
	unsigned int ifindex;
	unsigned long cycles;
	double duration;
	unsigned int tx;
	unsigned int rx_min;
	double timeout;
	unsigned int event_every;
	double down_secs;		/* ifdown: how long the link stays down */
	unsigned int other_every;
	unsigned int frame_size;
	unsigned int frames;
	unsigned int nqueues;
	uint32_t rx_queues;		/* bit mask: queues the traffic lands on */
	uint8_t dst[6];
	bool quiet;
	bool fill_late;			/* every other 4 cycles: fill after bind */
	const char *on_stall;		/* shell command run at an rx stall */
};

struct stats {
	unsigned long cycles, fails, bind_retries, bind_errors, not_zc;
	unsigned long rx_stalls, tx_lost_cycles, rx_cycles, tx_cycles;
	uint64_t rx, tx, completed, lost, corrupt, foreign;
	unsigned long ev_ifdown, ev_ifdown_resumed, ev_xdpoff, ev_inflight,
		      ev_rxfull;
	unsigned long per_mode[4], fill_late;
	double t_bind, t_rx, t_tx, t_close;	/* seconds, all cycles */
	unsigned long n_bind, n_rx, n_tx;
};

struct sock {
	int fd;
	uint32_t queue;
	bool need_wakeup, poll;
	struct ring fq, cq, rx, txr;
	uint64_t *free_tx;		/* TX frame addresses not in flight */
	unsigned int free_n;
	uint64_t outstanding;
	uint8_t *area;			/* its queue's UMEM area */
};

static struct opts o;
static struct stats st;
/* One UMEM area per queue: a socket on another queue may bind while the
 * last one's pool, released by the core from a work item, still has its
 * area DMA-mapped. Two mappings of the same pages at once are legal, but
 * the DMA API's debugging cannot tell them apart (it finds two entries
 * for a sync and reports memory that was never mapped), so the stress
 * would trip it on every cycle that changes queue.
 */
static uint8_t **areas;
static int map_fd = -1, prog_fd = -1;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* --- the XDP program (as xsk-bench's) ------------------------------------ */

#define INSN(c, d, s, off_, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (off_), .imm = (i) })

static int prog_redirect(int mfd)
{
	struct bpf_insn p[] = {
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 0, 0),
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1, 4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, 14),
		INSN(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, 8, 0),
		INSN(BPF_LDX | BPF_H | BPF_MEM, BPF_REG_4, BPF_REG_2, 12, 0),
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 6, htons(ETH_P_XSKB)),
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 16, 0),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, mfd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, XDP_PASS),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "xskc_redirect", "GPL", p,
			     sizeof(p) / sizeof(p[0]), NULL);
}

static int prog_attach(void)
{
	int err = bpf_xdp_attach(o.ifindex, prog_fd, XDP_FLAGS_DRV_MODE, NULL);

	return err < 0 ? -err : 0;
}

static int prog_detach(void)
{
	int err = bpf_xdp_detach(o.ifindex, XDP_FLAGS_DRV_MODE, NULL);

	return err < 0 ? -err : 0;
}

/* --- link ---------------------------------------------------------------- */

static bool link_up(void)
{
	char path[256], state[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", o.ifname);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(state, sizeof(state), f))
		state[0] = 0;
	fclose(f);
	return !strncmp(state, "up", 2);
}

static bool wait_link(double secs)
{
	double end = now_s() + secs;

	while (now_s() < end) {
		if (link_up())
			return true;
		usleep(20000);
	}
	return false;
}

static int set_updown(bool up)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), err = 0;

	if (fd < 0)
		return errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o.ifname);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		err = errno;
	} else {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			err = errno;
	}
	close(fd);
	return err;
}

/* The link down, held down, and up: 0 or an errno. */
static int ifdown_up(void)
{
	int err = set_updown(false);

	if (err)
		return err;
	usleep(o.down_secs * 1e6);
	return set_updown(true);
}

/* --- sockets ------------------------------------------------------------- */

static void sock_close(struct sock *s)
{
	ring_unmap(&s->fq);
	ring_unmap(&s->cq);
	ring_unmap(&s->rx);
	ring_unmap(&s->txr);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->free_tx);
	s->free_tx = NULL;
}

/* One socket, bound in zero-copy: 0, or an errno (s closed). */
static void kick_rx(struct sock *s)
{
	recvfrom(s->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

static void fq_fill(struct sock *s, unsigned int n_rx)
{
	unsigned int fill;

	for (fill = 0; fill < n_rx; fill++)
		((uint64_t *)s->fq.desc)[fill & s->fq.mask] =
			(uint64_t)fill * o.frame_size;
	store_rel(s->fq.producer, *s->fq.producer + n_rx);
}

/* fill_late: the fill ring gets its frames after the bind, as xdpsock
 * and libxdp's users do, instead of before it.
 */
static int sock_open(struct sock *s, uint32_t queue, bool need_wakeup, bool do_poll,
		     bool fill_late)
{
	struct xdp_umem_reg mr = {
		.addr = (uintptr_t)areas[queue],
		.len = (uint64_t)o.frames * o.frame_size,
		.chunk_size = o.frame_size,
	};
	struct sockaddr_xdp sa = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = o.ifindex,
		.sxdp_queue_id = queue,
		.sxdp_flags = XDP_ZEROCOPY | (need_wakeup ? XDP_USE_NEED_WAKEUP : 0),
	};
	struct xdp_mmap_offsets off;
	struct xdp_options xo;
	socklen_t len;
	unsigned int i, n_rx;
	int sz = RING, fsz = 2 * RING, err, tries;
	double end;

	memset(s, 0, sizeof(*s));
	s->queue = queue;
	s->area = areas[queue];
	s->need_wakeup = need_wakeup;
	s->poll = do_poll;
	s->fd = socket(AF_XDP, SOCK_RAW, 0);
	if (s->fd < 0)
		return errno;
	if (setsockopt(s->fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) ||
	    setsockopt(s->fd, SOL_XDP, XDP_UMEM_FILL_RING, &fsz, sizeof(fsz)) ||
	    setsockopt(s->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &sz, sizeof(sz)) ||
	    setsockopt(s->fd, SOL_XDP, XDP_RX_RING, &sz, sizeof(sz)) ||
	    setsockopt(s->fd, SOL_XDP, XDP_TX_RING, &sz, sizeof(sz)))
		goto err;
	len = sizeof(off);
	if (getsockopt(s->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &len))
		goto err;
	err = ring_map(s->fd, &s->fq, &off.fr, XDP_UMEM_PGOFF_FILL_RING,
		       sizeof(uint64_t), fsz);
	if (!err)
		err = ring_map(s->fd, &s->cq, &off.cr, XDP_UMEM_PGOFF_COMPLETION_RING,
			       sizeof(uint64_t), sz);
	if (!err)
		err = ring_map(s->fd, &s->rx, &off.rx, XDP_PGOFF_RX_RING,
			       sizeof(struct xdp_desc), sz);
	if (!err)
		err = ring_map(s->fd, &s->txr, &off.tx, XDP_PGOFF_TX_RING,
			       sizeof(struct xdp_desc), sz);
	if (err) {
		errno = err;
		goto err;
	}

	/* The UMEM: the first half to the fill ring, the rest for TX. */
	n_rx = o.frames / 2;
	if (n_rx > (unsigned int)fsz)
		n_rx = fsz;
	if (!fill_late)
		fq_fill(s, n_rx);
	s->free_tx = calloc(o.frames - n_rx, sizeof(*s->free_tx));
	if (!s->free_tx) {
		errno = ENOMEM;
		goto err;
	}
	for (i = n_rx; i < o.frames; i++)
		s->free_tx[s->free_n++] = (uint64_t)i * o.frame_size;

	/* The previous socket's pool goes away in a work item: EBUSY. */
	end = now_s() + o.timeout;
	for (tries = 0;; tries++) {
		if (!bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		if (errno != EBUSY || now_s() > end || stop)
			goto err;
		st.bind_retries++;
		usleep(2000);
	}
	len = sizeof(xo);
	if (getsockopt(s->fd, SOL_XDP, XDP_OPTIONS, &xo, &len) ||
	    !(xo.flags & XDP_OPTIONS_ZEROCOPY)) {
		st.not_zc++;
		errno = EPROTO;
		goto err;
	}
	if (fill_late) {
		fq_fill(s, n_rx);
		if (need_wakeup && needs_wakeup(&s->fq))
			kick_rx(s);
	}
	if (bpf_map_update_elem(map_fd, &queue, &s->fd, 0))
		goto err;
	return 0;
err:
	err = errno;
	sock_close(s);
	return err;
}

static void kick_tx(struct sock *s)
{
	sendto(s->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
}

/* One wait step: poll() in poll mode (100 ms), else a busy loop's turn. */
static void wait_step(struct sock *s, short events)
{
	struct pollfd pfd = { .fd = s->fd, .events = events };

	if (s->poll)
		poll(&pfd, 1, 100);
}

static void check_rx_frame(const uint8_t *f, uint32_t len)
{
	uint16_t type;
	uint32_t magic;
	uint16_t hlen;

	if (len < HDR_OFF + 24) {
		st.corrupt++;
		return;
	}
	memcpy(&type, f + 12, 2);
	if (type != htons(ETH_P_XSKB)) {
		st.foreign++;
		return;
	}
	memcpy(&magic, f + HDR_OFF, 4);
	memcpy(&hlen, f + HDR_OFF + 16, 2);
	if (magic != XSKB_MAGIC || hlen != len)
		st.corrupt++;
}

/* Takes what the RX ring has, gives it back to the fill ring. */
static unsigned int rx_take(struct sock *s)
{
	uint32_t n = cons_ready(&s->rx), i, c = *s->rx.consumer, p;

	if (!n) {
		if (!s->need_wakeup || needs_wakeup(&s->fq))
			kick_rx(s);
		return 0;
	}
	if (prod_free(&s->fq) < n)
		n = prod_free(&s->fq);
	p = *s->fq.producer;
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			&((struct xdp_desc *)s->rx.desc)[(c + i) & s->rx.mask];
		uint64_t a = d->addr - d->addr % o.frame_size;

		check_rx_frame(s->area + d->addr, d->len);
		((uint64_t *)s->fq.desc)[(p + i) & s->fq.mask] = a;
	}
	store_rel(s->rx.consumer, c + n);
	store_rel(s->fq.producer, p + n);
	st.rx += n;
	return n;
}

/* At least want frames within the timeout. */
static bool rx_check(struct sock *s, unsigned int want)
{
	double end = now_s() + o.timeout;
	unsigned int got = 0;

	while (got < want && !stop) {
		got += rx_take(s);
		if (got >= want || now_s() > end)
			break;
		wait_step(s, POLLIN);
	}
	return got >= want;
}

static void cq_take(struct sock *s)
{
	uint32_t n = cons_ready(&s->cq), i, c = *s->cq.consumer;

	for (i = 0; i < n; i++)
		s->free_tx[s->free_n++] = ((uint64_t *)s->cq.desc)[(c + i) & s->cq.mask];
	store_rel(s->cq.consumer, c + n);
	s->outstanding -= n;
	st.completed += n;
}

static void tx_submit(struct sock *s, unsigned int n, unsigned long cycle)
{
	uint32_t p = *s->txr.producer, i;

	if (n > s->free_n)
		n = s->free_n;
	if (n > prod_free(&s->txr))
		n = prod_free(&s->txr);
	for (i = 0; i < n; i++) {
		struct xdp_desc *d = &((struct xdp_desc *)s->txr.desc)[(p + i) & s->txr.mask];
		uint64_t a = s->free_tx[--s->free_n];
		uint8_t *f = s->area + a;
		uint16_t type = htons(ETH_P_XSKB);

		memcpy(f, o.dst, 6);
		memset(f + 6, 0x02, 6);
		memcpy(f + 12, &type, 2);
		memset(f + 14, 0, TX_LEN - 14);
		memcpy(f + 14, &cycle, sizeof(cycle));
		d->addr = a;
		d->len = TX_LEN;
		d->options = 0;
	}
	store_rel(s->txr.producer, p + n);
	s->outstanding += n;
	st.tx += n;
	if (!s->need_wakeup || needs_wakeup(&s->txr))
		kick_tx(s);
}

/* Sends n frames; every one must come back on the completion ring. */
static bool tx_check(struct sock *s, unsigned int n, unsigned long cycle)
{
	double end = now_s() + o.timeout;

	tx_submit(s, n, cycle);
	while (s->outstanding && !stop) {
		cq_take(s);
		if (!s->outstanding || now_s() > end)
			break;
		if (!s->need_wakeup || needs_wakeup(&s->txr))
			kick_tx(s);
		wait_step(s, POLLOUT);
	}
	if (s->outstanding) {
		st.lost += s->outstanding;
		return false;
	}
	return true;
}

/* --- the cycles ---------------------------------------------------------- */

static const char *const mode_names[] = {
	"wakeup", "wakeup+poll", "nowakeup", "nowakeup+poll",
};

static void fail(unsigned long k, struct sock *s, const char *what, const char *detail)
{
	st.fails++;
	if (st.fails <= 50)
		printf("fail cycle=%lu queue=%u mode=%s: %s%s%s\n", k, s->queue,
		       mode_names[(s->need_wakeup ? 0 : 2) + (s->poll ? 1 : 0)],
		       what, detail ? ": " : "", detail ? detail : "");
}

static bool traffic_on(uint32_t q)
{
	return q < 32 && (o.rx_queues & (1u << q));
}

/* An rx stall, while the socket is still bound: what the rings and the
 * socket's counters show, then the -F command (stress.sh's dumps the
 * NIC's counters and registers and raises the queue's interrupt by
 * hand) and the check again: frames that come after it were waiting
 * for an interrupt that never came. The first three stalls only.
 */
static void stall_report(unsigned long k, struct sock *s)
{
	struct xdp_statistics xs = { 0 };
	socklen_t len = sizeof(xs);
	char env[64];

	if (st.rx_stalls > 3)
		return;
	getsockopt(s->fd, SOL_XDP, XDP_STATISTICS, &xs, &len);
	printf("stall cycle=%lu queue=%u fq prod=%u cons=%u need_wakeup=%d rx prod=%u cons=%u"
	       " xsk rx_dropped=%llu rx_ring_full=%llu fill_empty=%llu\n",
	       k, s->queue, *s->fq.producer, *s->fq.consumer,
	       needs_wakeup(&s->fq), *s->rx.producer, *s->rx.consumer,
	       (unsigned long long)xs.rx_dropped,
	       (unsigned long long)xs.rx_ring_full,
	       (unsigned long long)xs.rx_fill_ring_empty_descs);
	if (!o.on_stall)
		return;
	snprintf(env, sizeof(env), "%lu", k);
	setenv("XSK_CYCLE_STALL", env, 1);
	if (system(o.on_stall))
		printf("stall cycle=%lu: -F command failed\n", k);
	printf("stall cycle=%lu: after -F: %s\n", k,
	       rx_check(s, o.rx_min) ? "rx resumed" : "still stalled");
}

/* The rx and tx checks of a bound socket. */
static void checks(unsigned long k, struct sock *s, bool want_rx, const char *when)
{
	char buf[128];
	uint64_t before;

	double t = now_s();

	if (want_rx && traffic_on(s->queue)) {
		st.rx_cycles++;
		t = now_s();
		if (!rx_check(s, o.rx_min)) {
			st.rx_stalls++;
			snprintf(buf, sizeof(buf), "%s fewer than %u frames in %.0f s",
				 when, o.rx_min, o.timeout);
			fail(k, s, "rx stall", buf);
			stall_report(k, s);
		}
		st.t_rx += now_s() - t;
		st.n_rx++;
	}
	if (o.tx) {
		st.tx_cycles++;
		before = st.lost;
		t = now_s();
		if (!tx_check(s, o.tx, k)) {
			st.tx_lost_cycles++;
			snprintf(buf, sizeof(buf), "%s %" PRIu64 " of %u not completed in %.0f s",
				 when, st.lost - before, o.tx, o.timeout);
			fail(k, s, "lost completions", buf);
		}
		st.t_tx += now_s() - t;
		st.n_tx++;
	}
}

static void cycle(unsigned long k)
{
	unsigned int mode = k % 4, ev = 0;
	bool nw, pl, late = o.fill_late && (k / 4) % 2;
	double t;
	uint32_t q = 0;
	struct sock s;
	int err;

	if (o.nqueues > 1 && o.other_every && k % o.other_every == o.other_every - 1)
		q = 1 + (k / o.other_every) % (o.nqueues - 1);
	if (o.event_every && k % o.event_every == o.event_every - 1) {
		ev = 1 + (k / o.event_every) % 4;
		mode = (k / o.event_every / 4) % 4;
	}
	nw = mode < 2;
	pl = mode & 1;
	st.per_mode[mode]++;
	if (late)
		st.fill_late++;

	t = now_s();
	err = sock_open(&s, q, nw, pl, late);
	st.t_bind += now_s() - t;
	st.n_bind++;
	if (err) {
		st.bind_errors++;
		st.fails++;
		if (st.fails <= 50)
			printf("fail cycle=%lu queue=%u mode=%s: bind: %s\n", k, q,
			       mode_names[mode], errname(err));
		return;
	}

	switch (ev) {
	case 0:
		checks(k, &s, true, "");
		break;
	case 1:		/* ifdown/ifup while bound */
		st.ev_ifdown++;
		checks(k, &s, true, "before ifdown:");
		err = ifdown_up();
		if (err) {
			fail(k, &s, "ifdown/ifup", errname(err));
			break;
		}
		if (!wait_link(10)) {
			fail(k, &s, "ifdown/ifup", "link not up in 10 s");
			break;
		}
		{
			unsigned long stalls = st.rx_stalls;

			checks(k, &s, true, "after ifup:");
			if (stalls == st.rx_stalls && traffic_on(q))
				st.ev_ifdown_resumed++;
		}
		break;
	case 2:		/* XDP program removal while bound */
		st.ev_xdpoff++;
		checks(k, &s, true, "before xdp off:");
		if ((err = prog_detach())) {
			fail(k, &s, "xdp off", errname(err));
			break;
		}
		if (!wait_link(10))
			fail(k, &s, "xdp off", "link not up in 10 s");
		else
			checks(k, &s, false, "xdp off:");
		break;
	case 3:		/* unbind with TX in flight */
		st.ev_inflight++;
		tx_submit(&s, o.tx, k);
		break;
	case 4:		/* unbind with a full RX ring */
		st.ev_rxfull++;
		if (traffic_on(q))
			usleep(200000);
		break;
	}
	t = now_s();
	sock_close(&s);
	st.t_close += now_s() - t;

	if (ev == 2) {
		if ((err = prog_attach()))
			printf("error: cycle=%lu: XDP attach: %s\n", k, errname(err));
		if (!wait_link(10))
			printf("error: cycle=%lu: link not up 10 s after XDP attach\n", k);
	}
}

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
"usage: xsk-cycle -i IFACE [options]\n"
"  -i IFACE    interface (zero-copy)\n"
"  -c N        cycles (1000)\n"
"  -d S        stop after S seconds even if fewer cycles (0: no limit)\n"
"  -t N        TX frames per check, all must complete (64; 0: no TX)\n"
"  -r N        RX frames per check on a queue with traffic (16)\n"
"  -R MASK     queues the peer's traffic lands on (0x1)\n"
"  -T S        timeout of a check and of a bind's EBUSY retries (5)\n"
"  -e N        an event every N cycles (25; 0: none)\n"
"  -H S        ifdown: the link stays down S seconds (3)\n"
"  -o N        another queue than 0 every N cycles (7; 0: only queue 0)\n"
"  -q N        queues to use (all the netdev's RX queues)\n"
"  -D MAC      TX destination (02:00:00:00:00:01)\n"
"  -f N        UMEM frame size (4096)\n"
"  -n N        UMEM frames (512)\n"
"  -L          half the cycles (4 in turn) fill the fill ring after the\n"
"              bind, as xdpsock does, the others before it\n"
"  -Q          no progress lines\n"
"  -F CMD      run CMD (sh -c, XSK_CYCLE_STALL=cycle) at each of the\n"
"              first three rx stalls, while the socket is still bound\n");
	exit(rc);
}

static unsigned int count_queues(void)
{
	char path[256];
	unsigned int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%u",
			 o.ifname, n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

static void progress(double t0)
{
	double dt = now_s() - t0;

	printf("cycles=%lu t=%.0fs cycles_per_s=%.2f rx=%" PRIu64 " tx=%" PRIu64
	       " completed=%" PRIu64 " lost=%" PRIu64 " fails=%lu\n", st.cycles,
	       dt, dt > 0 ? st.cycles / dt : 0, st.rx, st.tx, st.completed,
	       st.lost, st.fails);
}

int main(int argc, char **argv)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned int m[6], i;
	double t0, dt;
	int c, err;

	o.cycles = 1000;
	o.tx = 64;
	o.rx_min = 16;
	o.rx_queues = 1;
	o.timeout = 5;
	o.event_every = 25;
	o.down_secs = 3;
	o.other_every = 7;
	o.frame_size = 4096;
	o.frames = 512;
	memcpy(o.dst, "\x02\x00\x00\x00\x00\x01", 6);

	while ((c = getopt(argc, argv, "i:c:d:t:r:R:T:e:H:o:q:D:f:n:F:LQh")) != -1) {
		switch (c) {
		case 'i': o.ifname = optarg; break;
		case 'c': o.cycles = strtoul(optarg, NULL, 0); break;
		case 'd': o.duration = strtod(optarg, NULL); break;
		case 't': o.tx = strtoul(optarg, NULL, 0); break;
		case 'r': o.rx_min = strtoul(optarg, NULL, 0); break;
		case 'R': o.rx_queues = strtoul(optarg, NULL, 0); break;
		case 'T': o.timeout = strtod(optarg, NULL); break;
		case 'e': o.event_every = strtoul(optarg, NULL, 0); break;
		case 'H': o.down_secs = strtod(optarg, NULL); break;
		case 'o': o.other_every = strtoul(optarg, NULL, 0); break;
		case 'q': o.nqueues = strtoul(optarg, NULL, 0); break;
		case 'D':
			if (sscanf(optarg, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2],
				   &m[3], &m[4], &m[5]) != 6)
				usage(2);
			for (i = 0; i < 6; i++)
				o.dst[i] = (uint8_t)m[i];
			break;
		case 'f': o.frame_size = strtoul(optarg, NULL, 0); break;
		case 'n': o.frames = strtoul(optarg, NULL, 0); break;
		case 'Q': o.quiet = true; break;
		case 'L': o.fill_late = true; break;
		case 'F': o.on_stall = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!o.ifname || optind != argc || !o.frames || o.tx > RING ||
	    (o.frame_size != 2048 && o.frame_size != 4096))
		usage(2);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setrlimit(RLIMIT_MEMLOCK, &rl);

	o.ifindex = if_nametoindex(o.ifname);
	if (!o.ifindex) {
		fprintf(stderr, "error: no interface %s\n", o.ifname);
		return 2;
	}
	if (!o.nqueues)
		o.nqueues = count_queues();
	if (!o.nqueues)
		o.nqueues = 1;
	areas = calloc(o.nqueues, sizeof(*areas));
	for (i = 0; areas && i < o.nqueues; i++) {
		areas[i] = mmap(NULL, (size_t)o.frames * o.frame_size,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (areas[i] == MAP_FAILED)
			break;
	}
	map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "xskc_xsks", 4, 4, 64, NULL);
	if (!areas || i < o.nqueues || map_fd < 0 || (prog_fd = prog_redirect(map_fd)) < 0) {
		fprintf(stderr, "error: UMEM, map or program: %s\n", errname(errno));
		return 2;
	}
	err = prog_attach();
	if (err) {
		fprintf(stderr, "error: attach XDP to %s: %s\n", o.ifname, errname(err));
		return 2;
	}
	if (!wait_link(10))
		fprintf(stderr, "warning: %s: link not up 10 s after XDP attach\n",
			o.ifname);
	printf("ready queues=%u cycles=%lu tx=%u rx_min=%u event_every=%u\n",
	       o.nqueues, o.cycles, o.tx, o.rx_min, o.event_every);

	t0 = now_s();
	while (!stop && st.cycles < o.cycles &&
	       (o.duration <= 0 || now_s() - t0 < o.duration)) {
		cycle(st.cycles);
		st.cycles++;
		if (!o.quiet && st.cycles % 100 == 0)
			progress(t0);
	}
	dt = now_s() - t0;
	prog_detach();

	printf("summary status=%s cycles=%lu seconds=%.1f cycles_per_s=%.2f"
	       " queues=%u rx=%" PRIu64 " tx=%" PRIu64 " tx_completed=%" PRIu64
	       " lost_completions=%" PRIu64 " fails=%lu rx_stalls=%lu"
	       " tx_lost_cycles=%lu bind_errors=%lu bind_busy_retries=%lu"
	       " not_zc=%lu corrupt=%" PRIu64 " foreign=%" PRIu64
	       " rx_checks=%lu tx_checks=%lu ifdown=%lu ifdown_rx_resumed=%lu"
	       " xdp_off=%lu unbind_tx_inflight=%lu unbind_rx_full=%lu"
	       " wakeup=%lu wakeup_poll=%lu nowakeup=%lu nowakeup_poll=%lu"
	       " fill_late=%lu ms_bind=%.1f ms_rx=%.1f ms_tx=%.1f ms_close=%.1f\n",
	       st.fails || st.corrupt ? "fail" : "ok", st.cycles, dt,
	       dt > 0 ? st.cycles / dt : 0, o.nqueues, st.rx, st.tx, st.completed,
	       st.lost, st.fails, st.rx_stalls, st.tx_lost_cycles, st.bind_errors,
	       st.bind_retries, st.not_zc, st.corrupt, st.foreign, st.rx_cycles,
	       st.tx_cycles, st.ev_ifdown, st.ev_ifdown_resumed, st.ev_xdpoff,
	       st.ev_inflight, st.ev_rxfull, st.per_mode[0], st.per_mode[1],
	       st.per_mode[2], st.per_mode[3], st.fill_late,
	       st.n_bind ? 1e3 * st.t_bind / st.n_bind : 0,
	       st.n_rx ? 1e3 * st.t_rx / st.n_rx : 0,
	       st.n_tx ? 1e3 * st.t_tx / st.n_tx : 0,
	       st.n_bind ? 1e3 * st.t_close / st.n_bind : 0);
	return st.fails || st.corrupt ? 1 : 0;
}
