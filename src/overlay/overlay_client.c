// SPDX-License-Identifier: MIT
/*
 * The client's end of the overlay between two hosts (overlay.h): a control
 * session of its own (HELLO, PSK proof, OVERLAY_REQUEST) held open for as
 * long as the overlay is wanted, the underlay socket as the client side of
 * a 1-stream UDP data test, and the local daemon.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "auth_client.h"
#include "ctrl.h"
#include "data_conn.h"
#include "key.h"
#include "log.h"
#include "overlay_int.h"
#include "version.h"

#define CLIENT_TIMEOUT_MS 10000
/* The server starts its daemon between our READY and its own. */
#define SERVER_READY_TIMEOUT_MS (OVERLAY_READY_TIMEOUT_MS + 5000)

struct overlay_client {
	struct ctrl c;
	bool have_ctrl;
	struct sockaddr_storage server;
	struct proto_overlay_accept acc;
	struct ovl_daemon d;
	bool down; /* the server said OVERLAY_DOWN or hung up */
	char *err;
	size_t errlen;
};

static int fail(struct overlay_client *oc, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct overlay_client *oc, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!oc->err[0]) {
		va_start(ap, fmt);
		vsnprintf(oc->err, oc->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int recv_expect(struct overlay_client *oc, struct proto_msg *m, uint16_t type,
		       unsigned timeout_ms)
{
	int rc = ctrl_recv(&oc->c, m, (int)timeout_ms, true);
	struct proto_text t;

	if (rc == 0)
		return fail(oc, -ETIMEDOUT, "no %s from the server within %u ms",
			    proto_type_name(type), timeout_ms);
	if (rc < 0)
		return fail(oc, rc, "waiting for %s: %s", proto_type_name(type),
			    proto_strerror(rc));
	if (m->type == type)
		return 0;
	if ((m->type == PROTO_ERROR || m->type == PROTO_TEST_REJECT) &&
	    proto_decode_text(m->body, m->len, &t) == 0)
		return fail(oc, t.code == PROTO_R_BUSY ? -EBUSY : -ECONNREFUSED, "server: %s (%s)",
			    t.text, proto_reason_str(t.code));
	return fail(oc, -EPROTO, "expected %s, got %s", proto_type_name(type),
		    proto_type_name(m->type));
}

static int connect_session(struct overlay_client *oc, const struct overlay_client_spec *spec)
{
	socklen_t len;
	int fd, rc = addr_resolve(spec->host, spec->port, spec->family, false, &oc->server, &len);

	if (rc < 0)
		return fail(oc, rc, "cannot resolve '%s'", spec->host);
	fd = socket(oc->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(oc, -errno, "socket: %s", strerror(errno));
	rc = data_connect(fd, &oc->server, CLIENT_TIMEOUT_MS);
	if (rc < 0) {
		close(fd);
		return fail(oc, rc, "cannot connect to %s port %u: %s", spec->host, spec->port,
			    strerror(-rc));
	}
	ovl_keepalive(fd);
	rc = ctrl_init(&oc->c, fd, CLIENT_TIMEOUT_MS);
	if (rc < 0)
		return fail(oc, rc, "out of memory");
	oc->have_ctrl = true;
	return 0;
}

static int expect_msg(void *ctx, struct proto_msg *m, uint16_t type)
{
	return recv_expect(ctx, m, type, CLIENT_TIMEOUT_MS);
}

static int authenticate(struct overlay_client *oc, const char *psk_file)
{
	char err[256];
	int rc;

	if (!psk_file || !psk_file[0])
		return fail(oc, -EACCES, "the server requires a pre-shared key (psk_file)");
	rc = auth_client_exchange(&oc->c, psk_file, expect_msg, oc, err, sizeof(err));
	return rc < 0 && err[0] ? fail(oc, rc, "%s", err) : rc;
}

static int hello(struct overlay_client *oc, const struct overlay_client_spec *spec)
{
	struct proto_hello h = { .version = PROTO_VERSION };
	struct proto_msg m;
	int rc;

	snprintf(h.software, sizeof(h.software), "ovlperf %s", OVLPERF_VERSION);
	rc = ctrl_send(&oc->c, proto_encode_hello(oc->c.out, PROTO_MAX_MSG, &h));
	if (rc == 0)
		rc = recv_expect(oc, &m, PROTO_HELLO, CLIENT_TIMEOUT_MS);
	if (rc < 0)
		return fail(oc, rc, "HELLO: %s", proto_strerror(rc));
	if (proto_decode_hello(m.body, m.len, &h) < 0)
		return fail(oc, -EPROTO, "malformed HELLO from the server");
	if (!(h.caps & PROTO_CAP_OVERLAY) || !(h.caps & PROTO_CAP_AUTH_REQUIRED))
		return fail(oc, -EOPNOTSUPP,
			    "the server at %s does not bring up the built-in overlay (start it "
			    "with `ovlperf server --overlay --psk-file FILE`)",
			    spec->host);
	return authenticate(oc, spec->psk_file);
}

/* OVERLAY_REQUEST with our fresh public key; the answer's subnets must be
 * free on this host too. */
static int request(struct overlay_client *oc, const struct overlay_client_spec *spec,
		   const uint8_t *priv)
{
	struct proto_overlay_request req = { .mtu = spec->mtu,
					     .cipher = spec->cipher,
					     .nets = spec->nets };
	struct proto_overlay_nets nets = { 0 };
	struct proto_msg m;
	char why[256];
	int rc = key_public(req.client_key, priv);

	if (rc == 0)
		rc = ctrl_send(&oc->c,
			       proto_encode_overlay_request(oc->c.out, PROTO_MAX_MSG, &req));
	if (rc < 0)
		return fail(oc, rc, "sending OVERLAY_REQUEST: %s", proto_strerror(rc));
	rc = recv_expect(oc, &m, PROTO_OVERLAY_ACCEPT, CLIENT_TIMEOUT_MS + 5000);
	if (rc < 0)
		return rc;
	if (proto_decode_overlay_accept(m.body, m.len, &oc->acc) < 0)
		return fail(oc, -EPROTO, "malformed OVERLAY_ACCEPT from the server");
	overlay_net_of(&oc->acc, &nets);
	rc = overlay_net_check_host(&nets, "this host", why, sizeof(why));
	return rc < 0 ? fail(oc, rc, "%s", why) : 0;
}

/* The client side of the underlay's data test, then READY both ways. */
static int connect_underlay(struct overlay_client *oc, int *fd)
{
	struct proto_data_hello h = { .test_id = oc->acc.test_id };
	struct proto_overlay_ready rdy = { 0 };
	struct data_opts opts = { 0 };
	struct proto_msg m;
	int rc;

	memcpy(h.cookie, oc->acc.cookie, PROTO_COOKIE_LEN);
	*fd = data_client_udp(&oc->server, oc->acc.port, NULL, &h, &opts, CLIENT_TIMEOUT_MS, NULL);
	if (*fd < 0)
		return fail(oc, *fd,
			    "the overlay's underlay socket to UDP port %u of the server: %s "
			    "(is UDP to that port open?)",
			    oc->acc.port, strerror(-*fd));
	rc = ctrl_send(&oc->c, proto_encode_overlay_ready(oc->c.out, PROTO_MAX_MSG, &rdy));
	if (rc == 0)
		rc = recv_expect(oc, &m, PROTO_OVERLAY_READY, SERVER_READY_TIMEOUT_MS);
	if (rc == 0 && proto_decode_overlay_ready(m.body, m.len, &rdy) < 0)
		rc = fail(oc, -EPROTO, "malformed OVERLAY_READY from the server");
	return rc;
}

static int start_daemon(struct overlay_client *oc, const struct overlay_client_spec *spec,
			const uint8_t *priv, int fd)
{
	struct ovl_daemon_spec ds = { .private_key = priv,
				      .peer_key = oc->acc.server_key,
				      .acc = &oc->acc,
				      .mtu = oc->acc.mtu ? oc->acc.mtu : spec->mtu,
				      .cipher = spec->cipher,
				      .underlay_fd = fd,
				      .keepalive_s = OVERLAY_PERSISTENT_KEEPALIVE_S };
	socklen_t l = sizeof(ds.endpoint);
	char ifname[IF_NAMESIZE];
	int rc;

	snprintf(ifname, sizeof(ifname), "ovc%d", (int)getpid());
	ds.ifname = ifname;
	if (getpeername(fd, (struct sockaddr *)&ds.endpoint, &l) < 0)
		return fail(oc, -errno, "underlay socket: %s", strerror(errno));
	rc = ovl_daemon_start(&ds, &oc->d);
	if (rc < 0)
		return fail(oc, rc, "the local overlay daemon did not start: %s", strerror(-rc));
	rc = ovl_daemon_wait_handshake(&oc->d, OVERLAY_READY_TIMEOUT_MS);
	if (rc < 0)
		return fail(oc, rc, "no tunnel handshake with the server within %u ms",
			    OVERLAY_READY_TIMEOUT_MS);
	return 0;
}

int overlay_client_up(const struct overlay_client_spec *spec, struct overlay_client **out,
		      char *err, size_t errlen)
{
	struct overlay_client *oc = calloc(1, sizeof(*oc));
	uint8_t *priv = NULL;
	int fd = -1, rc;

	*out = NULL;
	if (!oc || sodium_init() < 0 || !(priv = key_alloc())) {
		free(oc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	err[0] = '\0';
	oc->err = err;
	oc->errlen = errlen;
	key_generate(priv);
	rc = connect_session(oc, spec);
	if (rc == 0)
		rc = hello(oc, spec);
	if (rc == 0)
		rc = request(oc, spec, priv);
	if (rc == 0)
		rc = connect_underlay(oc, &fd);
	if (rc == 0)
		rc = start_daemon(oc, spec, priv, fd);
	if (fd >= 0)
		close(fd);
	key_free(priv);
	if (rc < 0) {
		overlay_client_down(oc);
		return rc;
	}
	oc->err = NULL;
	*out = oc;
	return 0;
}

int overlay_client_server_addr(const struct overlay_client *oc, int family, char *buf, size_t len)
{
	const void *a = family == AF_INET6 ? (const void *)oc->acc.server_v6
					   : (const void *)oc->acc.server_v4;

	return inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len) ? 0
											  : -ENOSPC;
}

const char *overlay_client_ifname(const struct overlay_client *oc)
{
	return oc->d.ifname;
}

bool overlay_client_alive(struct overlay_client *oc)
{
	struct proto_msg m;
	int rc;

	if (oc->down || !ovl_daemon_alive(&oc->d))
		return false;
	rc = ctrl_recv(&oc->c, &m, 0, false);
	if (rc < 0 || (rc == 1 && m.type == PROTO_OVERLAY_DOWN)) {
		oc->down = true;
		return false;
	}
	return true;
}

int overlay_client_down(struct overlay_client *oc)
{
	struct proto_overlay_down d = { .reason = PROTO_OVL_DOWN_DONE };
	int rc = 0;

	if (!oc)
		return 0;
	if (oc->have_ctrl && !oc->down)
		ctrl_send(&oc->c, proto_encode_overlay_down(oc->c.out, PROTO_MAX_MSG, &d));
	if (oc->d.pid > 0)
		rc = ovl_daemon_stop(&oc->d);
	if (oc->have_ctrl)
		ctrl_free(&oc->c);
	free(oc);
	return rc;
}
