// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "interrupt.h"

static volatile sig_atomic_t received;

static void on_signal(int sig)
{
	received = sig;
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
	return received != 0;
}

int interrupt_signal(void)
{
	return received;
}

void interrupt_raise(void)
{
	received = SIGTERM;
}
