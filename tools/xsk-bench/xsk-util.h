/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xsk-util.h - helpers shared by xsk-bench and xsk-cycle.
 */
#ifndef XSK_UTIL_H
#define XSK_UTIL_H

#include <string.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The errno's name ("EBUSY"), for the summary lines. */
static inline const char *errname(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

#endif /* XSK_UTIL_H */
