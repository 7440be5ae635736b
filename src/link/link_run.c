// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* recvmmsg(), sendmmsg(), struct mmsghdr */
/*
 * `ovlperf link run`: one thread per direction, each the only owner of its
 * model, queue and counters. A thread reads what arrived on its in end,
 * gives every wire packet its fate, sends what is due on its out end, and
 * sleeps until the earlier of a frame arriving and the queue's head being
 * due: a timerfd armed at that absolute CLOCK_MONOTONIC time, polled with
 * the receiving socket (timer slack 1 ns: the head leaves when it is due,
 * not up to 50 us later). The main thread waits for SIGTERM or SIGINT,
 * then stops both and marks the counter file.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "clock.h"
#include "link_int.h"
#include "log.h"

#define STATS_EVERY_NS (100ULL * NSEC_PER_MSEC) /* kernel socket drops read this often */
/* A sleeping thread wakes up to a few hundred microseconds late on a loaded
 * or virtual machine: the timer is armed this much before the head is due
 * and the thread polls its socket without sleeping until it is. */
#define SPIN_NS (250ULL * NSEC_PER_USEC)
/* A SCHED_FIFO thread that never sleeps is throttled by the kernel when the
 * real-time tasks of its CPU have used sched_rt_runtime_us of every
 * sched_rt_period_us (950 ms of each second by default): it then stands
 * still for the rest of the period, 50 ms in which nothing is forwarded,
 * and while it polls it holds a core the hosts' processes need. At high
 * packet rates the head is always due within SPIN_NS, so the thread would
 * never sleep: it polls only while its own CPU time in the current window
 * is under the budget, and sleeps until the head is due once it is over.
 * Seen without the budget: 1 Gbit/s of 1400-byte datagrams through a 40 ms
 * link left up to 47 ms late, ovlperf's one-way delay p99 81 ms. */
#define SPIN_WINDOW_NS (10ULL * NSEC_PER_MSEC)
#define SPIN_BUDGET_NS (6ULL * NSEC_PER_MSEC)	/* per window: 60 % of a core */
#define SPIN_CHECK_NS  (250ULL * NSEC_PER_USEC) /* the thread's CPU time read this often */

struct dir_run {
	unsigned dir;
	const struct link_port *in, *out;
	struct link_model model;
	struct link_queue queue;
	struct link_rx_batch rx;
	struct link_dir_counters c;
	struct link_counters_file *file;
	uint8_t *scratch; /* a frame that finds no slot is cut into this */
	int timer_fd, stop_fd;
	uint64_t armed_ns, stats_ns;
	uint64_t win_ns, win_cpu_ns, spin_check_ns; /* the polling budget's window */
	bool spin_ok;
	atomic_bool *stop;
	bool realtime;
	int rc;
	pthread_t thread;
};

static void publish(struct dir_run *r, uint64_t now)
{
	r->c.queue_packets = r->queue.n;
	r->c.queue_bytes = r->queue.bytes;
	r->c.queue_max_packets = r->queue.max_packets;
	r->c.queue_max_bytes = r->queue.max_bytes;
	link_counters_publish(r->file, r->dir, &r->c, now);
}

/* Sends everything due by now; whether anything was. */
static bool send_due(struct dir_run *r, uint64_t now)
{
	struct link_slot *batch[LINK_BATCH], *h;
	bool ok[LINK_BATCH], any = false;
	unsigned k;

	do {
		k = 0;
		while (k < LINK_BATCH && (h = link_queue_head(&r->queue)) && h->due_ns <= now)
			batch[k++] = link_queue_pop(&r->queue);
		if (!k)
			break;
		link_io_send(r->out, batch, k, ok);
		now = clock_now_ns();
		for (unsigned i = 0; i < k; i++) {
			if (ok[i]) {
				uint64_t late = now - batch[i]->due_ns;

				r->c.tx_packets++;
				r->c.tx_bytes += batch[i]->len;
				r->c.late_sum_ns += late;
				if (late > r->c.late_max_ns)
					r->c.late_max_ns = late;
			} else {
				r->c.drop_other++;
			}
			link_queue_release(&r->queue, batch[i]);
		}
		any = true;
	} while (k == LINK_BATCH);
	return any;
}

/* One wire packet, already in s (a reserved slot) or in scratch (s NULL). */
static void fate(struct dir_run *r, struct link_slot *s, size_t len, uint64_t now)
{
	enum link_loss loss = link_model_loss(&r->model);
	struct link_due d;

	r->c.rx_packets++;
	r->c.rx_bytes += len;
	if (loss != LINK_KEEP) {
		if (loss == LINK_LOST_BURST)
			r->c.drop_burst++;
		else
			r->c.drop_loss++;
		return;
	}
	if (!link_queue_admit(&r->queue, s, len)) {
		r->c.drop_queue++;
		return;
	}
	if (!link_model_due(&r->model, now, len, &d)) {
		r->c.drop_rate++;
		return;
	}
	s->len = (uint32_t)len;
	link_queue_push(&r->queue, s, d.due_ns);
	r->c.delayed += d.delayed;
	r->c.reordered += d.reordered;
}

