// SPDX-License-Identifier: GPL-2.0-only
/*
 * xskzc-insn: a TCG plugin that counts the instructions the guest runs,
 * in its kernel (addresses from 0xffff800000000000 up) and in user space
 * apart, summed over every vCPU, for "make bench": instructions per
 * packet do not move with the host's load as packets per second do.
 *
 * The guest asks for the counts by running the mark instruction
 * "xchg %bx,%bx" (66 87 db, a no-op) in user space. Before it runs, the
 * plugin appends "SEQ KERNEL USER K0 K1..." (the totals, then the kernel
 * count of each vCPU) to the file named by its out=PATH argument, and
 * flushes it: the guest reads the line back through the 9p share of its
 * results directory as soon as the mark returns. At exit it appends one
 * more line, the counts then.
 *
 *   qemu-system-x86_64 -plugin libxskzc-insn.so,out=PATH[,profile=PROF] ...
 *
 * Counting is inline, per translation block (the block's instruction
 * count added when it starts), so a block an interrupt leaves early is
 * counted whole; the error is the same for every kernel measured.
 *
 * profile=PROF (system emulation only) also profiles the kernel, for
 * tools/insn-profile.pl to sum by symbol: every kernel block translated
 * gets a record (its address, its instruction count) and a callback that
 * counts its executions on each vCPU. A block translated again (after a
 * flush, or cut short for I/O) gets another record. Each mark takes a
 * snapshot of every record's counts; at exit PROF gets the executions
 * between the first mark and the last one (the exit is no mark), one line
 * per record that ran there:
 *
 *   # marks FIRST..LAST
 *   # kernel K0 K1...
 *   # vaddr n_insns execs execs_vcpu0 execs_vcpu1...
 *   VADDR N_INSNS EXECS E0 E1...
 *
 FIRST and LAST are the sequence numbers of those marks in out=PATH; K0,
 * K1... each vCPU's kernel count between them as the inline counter has
 * it (a check: the profile's instructions, the sum of N_INSNS * E0, are
 * the same for vCPU 0 if it is the one that marks, and so on); VADDR is
 * in hex, EXECS the sum of E0, E1... "# marks none" and no record if the
 * guest never marked. The callbacks slow the kernel down: the profile
 * is for runs of its own; without profile= no callback is added.
 */

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86-64: the kernel's half of the canonical address space */
#define KERNEL_START	0xffff800000000000ULL

struct counts {
	uint64_t kernel;
	uint64_t user;
};

static const uint8_t mark[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */

static struct qemu_plugin_scoreboard *counts;
static qemu_plugin_u64 kernel, user;
static GMutex out_lock;
static FILE *out;
static uint64_t seq;

/**
 * struct tb_rec - profile=: one translation of a kernel block
 * @vaddr: the block's guest virtual address
 * @n_insns: its instructions
 * @c: three rows of prof_vcpus counts, one per vCPU: its executions so
 *	far (updated atomically by on_tb_exec()), then their values at the
 *	first mark and at the last mark so far (under prof_lock)
 */
struct tb_rec {
	uint64_t vaddr;
	uint64_t n_insns;
	uint64_t c[];
};

static FILE *prof;		/* profile=, NULL without it */
static unsigned int prof_vcpus;	/* the columns of tb_rec.c: max_vcpus */
static GMutex prof_lock;	/* recs, their snapshots, the marks' */
static GPtrArray *recs;
static uint64_t prof_first, prof_last;	/* marks' seq, 0: none yet */
static uint64_t *kern_first, *kern_last;	/* kernel count per vCPU */

/* profile=: the snapshot of a mark, with out_lock held */
static void prof_mark(void)
{
	unsigned int n = prof_vcpus, v;
	int nv = qemu_plugin_num_vcpus();
	guint i;

	g_mutex_lock(&prof_lock);
	for (i = 0; i < recs->len; i++) {
		struct tb_rec *r = g_ptr_array_index(recs, i);

		for (v = 0; v < n; v++) {
			uint64_t x = __atomic_load_n(&r->c[v],
						     __ATOMIC_RELAXED);

			if (!prof_first)
				r->c[n + v] = x;
			r->c[2 * n + v] = x;
		}
	}
	for (v = 0; v < n && (int)v < nv; v++) {
		uint64_t x = qemu_plugin_u64_get(kernel, v);

		if (!prof_first)
			kern_first[v] = x;
		kern_last[v] = x;
	}
	if (!prof_first)
		prof_first = seq;
	prof_last = seq;
	g_mutex_unlock(&prof_lock);
}

/* the counts' line in out=PATH, with out_lock held */
static void write_counts(void)
{
	int i, n = qemu_plugin_num_vcpus();

	fprintf(out, "%" PRIu64 " %" PRIu64 " %" PRIu64, ++seq,
		qemu_plugin_u64_sum(kernel), qemu_plugin_u64_sum(user));
	for (i = 0; i < n; i++)
		fprintf(out, " %" PRIu64, qemu_plugin_u64_get(kernel, i));
	fputc('\n', out);
	fflush(out);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	g_mutex_lock(&out_lock);
	write_counts();
	if (prof)
		prof_mark();
	g_mutex_unlock(&out_lock);
}

static bool is_mark(struct qemu_plugin_insn *insn)
{
	uint8_t b[sizeof(mark)];

	return qemu_plugin_insn_size(insn) == sizeof(mark) &&
	       qemu_plugin_insn_data(insn, b, sizeof(b)) == sizeof(b) &&
	       !memcmp(b, mark, sizeof(mark));
}

/* profile=: one execution of a kernel block on @vcpu */
static void on_tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_rec *r = udata;

	if (vcpu < prof_vcpus)
		__atomic_fetch_add(&r->c[vcpu], 1, __ATOMIC_RELAXED);
}

