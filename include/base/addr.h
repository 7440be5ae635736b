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
 * touch the resolver; a bracketed literal "[2001:2::2]" is taken as the
 * literal. passive with host NULL or "" gives the wildcard address
 * ("::" for AF_UNSPEC/AF_INET6, "0.0.0.0" for AF_INET). */
int addr_resolve(const char *host, uint16_t port, int family, bool passive,
		 struct sockaddr_storage *ss, socklen_t *len);

/* Splits an address as a user writes it, in any option or scenario key that
 * takes one: "NAME", "NAME:PORT", "198.18.0.2", "198.18.0.2:5211",
 * "2001:2::2" (a bare IPv6 literal carries no port), "[2001:2::2]" or
 * "[2001:2::2]:5211" (RFC 3986). host receives the name or literal without
 * brackets, *port the port or 0 when none was given. -EINVAL for an empty
 * host, a host with a bracket, blank or control character, an unclosed or
 * non-IPv6 bracket, a colon-rich word that is no IPv6
 * literal, or text after "]" other than ":PORT"; -ERANGE for a port outside
 * 1..65535 or not decimal; -ENAMETOOLONG when host does not fit. */
int addr_split(const char *in, char *host, size_t hostlen, uint16_t *port);

/* AF_INET or AF_INET6 for a numeric address ("[...]" too), AF_UNSPEC for a
 * name: the family an address implies when none is stated. */
int addr_literal_family(const char *host);

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
