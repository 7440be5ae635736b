// SPDX-License-Identifier: MIT
/*
 * Verdicts: OK / WARN / FAIL per path and check, each with the reason and,
 * when something should change, the fix in words a user applies. Pure: reads
 * the measured struct mtu_report and writes its verdicts[].
 *
 *   probe      the probing itself failed (server unreachable ...)
 *   pmtu       the largest confirmed size against the interface MTU
 *   blackhole  sizes above it vanish without ICMP too-big
 *   fragments  IP fragment counters moved while the DF probes ran
 *   nodf       what happens above the path MTU without DF (fragments or loss)
 *   mss        TCP MSS on both ends against what the path MTU allows
 *   tunnel     an overlay against its underlay (expected or inferred overhead)
 *   expect     what a scenario said the path should have
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mtu.h"

static struct mtu_verdict *add(struct mtu_report *rep, const struct mtu_path_result *p,
			       const char *check, enum mtu_level level, uint32_t value)
{
	struct mtu_verdict *v;

	if (rep->nverdicts >= MTU_MAX_VERDICTS)
		return NULL;
	v = &rep->verdicts[rep->nverdicts++];
	memset(v, 0, sizeof(*v));
	snprintf(v->path, sizeof(v->path), "%s", p->spec.name);
	snprintf(v->check, sizeof(v->check), "%s", check);
	v->level = level;
	v->value = value;
	return v;
}

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

#define REASON(v, ...)                                                                             \
	do {                                                                                       \
		if (v)                                                                             \
			say((v)->reason, sizeof((v)->reason), __VA_ARGS__);                        \
	} while (0)
#define FIX(v, ...)                                                                                \
	do {                                                                                       \
		if (v)                                                                             \
			say((v)->fix, sizeof((v)->fix), __VA_ARGS__);                              \
	} while (0)

static bool is_overlay(const struct mtu_report *rep, unsigned i)
{
	return rep->roles[i].kind == MTU_PATH_BUILTIN || rep->roles[i].kind == MTU_PATH_EXTERNAL;
}

static const char *ifdesc(const struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];

	if (is_overlay(rep, i))
		return "the overlay interface";
	return p->ifname[0] ? p->ifname : "the interface toward this path";
}

static bool timestamps(const struct mtu_path_result *p)
{
	/* Linux enables TCP timestamps by default; a measured connection says. */
	return p->tcp.run && p->tcp.client.valid ? p->tcp.timestamps : true;
}

/* Every MTU/MSS fix of a path comes from here, so no two verdicts can
 * disagree. mtu: what to set on the path's interface: the largest packet
 * that got through unfragmented, or for an overlay the underlay's path MTU
 * minus the overlay's overhead (for our overlay, at that MTU its padding
 * stops at the MTU). mss: the clamp (the SYN option value) that works with
 * the MTU left as it is, so it follows what got through. */
struct advice {
	uint32_t mtu, mss;
};

static struct advice advise(const struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_tunnel *t = &rep->tunnels[i];
	uint32_t fits = mtu_path_unfragmented(p);
	struct advice a = { .mtu = fits };

	if (is_overlay(rep, i) && t->valid && t->inner_expected)
		a.mtu = t->inner_expected;
	if (!fits || (a.mtu && a.mtu < fits))
		fits = a.mtu;
	a.mss = mtu_expected_adv_mss(fits, p->family);
	return a;
}

static void fix_set_mtu(struct mtu_verdict *v, const struct mtu_report *rep, unsigned i)
{
	struct advice a = advise(rep, i);

	if (!a.mtu)
		return;
	if (is_overlay(rep, i))
		FIX(v, "set the overlay MTU to %u, or clamp MSS to %u on the overlay interface",
		    a.mtu, a.mss);
	else
		FIX(v, "set the MTU of %s to %u, or clamp MSS to %u", ifdesc(rep, i), a.mtu, a.mss);
}

/* A probe refused by this host's own stack: the cause is here, not on the
 * path and not the far end's server. */
static void fix_refused(struct mtu_verdict *v, const struct mtu_path_result *p, int err)
{
	const char *dev = p->ifname[0] ? p->ifname : "the outgoing interface";

	if (err == EPERM || err == EACCES)
		FIX(v,
		    "a local firewall drops them on output: look for a drop or reject rule "
		    "matching UDP to %s in `nft list ruleset` (or iptables -S OUTPUT)",
		    p->spec.host);
	else if (err == ENOBUFS || err == EAGAIN)
		FIX(v,
		    "the queue of %s or its qdisc drops them: check `tc -s qdisc show dev %s` and "
		    "the device's MTU and txqueuelen",
		    dev, dev);
	else
		FIX(v, "this host has no usable route to %s for them: check `ip route get %s`",
		    p->spec.host, p->spec.host);
}

