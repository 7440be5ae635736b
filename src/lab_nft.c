// SPDX-License-Identifier: MIT
/*
 * Deliberate loss and PMTU black holes on lab links, with nftables (no netem
 * here): in each end's namespace a table "inet ovlperf" whose prerouting
 * chain drops a random share of what arrives on the link's interface, and,
 * optionally, ICMP "fragmentation needed" / ICMPv6 "packet too big"
 * (neighbour discovery is never dropped, like ARP). Ingress
 * on both ends covers a->b and b->a. Ingress rather than egress because the
 * sender's veth has its segmentation offloads off (lab_offload.c), so what
 * arrives is MTU-sized while what leaves the stack may be a 64 KB aggregate.
 * The table goes with the namespace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nftables/libnftables.h>

#include "lab_int.h"
#include "log.h"

int lab_nft_ruleset(const struct lab_spec *spec, unsigned host, char *buf, size_t len)
{
	size_t n = 0;
	bool any = false;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned l = 0; l < spec->nlinks; l++) {
		const struct lab_link_spec *k = &spec->links[l];
		unsigned thr = lab_plan_drop_threshold(k->drop_pct);

		if ((k->a != host && k->b != host) || (!thr && !k->block_icmp_too_big))
			continue;
		if (!any)
			LAB_APPEND("table inet ovlperf {\n\tchain prerouting {\n"
				   "\t\ttype filter hook prerouting priority 0; policy accept;\n");
		any = true;
		if (k->block_icmp_too_big) {
			LAB_APPEND(
			    "\t\tiifname \"ovp%u\" icmp type destination-unreachable icmp code "
			    "frag-needed drop\n",
			    l);
			LAB_APPEND("\t\tiifname \"ovp%u\" icmpv6 type packet-too-big drop\n", l);
		}
		/* Neighbour discovery is spared, as ARP is (not in the inet family):
		 * the loss is the tests' packets', and IPv4 and IPv6 see the same. */
		if (thr)
			LAB_APPEND("\t\tiifname \"ovp%u\" icmpv6 type { nd-neighbor-solicit, "
				   "nd-neighbor-advert } accept\n"
				   "\t\tiifname \"ovp%u\" numgen random mod 10000 < %u drop\n",
				   l, l, thr);
	}
	if (any)
		LAB_APPEND("\t}\n}\n");
	return 0;
}

int lab_nft_apply(const struct lab_spec *spec, unsigned host)
{
	char rules[4096];
	struct nft_ctx *nft;
	int rc;

	rc = lab_nft_ruleset(spec, host, rules, sizeof(rules));
	if (rc || !rules[0])
		return rc;
	/* The context's netlink socket belongs to the namespace we are in now. */
	nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!nft)
		return -ENOMEM;
	nft_ctx_buffer_output(nft);
	nft_ctx_buffer_error(nft);
	if (nft_run_cmd_from_buffer(nft, rules)) {
		const char *e = nft_ctx_get_error_buffer(nft);

		log_err("nftables rules for host %u: %s", host, e && *e ? e : "failed");
		rc = -EINVAL;
	}
	nft_ctx_free(nft);
	return rc;
}
