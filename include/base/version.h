/* SPDX-License-Identifier: MIT */
#ifndef OVLPERF_VERSION_H
#define OVLPERF_VERSION_H
#define OVLPERF_VERSION "0.1.0"
#endif
