// SPDX-License-Identifier: MIT
/*
 * The server's end of the overlay between two hosts (overlay.h): limits,
 * the subnets checked against this host's routes, fresh keys, the underlay
 * socket as a 1-stream UDP data test on the server's port, the daemon, and
 * holding the overlay for as long as the control session lives.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "ctrl.h"
#include "data_conn.h"
#include "key.h"
#include "log.h"
#include "overlay_int.h"

#define SETUP_TIMEOUT_MS 10000
#define HOLD_SLICE_MS	 200
/* Data test ids of overlays: the high bit keeps them apart from the ids
 * of tests (counted up from 1 by the session code). */
#define OVERLAY_TEST_ID_BASE 0x80000000u

struct overlay_server {
	struct ovl_state *state;
	uint16_t port;
	unsigned max;
	pthread_mutex_t lock;
	bool used[OVERLAY_MAX_SLOTS];
	uint32_t next_id;
};

/* One overlay being served. */
struct serve {
	struct overlay_server *os;
	struct ctrl *c;
	struct data_registry *reg; /* the server's: the underlay's greeting */
	const struct sockaddr_storage *peer, *local;
	const char *name;
	struct proto_overlay_request req;
	struct proto_overlay_accept acc;
	unsigned slot;
	uint8_t *priv;
	struct data_server ds;
	bool ds_open;
	struct ovl_daemon d;
};

int overlay_server_open(const char *state_path, uint16_t port, unsigned max,
			struct overlay_server **out)
{
	struct overlay_server *os = calloc(1, sizeof(*os));
	char path[256];
	int r;

	*out = NULL;
	if (!os)
		return -ENOMEM;
	if (sodium_init() < 0) {
		free(os);
		return -EIO;
	}
	os->port = port;
	os->max = max > OVERLAY_MAX_SLOTS ? OVERLAY_MAX_SLOTS : max;
	if (state_path && state_path[0]) {
		snprintf(path, sizeof(path), "%s", state_path);
	} else {
		if (mkdir(OVERLAY_STATE_DIR, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			log_err("overlay: cannot create %s: %s", OVERLAY_STATE_DIR, strerror(-r));
			free(os);
			return r;
		}
		uint64_t ino = 0;

		/* one per network namespace and port: servers in other
		 * namespaces are other hosts */
		ovl_netns_ino(&ino);
		snprintf(path, sizeof(path), "%s/server-%" PRIu64 "-%u.state", OVERLAY_STATE_DIR,
			 ino, port);
	}
	r = ovl_state_open(path, &os->state);
	if (r < 0) {
		free(os);
		return r;
	}
	pthread_mutex_init(&os->lock, NULL);
	log_info("overlay: allowed to PSK clients, at most %u at once, state in %s", os->max, path);
	*out = os;
	return 0;
}

void overlay_server_close(struct overlay_server *os)
{
	if (!os)
		return;
	ovl_state_close(os->state);
	pthread_mutex_destroy(&os->lock);
	free(os);
}

static int take_slot(struct overlay_server *os, uint32_t *test_id)
{
	int slot = -1;

	pthread_mutex_lock(&os->lock);
	for (unsigned i = 0; i < os->max && slot < 0; i++)
		if (!os->used[i])
			slot = (int)i;
	if (slot >= 0) {
		os->used[slot] = true;
		*test_id = OVERLAY_TEST_ID_BASE | (os->next_id++ & 0x7fffffffu);
	}
	pthread_mutex_unlock(&os->lock);
	return slot;
}

static void give_slot(struct overlay_server *os, unsigned slot)
{
	pthread_mutex_lock(&os->lock);
	os->used[slot] = false;
	pthread_mutex_unlock(&os->lock);
}

static int reject(struct serve *sv, uint16_t code, const char *why)
{
	log_warn("%s: overlay refused: %s", sv->name, why);
	return ctrl_send_text(sv->c, PROTO_TEST_REJECT, code, "overlay refused: %s", why);
}

/* The client's subnets, or this slot's defaults for a family it left open. */
static void choose_nets(const struct serve *sv, struct proto_overlay_nets *nets)
{
	struct proto_overlay_nets def;

	overlay_net_default(sv->slot, &def);
	*nets = sv->req.nets;
	if (!nets->v4_len) {
		nets->v4_len = def.v4_len;
		memcpy(nets->v4, def.v4, 4);
	}
	if (!nets->v6_len) {
		nets->v6_len = def.v6_len;
		memcpy(nets->v6, def.v6, 16);
	}
}

/* ACCEPT with the server's key and addresses and the underlay's data test. */
static int accept_request(struct serve *sv, uint32_t test_id)
{
	struct proto_overlay_nets nets;
	struct data_opts opts = { 0 };
	char why[256];
	int r;

	choose_nets(sv, &nets);
	if (overlay_net_check_host(&nets, "the server", why, sizeof(why)) < 0)
		return reject(sv, PROTO_R_UNSPEC, why) < 0 ? -EPIPE : 1;
	sv->priv = key_alloc();
	if (!sv->priv)
		return -ENOMEM;
	key_generate(sv->priv);
	r = key_public(sv->acc.server_key, sv->priv);
	if (r == 0)
		r = data_server_open(&sv->ds, true, 1, test_id, sv->local, sv->peer, sv->reg,
				     &opts);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot open the underlay socket: %s", strerror(-r));
		return reject(sv, PROTO_R_INTERNAL, why) < 0 ? -EPIPE : 1;
	}
	sv->ds_open = true;
	overlay_net_hosts(&nets, &sv->acc);
	sv->acc.test_id = test_id;
	sv->acc.port = sv->ds.ports[0];
	sv->acc.mtu = sv->req.mtu;
	memcpy(sv->acc.cookie, sv->ds.cookie, PROTO_COOKIE_LEN);
	return ctrl_send(sv->c, proto_encode_overlay_accept(sv->c->out, PROTO_MAX_MSG, &sv->acc));
}

