/* SPDX-License-Identifier: MIT */
/*
 * The userspace WAN link (src/link/, docs/link.md): a forwarder in a link
 * namespace between two hosts that bridges L2 frames between its two veth
 * ends `a` and `b`, holding each packet until its due time, with delay,
 * jitter, random loss, Gilbert-Elliott loss bursts, reordering and a rate,
 * per direction, counting every packet per wire packet.
 *
 * This header is the contract with its users: `ovlperf link` (src/cli/), the
 * lab (which spawns `ovlperf link run` in a link namespace, or maps the same
 * conditions onto netem where the kernel has it) and the scenario keys.
 */
#ifndef OVLPERF_LINK_H
#define OVLPERF_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Directions: 0 is a->b, 1 is b->a. */
enum { LINK_AB = 0, LINK_BA = 1, LINK_DIRS = 2 };

#define LINK_PPM	  1000000u		  /* 100 % in parts per million */
#define LINK_DELAY_MAX_NS (60ULL * 1000000000ULL) /* delay and jitter: 0..60s */
#define LINK_LIMIT_MIN	  4096ULL		  /* --limit bytes: 4k..4G */
#define LINK_LIMIT_MAX	  (4ULL << 30)
#define LINK_CONF_ERR_MAX 256 /* room for link_conf_set()'s sentence */
#define LINK_CONF_VAL_MAX 64  /* room for one key's value text */

/* One direction's conditions. A zeroed struct is a plain link. */
struct link_dir_conf {
	uint64_t delay_ns;    /* fixed one-way delay */
	uint64_t jitter_ns;   /* each packet's delay is uniform in delay +/- jitter */
	uint64_t rate_bps;    /* 0: no rate; else a serialization clock of frame bits */
	uint32_t loss_ppm;    /* random loss */
	uint32_t ge_p_ppm;    /* Gilbert-Elliott p: good -> bad (0: no bursts) */
	uint32_t ge_r_ppm;    /* Gilbert-Elliott r: bad -> good; 100 % loss in bad */
	uint32_t reorder_ppm; /* share of packets sent at once, ahead of the delayed */
};

struct link_conf {
	struct link_dir_conf dir[LINK_DIRS];
	uint64_t seed;	      /* the generators' seed (per direction streams) */
	uint64_t limit_bytes; /* 0: automatic (docs/link.md); else the queue's bound */
};

/* The keys link_conf_set() takes, NULL-terminated, in the order
 * link_conf_argv() gives them: delay, jitter, loss, loss-burst, reorder,
 * rate, limit, seed. */
extern const char *const link_conf_keys[];

/*
 * The one reader of link conditions, for `ovlperf link run`'s options, `lab
 * up` and the [lab] scenario keys. value is "X" (both directions) or "X/Y"
 * (X for a->b, Y for b->a); limit and seed take one value only.
 *   delay, jitter  value.h durations ("40ms", "500us"), 0..60s
 *   loss, reorder  value.h percents ("1%", "0.5"), steps of 0.0001 %
 *   loss-burst     "P,R": Gilbert-Elliott p and r in percent; P 0 is off,
 *                  else R must be above 0
 *   rate           rate.h rates ("100M", "1G"); 0 is no rate
 *   limit          value.h sizes ("4M"), 4k..4G
 *   seed           a whole number
 * false on an unknown key or a bad value: err gets one sentence naming the
 * value and why (not the key: the caller puts its option or file:line:key
 * in front, as with value_get()), and *c is unchanged.
 */
bool link_conf_set(struct link_conf *c, const char *key, const char *value, char *err,
		   size_t errlen);
/* Anything to emulate: a delay, jitter, loss, burst, reorder or rate. */
bool link_conf_active(const struct link_conf *c);
/* key's value in a spelling link_conf_set() reads back ("20ms/30ms", "1%",
 * "1%,20%", "100M"), "X/Y" only where the directions differ. 0, -ENOENT
 * (unknown key) or -ENOSPC. */
int link_conf_get(const struct link_conf *c, const char *key, char *buf, size_t len);
/* Whether key differs from a plain link's (zeroed) value. */
bool link_conf_is_set(const struct link_conf *c, const char *key);
/* `ovlperf link run`'s options for c's set keys: pairs "--delay", "20ms"
 * into argv[0..] (strings kept in buf), no NULL added. Returns the number of
 * entries or -ENOSPC (argv or buf too small). */
