// SPDX-License-Identifier: MIT
/*
 * The places of loss attribution (struct loss_attrib) by name, and the fix
 * each one calls for, shared by the load and run printers.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "loss_place.h"

/* SO_RCVBUF reads back twice what was set: the kernel doubles the value
 * for its bookkeeping (socket(7)), so -w sets half of the need. */
#define RCVBUF_KERNEL_FACTOR 2u

static const struct {
	const char *key, *name;
	size_t off;
} places[LOSS_PLACE_COUNT] = {
	[LOSS_PLACE_SENDER_SOCKET] = { "sender_sndbuf", "the sender's socket buffer",
				       offsetof(struct loss_attrib, sender_sndbuf) },
	[LOSS_PLACE_SENDER_QDISC] = { "sender_qdisc", "the sender's qdisc (shaper or queue)",
				      offsetof(struct loss_attrib, sender_qdisc) },
	[LOSS_PLACE_SENDER_IF] = { "sender_link", "the sender's interface",
				   offsetof(struct loss_attrib, sender_link) },
	[LOSS_PLACE_TUNNEL] = { "tunnel", "the overlay's tunnel daemons",
				offsetof(struct loss_attrib, tunnel) },
	[LOSS_PLACE_NETWORK] = { "network", "the network between the hosts",
				 offsetof(struct loss_attrib, network) },
	[LOSS_PLACE_RECEIVER_IF] = { "receiver_link", "the receiver's interface",
				     offsetof(struct loss_attrib, receiver_link) },
	[LOSS_PLACE_RECEIVER_UDP] = { "receiver_inerrors", "the receiver's UDP input (errors)",
				      offsetof(struct loss_attrib, receiver_inerrors) },
	[LOSS_PLACE_RECEIVER_OTHER] = { "receiver_rcvbuf", "other sockets of the receiving host",
					offsetof(struct loss_attrib, receiver_rcvbuf) },
	[LOSS_PLACE_RECEIVER_SOCKET] = { "receiver_socket", "the test's own receive socket",
					 offsetof(struct loss_attrib, receiver_socket) },
	[LOSS_PLACE_BACKLOG] = { "backlog", "a CPU's backlog (softnet_stat dropped)",
				 offsetof(struct loss_attrib, backlog) },
};

const char *loss_place_key(enum loss_place p)
{
	return p < LOSS_PLACE_COUNT ? places[p].key : "?";
}

const char *loss_place_name(enum loss_place p)
{
	return p < LOSS_PLACE_COUNT ? places[p].name : "?";
}

bool loss_place_network_seen(const struct loss_attrib *l)
{
	return l->network_where[0] != '\0';
}

const char *loss_place_name_at(const struct loss_attrib *l, enum loss_place p)
{
	if (p == LOSS_PLACE_NETWORK && !loss_place_network_seen(l))
		return LOSS_PLACE_UNACCOUNTED;
	return loss_place_name(p);
}

uint64_t loss_place_count(const struct loss_attrib *l, enum loss_place p)
{
	return p < LOSS_PLACE_COUNT ? *(const uint64_t *)((const char *)l + places[p].off) : 0;
}

static void socket_fix(char *buf, size_t len, const struct loss_attrib *l)
{
	uint32_t w = l->rcvbuf_need_bytes / RCVBUF_KERNEL_FACTOR;

	if (!l->rcvbuf_need_bytes) {
		snprintf(buf, len,
			 "the receiver fell behind the rate throughout (more than a second of "
			 "it overflowed its %u-B buffer): no buffer absorbs that; give the "
			 "receiving process CPU or lower the rate",
			 l->rcvbuf_bytes);
		return;
	}
	/* round up to a KiB: an option value a person types */
	w = (uint32_t)(((uint64_t)w + 1023) / 1024);
	snprintf(buf, len,
		 "a receive buffer that holds the burst: -w %uK (SO_RCVBUF %u B now; an "
		 "application without -w needs net.core.rmem_max and rmem_default of %u)",
		 w, l->rcvbuf_bytes, w * 1024);
}

/* A transmit drop at the sender's interface. Over an overlay it is the
 * overlay's TUN: a TUN's queue fills when the process reading it (the
 * overlay's daemon, the VPN) takes packets slower than they come, so a
 * longer queue only delays the drop. Elsewhere the interface's queue, named
 * with its length only where the sender read them (a qdisc's counters). */
static void sender_if_fix(char *buf, size_t len, const struct loss_attrib *l, bool overlay,
			  const char *process, double process_cpu)
{
	if (overlay && process && process_cpu > 0 && process_cpu < LOSS_PLACE_READER_BUSY) {
		snprintf(buf, len,
			 "a core of its own for %s, or a longer queue in front of it (ip link set "
			 "dev TUN txqueuelen on the sending host): its busiest thread used %.0f %% "
			 "of a core, so it did not lack CPU as a whole, but it did not run soon "
			 "enough to take packets as fast as they came",
			 process, process_cpu * 100);
		return;
	}
	if (overlay) {
		snprintf(buf, len,
			 "the process reading the overlay's TUN on the sending host%s%s%s did not "
			 "take packets as fast as they came: more CPU for it (a core of its own, a "
			 "larger cgroup quota, more threads), not a longer queue",
			 process ? " (" : "", process ? process : "", process ? ")" : "");
		return;
	}
	if (l->qdisc_if[0] && l->sender_txqlen) {
		snprintf(buf, len,
			 "a longer transmit queue on the sender's %s: ip link set dev %s "
			 "txqueuelen %u (now %u)",
			 l->qdisc_if, l->qdisc_if, l->sender_txqlen * 2, l->sender_txqlen);
		return;
	}
	snprintf(buf, len,
		 "the sender's interface dropped them on transmit (which one was not recorded: "
		 "ip -s link on the sender names it): a NIC's ring (ethtool -G), a queue of "
		 "length 0 (a TUN: its reading process did not keep up)");
}

