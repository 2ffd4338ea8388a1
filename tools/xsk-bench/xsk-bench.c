// SPDX-License-Identifier: GPL-2.0-only
/*
 * xsk-bench - AF_XDP benchmark and end-to-end checker.
 *
 * An xdpsock-style tool on libxdp's xsk API and libbpf. It loads its own
 * XDP programs, built from raw BPF instructions (no clang, no kernel BTF):
 *
 *   redirect  frames of EtherType 0x88b5 (ours) to the queue's socket in
 *             an XSKMAP, everything else (and any queue without a
 *             socket) to the stack;
 *   drop      count every frame in a per-CPU array, then XDP_DROP: the
 *             native ceiling of the driver;
 *   xdp-tx    (l2fwd --xdp-tx) swap the MAC addresses of our frames and
 *             send them back with XDP_TX, the rest to the stack: the
 *             socket only puts the queue in its mode and sees nothing.
 *
 * Frames carry a header after the Ethernet header: magic, stream id,
 * sequence number, length and a checksum over everything after the
 * Ethernet header. Receivers count lost, duplicated, corrupted and
 * foreign frames; senders count TX completions.
 *
 * With --multi-buffer (XDP_USE_SG, programs with fragments) a frame may
 * be longer than a UMEM frame: a sender writes it over consecutive UMEM
 * frames and sends it as a chain of descriptors (XDP_PKT_CONTD on all
 * but the last); a receiver gathers a chain into one buffer to check it.
 * Frames are counted as frames, not descriptors.
 *
 * Benchmarks:
 *   rxdrop  receive, check, recycle to the fill ring
 *   txonly  send a stream; with --return also receive it back (through
 *           an l2fwd on the peer) and check it end to end
 *   l2fwd   receive, swap the MAC addresses, send back
 *   drop    native XDP_DROP program, counted in a BPF map
 *
 * Output: "ready" once the socket is bound, one line per interval, and a
 * final machine-parsable "summary ..." line (also on failure, with
 * status= and errno=).
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
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "xsk-util.h"

#define ETH_P_XSKB	0x88b5		/* IEEE local experimental EtherType */
#define XSKB_MAGIC	0x58534b42u	/* "XSKB" */
#define ETH_HLEN_	14
#define FCS_LEN		4

/* linux/if_xdp.h of 6.6, newer than the build host's (Debian 12: 6.1) */
#ifndef XDP_USE_SG
#define XDP_USE_SG	(1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD	(1 << 0)
#endif

/* --multi-buffer: the most UMEM frames a frame of ours spans (the
 * kernel's copy path takes up to MAX_SKB_FRAGS + 1, 18; no NIC here
 * more than 8), and the longest frame, as struct xskb_hdr's len is 16
 * bits.
 */
#define MB_MAX_SEGS	16
#define MB_MAX_LEN	65535

struct xskb_hdr {
	uint32_t magic;
	uint32_t stream;
	uint64_t seq;
	uint16_t len;		/* frame length without FCS */
	uint16_t pad;
	uint32_t csum;
} __attribute__((packed));

#define HDR_OFF		ETH_HLEN_
#define PAYLOAD_OFF	(HDR_OFF + (int)sizeof(struct xskb_hdr))

enum bench { B_RXDROP, B_TXONLY, B_L2FWD, B_DROP };
enum mode { M_SKB, M_COPY, M_ZC };

static const char *const bench_names[] = { "rxdrop", "txonly", "l2fwd", "drop" };
static const char *const mode_names[] = { "skb", "copy", "zc" };

struct opts {
	enum bench bench;
	enum mode mode;
	const char *ifname;
	unsigned int ifindex;
	uint32_t queue;
	unsigned int size;		/* on the wire, with FCS */
	unsigned int batch;
	bool need_wakeup;
	bool poll;
	double duration;
	double interval;
	uint64_t rate;
	uint64_t count;
	bool ret;			/* txonly: receive the stream back */
	unsigned int frame_size;
	unsigned int num_frames;
	unsigned int ring_size;
	bool verify;
	bool no_prog;
	bool xdp_tx;			/* l2fwd: forward in the program */
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t stream;
	bool have_stream;
	double idle_exit;
	double drain;
	bool quiet;
	const char *go_file;		/* wait for it before any traffic */
	double swap_after;		/* replace the XDP program then */
	bool mb;			/* frames may span UMEM frames */
	const char *insn_path;		/* --insn: the TCG plugin's counts */
	int insn_cpu;			/* of this vCPU only; -1: all */
};

struct checker {
	bool locked;
	uint32_t stream;
	uint8_t *seen;
	uint64_t seen_bits;
	uint64_t unique, dup, corrupt, foreign, max_seq;
};

struct ctx {
	struct opts *o;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, txr;
	struct xsk_ring_cons cq, rxr;
	void *area;
	int fd;
	uint64_t *tx_free;		/* stack of free TX frame addresses */
	unsigned int tx_free_n;
	uint32_t *phash;		/* payload hash per frame index */
	struct checker ck;
	/* rx, tx, completed: frames; outstanding: TX descriptors */
	uint64_t rx, tx, completed, outstanding, seq;
	uint64_t kick_errors;
	int kick_errno;
	uint64_t kick_benign;		/* kicks refused with a benign errno */
	int kick_benign_errno;
	int map_fd, prog_fd;		/* the XDP program attached, if any */
	bool swapped;
	double t_first_rx, t_last_rx, t_first_tx, t_last_tx;
	unsigned int frame_len;		/* without FCS */
	double drop_pps;
	/* --multi-buffer */
	unsigned int segs;		/* UMEM frames per TX frame */
	uint8_t *tx_eop;		/* per TX descriptor in flight: ends a frame */
	uint32_t tx_eop_mask;
	uint64_t tx_put, tx_done;	/* TX descriptors submitted, completed */
	uint8_t *rx_frame;		/* the frame being received, gathered */
	unsigned int rx_len;		/* its bytes so far */
	bool rx_mid;			/* its first descriptor is in */
};

static volatile sig_atomic_t stop_flag;

/* The first signal ends the run (with the drain), a second one at once. */
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = stop_flag + 1;
}

/* --- frame format ---------------------------------------------------- */

static uint32_t fnv_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hdr_mix(uint32_t stream, uint64_t seq, uint16_t len)
{
	uint64_t z = seq + ((uint64_t)stream << 32) + len + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint32_t)(z ^ (z >> 32));
}

/* Ethernet header and a payload pattern that depends on the frame slot. */
static uint32_t frame_prefill(uint8_t *f, unsigned int len, const struct opts *o,
			      unsigned int slot)
{
	uint16_t type = htons(ETH_P_XSKB);
	unsigned int i;

	memcpy(f, o->dst_mac, 6);
	memcpy(f + 6, o->src_mac, 6);
	memcpy(f + 12, &type, 2);
	memset(f + HDR_OFF, 0, sizeof(struct xskb_hdr));
	for (i = PAYLOAD_OFF; i < len; i++)
		f[i] = (uint8_t)(i * 7 + slot * 13 + o->stream);
	return fnv_hash(f + PAYLOAD_OFF, len - PAYLOAD_OFF);
}

static void frame_stamp(uint8_t *f, unsigned int len, uint32_t stream,
			uint64_t seq, uint32_t phash)
{
	struct xskb_hdr h = {
		.magic = XSKB_MAGIC,
		.stream = stream,
		.seq = seq,
		.len = (uint16_t)len,
	};

	h.csum = phash ^ hdr_mix(stream, seq, (uint16_t)len);
	memcpy(f + HDR_OFF, &h, sizeof(h));
}