/* The far end's interface is smaller than ours and explains the failed sizes. */
static bool far_end_narrower(const struct mtu_path_result *p)
{
	const struct mtu_search_result *s = &p->search;

	return (s->refused_errno == ENOBUFS || s->refused_errno == EAGAIN) && p->server_if_mtu &&
	       p->if_mtu && p->server_if_mtu < p->if_mtu && p->server_if_mtu < s->smallest_failed;
}

/* Where the limit sits, when the far end's own interface explains it. */
static const char *where(const struct mtu_path_result *p)
{
	if (p->server_if_mtu && p->server_if_mtu == p->search.pmtu)
		return " (the far end's interface MTU: the limit is at its end)";
	if (p->server_if_mtu && p->server_if_mtu > p->search.pmtu)
		return " (both ends' interfaces are larger: the limit is on the way)";
	return "";
}

/* Not even the base size got through: refused by this host, or lost. */
static void judge_base_failed(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_search_result *s = &p->search;
	struct mtu_verdict *v = add(rep, p, "pmtu", MTU_FAIL, 0);

	if (s->probes_refused) {
		REASON(v,
		       "this host refused to send %u of the %u probes of %u bytes "
		       "(sendmsg: %s)%s",
		       s->probes_refused, s->probes_sent, p->records[0].size,
		       strerror(s->refused_errno), s->icmp_seen ? "; ICMP too-big came back" : "");
		fix_refused(v, p, s->refused_errno);
		return;
	}
	REASON(v, "not one probe of %u bytes was delivered (%u sent)%s", p->records[0].size,
	       s->probes_sent, s->icmp_seen ? "; ICMP too-big came back" : "");
	if (s->icmp_mtu)
		FIX(v,
		    "the path says its MTU is %u: probe from a smaller base (--base 576 "
		    "or 68) and lower the MTU to what it finds",
		    s->icmp_mtu);
	else
		FIX(v, "check that UDP reaches the server; probe from a smaller base "
		       "(--base 576 or 68)");
}

/* The search reached the interface's MTU (or its maximum): OK. */
static void judge_full_mtu(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_search_result *s = &p->search;
	struct mtu_verdict *v = add(rep, p, "pmtu", MTU_OK, s->pmtu);

	if (p->fragmenting)
		REASON(v,
		       "%u bytes get through, the full MTU of %s, but above %u only in "
		       "fragments (see fragments)",
		       s->pmtu, ifdesc(rep, i), mtu_path_unfragmented(p));
	else if (s->pmtu > 1500)
		REASON(v,
		       "jumbo path confirmed: MTU %u end to end, MSS %u (%u bytes of "
		       "payload per segment)",
		       s->pmtu, mtu_expected_adv_mss(s->pmtu, p->family),
		       mtu_expected_snd_mss(s->pmtu, p->family, timestamps(p)));
	else
		REASON(v, "path MTU %u confirmed, the full MTU of %s", s->pmtu, ifdesc(rep, i));
}

/* Sizes that were neither delivered nor answered with ICMP: dropped by the
 * far end's smaller interface, refused by this host's stack, or lost on
 * the way. */
static void judge_blackhole(struct mtu_report *rep, unsigned i, const char *icmp)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_search_result *s = &p->search;
	bool refused = s->smallest_refused && s->smallest_refused <= s->smallest_failed;
	struct mtu_verdict *v = add(rep, p, "blackhole", MTU_FAIL, s->pmtu);

	if (refused && far_end_narrower(p)) {
		/* A veth pair (or a driver like it) books the far side's drop of
		 * an oversized frame as a transmit drop, which the sender sees
		 * as ENOBUFS: the limit is the far interface, not this host. */
		REASON(v,
		       "packets of %u bytes and more vanish at the far end: its interface MTU %u "
		       "is smaller than this end's %u and it drops larger frames without ICMP "
		       "(this host's device reported the drop: sendmsg: %s); the largest size "
		       "that passes is %u",
		       s->smallest_failed, p->server_if_mtu, p->if_mtu, strerror(s->refused_errno),
		       s->pmtu);
		FIX(v,
		    "give both ends of the link the same MTU: %u on %s (or raise the far end's "
		    "to %u)",
		    p->server_if_mtu, ifdesc(rep, i), p->if_mtu);
	} else if (refused) {
		REASON(v,
		       "packets of %u bytes and more never leave this host: its stack refused "
		       "them (sendmsg: %s) and sent no ICMP; the largest size that passes is %u",
		       s->smallest_failed, strerror(s->refused_errno), s->pmtu);
		fix_refused(v, p, s->refused_errno);
	} else {
		REASON(v,
		       "packets of %u..%u bytes are black-holed: neither delivered nor "
		       "answered by %s; the path MTU is %u%s",
		       s->smallest_failed, p->if_mtu ? p->if_mtu : s->smallest_failed, icmp,
		       s->pmtu, where(p));
		fix_set_mtu(v, rep, i);
	}
}

