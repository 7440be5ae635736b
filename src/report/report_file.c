// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The temporary file beside path: ".NAME.XXXXXX" in its directory, a name
 * no reader looks for (a textfile collector reads only *.prom). */
static int temp_beside(const char *path, char *tmp, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;

	if (snprintf(tmp, len, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int report_write_path(const char *path, report_printer print, const void *ctx)
{
	char tmp[PATH_MAX];
	FILE *f = NULL;
	int fd, err = temp_beside(path, tmp, sizeof(tmp));

	if (err)
		return err;
	fd = mkstemp(tmp);
	/* mkstemp makes it 0600; the files are results for others to read */
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		err = -errno;
		log_err("cannot write %s: %s", path, strerror(-err));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return err;
	}
	err = print(f, ctx);
	if (fflush(f) && !err)
		err = -(errno ? errno : EIO);
	if (fsync(fileno(f)) && !err)
		err = -errno;
	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	/* the rename is the only step a reader sees: the old file whole or
	 * the new one whole, never one half written */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		log_err("writing %s failed: %s", path, strerror(-err));
	}
	return err;
}

void report_file_note(char *list, size_t len, const char *name)
{
	size_t l = strnlen(list, len);

	if (l + 1 < len)
		snprintf(list + l, len - l, "%s%s", l ? ", " : "", name);
}
