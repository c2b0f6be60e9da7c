/* dtype.c: see dtype.h. One row per data type, indexed by its enum value. */
#include "core/dtype.h"

#include <stddef.h>

static const struct {
	const char *name;
	int bits;
} types[DT_COUNT] = {
	[DT_UNDEFINED] = {"UNDEFINED", 0},
	[DT_FLOAT] = {"FLOAT", 32},
	[DT_UINT8] = {"UINT8", 8},
	[DT_INT8] = {"INT8", 8},
	[DT_UINT16] = {"UINT16", 16},
	[DT_INT16] = {"INT16", 16},
	[DT_INT32] = {"INT32", 32},
	[DT_INT64] = {"INT64", 64},
	[DT_STRING] = {"STRING", 0},
	[DT_BOOL] = {"BOOL", 8},
	[DT_FLOAT16] = {"FLOAT16", 16},
	[DT_DOUBLE] = {"DOUBLE", 64},
	[DT_UINT32] = {"UINT32", 32},
	[DT_UINT64] = {"UINT64", 64},
	[DT_COMPLEX64] = {"COMPLEX64", 64},
	[DT_COMPLEX128] = {"COMPLEX128", 128},
	[DT_BFLOAT16] = {"BFLOAT16", 16},
	[DT_FLOAT8E4M3FN] = {"FLOAT8E4M3FN", 8},
	[DT_FLOAT8E4M3FNUZ] = {"FLOAT8E4M3FNUZ", 8},
	[DT_FLOAT8E5M2] = {"FLOAT8E5M2", 8},
	[DT_FLOAT8E5M2FNUZ] = {"FLOAT8E5M2FNUZ", 8},
	[DT_UINT4] = {"UINT4", 4},
	[DT_INT4] = {"INT4", 4},
	[DT_FLOAT4E2M1] = {"FLOAT4E2M1", 4},
	[DT_FLOAT8E8M0] = {"FLOAT8E8M0", 8},
	[DT_UINT2] = {"UINT2", 2},
	[DT_INT2] = {"INT2", 2},
};

bool dtype_valid(int64_t t) { return t > DT_UNDEFINED && t < DT_COUNT; }
int dtype_bits(int64_t t) { return dtype_valid(t) ? types[t].bits : 0; }
const char *dtype_name(int64_t t) { return t >= 0 && t < DT_COUNT ? types[t].name : NULL; }

bool dtype_raw_bytes(int64_t t, int64_t n, uint64_t *bytes)
{
	int bits = dtype_bits(t);
	if (!bits || n < 0)
		return false;
	uint64_t un = (uint64_t)n;
	if (un > UINT64_MAX / (uint64_t)bits)
		return false;
	*bytes = (un * (uint64_t)bits + 7) / 8;
	return true;
}