static void judge_pmtu(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_search_result *s = &p->search;
	const char *icmp = p->family == AF_INET6 ? "ICMPv6 packet-too-big" : "ICMP frag-needed";
	struct mtu_verdict *v;

	if (s->state == MTU_SEARCH_BASE_FAILED) {
		judge_base_failed(rep, i);
		return;
	}
	if (s->state != MTU_SEARCH_DONE)
		return;
	if (s->reached_max || (p->if_mtu && s->pmtu >= p->if_mtu)) {
		judge_full_mtu(rep, i);
		return;
	}
	if (s->blackhole) {
		judge_blackhole(rep, i, icmp);
		return;
	}
	/* Smaller than the interface, and the path says so with ICMP: a WARN. */
	v = add(rep, p, "pmtu", MTU_WARN, s->pmtu);
	REASON(v,
	       "path MTU %u is below the %u of %s; %s arrives (MTU %u), so PMTU discovery "
	       "works, at the cost of a lost first large packet per flow%s",
	       s->pmtu, p->if_mtu, ifdesc(rep, i), icmp, s->icmp_mtu, where(p));
	fix_set_mtu(v, rep, i);
}

/* The probes carry DF, so IP fragments while they ran mean something on the
 * way (a tunnel ignoring DF on its outer packets) fragments anyway. */
static void judge_df_fragments(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	uint64_t n = p->local_frag_creates + p->remote_reasm_reqds + p->reassembled;
	struct mtu_verdict *v;

	if (!n) {
		v = add(rep, p, "fragments", MTU_OK, 0);
		REASON(v, "no IP fragments while the DF probes ran, on either host");
		return;
	}
	if (p->fragmenting && p->nofrag.state == MTU_SEARCH_DONE) {
		uint32_t fit = p->nofrag.pmtu;

		v = add(rep, p, "fragments", MTU_WARN, fit);
		REASON(v,
		       "DF probes of %u..%u bytes got through only because the packets carrying "
		       "them were fragmented (%llu fragments made here, %llu reassembled at the "
		       "far end): without fragmentation the path carries %u",
		       fit + 1, p->search.pmtu, (unsigned long long)p->local_frag_creates,
		       (unsigned long long)p->remote_reasm_reqds, fit);
		fix_set_mtu(v, rep, i);
		return;
	}
	v = add(rep, p, "fragments", MTU_WARN, (uint32_t)n);
	REASON(v,
	       "IP fragments while the DF probes ran: %llu created here, %llu received for "
	       "reassembly at the far end, %u probes arrived in fragments: something "
	       "encapsulates them without DF and fragments the outer packets",
	       (unsigned long long)p->local_frag_creates, (unsigned long long)p->remote_reasm_reqds,
	       p->reassembled);
	fix_set_mtu(v, rep, i);
}

/* Packets above the path MTU without DF: carried in fragments, or lost. */
static void judge_nodf(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_nodf *n = &p->nodf;
	struct mtu_verdict *v;

	if (!n->run || !n->sent)
		return;
	if (!n->delivered) {
		v = add(rep, p, "nodf", MTU_WARN, n->size);
		REASON(v,
		       "%u-byte packets without DF are lost too: nothing on the path fragments "
		       "them (%llu fragments made here)",
		       n->size, (unsigned long long)n->local_frag_creates);
		fix_set_mtu(v, rep, i);
		return;
	}
	v = add(rep, p, "nodf", MTU_WARN, n->size);
	if (n->reassembled)
		REASON(v,
		       "%u-byte packets without DF arrive in IP fragments (%u of %u reassembled "
		       "at the far end, %llu fragments made here, %llu received there): "
		       "fragmentation costs throughput and loses whole packets with any "
		       "fragment",
		       n->size, n->reassembled, n->delivered,
		       (unsigned long long)n->local_frag_creates,
		       (unsigned long long)n->remote_reasm_reqds);
	else
		REASON(v,
		       "%u-byte packets without DF are carried by fragmenting the outer "
		       "packets (%llu fragments made here, %llu received at the far end)",
		       n->size, (unsigned long long)n->local_frag_creates,
		       (unsigned long long)n->remote_reasm_reqds);
	fix_set_mtu(v, rep, i);
}

