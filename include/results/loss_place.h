/* SPDX-License-Identifier: MIT */
/*
 * The places where datagrams are lost (struct loss_attrib, netcounters.h)
 * by name, and the fix each one calls for: shared by the load and run
 * printers and by the verdicts on what limited a knee (run_limit.h).
 */
#ifndef OVLPERF_LOSS_PLACE_H
#define OVLPERF_LOSS_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netcounters.h"

/* The places where datagrams are lost, in path order (struct loss_attrib). */
enum loss_place {
	LOSS_PLACE_SENDER_SOCKET,
	LOSS_PLACE_SENDER_QDISC,
	LOSS_PLACE_SENDER_IF,
	LOSS_PLACE_TUNNEL,
	LOSS_PLACE_NETWORK,
	LOSS_PLACE_RECEIVER_IF,
	LOSS_PLACE_RECEIVER_UDP,
	LOSS_PLACE_RECEIVER_OTHER,
	LOSS_PLACE_RECEIVER_SOCKET,
	/* a CPU's backlog, before the interfaces' and sockets' counters (last:
	 * the places before it keep their numbers) */
	LOSS_PLACE_BACKLOG,
	LOSS_PLACE_COUNT
};
/* Its key in the JSON "loss_at" object ("sender_qdisc"). */
const char *loss_place_key(enum loss_place p);
/* Its plain name ("the sender's qdisc (shaper/queue)"). */
const char *loss_place_name(enum loss_place p);
/* Whether l's rest, lost past every counter the hosts keep, has evidence
 * of the network: the emulated link or the shaper the path crosses lost
 * them (network_where). Without it the rest is unaccounted, not the
 * network's: two veths cannot lose. */
bool loss_place_network_seen(const struct loss_attrib *l);
/* The name of place p in l: as loss_place_name, but the rest without
 * evidence of the network reads LOSS_PLACE_UNACCOUNTED. */
const char *loss_place_name_at(const struct loss_attrib *l, enum loss_place p);
#define LOSS_PLACE_UNACCOUNTED                                                                     \
	"unaccounted: not counted by any counter ovlperf reads on either host (socket buffers, "   \
	"UDP errors, qdiscs, interfaces' and TUNs' drops, softnet backlogs)"
uint64_t loss_place_count(const struct loss_attrib *l, enum loss_place p);
/* What would stop the loss at that place, one sentence into buf. */
void loss_place_fix(char *buf, size_t len, const struct loss_attrib *l, enum loss_place p);
/* The same on a path whose kind the caller knows: over an overlay
 * (overlay true) the sender's interface that drops is its TUN, whose
 * reader is process (NULL: not known), its busiest thread at process_cpu
 * of a core at most (0: not read). A reader that used less than
 * LOSS_PLACE_READER_BUSY of a core did not lack CPU as a whole: it ran
 * too late (a core shared with other work), so a core of its own or a
 * longer queue in front of it stops the drops, not more CPU. */
#define LOSS_PLACE_READER_BUSY 0.5
void loss_place_fix_on(char *buf, size_t len, const struct loss_attrib *l, enum loss_place p,
		       bool overlay, const char *process, double process_cpu);

#endif
