// SPDX-License-Identifier: MIT
/*
 * What the MTU checks need from the host (fragment counters, interface MTUs)
 * and the pure relation between an overlay path and its underlay: the inner
 * MTU the underlay allows and the overhead the two probes imply.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "mtu.h"
#include "netcounters.h"

uint32_t mtu_expected_adv_mss(uint32_t pmtu, int family)
{
	uint32_t hdr = family == AF_INET6 ? MTU_TCP_V6_OVERHEAD : MTU_TCP_V4_OVERHEAD;

	return pmtu > hdr ? pmtu - hdr : 0;
}

uint32_t mtu_expected_snd_mss(uint32_t pmtu, int family, bool timestamps)
{
	uint32_t mss = mtu_expected_adv_mss(pmtu, family);

	if (timestamps)
		mss = mss > MTU_TCP_TS_LEN ? mss - MTU_TCP_TS_LEN : 0;
	return mss;
}

/* The MSS negotiated on the SYNs is the smaller of the two options as they
 * arrived. The server tells what the client's SYN carried on arrival; the
 * SYN-ACK's is read from the client's segment size at connect, unless that
 * was held down by a path MTU the kernel had already learned (then the
 * SYN-ACK's option is taken as the server sent it). */
void mtu_tcp_mss(const struct mtu_tcp_result *t, struct mtu_mss *out)
{
	const struct mtu_tcp_end *c = &t->client_initial;
	uint32_t hdr = t->family == AF_INET6 ? MTU_TCP_V6_OVERHEAD : MTU_TCP_V4_OVERHEAD;
	uint32_t pmtu_limit = c->pmtu > hdr ? c->pmtu - hdr : UINT32_MAX;
	uint32_t now, synack_arrived, syn_arrived;

	memset(out, 0, sizeof(*out));
	if (!t->run || !c->valid || !c->snd_mss)
		return;
	out->valid = true;
	out->options_len = t->timestamps ? MTU_TCP_TS_LEN : 0;
	out->syn_sent = c->adv_mss ? c->adv_mss + out->options_len : 0;
	out->syn_arrived = t->syn_arrived;
	if (t->server.valid && t->server.adv_mss)
		out->synack_sent = t->server.adv_mss + out->options_len;
	now = c->snd_mss + out->options_len;
	synack_arrived = now < pmtu_limit || !out->synack_sent ? now : out->synack_sent;
	syn_arrived = out->syn_arrived ? out->syn_arrived : out->syn_sent;
	out->option = syn_arrived && syn_arrived < synack_arrived ? syn_arrived : synack_arrived;
	out->payload = out->option - out->options_len;
	if (out->syn_arrived && out->syn_sent && out->syn_arrived < out->syn_sent)
		out->clamp = MTU_MSS_CLAMPED_ON_PATH;
	else if (out->synack_sent && synack_arrived < out->synack_sent)
		out->clamp = MTU_MSS_CLAMPED_ON_PATH; /* the SYN-ACK's, on its way back */
	else if (out->syn_sent && out->option < out->syn_sent && out->option == out->synack_sent)
		out->clamp = MTU_MSS_FAR_END;
}

int mtu_frag_counters_read(struct mtu_frag_counters *out)
{
	struct netcounters *nc = malloc(sizeof(*nc));
	int err;

	if (!nc)
		return -ENOMEM;
	netcounters_init(nc);
	err = netcounters_read(nc);
	if (err == 0 && !nc->ip.valid && !nc->ip6.valid)
		err = -ENOENT;
	if (err == 0) {
		*out = (struct mtu_frag_counters){ 0 };
		if (nc->ip.valid) {
			out->reasm_reqds += nc->ip.reasm_reqds;
			out->frag_creates += nc->ip.frag_creates;
		}
		if (nc->ip6.valid) {
			out->reasm_reqds += nc->ip6.reasm_reqds;
			out->frag_creates += nc->ip6.frag_creates;
		}
	}
	free(nc);
	return err;
}

static bool same_ip(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return false;
}

static uint32_t ifname_mtu(const char *name)
{
	struct ifreq ifr = { 0 };
	uint32_t mtu = 0;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (strlen(name) < sizeof(ifr.ifr_name)) {
		memcpy(ifr.ifr_name, name, strlen(name) + 1);
		if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
			mtu = (uint32_t)ifr.ifr_mtu;
	}
	close(fd);
	return mtu;
}

