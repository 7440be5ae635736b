// SPDX-License-Identifier: MIT
/* /proc/net/softnet_stat (softnet.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "softnet.h"

int softnet_parse(const char *text, size_t len, struct softnet *out)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		char line[256];
		uint32_t p, d, s;

		if (n < sizeof(line)) {
			memcpy(line, text + off, n);
			line[n] = '\0';
			/* the kernel prints 32-bit counters ("%08x") */
			if (sscanf(line, "%" SCNx32 " %" SCNx32 " %" SCNx32, &p, &d, &s) == 3) {
				out->processed += p;
				out->dropped += d;
				out->squeezed += s;
				out->ncpu++;
			}
		}
		off += n + 1;
	}
	return out->ncpu ? 0 : -EINVAL;
}

int softnet_read(const char *proc_root, struct softnet *out)
{
	char path[256], buf[16384];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/net/softnet_stat", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return softnet_parse(buf, n, out);
}
