/* decode_tensor.h: a TensorProto read from its wire bytes into a message that lives
 * in the caller's scratch, without protobuf-c (see decode_tensor.c).
 */
#ifndef OSH_LOADER_DECODE_TENSOR_H
#define OSH_LOADER_DECODE_TENSOR_H

#include "onnx-ml.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for one tensor; what does not fit goes to protobuf-c. */
#define TENSOR_WIRE_DIMS 32
#define TENSOR_WIRE_ENTRIES 8
#define TENSOR_WIRE_TEXT 2048

/* The decoded message and the storage it points into. Reused tensor after tensor:
 * t is valid until the next decode_tensor on the same scratch. */
typedef struct tensor_wire {
	Onnx__TensorProto t;
	Onnx__TensorProto blank; /* protobuf-c's initial message (tensor_wire_init) */
	int64_t dims[TENSOR_WIRE_DIMS];
	Onnx__StringStringEntryProto entries[TENSOR_WIRE_ENTRIES];
	Onnx__StringStringEntryProto *entry_at[TENSOR_WIRE_ENTRIES];
	char text[TENSOR_WIRE_TEXT]; /* name, doc_string, external_data keys and values */
	size_t text_used;
	/* After decode_tensor: the bytes held no field but dims, data_type, name,
	 * raw_data and doc_string, each as often as it came. */
	bool raw_only;
} tensor_wire;

/* Makes w ready for decode_tensor (once, however many tensors it then reads). */
void tensor_wire_init(tensor_wire *w);

/* Reads the TensorProto in [p, p + len) into w->t, as protobuf-c would unpack it
 * except that raw_data points into p (not copied) and unknown fields are dropped.
 * False, with w->t unusable, for a tensor this reader leaves to protobuf-c: typed
 * data fields, a segment, string_data, metadata_props, more dims, entries or text
 * than w has room for, or bytes that do not parse. */
bool decode_tensor(const uint8_t *p, size_t len, tensor_wire *w);

#endif
