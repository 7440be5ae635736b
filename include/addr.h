/* SPDX-License-Identifier: MIT */
/*
 * Addresses for the load engine: resolving the server's name, formatting for
 * reports, comparing the peer of a data connection with the control peer.
 * Returns 0 or a negative errno (resolution failures: -EHOSTUNREACH, with the
 * resolver's reason logged).
 */
#ifndef OVLPERF_ADDR_H
#define OVLPERF_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Resolves host (name or literal) for family (AF_UNSPEC, AF_INET, AF_INET6)
 * into *ss with port; *len receives the sockaddr length. Numeric hosts never
 * touch the resolver. passive with host NULL or "" gives the wildcard address
 * ("::" for AF_UNSPEC/AF_INET6, "0.0.0.0" for AF_INET). */
int addr_resolve(const char *host, uint16_t port, int family, bool passive,
		 struct sockaddr_storage *ss, socklen_t *len);

socklen_t addr_len(const struct sockaddr_storage *ss);
uint16_t addr_port(const struct sockaddr_storage *ss);
void addr_set_port(struct sockaddr_storage *ss, uint16_t port);

/* Same IP address (IPv4-mapped IPv6 equals its IPv4 form); ports ignored. */
bool addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/* "198.18.0.1" or "2001:2::1" (no port); "[2001:2::1]:5211" with port. */
int addr_format(const struct sockaddr_storage *ss, bool with_port, char *buf, size_t size);

/* Maps an IPv4-mapped IPv6 address to plain AF_INET in place (for a dual-stack
 * listener that must talk back over IPv4 sockets). */
void addr_unmap(struct sockaddr_storage *ss);

#endif