/* Frame i of the batch: its wire packets one by one. */
static void take(struct dir_run *r, unsigned i, uint64_t now)
{
	struct mmsghdr *m = &r->rx.msg[i];
	const uint8_t *frame = link_rx_frame(&r->rx, i);
	size_t len = m->msg_len > LINK_VNET_LEN ? m->msg_len - LINK_VNET_LEN : 0;
	int n = len < LINK_ETH_HLEN || (m->msg_hdr.msg_flags & MSG_TRUNC)
			? -EINVAL
			: link_gso_count(&r->rx.vnet[i], frame, len);

	if (n < 0) {
		r->c.rx_packets++;
		r->c.rx_bytes += len;
		r->c.drop_other++;
		return;
	}
	r->c.gso_split += n > 1;
	for (unsigned k = 0; k < (unsigned)n; k++) {
		struct link_slot *s = link_queue_reserve(&r->queue);
		struct virtio_net_hdr oh;
		uint8_t *out = s ? s->data : r->scratch;
		int seg = link_gso_segment(&r->rx.vnet[i], frame, len, k, out, r->queue.frame_max,
					   &oh);

		if (seg < 0) {
			r->c.rx_packets++;
			r->c.drop_other++;
			continue;
		}
		if (s)
			memcpy(s->vnet, &oh, LINK_VNET_LEN);
		fate(r, s, (size_t)seg, now);
	}
}

static int arm(struct dir_run *r, uint64_t at)
{
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)(at / NSEC_PER_SEC),
						.tv_nsec = (long)(at % NSEC_PER_SEC) } };

	if (at == r->armed_ns)
		return 0;
	r->armed_ns = at;
	return timerfd_settime(r->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) ? -errno : 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Whether the thread may poll instead of sleeping (SPIN_BUDGET_NS above). */
static bool may_spin(struct dir_run *r, uint64_t now)
{
	if (now - r->win_ns >= SPIN_WINDOW_NS) {
		r->win_ns = r->spin_check_ns = now;
		r->win_cpu_ns = thread_cpu_ns();
		r->spin_ok = true;
	} else if (r->spin_ok && now - r->spin_check_ns >= SPIN_CHECK_NS) {
		r->spin_check_ns = now;
		if (thread_cpu_ns() - r->win_cpu_ns >= SPIN_BUDGET_NS) {
			r->spin_ok = false;
			r->c.spin_stops++;
		}
	}
	return r->spin_ok;
}

/* Sleeps until a frame arrives, the head is due or the run stops. */
static int wait_event(struct dir_run *r)
{
	struct pollfd p[3] = { { .fd = r->in->rx_fd, .events = POLLIN },
			       { .fd = r->timer_fd, .events = POLLIN },
			       { .fd = r->stop_fd, .events = POLLIN } };
	struct link_slot *h = link_queue_head(&r->queue);
	uint64_t ticks, now = clock_now_ns();
	bool spin = may_spin(r, now);
	int rc;

	if (h && h->due_ns <= now + SPIN_NS && spin)
		return 0; /* due soon: keep polling without sleeping */
	rc = arm(r, h ? h->due_ns - (spin ? SPIN_NS : 0) : 0);
	if (rc)
		return rc;
	if (poll(p, 3, -1) < 0)
		return errno == EINTR ? 0 : -errno;
	if ((p[1].revents & POLLIN) && read(r->timer_fd, &ticks, sizeof(ticks)) > 0)
		r->armed_ns = 0; /* fired: disarmed until armed again */
	return 0;
}

static int loop_once(struct dir_run *r)
{
	uint64_t now = clock_now_ns();
	bool sent = send_due(r, now);
	int n = link_io_recv(r->in, &r->rx);

	if (n < 0)
		return n;
	now = clock_now_ns();
	if (n) {
		int64_t real_to_mono = (int64_t)now - (int64_t)clock_realtime_ns();

		for (unsigned i = 0; i < (unsigned)n; i++)
			take(r, i, link_rx_arrival(&r->rx, i, real_to_mono, now));
	}
	if (now - r->stats_ns >= STATS_EVERY_NS) {
		r->c.rx_kernel_drops += link_port_rx_drops(r->in);
		r->stats_ns = now;
		sent = true;
	}
	if (n || sent)
		publish(r, now);
	if (n == LINK_BATCH || sent)
		return 0; /* more may be waiting, or due */
	if (n)
		return 0;
	return wait_event(r);
}

static void *dir_main(void *arg)
{
	struct dir_run *r = arg;

	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (r->realtime) {
		struct sched_param sp = { .sched_priority = LINK_RT_PRIO };
		int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (e)
			log_warn(
				"%s -> %s: no SCHED_FIFO (%s): delays grow with the machine's load",
				r->in->name, r->out->name, strerror(e));
	}
	while (!atomic_load(r->stop)) {
		r->rc = loop_once(r);
		if (r->rc) {
			log_err("%s -> %s: %s", r->in->name, r->out->name, strerror(-r->rc));
			kill(getpid(), SIGTERM); /* the main thread stops the other one */
			break;
		}
	}
	publish(r, clock_now_ns());
	return NULL;
}

