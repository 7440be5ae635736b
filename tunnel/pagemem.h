/* SPDX-License-Identifier: MIT */
/*
 * The data-path threads' buffers (send.c, receive.c): mmap()ed,
 * page-aligned, zeroed; NULL on failure. Not malloc: freeing megabytes from
 * a thread's arena makes glibc read /proc/sys/vm/overcommit_memory, which
 * the sandbox forbids. pagemem_free(NULL, n) is a no-op.
 */
#ifndef OVLPERF_TUNNEL_PAGEMEM_H
#define OVLPERF_TUNNEL_PAGEMEM_H

#include <stddef.h>

void *pagemem_alloc(size_t len);
void pagemem_free(void *p, size_t len);

#endif
