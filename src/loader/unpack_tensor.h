/* unpack_tensor.h: one TensorProto unpacked from its wire bytes with its raw_data
 * pointing into them instead of copied (see unpack_tensor.c).
 */
#ifndef OSH_LOADER_UNPACK_TENSOR_H
#define OSH_LOADER_UNPACK_TENSOR_H

#include "onnx-ml.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Scratch kept across calls (a copy of a tensor's bytes without its weights). */
typedef struct tensor_scratch {
	uint8_t *buf;
	size_t cap;
} tensor_scratch;

/* Unpacks the TensorProto in [p, p + len) into `alloc` (NULL: malloc). Its raw_data
 * field (when it has one) is not copied: raw_data.data points into p, and
 * *aliased says so (the caller must then clear raw_data before freeing the message
 * with protobuf-c, and keep p alive as long as the message). NULL when protobuf-c
 * refuses the bytes or memory ran out. */
Onnx__TensorProto *unpack_tensor(ProtobufCAllocator *alloc, const uint8_t *p, size_t len, tensor_scratch *s,
				 bool *aliased);
/* Frees a message unpack_tensor made with malloc (alloc NULL). */
void free_tensor(Onnx__TensorProto *t, bool aliased);
void tensor_scratch_free(tensor_scratch *s);

#endif
