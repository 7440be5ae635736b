// SPDX-License-Identifier: MIT
/*
 * The lab state file, /run/ovlperf/labs/<name>: what a lab is and which
 * namespaces ovlperf made for it. `lab down` removes only what is listed, and
 * only when the namespace still has the inode it had when we made it.
 *
 *   ovlperf-lab 1
 *   name lab
 *   pid 1234
 *   owner run
 *   hosts 2
 *   cpus 0 0
 *   cpus 1 1-3
 *   link 0 1 mtu 1500 rate 0 drop 0.00 block-icmp 0
 *   link 1 2 mtu 1500 rate 1000000000 drop 0.00 block-icmp 0 rate-layer line
 *   link 0 1 mtu 1500 rate 0 drop 0.00 block-icmp 0 means netem delay 40ms/10ms loss 1%
 *   netns ovp-lab-0 4026532345
 *   linkns 0 ovp-lab-l0 4026532411
 *
 * "cpus" lines (host, CPU list) only when the lab gives its hosts CPUs.
 * A link's WAN conditions follow its means, as link_conf_get() spells them
 * and link_conf_set() reads them back; "linkns" lines are the namespaces of
 * userspace emulators (link, name, inode), made after the hosts'.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_int.h"
#include "lab_overlay.h"
#include "log.h"

#define MAGIC	  "ovlperf-lab 1"
#define STATE_MAX 4096

static int state_path(const char *name, char *buf, size_t len, const char *suffix)
{
	int n;

	if (!lab_name_valid(name))
		return -EINVAL;
	n = snprintf(buf, len, "%s/%s%s", LAB_STATE_DIR, name, suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int mkdirs(void)
{
	if (mkdir("/run/ovlperf", 0755) < 0 && errno != EEXIST)
		return -errno;
	if (mkdir(LAB_STATE_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int lab_state_format(const struct lab_state *st, char *buf, size_t len)
{
	const struct lab_spec *s = &st->spec;
	size_t n = 0;

	if (!len)
		return -ENOSPC;
	LAB_APPEND("%s\nname %s\npid %d\nowner %s\nhosts %u\n", MAGIC, s->name, (int)st->pid,
		   st->owner == LAB_OWNER_RUN ? "run" : "user", s->nhosts);
	if (s->tcp_rmem_max || s->tcp_wmem_max)
		LAB_APPEND("tcp-mem-max %u %u\n", s->tcp_rmem_max, s->tcp_wmem_max);
	for (unsigned h = 0; h < s->cpus_hosts && h < LAB_MAX_HOSTS; h++)
		LAB_APPEND("cpus %u %s\n", h, s->cpus[h]);
	for (unsigned i = 0; i < s->nlinks && i < LAB_MAX_LINKS; i++) {
		const struct lab_link_spec *l = &s->links[i];

		LAB_APPEND("link %u %u mtu %u rate %" PRIu64 " drop %.2f block-icmp %d", l->a, l->b,
			   l->mtu, l->rate_bps, l->drop_pct, l->block_icmp_too_big ? 1 : 0);
		if (l->rate_layer == LAYER_FRAME || l->rate_layer == LAYER_LINE)
			LAB_APPEND(" rate-layer %s", layer_name(l->rate_layer));
		if (l->means != LAB_MEANS_AUTO || link_conf_active(&l->cond))
			LAB_APPEND(" means %s", lab_means_name(l->means));
		for (size_t k = 0; link_conf_keys[k]; k++) {
			char v[LINK_CONF_VAL_MAX];

			if (!link_conf_is_set(&l->cond, link_conf_keys[k]))
				continue;
			if (link_conf_get(&l->cond, link_conf_keys[k], v, sizeof(v)))
				return -ENOSPC;
			LAB_APPEND(" %s %s", link_conf_keys[k], v);
		}
		LAB_APPEND("\n");
	}
	for (unsigned i = 0; i < st->nns && i < LAB_MAX_HOSTS; i++)
		LAB_APPEND("netns %s %" PRIu64 "\n", st->ns[i].name, st->ns[i].ino);
	for (unsigned i = 0; i < st->nlns && i < LAB_MAX_LINKS; i++)
		LAB_APPEND("linkns %u %s %" PRIu64 "\n", st->lns[i].link, st->lns[i].name,
			   st->lns[i].ino);
	return (int)n;
}

/* " means NAME" and " KEY VALUE" pairs after a link line's fixed part. */
static int parse_cond(const char *p, struct lab_link_spec *l)
{
	char key[16], val[LINK_CONF_VAL_MAX];
	int end = -1;

	if (sscanf(p, " means %15s%n", key, &end) == 1) {
		if (!lab_means_parse(key, &l->means))
			return -EBADMSG;
		p += end;
	}
	while (*p) {
		end = -1;
		if (sscanf(p, " %15s %63s%n", key, val, &end) != 2 ||
		    !link_conf_set(&l->cond, key, val, NULL, 0))
			return -EBADMSG;
		p += end;
	}
	return 0;
}

