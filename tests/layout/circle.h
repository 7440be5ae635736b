/* SPDX-License-Identifier: MIT */
/* Fixture of scripts/include_cycles.py (make layout-check): circle_a.c and
 * circle_b.c use each other through this header, one circle; both use
 * shared.c through shared.h, which uses neither: no circle. Never built. */
#ifndef OVLPERF_LAYOUT_CIRCLE_H
#define OVLPERF_LAYOUT_CIRCLE_H

int circle_a(int x);
int circle_b(int x);

#endif