static int checker_mark(struct checker *ck, uint64_t seq)
{
	uint64_t need;

	if (seq >= ck->seen_bits) {
		need = ck->seen_bits ? ck->seen_bits : 1 << 20;
		while (need <= seq)
			need *= 2;
		if (need > (1ull << 32))
			return -1;
		ck->seen = realloc(ck->seen, need / 8);
		if (!ck->seen) {
			fprintf(stderr, "error: out of memory\n");
			exit(1);
		}
		memset(ck->seen + ck->seen_bits / 8, 0, (need - ck->seen_bits) / 8);
		ck->seen_bits = need;
	}
	if (ck->seen[seq / 8] & (1u << (seq % 8)))
		return 1;
	ck->seen[seq / 8] |= 1u << (seq % 8);
	return 0;
}

/* Checks one received frame and counts it. */
static void check_frame(struct checker *ck, const uint8_t *f, unsigned int len,
			bool verify)
{
	struct xskb_hdr h;
	uint16_t type;
	uint32_t want;
	int r;

	if (len < ETH_HLEN_) {
		ck->corrupt++;
		return;
	}
	memcpy(&type, f + 12, 2);
	if (type != htons(ETH_P_XSKB)) {
		ck->foreign++;
		return;
	}
	if (len < PAYLOAD_OFF) {
		ck->corrupt++;
		return;
	}
	memcpy(&h, f + HDR_OFF, sizeof(h));
	if (h.magic != XSKB_MAGIC || h.len != len) {
		ck->corrupt++;
		return;
	}
	if (verify) {
		want = fnv_hash(f + PAYLOAD_OFF, len - PAYLOAD_OFF) ^
		       hdr_mix(h.stream, h.seq, h.len);
		if (want != h.csum) {
			ck->corrupt++;
			return;
		}
	}
	if (!ck->locked) {
		ck->locked = true;
		ck->stream = h.stream;
	} else if (h.stream != ck->stream) {
		ck->foreign++;
		return;
	}
	r = checker_mark(ck, h.seq);
	if (r < 0) {
		ck->foreign++;
		return;
	}
	if (r) {
		ck->dup++;
		return;
	}
	ck->unique++;
	if (h.seq > ck->max_seq || ck->unique == 1)
		ck->max_seq = h.seq;
}

/* Holes below the highest sequence number seen. */
static uint64_t checker_holes(const struct checker *ck)
{
	return ck->unique ? ck->max_seq + 1 - ck->unique : 0;
}

static bool rx_take(struct ctx *c, const struct xdp_desc *d);

/*
 * --multi-buffer's gathering (rx_take()) against a frame of 8996 bytes
 * over three descriptors, as a zero-copy RX with 4 KiB UMEM frames gives
 * it (256 bytes of headroom, the pieces anywhere in the UMEM): whole,
 * with its middle descriptor lost, and with a byte of its last piece
 * flipped. Returns the number of failures.
 */
static unsigned int selftest_mb(void)
{
	struct opts o = { .stream = 78, .dst_mac = { 2, 0, 0, 0, 0, 1 },
			  .src_mac = { 2, 0, 0, 0, 0, 2 }, .frame_size = 4096,
			  .verify = true, .mb = true };
	static const unsigned int len = 8996, piece = 4096 - 256;
	struct ctx c = { .o = &o };
	struct xdp_desc d[3];
	unsigned int i, j, frames = 0, bad = 0;
	uint8_t *f = malloc(len);
	uint32_t ph;

	c.area = calloc(3, 4096);
	c.rx_frame = malloc(MB_MAX_LEN + 1);
	if (!f || !c.area || !c.rx_frame) {
		printf("selftest: out of memory\n");
		return 1;
	}
	ph = frame_prefill(f, len, &o, 5);
	for (i = 0; i < 4; i++) {
		frame_stamp(f, len, o.stream, i, ph);
		for (j = 0; j < 3; j++) {
			/* piece j in UMEM frame 2 - j */
			d[j].addr = (2 - j) * 4096 + 256;
			d[j].len = j < 2 ? piece : len - 2 * piece;
			d[j].options = j < 2 ? XDP_PKT_CONTD : 0;
			memcpy((uint8_t *)c.area + d[j].addr, f + j * piece,
			       d[j].len);
		}
		if (i == 3)
			((uint8_t *)c.area)[d[2].addr + 7] ^= 1;
		for (j = 0; j < 3; j++) {
			if (i == 1 && j == 1)
				continue;
			if (rx_take(&c, &d[j]) != (j == 2)) {
				printf("selftest: frame %u: descriptor %u %s the frame\n",
				       i, j, j == 2 ? "did not end" : "ended");
				bad++;
			}
			frames += j == 2;
		}
	}
	/* seq 0 and 2 whole; 1 short a piece, 3 with a flipped bit */
	if (frames != 4 || c.ck.unique != 2 || c.ck.corrupt != 2 ||
	    c.ck.dup || c.ck.foreign) {
		printf("selftest: multi-buffer: frames=%u unique=%" PRIu64
		       " corrupt=%" PRIu64 " dup=%" PRIu64 " foreign=%" PRIu64
		       ", want 4 2 2 0 0\n", frames, c.ck.unique, c.ck.corrupt,
		       c.ck.dup, c.ck.foreign);
		bad++;
	}
	free(c.ck.seen);
	free(c.rx_frame);
	free(c.area);
	free(f);
	return bad;
}

/*
 * "xsk-bench selftest": the checker against frames made here, so that a
 * checker that cannot see loss, duplicates or corruption fails.
 */
static int selftest(void)
{
	struct opts o = { .stream = 77, .dst_mac = { 2, 0, 0, 0, 0, 1 },
			  .src_mac = { 2, 0, 0, 0, 0, 2 } };
	static const unsigned int lens[] = { 60, 1496 };
	struct checker ck = { 0 };
	uint8_t f[2048];
	unsigned int i, k, bad = 0;
	uint32_t ph;

	for (k = 0; k < 2; k++) {
		unsigned int len = lens[k];

		memset(&ck, 0, sizeof(ck));
		ph = frame_prefill(f, len, &o, 3);
		for (i = 0; i < 100; i++) {
			uint64_t seq = i;

			if (i == 10)		/* seq 10 lost */
				continue;
			if (i == 20)		/* seq 19 again */
				seq = 19;
			frame_stamp(f, len, o.stream, seq, ph);
			if (i == 30)		/* one payload bit */
				f[len - 1] ^= 0x10;
			if (i == 40)		/* truncated */
				check_frame(&ck, f, len - 2, true);
			else
				check_frame(&ck, f, len, true);
			if (i == 30)
				f[len - 1] ^= 0x10;
		}
		/* A frame of another stream, and a frame that is not ours. */
		frame_stamp(f, len, o.stream + 1, 5, ph);
		check_frame(&ck, f, len, true);
		f[12] = 0x08;
		check_frame(&ck, f, len, true);
		/* 100 sent: 10 lost, 20 a dup of 19, 30 and 40 corrupt */
		if (ck.unique != 96 || ck.dup != 1 || ck.corrupt != 2 ||
		    ck.foreign != 2 || checker_holes(&ck) != 4) {
			printf("selftest: len %u: unique=%" PRIu64 " dup=%" PRIu64
			       " corrupt=%" PRIu64 " foreign=%" PRIu64 " holes=%"
			       PRIu64 ", want 96 1 2 2 4\n", len, ck.unique,
			       ck.dup, ck.corrupt, ck.foreign, checker_holes(&ck));
			bad++;
		}
		free(ck.seen);
	}
	bad += selftest_mb();
	printf("selftest: %s\n", bad ? "FAIL" : "ok");
	return bad ? 1 : 0;
}

