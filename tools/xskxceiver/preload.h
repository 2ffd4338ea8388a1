/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preload.h - what the harness's LD_PRELOAD wrappers of ioctl(2)
 * (carrier-wait.c, hwtstamp-fallback.c) share: the wrapper's third
 * argument, and the C library's ioctl() with it. Include it after
 * defining _GNU_SOURCE.
 */
#ifndef XSKX_PRELOAD_H
#define XSKX_PRELOAD_H

#include <dlfcn.h>
#include <net/if.h>
#include <stdarg.h>

/* The third argument of ioctl(fd, req, ...), in the wrapper itself */
#define IOCTL_IFREQ(req) ({				\
	struct ifreq *__ifr;				\
	va_list __ap;					\
							\
	va_start(__ap, req);				\
	__ifr = va_arg(__ap, struct ifreq *);		\
	va_end(__ap);					\
	__ifr;						\
})

/* The C library's ioctl(2), which the wrapper stands in front of */
static int next_ioctl(int fd, unsigned long req, struct ifreq *ifr)
{
	static int (*real_ioctl)(int, unsigned long, ...);

	if (!real_ioctl)
		real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	return real_ioctl(fd, req, ifr);
}

#endif