static void judge_fragments(struct mtu_report *rep, unsigned i)
{
	if (rep->paths[i].frag_valid)
		judge_df_fragments(rep, i);
	judge_nodf(rep, i);
}

/* Who made the MSS smaller than the client's own, in words. */
static void clamp_words(const struct mtu_mss *m, bool overlay, char *buf, size_t len)
{
	if (m->clamp == MTU_MSS_CLAMPED_ON_PATH && m->syn_arrived && m->syn_arrived < m->syn_sent)
		snprintf(buf, len, ", clamped %s (the SYN left with %u and arrived with %u)",
			 overlay ? "by the overlay or on its path" : "on the path", m->syn_sent,
			 m->syn_arrived);
	else if (m->clamp == MTU_MSS_CLAMPED_ON_PATH)
		snprintf(buf, len, ", clamped %s (the SYN-ACK left with %u)",
			 overlay ? "by the overlay or on its path" : "on the path", m->synack_sent);
	else if (m->clamp == MTU_MSS_FAR_END)
		snprintf(buf, len, ", as the far end advertises (its MTU or its own clamp)");
	else
		buf[0] = '\0';
}

static void judge_mss(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_tcp_result *t = &p->tcp;
	/* What passes without fragmentation is what TCP should be sized for. */
	uint32_t pmtu = mtu_path_unfragmented(p), allowed;
	struct advice a = advise(rep, i);
	struct mtu_verdict *v;
	struct mtu_mss m;
	char who[160];

	if (!t->run)
		return;
	mtu_tcp_mss(t, &m);
	if (!m.valid || !pmtu) {
		v = add(rep, p, "mss", MTU_WARN, 0);
		REASON(v, "TCP MSS not measured: %s", t->error[0] ? t->error : "no path MTU");
		return;
	}
	allowed = mtu_expected_adv_mss(pmtu, p->family);
	clamp_words(&m, is_overlay(rep, i), who, sizeof(who));
	if (!t->completed) {
		v = add(rep, p, "mss", MTU_FAIL, m.option);
		REASON(v,
		       "TCP with MSS %u (%u bytes of payload per segment) stalls%s: the path "
		       "MTU %u allows MSS %u; %s",
		       m.option, m.payload, who, pmtu, allowed, t->error);
		FIX(v, "clamp MSS to %u on %s (or set its MTU to %u)", a.mss, ifdesc(rep, i),
		    a.mtu);
		return;
	}
	if (m.option > allowed) {
		v = add(rep, p, "mss", MTU_WARN, m.option);
		REASON(v,
		       "MSS %u on the SYNs%s is larger than the path MTU %u allows (MSS %u): "
		       "PMTU discovery had to bring the payload per segment from %u at connect "
		       "to %u (server end %u)",
		       m.option, who, pmtu, allowed, t->client_initial.snd_mss, t->client.snd_mss,
		       t->server.snd_mss);
		FIX(v, "clamp MSS to %u on %s (or set its MTU to %u)", a.mss, ifdesc(rep, i),
		    a.mtu);
		return;
	}
	v = add(rep, p, "mss", MTU_OK, m.option);
	if (m.option < allowed)
		REASON(v,
		       "MSS %u (%u bytes of payload per segment)%s: fits the path MTU %u, "
		       "which allows up to MSS %u",
		       m.option, m.payload, who, pmtu, allowed);
	else if (pmtu > 1500)
		REASON(v,
		       "jumbo path confirmed: MSS %u, %u bytes of payload per segment "
		       "(server end %u)",
		       m.option, m.payload, t->server.snd_mss);
	else
		REASON(v,
		       "MSS %u (%u bytes of payload per segment) matches path MTU %u "
		       "(server end %u)",
		       m.option, m.payload, pmtu, t->server.snd_mss);
}

