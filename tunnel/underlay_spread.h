/* SPDX-License-Identifier: MIT */
/*
 * Spreading one peer's data over the receiving workers without reordering
 * an inner flow: each sending worker has an outer UDP source port of its
 * own, and the receiving end's SO_REUSEPORT group picks a worker's socket
 * by the datagram's source address and port (underlay_spread.c says why).
 */
#ifndef OVLPERF_TUNNEL_UNDERLAY_SPREAD_H
#define OVLPERF_TUNNEL_UNDERLAY_SPREAD_H

#include <stdbool.h>
#include <stdint.h>

/* The receiving worker the group's program picks for a datagram from a
 * source whose address ends in the 16 bits addr_low16 (host order), from
 * port sport: (addr_low16 + sport) mod nworkers. */
unsigned underlay_spread_pick(uint16_t addr_low16, uint16_t sport, unsigned nworkers);

/* Whether port suits sending worker k of nworkers whose worker 0 sends from
 * listen_port: port = listen_port + k (mod nworkers), so that a receiver
 * with as many workers picks a different one for each sending worker. */
bool underlay_spread_port_ok(uint16_t port, uint16_t listen_port, unsigned nworkers, unsigned k);

/* Attaches the picking program to the reuseport group of fd (a socket of
 * family AF_INET or AF_INET6 with SO_REUSEPORT). 0 or -errno. */
int underlay_spread_attach(int fd, int family, unsigned nworkers);

#endif
