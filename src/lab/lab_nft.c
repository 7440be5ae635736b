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
 *
 * A black hole at link L must also stop the too-big messages link L causes:
 * the host at L's entry, forwarding a packet too large for L, sends them
 * back out of its *other* links, where no ingress rule of L sees them. So
 * the ends of L also drop, in their output hook (where kernel-generated ICMP
 * passes), the too-big messages they send that announce L's MTU.
 * The table goes with the namespace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nftables/libnftables.h>

#include "lab_int.h"
#include "log.h"

/* The output chain: too-big messages this host would send for the links it
 * ends that have block-icmp (each link's MTU once). */
static int output_chain(const struct lab_spec *spec, unsigned host, char *buf, size_t len,
			size_t *np)
{
	size_t n = *np;
	bool any = false;

	for (unsigned l = 0; l < spec->nlinks; l++) {
		const struct lab_link_spec *k = &spec->links[l];
		uint32_t mtu = k->mtu ? k->mtu : 1500;
		bool seen = false;

		if ((k->a != host && k->b != host) || !k->block_icmp_too_big)
			continue;
		for (unsigned j = 0; j < l; j++) {
			const struct lab_link_spec *o = &spec->links[j];

			seen |= (o->a == host || o->b == host) && o->block_icmp_too_big &&
				(o->mtu ? o->mtu : 1500) == mtu;
		}
		if (seen)
			continue;
		if (!any)
			LAB_APPEND("\tchain output {\n"
				   "\t\ttype filter hook output priority 0; policy accept;\n");
		any = true;
		LAB_APPEND("\t\ticmp type destination-unreachable icmp code frag-needed "
			   "icmp mtu %u drop\n"
			   "\t\ticmpv6 type packet-too-big icmpv6 mtu %u drop\n",
			   mtu, mtu);
	}
	if (any)
		LAB_APPEND("\t}\n");
	*np = n;
	return 0;
}

int lab_nft_ruleset(const struct lab_spec *spec, unsigned host, char *buf, size_t len)
{
	size_t n = 0;
	bool any = false;
	int rc;

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
	if (!any)
		return 0;
	LAB_APPEND("\t}\n");
	rc = output_chain(spec, host, buf, len, &n);
	if (rc)
		return rc;
	LAB_APPEND("}\n");
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
