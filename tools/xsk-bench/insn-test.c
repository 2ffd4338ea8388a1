// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-test: xsk-bench's reading of the TCG plugin's counts (--insn), run
 * on the build host by "make": xsk-bench.c itself is compiled in, its
 * main() renamed. Writes the plugin's lines into a temporary file the way
 * the plugin appends them, and checks the instructions per frame each
 * interval's line shows. Prints
 * "insn-test: N passed, M failed" and exits 1 on a failure.
 */
#define main xsk_bench_main
#include "xsk-bench.c"
#undef main

static int passed, failed;

#define CHECK(cond) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		fprintf(stderr, "insn-test: %s:%d: %s\n", __func__,	\
			__LINE__, #cond);				\
	}								\
} while (0)

static char path[64];

/* the plugin's line: "SEQ KERNEL USER K0 K1" */
static void mark(unsigned long long seq, unsigned long long k0,
		 unsigned long long k1)
{
	FILE *f = fopen(path, "a");

	if (!f) {
		perror(path);
		exit(2);
	}
	fprintf(f, "%llu %llu %llu %llu %llu\n", seq, k0 + k1, 7ULL, k0, k1);
	fclose(f);
}

/*
 * One interval's line as print_interval() prints it, @drx frames
 * received; the instructions per frame it shows in @insn_rx, or -1 when
 * it shows none.
 */
static void interval(struct opts *o, uint64_t drx, long long *insn_rx)
{
	char line[256] = "", *p;
	FILE *f = tmpfile();
	int saved;

	if (!f)
		exit(2);
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(f), 1);
	print_interval(o, 1.0, 1.0, drx, 0, drx, 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	p = strstr(line, "insn_rx=");
	*insn_rx = p ? atoll(p + strlen("insn_rx=")) : -1;
}

static void an_interval_is_the_difference_of_two_marks(struct opts *o)
{
	long long n;

	mark(1, 100, 1000);
	interval(o, 10, &n);
	CHECK(n == -1);			/* the first mark: no interval yet */
	mark(2, 150, 4000);
	interval(o, 10, &n);
	CHECK(n == 305);		/* 3050 instructions, 10 frames */
}

static void one_vcpu_counts_only_its_own_column(struct opts *o)
{
	long long n;

	o->insn_cpu = 1;
	mark(3, 200, 5000);
	interval(o, 10, &n);
	mark(4, 900, 5600);
	interval(o, 10, &n);
	CHECK(n == 60);
	o->insn_cpu = -1;
}

static void an_unreadable_mark_gives_no_figure_for_either_interval(struct opts *o)
{
	long long n;

	mark(5, 1000, 6000);
	interval(o, 10, &n);
	unlink(path);			/* this mark is not read */
	interval(o, 10, &n);
	CHECK(n == -1);
	mark(6, 1100, 6100);		/* readable again, the last was not */
	interval(o, 10, &n);
	CHECK(n == -1);
	mark(7, 1200, 6200);
	interval(o, 10, &n);
	CHECK(n == 20);
}

static void a_torn_line_gives_no_figure(struct opts *o)
{
	long long n;
	FILE *f;

	mark(8, 1300, 6300);
	interval(o, 10, &n);
	f = fopen(path, "a");
	if (!f)
		exit(2);
	fputs("9 76", f);		/* cut before its user count */
	fclose(f);
	interval(o, 10, &n);
	CHECK(n == -1);
}

int main(void)
{
	struct opts o = { .insn_cpu = -1 };

	snprintf(path, sizeof(path), "/tmp/insn-test.%d", (int)getpid());
	unlink(path);
	o.insn_path = path;
	an_interval_is_the_difference_of_two_marks(&o);
	one_vcpu_counts_only_its_own_column(&o);
	an_unreadable_mark_gives_no_figure_for_either_interval(&o);
	a_torn_line_gives_no_figure(&o);
	unlink(path);
	printf("insn-test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
