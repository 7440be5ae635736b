/* SPDX-License-Identifier: MIT */
/*
 * Opening the device's sockets on the underlay (device.h): per worker one UDP
 * socket per family in use, bound to the configured 'listen' address (the
 * other workers' on worker 0's port, one SO_REUSEPORT group per family), path
 * MTU discovery on (IP_PMTUDISC_DO), the configured buffer sizes, UDP GRO
 * when asked for. Sending is device_send_one() in device.c.
 */
#ifndef OVLPERF_TUNNEL_UNDERLAY_H
#define OVLPERF_TUNNEL_UNDERLAY_H

struct device;

/* Every worker's sockets; dev->sock are worker 0's. 0 or -errno (logged). */
int underlay_open(struct device *dev);
/* -EAFNOSUPPORT (logged, naming the file and line) when a peer's endpoint has
 * a family no socket was opened for. */
int underlay_check_endpoints(const struct device *dev);

#endif