/* profile=: the record of a kernel block, counting its executions */
static void prof_tb(struct qemu_plugin_tb *tb, size_t n)
{
	struct tb_rec *r = g_malloc0(sizeof(*r) +
				     3 * prof_vcpus * sizeof(r->c[0]));

	r->vaddr = qemu_plugin_tb_vaddr(tb);
	r->n_insns = n;
	g_mutex_lock(&prof_lock);
	g_ptr_array_add(recs, r);
	g_mutex_unlock(&prof_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS, r);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	bool in_kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;
	size_t i;

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, in_kernel ? kernel : user, n);
	if (in_kernel) {
		if (prof)
			prof_tb(tb, n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_mark(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

/* profile=: the records that ran between the first and the last mark */
static void prof_write(void)
{
	unsigned int n = prof_vcpus, v;
	guint i;

	g_mutex_lock(&prof_lock);
	if (!prof_first) {
		fprintf(prof, "# marks none\n");
	} else {
		fprintf(prof, "# marks %" PRIu64 "..%" PRIu64 "\n# kernel",
			prof_first, prof_last);
		for (v = 0; v < n; v++)
			fprintf(prof, " %" PRIu64, kern_last[v] - kern_first[v]);
		fprintf(prof, "\n# vaddr n_insns execs");
		for (v = 0; v < n; v++)
			fprintf(prof, " execs_vcpu%u", v);
		fputc('\n', prof);
	}
	for (i = 0; prof_first && i < recs->len; i++) {
		struct tb_rec *r = g_ptr_array_index(recs, i);
		uint64_t sum = 0;

		for (v = 0; v < n; v++)
			sum += r->c[2 * n + v] - r->c[n + v];
		if (!sum)
			continue;
		fprintf(prof, "%" PRIx64 " %" PRIu64 " %" PRIu64, r->vaddr,
			r->n_insns, sum);
		for (v = 0; v < n; v++)
			fprintf(prof, " %" PRIu64, r->c[2 * n + v] - r->c[n + v]);
		fputc('\n', prof);
	}
	/* the records are left to the exit: a vCPU may still run a block */
	g_mutex_unlock(&prof_lock);
	if (fclose(prof))
		perror("xskzc-insn: profile");
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	g_mutex_lock(&out_lock);
	write_counts();
	g_mutex_unlock(&out_lock);
	fclose(out);
	if (prof)
		prof_write();
	qemu_plugin_scoreboard_free(counts);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL, *prof_path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (g_str_has_prefix(argv[i], "out="))
			path = argv[i] + strlen("out=");
		else if (g_str_has_prefix(argv[i], "profile="))
			prof_path = argv[i] + strlen("profile=");
	}
	if (!path || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "xskzc-insn: out=PATH, on an x86_64 guest\n");
		return -1;
	}
	if (prof_path && (!info->system_emulation ||
			  info->system.max_vcpus < 1)) {
		fprintf(stderr, "xskzc-insn: profile= needs system emulation\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	if (prof_path) {
		prof = fopen(prof_path, "w");
		if (!prof) {
			perror(prof_path);
			fclose(out);
			return -1;
		}
		prof_vcpus = info->system.max_vcpus;
		recs = g_ptr_array_new();
		kern_first = g_new0(uint64_t, prof_vcpus);
		kern_last = g_new0(uint64_t, prof_vcpus);
	}
	counts = qemu_plugin_scoreboard_new(sizeof(struct counts));
	kernel = qemu_plugin_scoreboard_u64_in_struct(counts, struct counts,
						      kernel);
	user = qemu_plugin_scoreboard_u64_in_struct(counts, struct counts,
						    user);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
