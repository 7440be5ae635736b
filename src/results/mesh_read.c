// SPDX-License-Identifier: MIT
/*
 * One pair directory of a mesh: pair.json, which the playbook writes for
 * every ordered pair it tried (also for one whose host it could not reach,
 * where no run.json exists), and the run's run.json.
 *
 * pair.json: {"client": NAME, "server": NAME, "status": "ok" | "failed" |
 * "unreachable", "reason": TEXT}; client and server are required, status
 * defaults to "ok", unknown fields are ignored (docs/mesh.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mesh.h"

struct pair_info {
	char client[MESH_HOST_MAX], server[MESH_HOST_MAX];
	enum mesh_status status;
	char reason[RESULTS_TEXT_MAX];
};

/* The whole file, NUL-terminated, if it is at most MESH_PAIR_FILE_MAX. */
static int slurp(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int rc = 0;

	*out = NULL;
	if (!f)
		return -errno;
	buf = malloc(MESH_PAIR_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, MESH_PAIR_FILE_MAX + 1, f);
	if (ferror(f))
		rc = -EIO;
	else if (n > MESH_PAIR_FILE_MAX)
		rc = -EFBIG;
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static bool take_text(const cJSON *root, const char *key, char *dst, size_t len, bool need,
		      const char *path, char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);

	if (!it && !need)
		return true;
	if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) >= len) {
		snprintf(err, errlen, "%s: \"%s\" must be a non-empty string of at most %zu bytes",
			 path, key, len - 1);
		return false;
	}
	memcpy(dst, it->valuestring, strlen(it->valuestring) + 1);
	return true;
}

static int parse_pair(const char *text, const char *path, struct pair_info *pi, char *err,
		      size_t errlen)
{
	cJSON *root = cJSON_Parse(text);
	char status[16] = "ok";
	bool ok;

	memset(pi, 0, sizeof(*pi));
	if (!cJSON_IsObject(root)) {
		snprintf(err, errlen, "%s: not a JSON object", path);
		cJSON_Delete(root);
		return -EINVAL;
	}
	ok = take_text(root, "client", pi->client, sizeof(pi->client), true, path, err, errlen) &&
	     take_text(root, "server", pi->server, sizeof(pi->server), true, path, err, errlen) &&
	     take_text(root, "status", status, sizeof(status), false, path, err, errlen);
	if (ok && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "reason")))
		snprintf(pi->reason, sizeof(pi->reason), "%s",
			 cJSON_GetObjectItemCaseSensitive(root, "reason")->valuestring);
	cJSON_Delete(root);
	if (!ok)
		return -EINVAL;
	if (mesh_status_parse(status) < 0 || mesh_status_parse(status) == MESH_INCOMPLETE) {
		snprintf(err, errlen, "%s: \"status\": '%s' is not ok, failed or unreachable", path,
			 status);
		return -EINVAL;
	}
	if (!strcmp(pi->client, pi->server)) {
		snprintf(err, errlen, "%s: client and server are both '%s'", path, pi->client);
		return -EINVAL;
	}
	pi->status = (enum mesh_status)mesh_status_parse(status);
	return 0;
}

/* pair.json, if there is one: 1 when read, 0 when absent. */
static int read_pair(const char *dir, struct pair_info *pi, char *err, size_t errlen)
{
	char path[MESH_DIR_MAX + 16], *text;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, MESH_PAIR_FILE);
	rc = slurp(path, &text);
	if (rc == -ENOENT)
		return 0;
	if (rc) {
		snprintf(err, errlen, "%s: %s", path,
			 rc == -EFBIG ? "larger than a pair file can be" : strerror(-rc));
		return rc == -EFBIG ? -EINVAL : rc;
	}
	rc = parse_pair(text, path, pi, err, errlen);
	free(text);
	return rc ? rc : 1;
}

/* Without pair.json: the run's own host is the client, its first path's
 * far end the server. */
static int pair_from_run(const struct results_run *run, struct pair_info *pi, const char *dir,
			 char *err, size_t errlen)
{
	memset(pi, 0, sizeof(*pi));
	if (!run->host.hostname[0] || !run->npaths || !run->paths[0].addr[0] ||
	    strlen(run->paths[0].addr) >= sizeof(pi->server)) {
		snprintf(err, errlen,
			 "%s: no %s, and its run.json names no host name and far end to take "
			 "the pair from",
			 dir, MESH_PAIR_FILE);
		return -EINVAL;
	}
	snprintf(pi->client, sizeof(pi->client), "%s", run->host.hostname);
	snprintf(pi->server, sizeof(pi->server), "%s", run->paths[0].addr);
	pi->status = MESH_OK;
	return 0;
}

static int add(struct mesh *m, const struct pair_info *pi, const struct results_run *run,
	       const char *dir, char *err, size_t errlen)
{
	int rc = mesh_add_pair(m, pi->client, pi->server, run, pi->status, pi->reason, dir);

	if (rc == -EEXIST)
		snprintf(err, errlen, "%s: the pair %s -> %s is already in the matrix", dir,
			 pi->client, pi->server);
	else if (rc == -ENOSPC)
		snprintf(err, errlen, "%s: more than %d hosts or %d paths", dir, MESH_MAX_HOSTS,
			 MESH_MAX_PATHS);
	else if (rc == -EINVAL)
		snprintf(err, errlen,
			 "%s: a host name must be 1..%d bytes and differ from its peer", dir,
			 MESH_HOST_MAX - 1);
	else if (rc)
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
	return rc;
}

int mesh_load_dir(struct mesh *m, const char *dir, char *err, size_t errlen)
{
	char path[MESH_DIR_MAX + 16], rerr[512];
	struct results_run run;
	struct pair_info pi;
	int have_pair, rc;

	have_pair = read_pair(dir, &pi, err, errlen);
	if (have_pair < 0)
		return have_pair;
	if (have_pair && pi.status != MESH_OK)
		return add(m, &pi, NULL, dir, err, errlen);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	rc = results_read_json(path, &run, rerr, sizeof(rerr));
	if (rc && !have_pair) {
		snprintf(err, errlen, "%s: neither %s nor a readable run.json (%s)", dir,
			 MESH_PAIR_FILE, rerr);
		results_free(&run);
		return rc == -ENOENT ? -ENOENT : -EINVAL;
	}
	if (rc) {
		/* The playbook saw the run end well, yet it left no run.json
		 * that reads: the pair failed, and the matrix says why. */
		pi.status = MESH_FAILED;
		snprintf(pi.reason, sizeof(pi.reason), "run.json: %.200s", rerr);
		results_free(&run);
		return add(m, &pi, NULL, dir, err, errlen);
	}
	if (!have_pair && pair_from_run(&run, &pi, dir, err, errlen)) {
		results_free(&run);
		return -EINVAL;
	}
	if (!run.complete) {
		pi.status = MESH_INCOMPLETE;
		snprintf(pi.reason, sizeof(pi.reason), "%s",
			 run.stop_reason[0] ? run.stop_reason : "the run stopped early");
	}
	rc = add(m, &pi, &run, dir, err, errlen);
	results_free(&run);
	return rc;
}
