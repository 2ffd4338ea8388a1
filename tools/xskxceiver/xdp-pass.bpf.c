// SPDX-License-Identifier: GPL-2.0-only
/*
 * XDP_PASS, once as a program that takes fragments (xdp.frags: libbpf
 * loads it with BPF_F_XDP_HAS_FRAGS) and once as one that does not: for
 * e2e's xdp-frags-page-mode (tools/guest/e2e.sh), which attaches them
 * with ip link at an MTU beyond igb's page-mode buffers.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp.frags") int pass_frags(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp") int pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