/* --- XDP programs ---------------------------------------------------- */

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

/* r2 = ctx->data; unless the frame has an Ethernet header and our
 * EtherType, skip the @n instructions that follow (to a "pass" label).
 */
#define INSNS_OURS_OR_SKIP(n) \
	INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 0, 0), \
	INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1, 4, 0), \
	INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0), \
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, ETH_HLEN_), \
	INSN(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, (n) + 2, 0), \
	INSN(BPF_LDX | BPF_H | BPF_MEM, BPF_REG_4, BPF_REG_2, 12, 0), \
	INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, (n), htons(ETH_P_XSKB))

/* @frags: the program takes frames with fragments (BPF_F_XDP_HAS_FRAGS) */
static int prog_load(struct bpf_insn *insns, size_t n, const char *name,
		     bool frags)
{
	static char log[65536];
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 0,
		    .prog_flags = frags ? BPF_F_XDP_HAS_FRAGS : 0);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, name, "GPL", insns, n, &lo);
	if (fd < 0) {
		int err = errno;

		lo.log_level = 1;
		fd = bpf_prog_load(BPF_PROG_TYPE_XDP, name, "GPL", insns, n, &lo);
		if (fd < 0) {
			fprintf(stderr, "error: loading XDP program %s: %s\n%s\n",
				name, errname(err), log);
			errno = err;
		}
	}
	return fd;
}

/* Redirect our EtherType to the XSKMAP entry of the RX queue. */
static int prog_redirect(int map_fd, bool frags)
{
	struct bpf_insn p[] = {
		INSNS_OURS_OR_SKIP(6),
		/* return bpf_redirect_map(map, ctx->rx_queue_index, XDP_PASS) */
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 16, 0),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, XDP_PASS),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* pass: */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return prog_load(p, sizeof(p) / sizeof(p[0]), "xskb_redirect", frags);
}

/* Swap the 16-bit words at data + @a and data + @b (r2 = data). */
#define INSNS_SWAP16(a, b) \
	INSN(BPF_LDX | BPF_H | BPF_MEM, BPF_REG_4, BPF_REG_2, (a), 0), \
	INSN(BPF_LDX | BPF_H | BPF_MEM, BPF_REG_5, BPF_REG_2, (b), 0), \
	INSN(BPF_STX | BPF_H | BPF_MEM, BPF_REG_2, BPF_REG_5, (a), 0), \
	INSN(BPF_STX | BPF_H | BPF_MEM, BPF_REG_2, BPF_REG_4, (b), 0)

/* Our EtherType: swap the MAC addresses and XDP_TX; the rest: XDP_PASS. */
static int prog_xdp_tx(bool frags)
{
	struct bpf_insn p[] = {
		INSNS_OURS_OR_SKIP(14),
		/* swap the 16-bit words 0..2 (destination) and 3..5 (source) */
		INSNS_SWAP16(0, 6),
		INSNS_SWAP16(2, 8),
		INSNS_SWAP16(4, 10),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_TX),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* pass: */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return prog_load(p, sizeof(p) / sizeof(p[0]), "xskb_xdp_tx", frags);
}

/* Count in a per-CPU array, then drop. */
static int prog_drop(int map_fd, bool frags)
{
	struct bpf_insn p[] = {
		/* *(u32 *)(fp - 4) = 0 */
		INSN(BPF_ST | BPF_W | BPF_MEM, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* if (!r0) goto out; (*r0)++ */
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 3, 0),
		INSN(BPF_LDX | BPF_DW | BPF_MEM, BPF_REG_1, BPF_REG_0, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_DW | BPF_MEM, BPF_REG_0, BPF_REG_1, 0, 0),
		/* out: return XDP_DROP */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_DROP),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	return prog_load(p, sizeof(p) / sizeof(p[0]), "xskb_drop", frags);
}

static uint32_t xdp_flags_of(enum mode m)
{
	return m == M_SKB ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
}

static int prog_attach(const struct opts *o, int prog_fd)
{
	int err;

	err = bpf_xdp_attach(o->ifindex, prog_fd,
			     xdp_flags_of(o->mode) | XDP_FLAGS_UPDATE_IF_NOEXIST,
			     NULL);
	return err < 0 ? -err : 0;
}

/* Detach only if the program attached is still ours. */
static void prog_detach(const struct opts *o, int prog_fd)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao, .old_prog_fd = prog_fd);

	bpf_xdp_attach(o->ifindex, -1, xdp_flags_of(o->mode) | XDP_FLAGS_REPLACE,
		       &ao);
}

/* --- NIC counters ---------------------------------------------------- */

static const char *const nic_stats[] = {
	"rx_missed_errors", "rx_dropped", "rx_fifo_errors", "tx_dropped",
};
#define NR_NIC_STATS (sizeof(nic_stats) / sizeof(nic_stats[0]))

static void nic_read(const char *ifname, uint64_t *v)
{
	char path[256];
	unsigned int i;
	FILE *f;

	for (i = 0; i < NR_NIC_STATS; i++) {
		unsigned long long x = 0;

		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s",
			 ifname, nic_stats[i]);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%llu", &x) != 1)
				x = 0;
			fclose(f);
		}
		v[i] = x;
	}
}

/*
 * Attaching an XDP program resets igb and most NICs: wait (up to 10 s)
 * for the link to come back before saying "ready".
 */
static void wait_link(const char *ifname)
{
	char path[256], state[32];
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", ifname);
	for (i = 0; i < 200; i++) {
		FILE *f = fopen(path, "r");

		state[0] = 0;
		if (f) {
			if (!fgets(state, sizeof(state), f))
				state[0] = 0;
			fclose(f);
		}
		if (!strncmp(state, "up", 2) || !strncmp(state, "unknown", 7))
			return;
		usleep(50000);
	}
	fprintf(stderr, "warning: %s: link not up after 10 s\n", ifname);
}

/* --- AF_XDP socket --------------------------------------------------- */

static bool kick_benign(int err)
{
	return err == EAGAIN || err == ENOBUFS || err == EBUSY || err == ENETDOWN;
}

static void kick_note(struct ctx *c, int err)
{
	if (kick_benign(err)) {
		c->kick_benign++;
		c->kick_benign_errno = err;
		return;
	}
	c->kick_errors++;
	if (!c->kick_errno)
		c->kick_errno = err;
}

