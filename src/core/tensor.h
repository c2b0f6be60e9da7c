/* tensor.h: reading the values of small tensors (tensor_view) as int64 or double.
 *
 * Only what shape inference needs: integer and boolean tensors as int64, floating
 * ones as double. raw_data is little-endian, as ONNX specifies.
 */
#ifndef OSH_CORE_TENSOR_H
#define OSH_CORE_TENSOR_H

#include "core/model.h"

/* Fills out[0..t->count) and returns true for integer and BOOL tensors whose data is
 * present and complete; false otherwise (external, float, malformed). */
bool tensor_ints(const tensor_view *t, int64_t *out);
/* The same for FLOAT, DOUBLE, FLOAT16 and BFLOAT16 (and integers, converted). */
bool tensor_floats(const tensor_view *t, double *out);

#endif
