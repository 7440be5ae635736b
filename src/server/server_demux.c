// SPDX-License-Identifier: MIT
/*
 * What a connection to the server's port is, from its first bytes (proto.h:
 * the demux): a control session, a test's data connection or the MTU
 * check's connection; anything else is answered and closed. The accept
 * loop calls in here only when bytes arrived (SO_RCVLOWAT holds poll back
 * until a whole greeting is in), so no peer can make it wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "log.h"
#include "server_demux.h"
#include "server_refuse.h"
#include "server_session.h"

static void data_refused(struct server_shared *sh, const struct pending_conn *p, int rc)
{
	char who[80];

	addr_format(&p->peer, true, who, sizeof(who));
	log_warn("%s: data connection refused: %s", who, server_claim_strerror(rc));
	atomic_fetch_add(&sh->stats.foreign_data, 1);
	close(p->fd);
}

static void set_lowat(int fd, size_t bytes)
{
	int v = (int)bytes;

	setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v));
}

/* A whole greeting is in: read it (exactly; what follows is the stream's)
 * and hand the connection to the test or MTU session it names. */
static void claim(struct server_shared *sh, const struct pending_conn *p, enum data_demux what,
		  size_t need)
{
	uint8_t buf[PROTO_DATA_HELLO_LEN];
	struct data_handoff h = { .fd = p->fd };
	struct data_claim c;
	int rc = -EBADMSG;

	if (need <= sizeof(buf) && recv(p->fd, buf, need, MSG_DONTWAIT) == (ssize_t)need &&
	    data_demux_claim(what, false, buf, need, &p->peer, &c)) {
		set_lowat(p->fd, 1);
		h.stream = c.stream;
		rc = data_registry_claim(sh->reg, &c, &h);
	}
	if (rc < 0)
		data_refused(sh, p, rc);
}

/* A connection that has said nothing yet counts as a session: it may be
 * one, and a server full of silent connections is busy as it was when each
 * of them held a session of its own. One whose bytes are in but not yet
 * read is not silent: it is the next in this poll round (50 clients at
 * once put their greetings here together), and counting it would refuse
 * a client while the server is below its limit. */
static bool busy(struct server_shared *sh, const struct pending_set *ps)
{
	unsigned n = atomic_load(&sh->sessions);

	for (unsigned i = 0; i < ps->n && n < sh->cfg->max_sessions; i++) {
		int avail = 0;

		if (ioctl(ps->v[i].fd, FIONREAD, &avail) < 0 || avail == 0)
			n++;
	}
	return n >= sh->cfg->max_sessions;
}

void server_demux_examine(struct server_shared *sh, struct pending_set *ps, unsigned i,
			  short revents, uint64_t now_ns)
{
	struct pending_conn p = ps->v[i];
	uint8_t buf[PROTO_DATA_HELLO_LEN];
	bool ended = revents & (POLLHUP | POLLRDHUP | POLLERR);
	ssize_t n = recv(p.fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	enum data_demux what;
	size_t need;

	if (n < 0 && (errno == EAGAIN || errno == EINTR) && !ended)
		return;
	if (n <= 0) { /* gone without a word (a port check), or broken */
		pending_drop(ps, i);
		close(p.fd);
		return;
	}
	what = data_demux_classify(buf, (size_t)n, &need);
	if (what == DATA_DEMUX_MORE || (size_t)n < need) {
		if (!ended) {
			if (!ps->v[i].first_ns)
				ps->v[i].first_ns = now_ns;
			set_lowat(p.fd, need); /* poll again once it is all in */
			return;
		}
		pending_drop(ps, i);
		if (what == DATA_DEMUX_MORE)
			server_refuse(sh, p.fd, &p.peer, PROTO_R_BAD_MESSAGE, "%s",
				      proto_strerror(PROTO_E_EOF_PARTIAL));
		else
			data_refused(sh, &p, -EBADMSG);
		return;
	}
	pending_drop(ps, i);
	if (what == DATA_DEMUX_DATA || what == DATA_DEMUX_MTU) {
		claim(sh, &p, what, need);
		return;
	}
	if (busy(sh, ps)) {
		server_refuse_busy(sh, p.fd);
		return;
	}
	if (what == DATA_DEMUX_GARBAGE) {
		server_refuse(sh, p.fd, &p.peer, PROTO_R_BAD_MESSAGE, "%s",
			      proto_strerror(PROTO_E_MAGIC));
		return;
	}
	set_lowat(p.fd, 1);
	server_start_session(sh, p.fd, &p.peer);
}

void server_demux_expire(struct server_shared *sh, struct pending_set *ps, uint64_t now_ns)
{
	const struct server_config *cfg = sh->cfg;
	uint64_t idle = (uint64_t)cfg->idle_timeout_ms * NSEC_PER_MSEC,
		 msg = (uint64_t)cfg->msg_timeout_ms * NSEC_PER_MSEC;

	for (unsigned i = ps->n; i-- > 0;) {
		struct pending_conn p = ps->v[i];
		enum pending_state st = pending_check(&p, now_ns, idle, msg);
		uint8_t m[4];
		size_t need;
		ssize_t n;

		if (st == PENDING_LIVE)
			continue;
		pending_drop(ps, i);
		n = recv(p.fd, m, sizeof(m), MSG_PEEK | MSG_DONTWAIT);
		/* a data greeting that stalled is not a client to answer */
		if (n > 0 && data_demux_classify(m, (size_t)n, &need) != DATA_DEMUX_MORE) {
			data_refused(sh, &p, -ETIMEDOUT);
			continue;
		}
		if (st == PENDING_SILENT)
			server_refuse(sh, p.fd, &p.peer, PROTO_R_TIMEOUT, "no HELLO within %u ms",
				      cfg->idle_timeout_ms);
		else
			server_refuse(sh, p.fd, &p.peer, PROTO_R_TIMEOUT,
				      "message started but did not complete within %u ms",
				      cfg->msg_timeout_ms);
	}
}