static int parse_line(const char *line, struct lab_state *st)
{
	struct lab_spec *s = &st->spec;
	char word[LAB_NETNS_NAME_MAX];
	unsigned a, b, mtu, host;
	uint64_t rate, ino;
	double drop;
	int pid, block, end = -1;

	if (sscanf(line, "name %12s%n", s->name, &end) == 1 && line[end] == '\0')
		return 0;
	if (sscanf(line, "pid %d%n", &pid, &end) == 1 && line[end] == '\0') {
		st->pid = pid;
		return 0;
	}
	if (!strcmp(line, "owner user") || !strcmp(line, "owner run")) {
		st->owner = line[6] == 'r' ? LAB_OWNER_RUN : LAB_OWNER_USER;
		return 0;
	}
	if (sscanf(line, "hosts %u%n", &host, &end) == 1 && line[end] == '\0') {
		s->nhosts = host;
		return 0;
	}
	/* "cpus H LIST", in host order (the lists are checked with the whole
	 * spec, lab_spec_check()) */
	if (sscanf(line, "cpus %u %n", &host, &end) == 1 && end > 0 && host == s->cpus_hosts &&
	    host < LAB_MAX_HOSTS && strlen(line + end) < LAB_CPUS_MAX) {
		snprintf(s->cpus[host], LAB_CPUS_MAX, "%s", line + end);
		s->cpus_hosts++;
		return 0;
	}
	if (sscanf(line, "tcp-mem-max %u %u%n", &a, &b, &end) == 2 && line[end] == '\0') {
		s->tcp_rmem_max = a;
		s->tcp_wmem_max = b;
		return 0;
	}
	if (sscanf(line, "link %u %u mtu %u rate %" SCNu64 " drop %lf block-icmp %d%n", &a, &b,
		   &mtu, &rate, &drop, &block, &end) == 6 &&
	    s->nlinks < LAB_MAX_LINKS) {
		enum layer rl = LAYER_PAYLOAD;
		int end2 = -1;

		/* " rate-layer NAME": only on a link that counts like Ethernet */
		if (line[end] == ' ' && sscanf(line + end, " rate-layer %7s%n", word, &end2) == 1 &&
		    line[end + end2] == '\0' && layer_parse(word, &rl) &&
		    (rl == LAYER_FRAME || rl == LAYER_LINE))
			end += end2;
		s->links[s->nlinks] = (struct lab_link_spec){ .a = a,
							      .b = b,
							      .mtu = mtu,
							      .rate_bps = rate,
							      .drop_pct = drop,
							      .block_icmp_too_big = block != 0,
							      .rate_layer = rl };
		if (parse_cond(line + end, &s->links[s->nlinks]))
			return -EBADMSG;
		s->nlinks++;
		return 0;
	}
	if (sscanf(line, "linkns %u %31s %" SCNu64 "%n", &a, word, &ino, &end) == 3 &&
	    line[end] == '\0' && st->nlns < LAB_MAX_LINKS) {
		st->lns[st->nlns].link = a;
		snprintf(st->lns[st->nlns].name, sizeof(st->lns[0].name), "%s", word);
		st->lns[st->nlns++].ino = ino;
		return 0;
	}
	if (sscanf(line, "netns %31s %" SCNu64 "%n", word, &ino, &end) == 2 && line[end] == '\0' &&
	    st->nns < LAB_MAX_HOSTS) {
		snprintf(st->ns[st->nns].name, sizeof(st->ns[0].name), "%s", word);
		st->ns[st->nns++].ino = ino;
		return 0;
	}
	return -EBADMSG;
}

