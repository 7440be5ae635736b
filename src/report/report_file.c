// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "log.h"
#include "report_file.h"

int report_write_file(const char *dir, const char *name, report_printer print, const void *ctx)
{
	char path[PATH_MAX];
	FILE *f;
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f) {
		err = -errno;
		log_err("cannot write %s: %s", path, strerror(-err));
		return err;
	}
	err = print(f, ctx);
	if (fflush(f) && !err)
		err = -(errno ? errno : EIO);
	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	if (err)
		log_err("writing %s failed: %s", path, strerror(-err));
	return err;
}

void report_file_note(char *list, size_t len, const char *name)
{
	size_t l = strnlen(list, len);

	if (l + 1 < len)
		snprintf(list + l, len - l, "%s%s", l ? ", " : "", name);
}
