// SPDX-License-Identifier: MIT
/*
 * `ovlperf lab show --json`: the lab's spec and, per host, what the kernel
 * reports about its interfaces. Schema "ovlperf-lab" version 1:
 *   { "schema": "ovlperf-lab", "schema_version": 1, "version": 1 (the same,
 *     kept for the readers written before schema_version), "name": "lab",
 *     "owner": "lab up" or "run" (who made it), "creator_pid", "tcp_rmem_max" and
 *     "tcp_wmem_max" (bytes, when the lab set them), "cpus" (each host's CPU
 *     list, when the lab gives them: ["0", "1"]),
 *     "links": [ { "index", "a", "b", "ifname", "mtu", "rate_bps", "rate_layer",
 *                  "drop_pct",
 *                  "block_icmp_too_big", "means" ("none", "netem" or
 *                  "userspace"), "conditions" ("delay 40ms loss 1%", the keys'
 *                  spelling), and for userspace "netns" (the link namespace)
 *                  and "counters" (its emulator's, as `ovlperf link show
 *                  --json` prints them, or null when unreadable) } ],
 *     "hosts": [ { "index", "netns",
 *                  "interfaces": [ { "name", "ifindex", "mtu", "up", "carrier",
 *                                    "qdisc", "addresses": [ "198.18.0.1/24" ] } ] } ] }
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "lab_int.h"

/* How link k's conditions are made, and the emulator's namespace and counters. */
static bool cond_json(const struct lab *lab, unsigned l, cJSON *o)
{
	const struct lab_link_spec *k = &lab->st.spec.links[l];
	struct link_counters c;
	char text[256] = "";
	cJSON *cnt = NULL;
	char *js = NULL;
	size_t jlen = 0;
	FILE *f;

	if (lab_link_cond_str(k, text, sizeof(text)) ||
	    !cJSON_AddStringToObject(
		    o, "means", k->means == LAB_MEANS_AUTO ? "none" : lab_means_name(k->means)) ||
	    !cJSON_AddStringToObject(o, "conditions", text))
		return false;
	if (k->means != LAB_MEANS_USERSPACE)
		return true;
	if (!cJSON_AddStringToObject(o, "netns", lab_link_netns_name(lab, l) ?: ""))
		return false;
	if (lab_link_counters(lab, l, &c) == 0 && (f = open_memstream(&js, &jlen))) {
		bool ok = link_counters_print_json(f, &c) == 0;

		if (fclose(f) == 0 && ok)
			cnt = cJSON_Parse(js);
		free(js);
	}
	if (!cnt)
		cnt = cJSON_CreateNull();
	return cnt && cJSON_AddItemToObject(o, "counters", cnt);
}

static cJSON *links_json(const struct lab *lab)
{
	const struct lab_spec *s = &lab->st.spec;
	cJSON *arr = cJSON_CreateArray();

	for (unsigned l = 0; arr && l < s->nlinks; l++) {
		const struct lab_link_spec *k = &s->links[l];
		cJSON *o = cJSON_CreateObject();
		char ifname[16];

		if (!o || !cJSON_AddItemToArray(arr, o))
			goto fail;
		snprintf(ifname, sizeof(ifname), "ovp%u", l);
		if (!cJSON_AddNumberToObject(o, "index", l) ||
		    !cJSON_AddNumberToObject(o, "a", k->a) ||
		    !cJSON_AddNumberToObject(o, "b", k->b) ||
		    !cJSON_AddStringToObject(o, "ifname", ifname) ||
		    !cJSON_AddNumberToObject(o, "mtu", k->mtu ? k->mtu : LAB_DEFAULT_MTU) ||
		    !cJSON_AddNumberToObject(o, "rate_bps", (double)k->rate_bps) ||
		    !cJSON_AddStringToObject(o, "rate_layer", lab_rate_layer_name(k)) ||
		    !cJSON_AddNumberToObject(o, "drop_pct", k->drop_pct) ||
		    !cJSON_AddBoolToObject(o, "block_icmp_too_big", k->block_icmp_too_big) ||
		    !cond_json(lab, l, o))
			goto fail;
	}
	return arr;
fail:
	cJSON_Delete(arr);
	return NULL;
}