int link_conf_argv(const struct link_conf *c, char **argv, size_t max, char *buf, size_t buflen);

/* One direction's counters. Every received frame ends in exactly one of
 * tx, a drop or the queue: rx_packets = tx_packets + drop_* + queue_packets
 * in every snapshot. Counts are per wire packet: a GSO super-packet is
 * counted as the segments it stands for. */
struct link_dir_counters {
	uint64_t rx_packets, rx_bytes; /* frames taken from the in end (bytes: L2 frame) */
	uint64_t tx_packets, tx_bytes; /* frames given to the out end */
	uint64_t delayed;	       /* held in the queue before being sent */
	uint64_t reordered;	       /* chosen by reorder: sent at once, ahead */
	uint64_t drop_loss;	       /* random loss */
	uint64_t drop_burst;	       /* Gilbert-Elliott bad state */
	uint64_t drop_queue;	       /* the queue was full (limit, or its slots) */
	uint64_t drop_rate;	       /* the rate's backlog was over the limit */
	uint64_t drop_other;	       /* malformed, truncated, or the send failed */
	uint64_t queue_packets;	       /* in the queue now */
	uint64_t queue_bytes;
	uint64_t queue_max_bytes; /* the most ever held */
	uint64_t queue_max_packets;
	uint64_t gso_split;   /* super-packets received and cut into wire packets */
	uint64_t limit_bytes; /* the queue's bound in force */
	/* Frames the kernel dropped before the link read them (its socket
	 * buffer full): not in rx_packets, so outside the sum above. */
	uint64_t rx_kernel_drops;
	/* How late frames went out: the time from a frame's due time to the
	 * return of the send that carried it, summed over tx_packets and the
	 * most. Not in the counts above. */
	uint64_t late_sum_ns, late_max_ns;
	/* Windows of 100 ms in which the thread used its polling budget (70 ms
	 * of CPU) and slept until each due time for the rest of the window:
	 * a real-time thread that never sleeps is throttled by the kernel. */
	uint64_t spin_stops;
};

struct link_counters {
	uint32_t version;    /* LINK_COUNTERS_VERSION */
	uint32_t pid;	     /* the forwarder */
	uint64_t started_ns; /* CLOCK_MONOTONIC when forwarding began */
	uint64_t updated_ns; /* CLOCK_MONOTONIC of the latest snapshot */
	bool running;	     /* false once the forwarder has exited cleanly */
	struct link_dir_counters dir[LINK_DIRS];
};

#define LINK_COUNTERS_VERSION 2

/* Names of struct link_dir_counters' fields, in order, for printers. */
struct link_counter_field {
	const char *name; /* "rx_packets", ... */
	size_t offset;	  /* offsetof(struct link_dir_counters, field) */
};
extern const struct link_counter_field link_counter_fields[];
extern const size_t link_counter_nfields;

/* A consistent snapshot of the forwarder's counter file. 0, -errno of
 * open/mmap, -EPROTO (not a counter file or another version) or -EAGAIN
 * (the writer kept changing it). */
int link_counters_read(const char *path, struct link_counters *out);
/* `ovlperf link show`'s printers: a table per direction, or one JSON
 * object. 0 or -errno. */
int link_counters_print(FILE *f, const struct link_counters *c);
int link_counters_print_json(FILE *f, const struct link_counters *c);

/* `ovlperf link run`: forwards between the interfaces a and b until
 * SIGTERM or SIGINT. The counter file appears at counters (created under a
 * temporary name and renamed) once both ends are open: its existence is the
 * readiness signal. 0 on a clean stop, -ENODEV (an interface does not
 * exist) or another -errno, logged. */
struct link_run_opts {
	const char *a, *b;
	const char *counters;
	struct link_conf conf;
	/* The forwarding threads run SCHED_FIFO (priority LINK_RT_PRIO) unless
	 * this is set: a wire's delay does not grow with the machine's load. */
	bool best_effort;
};

#define LINK_RT_PRIO 10

int link_run(const struct link_run_opts *o);

#endif
