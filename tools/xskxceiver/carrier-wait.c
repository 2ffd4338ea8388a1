// SPDX-License-Identifier: GPL-2.0-only
/*
 * carrier-wait.so - LD_PRELOAD harness for xskxceiver on a real NIC.
 *
 * xskxceiver was written for veth, whose carrier never drops. igb (like
 * most NICs) resets its MAC when an XDP program is attached or removed,
 * and the link is renegotiated: on QEMU's model the carrier is back
 * about 0.4 s later, on hardware a second or more. Frames the suite sends
 * meanwhile are lost and the test fails on a harness problem, not on the
 * driver.
 *
 * The same goes for an MTU or a ring size change on a running igb. This
 * wraps send(2), which libbpf and the suite use for their rtnetlink
 * requests, and ioctl(2), which the suite uses for ethtool: after an
 * RTM_SETLINK or RTM_NEWLINK that carries IFLA_XDP or IFLA_MTU, or an
 * ETHTOOL_SRINGPARAM (igb has acted on either, and dropped the carrier,
 * when the call returns), it waits up to CARRIER_WAIT_MS for the carrier
 * of that interface, and logs the wait on stderr ("carrier-wait: IF: up
 * after N ms"). Nothing else is changed: the suite's code and its
 * timeouts are the tree's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"

/* Longer than any renegotiation seen on QEMU's igb model (0.4 s). */
#define CARRIER_WAIT_MS	5000
#define POLL_MS		10

static int carrier_of(const char *ifname)
{
	char path[64 + IF_NAMESIZE], c = '0';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", ifname);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fread(&c, 1, 1, f) != 1)
		c = '0';
	fclose(f);
	return c == '1';
}

/* The interface of a link request that may reset the MAC, or 0. */
static int link_reset_ifindex(const void *buf, size_t len)
{
	const struct nlmsghdr *nh = buf;
	const struct ifinfomsg *ifi;
	const struct rtattr *rta;
	int rlen;

	if (len < NLMSG_LENGTH(sizeof(*ifi)) || nh->nlmsg_len > len ||
	    (nh->nlmsg_type != RTM_SETLINK && nh->nlmsg_type != RTM_NEWLINK))
		return 0;
	ifi = NLMSG_DATA(nh);
	rta = (const struct rtattr *)((const char *)ifi + NLMSG_ALIGN(sizeof(*ifi)));
	rlen = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	for (; RTA_OK(rta, rlen); rta = RTA_NEXT(rta, rlen))
		if ((rta->rta_type & NLA_TYPE_MASK) == IFLA_XDP ||
		    rta->rta_type == IFLA_MTU)
			return ifi->ifi_index;
	return 0;
}

static void wait_for_carrier(const char *ifname)
{
	struct timespec t = { 0, POLL_MS * 1000000L };
	int ms, up;

	for (ms = 0; ms < CARRIER_WAIT_MS; ms += POLL_MS) {
		up = carrier_of(ifname);
		if (up != 0)
			break;
		nanosleep(&t, NULL);
	}
	if (ms)
		fprintf(stderr, "carrier-wait: %s: %s after %d ms\n", ifname,
			ms < CARRIER_WAIT_MS ? "up" : "still down", ms);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	static ssize_t (*real_send)(int, const void *, size_t, int);
	char ifname[IF_NAMESIZE];
	int ifindex, domain = 0;
	socklen_t dlen = sizeof(domain);
	ssize_t ret;

	if (!real_send)
		real_send = dlsym(RTLD_NEXT, "send");
	ret = real_send(fd, buf, len, flags);
	if (ret < 0 || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) ||
	    domain != AF_NETLINK)
		return ret;
	ifindex = link_reset_ifindex(buf, len);
	if (ifindex && if_indextoname(ifindex, ifname))
		wait_for_carrier(ifname);
	return ret;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct ifreq *ifr = IOCTL_IFREQ(req);
	int ret = next_ioctl(fd, req, ifr);
	struct ethtool_ringparam *ring;

	if (ret || req != SIOCETHTOOL || !ifr)
		return ret;
	ring = (struct ethtool_ringparam *)ifr->ifr_data;
	if (ring && ring->cmd == ETHTOOL_SRINGPARAM)
		wait_for_carrier(ifr->ifr_name);
	return ret;
}
