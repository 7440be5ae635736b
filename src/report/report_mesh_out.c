// SPDX-License-Identifier: MIT
/* The files of `report --matrix --out DIR`: matrix.json, matrix.csv,
 * report.md and the heatmaps. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "report_file.h"
#include "report_mesh.h"

struct mesh_files {
	const struct mesh *m;
	const struct mesh_verdicts *v;
	const struct mesh_plot_set *set;
};

static int print_json(FILE *f, const void *ctx)
{
	const struct mesh_files *x = ctx;

	return report_mesh_json(f, x->m, x->v);
}

static int print_csv(FILE *f, const void *ctx)
{
	return report_mesh_csv(f, ((const struct mesh_files *)ctx)->m);
}

static int print_md(FILE *f, const void *ctx)
{
	const struct mesh_files *x = ctx;

	return report_mesh_md(f, x->m, x->v, x->set);
}

int report_mesh_write(const char *dir, const struct mesh *m, const struct mesh_verdicts *v,
		      bool plots)
{
	static const struct {
		const char *name;
		report_printer print;
	} files[] = { { "matrix.json", print_json },
		      { "matrix.csv", print_csv },
		      { "report.md", print_md } };
	struct mesh_plot_set set;
	struct mesh_files x = { .m = m, .v = v, .set = &set };
	int rc = 0;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		log_err("cannot make %s: %s", dir, strerror(-rc));
		return rc;
	}
	memset(&set, 0, sizeof(set));
	if (plots && report_mesh_plot(m, dir, &set))
		rc = -EIO;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (report_write_file(dir, files[i].name, files[i].print, &x))
			rc = -EIO;
	return rc;
}
