/* unpack_tensor.c: see unpack_tensor.h.
 *
 * protobuf-c copies every bytes field: a model's weights would be in memory twice,
 * once in the input and once unpacked. The TensorProto is instead unpacked from a
 * copy of its bytes without the raw_data field, which is then set to point at the
 * weights where they are, whatever their size: a pointer costs no page of the input
  * until the weight is read, which for most weights is never (copies of a CNN's
  * many small batch-norm weights add up on a big model).
 */
#include "loader/unpack_tensor.h"
#include "loader/wire.h"

#include <stdlib.h>
#include <string.h>

Onnx__TensorProto *unpack_tensor(ProtobufCAllocator *alloc, const uint8_t *p, size_t len, tensor_scratch *s,
				 bool *aliased)
{
	*aliased = false;
	wire_field raw;
	if (!wire_find_one(p, 0, len, 9, &raw)) /* raw_data, once */
		return onnx__tensor_proto__unpack(alloc, len, p);
	size_t cut = raw.end - raw.start, rest = len - cut;
	if (rest > s->cap || !s->buf) { /* a tensor of raw_data alone leaves nothing: 1 byte */
		uint8_t *b = realloc(s->buf, rest ? rest : 1);
		if (!b)
			return NULL;
		s->buf = b, s->cap = rest;
	}
	memcpy(s->buf, p, raw.start);
	memcpy(s->buf + raw.start, p + raw.end, len - raw.end);
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(alloc, rest, s->buf);
	if (!t)
		return NULL;
	if (t->has_raw_data) { /* cannot happen: the only raw_data field was cut */
		onnx__tensor_proto__free_unpacked(t, alloc);
		return NULL;
	}
	t->has_raw_data = 1;
	t->raw_data.len = raw.len;
	t->raw_data.data = (uint8_t *)p + raw.payload;
	*aliased = true;
	return t;
}

void free_tensor(Onnx__TensorProto *t, bool aliased)
{
	if (!t)
		return;
	if (aliased) { /* not protobuf-c's to free */
		t->has_raw_data = 0;
		t->raw_data.data = NULL;
		t->raw_data.len = 0;
	}
	onnx__tensor_proto__free_unpacked(t, NULL);
}

void tensor_scratch_free(tensor_scratch *s)
{
	free(s->buf);
	*s = (tensor_scratch){0};
}
