/* SPDX-License-Identifier: MIT */
/* The receiving side of the data path (receive.c). */
#ifndef OVLPERF_TUNNEL_RECEIVE_H
#define OVLPERF_TUNNEL_RECEIVE_H

/* arg: a struct device_worker. */
void *device_rx_thread(void *arg);

#endif
