/* SPDX-License-Identifier: MIT */
/*
 * Everything on one port: the server's listening TCP socket and its UDP
 * socket of the same number take control connections, data connections,
 * stream greetings and MTU probes alike (the demux is documented in
 * proto.h). This registry is where the two meet: a test (or an MTU session)
 * that expects data adds an entry with its id and secret (the cookie of
 * TEST_ACCEPT, or the MTU token); the server's accept thread claims an entry
 * for each greeting it reads and hands the connection, the connected UDP
 * socket or the probe's record to the entry's owner through a pipe that the
 * owner polls. A claim is checked against the entry's id, secret (compared
 * in constant time), the control peer's address and the stream range
 * before anything is handed over.
 *
 * Thread-safe: the accept thread claims while session threads add and
 * remove. Functions return 0 or a negative errno.
 */
#ifndef OVLPERF_DATA_REGISTRY_H
#define OVLPERF_DATA_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

enum data_reg_kind {
	DATA_REG_TCP = 1, /* TCP test: one connection per stream */
	DATA_REG_UDP = 2, /* UDP test: one connected socket per stream */
	DATA_REG_MTU = 3, /* MTU session: probe records and one TCP connection */
};

/* Entries at once (tests waiting for data plus MTU sessions): a bound on
 * what a server keeps, far above its session limit. */
#define DATA_REGISTRY_MAX 4096

/* What a greeting says, and where it came from. */
struct data_claim {
	enum data_reg_kind kind;
	uint32_t test_id;		  /* 0 for MTU (the token is the secret) */
	uint8_t secret[PROTO_COOKIE_LEN]; /* cookie; MTU: token, big-endian, zero-padded */
	uint16_t stream;		  /* MTU: 0 */
	struct sockaddr_storage from;	  /* the sender (unmapped) */
};

/* One item through an entry's pipe (a few bytes: written atomically). */
struct data_handoff {
	int fd;		  /* TCP connection or connected UDP socket; -1: probe record */
	uint16_t stream;  /* which stream fd is */
	uint16_t index;	  /* probe record: index in its round */
	uint32_t round;	  /* probe record: round */
	bool reassembled; /* probe record: arrived in fragments */
};

struct data_registry;
struct data_reg_entry;

/* port: the server's port (what TEST_ACCEPT and MTU READY announce). */
int data_registry_new(uint16_t port, struct data_registry **out);
/* Only once no entry is left. */
void data_registry_free(struct data_registry *reg);
uint16_t data_registry_port(const struct data_registry *reg);

/* An owner expects `streams` streams from peer's host with this id and
 * secret (c->stream and c->from unused; c->from's host is peer). -EEXIST
 * for a second entry of the same kind and id, -ENOSPC above the bound. */
int data_registry_add(struct data_registry *reg, const struct data_claim *c, unsigned streams,
		      const struct sockaddr_storage *peer, struct data_reg_entry **out);
/* Removes the entry and closes every fd handed over but not yet taken. */
void data_registry_remove(struct data_registry *reg, struct data_reg_entry *e);
/* The owner polls this (POLLIN) for handed-over items. */
int data_reg_entry_pollfd(const struct data_reg_entry *e);
/* 1 with *h filled, 0 when nothing is waiting. */
int data_reg_entry_take(struct data_reg_entry *e, struct data_handoff *h);

/* Whether c would be accepted now: 0, -ENOENT (no such test or token),
 * -EPROTO (another kind), -EACCES (wrong cookie), -EPERM (another host than
 * the control connection's), -ERANGE (no such stream), -EALREADY (the
 * stream has its connection). Cheap: the UDP path checks before it opens a
 * socket. */
int data_registry_check(struct data_registry *reg, const struct data_claim *c);
/* Checks as above and hands h to the entry's owner; a connection (h->fd >=
 * 0) marks its stream taken. On failure the caller still owns h->fd. */
int data_registry_claim(struct data_registry *reg, const struct data_claim *c,
			const struct data_handoff *h);

/* ---- demux: what the first bytes on the port are ---- */
enum data_demux {
	DATA_DEMUX_MORE,    /* a prefix of a known magic: wait for *need bytes */
	DATA_DEMUX_CONTROL, /* "OVLC": a control session */
	DATA_DEMUX_DATA,    /* "OVLS": a data greeting of *need bytes */
	DATA_DEMUX_MTU,	    /* "OVMP": an MTU probe or the MSS check's greeting */
	DATA_DEMUX_GARBAGE, /* anything else */
};
/* Classifies the len bytes seen so far (a TCP connection's first bytes or a
 * whole datagram). *need: for DATA and MTU the greeting's length, for MORE
 * the bytes to wait for, else 0. */
enum data_demux data_demux_classify(const uint8_t *buf, size_t len, size_t *need);
/* Decodes a whole greeting of `what` (DATA or MTU) from `from` into c for
 * a claim (udp: a UDP test's greeting). false when it is malformed. */
bool data_demux_claim(enum data_demux what, bool udp, const uint8_t *buf, size_t len,
		      const struct sockaddr_storage *from, struct data_claim *c);

#endif