static void kick_tx(struct ctx *c)
{
	if (sendto(c->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0)
		kick_note(c, errno);
}

static void kick_rx(struct ctx *c)
{
	if (recvfrom(c->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0)
		kick_note(c, errno);
}

static bool rx_wants_kick(struct ctx *c)
{
	return !c->o->need_wakeup || xsk_ring_prod__needs_wakeup(&c->fq);
}

static bool tx_wants_kick(struct ctx *c)
{
	return !c->o->need_wakeup || xsk_ring_prod__needs_wakeup(&c->txr);
}

static uint64_t chunk_of(const struct ctx *c, uint64_t addr)
{
	addr = xsk_umem__extract_addr(addr);
	return addr - addr % c->o->frame_size;
}

/* Gives back n frame addresses to the fill ring (spins until room). */
static void fq_give(struct ctx *c, const uint64_t *addrs, unsigned int n)
{
	uint32_t idx;
	unsigned int i;

	while (xsk_ring_prod__reserve(&c->fq, n, &idx) != n) {
		if (stop_flag > 1)
			return;
		if (rx_wants_kick(c))
			kick_rx(c);
	}
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&c->fq, idx + i) = chunk_of(c, addrs[i]);
	xsk_ring_prod__submit(&c->fq, n);
}

/*
 * A TX descriptor goes on the ring; @eop: it is the last of its frame.
 * The completion ring gives descriptors back in the order they were
 * sent, so the flag of each in flight is kept by its position.
 */
static void tx_put_desc(struct ctx *c, struct xdp_desc *d, bool eop)
{
	d->options = eop ? 0 : XDP_PKT_CONTD;
	if (c->tx_eop)
		c->tx_eop[c->tx_put++ & c->tx_eop_mask] = eop;
}

/* The next descriptor completed: was it the last of its frame? */
static bool tx_done_eop(struct ctx *c)
{
	return !c->tx_eop || c->tx_eop[c->tx_done++ & c->tx_eop_mask];
}

static void complete_tx(struct ctx *c)
{
	uint64_t addrs[512];
	unsigned int n, i;
	uint32_t idx;

	if (!c->outstanding)
		return;
	if (tx_wants_kick(c))
		kick_tx(c);
	n = xsk_ring_cons__peek(&c->cq, 512, &idx);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		addrs[i] = *xsk_ring_cons__comp_addr(&c->cq, idx + i);
	xsk_ring_cons__release(&c->cq, n);
	c->outstanding -= n;
	for (i = 0; i < n; i++) {
		if (!tx_done_eop(c))
			continue;
		c->completed++;
		/* txonly: the frame's first UMEM frame is free again */
		if (c->o->bench == B_TXONLY)
			c->tx_free[c->tx_free_n++] = chunk_of(c, addrs[i]) -
				(uint64_t)(c->segs - 1) * c->o->frame_size;
	}
	if (c->o->bench == B_L2FWD)
		fq_give(c, addrs, n);
}

static void note_rx(struct ctx *c, unsigned int n, double t)
{
	if (!n)
		return;
	if (!c->rx)
		c->t_first_rx = t;
	c->t_last_rx = t;
	c->rx += n;
}

static void note_tx(struct ctx *c, unsigned int n, double t)
{
	if (!c->tx)
		c->t_first_tx = t;
	c->t_last_tx = t;
	c->tx += n;
}

/*
 * Takes a received descriptor; once it ends a frame, checks the frame
 * and returns true. Without --multi-buffer a frame is one descriptor,
 * checked where it lies. With it, a frame's descriptors are gathered
 * into c->rx_frame (so their UMEM frames can go back to the fill ring
 * at once, even when a batch ends inside a frame); a frame longer than
 * any of ours is kept to its first MB_MAX_LEN + 1 bytes, which no
 * header matches.
 */
static bool rx_take(struct ctx *c, const struct xdp_desc *d)
{
	const uint8_t *data = xsk_umem__get_data(c->area, d->addr);
	unsigned int len;

	if (!c->rx_frame) {
		check_frame(&c->ck, data, d->len, c->o->verify);
		return true;
	}
	len = d->len;
	if (len > MB_MAX_LEN + 1 - c->rx_len)
		len = MB_MAX_LEN + 1 - c->rx_len;
	memcpy(c->rx_frame + c->rx_len, data, len);
	c->rx_len += len;
	c->rx_mid = d->options & XDP_PKT_CONTD;
	if (c->rx_mid)
		return false;
	check_frame(&c->ck, c->rx_frame, c->rx_len, c->o->verify);
	c->rx_len = 0;
	return true;
}

/* Receive a batch, check it, recycle it to the fill ring. */
static unsigned int rx_step(struct ctx *c, double t)
{
	uint64_t addrs[512];
	unsigned int n, i, frames = 0;
	uint32_t idx;

	n = xsk_ring_cons__peek(&c->rxr, c->o->batch, &idx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&c->fq))
			kick_rx(c);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&c->rxr, idx + i);

		frames += rx_take(c, d);
		addrs[i] = d->addr;
	}
	xsk_ring_cons__release(&c->rxr, n);
	fq_give(c, addrs, n);
	note_rx(c, frames, t);
	return n;
}

/*
 * Receive a batch, check it, swap the MACs and send it back: each
 * descriptor as it came, the MACs in a frame's first.
 */
static unsigned int l2fwd_step(struct ctx *c, double t)
{
	uint32_t idx_rx, idx_tx;
	unsigned int n, i, frames = 0;

	complete_tx(c);
	n = xsk_ring_cons__peek(&c->rxr, c->o->batch, &idx_rx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&c->fq))
			kick_rx(c);
		return 0;
	}
	while (xsk_ring_prod__reserve(&c->txr, n, &idx_tx) != n) {
		if (stop_flag > 1)
			return 0;
		complete_tx(c);
		if (tx_wants_kick(c))
			kick_tx(c);
	}
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&c->rxr, idx_rx + i);
		struct xdp_desc *td = xsk_ring_prod__tx_desc(&c->txr, idx_tx + i);
		uint8_t *f = xsk_umem__get_data(c->area, d->addr);
		bool first = !c->rx_mid, eop;
		uint8_t mac[6];

		eop = rx_take(c, d);
		if (first && d->len >= 12) {
			memcpy(mac, f, 6);
			memcpy(f, f + 6, 6);
			memcpy(f + 6, mac, 6);
		}
		td->addr = d->addr;
		td->len = d->len;
		tx_put_desc(c, td, eop);
		frames += eop;
	}
	xsk_ring_prod__submit(&c->txr, n);
	xsk_ring_cons__release(&c->rxr, n);
	c->outstanding += n;
	note_rx(c, frames, t);
	note_tx(c, frames, t);
	if (tx_wants_kick(c))
		kick_tx(c);
	return n;
}

/*
 * Send up to one batch of frames, paced to --rate; a frame is c->segs
 * descriptors, one per UMEM frame it lies on.
 */
static unsigned int tx_step(struct ctx *c, double t, double t0)
{
	const struct opts *o = c->o;
	uint64_t want = o->batch;
	unsigned int n, i, j;
	uint32_t idx = 0;

	complete_tx(c);
	if (o->rate) {
		uint64_t allowed = (uint64_t)((t - t0) * (double)o->rate) + 1;

		if (allowed <= c->seq)
			return 0;
		if (allowed - c->seq < want)
			want = allowed - c->seq;
	}
	if (o->count && o->count - c->seq < want)
		want = o->count - c->seq;
	if (want > c->tx_free_n)
		want = c->tx_free_n;
	if (!want)
		return 0;
	n = xsk_ring_prod__reserve(&c->txr, (uint32_t)want * c->segs, &idx) /
	    c->segs;
	for (i = 0; i < n; i++) {
		uint64_t addr = c->tx_free[--c->tx_free_n];
		uint8_t *f = xsk_umem__get_data(c->area, addr);
		unsigned int left = c->frame_len;

		frame_stamp(f, c->frame_len, o->stream, c->seq++,
			    c->phash[addr / o->frame_size]);
		for (j = 0; j < c->segs; j++) {
			struct xdp_desc *d;

			d = xsk_ring_prod__tx_desc(&c->txr, idx + i * c->segs + j);
			d->addr = addr + (uint64_t)j * o->frame_size;
			d->len = left < o->frame_size ? left : o->frame_size;
			left -= d->len;
			tx_put_desc(c, d, j == c->segs - 1);
		}
	}
	if (!n)
		return 0;
	xsk_ring_prod__submit(&c->txr, n * c->segs);
	c->outstanding += n * c->segs;
	note_tx(c, n, t);
	if (tx_wants_kick(c))
		kick_tx(c);
	return n;
}

