// SPDX-License-Identifier: MIT
/*
 * fuzz_profileme: the instruction-sampling decoders (common/engine/profileme.h)
 * on raw hardware records, as the collector hands them over.
 *
 * The first byte of the input chooses the decoder (its value mod 3), the
 * rest is the record:
 *   0  AMD IBS op: the PERF_SAMPLE_RAW payload of an ibs_op sample;
 *   1  Arm SPE: an AUX-area packet stream, decoded record after record
 *      as the collector walks it;
 *   2  Intel PEBS: event (mod 6), have-bits, then ip, addr, weight,
 *      data_src (u64 each) and retire_lat (u16), little-endian, missing
 *      bytes zero.
 * Besides memory errors, a decoder breaking its contract aborts: a
 * record of SPE that consumes nothing or more than the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/engine/profileme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t **p, size_t *left, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n && i < *left; i++)
		v |= (uint64_t)(*p)[i] << (8 * i);
	*p += i;
	*left -= i;
	return v;
}

static void spe(const uint8_t *buf, size_t len)
{
	struct pm_sample s;
	size_t at = 0, used;

	while (at < len) {
		if (pm_decode_spe(buf + at, len - at, &used, &s) < 0)
			return;
		if (!used || used > len - at)
			abort();
		at += used;
	}
}

static void pebs(const uint8_t *p, size_t left)
{
	struct pm_pebs_input in;
	struct pm_sample s;

	memset(&in, 0, sizeof(in));
	in.event = (enum pm_pebs_event)(take(&p, &left, 1) % PM_PEBS_NEVENTS);
	in.have = (unsigned)take(&p, &left, 1) & 0xf;
	in.ip = take(&p, &left, 8);
	in.addr = take(&p, &left, 8);
	in.weight = take(&p, &left, 8);
	in.data_src = take(&p, &left, 8);
	in.retire_lat = (uint16_t)take(&p, &left, 2);
	pm_decode_pebs(&in, &s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_sample s;
	uint8_t *rec;
	size_t len;

	if (!size)
		return 0;
	/* An exact-size copy: ASan sees a read one byte too far. */
	len = size - 1;
	rec = malloc(len ? len : 1);
	if (!rec)
		abort();
	memcpy(rec, data + 1, len);
	switch (data[0] % 3) {
	case 0:
		pm_decode_ibs_op(rec, len, &s);
		break;
	case 1:
		spe(rec, len);
		break;
	default:
		pebs(rec, len);
		break;
	}
	free(rec);
	return 0;
}
