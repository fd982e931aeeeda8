// SPDX-License-Identifier: MIT
/*
 * fuzz_bpfrec: the records the BPF program writes into the sample ring
 * (common/engine/bpf/sample_bpf.h: a head, then regions of the sampled
 * thread's memory), as perf_bpf_regions() (common/engine/perfbpf.c)
 * reads them for the Python frames' walk and for a deep stack.
 *
 * Input: the record's bytes, read as a frames record and as a stack
 * record.  Besides memory errors, a region that breaks the contract
 * aborts: one outside the record, empty, at address 0, or wrapping.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/engine/perfbpf.h"
#include "common/engine/bpf/sample_bpf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, uint32_t magic)
{
	struct perf_bpf_region r[64];
	size_t n = perf_bpf_regions(data, size, magic, r, 64), i;

	for (i = 0; i < n; i++)
		if (r[i].data < data || r[i].len == 0 || !r[i].addr ||
		    r[i].len > size ||
		    (size_t)(r[i].data - data) > size - r[i].len ||
		    r[i].addr + r[i].len < r[i].addr)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, SBPF_MAGIC);
	check(data, size, SBPF_STACK_MAGIC);
	return 0;
}
