// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "interrupt.h"

/* Written by the handler, read by every thread: a lock-free atomic is both
 * async-signal-safe and free of data races. */
static atomic_int received;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal flag must be lock-free");

static void on_signal(int sig)
{
	atomic_store_explicit(&received, sig, memory_order_relaxed);
}

int interrupt_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	/* A peer that goes away must give EPIPE, not kill the process. */
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		return -errno;
	return 0;
}

bool interrupt_requested(void)
{
	return atomic_load_explicit(&received, memory_order_relaxed) != 0;
}

int interrupt_signal(void)
{
	return atomic_load_explicit(&received, memory_order_relaxed);
}

void interrupt_raise(void)
{
	atomic_store_explicit(&received, SIGTERM, memory_order_relaxed);
}