/* Answers the client's UDP greeting until it says READY; then the
 * connected socket is ours to hand over. */
static int connect_underlay(struct serve *sv, int *fd)
{
	uint64_t deadline = clock_now_ns() + SETUP_TIMEOUT_MS * NSEC_PER_MSEC;
	struct pollfd pfd[2];

	for (;;) {
		unsigned n = 1 + data_server_pollfds(&sv->ds, pfd + 1, 1);
		struct proto_msg m;
		int r;

		pfd[0] = (struct pollfd){ .fd = sv->c->fd, .events = POLLIN };
		if (poll(pfd, n, 20) < 0 && errno != EINTR)
			return -errno;
		data_server_handle(&sv->ds, pfd + 1, n - 1, SETUP_TIMEOUT_MS);
		r = ctrl_recv(sv->c, &m, 0, true);
		if (r < 0)
			return r;
		if (r == 1 && m.type == PROTO_OVERLAY_DOWN)
			return PROTO_E_EOF; /* the client gave up (a route of its own collides) */
		if (r == 1 && m.type != PROTO_OVERLAY_READY)
			return ctrl_send_text(sv->c, PROTO_ERROR, PROTO_R_BAD_MESSAGE,
					      "expected OVERLAY_READY, got %s",
					      proto_type_name(m.type)) < 0
				       ? -EPIPE
				       : -EPROTO;
		if (r == 1 && data_server_complete(&sv->ds)) {
			*fd = data_server_take(&sv->ds, 0);
			return *fd < 0 ? *fd : 0;
		}
		if (r == 1 || clock_now_ns() > deadline) {
			ctrl_send_text(sv->c, PROTO_ERROR, PROTO_R_TIMEOUT,
				       "the overlay's UDP greeting did not arrive within %u ms "
				       "(is UDP port %u open?)",
				       SETUP_TIMEOUT_MS, sv->acc.port);
			return -ETIMEDOUT;
		}
	}
}

static int start_daemon(struct serve *sv, int fd)
{
	struct ovl_daemon_spec spec = { .private_key = sv->priv,
					.peer_key = sv->req.client_key,
					.is_server = true,
					.acc = &sv->acc,
					.mtu = sv->req.mtu,
					.cipher = sv->req.cipher,
					.underlay_fd = fd };
	socklen_t l = sizeof(spec.endpoint);
	char ifname[IF_NAMESIZE];
	int r;

	snprintf(ifname, sizeof(ifname), "ovs%u-%u", sv->os->port, sv->slot);
	spec.ifname = ifname;
	if (getpeername(fd, (struct sockaddr *)&spec.endpoint, &l) < 0)
		return -errno;
	r = ovl_daemon_start(&spec, &sv->d);
	key_free(sv->priv); /* the daemon has its own copy now */
	sv->priv = NULL;
	if (r == 0)
		ovl_state_add(sv->os->state, &sv->d);
	if (r == 0 && (r = ovl_no_forwarding(ifname)) < 0)
		log_err("overlay: cannot turn IPv4 forwarding off on %s: %s", ifname, strerror(-r));
	return r;
}

static int send_down(struct serve *sv, uint16_t reason)
{
	struct proto_overlay_down d = { .reason = reason };

	return ctrl_send(sv->c, proto_encode_overlay_down(sv->c->out, PROTO_MAX_MSG, &d));
}

