/* SPDX-License-Identifier: MIT */
/*
 * Cryptokey routing table: longest-prefix match from an IPv4 or IPv6 address
 * to the peer that owns it. Used on send (which peer encrypts this inner
 * packet) and on receive (is this peer allowed to send from this source).
 *
 * One binary trie per family. Nodes are allocated at configuration time only;
 * lookups allocate nothing and take no locks: the table is built before the
 * data-path threads start and is read-only while they run.
 */
#ifndef OVLPERF_TUNNEL_ALLOWEDIPS_H
#define OVLPERF_TUNNEL_ALLOWEDIPS_H

#include <stddef.h>
#include <stdint.h>

struct allowedips_node;

struct allowedips {
	struct allowedips_node *root4, *root6;
	size_t nprefixes;
};

void allowedips_init(struct allowedips *t);
/* Adds family/addr/cidr -> peer (peer != NULL). An exact prefix already present
 * changes owner. Host bits beyond cidr are ignored. Returns 0, -EINVAL, -ENOMEM. */
int allowedips_insert(struct allowedips *t, int family, const uint8_t *addr, unsigned cidr,
		      void *peer);
/* Removes an exact prefix; -ENOENT if absent. */
int allowedips_remove(struct allowedips *t, int family, const uint8_t *addr, unsigned cidr);
/* Removes every prefix owned by peer; returns how many. */
size_t allowedips_remove_peer(struct allowedips *t, void *peer);
/* The owner of the longest prefix containing addr (4 or 16 bytes), or NULL. */
void *allowedips_lookup(const struct allowedips *t, int family, const uint8_t *addr);
/* Calls fn for each prefix of peer (addr with host bits cleared). */
void allowedips_walk_peer(const struct allowedips *t, void *peer,
			  void (*fn)(void *ctx, int family, const uint8_t *addr, unsigned cidr),
			  void *ctx);
void allowedips_free(struct allowedips *t);

#endif