static void judge_tunnel(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_tunnel *t = &rep->tunnels[i];
	bool builtin = rep->roles[i].kind == MTU_PATH_BUILTIN;
	struct mtu_verdict *v;

	if (!t->valid)
		return;
	if (t->overlay_if_mtu > t->inner_expected) {
		v = add(rep, p, "tunnel", p->search.blackhole ? MTU_FAIL : MTU_WARN,
			t->overlay_if_mtu);
		REASON(v,
		       "overlay MTU %u is larger than the underlay can carry: underlay path MTU "
		       "%u - %d bytes of encapsulation inside the MTU = %u%s",
		       t->overlay_if_mtu, t->underlay_pmtu,
		       builtin ? (int)t->overhead_expected : t->overhead_inferred,
		       t->inner_expected, p->search.blackhole ? "; larger packets vanish" : "");
		fix_set_mtu(v, rep, i);
		return;
	}
	if (builtin && t->overlay_pmtu < t->inner_expected) {
		v = add(rep, p, "tunnel", MTU_WARN, t->overlay_pmtu);
		REASON(v,
		       "the overlay carries %u but the underlay allows %u (%u - %u): %u bytes "
		       "per packet unused",
		       t->overlay_pmtu, t->inner_expected, t->underlay_pmtu, t->overhead_expected,
		       t->inner_expected - t->overlay_pmtu);
		FIX(v, "set the overlay MTU to %u", advise(rep, i).mtu);
		return;
	}
	v = add(rep, p, "tunnel", MTU_OK,
		(uint32_t)(t->overhead_inferred > 0 ? t->overhead_inferred : 0));
	if (builtin)
		REASON(v,
		       "overlay MTU %u = underlay path MTU %u - %u bytes of encapsulation inside "
		       "the MTU",
		       t->overlay_pmtu, t->underlay_pmtu, t->overhead_expected);
	else if (p->search.reached_max && !p->fragmenting)
		/* The overlay's own MTU stopped the search, not the underlay. */
		REASON(v, "overlay MTU %u fits the underlay path MTU %u: overhead at most %d bytes",
		       t->overlay_pmtu, t->underlay_pmtu, t->overhead_inferred);
	else
		REASON(v, "overlay overhead %d bytes (underlay path MTU %u, overlay %u)",
		       t->overhead_inferred, t->underlay_pmtu, t->overlay_pmtu);
}

static void judge_expect(struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	struct mtu_verdict *v;

	if (p->spec.expect_mtu) {
		bool ok = p->search.pmtu == p->spec.expect_mtu;

		v = add(rep, p, "expect", ok ? MTU_OK : MTU_FAIL, p->search.pmtu);
		REASON(v, "path MTU %u, expected %u", p->search.pmtu, p->spec.expect_mtu);
	}
	if (p->spec.expect_mss && p->tcp.run) {
		struct mtu_mss m;
		bool ok;

		/* The option value: what users configure and clamps set. */
		mtu_tcp_mss(&p->tcp, &m);
		ok = m.valid && m.option == p->spec.expect_mss;
		v = add(rep, p, "expect", ok ? MTU_OK : MTU_FAIL, m.option);
		REASON(v, "TCP MSS %u (%u bytes of payload per segment), expected %u", m.option,
		       m.payload, p->spec.expect_mss);
	}
}

void mtu_verdicts(struct mtu_report *rep)
{
	rep->nverdicts = 0;
	mtu_check_tunnels(rep);
	for (unsigned i = 0; i < rep->npaths && i < MTU_MAX_PATHS; i++) {
		const struct mtu_path_result *p = &rep->paths[i];

		if (p->status) {
			struct mtu_verdict *v = add(rep, p, "probe", MTU_FAIL, 0);

			REASON(v, "%s", p->error[0] ? p->error : "probing failed");
			FIX(v,
			    "check that `ovlperf server` runs on %s and that its port is reachable",
			    p->spec.host);
			continue;
		}
		judge_pmtu(rep, i);
		judge_fragments(rep, i);
		judge_mss(rep, i);
		judge_tunnel(rep, i);
		judge_expect(rep, i);
	}
}

enum mtu_level mtu_report_worst(const struct mtu_report *rep)
{
	enum mtu_level worst = MTU_OK;

	for (unsigned i = 0; i < rep->nverdicts; i++)
		if (rep->verdicts[i].level > worst)
			worst = rep->verdicts[i].level;
	return worst;
}

const char *mtu_level_name(enum mtu_level level)
{
	switch (level) {
	case MTU_OK:
		return "OK";
	case MTU_WARN:
		return "WARN";
	case MTU_FAIL:
		return "FAIL";
	}
	return "?";
}

const char *mtu_path_kind_name(enum mtu_path_kind kind)
{
	switch (kind) {
	case MTU_PATH_PLAIN:
		return "plain";
	case MTU_PATH_UNDERLAY:
		return "underlay";
	case MTU_PATH_BUILTIN:
		return "builtin";
	case MTU_PATH_EXTERNAL:
		return "external";
	}
	return "?";
}
