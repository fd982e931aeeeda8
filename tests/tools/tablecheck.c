/* SPDX-License-Identifier: MIT */
/*
 * tablecheck: validate the statistics table (descriptions present, names
 * and aliases unique, substitutes and native events defined).  Prints the
 * first problem and exits 1, or prints the number of entries and exits 0.
 */
#include <stdio.h>

#include "stats.h"

int main(void)
{
	char why[256];
	int n = stat_table_validate(why, sizeof(why));

	if (n) {
		fprintf(stderr, "tablecheck: %d problem(s); first: %s\n", n,
			why);
		return 1;
	}
	printf("%zu statistics\n", stat_table_len);
	return 0;
}
