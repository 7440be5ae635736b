// SPDX-License-Identifier: MIT
/*
 * Scenario files (schema in docs/scenarios.md). libinih splits lines into section,
 * key and value; a line reader of our own feeds it, so that we know the line
 * number of every key and section (the handler of the system's libinih gets
 * none), and so that lines libinih would reject or silently glue together
 * (too long, no '=', indented continuations, NUL bytes) are reported here
 * with their line (scenario_reader.c, scenario_keys.c). After the last line,
 * scenario_validate.c checks what needs the whole file: required keys,
 * references and contradictions. scenario_int.h lists the parts.
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "knee.h"
#include "scenario_int.h"

#define SCN_FILE_MAX (1 << 20)

void scenario_defaults(struct scenario *scn)
{
	memset(scn, 0, sizeof(*scn));
	scn->repetitions = SCN_DEFAULT_REPETITIONS;
	scn->duration_ns = SCN_DEFAULT_DURATION_NS;
	scn->interleave = true;
	scn->is_lab = true;
	snprintf(scn->lab.name, sizeof(scn->lab.name), "%s", LAB_DEFAULT_NAME);
	scn->lab.hosts = 2;
	scn->lab.client = 0;
	scn->lab.server = 1;
	scn->lab.nlinks = 1;
	scn->lab.links[0].a = 0;
	scn->lab.links[0].b = 1;
	for (int i = 0; i < SCN_MAX_PATHS; i++) {
		scn->paths[i].family = AF_INET;
		scn->paths[i].underlay_family = AF_INET;
	}
	scn->knee.loss_goal = KNEE_DEFAULT_LOSS_GOAL;
	scn->knee.width_goal = KNEE_DEFAULT_WIDTH_GOAL;
	scn->knee.short_ns = KNEE_DEFAULT_SHORT_NS;
	scn->knee.final_ns = KNEE_DEFAULT_FINAL_NS;
	scn->knee.exceed_ratio = KNEE_DEFAULT_EXCEED_RATIO;
	scn->knee.duration_sum_ns = KNEE_DEFAULT_DURATION_SUM_NS;
	scn->knee.max_trials = KNEE_DEFAULT_MAX_TRIALS;
	scn->knee.fit_trials = KNEE_DEFAULT_FIT_TRIALS;
	scn->knee.max_time_ns = KNEE_DEFAULT_MAX_TIME_NS;
	scn->mtu.base = 1200;
	scn->mtu.probes = 3;
	scn->mtu.timeout_ns = 1000000000ULL;
	scn->mtu.mss = true;
	scn->mtu.fragments = true;
}

int scenario_parse(const char *name, const char *text, size_t len, struct scenario *scn, char *err,
		   size_t errlen)
{
	struct parser *p;
	int rc;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	scenario_defaults(scn);
	snprintf(scn->file, sizeof(scn->file), "%s", name);
	p->scn = scn;
	p->text = text;
	p->len = len;
	p->err = err;
	p->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	rc = ini_parse_stream(scn_read_line, p, scn_on_key, p);
	if (rc < 0) {
		free(p);
		return -ENOMEM;
	}
	if (rc > 0 && !p->nerr)
		scn_error_at(p, (unsigned)rc, NULL, NULL, "syntax error");
	scn_validate(p);
	rc = p->nerr ? -EINVAL : 0;
	free(p);
	return rc;
}

int scenario_load(const char *file, struct scenario *scn, char *err, size_t errlen)
{
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	int fd, rc = 0;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCN_FILE_MAX) {
		rc = fd < 0 ? -errno : !S_ISREG(st.st_mode) ? -EISDIR : -EFBIG;
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot read: %s\n", file,
				 rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	rc = scenario_parse(file, text, got, scn, err, errlen);
out:
	free(text);
	if (fd >= 0)
		close(fd);
	return rc;
}

void scenario_lab_spec(const struct scenario *scn, struct lab_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->name, sizeof(spec->name), "%s", scn->lab.name);
	spec->nhosts = scn->lab.hosts;
	spec->nlinks = scn->lab.nlinks;
	spec->means = scn->lab.means;
	spec->tcp_rmem_max = scn->lab.tcp_rmem_max;
	spec->tcp_wmem_max = scn->lab.tcp_wmem_max;
	spec->cpus_hosts = scn->lab.cpus_hosts;
	memcpy(spec->cpus, scn->lab.cpus, sizeof(spec->cpus));
	for (unsigned i = 0; i < scn->lab.nlinks && i < LAB_MAX_LINKS; i++) {
		const struct scenario_link *l = &scn->lab.links[i];

		spec->links[i] = (struct lab_link_spec){ .a = l->a,
							 .b = l->b,
							 .mtu = l->mtu,
							 .rate_bps = l->rate_bps,
							 .drop_pct = l->drop_pct,
							 .block_icmp_too_big = l->block_icmp,
							 .rate_layer = l->rate_layer,
							 .cond = l->cond };
	}
}

int scenario_find_path(const struct scenario *scn, const char *name)
{
	for (unsigned i = 0; i < scn->npaths && i < SCN_MAX_PATHS; i++)
		if (!strcmp(scn->paths[i].name, name))
			return (int)i;
	return -1;
}
