// SPDX-License-Identifier: MIT
/*
 * WAN conditions on lab links (delay, jitter, loss, loss bursts, reorder:
 * struct link_conf), by one of two means:
 *
 *   netem      a netem qdisc at the root of each end's ovp<l> (end a's
 *              shapes a -> b), with the link's tbf, if it has a rate, as
 *              netem's child: netem delays, drops and reorders at its
 *              enqueue, the tbf paces what netem lets go.
 *   userspace  host a's ovp<l> and host b's ovp<l> are veths to the ends
 *              `a` and `b` of a link namespace ovp-<lab>-l<l>, where
 *              `ovlperf link run` (src/link/) forwards frames between them
 *              under the conditions; the link's tbf stays on the hosts'
 *              ovp<l>, so a packet is paced as it leaves its host, then
 *              delayed and dropped on the way.
 *
 * AUTO takes netem when the kernel has it. Whether it has is asked the one
 * way that cannot be wrong: by making a netem qdisc (on host 0's loopback,
 * removed again at once). /proc/modules misses a netem built into the kernel
 * and modprobe -n misses one the kernel would load by itself, or a container
 * without /lib/modules; the kernel's own -ENOENT for a qdisc kind it has
 * neither built in nor can load is the answer for all of them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "interrupt.h"
#include "lab_int.h"
#include "log.h"
#include "netns.h"
#include "nl_route.h"

#define LINK_READY_TIMEOUT_MS 5000
#define LINK_ARGV_MAX	      48

static bool dir_active(const struct link_dir_conf *d)
{
	static const struct link_dir_conf zero;

	return memcmp(d, &zero, sizeof(zero)) != 0;
}

/* netem reorders only a packet it would delay (netem_enqueue()). */
static int netem_check(const struct lab_spec *spec, unsigned l)
{
	const struct link_conf *c = &spec->links[l].cond;

	for (unsigned d = 0; d < LINK_DIRS; d++) {
		if (c->dir[d].reorder_ppm && !c->dir[d].delay_ns) {
			log_err("link %u: netem reorders only packets it delays: reorder needs a "
				"delay (%s)",
				l, d ? "b->a" : "a->b");
			return -EINVAL;
		}
	}
	return 0;
}

int lab_link_probe(struct lab *lab, struct nl_sock *sk0)
{
	struct lab_spec *spec = &lab->st.spec;
	int have = 1; /* unknown until asked: 1 */
	int rc = 0;

	for (unsigned l = 0; l < spec->nlinks && !rc; l++) {
		struct lab_link_spec *k = &spec->links[l];

		k->means = LAB_MEANS_AUTO;
		if (!link_conf_active(&k->cond))
			continue;
		if (spec->means != LAB_MEANS_USERSPACE && have == 1) {
			have = nlr_netem_probe(sk0, "lo");
			if (have && have != -ENOENT)
				return have;
			log_info("the kernel %s netem", have ? "has no" : "has");
		}
		if (spec->means == LAB_MEANS_NETEM && have) {
			log_err("link %u: this kernel has no netem (sch_netem); use --link-means "
				"userspace (or auto)",
				l);
			return -EOPNOTSUPP;
		}
		k->means = spec->means == LAB_MEANS_USERSPACE || have ? LAB_MEANS_USERSPACE
								      : LAB_MEANS_NETEM;
		if (k->means == LAB_MEANS_NETEM)
			rc = netem_check(spec, l);
	}
	return rc ? rc : lab_state_save(&lab->st);
}

/* The link namespace, recorded before it exists (as make_host() does). */
static int make_link_ns(struct lab *lab, unsigned l)
{
	struct lab_state *st = &lab->st;
	char name[LAB_NETNS_NAME_MAX];
	unsigned i;
	int rc;

	rc = lab_plan_link_netns_name(st->spec.name, l, name, sizeof(name));
	if (!rc)
		rc = netns_claim(name);
	if (rc == -EEXIST)
		log_err("namespace %s already exists and is not part of lab %s; not touching it",
			name, st->spec.name);
	if (rc)
		return rc;
	i = st->nlns++;
	st->lns[i].link = l;
	snprintf(st->lns[i].name, sizeof(st->lns[i].name), "%s", name);
	st->lns[i].ino = 0;
	rc = lab_state_save(st);
	if (!rc)
		rc = netns_mount(name, &st->lns[i].ino);
	if (!rc)
		rc = lab_state_save(st);
	if (!rc) {
		lab->lnsfd[l] = netns_open(name);
		rc = lab->lnsfd[l] < 0 ? lab->lnsfd[l] : 0;
	}
	if (rc)
		log_err("creating namespace %s: %s", name, strerror(-rc));
	return rc;
}

