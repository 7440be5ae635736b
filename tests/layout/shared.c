// SPDX-License-Identifier: MIT
/* Fixture of scripts/include_cycles.py: used by both circle files, uses
 * neither (a struct member and a struct tag named like their functions are
 * no use of them). */
#include "shared.h"

struct circle_a {
	int circle_b;
};

int shared_twice(int x)
{
	struct circle_a c = { .circle_b = x };

	return 2 * c.circle_b;
}
