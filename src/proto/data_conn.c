// SPDX-License-Identifier: MIT
/* Data connections of a test: server accept/validate, client connect. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "data_conn.h"
#include "log.h"
#include "sockopt.h"

#define UDP_HELLO_TRIES	  40
#define UDP_HELLO_WAIT_MS 100

static int new_socket(const struct sockaddr_storage *local, bool udp, const struct data_opts *o)
{
	int fd = socket(local->ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (!udp) {
		sockopt_set_mss(fd, o->mss);
		if (o->sock_buf)
			sockopt_set_bufs(fd, o->sock_buf, true, true);
	}
	sockopt_set_dscp(fd, local->ss_family, o->dscp);
	return fd;
}

static int bind_port(int fd, const struct sockaddr_storage *local, uint16_t port, uint16_t *got)
{
	struct sockaddr_storage a = *local;
	socklen_t l = sizeof(a);

	addr_set_port(&a, port);
	if (bind(fd, (struct sockaddr *)&a, addr_len(&a)) < 0)
		return -errno;
	if (getsockname(fd, (struct sockaddr *)&a, &l) < 0)
		return -errno;
	*got = addr_port(&a);
	return 0;
}

/* ---- server ---------------------------------------------------------- */

static int open_udp(struct data_server *ds, uint16_t want_port)
{
	for (unsigned i = 0; i < ds->streams; i++) {
		int fd = new_socket(&ds->local, true, &ds->opts), rc;

		if (fd < 0)
			return fd;
		ds->fds[i] = fd;
		/* a wished port applies to stream 0; the others take the next ones */
		rc = bind_port(fd, &ds->local, want_port ? (uint16_t)(want_port + i) : 0,
			       &ds->ports[i]);
		if (rc < 0)
			return rc;
		/* the receive buffer before the first datagram arrives */
		sockopt_set_bufs(fd, ds->opts.sock_buf, false, true);
		sockopt_nonblock(fd, true);
	}
	ds->nports = ds->streams;
	return 0;
}

static int open_tcp(struct data_server *ds, uint16_t want_port)
{
	int fd = new_socket(&ds->local, false, &ds->opts), rc;

	if (fd < 0)
		return fd;
	ds->lsn = fd;
	sockopt_reuseaddr(fd);
	rc = bind_port(fd, &ds->local, want_port, &ds->ports[0]);
	if (rc < 0)
		return rc;
	if (listen(fd, (int)ds->streams + 8) < 0)
		return -errno;
	sockopt_nonblock(fd, true);
	ds->nports = 1;
	return 0;
}

int data_server_open(struct data_server *ds, bool udp, unsigned streams, uint32_t test_id,
		     const struct sockaddr_storage *local, const struct sockaddr_storage *peer,
		     uint16_t want_port, const struct data_opts *opts)
{
	int rc;

	memset(ds, 0, sizeof(*ds));
	ds->udp = udp;
	ds->streams = streams;
	ds->test_id = test_id;
	ds->local = *local;
	ds->peer = *peer;
	ds->opts = *opts;
	ds->lsn = -1;
	randombytes_buf(ds->cookie, sizeof(ds->cookie));
	ds->fds = malloc(streams * sizeof(*ds->fds));
	ds->ready = calloc(streams, sizeof(*ds->ready));
	ds->data_seen = calloc(streams, sizeof(*ds->data_seen));
	ds->ports = calloc(streams, sizeof(*ds->ports));
	if (!ds->fds || !ds->ready || !ds->ports || !ds->data_seen) {
		data_server_close(ds);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < streams; i++)
		ds->fds[i] = -1;
	rc = udp ? open_udp(ds, want_port) : open_tcp(ds, want_port);
	if (rc < 0)
		data_server_close(ds);
	return rc;
}

unsigned data_server_pollfds(const struct data_server *ds, struct pollfd *pfd, unsigned max)
{
	unsigned n = 0;

	if (!ds->udp) {
		if (max > 0 && ds->nready < ds->streams)
			pfd[n++] = (struct pollfd){ .fd = ds->lsn, .events = POLLIN };
		return n;
	}
	/* ready UDP sockets stay watched (a lost echo makes the client retry)
	 * until test datagrams show the client has started */
	for (unsigned i = 0; i < ds->streams && n < max; i++)
		if (!ds->data_seen[i])
			pfd[n++] = (struct pollfd){ .fd = ds->fds[i], .events = POLLIN };
	return n;
}

static bool hello_ok(const struct data_server *ds, const uint8_t *buf, size_t len,
		     struct proto_data_hello *h)
{
	if (proto_decode_data_hello(buf, len, h) < 0 || h->test_id != ds->test_id)
		return false;
	if (h->stream >= ds->streams)
		return false;
	return sodium_memcmp(h->cookie, ds->cookie, PROTO_COOKIE_LEN) == 0;
}

