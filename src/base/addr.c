// SPDX-License-Identifier: MIT
/* Address resolution, formatting and comparison for the load engine. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "log.h"

/* An IPv6 literal, with or without a zone ("fe80::1%eth0", RFC 4007 11). */
static bool is_ipv6_literal(const char *s, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 1];
	struct in6_addr a;
	const char *zone = memchr(s, '%', len);
	size_t n = zone ? (size_t)(zone - s) : len;

	if (!n || n >= sizeof(buf) || (zone && zone + 1 == s + len))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return inet_pton(AF_INET6, buf, &a) == 1;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -ERANGE;
	*port = (uint16_t)v;
	return 0;
}

static int copy_host(const char *s, size_t n, char *host, size_t hostlen)
{
	if (!n)
		return -EINVAL;
	/* No name or literal holds a bracket, blank or control character. */
	for (size_t i = 0; i < n; i++)
		if (s[i] == '[' || s[i] == ']' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return -EINVAL;
	if (n >= hostlen)
		return -ENAMETOOLONG;
	memcpy(host, s, n);
	host[n] = '\0';
	return 0;
}

int addr_split(const char *in, char *host, size_t hostlen, uint16_t *port)
{
	const char *colon, *close;
	int rc;

	*port = 0;
	if (!in || !*in)
		return -EINVAL;
	/* RFC 3986 3.2.2: an IPv6 literal with a port is written in brackets. */
	if (in[0] == '[') {
		close = strchr(in, ']');
		if (!close || !is_ipv6_literal(in + 1, (size_t)(close - in - 1)))
			return -EINVAL;
		if (close[1] && close[1] != ':')
			return -EINVAL;
		if (close[1] == ':' && (rc = parse_port(close + 2, port)) < 0)
			return rc;
		return copy_host(in + 1, (size_t)(close - in - 1), host, hostlen);
	}
	colon = strchr(in, ':');
	if (colon && strchr(colon + 1, ':')) {
		/* Two colons or more: a bare IPv6 literal, which cannot carry a port */
		if (!is_ipv6_literal(in, strlen(in)))
			return -EINVAL;
		return copy_host(in, strlen(in), host, hostlen);
	}
	if (colon && (rc = parse_port(colon + 1, port)) < 0)
		return rc;
	return copy_host(in, colon ? (size_t)(colon - in) : strlen(in), host, hostlen);
}

int addr_literal_family(const char *host)
{
	unsigned char b[sizeof(struct in6_addr)];
	size_t n = host ? strlen(host) : 0;

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']')
		return is_ipv6_literal(host + 1, n - 2) ? AF_INET6 : AF_UNSPEC;
	if (n && inet_pton(AF_INET, host, b) == 1)
		return AF_INET;
	return n && is_ipv6_literal(host, n) ? AF_INET6 : AF_UNSPEC;
}

/* Why host did not resolve; when only the family asked for is missing (an
 * IPv6-only name asked for as IPv4: a scenario path's default), what to say
 * instead. */
static void log_resolve_error(const char *host, int family, int rc)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int other = family == AF_INET ? AF_INET6 : AF_INET;

	hints.ai_family = other;
	if (family != AF_UNSPEC && host && getaddrinfo(host, NULL, &hints, &res) == 0) {
		freeaddrinfo(res);
		log_err("cannot resolve '%s' as IPv%c: it has IPv%c addresses only (-%c, or "
			"family = %c in a scenario)",
			host, family == AF_INET ? '4' : '6', other == AF_INET ? '4' : '6',
			other == AF_INET ? '4' : '6', other == AF_INET ? '4' : '6');
		return;
	}
	log_err("cannot resolve '%s': %s", host, gai_strerror(rc));
}

int addr_resolve(const char *host, uint16_t port, int family, bool passive,
		 struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints, *res = NULL;
	char portstr[8], bare[INET6_ADDRSTRLEN + 64];
	size_t n = host ? strlen(host) : 0;
	int rc;

	/* "[2001:2::2]" is the literal 2001:2::2, as every address option takes it */
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof(bare)) {
		memcpy(bare, host + 1, n - 2);
		bare[n - 2] = '\0';
		host = bare;
	}

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : AI_ADDRCONFIG);
	if (passive && (!host || !*host)) {
		host = family == AF_INET ? "0.0.0.0" : "::";
		hints.ai_flags |= AI_NUMERICHOST;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME || rc == EAI_FAIL || rc == EAI_AGAIN) {
		/* AI_ADDRCONFIG hides IPv6 in a namespace with only link-local
		 * addresses configured; retry literally before giving up. */
		hints.ai_flags &= ~AI_ADDRCONFIG;
		rc = getaddrinfo(host, portstr, &hints, &res);
	}
	if (rc) {
		log_resolve_error(host, family, rc);
		return -EHOSTUNREACH;
	}
	if (res->ai_addrlen > sizeof(*ss)) {
		freeaddrinfo(res);
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

socklen_t addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

uint16_t addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

void addr_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

void addr_unmap(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in s4;

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	memset(&s4, 0, sizeof(s4));
	s4.sin_family = AF_INET;
	s4.sin_port = s6->sin6_port;
	memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, &s4, sizeof(s4));
}

bool addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	struct sockaddr_storage x = *a, y = *b;

	addr_unmap(&x);
	addr_unmap(&y);
	if (x.ss_family != y.ss_family)
		return false;
	if (x.ss_family == AF_INET)
		return ((struct sockaddr_in *)&x)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)&y)->sin_addr.s_addr;
	if (x.ss_family == AF_INET6)
		return !memcmp(&((struct sockaddr_in6 *)&x)->sin6_addr,
			       &((struct sockaddr_in6 *)&y)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

int addr_format(const struct sockaddr_storage *ss, bool with_port, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];
	const void *src;
	int n;

	if (ss->ss_family == AF_INET6)
		src = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	else if (ss->ss_family == AF_INET)
		src = &((const struct sockaddr_in *)ss)->sin_addr;
	else
		return -EAFNOSUPPORT;
	if (!inet_ntop(ss->ss_family, src, ip, sizeof(ip)))
		return -errno;
	if (!with_port)
		n = snprintf(buf, size, "%s", ip);
	else if (ss->ss_family == AF_INET6)
		n = snprintf(buf, size, "[%s]:%u", ip, addr_port(ss));
	else
		n = snprintf(buf, size, "%s:%u", ip, addr_port(ss));
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}
