/* SPDX-License-Identifier: MIT */
/* Time is uint64_t nanoseconds on CLOCK_MONOTONIC throughout. */
#ifndef OVLPERF_CLOCK_H
#define OVLPERF_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time: result file names and reports, and kernel receive
 * timestamps (SO_TIMESTAMPNS) to compare with. */
static inline uint64_t clock_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Sleeps until an absolute CLOCK_MONOTONIC deadline; returns early on a signal. */
static inline void clock_sleep_until_ns(uint64_t deadline)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / NSEC_PER_SEC),
			       .tv_nsec = (long)(deadline % NSEC_PER_SEC) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

#endif
