/* SPDX-License-Identifier: MIT */
/* Fixture of scripts/include_cycles.py: a helper both circle files use. */
#ifndef OVLPERF_LAYOUT_SHARED_H
#define OVLPERF_LAYOUT_SHARED_H

int shared_twice(int x);

#endif