static void dir_free(struct dir_run *r)
{
	link_queue_free(&r->queue);
	link_rx_batch_free(&r->rx);
	free(r->scratch);
	if (r->timer_fd >= 0)
		close(r->timer_fd);
}

static int dir_init(struct dir_run *r, unsigned dir, const struct link_conf *conf,
		    const struct link_port *in, const struct link_port *out)
{
	const struct link_dir_conf *dc = &conf->dir[dir];
	struct link_bounds b;
	size_t frame_max = out->mtu + LINK_FRAME_EXTRA;
	int rc;

	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->in = in;
	r->out = out;
	r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->timer_fd < 0)
		return -errno;
	link_bounds_get(dc, conf->limit_bytes, &b);
	link_model_init(&r->model, dc, conf->seed, dir, b.backlog_bytes);
	r->c.limit_bytes = b.queue_bytes;
	r->scratch = malloc(frame_max);
	rc = r->scratch ? link_queue_init(&r->queue, b.queue_bytes, b.slots, frame_max) : -ENOMEM;
	if (!rc)
		rc = link_rx_batch_init(&r->rx);
	if (rc)
		dir_free(r);
	else
		log_info("%s -> %s: queue of %llu bytes in %u slots%s", in->name, out->name,
			 (unsigned long long)b.queue_bytes, b.slots,
			 dc->rate_bps ? ", rate backlog bounded" : "");
	return rc;
}

/* The kernel's own packets from an end (IPv6 router solicitations, MLD)
 * would reach the host beside it uncounted. */
static void check_ipv6(const char *ifname)
{
	char path[96], v = '1';
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (read(fd, &v, 1) == 1 && v == '0')
		log_warn("%s has IPv6 on: its own packets (router solicitations, MLD) reach "
			 "the host beside it outside the link's counters; turn it off "
			 "(net.ipv6.conf.%s.disable_ipv6=1)",
			 ifname, ifname);
	close(fd);
}

static int open_ports(const struct link_run_opts *o, struct link_port p[LINK_DIRS])
{
	const char *names[LINK_DIRS] = { o->a, o->b };
	int rc;

	for (unsigned i = 0; i < LINK_DIRS; i++) {
		rc = link_port_open(&p[i], names[i]);
		if (rc) {
			log_err("%s: %s", names[i],
				rc == -ENODEV ? "no such interface" : strerror(-rc));
			if (i)
				link_port_close(&p[0]);
			return rc;
		}
		check_ipv6(names[i]);
	}
	return 0;
}

/* Runs both directions until SIGTERM or SIGINT (blocked here, taken by
 * sigwait(), so the threads' calls are never interrupted). */
static int forward(struct dir_run r[LINK_DIRS], struct link_counters_file *file, int stop_fd,
		   bool realtime)
{
	atomic_bool stop = false;
	unsigned started = 0;
	sigset_t set;
	int sig, rc = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	for (unsigned d = 0; d < LINK_DIRS && !rc; d++) {
		r[d].file = file;
		r[d].stop = &stop;
		r[d].stop_fd = stop_fd;
		r[d].realtime = realtime;
		rc = -pthread_create(&r[d].thread, NULL, dir_main, &r[d]);
		started += !rc;
	}
	if (!rc)
		rc = link_counters_ready(file);
	if (!rc) {
		log_info("forwarding %s <-> %s", r[0].in->name, r[0].out->name);
		sigwait(&set, &sig);
	}
	atomic_store(&stop, true);
	if (eventfd_write(stop_fd, 1))
		rc = rc ? rc : -errno;
	for (unsigned d = 0; d < started; d++) {
		pthread_join(r[d].thread, NULL);
		rc = rc ? rc : r[d].rc;
	}
	return rc;
}

int link_run(const struct link_run_opts *o)
{
	struct link_port p[LINK_DIRS];
	struct dir_run r[LINK_DIRS];
	struct link_counters_file *file = NULL;
	sigset_t set, old;
	int rc, stop_fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	rc = open_ports(o, p);
	if (rc)
		goto out_mask;
	stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = stop_fd < 0 ? -errno : dir_init(&r[LINK_AB], LINK_AB, &o->conf, &p[0], &p[1]);
	if (rc)
		goto out_ports;
	rc = dir_init(&r[LINK_BA], LINK_BA, &o->conf, &p[1], &p[0]);
	if (rc)
		goto out_ab;
	rc = link_counters_create(o->counters, &file);
	if (rc)
		log_err("%s: %s", o->counters, strerror(-rc));
	else
		rc = forward(r, file, stop_fd, !o->best_effort);
	link_counters_close(file);
	dir_free(&r[LINK_BA]);
out_ab:
	dir_free(&r[LINK_AB]);
out_ports:
	if (stop_fd >= 0)
		close(stop_fd);
	link_port_close(&p[0]);
	link_port_close(&p[1]);
out_mask:
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
