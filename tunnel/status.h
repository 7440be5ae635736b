/* SPDX-License-Identifier: MIT */
/*
 * The daemon's state as "key=value" lines (the control socket's "show"
 * reply). One data model; `ovlperf tunnel show` renders it for people and
 * --raw passes it through for scripts. Lines after "peer=" belong to that
 * peer until the next "peer=". Secret keys print as (hidden) unless asked.
 */
#ifndef OVLPERF_TUNNEL_STATUS_H
#define OVLPERF_TUNNEL_STATUS_H

#include <stdbool.h>
#include <stddef.h>

struct device;

/* Writes the status into buf (NUL-terminated, truncated to cap); returns its length. */
size_t status_format(struct device *dev, bool show_keys, char *buf, size_t cap);

#endif