static int xsk_setup(struct ctx *c)
{
	struct opts *o = c->o;
	struct xsk_umem_config uc = {
		.fill_size = o->ring_size * 2,
		.comp_size = o->ring_size,
		.frame_size = o->frame_size,
		.frame_headroom = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = o->ring_size,
		.tx_size = o->ring_size,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = xdp_flags_of(o->mode),
		.bind_flags = (o->mode == M_ZC ? XDP_ZEROCOPY : XDP_COPY) |
			      (o->need_wakeup ? XDP_USE_NEED_WAKEUP : 0) |
			      (o->mb ? XDP_USE_SG : 0),
	};
	size_t len = (size_t)o->num_frames * o->frame_size;
	unsigned int i, n_rx = 0, first_tx = 0;
	int err;

	c->area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c->area == MAP_FAILED) {
		c->area = NULL;
		return errno;
	}
	err = xsk_umem__create(&c->umem, c->area, len, &c->fq, &c->cq, &uc);
	if (err) {
		fprintf(stderr, "error: umem: %s (%s)\n", errname(-err), strerror(-err));
		return -err;
	}
	err = xsk_socket__create(&c->xsk, o->ifname, o->queue, c->umem, &c->rxr,
				 &c->txr, &sc);
	if (err) {
		fprintf(stderr, "error: bind %s queue %u mode %s: %s (%s)\n",
			o->ifname, o->queue, mode_names[o->mode], errname(-err),
			strerror(-err));
		return -err;
	}
	c->fd = xsk_socket__fd(c->xsk);

	/* Split the UMEM between the fill ring and the TX free list. */
	switch (o->bench) {
	case B_RXDROP:
	case B_L2FWD:
		n_rx = o->num_frames;
		break;
	case B_TXONLY:
		n_rx = o->ret ? o->num_frames / 2 : 0;
		break;
	case B_DROP:
		break;
	}
	if (n_rx > uc.fill_size)
		n_rx = uc.fill_size;
	first_tx = n_rx;
	if (n_rx) {
		uint32_t idx;

		if (xsk_ring_prod__reserve(&c->fq, n_rx, &idx) != n_rx)
			return ENOSPC;
		for (i = 0; i < n_rx; i++)
			*xsk_ring_prod__fill_addr(&c->fq, idx + i) =
				(uint64_t)i * o->frame_size;
		xsk_ring_prod__submit(&c->fq, n_rx);
	}
	if (o->bench == B_TXONLY) {
		c->tx_free = calloc(o->num_frames, sizeof(*c->tx_free));
		c->phash = calloc(o->num_frames, sizeof(*c->phash));
		if (!c->tx_free || !c->phash)
			return ENOMEM;
		/* A frame on c->segs consecutive UMEM frames, from the first. */
		for (i = (o->num_frames - first_tx) / c->segs; i-- > 0;) {
			unsigned int first = first_tx + i * c->segs;
			uint8_t *f = (uint8_t *)c->area + (size_t)first * o->frame_size;

			c->phash[first] = frame_prefill(f, c->frame_len, o, first);
			c->tx_free[c->tx_free_n++] = (uint64_t)first * o->frame_size;
		}
		if (!c->tx_free_n) {
			fprintf(stderr, "error: no frame of %u bytes fits in the UMEM\n",
				c->frame_len);
			return ENOSPC;
		}
	}
	if (o->mb && o->bench != B_RXDROP) {
		/* TX descriptors in flight: the TX ring's and the completion ring's */
		c->tx_eop_mask = 2 * o->ring_size - 1;
		c->tx_eop = calloc(2 * o->ring_size, 1);
		if (!c->tx_eop)
			return ENOMEM;
	}
	if (o->mb && (o->bench != B_TXONLY || o->ret)) {
		c->rx_frame = malloc(MB_MAX_LEN + 1);
		if (!c->rx_frame)
			return ENOMEM;
	}
	return 0;
}

/* The socket's own drop counters (XDP_STATISTICS), apart from the NIC's. */
static void xsk_stats_print(int fd)
{
	struct xdp_statistics st = { 0 };
	socklen_t len = sizeof(st);

	if (fd < 0 || getsockopt(fd, SOL_XDP, XDP_STATISTICS, &st, &len) < 0)
		return;
	printf(" xsk_rx_dropped=%llu xsk_rx_ring_full=%llu xsk_fill_empty=%llu"
	       " xsk_rx_invalid=%llu xsk_tx_invalid=%llu",
	       (unsigned long long)st.rx_dropped,
	       (unsigned long long)st.rx_ring_full,
	       (unsigned long long)st.rx_fill_ring_empty_descs,
	       (unsigned long long)st.rx_invalid_descs,
	       (unsigned long long)st.tx_invalid_descs);
}

static int zerocopy_of(int fd)
{
	struct xdp_options xo;
	socklen_t len = sizeof(xo);

	if (getsockopt(fd, SOL_XDP, XDP_OPTIONS, &xo, &len) < 0)
		return -1;
	return !!(xo.flags & XDP_OPTIONS_ZEROCOPY);
}

/* --- main loops ------------------------------------------------------ */

/*
 * --insn FILE: the instructions the guest's kernel ran so far, as the TCG
 * plugin tools/qemu/xskzc-insn.c counts them over every vCPU. Its mark,
 * xchg %bx,%bx (a no-op without the plugin), makes it append
 * "SEQ KERNEL USER K0 K1..." to FILE, flushed, before the instruction
 * completes; FILE is on the guest's 9p share of the results directory.
 * Sets @count to the kernel count of the last line (of vCPU @cpu, or of
 * all for -1); false if there is none.
 */
static bool insn_mark(const char *path, int cpu, uint64_t *count)
{
	unsigned long long seq, kernel, user, v = 0;
	char buf[512], *line, *p;
	size_t n;
	long end;
	FILE *f;
	int i;

#ifdef __x86_64__
	asm volatile("xchg %%bx, %%bx" ::: "memory");
#endif
	f = fopen(path, "r");
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	fseek(f, end > (long)sizeof(buf) - 1 ? end - (long)sizeof(buf) + 1 : 0,
	      SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	if (sscanf(line, "%llu %llu %llu", &seq, &kernel, &user) != 3)
		return false;
	if (cpu < 0) {
		*count = kernel;
		return true;
	}
	/* the kernel count of vCPU @cpu: field 4 + @cpu */
	p = line;
	for (i = 0; i < 3 + cpu && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &v) != 1)
		return false;
	*count = v;
	return true;
}

/*
 * The kernel instructions since the last call (the interval's start) in
 * @d, if not NULL; false when this count or the last could not be read:
 * no figure rather than a wrong one.
 */
