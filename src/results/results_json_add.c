// SPDX-License-Identifier: MIT
/*
 * run.json's writer's building blocks (results_json_int.h): a table of
 * plain fields as an object, a child, a string, a number and where
 * datagrams were lost added under a name. Both halves of the writer,
 * results_json.c and results_json_summary.c, use them; they use neither.
 */
#include <math.h>
#include <stddef.h>

#include <cJSON.h>

#include "results.h"
#include "results_fields.h"
#include "results_json_int.h"

static cJSON *rj_put_fields(cJSON *obj, const void *base, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n && obj; i++) {
		const char *p = (const char *)base + f[i].off;
		cJSON *v = NULL;

		switch (f[i].type) {
		case F_U64:
			v = cJSON_CreateNumber((double)*(const uint64_t *)p);
			break;
		case F_U32:
			v = cJSON_CreateNumber(*(const uint32_t *)p);
			break;
		case F_UINT:
			v = cJSON_CreateNumber(*(const unsigned *)p);
			break;
		case F_DBL: {
			double d = *(const double *)p;

			v = cJSON_CreateNumber(isfinite(d) ? d : 0);
			break;
		}
		case F_BOOL:
			v = cJSON_CreateBool(*(const bool *)p);
			break;
		}
		if (!v || !cJSON_AddItemToObject(obj, f[i].name, v)) {
			cJSON_Delete(v);
			return NULL;
		}
	}
	return obj;
}

cJSON *rj_obj_of(const void *base, const struct field *f, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	if (o && !rj_put_fields(o, base, f, n)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Adds child under name; on failure deletes child and returns false. */
bool rj_add_child(cJSON *parent, const char *name, cJSON *child)
{
	if (!child)
		return false;
	if (!cJSON_AddItemToObject(parent, name, child)) {
		cJSON_Delete(child);
		return false;
	}
	return true;
}

bool rj_add_str(cJSON *o, const char *name, const char *s)
{
	return cJSON_AddStringToObject(o, name, s ? s : "") != NULL;
}

bool rj_add_num(cJSON *o, const char *name, double v)
{
	return cJSON_AddNumberToObject(o, name, isfinite(v) ? v : 0) != NULL;
}

/* Where datagrams were lost: KEY, the places (loss_fields), each a count of
 * datagrams summing to lost; and beside it DETAIL_KEY, only when the run
 * knew any of it, what the fixes name (loss_place.h): the emulated link,
 * the sender's qdisc, interface and its queue, the test socket's buffer and
 * the one that would have held the overflow, and "other_socket", the
 * receiving host's other socket that dropped most; so that `report DIR`
 * names them as the run did. */
bool rj_add_loss(cJSON *o, const char *key, const char *detail_key, const struct loss_attrib *l)
{
	cJSON *d, *s;

	if (!rj_add_child(o, key, rj_obj_of(l, loss_fields, NF(loss_fields))))
		return false;
	if (!l->network_where[0] && !l->qdisc_kind[0] && !l->qdisc_if[0] && !l->sender_txqlen &&
	    !l->rcvbuf_bytes && !l->rcvbuf_need_bytes && !l->other_port && !l->backlog_max)
		return true;
	d = rj_obj_of(l, loss_detail_fields, NF(loss_detail_fields));
	if (!rj_add_child(o, detail_key, d))
		return false;
	if ((l->network_where[0] && !rj_add_str(d, "network_where", l->network_where)) ||
	    (l->qdisc_kind[0] && !rj_add_str(d, "qdisc_kind", l->qdisc_kind)) ||
	    (l->qdisc_if[0] && !rj_add_str(d, "qdisc_if", l->qdisc_if)))
		return false;
	if (!l->other_port)
		return true;
	s = rj_obj_of(l, other_socket_fields, NF(other_socket_fields));
	return rj_add_child(d, "other_socket", s) && rj_add_str(s, "owner", l->other_owner) &&
	       rj_add_num(s, "port", l->other_port) && rj_add_num(s, "family", l->other_family);
}

bool rj_add_array_item(cJSON *arr, cJSON *item)
{
	if (!item)
		return false;
	if (!cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		return false;
	}
	return true;
}