/* The interface holding the socket's local address. */
static uint32_t local_addr_if_mtu(int fd, char *ifname, size_t ifname_len)
{
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	struct ifaddrs *ifa, *i;
	uint32_t mtu = 0;

	if (getsockname(fd, (struct sockaddr *)&local, &sl) < 0)
		return 0;
	addr_unmap(&local);
	if (getifaddrs(&ifa) < 0)
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || !same_ip(i->ifa_addr, &local))
			continue;
		mtu = ifname_mtu(i->ifa_name);
		if (ifname && ifname_len) {
			size_t n = strnlen(i->ifa_name, ifname_len - 1);

			memcpy(ifname, i->ifa_name, n);
			ifname[n] = '\0';
		}
		break;
	}
	freeifaddrs(ifa);
	return mtu;
}

uint32_t mtu_local_if_mtu(int fd)
{
	return local_addr_if_mtu(fd, NULL, 0);
}

uint32_t mtu_socket_if_mtu(int fd, char *ifname, size_t ifname_len)
{
	uint32_t mtu = local_addr_if_mtu(fd, ifname, ifname_len);
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	int v = 0;

	if (mtu)
		return mtu;
	/* Not found by address (e.g. a route through another device): the
	 * route's MTU, which is the device's unless a PMTU is cached. */
	if (getsockname(fd, (struct sockaddr *)&local, &sl) < 0)
		return 0;
	sl = sizeof(v);
	if (local.ss_family == AF_INET6) {
		if (getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &v, &sl) < 0)
			return 0;
	} else if (getsockopt(fd, IPPROTO_IP, IP_MTU, &v, &sl) < 0) {
		return 0;
	}
	return v > 0 ? (uint32_t)v : 0;
}

uint32_t mtu_path_unfragmented(const struct mtu_path_result *p)
{
	if (p->fragmenting && p->nofrag.state == MTU_SEARCH_DONE)
		return p->nofrag.pmtu;
	if (p->fragmenting)
		return 0;
	return p->search.pmtu;
}

static void check_one(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_role *role = &rep->roles[i];
	const struct mtu_path_result *ov = &rep->paths[i], *un;
	struct mtu_tunnel *t = &rep->tunnels[i];

	memset(t, 0, sizeof(*t));
	if (role->kind != MTU_PATH_BUILTIN && role->kind != MTU_PATH_EXTERNAL)
		return;
	if (role->underlay < 0 || (unsigned)role->underlay >= rep->npaths)
		return;
	un = &rep->paths[role->underlay];
	if (ov->status || un->status || !mtu_path_unfragmented(ov) || !mtu_path_unfragmented(un))
		return;
	t->valid = true;
	t->overlay = i;
	t->underlay = (unsigned)role->underlay;
	t->underlay_pmtu = mtu_path_unfragmented(un);
	t->overlay_pmtu = mtu_path_unfragmented(ov);
	t->overhead_inferred = (int32_t)t->underlay_pmtu - (int32_t)t->overlay_pmtu;
	t->overlay_if_mtu = role->overlay_mtu ? role->overlay_mtu : ov->if_mtu;
	if (role->kind == MTU_PATH_BUILTIN) {
		/* Unsaid, the outer packets travel like the underlay probes. */
		int outer = role->underlay_family ? role->underlay_family : un->family;

		t->overhead_expected =
			outer == AF_INET6 ? MTU_BUILTIN_OVERHEAD_V6 : MTU_BUILTIN_OVERHEAD_V4;
		t->inner_expected = t->underlay_pmtu > t->overhead_expected
					    ? t->underlay_pmtu - t->overhead_expected
					    : 0;
	} else {
		/* Without knowing the VPN's encapsulation, what the overlay
		 * delivers unfragmented is what fits. */
		t->inner_expected = t->overlay_pmtu;
	}
}

void mtu_check_tunnels(struct mtu_report *rep)
{
	for (unsigned i = 0; i < rep->npaths && i < MTU_MAX_PATHS; i++)
		check_one(rep, i);
}
