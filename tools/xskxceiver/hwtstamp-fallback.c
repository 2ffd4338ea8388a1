// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwtstamp-fallback.so - LD_PRELOAD harness for the kernel's
 * xdp_hw_metadata on an 82576.
 *
 * xdp_hw_metadata asks the NIC to timestamp every frame it receives
 * (SIOCSHWTSTAMP, HWTSTAMP_FILTER_ALL) and exits when that fails. The
 * 82576, which QEMU's igb model is, cannot: igb answers ERANGE
 * (igb_ptp_set_timestamp_mode()). Its RX hash and VLAN tag, which the
 * tool reads through the same kfuncs, do not depend on timestamping.
 *
 * This wraps ioctl(2): when SIOCSHWTSTAMP with HWTSTAMP_FILTER_ALL fails
 * with ERANGE, it asks for HWTSTAMP_FILTER_PTP_V2_EVENT instead, what the
 * 82576 stamps, and says so on stderr ("hwtstamp-fallback: IF: ..."). The
 * tool's own frames are then not stamped and it prints "No rx_timestamp"
 * for them. Every other call, and the tool's code, are left alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "preload.h"

int ioctl(int fd, unsigned long req, ...)
{
	struct ifreq *ifr = IOCTL_IFREQ(req);
	int ret = next_ioctl(fd, req, ifr);
	struct hwtstamp_config *cfg;

	if (!ret || errno != ERANGE || req != SIOCSHWTSTAMP || !ifr)
		return ret;
	cfg = (struct hwtstamp_config *)ifr->ifr_data;
	if (!cfg || cfg->rx_filter != HWTSTAMP_FILTER_ALL)
		return ret;
	cfg->rx_filter = HWTSTAMP_FILTER_PTP_V2_EVENT;
	ret = next_ioctl(fd, req, ifr);
	fprintf(stderr, "hwtstamp-fallback: %s: %s, PTP_V2_EVENT: %s\n",
		ifr->ifr_name, "HWTSTAMP_FILTER_ALL refused (ERANGE)",
		ret ? "refused too" : "set");
	return ret;
}
