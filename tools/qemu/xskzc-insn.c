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
 * results directory as soon as the mark returns.
 *
 *   qemu-system-x86_64 -plugin libxskzc-insn.so,out=PATH ...
 *
 * Counting is inline, per translation block (the block's instruction
 * count added when it starts), so a block an interrupt leaves early is
 * counted whole; the error is the same for every kernel measured.
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

static void on_mark(unsigned int vcpu, void *udata)
{
	int i, n = qemu_plugin_num_vcpus();

	g_mutex_lock(&out_lock);
	fprintf(out, "%" PRIu64 " %" PRIu64 " %" PRIu64, ++seq,
		qemu_plugin_u64_sum(kernel), qemu_plugin_u64_sum(user));
	for (i = 0; i < n; i++)
		fprintf(out, " %" PRIu64, qemu_plugin_u64_get(kernel, i));
	fputc('\n', out);
	fflush(out);
	g_mutex_unlock(&out_lock);
}

static bool is_mark(struct qemu_plugin_insn *insn)
{
	uint8_t b[sizeof(mark)];

	return qemu_plugin_insn_size(insn) == sizeof(mark) &&
	       qemu_plugin_insn_data(insn, b, sizeof(b)) == sizeof(b) &&
	       !memcmp(b, mark, sizeof(mark));
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	bool in_kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;
	size_t i;

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, in_kernel ? kernel : user, n);
	if (in_kernel)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_mark(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	on_mark(0, NULL);
	fclose(out);
	qemu_plugin_scoreboard_free(counts);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (g_str_has_prefix(argv[i], "out="))
			path = argv[i] + strlen("out=");
	}
	if (!path || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "xskzc-insn: out=PATH, on an x86_64 guest\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
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