/* In the link namespace: no IPv6 of its own on a and b (no link-local
 * address, no router or neighbour messages of its own), both ends up. */
static int link_ns_setup(struct lab *lab, unsigned l, bool before)
{
	struct nl_sock *sk = NULL;
	int rc, back;

	rc = netns_enter_fd(lab->lnsfd[l]);
	if (rc)
		return rc;
	if (before) {
		rc = netns_sysctl("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
		if (!rc)
			rc = netns_sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	} else {
		rc = nlr_open(&sk);
		if (!rc)
			rc = nlr_link_up(sk, "a");
		if (!rc)
			rc = nlr_link_up(sk, "b");
		nlr_close(sk);
	}
	back = netns_enter_fd(lab->orig_fd);
	if (back)
		log_err("cannot return to the original namespace: %s", strerror(-back));
	return back ? back : rc;
}

int lab_link_veths(struct lab *lab, struct nl_sock **sk, unsigned l, uint32_t mtu)
{
	const struct lab_link_spec *k = &lab->st.spec.links[l];
	const char *ifn = lab->ifname[l];
	int ia = LAB_IFINDEX_BASE + 2 * (int)l, ib = ia + 1;
	int rc;

	if (k->means != LAB_MEANS_USERSPACE)
		return nlr_veth_add(sk[k->a], ifn, ia, ifn, lab->nsfd[k->b], ib, mtu);
	rc = make_link_ns(lab, l);
	if (!rc)
		rc = link_ns_setup(lab, l, true);
	if (!rc)
		rc = nlr_veth_add(sk[k->a], ifn, ia, "a", lab->lnsfd[l], 0, mtu);
	if (!rc)
		rc = nlr_veth_add(sk[k->b], ifn, ib, "b", lab->lnsfd[l], 0, mtu);
	if (!rc)
		rc = link_ns_setup(lab, l, false);
	return rc;
}

int lab_link_netem(struct lab *lab, struct nl_sock *sk, unsigned l, unsigned end, bool *done)
{
	const struct lab_link_spec *k = &lab->st.spec.links[l];
	const struct link_dir_conf *d = &k->cond.dir[end];

	*done = k->means == LAB_MEANS_NETEM && dir_active(d);
	if (!*done)
		return 0;
	return nlr_netem_add(sk, lab->ifname[l], d, lab_plan_netem_limit(d, k->rate_bps, k->mtu));
}

static int open_log(const char *lab_name, unsigned l, char *path, size_t len)
{
	int fd, rc = lab_link_log_path(lab_name, l, path, len);

	if (rc)
		return rc;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0640);
	if (fd < 0) {
		rc = -errno;
		log_err("link %u: cannot open %s: %s", l, path, strerror(errno));
		return rc;
	}
	return fd;
}

/* `[--logfile LOG] link run --a a --b b CONDITIONS --counters FILE`. */
static int link_argv(const struct lab *lab, unsigned l, bool detach, char *log, char *counters,
		     char **argv, char *buf, size_t buflen)
{
	size_t n = 0;
	int k;

	argv[n++] = "/proc/self/exe";
	if (detach) {
		argv[n++] = "--logfile";
		argv[n++] = log;
	}
	argv[n++] = "link";
	argv[n++] = "run";
	argv[n++] = "--a";
	argv[n++] = "a";
	argv[n++] = "--b";
	argv[n++] = "b";
	k = link_conf_argv(&lab->st.spec.links[l].cond, argv + n, LINK_ARGV_MAX - n - 3, buf,
			   buflen);
	if (k < 0)
		return k;
	n += (size_t)k;
	argv[n++] = "--counters";
	argv[n++] = counters;
	argv[n] = NULL;
	return 0;
}

/* The forwarder is ready once its counter file reads. */
static int wait_ready(pid_t pid, unsigned l, const char *counters)
{
	uint64_t deadline = clock_now_ns() + LINK_READY_TIMEOUT_MS * NSEC_PER_MSEC;
	struct link_counters c;

	for (;;) {
		if (link_counters_read(counters, &c) == 0)
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			log_err("link %u: the emulator exited during start-up", l);
			return -ECHILD;
		}
		if (interrupt_requested())
			return -EINTR;
		if (clock_now_ns() > deadline) {
			log_err("link %u: the emulator wrote no counters in %u ms", l,
				LINK_READY_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		usleep(10 * 1000);
	}
}

/* What a detached emulator said before it failed: its log is removed with
 * the lab that failed, so its last lines go to our stderr first. */
static void show_log(const char *path)
{
	char buf[2048];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (lseek(fd, 0, SEEK_END) > (off_t)sizeof(buf) - 1)
		lseek(fd, -(off_t)(sizeof(buf) - 1), SEEK_END);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		log_err("the emulator's log %s ends:\n%s", path, buf);
	}
}

