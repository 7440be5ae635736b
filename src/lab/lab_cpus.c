// SPDX-License-Identifier: MIT
/*
 * Lab hosts' CPUs: the hosts of one lab share one machine's CPUs, and a
 * userspace VPN's daemons, the sender and the receiver take turns on all of
 * them, as two real hosts never would. Given CPUs per host (`lab up --cpus
 * "0|1"`, [lab] cpus), every process the lab starts in a host runs on that
 * host's CPUs only, and a run's own loads on its client host's: each host a
 * machine of its own, as FD.io CSIT pins its traffic generator and DUT to
 * cores.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_int.h"

/* One CPU number at *s (decimal, below CPU_SETSIZE); advances *s. */
static bool cpu_number(const char **s, unsigned *cpu)
{
	char *end;
	unsigned long v;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	v = strtoul(*s, &end, 10);
	if (errno || v >= CPU_SETSIZE)
		return false;
	*s = end;
	*cpu = (unsigned)v;
	return true;
}

int lab_cpus_parse(const char *list, void *set, char *err, size_t errlen)
{
	cpu_set_t *cs = set;
	const char *s = list;

	if (cs)
		CPU_ZERO(cs);
	if (!list || !*list)
		return lab_fail(err, errlen, "no CPUs: give a list such as 0, 0-3 or 0,2,4-7");
	for (;;) {
		unsigned lo, hi;

		if (!cpu_number(&s, &lo))
			return lab_fail(
				err, errlen,
				"'%s' is not a CPU list such as 0, 0-3 or 0,2,4-7 (CPUs below %d)",
				list, CPU_SETSIZE);
		hi = lo;
		if (*s == '-') {
			s++;
			if (!cpu_number(&s, &hi) || hi < lo)
				return lab_fail(err, errlen,
						"'%s': a range is LOW-HIGH, LOW at most HIGH (0-3)",
						list);
		}
		for (unsigned c = lo; cs && c <= hi; c++)
			CPU_SET(c, cs);
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			return lab_fail(err, errlen,
					"'%s' is not a CPU list such as 0, 0-3 or 0,2,4-7", list);
	}
}

int lab_parse_cpus_opt(const char *s, struct lab_spec *spec, char *err, size_t errlen)
{
	unsigned n = 0;
	const char *p = s;

	for (;;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		char one[LAB_CPUS_MAX], why[160];
		size_t a = 0;

		/* blanks around each list: "0 | 1" reads as well as "0|1" */
		while (a < len && (p[a] == ' ' || p[a] == '\t'))
			a++;
		while (len > a && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (n >= LAB_MAX_HOSTS)
			return lab_fail(err, errlen, "'%s': more than %d hosts' CPU lists", s,
					LAB_MAX_HOSTS);
		if (len - a >= sizeof(one))
			return lab_fail(err, errlen,
					"host %u's CPU list is longer than %d characters", n,
					LAB_CPUS_MAX - 1);
		memcpy(one, p + a, len - a);
		one[len - a] = '\0';
		if (lab_cpus_parse(one, NULL, why, sizeof(why)))
			return lab_fail(err, errlen, "host %u: %s", n, why);
		snprintf(spec->cpus[n++], LAB_CPUS_MAX, "%s", one);
		if (!bar)
			break;
		p = bar + 1;
	}
	spec->cpus_hosts = n;
	return 0;
}

/* set as a taskset-style list, into buf. */
static void cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned c = 0; c < CPU_SETSIZE && n < len; c++) {
		unsigned hi = c;
		int k;

		if (!CPU_ISSET(c, set))
			continue;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		k = hi > c ? snprintf(buf + n, len - n, "%s%u-%u", n ? "," : "", c, hi)
			   : snprintf(buf + n, len - n, "%s%u", n ? "," : "", c);
		if (k < 0)
			break;
		n += (size_t)k;
		c = hi;
	}
}

int lab_cpus_available(const struct lab_spec *spec, char *err, size_t errlen)
{
	cpu_set_t have, want;
	char list[256];

	if (!spec->cpus_hosts)
		return 0;
	if (sched_getaffinity(0, sizeof(have), &have) < 0)
		return lab_fail(err, errlen, "cannot read this process's CPUs: %s",
				strerror(errno));
	cpus_text(&have, list, sizeof(list));
	for (unsigned h = 0; h < spec->cpus_hosts && h < LAB_MAX_HOSTS; h++) {
		if (lab_cpus_parse(spec->cpus[h], &want, err, errlen))
			return -EINVAL;
		for (unsigned c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &want) && !CPU_ISSET(c, &have))
				return lab_fail(
					err, errlen,
					"host %u's CPU %u is not one this process may run on "
					"(CPUs %s)",
					h, c, list);
	}
	return 0;
}

const char *lab_host_cpus(const struct lab *lab, unsigned host)
{
	const struct lab_spec *s = &lab->st.spec;

	return host < s->cpus_hosts && host < LAB_MAX_HOSTS ? s->cpus[host] : "";
}

int lab_host_cpu_set(const struct lab *lab, unsigned host, void *set)
{
	const char *list = lab_host_cpus(lab, host);

	if (!*list)
		return 0;
	return lab_cpus_parse(list, set, NULL, 0) ? -EINVAL : 1;
}

int lab_pin_self(const struct lab *lab, unsigned host)
{
	cpu_set_t set;
	struct dirent *e;
	DIR *d;
	int rc = lab_host_cpu_set(lab, host, &set);

	if (rc <= 0)
		return rc;
	/* sched_setaffinity() moves one thread: every thread of ours, by its id */
	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	rc = 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && sched_setaffinity(tid, sizeof(set), &set) < 0 && errno != ESRCH)
			rc = -errno;
	}
	closedir(d);
	return rc;
}
