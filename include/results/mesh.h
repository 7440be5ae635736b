/* SPDX-License-Identifier: MIT */
/*
 * The mesh model: many pair runs (one `ovlperf run` from a client host to a
 * server host each, the same scenario every time) merged into host x host
 * tables. src/results/mesh.c derives each pair's figures from its run.json
 * with the same aggregates and overhead rows a single run's report uses, so
 * a cell of the matrix equals the figure `ovlperf report PAIRDIR` prints;
 * src/results/mesh_read.c loads a pair directory (run.json and the pair.json
 * the playbook writes beside it). The printers (report_mesh.h) only read.
 */
#ifndef OVLPERF_MESH_H
#define OVLPERF_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "overhead.h"
#include "results.h"

#define MESH_SCHEMA	   1
#define MESH_MAX_HOSTS	   64
#define MESH_HOST_MAX	   64
#define MESH_MAX_PATHS	   RESULTS_MAX_PATHS
#define MESH_DIR_MAX	   1024
#define MESH_PAIR_FILE	   "pair.json"
#define MESH_PAIR_FILE_MAX (64 * 1024)

enum mesh_status {
	MESH_OK = 0,	  /* run.json complete */
	MESH_INCOMPLETE,  /* run.json says the run stopped early */
	MESH_FAILED,	  /* the run failed, or left no readable run.json */
	MESH_UNREACHABLE, /* a host of the pair could not be reached */
};

/* The figures of one path of one pair; each is one host x host table. */
enum mesh_figure {
	MESH_TCP_GOODPUT = 0, /* bit/s at the most streams the run measured */
	MESH_UDP_NDR,	      /* bit/s at the largest datagram size searched */
	MESH_TCP_RATIO,	      /* overlay / underlay TCP goodput (overlays only) */
	MESH_NDR_RATIO,	      /* overlay / underlay UDP NDR (overlays only) */
	MESH_OWD_P50,	      /* ms, at the first common delay load */
	MESH_MTU,	      /* the worst MTU/MSS verdict; value: its enum results_verdict */
	MESH_FIGURE_COUNT
};

struct mesh_value {
	bool present;
	double v;
	enum overhead_bound bound; /* a lower bound keeps its marker (">= ") */
	bool fit;	 /* UDP NDR and its ratio: a soft knee's fit ("~"), results_head */
	uint32_t detail; /* MESH_MTU: the worst check's value (bytes); 0: none */
	char check[RESULTS_NAME_MAX]; /* MESH_MTU: the worst check's name */
	char limit[32]; /* TCP goodput, UDP NDR: what limited it (run_limit.h); "": unknown */
};

struct mesh_pair {
	unsigned client, server; /* indices into mesh.hosts */
	enum mesh_status status;
	char reason[RESULTS_TEXT_MAX]; /* why a pair is not OK; "" when it is */
	char dir[MESH_DIR_MAX];
	double duration_s;
	struct mesh_value fig[MESH_MAX_PATHS][MESH_FIGURE_COUNT]; /* by mesh path */
};

struct mesh_path {
	char name[RESULTS_NAME_MAX];
	enum results_path_kind kind;
};

struct mesh {
	unsigned nhosts;
	char hosts[MESH_MAX_HOSTS][MESH_HOST_MAX];
	unsigned npaths;
	struct mesh_path paths[MESH_MAX_PATHS];
	/* The key each figure was taken at, the first pair's (0: none). */
	unsigned tcp_streams;
	uint32_t udp_len;
	/* The scenario the pairs ran (the first pair's) and when the first and
	 * the last of them started (ISO 8601 UTC; "": no pair left a run), for
	 * the titles of the plots. */
	char scenario[RESULTS_NAME_MAX];
	char started_first[32], started_last[32];
	size_t npairs, cap;
	struct mesh_pair *pairs;
};

/* What the matrix names: the slowest pair and the most expensive overlay. */
struct mesh_verdicts {
	bool has_slowest;
	size_t slowest;		      /* pair index */
	unsigned slowest_path;	      /* the path its figure is of */
	enum mesh_figure slowest_fig; /* TCP goodput, else UDP NDR */
	bool has_costliest;
	unsigned costliest_path;	/* the overlay path */
	enum mesh_figure costliest_fig; /* TCP or NDR ratio */
	double costliest_median_pct;	/* its median cost over the pairs, percent */
	unsigned costliest_n;		/* over how many pairs */
	size_t costliest_worst;		/* the pair where it cost most */
	double costliest_worst_pct;
};

void mesh_init(struct mesh *m);
void mesh_free(struct mesh *m);

/* The host's index, adding it. -ENOSPC when MESH_MAX_HOSTS are taken,
 * -EINVAL for an empty or too long name. */
int mesh_host(struct mesh *m, const char *name);

/* Adds the ordered pair client -> server. With run (NULL for a pair that
 * left none), its figures are derived; status and reason say how the pair
 * went. -EEXIST when the pair is already there, -ENOSPC for a run with a
 * path the mesh has no room for, -ENOMEM. */
int mesh_add_pair(struct mesh *m, const char *client, const char *server,
		  const struct results_run *run, enum mesh_status status, const char *reason,
		  const char *dir);

/* A pair directory: pair.json (client, server, status, reason; written by
 * deploy/ansible) and run.json. Without pair.json the client is the run's
 * host name and the server its first path's address. A pair whose
 * pair.json says it failed needs no run.json. err names the file and what
 * is wrong. 0, -EINVAL (a malformed file, err says why), -ENOENT (neither
 * file), -EEXIST or -ENOMEM. */
int mesh_load_dir(struct mesh *m, const char *dir, char *err, size_t errlen);

/* Hosts sorted by name, pairs by client then server. */
void mesh_sort(struct mesh *m);

/* The pair client -> server, or NULL. */
const struct mesh_pair *mesh_find(const struct mesh *m, unsigned client, unsigned server);

void mesh_verdicts(const struct mesh *m, struct mesh_verdicts *v);

/* Counts of pairs by status. */
size_t mesh_count(const struct mesh *m, enum mesh_status s);

/* A figure applies to a path: ratios only to overlays. */
bool mesh_figure_applies(const struct mesh *m, unsigned path, enum mesh_figure f);

/* "tcp_goodput_bps", ...; a table title ("TCP goodput"); the unit. */
const char *mesh_figure_name(enum mesh_figure f);
const char *mesh_figure_label(enum mesh_figure f);
const char *mesh_figure_unit(enum mesh_figure f);
/* "ok", "incomplete", "failed", "unreachable"; parse: -1 when unknown. */
const char *mesh_status_name(enum mesh_status s);
int mesh_status_parse(const char *s);

#endif
