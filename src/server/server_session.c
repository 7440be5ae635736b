// SPDX-License-Identifier: MIT
/*
 * One control connection at the server: HELLO, proof of the PSK when one is
 * configured, then test requests until the client hangs up. Every failure is
 * answered with an ERROR naming the reason before the connection is closed;
 * nothing a client sends can hold up another session.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "ctrl.h"
#include "interrupt.h"
#include "log.h"
#include "mtu_serve.h"
#include "server_session.h"
#include "version.h"

struct session {
	struct ctrl c;
	struct sockaddr_storage peer, local;
	char name[80]; /* "[2001:2::1]:40000" for logs */
	struct server_shared *sh;
	bool authed;
	uint32_t client_caps; /* the client's HELLO: PROTO_CAP_* */
};

static int session_refuse(struct session *s, uint16_t type, uint16_t reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Tells the client why (an ERROR, or a TEST_REJECT that leaves the session
 * usable) and counts it by reason. The result of ctrl_send(). */
static int session_refuse(struct session *s, uint16_t type, uint16_t reason, const char *fmt, ...)
{
	char text[PROTO_TEXT_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	server_stats_refused(&s->sh->stats, reason);
	return ctrl_send_text(&s->c, type, reason, "%s", text);
}

/* Answers a failed receive with the reason and returns a negative code. */
static int recv_failed(struct session *s, int rc, uint32_t waited_ms, const char *expect)
{
	struct ctrl *c = &s->c;
	unsigned tmo = (unsigned)(c->msg_timeout_ns / 1000000);

	switch (rc) {
	case 0:
		log_warn("%s: no %s within %u ms", s->name, expect, waited_ms);
		session_refuse(s, PROTO_ERROR, PROTO_R_TIMEOUT, "no %s within %u ms", expect,
			       waited_ms);
		return -ETIMEDOUT;
	case PROTO_E_STALLED:
		log_warn("%s: a message stalled (not complete within %u ms)", s->name, tmo);
		session_refuse(s, PROTO_ERROR, PROTO_R_TIMEOUT,
			       "message started but did not complete within %u ms", tmo);
		return -ETIMEDOUT;
	case PROTO_E_EOF:
		log_info("%s: closed", s->name);
		return rc;
	case -EINTR:
		session_refuse(s, PROTO_ERROR, PROTO_R_INTERRUPTED, "server shutting down");
		return rc;
	case PROTO_E_VERSION:
		log_warn("%s: %s", s->name, proto_strerror(rc));
		session_refuse(s, PROTO_ERROR, PROTO_R_VERSION,
			       "protocol version not supported; this server speaks version %u",
			       PROTO_VERSION);
		return rc;
	case PROTO_E_TOOBIG:
		log_warn("%s: %s", s->name, proto_strerror(rc));
		session_refuse(s, PROTO_ERROR, PROTO_R_BAD_MESSAGE,
			       "message length above the maximum of %u bytes", PROTO_MAX_BODY);
		return rc;
	default:
		log_warn("%s: %s", s->name, proto_strerror(rc));
		/* even a peer that closed its side may still read the reason */
		session_refuse(s, PROTO_ERROR, PROTO_R_BAD_MESSAGE, "%s", proto_strerror(rc));
		return rc;
	}
}

/* Receives one message or answers why not. 1 on success, negative otherwise. */
static int recv_msg(struct session *s, struct proto_msg *m, uint32_t wait_ms, const char *expect)
{
	int rc = ctrl_recv(&s->c, m, (int)wait_ms, true);

	return rc == 1 ? 1 : recv_failed(s, rc, wait_ms, expect);
}

static int bad_message(struct session *s, const char *what, const struct proto_msg *m, int rc)
{
	log_warn("%s: %s %s: %s", s->name, what, proto_type_name(m->type), proto_strerror(rc));
	session_refuse(s, PROTO_ERROR, PROTO_R_BAD_MESSAGE, "%s %s: %s", what,
		       proto_type_name(m->type), proto_strerror(rc));
	return rc < 0 ? rc : -EPROTO;
}

static int hello(struct session *s)
{
	const struct server_config *cfg = s->sh->cfg;
	struct proto_hello h = { .version = PROTO_VERSION };
	struct proto_msg m;
	int rc = recv_msg(s, &m, cfg->idle_timeout_ms, "HELLO");

	if (rc < 0)
		return rc;
	if (m.type != PROTO_HELLO)
		return bad_message(s, "expected HELLO, got", &m, -EPROTO);
	rc = proto_decode_hello(m.body, m.len, &h);
	if (rc < 0)
		return bad_message(s, "malformed", &m, rc);
	log_info("%s: client %s, protocol %u", s->name, h.software, h.version);
	s->client_caps = h.caps;
	h = (struct proto_hello){ .version = PROTO_VERSION,
				  .caps = PROTO_CAP_TCP | PROTO_CAP_UDP | PROTO_CAP_MTU |
					  PROTO_CAP_REVERSE | PROTO_CAP_UDP_GSO |
					  PROTO_CAP_UDP_GRO | PROTO_CAP_DATA_ACK |
					  PROTO_CAP_ONE_PORT | PROTO_CAP_DGRAM_SHORT |
					  PROTO_CAP_CONGESTION };
	if (s->sh->key)
		h.caps |= PROTO_CAP_AUTH_REQUIRED;
	if (s->sh->ovl)
		h.caps |= PROTO_CAP_OVERLAY;
	if (!cfg->no_host_facts)
		h.caps |= PROTO_CAP_HOST_FACTS;
	snprintf(h.software, sizeof(h.software), "ovlperf %s", OVLPERF_VERSION);
	return ctrl_send(&s->c, proto_encode_hello(s->c.out, PROTO_MAX_MSG, &h));
}

/* Challenge-response: nothing but AUTH_RESPONSE is accepted until it verifies. */
static int authenticate(struct session *s)
{
	struct proto_auth_challenge ch;
	struct proto_auth_response resp;
	struct proto_auth_ok ok;
	struct proto_msg m;
	int rc;

	auth_nonce(ch.server_nonce);
	rc = ctrl_send(&s->c, proto_encode_auth_challenge(s->c.out, PROTO_MAX_MSG, &ch));
	if (rc < 0)
		return rc;
	rc = recv_msg(s, &m, s->sh->cfg->msg_timeout_ms, "AUTH_RESPONSE");
	if (rc < 0)
		return rc;
	if (m.type != PROTO_AUTH_RESPONSE) {
		log_warn("%s: %s before authentication: refused", s->name, proto_type_name(m.type));
		session_refuse(s, PROTO_ERROR, PROTO_R_AUTH,
			       "authentication required: this server needs the pre-shared key "
			       "(--psk-file) before %s",
			       proto_type_name(m.type));
		return -EACCES;
	}
	rc = proto_decode_auth_response(m.body, m.len, &resp);
	if (rc < 0)
		return bad_message(s, "malformed", &m, rc);
	if (auth_verify(s->sh->key, AUTH_CLIENT, ch.server_nonce, resp.client_nonce, PROTO_VERSION,
			resp.mac) < 0) {
		log_warn("%s: wrong pre-shared key", s->name);
		session_refuse(s, PROTO_ERROR, PROTO_R_AUTH,
			       "authentication failed: wrong pre-shared key");
		return -EACCES;
	}
	auth_proof(s->sh->key, AUTH_SERVER, ch.server_nonce, resp.client_nonce, PROTO_VERSION,
		   ok.mac);
	s->authed = true;
	return ctrl_send(&s->c, proto_encode_auth_ok(s->c.out, PROTO_MAX_MSG, &ok));
}

static int serve_mtu(struct session *s)
{
	int rc;

	log_info("%s: MTU probing session", s->name);
	/* mtu_serve reads the control socket itself from here on */
	rc = mtu_serve_port(s->c.fd, &s->peer, s->sh->reg);
	if (rc < 0 && rc != -EINTR) {
		log_warn("%s: MTU session: %s", s->name, proto_strerror(rc));
		return rc;
	}
	log_info("%s: MTU session done", s->name);
	return PROTO_E_EOF; /* the session ends with the MTU session */
}

/* The built-in overlay for this client (overlay.h); 0: refused, go on. */
static int serve_overlay(struct session *s, const struct proto_msg *m)
{
	if (!s->sh->ovl) {
		session_refuse(s, PROTO_TEST_REJECT, PROTO_R_UNSUPPORTED,
			       "this server does not bring up the built-in overlay (start it "
			       "with --overlay)");
		return 0;
	}
	return overlay_serve(s->sh->ovl, &s->c, s->sh->reg, &s->peer, &s->local, s->name, m);
}

static void count_refused(void *arg, uint16_t reason)
{
	server_stats_refused(arg, reason);
}

/* A TCP or UDP test: the load engine's half (load_serve.h). */
static int serve_test(struct session *s, const struct proto_test_request *req)
{
	struct server_shared *sh = s->sh;
	struct load_serve_session ls = { .c = &s->c,
					 .name = s->name,
					 .peer = &s->peer,
					 .local = &s->local,
					 .client_caps = s->client_caps,
					 .reg = sh->reg,
					 .limits = &sh->limits,
					 .next_test_id = &sh->next_test_id,
					 .refused = count_refused,
					 .arg = &sh->stats,
					 .idle = &sh->idle,
					 .host_facts = !sh->cfg->no_host_facts &&
						       (s->client_caps & PROTO_CAP_HOST_FACTS) };
	unsigned foreign;
	int rc = load_serve(&ls, req, &foreign);

	atomic_fetch_add(&sh->stats.foreign_data, foreign);
	if (rc == 1)
		atomic_fetch_add(&sh->stats.tests, 1);
	return rc;
}

static int serve_requests(struct session *s, bool *ran)
{
	for (;;) {
		struct proto_test_request req;
		struct proto_msg m;
		int rc = recv_msg(s, &m, s->sh->cfg->idle_timeout_ms, "TEST_REQUEST");

		if (rc < 0)
			return rc == PROTO_E_EOF ? 0 : rc;
		if (m.type == PROTO_OVERLAY_REQUEST) {
			rc = serve_overlay(s, &m);
			if (rc == 0)
				continue;
			return rc == PROTO_E_EOF ? 0 : rc;
		}
		if (m.type != PROTO_TEST_REQUEST)
			return bad_message(s, "expected TEST_REQUEST, got", &m, -EPROTO);
		rc = proto_decode_test_request(m.body, m.len, &req);
		if (rc < 0)
			return bad_message(s, "malformed", &m, rc);
		if (req.kind == PROTO_KIND_MTU)
			return serve_mtu(s);
		rc = serve_test(s, &req);
		if (rc == 1)
			*ran = true;
		if (rc < 0)
			return rc;
		if (s->sh->cfg->one_shot && *ran)
			return 0;
	}
}

/* Thread entry: serves one control connection, frees the session. */
static void *session_main(void *arg)
{
	struct session *s = arg;
	struct server_shared *sh = s->sh;
	bool ran = false;
	int rc;

	log_info("%s: connected", s->name);
	rc = hello(s);
	if (rc == 0 && sh->key)
		rc = authenticate(s);
	if (rc == 0)
		rc = serve_requests(s, &ran);
	if (rc < 0 && rc != PROTO_E_EOF)
		log_info("%s: session ended (%s)", s->name, proto_strerror(rc));
	ctrl_free(&s->c);
	free(s);
	if (ran && sh->cfg->one_shot)
		atomic_store(&sh->stop, true);
	atomic_fetch_sub(&sh->sessions, 1);
	return NULL;
}

void server_start_session(struct server_shared *sh, int fd, const struct sockaddr_storage *peer)
{
	struct session *s = calloc(1, sizeof(*s));
	socklen_t l = sizeof(s->local);
	pthread_attr_t attr;
	pthread_t t;

	if (!s || ctrl_init(&s->c, fd, sh->cfg->msg_timeout_ms) < 0) {
		free(s);
		close(fd);
		return;
	}
	s->sh = sh;
	s->peer = *peer;
	getsockname(fd, (struct sockaddr *)&s->local, &l);
	addr_unmap(&s->peer);
	addr_unmap(&s->local);
	addr_format(&s->peer, true, s->name, sizeof(s->name));
	atomic_fetch_add(&sh->sessions, 1);
	atomic_fetch_add(&sh->stats.sessions, 1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, session_main, s) != 0) {
		atomic_fetch_sub(&sh->sessions, 1);
		ctrl_free(&s->c);
		free(s);
	}
	pthread_attr_destroy(&attr);
}
