// SPDX-License-Identifier: MIT
/* Fixture of scripts/include_cycles.py: uses circle_b.c, which uses it. */
#include "circle.h"
#include "shared.h"

/* a name circle_b.c also has, static: not a use of circle_b.c */
static int half(int x)
{
	return x / 2;
}

int circle_a(int x)
{
	return x > 0 ? circle_b(half(x)) : shared_twice(x);
}
