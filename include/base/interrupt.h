/* SPDX-License-Identifier: MIT */
/*
 * SIGINT/SIGTERM/SIGHUP handling. The only mutable global of the program is the
 * flag behind this module: long-running loops poll interrupt_requested() and
 * unwind through their normal cleanup path, so that namespaces, tunnels and
 * child processes are always removed.
 */
#ifndef OVLPERF_INTERRUPT_H
#define OVLPERF_INTERRUPT_H

#include <stdbool.h>

/* Installs handlers without SA_RESTART, so blocking calls return EINTR. */
int interrupt_install(void);
bool interrupt_requested(void);
/* The signal that was received, or 0. */
int interrupt_signal(void);
/* Used by tests and by code that wants to stop itself (e.g. a failed host). */
void interrupt_raise(void);

#endif
