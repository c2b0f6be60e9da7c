/* dtype.h: the onnx.TensorProto.DataType table: names and element widths. */
#ifndef OSH_CORE_DTYPE_H
#define OSH_CORE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

enum {
	DT_UNDEFINED = 0, DT_FLOAT = 1, DT_UINT8 = 2, DT_INT8 = 3, DT_UINT16 = 4, DT_INT16 = 5,
	DT_INT32 = 6, DT_INT64 = 7, DT_STRING = 8, DT_BOOL = 9, DT_FLOAT16 = 10, DT_DOUBLE = 11,
	DT_UINT32 = 12, DT_UINT64 = 13, DT_COMPLEX64 = 14, DT_COMPLEX128 = 15, DT_BFLOAT16 = 16,
	DT_FLOAT8E4M3FN = 17, DT_FLOAT8E4M3FNUZ = 18, DT_FLOAT8E5M2 = 19, DT_FLOAT8E5M2FNUZ = 20,
	DT_UINT4 = 21, DT_INT4 = 22, DT_FLOAT4E2M1 = 23, DT_FLOAT8E8M0 = 24, DT_UINT2 = 25,
	DT_INT2 = 26,
	DT_COUNT
};

/* True for 1..DT_COUNT-1 (UNDEFINED is not a valid element type). */
bool dtype_valid(int64_t t);
/* Bits per element: 64, 32, 16, 8, 4, 2; 0 for STRING and invalid types. */
int dtype_bits(int64_t t);
/* Upper-case name as in the schema, or NULL. */
const char *dtype_name(int64_t t);
/* Bytes needed for n elements packed as raw_data (sub-byte types round up); false on
 * overflow or for STRING. */
bool dtype_raw_bytes(int64_t t, int64_t n, uint64_t *bytes);

#endif