int lab_state_parse(const char *text, struct lab_state *st)
{
	char line[256];
	const char *p = text, *nl;
	size_t ln;
	bool first = true;

	memset(st, 0, sizeof(*st));
	for (; *p; p = nl ? nl + 1 : p + ln) {
		nl = strchr(p, '\n');
		ln = nl ? (size_t)(nl - p) : strlen(p);
		if (ln >= sizeof(line))
			return -EBADMSG;
		memcpy(line, p, ln);
		line[ln] = '\0';
		if (first) {
			if (strcmp(line, MAGIC))
				return -EBADMSG;
			first = false;
			continue;
		}
		if (ln && parse_line(line, st))
			return -EBADMSG;
		if (!nl)
			break;
	}
	/* Written by lab_up() from a checked spec: anything else is not ours. */
	if (first || lab_spec_check(&st->spec, NULL, 0) || st->nns > st->spec.nhosts)
		return -EBADMSG;
	/* Only our own names, in the order lab_up() makes them: entry i is host
	 * i's "ovp-<lab>-<i>", never another namespace. */
	for (unsigned i = 0; i < st->nns; i++) {
		char want[LAB_NETNS_NAME_MAX];

		if (lab_plan_netns_name(st->spec.name, i, want, sizeof(want)) ||
		    strcmp(want, st->ns[i].name))
			return -EBADMSG;
	}
	/* and a link namespace is "ovp-<lab>-l<l>" of a link the lab has */
	for (unsigned i = 0; i < st->nlns; i++) {
		char want[LAB_NETNS_NAME_MAX];

		if (st->lns[i].link >= st->spec.nlinks ||
		    lab_plan_link_netns_name(st->spec.name, st->lns[i].link, want, sizeof(want)) ||
		    strcmp(want, st->lns[i].name))
			return -EBADMSG;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t k = write(fd, buf, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

static int write_file(const char *path, int flags, const struct lab_state *st)
{
	char buf[STATE_MAX];
	int fd, rc, n;

	n = lab_state_format(st, buf, sizeof(buf));
	if (n < 0)
		return n;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, buf, (size_t)n);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int lab_state_create(const struct lab_state *st)
{
	char path[256];
	int rc;

	rc = state_path(st->spec.name, path, sizeof(path), "");
	if (!rc)
		rc = mkdirs();
	if (rc)
		return rc;
	rc = write_file(path, O_EXCL, st);
	if (rc && rc != -EEXIST)
		unlink(path);
	return rc;
}

int lab_state_save(const struct lab_state *st)
{
	char path[256], tmp[256];
	int rc;

	rc = state_path(st->spec.name, path, sizeof(path), "");
	if (!rc)
		rc = state_path(st->spec.name, tmp, sizeof(tmp), ".tmp");
	if (rc)
		return rc;
	rc = write_file(tmp, O_TRUNC, st);
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

int lab_state_load(const char *name, struct lab_state *st)
{
	char path[256], buf[STATE_MAX];
	ssize_t n;
	int fd, rc;

	rc = state_path(name, path, sizeof(path), "");
	if (rc)
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	buf[n] = '\0';
	rc = lab_state_parse(buf, st);
	if (!rc && strcmp(st->spec.name, name))
		rc = -EBADMSG;
	if (rc)
		log_err("%s is not a valid ovlperf lab state file", path);
	return rc;
}

int lab_state_remove(const char *name)
{
	char path[256], log[256];
	int rc;

	rc = state_path(name, path, sizeof(path), "");
	if (rc)
		return rc;
	/* The logs of detached overlay daemons, which stopped with the lab. */
	for (int h = 0; h < LAB_MAX_HOSTS; h++)
		if (lab_overlay_log_path(name, h, log, sizeof(log)) == 0 && unlink(log) < 0 &&
		    errno != ENOENT)
			log_warn("cannot remove %s: %s", log, strerror(errno));
	for (unsigned l = 0; l < LAB_MAX_LINKS; l++)
		lab_link_remove_files(name, l);
	return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

void lab_link_remove_files(const char *lab_name, unsigned link)
{
	char path[256];

	if (lab_link_log_path(lab_name, link, path, sizeof(path)) == 0 && unlink(path) < 0 &&
	    errno != ENOENT)
		log_warn("cannot remove %s: %s", path, strerror(errno));
	if (lab_link_counters_path(lab_name, link, path, sizeof(path)) == 0 && unlink(path) < 0 &&
	    errno != ENOENT)
		log_warn("cannot remove %s: %s", path, strerror(errno));
}

int lab_overlay_log_path(const char *lab_name, int host, char *buf, size_t len)
{
	char suffix[32];

	if (host < 0)
		snprintf(suffix, sizeof(suffix), ".overlay-H.log");
	else
		snprintf(suffix, sizeof(suffix), ".overlay-%d.log", host);
	return state_path(lab_name, buf, len, suffix);
}

int lab_link_log_path(const char *lab_name, unsigned link, char *buf, size_t len)
{
	char suffix[32];

	snprintf(suffix, sizeof(suffix), ".link-%u.log", link);
	return state_path(lab_name, buf, len, suffix);
}

int lab_link_counters_path(const char *lab_name, unsigned link, char *buf, size_t len)
{
	char suffix[32];

	snprintf(suffix, sizeof(suffix), ".link-%u.counters", link);
	return state_path(lab_name, buf, len, suffix);
}

int lab_list(int (*fn)(const char *name, void *arg), void *arg)
{
	DIR *d = opendir(LAB_STATE_DIR);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!rc && (de = readdir(d)))
		if (lab_name_valid(de->d_name))
			rc = fn(de->d_name, arg);
	closedir(d);
	return rc;
}

int lab_creator(const char *name, enum lab_owner *owner, pid_t *pid)
{
	struct lab_state st;
	int rc = lab_state_load(name, &st);

	if (!rc) {
		*owner = st.owner;
		*pid = st.pid;
	}
	return rc;
}

const char *lab_owner_name(enum lab_owner owner)
{
	return owner == LAB_OWNER_RUN ? "run" : "lab up";
}
