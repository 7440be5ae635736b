// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* recvmmsg(), sendmmsg(), struct mmsghdr */
/*
 * The counter file: a small versioned struct of u64 counters per direction,
 * mmap'd by the forwarder and kept current by its two threads, each the
 * only writer of its direction. A reader (link_counters_read(), in another
 * process) maps it read-only and takes a direction only when its sequence
 * count was even and unchanged across the copy (a seqlock, as the kernel's
 * vDSO reads the clock), so every snapshot satisfies
 * rx = tx + drops + queued.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "link_int.h"

#define MAGIC	   0x4b4e494c4c564f00ULL /* "\0OVLLINK" */
#define READ_TRIES 1000
#define NWORDS	   (sizeof(struct link_dir_counters) / sizeof(uint64_t))

_Static_assert(sizeof(struct link_dir_counters) % sizeof(uint64_t) == 0,
	       "link_dir_counters must be u64 counters only");

/* The file's layout: fixed-width fields, host byte order (the file never
 * leaves the machine). */
struct file_dir {
	uint64_t seq;	     /* odd while the writer changes the counters */
	uint64_t updated_ns; /* CLOCK_MONOTONIC of this snapshot */
	uint64_t c[NWORDS];
};

struct file_layout {
	uint64_t magic;
	uint32_t version, size;
	uint32_t pid, running;
	uint64_t started_ns;
	struct file_dir dir[LINK_DIRS];
};

struct link_counters_file {
	struct file_layout *map;
	char *path, *tmp;
};

#define FIELD(f)                                                                                   \
	{                                                                                          \
#f, offsetof(struct link_dir_counters, f)                                          \
	}
const struct link_counter_field link_counter_fields[] = {
	FIELD(rx_packets),  FIELD(rx_bytes),	    FIELD(tx_packets),	      FIELD(tx_bytes),
	FIELD(delayed),	    FIELD(reordered),	    FIELD(drop_loss),	      FIELD(drop_burst),
	FIELD(drop_queue),  FIELD(drop_rate),	    FIELD(drop_other),	      FIELD(queue_packets),
	FIELD(queue_bytes), FIELD(queue_max_bytes), FIELD(queue_max_packets), FIELD(gso_split),
	FIELD(limit_bytes), FIELD(rx_kernel_drops), FIELD(late_sum_ns),	      FIELD(late_max_ns),
	FIELD(spin_stops),
};
const size_t link_counter_nfields = sizeof(link_counter_fields) / sizeof(link_counter_fields[0]);

_Static_assert(sizeof(link_counter_fields) / sizeof(link_counter_fields[0]) == NWORDS,
	       "every counter has a name");

int link_counters_create(const char *path, struct link_counters_file **out)
{
	struct link_counters_file *f = calloc(1, sizeof(*f));
	size_t len = strlen(path) + 16;
	int fd = -1, rc = -ENOMEM;

	if (!f || !(f->path = strdup(path)) || !(f->tmp = malloc(len)))
		goto fail;
	snprintf(f->tmp, len, "%s.%d.tmp", path, (int)getpid());
	fd = open(f->tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, sizeof(struct file_layout))) {
		rc = -errno;
		goto fail;
	}
	f->map = mmap(NULL, sizeof(struct file_layout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f->map == MAP_FAILED) {
		rc = -errno;
		f->map = NULL;
		goto fail;
	}
	close(fd);
	f->map->version = LINK_COUNTERS_VERSION;
	f->map->size = sizeof(struct file_layout);
	f->map->pid = (uint32_t)getpid();
	f->map->running = 1;
	f->map->started_ns = clock_now_ns();
	__atomic_store_n(&f->map->magic, MAGIC, __ATOMIC_RELEASE);
	*out = f;
	return 0;
fail:
	if (fd >= 0) {
		close(fd);
		unlink(f->tmp);
	}
	if (f) {
		free(f->path);
		free(f->tmp);
	}
	free(f);
	return rc;
}

int link_counters_ready(struct link_counters_file *f)
{
	return rename(f->tmp, f->path) ? -errno : 0;
}

void link_counters_publish(struct link_counters_file *f, unsigned dir,
			   const struct link_dir_counters *c, uint64_t now_ns)
{
	struct file_dir *d = &f->map->dir[dir];
	uint64_t seq = d->seq, w[NWORDS];

	memcpy(w, c, sizeof(w));
	__atomic_store_n(&d->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < NWORDS; i++)
		__atomic_store_n(&d->c[i], w[i], __ATOMIC_RELAXED);
	__atomic_store_n(&d->updated_ns, now_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&d->seq, seq + 2, __ATOMIC_RELEASE);
}

void link_counters_close(struct link_counters_file *f)
{
	if (!f)
		return;
	if (f->map) {
		__atomic_store_n(&f->map->running, 0, __ATOMIC_RELEASE);
		msync(f->map, sizeof(*f->map), MS_SYNC);
		munmap(f->map, sizeof(*f->map));
	}
	unlink(f->tmp); /* only there if the forwarder never became ready */
	free(f->path);
	free(f->tmp);
	free(f);
}

static bool read_dir(const struct file_dir *d, struct link_dir_counters *out, uint64_t *updated)
{
	uint64_t w[NWORDS], s1, s2;

	for (int t = 0; t < READ_TRIES; t++) {
		s1 = __atomic_load_n(&d->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		for (size_t i = 0; i < NWORDS; i++)
			w[i] = __atomic_load_n(&d->c[i], __ATOMIC_RELAXED);
		*updated = __atomic_load_n(&d->updated_ns, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&d->seq, __ATOMIC_RELAXED);
		if (s1 == s2) {
			memcpy(out, w, sizeof(w));
			return true;
		}
	}
	return false;
}

static int read_map(const struct file_layout *m, struct link_counters *out)
{
	uint64_t up;

	if (__atomic_load_n(&m->magic, __ATOMIC_ACQUIRE) != MAGIC ||
	    m->version != LINK_COUNTERS_VERSION || m->size != sizeof(*m))
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	out->version = m->version;
	out->pid = m->pid;
	out->started_ns = m->started_ns;
	out->running = __atomic_load_n(&m->running, __ATOMIC_ACQUIRE) != 0;
	for (unsigned d = 0; d < LINK_DIRS; d++) {
		if (!read_dir(&m->dir[d], &out->dir[d], &up))
			return -EAGAIN;
		if (up > out->updated_ns)
			out->updated_ns = up;
	}
	return 0;
}

int link_counters_read(const char *path, struct link_counters *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	struct stat st;
	void *m;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if ((size_t)st.st_size != sizeof(struct file_layout)) {
		close(fd);
		return -EPROTO;
	}
	m = mmap(NULL, sizeof(struct file_layout), PROT_READ, MAP_SHARED, fd, 0);
	rc = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	rc = read_map(m, out);
	munmap(m, sizeof(struct file_layout));
	return rc;
}
