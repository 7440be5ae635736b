/* SPDX-License-Identifier: MIT */
/*
 * The receive backlog's counters, /proc/net/softnet_stat: one line a CPU,
 * hex columns, the first three processed, dropped (a packet that found
 * the CPU's backlog at net.core.netdev_max_backlog: enqueue_to_backlog)
 * and time_squeeze (net_rx_action out of budget or time with work left).
 * The file is the machine's whatever namespace reads it.
 */
#ifndef OVLPERF_SOFTNET_H
#define OVLPERF_SOFTNET_H

#include <stddef.h>
#include <stdint.h>

struct softnet {
	unsigned ncpu;			       /* lines read */
	uint64_t processed, dropped, squeezed; /* summed over the CPUs */
};

/* Parses the text of softnet_stat; 0, or -EINVAL when no line has three
 * hex columns. */
int softnet_parse(const char *text, size_t len, struct softnet *out);
/* Reads proc_root/net/softnet_stat; 0 or -errno. */
int softnet_read(const char *proc_root, struct softnet *out);

#endif