/* Until the client says OVERLAY_DOWN, hangs up or goes silent (TCP
 * keepalive), the daemon exits, or the server is told to stop. */
static const char *hold(struct serve *sv)
{
	for (;;) {
		struct proto_msg m;
		int r = ctrl_recv(sv->c, &m, HOLD_SLICE_MS, true);

		if (r == -EINTR) {
			send_down(sv, PROTO_OVL_DOWN_SHUTDOWN);
			return "the server stops";
		}
		if (r == 1 && m.type == PROTO_OVERLAY_DOWN)
			return "the client is done";
		if (r == 1) {
			ctrl_send_text(sv->c, PROTO_ERROR, PROTO_R_BAD_MESSAGE,
				       "%s while an overlay runs (expected OVERLAY_DOWN)",
				       proto_type_name(m.type));
			return "unexpected message";
		}
		if (r == PROTO_E_EOF || r == PROTO_E_EOF_PARTIAL)
			return "the client hung up";
		if (r < 0)
			return r == -ETIMEDOUT ? "the client went silent (keepalive)"
					       : proto_strerror(r);
		if (!ovl_daemon_alive(&sv->d)) {
			send_down(sv, PROTO_OVL_DOWN_DAEMON);
			return "its daemon exited";
		}
	}
}

static void log_up(const struct serve *sv)
{
	char v4[INET6_ADDRSTRLEN], v6[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET, sv->acc.server_v4, v4, sizeof(v4));
	inet_ntop(AF_INET6, sv->acc.server_v6, v6, sizeof(v6));
	log_info("%s: overlay up on %s (daemon %d): this end %s/%u and %s/%u", sv->name,
		 sv->d.ifname, (int)sv->d.pid, v4, sv->acc.v4_len, v6, sv->acc.v6_len);
}

static int serve_overlay(struct serve *sv)
{
	struct proto_overlay_ready rdy = { 0 };
	int fd = -1, r = accept_request(sv, sv->acc.test_id);

	if (r != 0)
		return r > 0 ? 0 : r; /* 1: refused, the session goes on */
	r = connect_underlay(sv, &fd);
	if (r < 0) {
		log_info("%s: overlay not set up: %s", sv->name,
			 r == PROTO_E_EOF ? "the client withdrew" : proto_strerror(r));
		return r == PROTO_E_EOF ? 0 : r;
	}
	r = start_daemon(sv, fd);
	close(fd);
	if (r < 0) {
		ctrl_send_text(sv->c, PROTO_ERROR, PROTO_R_INTERNAL,
			       "the server's overlay daemon did not start: %s", strerror(-r));
		return r;
	}
	r = ctrl_send(sv->c, proto_encode_overlay_ready(sv->c->out, PROTO_MAX_MSG, &rdy));
	log_up(sv);
	log_info("%s: overlay on %s down: %s", sv->name, sv->d.ifname,
		 r < 0 ? "READY not sent" : hold(sv));
	return PROTO_E_EOF;
}

int overlay_serve(struct overlay_server *os, struct ctrl *c, struct data_registry *reg,
		  const struct sockaddr_storage *peer, const struct sockaddr_storage *local,
		  const char *name, const struct proto_msg *request)
{
	struct serve *sv = calloc(1, sizeof(*sv));
	int r, slot;

	if (!sv)
		return -ENOMEM;
	*sv = (struct serve){
		.os = os, .c = c, .reg = reg, .peer = peer, .local = local, .name = name
	};
	r = proto_decode_overlay_request(request->body, request->len, &sv->req);
	if (r < 0) {
		ctrl_send_text(c, PROTO_ERROR, PROTO_R_BAD_MESSAGE, "malformed OVERLAY_REQUEST: %s",
			       proto_strerror(r));
		free(sv);
		return r;
	}
	slot = take_slot(os, &sv->acc.test_id);
	if (slot < 0) {
		char why[128];

		snprintf(why, sizeof(why),
			 "this server already runs its maximum of %u overlays (--overlay-max)",
			 os->max);
		r = reject(sv, PROTO_R_BUSY, why);
		free(sv);
		return r < 0 ? r : 0;
	}
	sv->slot = (unsigned)slot;
	ovl_keepalive(c->fd);
	r = serve_overlay(sv);
	if (sv->d.pid > 0) {
		pid_t pid = sv->d.pid;

		ovl_daemon_stop(&sv->d);
		ovl_state_remove(os->state, pid);
	}
	if (sv->ds_open)
		data_server_close(&sv->ds);
	key_free(sv->priv);
	give_slot(os, sv->slot);
	free(sv);
	return r;
}
