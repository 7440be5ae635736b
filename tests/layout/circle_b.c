// SPDX-License-Identifier: MIT
/* Fixture of scripts/include_cycles.py: uses circle_a.c, which uses it. */
#include "circle.h"
#include "shared.h"

static int half(int x)
{
	return x / 2;
}

int circle_b(int x)
{
	return x > 1 ? circle_a(half(x) - 1) : shared_twice(x);
}
