// SPDX-License-Identifier: MIT
/* The data path's buffers (pagemem.h): mmap()ed, never in a core file. */
#include <stddef.h>
#include <sys/mman.h>

#include "pagemem.h"

void *pagemem_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Plaintext packets pass through here: never into a core file (the
	 * sandbox makes the whole process non-dumpable; this also holds with
	 * "sandbox = off"). Best effort: a kernel without it still works. */
	madvise(p, len, MADV_DONTDUMP);
	return p;
}

void pagemem_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}
