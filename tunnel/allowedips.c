// SPDX-License-Identifier: MIT
/*
 * A path-compressed binary trie: each node holds a prefix (key, cidr) and two
 * children; a node without an owner only joins two branches. Lookup walks at
 * most one node per distinct prefix length on the path, comparing whole
 * prefixes with a mask, so an IPv4 lookup in a table of thousands of /32s
 * costs a handful of steps.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "allowedips.h"

struct allowedips_node {
	struct allowedips_node *child[2];
	void *peer;	 /* NULL: an inner node that only joins branches */
	uint8_t key[16]; /* host bits beyond cidr are zero */
	unsigned cidr;
};

static unsigned family_bits(int family)
{
	return family == AF_INET ? 32 : family == AF_INET6 ? 128 : 0;
}

static unsigned bit_at(const uint8_t *a, unsigned i)
{
	return (a[i / 8] >> (7 - i % 8)) & 1;
}

/* Length of the common prefix of a and b, at most max bits. */
static unsigned common_bits(const uint8_t *a, const uint8_t *b, unsigned max)
{
	unsigned i = 0;

	while (i + 8 <= max && a[i / 8] == b[i / 8])
		i += 8;
	while (i < max && bit_at(a, i) == bit_at(b, i))
		i++;
	return i;
}

static void masked(uint8_t out[16], const uint8_t *addr, unsigned bits, unsigned cidr)
{
	memset(out, 0, 16);
	memcpy(out, addr, bits / 8);
	for (unsigned i = cidr; i < bits; i++)
		out[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
}

static bool node_contains(const struct allowedips_node *n, const uint8_t *addr)
{
	return common_bits(n->key, addr, n->cidr) == n->cidr;
}

void allowedips_init(struct allowedips *t)
{
	memset(t, 0, sizeof(*t));
}

static struct allowedips_node *new_node(const uint8_t key[16], unsigned cidr, void *peer)
{
	struct allowedips_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	memcpy(n->key, key, 16);
	n->cidr = cidr;
	n->peer = peer;
	return n;
}

int allowedips_insert(struct allowedips *t, int family, const uint8_t *addr, unsigned cidr,
		      void *peer)
{
	unsigned bits = family_bits(family);
	struct allowedips_node **slot, *n, *add, *join;
	uint8_t key[16];
	unsigned common;

	if (!bits || cidr > bits || !peer)
		return -EINVAL;
	masked(key, addr, bits, cidr);
	slot = family == AF_INET ? &t->root4 : &t->root6;
	while ((n = *slot)) {
		common = common_bits(n->key, key, cidr < n->cidr ? cidr : n->cidr);
		if (common == n->cidr && n->cidr == cidr) {
			if (!n->peer)
				t->nprefixes++;
			n->peer = peer;
			return 0;
		}
		if (common == n->cidr && n->cidr < cidr) {
			slot = &n->child[bit_at(key, n->cidr)];
			continue;
		}
		break;
	}
	add = new_node(key, cidr, peer);
	if (!add)
		return -ENOMEM;
	t->nprefixes++;
	if (!n) {
		*slot = add;
		return 0;
	}
	/* n diverges from key, or key is a shorter prefix of n. */
	common = common_bits(n->key, key, cidr < n->cidr ? cidr : n->cidr);
	if (common == cidr) {
		add->child[bit_at(n->key, cidr)] = n;
		*slot = add;
		return 0;
	}
	join = new_node(key, common, NULL);
	if (!join) {
		free(add);
		t->nprefixes--;
		return -ENOMEM;
	}
	masked(join->key, key, bits, common);
	join->child[bit_at(key, common)] = add;
	join->child[bit_at(n->key, common)] = n;
	*slot = join;
	return 0;
}

/* Removes ownerless nodes with fewer than two children below *slot's parent. */
static void prune(struct allowedips_node **slot)
{
	struct allowedips_node *n = *slot;

	if (!n || n->peer)
		return;
	if (n->child[0] && n->child[1])
		return;
	*slot = n->child[0] ? n->child[0] : n->child[1];
	free(n);
}

int allowedips_remove(struct allowedips *t, int family, const uint8_t *addr, unsigned cidr)
{
	unsigned bits = family_bits(family);
	struct allowedips_node **slot, **parent = NULL, *n;
	uint8_t key[16];

	if (!bits || cidr > bits)
		return -EINVAL;
	masked(key, addr, bits, cidr);
	slot = family == AF_INET ? &t->root4 : &t->root6;
	while ((n = *slot) && n->cidr <= cidr && node_contains(n, key)) {
		if (n->cidr == cidr) {
			if (!n->peer)
				return -ENOENT;
			n->peer = NULL;
			t->nprefixes--;
			prune(slot);
			if (parent)
				prune(parent);
			return 0;
		}
		parent = slot;
		slot = &n->child[bit_at(key, n->cidr)];
	}
	return -ENOENT;
}

static size_t remove_peer_rec(struct allowedips_node **slot, void *peer)
{
	struct allowedips_node *n = *slot;
	size_t removed = 0;

	if (!n)
		return 0;
	removed += remove_peer_rec(&n->child[0], peer);
	removed += remove_peer_rec(&n->child[1], peer);
	if (n->peer == peer) {
		n->peer = NULL;
		removed++;
	}
	prune(slot);
	return removed;
}

size_t allowedips_remove_peer(struct allowedips *t, void *peer)
{
	size_t n = remove_peer_rec(&t->root4, peer) + remove_peer_rec(&t->root6, peer);

	t->nprefixes -= n;
	return n;
}

void *allowedips_lookup(const struct allowedips *t, int family, const uint8_t *addr)
{
	const struct allowedips_node *n = family == AF_INET    ? t->root4
					  : family == AF_INET6 ? t->root6
							       : NULL;
	void *best = NULL;

	while (n && node_contains(n, addr)) {
		if (n->peer)
			best = n->peer;
		if (n->cidr >= family_bits(family))
			break;
		n = n->child[bit_at(addr, n->cidr)];
	}
	return best;
}

static void walk_rec(const struct allowedips_node *n, int family, void *peer,
		     void (*fn)(void *, int, const uint8_t *, unsigned), void *ctx)
{
	if (!n)
		return;
	if (n->peer == peer)
		fn(ctx, family, n->key, n->cidr);
	walk_rec(n->child[0], family, peer, fn, ctx);
	walk_rec(n->child[1], family, peer, fn, ctx);
}

void allowedips_walk_peer(const struct allowedips *t, void *peer,
			  void (*fn)(void *ctx, int family, const uint8_t *addr, unsigned cidr),
			  void *ctx)
{
	walk_rec(t->root4, AF_INET, peer, fn, ctx);
	walk_rec(t->root6, AF_INET6, peer, fn, ctx);
}

static void free_rec(struct allowedips_node *n)
{
	if (!n)
		return;
	free_rec(n->child[0]);
	free_rec(n->child[1]);
	free(n);
}

void allowedips_free(struct allowedips *t)
{
	free_rec(t->root4);
	free_rec(t->root6);
	allowedips_init(t);
}
