// SPDX-License-Identifier: MIT
/*
 * One host's facts as JSON and back (hostfacts_json.h); the names are
 * docs/json.md's host_facts.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hostfacts_json.h"

static const char *const by_names[] = { "tun", "udp", "builtin", "process" };

/* A number; NaN and infinities as 0 (JSON has neither). */
static bool num(cJSON *o, const char *k, double v)
{
	return cJSON_AddNumberToObject(o, k, isfinite(v) ? v : 0) != NULL;
}

static bool str(cJSON *o, const char *k, const char *v)
{
	return cJSON_AddStringToObject(o, k, v) != NULL;
}

static bool child(cJSON *o, const char *k, cJSON *c)
{
	if (!c)
		return false;
	if (!cJSON_AddItemToObject(o, k, c)) {
		cJSON_Delete(c);
		return false;
	}
	return true;
}

static cJSON *cgroup_json(const struct hostfacts_cgroup *c)
{
	cJSON *o;

	if (!c->found)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (o && num(o, "version", c->version) && str(o, "path", c->path) &&
	    num(o, "quota_cores", c->quota_cores) &&
	    num(o, "throttled_ms", c->throttled_ns / 1e6) &&
	    num(o, "nr_periods", (double)c->nr_periods) &&
	    num(o, "nr_throttled", (double)c->nr_throttled))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *proc_json(const struct hostfacts_proc *p)
{
	cJSON *o = cJSON_CreateObject(), *by = cJSON_CreateArray();
	bool ok = o && by;

	for (unsigned i = 0; ok && i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (p->found_by & (1u << i))
			ok = cJSON_AddItemToArray(by, cJSON_CreateString(by_names[i]));
	ok = ok && num(o, "pid", p->pid) && str(o, "comm", p->comm) && child(o, "found_by", by);
	by = NULL;
	ok = ok && str(o, "tun", p->tun) && num(o, "udp_port", p->udp_port) &&
	     num(o, "cores", p->cores) && str(o, "busiest_thread", p->busiest) &&
	     num(o, "busiest_tid", p->busiest_tid) && num(o, "busiest_cores", p->busiest_cores) &&
	     child(o, "cgroup", cgroup_json(&p->cgroup));
	if (ok)
		return o;
	cJSON_Delete(by);
	cJSON_Delete(o);
	return NULL;
}

static cJSON *u32s(const uint32_t *v, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < n; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]))) {
			cJSON_Delete(a);
			return NULL;
		}
	return a;
}