/* A CPU's backlog full: the packets a veth, a TUN's writer or RPS handed
 * to a CPU that had not yet processed the ones before. */
static void backlog_fix(char *buf, size_t len, const struct loss_attrib *l)
{
	if (l->backlog_max)
		snprintf(buf, len,
			 "a CPU's backlog was full (net.core.netdev_max_backlog %u): a longer one "
			 "(sysctl -w net.core.netdev_max_backlog=%u), or the receive work spread "
			 "over more CPUs (RPS: /sys/class/net/DEV/queues/rx-N/rps_cpus)",
			 l->backlog_max, l->backlog_max * 4);
	else
		snprintf(buf, len,
			 "a CPU's backlog was full: a longer one (net.core.netdev_max_backlog), or "
			 "the receive work spread over more CPUs (RPS)");
}

void loss_place_fix(char *buf, size_t len, const struct loss_attrib *l, enum loss_place p)
{
	loss_place_fix_on(buf, len, l, p, false, NULL, 0);
}

void loss_place_fix_on(char *buf, size_t len, const struct loss_attrib *l, enum loss_place p,
		       bool overlay, const char *process, double process_cpu)
{
	switch (p) {
	case LOSS_PLACE_SENDER_SOCKET:
		snprintf(buf, len,
			 "a larger send buffer: net.core.wmem_max / wmem_default "
			 "(SO_SNDBUF) on the sending host");
		break;
	case LOSS_PLACE_SENDER_QDISC:
		if (l->qdisc_kind[0] && l->qdisc_if[0])
			snprintf(buf, len,
				 "none in the host: the configured rate is the limit (qdisc %s "
				 "on %s); send at or below it, or raise the shaper's rate",
				 l->qdisc_kind, l->qdisc_if);
		else
			snprintf(buf, len,
				 "none in the host: the configured rate is the limit "
				 "(the sender's qdisc); send at or below it");
		break;
	case LOSS_PLACE_SENDER_IF:
		sender_if_fix(buf, len, l, overlay, process, process_cpu);
		break;
	case LOSS_PLACE_TUNNEL:
		snprintf(buf, len,
			 "the tunnel daemon dropped them: ovlperf tunnel show says why "
			 "(drop.decrypt/replay: the path corrupts or reorders; "
			 "no_slot/under_load: the daemon is overloaded)");
		break;
	case LOSS_PLACE_NETWORK:
		if (l->network_where[0])
			snprintf(buf, len,
				 "none in the hosts: %s, whose WAN conditions lose them as "
				 "set",
				 l->network_where);
		else
			snprintf(buf, len,
				 "find where first: no counter ovlperf reads on either host saw "
				 "them, and nothing says the path between them loses (no link "
				 "rate reached, no shaper's drops); not read: a NIC's own "
				 "counters (ethtool -S), the switches and middleboxes on the way");
		break;
	case LOSS_PLACE_RECEIVER_IF:
		snprintf(buf, len,
			 "the receiver's interface: its ring (ethtool -G) or "
			 "net.core.netdev_max_backlog");
		break;
	case LOSS_PLACE_RECEIVER_UDP:
		snprintf(buf, len,
			 "UDP input errors at the receiver (checksums, filters): "
			 "see /proc/net/snmp there");
		break;
	case LOSS_PLACE_RECEIVER_OTHER:
		if (l->other_port && l->other_pid)
			snprintf(buf, len,
				 "UDP port %u (IPv%u) of %s (pid %u) on the receiving host "
				 "overflowed (%llu drops): its receive buffer (the daemon's own "
				 "setting, or net.core.rmem_default / rmem_max) or more CPU for "
				 "it; -w cannot help",
				 l->other_port, l->other_family,
				 l->other_owner[0] ? l->other_owner : "?", l->other_pid,
				 (unsigned long long)l->other_drops);
		else if (l->other_port)
			snprintf(
				buf, len,
				"UDP port %u (IPv%u) of the receiving host overflowed (%llu drops; "
				"its process is not visible here): that socket owner's receive "
				"buffer or CPU; -w cannot help",
				l->other_port, l->other_family, (unsigned long long)l->other_drops);
		else
			snprintf(buf, len,
				 "another socket of the receiving host overflowed (a tunnel or VPN "
				 "daemon's): that socket owner's buffer setting; -w cannot help");
		break;
	case LOSS_PLACE_RECEIVER_SOCKET:
		socket_fix(buf, len, l);
		break;
	case LOSS_PLACE_BACKLOG:
		backlog_fix(buf, len, l);
		break;
	default:
		snprintf(buf, len, "?");
	}
}
