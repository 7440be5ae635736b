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
#include "data_registry.h"
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

/* ---- server ---------------------------------------------------------- */

int data_server_open(struct data_server *ds, bool udp, unsigned streams, uint32_t test_id,
		     const struct sockaddr_storage *local, const struct sockaddr_storage *peer,
		     struct data_registry *reg, const struct data_opts *opts)
{
	struct data_claim key = { .kind = udp ? DATA_REG_UDP : DATA_REG_TCP, .test_id = test_id };
	int rc;

	memset(ds, 0, sizeof(*ds));
	ds->udp = udp;
	ds->streams = streams;
	ds->test_id = test_id;
	ds->local = *local;
	ds->peer = *peer;
	ds->opts = *opts;
	ds->reg = reg;
	if (!reg || !streams || streams > LOAD_MAX_STREAMS)
		return -EINVAL;
	randombytes_buf(ds->cookie, sizeof(ds->cookie));
	ds->fds = malloc(streams * sizeof(*ds->fds));
	ds->ready = calloc(streams, sizeof(*ds->ready));
	ds->data_seen = calloc(streams, sizeof(*ds->data_seen));
	ds->ports = calloc(1, sizeof(*ds->ports));
	if (!ds->fds || !ds->ready || !ds->ports || !ds->data_seen) {
		data_server_close(ds);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < streams; i++)
		ds->fds[i] = -1;
	/* every stream comes to the server's own port (proto.h: the demux) */
	ds->ports[0] = data_registry_port(reg);
	ds->nports = 1;
	memcpy(key.secret, ds->cookie, sizeof(key.secret));
	rc = data_registry_add(reg, &key, streams, peer, &ds->entry);
	sodium_memzero(&key, sizeof(key));
	if (rc < 0)
		data_server_close(ds);
	return rc;
}

unsigned data_server_pollfds(const struct data_server *ds, struct pollfd *pfd, unsigned max)
{
	unsigned n = 0;

	if (max > 0 && ds->entry && ds->nready < ds->streams)
		pfd[n++] =
			(struct pollfd){ .fd = data_reg_entry_pollfd(ds->entry), .events = POLLIN };
	if (!ds->udp)
		return n;
	/* ready UDP sockets stay watched (a lost echo makes the client retry)
	 * until test datagrams show the client has started */
	for (unsigned i = 0; i < ds->streams && n < max; i++)
		if (ds->ready[i] && !ds->data_seen[i])
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

/* The stream's greeting echo: TCP, that the connection is registered and
 * START may follow (28 bytes into a new socket's empty buffer); UDP, a
 * datagram header with this end's clock (data_conn.h). */
static int echo_hello(struct data_server *ds, unsigned i)
{
	uint8_t buf[LOAD_UDP_MIN_LEN] = { 0 };
	struct proto_data_hello h = { .test_id = ds->test_id, .stream = (uint16_t)i };

	if (!ds->udp) {
		memcpy(h.cookie, ds->cookie, sizeof(h.cookie));
		if (proto_encode_data_hello(buf, sizeof(buf), &h) < 0)
			return -EINVAL;
		if (send(ds->fds[i], buf, PROTO_DATA_HELLO_LEN, MSG_DONTWAIT | MSG_NOSIGNAL) !=
		    PROTO_DATA_HELLO_LEN)
			return -errno;
		return 0;
	}
	/* flagged OMIT: a late copy reaching a running receiver is ignored */
	dgram_put(buf, sizeof(buf),
		  &(struct dgram_hdr){ .stream = (uint16_t)i,
				       .flags = DGRAM_F_OMIT,
				       .send_ns = clock_now_ns(),
				       .test_id = ds->test_id });
	send(ds->fds[i], buf, sizeof(buf), MSG_DONTWAIT);
	return 0;
}

/* A stream the server's accept thread matched to this test: a TCP
 * connection past its greeting, or a UDP socket connected to the client. */
static void adopt(struct data_server *ds, const struct data_handoff *h)
{
	int fd = h->fd;

	if (fd < 0 || h->stream >= ds->streams || ds->ready[h->stream]) {
		if (fd >= 0)
			close(fd);
		return;
	}
	sockopt_nonblock(fd, true);
	if (!ds->udp)
		sockopt_set_mss(fd, ds->opts.mss);
	/* UDP: the receive buffer before the first test datagram arrives */
	if (ds->opts.sock_buf || ds->udp)
		sockopt_set_bufs(fd, ds->opts.sock_buf, !ds->udp, true);
	sockopt_set_dscp(fd, ds->local.ss_family, ds->opts.dscp);
	ds->fds[h->stream] = fd;
	if ((!ds->udp && !ds->ack_hello) || echo_hello(ds, h->stream) == 0) {
		ds->ready[h->stream] = true;
		ds->nready++;
		return;
	}
	ds->refused++;
	log_warn("test %u: cannot acknowledge data connection %u: %s", ds->test_id, h->stream + 1u,
		 strerror(errno));
	close(fd);
	ds->fds[h->stream] = -1;
}

/* A datagram on a stream's connected UDP socket: the greeting again (our
 * echo was lost) or the first test datagram. */
static void udp_again(struct data_server *ds, unsigned i)
{
	uint8_t buf[256];
	struct proto_data_hello h;
	/* peek first: on a connected stream the client's first test datagram
	 * may come before its START is read, and must stay for the receiver */
	ssize_t n = recv(ds->fds[i], buf, sizeof(buf), MSG_DONTWAIT | MSG_PEEK);

	if (n < 0)
		return;
	if (!hello_ok(ds, buf, (size_t)n, &h) || h.stream != i) {
		ds->data_seen[i] = true; /* the test has begun on this stream */
		return;
	}
	recv(ds->fds[i], buf, sizeof(buf), MSG_DONTWAIT);
	echo_hello(ds, i);
}

void data_server_handle(struct data_server *ds, const struct pollfd *pfd, unsigned n,
			int hello_timeout_ms)
{
	(void)hello_timeout_ms; /* greetings are read by the accept thread now */
	for (unsigned k = 0; k < n; k++) {
		struct data_handoff h;

		if (!(pfd[k].revents & POLLIN))
			continue;
		if (ds->entry && pfd[k].fd == data_reg_entry_pollfd(ds->entry)) {
			while (data_reg_entry_take(ds->entry, &h) == 1)
				adopt(ds, &h);
			continue;
		}
		for (unsigned i = 0; ds->udp && i < ds->streams; i++)
			if (ds->fds[i] == pfd[k].fd)
				udp_again(ds, i);
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
	if (ds->entry)
		data_registry_remove(ds->reg, ds->entry);
	ds->entry = NULL;
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
	/* a TCP source port pinned run after run (--cport): its last
	 * connection may be in TIME_WAIT, which must not refuse the next */
	if (!udp && local_bind && addr_port(local_bind))
		sockopt_reuseaddr(fd);
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