static int start_one(struct lab *lab, unsigned l, bool detach)
{
	char log[256], counters[256], buf[512];
	char *argv[LINK_ARGV_MAX];
	const char *name = lab->st.spec.name;
	int fd = -1, rc;
	pid_t pid;

	rc = lab_link_counters_path(name, l, counters, sizeof(counters));
	if (rc)
		return rc;
	if (unlink(counters) < 0 && errno != ENOENT)
		return -errno;
	if (detach) {
		fd = open_log(name, l, log, sizeof(log));
		if (fd < 0)
			return fd;
	}
	rc = link_argv(lab, l, detach, log, counters, argv, buf, sizeof(buf));
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	pid = lab_spawn_ns(lab->lnsfd[l], argv, detach ? fd : -1, detach ? fd : -1, detach);
	if (fd >= 0)
		close(fd);
	if (pid < 0)
		return (int)pid;
	lab->link_pid[l] = pid;
	rc = wait_ready(pid, l, counters);
	if (rc && rc != -EINTR && detach)
		show_log(log);
	return rc;
}

int lab_link_start(struct lab *lab, bool detach)
{
	const struct lab_spec *spec = &lab->st.spec;
	int rc = 0;

	for (unsigned l = 0; l < spec->nlinks && !rc; l++)
		if (spec->links[l].means == LAB_MEANS_USERSPACE)
			rc = start_one(lab, l, detach);
	return rc;
}

int lab_link_counters(const struct lab *lab, unsigned link, struct link_counters *out)
{
	char path[256];
	int rc;

	if (link >= lab->st.spec.nlinks || lab->st.spec.links[link].means != LAB_MEANS_USERSPACE)
		return -ENOENT;
	rc = lab_link_counters_path(lab->st.spec.name, link, path, sizeof(path));
	return rc ? rc : link_counters_read(path, out);
}

const char *lab_link_netns_name(const struct lab *lab, unsigned link)
{
	for (unsigned i = 0; i < lab->st.nlns; i++)
		if (lab->st.lns[i].link == link)
			return lab->st.lns[i].name;
	return NULL;
}

/* The link whose subnet addr is in (lab.h's plan); -1 if none. */
static int link_of(const char *host)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, host, a) == 1) {
		if (a[0] == 198 && a[1] == 19 && a[2] == 0)
			return 0; /* the built-in overlay runs over link 0 */
		return a[0] == 198 && a[1] == 18 && a[2] < LAB_MAX_LINKS ? a[2] : -1;
	}
	if (inet_pton(AF_INET6, host, a) != 1 || a[0] != 0x20 || a[1] != 0x01 || a[2] ||
	    a[3] != 0x02 || a[4] || a[5] || a[6])
		return -1;
	if (a[7] == 0xff)
		return 0;
	return a[7] < LAB_MAX_LINKS ? a[7] : -1;
}

struct where {
	uint64_t ino;
	int link;
	char *buf;
	size_t len;
	bool found;
};

static int where_in(const char *name, void *arg)
{
	struct where *w = arg;
	struct lab_state st;
	const struct lab_link_spec *k;
	char text[160];

	if (lab_state_load(name, &st))
		return 0;
	for (unsigned h = 0; h < st.nns; h++) {
		if (st.ns[h].ino != w->ino || w->link >= (int)st.spec.nlinks)
			continue;
		k = &st.spec.links[w->link];
		if (k->means == LAB_MEANS_AUTO || lab_link_cond_str(k, text, sizeof(text)))
			return 1;
		snprintf(w->buf, w->len, "lab %s link %d (%s: %s)", name, w->link,
			 lab_means_name(k->means), text);
		w->found = true;
		return 1;
	}
	return 0;
}

int lab_where(const char *host, char *buf, size_t len)
{
	struct where w = { .link = link_of(host), .buf = buf, .len = len };
	struct stat sb;

	if (len)
		buf[0] = '\0';
	if (w.link < 0 || !len || stat("/proc/thread-self/ns/net", &sb) < 0)
		return -ENOENT;
	w.ino = (uint64_t)sb.st_ino;
	lab_list(where_in, &w);
	return w.found ? 0 : -ENOENT;
}