static bool interval_insns(const struct opts *o, uint64_t *d)
{
	static bool have_last;
	static uint64_t last;
	uint64_t now = 0;
	bool had_last = have_last;

	if (!o->insn_path)
		return false;
	have_last = insn_mark(o->insn_path, o->insn_cpu, &now);
	if (d)
		*d = now - last;
	last = now;
	return have_last && had_last;
}

static void print_interval(const struct opts *o, double t, double dt,
			   uint64_t drx, uint64_t dtx, uint64_t rx, uint64_t tx)
{
	uint64_t insns;
	bool counted = interval_insns(o, &insns);

	if (o->quiet)
		return;
	printf("t=%.1f rx_pps=%.0f tx_pps=%.0f rx=%" PRIu64 " tx=%" PRIu64,
	       t, drx / dt, dtx / dt, rx, tx);
	if (counted)
		printf(" insn_rx=%.0f insn_tx=%.0f",
		       drx ? (double)insns / drx : 0,
		       dtx ? (double)insns / dtx : 0);
	printf("\n");
}

static double rate_of(uint64_t n, double t0, double t1)
{
	/* n frames seen at instants t0..t1: n - 1 gaps, or none. */
	if (n < 2 || t1 <= t0)
		return 0;
	return (n - 1) / (t1 - t0);
}

/*
 * --swap-prog: S s after the first frame, replace the attached program
 * with a new copy of it on the same XSKMAP (XDP_FLAGS_REPLACE). The socket keeps its
 * frames if the driver takes the swap.
 */
static void swap_prog(struct ctx *c, double t)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, ao, .old_prog_fd = c->prog_fd);
	int fd, err = 0;

	c->swapped = true;
	fd = prog_redirect(c->map_fd, c->o->mb);
	if (fd < 0) {
		err = errno;
	} else {
		err = bpf_xdp_attach(c->o->ifindex, fd,
				     xdp_flags_of(c->o->mode) | XDP_FLAGS_REPLACE,
				     &ao);
		err = err < 0 ? -err : 0;
		if (err) {
			close(fd);
		} else {
			close(c->prog_fd);
			c->prog_fd = fd;
		}
	}
	printf("swap t=%.1f status=%s errno=%s rx=%" PRIu64 " tx=%" PRIu64 "\n",
	       t, err ? "failed" : "ok", err ? errname(err) : "0", c->rx, c->tx);
}

static void run_xsk(struct ctx *c)
{
	const struct opts *o = c->o;
	struct pollfd pfd = { .fd = c->fd };
	double t0 = now_s(), t, next = 0, last_int = 0, first_frame = 0;
	double t_end = t0 + o->duration, drain_end = 0, last_rx = 0;
	uint64_t rx_int = 0, tx_int = 0;
	bool sending = o->bench == B_TXONLY, draining = false;

	while (stop_flag < 2) {
		t = now_s();
		/* Intervals start with the first frame, so they are all full. */
		if (!next && (c->rx || c->tx)) {
			first_frame = t;
			next = t + o->interval;
			last_int = t;
			rx_int = c->rx;
			tx_int = c->tx;
			interval_insns(o, NULL);
		}
		if (next && t >= next) {
			print_interval(o, t - t0, t - last_int, c->rx - rx_int,
				       c->tx - tx_int, c->rx, c->tx);
			rx_int = c->rx;
			tx_int = c->tx;
			last_int = t;
			next += o->interval;
		}
		if (!draining && (stop_flag || t >= t_end ||
				  (o->count && c->seq >= o->count) ||
				  (o->idle_exit > 0 && c->rx &&
				   t - last_rx >= o->idle_exit))) {
			draining = true;
			sending = false;
			drain_end = t + o->drain;
		}
		if (draining) {
			bool rx_idle = t - last_rx >= 0.5;

			if (t >= drain_end || stop_flag > 1)
				break;
			if (!c->outstanding &&
			    (o->bench != B_TXONLY || !o->ret || rx_idle ||
			     c->ck.unique >= c->seq))
				break;
		}
		if (o->swap_after > 0 && !c->swapped && c->prog_fd >= 0 &&
		    first_frame > 0 && t - first_frame >= o->swap_after)
			swap_prog(c, t - t0);
		if (o->poll) {
			pfd.events = POLLIN | (sending || c->outstanding ? POLLOUT : 0);
			if (poll(&pfd, 1, 100) <= 0)
				continue;
		}
		switch (o->bench) {
		case B_RXDROP:
			if (rx_step(c, t))
				last_rx = t;
			break;
		case B_L2FWD:
			if (l2fwd_step(c, t))
				last_rx = t;
			break;
		case B_TXONLY:
			if (sending)
				tx_step(c, t, t0);
			else
				complete_tx(c);
			if (o->ret && rx_step(c, t))
				last_rx = t;
			break;
		case B_DROP:
			break;
		}
	}
}

struct drop_state {
	int map_fd;
	int ncpus;
	uint64_t *vals;
};

static uint64_t drop_count(struct drop_state *d)
{
	uint32_t key = 0;
	uint64_t sum = 0;
	int i;

	if (bpf_map_lookup_elem(d->map_fd, &key, d->vals))
		return 0;
	for (i = 0; i < d->ncpus; i++)
		sum += d->vals[i];
	return sum;
}

static void run_drop(struct ctx *c, struct drop_state *d)
{
	const struct opts *o = c->o;
	double t0 = now_s(), t, next = 0, last_int = 0;
	uint64_t v, prev = 0, at_int = 0, first = 0;

	while (!stop_flag) {
		usleep(50000);
		t = now_s();
		v = drop_count(d);
		if (v != prev) {
			if (!prev) {
				first = v;
				c->t_first_rx = t;
				next = t + o->interval;
				last_int = t;
				at_int = v;
				interval_insns(o, NULL);
			}
			c->t_last_rx = t;
			prev = v;
		}
		if (next && t >= next) {
			print_interval(o, t - t0, t - last_int, v - at_int, 0, v, 0);
			at_int = v;
			last_int = t;
			next += o->interval;
		}
		if (t >= t0 + o->duration ||
		    (o->idle_exit > 0 && v && t - c->t_last_rx >= o->idle_exit))
			break;
	}
	c->rx = prev;
	if (c->t_last_rx > c->t_first_rx)
		c->drop_pps = (prev - first) / (c->t_last_rx - c->t_first_rx);
}

/* --- options --------------------------------------------------------- */

