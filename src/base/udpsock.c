// SPDX-License-Identifier: MIT
/*
 * UDP sockets and their drops (udpsock.h). /proc/net/udp's lines are
 *   sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt
 *   uid timeout inode ref pointer drops
 * with addresses as hex ADDR:PORT (udp6: 32 hex digits of address).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfind.h"
#include "udpsock.h"

/* The kernel prints an address as 32-bit words of the in-memory (network
 * order) bytes, each "%08X" of the host's u32: read each word back into
 * the host's u32 and its bytes are the address again. */
static bool parse_addr(const char *hex, uint8_t family, uint8_t out[16])
{
	size_t words = family == 6 ? 4 : 1;

	if (strlen(hex) != words * 8)
		return false;
	for (size_t i = 0; i < words; i++) {
		char w[9];
		uint32_t v;

		memcpy(w, hex + i * 8, 8);
		w[8] = '\0';
		v = (uint32_t)strtoul(w, NULL, 16);
		memcpy(out + i * 4, &v, 4);
	}
	return true;
}

static bool parse_line(const char *line, uint8_t family, struct udpsock_entry *e)
{
	unsigned port, rport, drops;
	unsigned long long inode;
	char rem[33];

	/* sl: local:port rem:port st txq:rxq tr:when retr uid timeout inode ref ptr drops */
	if (sscanf(line,
		   " %*u: %*[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %*x %*x:%*x %*x:%*x %*x %*u %*u %llu "
		   "%*u %*x %u",
		   &port, rem, &rport, &inode, &drops) != 5 ||
	    port > 65535 || rport > 65535)
		return false;
	*e = (struct udpsock_entry){ .inode = inode,
				     .drops = drops,
				     .port = (uint16_t)port,
				     .family = family,
				     .rport = (uint16_t)rport };
	if (!parse_addr(rem, family, e->raddr))
		e->rport = 0;
	return true;
}

bool udpsock_connected_to(const struct udpsock_entry *e, uint8_t family, const uint8_t *addr)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!e->rport)
		return false;
	if (e->family == family)
		return !memcmp(e->raddr, addr, family == 6 ? 16 : 4);
	return family == 4 && e->family == 6 && !memcmp(e->raddr, mapped, 12) &&
	       !memcmp(e->raddr + 12, addr, 4);
}

int udpsock_parse(const char *text, uint8_t family, struct udpsock_table *t)
{
	const char *p = text, *nl;
	char line[512];

	if (strncmp(text + strspn(text, " "), "sl", 2))
		return -EINVAL;
	for (p = strchr(p, '\n'); p && *++p; p = nl) {
		size_t n;
		struct udpsock_entry e;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n >= sizeof(line))
			continue;
		memcpy(line, p, n);
		line[n] = '\0';
		if (!parse_line(line, family, &e))
			continue;
		if (t->n == UDPSOCK_MAX) {
			t->truncated = true;
			break;
		}
		t->e[t->n++] = e;
		if (!nl)
			break;
	}
	return 0;
}

static int read_file(const char *path, uint8_t family, struct udpsock_table *t)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int rc;

	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 16384);

			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap = cap ? cap * 2 : 16384;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	rc = udpsock_parse(buf, family, t);
	free(buf);
	return rc;
}

int udpsock_read(struct udpsock_table *t)
{
	int rc;

	t->n = 0;
	t->truncated = false;
	rc = read_file("/proc/net/udp", 4, t);
	if (rc)
		return rc;
	/* no IPv6 in this kernel or namespace: the IPv4 table alone */
	rc = read_file("/proc/net/udp6", 6, t);
	return rc == -ENOENT ? 0 : rc;
}

static bool skipped(uint64_t inode, const uint64_t *skip, unsigned nskip)
{
	for (unsigned i = 0; i < nskip; i++)
		if (skip[i] == inode)
			return true;
	return false;
}

/* How much socket a's drops rose since before (0 when it is new: from 0). */
static uint64_t rise_of(const struct udpsock_table *before, const struct udpsock_entry *a)
{
	uint32_t was = 0;

	for (unsigned j = 0; j < before->n; j++)
		if (before->e[j].inode == a->inode) {
			was = before->e[j].drops;
			break;
		}
	/* the counter is an atomic_t: it wraps, never goes back */
	return (uint32_t)(a->drops - was);
}

uint64_t udpsock_rises(const struct udpsock_table *before, const struct udpsock_table *after,
		       const uint64_t *skip, unsigned nskip)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < after->n; i++)
		if (!skipped(after->e[i].inode, skip, nskip))
			sum += rise_of(before, &after->e[i]);
	return sum;
}

bool udpsock_top_riser(const struct udpsock_table *before, const struct udpsock_table *after,
		       const uint64_t *skip, unsigned nskip, struct udpsock_owner *o)
{
	uint64_t best = 0;

	memset(o, 0, sizeof(*o));
	for (unsigned i = 0; i < after->n; i++) {
		const struct udpsock_entry *a = &after->e[i];
		uint64_t rise;

		if (skipped(a->inode, skip, nskip))
			continue;
		rise = rise_of(before, a);
		if (rise > best) {
			best = rise;
			*o = (struct udpsock_owner){ .inode = a->inode,
						     .drops = rise,
						     .port = a->port,
						     .family = a->family };
		}
	}
	return best > 0;
}

static bool links_to(const char *fd, const char *target, void *want)
{
	(void)fd;
	return !strcmp(target, want);
}

static void read_comm(const char *proc_root, int pid, char comm[static UDPSOCK_COMM_LEN])
{
	char path[300];
	FILE *f;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/comm", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, UDPSOCK_COMM_LEN, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

bool udpsock_owner_process(const char *proc_root, struct udpsock_owner *o)
{
	DIR *d = opendir(proc_root);
	struct dirent *de;
	char want[48];

	o->pid = 0;
	o->comm[0] = '\0';
	if (!d)
		return false;
	snprintf(want, sizeof(want), "socket:[%" PRIu64 "]", o->inode);
	while ((de = readdir(d))) {
		int pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (pid > 0 && procfind_each_fd(proc_root, pid, links_to, want)) {
			o->pid = pid;
			read_comm(proc_root, pid, o->comm);
			break;
		}
	}
	closedir(d);
	return o->pid > 0;
}
