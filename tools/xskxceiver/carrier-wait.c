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
 * after N ms").
 *
 * Before an MTU request it waits, up to POOL_WAIT_MS, until no queue of
 * the interface has an AF_XDP pool bound (the netdev netlink family's
 * queue-get, NETDEV_A_QUEUE_XSK), and logs a wait ("carrier-wait: IF:
 * AF_XDP pool released after N ms"). The suite changes the MTU for a
 * test right after the last test closed its sockets, but the core
 * releases a closed socket's pool from a work item
 * (xp_release_deferred()), and igb refuses an MTU that a bound pool's
 * chunks cannot hold: the change raced with that work (zc-bp,
 * SEND_RECEIVE_UNALIGNED_9K_PACKETS after a 4001-byte-chunk test,
 * "Error, could not set mtu."). Nothing else is changed: the suite's
 * code and its timeouts are the tree's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
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
/* The deferred release of a pool is one work item; 2 s is generous. */
#define POOL_WAIT_MS	2000

/* The netdev family (include/uapi/linux/netdev.h of 7.2), which the C
 * library's headers on Debian 12 (Linux 6.1) do not have yet.
 */
#define NETDEV_CMD_QUEUE_GET	10
#define NETDEV_A_QUEUE_IFINDEX	2
#define NETDEV_A_QUEUE_XSK	7

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

/* The interface of a link request that may reset the MAC, or 0; *mtu
 * tells whether it changes the MTU.
 */
static int link_reset_ifindex(const void *buf, size_t len, int *mtu)
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
	*mtu = 0;
	for (; RTA_OK(rta, rlen); rta = RTA_NEXT(rta, rlen)) {
		if (rta->rta_type == IFLA_MTU)
			*mtu = 1;
		if ((rta->rta_type & NLA_TYPE_MASK) == IFLA_XDP ||
		    rta->rta_type == IFLA_MTU)
			return ifi->ifi_index;
	}
	return 0;
}

struct nl_req {
	struct nlmsghdr nh;
	struct genlmsghdr g;
	char attrs[64];
};

/* Adds attribute @type with @len bytes of @data to @req. */
static void nl_put(struct nl_req *req, int type, const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)((char *)req +
					     NLMSG_ALIGN(req->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Sends @req on @fd and calls @fn on every attribute of every reply
 * until the reply, or for NLM_F_DUMP the dump's NLMSG_DONE, ends; @fn
 * returns nonzero to note a hit. Returns the hits, or -1 on an error.
 */
static int nl_talk(int fd, struct nl_req *req,
		   int (*fn)(const struct nlattr *a, void *arg), void *arg)
{
	int dump = req->nh.nlmsg_flags & NLM_F_DUMP;
	char buf[16384];
	int hits = 0;

	if (sendto(fd, req, req->nh.nlmsg_len, 0, NULL, 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		if (n <= 0)
			return -1;
		for (; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			struct nlattr *a;
			int rem;

			/* a dump ends here, with its error if it failed */
			if (nh->nlmsg_type == NLMSG_DONE)
				return nh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				       *(int *)NLMSG_DATA(nh) < 0 ? -1 : hits;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ? -1 : hits;
			a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
			rem = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= rem) {
				hits += fn(a, arg);
				rem -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			/* netdev-genl's dump parts do not all say NLM_F_MULTI */
			if (!dump && !(nh->nlmsg_flags & NLM_F_MULTI))
				return hits;
		}
	}
}

static int family_id_of(const struct nlattr *a, void *arg)
{
	if (a->nla_type != CTRL_ATTR_FAMILY_ID)
		return 0;
	memcpy(arg, (const char *)a + NLA_HDRLEN, sizeof(__u16));
	return 1;
}

static int is_xsk(const struct nlattr *a, void *arg)
{
	(void)arg;
	return (a->nla_type & NLA_TYPE_MASK) == NETDEV_A_QUEUE_XSK;
}

/* Whether a queue of @ifindex has an AF_XDP pool; -1: cannot tell. */
static int pool_bound(int ifindex)
{
	struct nl_req req = {};
	__u16 family = 0;
	__u32 idx = ifindex;
	int fd, ret = -1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	nl_put(&req, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev"));
	if (nl_talk(fd, &req, family_id_of, &family) == 1) {
		memset(&req, 0, sizeof(req));
		req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
		req.nh.nlmsg_type = family;
		req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		req.g.cmd = NETDEV_CMD_QUEUE_GET;
		req.g.version = 1;
		nl_put(&req, NETDEV_A_QUEUE_IFINDEX, &idx, sizeof(idx));
		ret = nl_talk(fd, &req, is_xsk, NULL);
		if (ret > 0)
			ret = 1;
	}
	close(fd);
	return ret;
}

static void wait_for_pool_release(int ifindex, const char *ifname)
{
	struct timespec t = { 0, POLL_MS * 1000000L };
	int ms, bound = 0;

	for (ms = 0; ms < POOL_WAIT_MS; ms += POLL_MS) {
		bound = pool_bound(ifindex);
		if (bound <= 0)
			break;
		nanosleep(&t, NULL);
	}
	if (bound < 0)
		fprintf(stderr, "carrier-wait: %s: cannot read its queues (netdev queue-get)\n",
			ifname);
	else if (ms)
		fprintf(stderr, "carrier-wait: %s: AF_XDP pool %s after %d ms\n",
			ifname, bound ? "still bound" : "released", ms);
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
	int ifindex = 0, domain = 0, mtu = 0;
	socklen_t dlen = sizeof(domain);
	ssize_t ret;

	if (!real_send)
		real_send = dlsym(RTLD_NEXT, "send");
	if (!getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) &&
	    domain == AF_NETLINK)
		ifindex = link_reset_ifindex(buf, len, &mtu);
	if (ifindex && !if_indextoname(ifindex, ifname))
		ifindex = 0;
	if (ifindex && mtu)
		wait_for_pool_release(ifindex, ifname);
	ret = real_send(fd, buf, len, flags);
	if (ret >= 0 && ifindex)
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