static void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
"usage: xsk-bench BENCH -i IFACE [options]\n"
"       xsk-bench selftest    check the frame checker itself\n"
"  BENCH               rxdrop | txonly | l2fwd | drop\n"
"  -i, --iface IFACE   interface\n"
"  -q, --queue N       queue id (0)\n"
"  -m, --mode MODE     skb | copy | zc (copy); drop: native unless skb\n"
"  -s, --size N        frame size on the wire with FCS (64)\n"
"  -b, --batch N       batch size (64)\n"
"  -N, --no-need-wakeup  bind without XDP_USE_NEED_WAKEUP\n"
"  -p, --poll          poll() instead of a busy loop\n"
"  -d, --duration S    run time in seconds (10)\n"
"  -I, --interval S    report interval in seconds (1)\n"
"  -r, --rate PPS      txonly: pace to PPS frames per second (0: no limit)\n"
"  -c, --count N       txonly: send N frames then stop\n"
"  -R, --return        txonly: also receive the stream back and check it\n"
"  -D, --dst MAC       destination MAC (broadcast)\n"
"  -S, --stream N      stream id to send, or the only one to accept\n"
"  -f, --frame-size N  UMEM frame size, 2048 or 4096 (4096)\n"
"  -n, --frames N      UMEM frames (4096)\n"
"  -o, --ring N        ring size (2048)\n"
"  -W, --idle-exit S   stop S seconds after the last received frame\n"
"  -T, --drain S       at the end, wait up to S seconds for TX\n"
"                      completions and returning frames (2)\n"
"  -X, --no-prog       attach no XDP program (for the bind tests)\n"
"  -x, --xdp-tx        l2fwd: forward in the XDP program (XDP_TX); the\n"
"                      socket receives nothing\n"
"  -G, --go-file FILE  once bound, touch nothing until FILE exists\n"
"  -A, --swap-prog S   S s after the first frame, replace the XDP program\n"
"                      with a new one on the same XSKMAP (a swap line)\n"
"  -M, --multi-buffer  frames may span UMEM frames (XDP_USE_SG, programs\n"
"                      with fragments); -s up to 16 UMEM frames\n"
"  -V, --no-verify     do not check payload checksums\n"
"  -Q, --quiet         no interval lines\n"
"  -K, --insn FILE[:CPU] the guest kernel's instructions per frame in\n"
"                      each interval line (insn_rx=, insn_tx=), from the\n"
"                      TCG plugin tools/qemu/xskzc-insn.c writing to FILE:\n"
"                      those of vCPU CPU, or of all\n");
	exit(rc);
}

static bool parse_mac(const char *s, uint8_t *mac)
{
	unsigned int m[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != 6)
		return false;
	for (i = 0; i < 6; i++) {
		if (m[i] > 255)
			return false;
		mac[i] = (uint8_t)m[i];
	}
	return true;
}

static uint64_t parse_u64(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "error: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

static double parse_double(const char *s, const char *what)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || *end || v < 0) {
		fprintf(stderr, "error: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

/* UMEM frames a TX frame of --size lies on */
static unsigned int segs_of(const struct opts *o)
{
	return (o->size - FCS_LEN + o->frame_size - 1) / o->frame_size;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "queue", required_argument, NULL, 'q' },
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "no-need-wakeup", no_argument, NULL, 'N' },
		{ "poll", no_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'I' },
		{ "rate", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'c' },
		{ "return", no_argument, NULL, 'R' },
		{ "dst", required_argument, NULL, 'D' },
		{ "stream", required_argument, NULL, 'S' },
		{ "frame-size", required_argument, NULL, 'f' },
		{ "frames", required_argument, NULL, 'n' },
		{ "ring", required_argument, NULL, 'o' },
		{ "idle-exit", required_argument, NULL, 'W' },
		{ "drain", required_argument, NULL, 'T' },
		{ "no-prog", no_argument, NULL, 'X' },
		{ "xdp-tx", no_argument, NULL, 'x' },
		{ "no-verify", no_argument, NULL, 'V' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "insn", required_argument, NULL, 'K' },
		{ "go-file", required_argument, NULL, 'G' },
		{ "swap-prog", required_argument, NULL, 'A' },
		{ "multi-buffer", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int i, max_len, segs;
	int c;

	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(0);
	if (!strcmp(argv[1], "selftest"))
		exit(selftest());
	for (i = 0; i < sizeof(bench_names) / sizeof(bench_names[0]); i++)
		if (!strcmp(argv[1], bench_names[i]))
			break;
	if (i == sizeof(bench_names) / sizeof(bench_names[0])) {
		fprintf(stderr, "error: unknown benchmark %s\n", argv[1]);
		usage(2);
	}
	o->bench = i;
	argc--;
	argv++;

	while ((c = getopt_long(argc, argv, "i:q:m:s:b:NpD:d:I:r:c:RS:f:n:o:W:T:XxVQG:A:MK:h",
				lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ifname = optarg;
			break;
		case 'q':
			o->queue = (uint32_t)parse_u64(optarg, "queue");
			break;
		case 'm':
			for (i = 0; i < 3; i++)
				if (!strcmp(optarg, mode_names[i]))
					break;
			if (i == 3) {
				fprintf(stderr, "error: unknown mode %s\n", optarg);
				exit(2);
			}
			o->mode = i;
			break;
		case 's':
			o->size = (unsigned int)parse_u64(optarg, "size");
			break;
		case 'b':
			o->batch = (unsigned int)parse_u64(optarg, "batch");
			break;
		case 'N':
			o->need_wakeup = false;
			break;
		case 'p':
			o->poll = true;
			break;
		case 'd':
			o->duration = parse_double(optarg, "duration");
			break;
		case 'I':
			o->interval = parse_double(optarg, "interval");
			break;
		case 'r':
			o->rate = parse_u64(optarg, "rate");
			break;
		case 'c':
			o->count = parse_u64(optarg, "count");
			break;
		case 'R':
			o->ret = true;
			break;
		case 'D':
			if (!parse_mac(optarg, o->dst_mac)) {
				fprintf(stderr, "error: bad MAC %s\n", optarg);
				exit(2);
			}
			break;
		case 'S':
			o->stream = (uint32_t)parse_u64(optarg, "stream");
			o->have_stream = true;
			break;
		case 'f':
			o->frame_size = (unsigned int)parse_u64(optarg, "frame size");
			break;
		case 'n':
			o->num_frames = (unsigned int)parse_u64(optarg, "frames");
			break;
		case 'o':
			o->ring_size = (unsigned int)parse_u64(optarg, "ring size");
			break;
		case 'W':
			o->idle_exit = parse_double(optarg, "idle-exit");
			break;
		case 'T':
			o->drain = parse_double(optarg, "drain");
			break;
		case 'X':
			o->no_prog = true;
			break;
		case 'x':
			o->xdp_tx = true;
			break;
		case 'V':
			o->verify = false;
			break;
		case 'Q':
			o->quiet = true;
			break;
		case 'K': {
			char *colon = strrchr(optarg, ':');

			o->insn_path = optarg;
			o->insn_cpu = -1;
			if (colon) {
				*colon = 0;
				o->insn_cpu = atoi(colon + 1);
			}
			break;
		}
		case 'G':
			o->go_file = optarg;
			break;
		case 'A':
			o->swap_after = parse_double(optarg, "swap-prog");
			break;
		case 'M':
			o->mb = true;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc || !o->ifname)
		usage(2);
	if (o->xdp_tx && (o->bench != B_L2FWD || o->no_prog)) {
		fprintf(stderr, "error: --xdp-tx is an l2fwd program\n");
		exit(2);
	}
	if (o->frame_size != 2048 && o->frame_size != 4096) {
		fprintf(stderr, "error: frame size must be 2048 or 4096\n");
		exit(2);
	}
	max_len = o->frame_size;
	if (o->mb)
		max_len = MB_MAX_SEGS * o->frame_size < MB_MAX_LEN ?
			  MB_MAX_SEGS * o->frame_size : MB_MAX_LEN;
	if (o->size < PAYLOAD_OFF + FCS_LEN || o->size - FCS_LEN > max_len) {
		fprintf(stderr, "error: size must be %d..%u%s\n",
			PAYLOAD_OFF + FCS_LEN, max_len + FCS_LEN,
			o->mb ? "" : " (more with --multi-buffer)");
		exit(2);
	}
	segs = segs_of(o);
	if (!o->batch || o->batch > 512 || !o->ring_size ||
	    (o->ring_size & (o->ring_size - 1)) || o->num_frames < o->batch ||
	    o->batch * segs > o->ring_size || o->interval <= 0) {
		fprintf(stderr, "error: bad batch, ring, frame count or interval\n");
		exit(2);
	}
}

static void get_mac(const char *ifname, uint8_t *mac)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd >= 0 && !ioctl(fd, SIOCGIFHWADDR, &ifr))
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.mode = M_COPY,
		.size = 64,
		.batch = 64,
		.need_wakeup = true,
		.duration = 10,
		.interval = 1,
		.frame_size = 4096,
		.num_frames = 4096,
		.ring_size = 2048,
		.verify = true,
		.drain = 2,
		.dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	struct ctx c = { .o = &o, .fd = -1, .map_fd = -1, .prog_fd = -1 };
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	struct drop_state ds = { .map_fd = -1 };
	uint64_t nic0[NR_NIC_STATS], nic1[NR_NIC_STATS];
	const char *status = "ok";
	int map_fd = -1, prog_fd = -1, err = 0, zc = -1;
	bool attached = false;
	double rx_pps, tx_pps;
	unsigned int i;

	parse_opts(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setrlimit(RLIMIT_MEMLOCK, &rl);
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);

	o.ifindex = if_nametoindex(o.ifname);
	if (!o.ifindex) {
		err = errno;
		fprintf(stderr, "error: no interface %s\n", o.ifname);
		status = "no-iface";
		goto out;
	}
	get_mac(o.ifname, o.src_mac);
	if (!o.have_stream) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o.stream = (uint32_t)(ts.tv_nsec ^ getpid() ^ ts.tv_sec);
	}
	c.frame_len = o.size - FCS_LEN;
	c.segs = segs_of(&o);
	if (o.have_stream && o.bench != B_TXONLY) {
		c.ck.locked = true;
		c.ck.stream = o.stream;
	}
	if (o.bench == B_TXONLY) {
		/* The stream coming back is our own. */
		c.ck.locked = true;
		c.ck.stream = o.stream;
	}

	if (o.bench == B_DROP) {
		ds.ncpus = libbpf_num_possible_cpus();
		ds.vals = calloc(ds.ncpus > 0 ? ds.ncpus : 1, sizeof(uint64_t));
		map_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "xskb_count",
					4, 8, 1, NULL);
	} else if (!o.no_prog) {
		map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "xskb_xsks", 4, 4,
					256, NULL);
	}
	if (map_fd < 0 && (o.bench == B_DROP || !o.no_prog)) {
		err = errno;
		fprintf(stderr, "error: bpf map: %s (%s)\n", errname(err), strerror(err));
		status = "map-failed";
		goto out;
	}
	ds.map_fd = map_fd;
	if (map_fd >= 0) {
		prog_fd = o.bench == B_DROP ? prog_drop(map_fd, o.mb) :
			  o.xdp_tx ? prog_xdp_tx(o.mb) :
			  prog_redirect(map_fd, o.mb);
		if (prog_fd < 0) {
			err = errno;
			status = "prog-failed";
			goto out;
		}
		err = prog_attach(&o, prog_fd);
		if (err) {
			fprintf(stderr, "error: attach XDP (%s) to %s: %s (%s)\n",
				o.mode == M_SKB ? "skb" : "native", o.ifname,
				errname(err), strerror(err));
			status = "attach-failed";
			goto out;
		}
		attached = true;
		c.map_fd = map_fd;
		c.prog_fd = prog_fd;
	}

	if (o.bench == B_DROP) {
		wait_link(o.ifname);
		nic_read(o.ifname, nic0);
		printf("ready\n");
		run_drop(&c, &ds);
		goto done;
	}

	err = xsk_setup(&c);
	if (err) {
		status = c.xsk ? "setup-failed" : "bind-failed";
		goto out;
	}
	zc = zerocopy_of(c.fd);
	if (map_fd >= 0) {
		err = bpf_map_update_elem(map_fd, &o.queue, &c.fd, 0);
		if (err) {
			err = errno;
			fprintf(stderr, "error: xskmap update: %s\n", errname(err));
			status = "xskmap-failed";
			goto out;
		}
	}
	wait_link(o.ifname);
	nic_read(o.ifname, nic0);
	printf("ready zerocopy=%d\n", zc);
	if (o.go_file) {
		while (!stop_flag && access(o.go_file, F_OK))
			usleep(50000);
		printf("go\n");
	}
	run_xsk(&c);
	prog_fd = c.prog_fd;	/* a --swap-prog replaced it */

