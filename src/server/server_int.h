/* SPDX-License-Identifier: MIT */
/*
 * What every file of the server shares: its configuration, the port's
 * registry, the overlay service, the stats and the counters the session
 * threads and the accept loop both touch.
 */
#ifndef OVLPERF_SERVER_INT_H
#define OVLPERF_SERVER_INT_H

#include <stdatomic.h>

#include "auth.h"
#include "hostfacts.h"
#include "data_registry.h"
#include "load_serve.h"
#include "overlay.h"
#include "server.h"
#include "server_stats.h"

struct server_shared {
	struct server_stats stats;
	const struct server_config *cfg;
	struct load_serve_limits limits; /* cfg's, for load_serve() */
	struct auth_key *key;		 /* NULL: no PSK */
	struct data_registry *reg;	 /* tests expecting data on the port */
	struct overlay_server *ovl;	 /* NULL: no --overlay */
	atomic_uint sessions;		 /* running session threads */
	atomic_uint next_test_id;
	atomic_uint tests_done;	    /* for one_shot */
	atomic_bool stop;	    /* one_shot reached: stop accepting */
	struct hostfacts_idle idle; /* the machine's busy CPU between tests */
};

#endif