/* Reads a TCP data connection's hello with a short deadline. */
static int read_hello(int fd, uint8_t *buf, int timeout_ms)
{
	uint64_t end = clock_now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	size_t have = 0;

	while (have < PROTO_DATA_HELLO_LEN) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = clock_now_ns();
		ssize_t r;

		if (now >= end)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)((end - now) / NSEC_PER_MSEC) + 1) < 0 && errno != EINTR)
			return -errno;
		r = recv(fd, buf + have, PROTO_DATA_HELLO_LEN - have, MSG_DONTWAIT);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (r > 0)
			have += (size_t)r;
	}
	return 0;
}

/* Accepts one pending connection; false when none is left. */
static bool accept_tcp(struct data_server *ds, int timeout_ms)
{
	struct sockaddr_storage from;
	socklen_t l = sizeof(from);
	uint8_t buf[PROTO_DATA_HELLO_LEN];
	struct proto_data_hello h;
	int fd = accept4(ds->lsn, (struct sockaddr *)&from, &l, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return false;
	if (!addr_same_host(&from, &ds->peer)) {
		ds->refused++;
		log_warn("test %u: data connection from a foreign address refused", ds->test_id);
		close(fd);
		return true;
	}
	if (read_hello(fd, buf, timeout_ms) < 0 || !hello_ok(ds, buf, sizeof(buf), &h) ||
	    ds->ready[h.stream]) {
		ds->refused++;
		log_warn("test %u: data connection without a valid greeting refused", ds->test_id);
		close(fd);
		return true;
	}
	/* the echo tells the client this stream is registered: it sends START
	 * only when all are (28 bytes into a new socket's empty buffer) */
	if (ds->ack_hello &&
	    send(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(buf)) {
		ds->refused++;
		log_warn("test %u: cannot acknowledge data connection %u: %s", ds->test_id,
			 h.stream + 1u, strerror(errno));
		close(fd);
		return true;
	}
	ds->fds[h.stream] = fd;
	ds->ready[h.stream] = true;
	ds->nready++;
	return true;
}

static void udp_hello(struct data_server *ds, unsigned i)
{
	uint8_t buf[256], echo[LOAD_UDP_MIN_LEN] = { 0 };
	struct sockaddr_storage from;
	socklen_t l = sizeof(from);
	struct proto_data_hello h;
	/* peek first: on a connected stream the client's first test datagram
	 * may come before its START is read, and must stay for the receiver */
	ssize_t n = recvfrom(ds->fds[i], buf, sizeof(buf), MSG_DONTWAIT | MSG_PEEK,
			     (struct sockaddr *)&from, &l);
	bool hello;

	if (n < 0)
		return;
	hello = addr_same_host(&from, &ds->peer) && hello_ok(ds, buf, (size_t)n, &h) &&
		h.stream == i;
	if (!hello && ds->ready[i]) {
		ds->data_seen[i] = true; /* the test has begun on this stream */
		return;
	}
	recv(ds->fds[i], buf, sizeof(buf), MSG_DONTWAIT);
	if (!hello) {
		ds->refused++;
		return;
	}
	if (!ds->ready[i]) {
		if (connect(ds->fds[i], (struct sockaddr *)&from, l) < 0)
			return;
		ds->ready[i] = true;
		ds->nready++;
	}
	/* flagged OMIT: a late copy reaching a running receiver is ignored */
	dgram_put(echo, sizeof(echo),
		  &(struct dgram_hdr){ .stream = (uint16_t)i,
				       .flags = DGRAM_F_OMIT,
				       .send_ns = clock_now_ns(),
				       .test_id = ds->test_id });
	send(ds->fds[i], echo, sizeof(echo), MSG_DONTWAIT);
}

void data_server_handle(struct data_server *ds, const struct pollfd *pfd, unsigned n,
			int hello_timeout_ms)
{
	for (unsigned k = 0; k < n; k++) {
		if (!(pfd[k].revents & POLLIN))
			continue;
		if (!ds->udp) {
			/* drain the backlog: START may follow right behind */
			while (ds->nready < ds->streams && accept_tcp(ds, hello_timeout_ms))
				;
			continue;
		}
		for (unsigned i = 0; i < ds->streams; i++)
			if (ds->fds[i] == pfd[k].fd)
				udp_hello(ds, i);
	}
}

bool data_server_complete(const struct data_server *ds)
{
	return ds->nready == ds->streams;
}

int data_server_take(struct data_server *ds, unsigned i)
{
	int fd = ds->fds[i];

	ds->fds[i] = -1;
	return fd;
}

void data_server_close(struct data_server *ds)
{
	if (ds->lsn >= 0)
		close(ds->lsn);
	ds->lsn = -1;
	for (unsigned i = 0; ds->fds && i < ds->streams; i++)
		if (ds->fds[i] >= 0)
			close(ds->fds[i]);
	free(ds->fds);
	free(ds->ready);
	free(ds->data_seen);
	free(ds->ports);
	ds->fds = NULL;
	ds->ready = NULL;
	ds->data_seen = NULL;
	ds->ports = NULL;
}

/* ---- client ---------------------------------------------------------- */

int data_connect(int fd, const struct sockaddr_storage *to, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int err = 0, rc;
	socklen_t l = sizeof(err);

	sockopt_nonblock(fd, true);
	if (connect(fd, (const struct sockaddr *)to, addr_len(to)) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	rc = poll(&p, 1, timeout_ms);
	if (rc < 0)
		return -errno; /* -EINTR: an interrupt ends a long wait */
	if (rc == 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		return -errno;
	return -err;
}

static int client_socket(const struct sockaddr_storage *server,
			 const struct sockaddr_storage *local_bind, bool udp,
			 const struct data_opts *opts)
{
	int fd = new_socket(server, udp, opts);

	if (fd < 0)
		return fd;
	if (udp)
		sockopt_set_bufs(fd, opts->sock_buf, false, true);
	if (local_bind && bind(fd, (const struct sockaddr *)local_bind, addr_len(local_bind)) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int data_client_tcp(const struct sockaddr_storage *server, uint16_t port,
		    const struct sockaddr_storage *local_bind, const struct proto_data_hello *hello,
		    const struct data_opts *opts, int timeout_ms, bool wait_ack)
{
	struct sockaddr_storage to = *server;
	uint8_t buf[PROTO_DATA_HELLO_LEN], echo[PROTO_DATA_HELLO_LEN];
	int fd = client_socket(server, local_bind, false, opts), rc;

	if (fd < 0)
		return fd;
	addr_set_port(&to, port);
	rc = data_connect(fd, &to, timeout_ms);
	if (rc == 0 && proto_encode_data_hello(buf, sizeof(buf), hello) < 0)
		rc = -EINVAL;
	if (rc == 0)
		rc = proto_write_all(fd, buf, sizeof(buf), timeout_ms);
	/* connect() returns at the SYN-ACK: the server may not have the
	 * connection (nor the greeting) yet; its echo says it has */
	if (rc == 0 && wait_ack)
		rc = read_hello(fd, echo, timeout_ms);
	if (rc == 0 && wait_ack && sodium_memcmp(echo, buf, sizeof(buf)) != 0)
		rc = -EPROTO;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	sockopt_nonblock(fd, false);
	return fd;
}

/* Waits for the server's echo; 1 got it, 0 not yet, negative error. */
static int udp_echo(int fd, const struct proto_data_hello *hello, uint64_t t0,
		    struct owd_clock_sample *sample)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t buf[256];
	struct dgram_hdr h;
	ssize_t n;

	if (poll(&p, 1, UDP_HELLO_WAIT_MS) <= 0)
		return 0;
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0)
		return errno == ECONNREFUSED || errno == EAGAIN ? 0 : -errno;
	if (!dgram_parse(buf, (size_t)n, &h) || h.test_id != hello->test_id ||
	    h.stream != hello->stream)
		return 0;
	if (sample)
		*sample = (struct owd_clock_sample){ .t0 = t0,
						     .t1 = clock_now_ns(),
						     .peer_ns = h.send_ns };
	return 1;
}

int data_client_udp(const struct sockaddr_storage *server, uint16_t port,
		    const struct sockaddr_storage *local_bind, const struct proto_data_hello *hello,
		    const struct data_opts *opts, int timeout_ms, struct owd_clock_sample *sample)
{
	struct sockaddr_storage to = *server;
	uint8_t buf[PROTO_DATA_HELLO_LEN];
	uint64_t end = clock_now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC, t0;
	int fd = client_socket(server, local_bind, true, opts), rc = -ETIMEDOUT;

	if (fd < 0)
		return fd;
	addr_set_port(&to, port);
	if (connect(fd, (struct sockaddr *)&to, addr_len(&to)) < 0 ||
	    proto_encode_data_hello(buf, sizeof(buf), hello) < 0) {
		rc = -errno;
		close(fd);
		return rc ? rc : -EINVAL;
	}
	/* The echo may answer an earlier try: the first send starts the interval
	 * in which the server stamped it (owd_clock.h needs it to hold the stamp). */
	t0 = clock_now_ns();

	for (int i = 0; i < UDP_HELLO_TRIES && clock_now_ns() < end; i++) {
		send(fd, buf, sizeof(buf), 0);
		rc = udp_echo(fd, hello, t0, sample);
		if (rc != 0)
			break;
		rc = -ETIMEDOUT;
	}
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}