done:
	nic_read(o.ifname, nic1);
	rx_pps = rate_of(c.rx, c.t_first_rx, c.t_last_rx);
	tx_pps = rate_of(c.tx, c.t_first_tx, c.t_last_tx);
	if (o.bench == B_DROP)
		rx_pps = c.drop_pps;
	printf("summary bench=%s mode=%s size=%u queue=%u batch=%u need_wakeup=%d "
	       "poll=%d multi_buffer=%d status=ok errno=0 zerocopy=%d rx_pps=%.0f "
	       "tx_pps=%.0f rx=%"
	       PRIu64 " tx=%" PRIu64 " tx_completed=%" PRIu64 " tx_outstanding=%"
	       PRIu64 " lost=%" PRIu64 " dup=%" PRIu64 " corrupt=%" PRIu64
	       " foreign=%" PRIu64 " unique=%" PRIu64 " kick_errors=%" PRIu64
	       " kick_errno=%s kick_benign=%" PRIu64 " kick_benign_errno=%s",
	       bench_names[o.bench], o.bench == B_DROP ?
	       (o.mode == M_SKB ? "xdp-drop-skb" : "xdp-drop") : mode_names[o.mode],
	       o.size, o.queue, o.batch, o.need_wakeup, o.poll, o.mb, zc,
	       rx_pps, tx_pps,
	       c.rx, c.tx, c.completed, c.outstanding,
	       o.bench == B_TXONLY ? (o.ret ? c.seq - c.ck.unique : 0) :
				    checker_holes(&c.ck),
	       c.ck.dup, c.ck.corrupt, c.ck.foreign, c.ck.unique, c.kick_errors,
	       c.kick_errno ? errname(c.kick_errno) : "0", c.kick_benign,
	       c.kick_benign_errno ? errname(c.kick_benign_errno) : "0");
	for (i = 0; i < NR_NIC_STATS; i++)
		printf(" nic_%s=%" PRIu64, nic_stats[i], nic1[i] - nic0[i]);
	xsk_stats_print(c.fd);
	printf("\n");
	goto cleanup;

out:
	printf("summary bench=%s mode=%s size=%u queue=%u status=%s errno=%s "
	       "zerocopy=%d\n", bench_names[o.bench], mode_names[o.mode], o.size,
	       o.queue, status, err ? errname(err) : "0", zc);
cleanup:
	if (c.xsk)
		xsk_socket__delete(c.xsk);
	if (c.umem)
		xsk_umem__delete(c.umem);
	if (attached)
		prog_detach(&o, prog_fd);
	if (c.area)
		munmap(c.area, (size_t)o.num_frames * o.frame_size);
	free(c.tx_free);
	free(c.phash);
	free(c.tx_eop);
	free(c.rx_frame);
	free(c.ck.seen);
	free(ds.vals);
	if (prog_fd >= 0)
		close(prog_fd);
	if (map_fd >= 0)
		close(map_fd);
	return strcmp(status, "ok") ? 3 : 0;
}
