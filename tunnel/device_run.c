// SPDX-License-Identifier: MIT
/*
 * The device's control thread (device_run(), the caller's thread once the
 * data path runs): the engine's timers (keepalives, handshake retries,
 * rekeys, the deferred first initiation), each peer's path MTU once a second
 * or when a send found it stale, the TUN's MTU, and the control socket
 * (control_serve.c; the status text is the caller's, status.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>

#include "clock.h"
#include "control_serve.h"
#include "device.h"
#include "interrupt.h"
#include "log.h"
#include "pmtu.h"
#include "send.h"

#define DEVICE_PMTU_REFRESH_NS NSEC_PER_SEC

static void run_timers(struct device *dev, uint64_t now, uint64_t *next_pmtu)
{
	bool pmtu_due = now >= *next_pmtu;

	if (pmtu_due && dev->nl)
		pmtu_link_check(dev);

	for (size_t i = 0; i < dev->npeers; i++) {
		struct device_peer *p = &dev->peers[i];
		struct engine_result res;

		memset(&res, 0, sizeof(res));
		engine_update_timers(p->ep, now, &res);
		device_send_ctrl(dev, p, &res);
		if (p->initiate_at && now >= p->initiate_at) {
			struct engine_peer_stats st;

			p->initiate_at = 0;
			engine_peer_stats(p->ep, now, &st);
			memset(&res, 0, sizeof(res));
			if (!st.last_handshake_realtime_ns)
				engine_initiate(p->ep, now, &res);
			device_send_ctrl(dev, p, &res);
		}
		if (pmtu_due || atomic_load(&p->pmtu_stale))
			pmtu_refresh(p);
	}
	if (pmtu_due)
		*next_pmtu = now + DEVICE_PMTU_REFRESH_NS;
}

struct run_ctl {
	struct device *dev;
	device_status_fn status;
};

static size_t ctl_status(void *ctx, bool show_keys, char *buf, size_t cap)
{
	struct run_ctl *c = ctx;

	return c->status(c->dev, show_keys, buf, cap);
}

static void ctl_stop(void *ctx)
{
	struct run_ctl *c = ctx;

	atomic_store(&c->dev->stop_requested, true);
}

int device_run(struct device *dev, device_status_fn status)
{
	uint64_t next_pmtu = clock_now_ns() + DEVICE_PMTU_REFRESH_NS;
	struct run_ctl c = { .dev = dev, .status = status };
	const struct control_handler ctl = { .status = ctl_status, .stop = ctl_stop, .ctx = &c };

	while (!interrupt_requested() && !atomic_load(&dev->stop_requested)) {
		struct pollfd pfd = { .fd = dev->control_fd, .events = POLLIN };
		int r = poll(&pfd, 1, (int)(ENGINE_TICK_NS / NSEC_PER_MSEC));

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0 && (pfd.revents & POLLIN))
			control_serve(dev->control_fd, &ctl);
		run_timers(dev, clock_now_ns(), &next_pmtu);
	}
	log_info("%s: stopping (%s)", dev->tun.name,
		 interrupt_requested() ? "signal" : "control socket");
	return 0;
}