static cJSON *tcp_json(const struct hostfacts *f)
{
	cJSON *o;

	if (!f->sysctl_known)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (o && str(o, "congestion_control", f->cc) &&
	    child(o, "tcp_rmem", u32s(f->tcp_rmem, 3)) &&
	    child(o, "tcp_wmem", u32s(f->tcp_wmem, 3)) && num(o, "rmem_max", f->rmem_max) &&
	    num(o, "wmem_max", f->wmem_max))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *machine_json(const struct hostfacts *f)
{
	cJSON *o = cJSON_CreateObject();

	if (o && num(o, "busy_cores", f->machine_cores) &&
	    (f->baseline_cores >= 0 ? num(o, "baseline_cores", f->baseline_cores)
				    : cJSON_AddNullToObject(o, "baseline_cores") != NULL) &&
	    cJSON_AddBoolToObject(o, "rest_moved", f->rest_moved))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *softirq_json(const struct hostfacts *f)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();

	for (unsigned i = 0; a && i < f->ncpu; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(f->softirq[i]))) {
			cJSON_Delete(a);
			a = NULL;
		}
	if (o && child(o, "cpu", a) && num(o, "busiest", f->softirq_busiest))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *softnet_json(const struct hostfacts *f)
{
	cJSON *o;

	if (!f->softnet_known)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (o && num(o, "dropped", (double)f->softnet_dropped) &&
	    num(o, "time_squeeze", (double)f->softnet_squeezed))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *links_json(const struct hostfacts *f)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; a && i < f->nlinks; i++) {
		const struct hostfacts_link *l = &f->links[i];
		cJSON *o = cJSON_CreateObject();

		if (!o || !str(o, "name", l->name) || !cJSON_AddBoolToObject(o, "tun", l->tun) ||
		    !num(o, "txqlen", l->txqlen) || !num(o, "rx_drops", (double)l->rx_drops) ||
		    !num(o, "tx_drops", (double)l->tx_drops) || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

static cJSON *socks_json(const struct hostfacts *f)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; a && i < f->nsocks; i++) {
		const struct hostfacts_sock *s = &f->socks[i];
		cJSON *o = cJSON_CreateObject();

		if (!o || !num(o, "pid", s->pid) || !str(o, "comm", s->comm) ||
		    !num(o, "port", s->port) || !num(o, "family", s->family) ||
		    !num(o, "drops", (double)s->drops) || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

static cJSON *procs_json(const struct hostfacts *f)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; a && i < f->nprocs; i++) {
		cJSON *p = proc_json(&f->procs[i]);

		if (!p || !cJSON_AddItemToArray(a, p)) {
			cJSON_Delete(p);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

cJSON *hostfacts_json(const struct hostfacts *f)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (!f->known) {
		if (cJSON_AddBoolToObject(o, "known", false) &&
		    str(o, "unknown", f->unknown[0] ? f->unknown : "not measured"))
			return o;
		cJSON_Delete(o);
		return NULL;
	}
	if (cJSON_AddBoolToObject(o, "known", true) && num(o, "window_s", f->window_s) &&
	    child(o, "test", proc_json(&f->test)) && child(o, "processes", procs_json(f)) &&
	    child(o, "machine", machine_json(f)) && child(o, "softirq", softirq_json(f)) &&
	    child(o, "softnet", softnet_json(f)) && child(o, "links", links_json(f)) &&
	    child(o, "udp_sockets", socks_json(f)) && child(o, "tcp", tcp_json(f)))
		return o;
	cJSON_Delete(o);
	return NULL;
}

cJSON *hostfacts_json_pair(const struct hostfacts *client, const struct hostfacts *server)
{
	cJSON *o = cJSON_CreateObject();

	if (o && child(o, "client", hostfacts_json(client)) &&
	    child(o, "server", hostfacts_json(server)))
		return o;
	cJSON_Delete(o);
	return NULL;
}

/* ---- reading back ---------------------------------------------------- */

static double rnum(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static uint64_t ru64(const cJSON *o, const char *k)
{
	double v = rnum(o, k, 0);

	return v > 0 && v < 1.8e19 ? (uint64_t)v : 0;
}

static uint32_t ru32(const cJSON *o, const char *k)
{
	double v = rnum(o, k, 0);

	return v > 0 && v < 4294967296.0 ? (uint32_t)v : 0;
}

static void rstr(const cJSON *o, const char *k, char *dst, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	snprintf(dst, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static bool rbool(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void read_proc(const cJSON *o, struct hostfacts_proc *p)
{
	const cJSON *by = cJSON_GetObjectItemCaseSensitive(o, "found_by"), *e;
	const cJSON *cg = cJSON_GetObjectItemCaseSensitive(o, "cgroup");

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(o))
		return;
	p->pid = (int)rnum(o, "pid", 0);
	rstr(o, "comm", p->comm, sizeof(p->comm));
	cJSON_ArrayForEach(
		e,
		(cJSON_IsArray(by) ? by : NULL)) for (unsigned i = 0;
						      i < sizeof(by_names) / sizeof(by_names[0]);
						      i++) if (cJSON_IsString(e) &&
							       !strcmp(e->valuestring, by_names[i]))
		p->found_by |= 1u << i;
	rstr(o, "tun", p->tun, sizeof(p->tun));
	p->udp_port = (uint16_t)ru32(o, "udp_port");
	p->cores = rnum(o, "cores", 0);
	rstr(o, "busiest_thread", p->busiest, sizeof(p->busiest));
	p->busiest_tid = (int)rnum(o, "busiest_tid", 0);
	p->busiest_cores = rnum(o, "busiest_cores", 0);
	if (!cJSON_IsObject(cg))
		return;
	p->cgroup.found = true;
	p->cgroup.version = (uint8_t)ru32(cg, "version");
	rstr(cg, "path", p->cgroup.path, sizeof(p->cgroup.path));
	p->cgroup.quota_cores = rnum(cg, "quota_cores", 0);
	p->cgroup.throttled_ns = (uint64_t)llround(rnum(cg, "throttled_ms", 0) * 1e6);
	p->cgroup.nr_periods = ru64(cg, "nr_periods");
	p->cgroup.nr_throttled = ru64(cg, "nr_throttled");
}

static void read_u32s(const cJSON *o, const char *k, uint32_t *v, int n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);

	for (int i = 0; i < n; i++) {
		const cJSON *e = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : NULL;

		v[i] = cJSON_IsNumber(e) && e->valuedouble > 0 ? (uint32_t)e->valuedouble : 0;
	}
}

static void read_tail(const cJSON *o, struct hostfacts *f)
{
	const cJSON *tcp = cJSON_GetObjectItemCaseSensitive(o, "tcp");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "machine");
	const cJSON *si = cJSON_GetObjectItemCaseSensitive(o, "softirq");
	const cJSON *sn = cJSON_GetObjectItemCaseSensitive(o, "softnet");
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(si, "cpu"), *e;

	f->machine_cores = rnum(m, "busy_cores", 0);
	f->baseline_cores = rnum(m, "baseline_cores", -1);
	f->rest_moved = rbool(m, "rest_moved");
	cJSON_ArrayForEach(e, (cJSON_IsArray(cpu) ? cpu : NULL))
	{
		if (f->ncpu >= HOSTFACTS_MAX_CPUS)
			break;
		f->softirq[f->ncpu++] = cJSON_IsNumber(e) ? e->valuedouble : 0;
	}
	f->softirq_busiest = (int)rnum(si, "busiest", -1);
	f->softnet_known = cJSON_IsObject(sn);
	f->softnet_dropped = ru64(sn, "dropped");
	f->softnet_squeezed = ru64(sn, "time_squeeze");
	f->sysctl_known = cJSON_IsObject(tcp);
	rstr(tcp, "congestion_control", f->cc, sizeof(f->cc));
	read_u32s(tcp, "tcp_rmem", f->tcp_rmem, 3);
	read_u32s(tcp, "tcp_wmem", f->tcp_wmem, 3);
	f->rmem_max = ru32(tcp, "rmem_max");
	f->wmem_max = ru32(tcp, "wmem_max");
}

static void read_lists(const cJSON *o, struct hostfacts *f)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "processes"))
	{
		if (f->nprocs >= HOSTFACTS_MAX_PROCS)
			break;
		read_proc(e, &f->procs[f->nprocs++]);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "links"))
	{
		struct hostfacts_link *l = &f->links[f->nlinks];

		if (f->nlinks >= HOSTFACTS_MAX_LINKS)
			break;
		f->nlinks++;
		rstr(e, "name", l->name, sizeof(l->name));
		l->tun = rbool(e, "tun");
		l->txqlen = ru32(e, "txqlen");
		l->rx_drops = ru64(e, "rx_drops");
		l->tx_drops = ru64(e, "tx_drops");
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "udp_sockets"))
	{
		struct hostfacts_sock *s = &f->socks[f->nsocks];

		if (f->nsocks >= HOSTFACTS_MAX_SOCKS)
			break;
		f->nsocks++;
		s->pid = ru32(e, "pid");
		rstr(e, "comm", s->comm, sizeof(s->comm));
		s->port = (uint16_t)ru32(e, "port");
		s->family = (uint8_t)ru32(e, "family");
		s->drops = ru64(e, "drops");
	}
}

void hostfacts_json_read(const cJSON *o, struct hostfacts *f)
{
	char why[HOSTFACTS_WHY];

	if (!cJSON_IsObject(o)) {
		hostfacts_unknown(f, "not recorded");
		return;
	}
	rstr(o, "unknown", why, sizeof(why));
	hostfacts_unknown(f, why);
	if (!rbool(o, "known"))
		return;
	f->known = true;
	f->window_s = rnum(o, "window_s", 0);
	read_proc(cJSON_GetObjectItemCaseSensitive(o, "test"), &f->test);
	read_lists(o, f);
	read_tail(o, f);
}

void hostfacts_json_read_pair(const cJSON *o, struct hostfacts *client, struct hostfacts *server)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "host_facts");

	hostfacts_json_read(cJSON_GetObjectItemCaseSensitive(p, "client"), client);
	hostfacts_json_read(cJSON_GetObjectItemCaseSensitive(p, "server"), server);
}