static cJSON *if_json(const struct lab_if_info *in)
{
	cJSON *o = cJSON_CreateObject(), *addrs;

	if (!o || !cJSON_AddStringToObject(o, "name", in->name) ||
	    !cJSON_AddNumberToObject(o, "ifindex", in->ifindex) ||
	    !cJSON_AddNumberToObject(o, "mtu", in->mtu) ||
	    !cJSON_AddBoolToObject(o, "up", in->up) ||
	    !cJSON_AddBoolToObject(o, "carrier", in->carrier) ||
	    !cJSON_AddStringToObject(o, "qdisc", in->qdisc) ||
	    !(addrs = cJSON_AddArrayToObject(o, "addresses")))
		goto fail;
	for (unsigned a = 0; a < in->naddrs && a < LAB_IF_MAX_ADDRS; a++) {
		cJSON *s = cJSON_CreateString(in->addrs[a]);

		if (!s || !cJSON_AddItemToArray(addrs, s)) {
			cJSON_Delete(s);
			goto fail;
		}
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static int host_json(const struct lab *lab, unsigned h, cJSON *hosts)
{
	struct lab_if_info ifs[16];
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t n = 0;
	int rc;

	if (!o || !cJSON_AddItemToArray(hosts, o))
		return -ENOMEM;
	if (!cJSON_AddNumberToObject(o, "index", h) ||
	    !cJSON_AddStringToObject(o, "netns", lab_netns_name(lab, h)) ||
	    !(arr = cJSON_AddArrayToObject(o, "interfaces")))
		return -ENOMEM;
	rc = lab_host_interfaces(lab, h, ifs, sizeof(ifs) / sizeof(ifs[0]), &n);
	for (size_t i = 0; !rc && i < n && i < sizeof(ifs) / sizeof(ifs[0]); i++) {
		cJSON *in = if_json(&ifs[i]);

		if (!in || !cJSON_AddItemToArray(arr, in)) {
			cJSON_Delete(in);
			rc = -ENOMEM;
		}
	}
	return rc;
}

int lab_json(const struct lab *lab, char **out)
{
	const struct lab_spec *s = lab_get_spec(lab);
	cJSON *root = cJSON_CreateObject(), *links, *hosts;
	int rc = -ENOMEM;

	*out = NULL;
	if (!root || !cJSON_AddStringToObject(root, "schema", "ovlperf-lab") ||
	    !cJSON_AddNumberToObject(root, "schema_version", LAB_JSON_VERSION) ||
	    !cJSON_AddNumberToObject(root, "version", LAB_JSON_VERSION) ||
	    !cJSON_AddStringToObject(root, "name", s->name) ||
	    !cJSON_AddStringToObject(root, "owner", lab_owner_name(lab->st.owner)) ||
	    !cJSON_AddNumberToObject(root, "creator_pid", lab->st.pid) ||
	    (s->tcp_rmem_max && !cJSON_AddNumberToObject(root, "tcp_rmem_max", s->tcp_rmem_max)) ||
	    (s->tcp_wmem_max && !cJSON_AddNumberToObject(root, "tcp_wmem_max", s->tcp_wmem_max)))
		goto out;
	if (s->cpus_hosts) {
		const char *lists[LAB_MAX_HOSTS];
		cJSON *cpus;

		for (unsigned h = 0; h < s->cpus_hosts && h < LAB_MAX_HOSTS; h++)
			lists[h] = s->cpus[h];
		cpus = cJSON_CreateStringArray(lists, (int)s->cpus_hosts);
		if (!cpus || !cJSON_AddItemToObject(root, "cpus", cpus)) {
			cJSON_Delete(cpus);
			goto out;
		}
	}
	links = links_json(lab);
	if (!links || !cJSON_AddItemToObject(root, "links", links)) {
		cJSON_Delete(links);
		goto out;
	}
	hosts = cJSON_AddArrayToObject(root, "hosts");
	if (!hosts)
		goto out;
	rc = 0;
	for (unsigned h = 0; !rc && h < s->nhosts; h++)
		rc = host_json(lab, h, hosts);
	if (!rc) {
		*out = cJSON_Print(root);
		rc = *out ? 0 : -ENOMEM;
	}
out:
	cJSON_Delete(root);
	return rc;
}
