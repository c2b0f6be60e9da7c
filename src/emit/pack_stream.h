/* pack_stream.h: packing a model into an output file, linear in its size.
 */
#ifndef OSH_EMIT_PACK_STREAM_H
#define OSH_EMIT_PACK_STREAM_H

#include "core/model.h"
#include "emit/write_atomic.h"
#include "onnx-ml.pb-c.h"

/* protobuf's limit for one message: 2 GiB - 1. */
#define PACK_MAX ((size_t)INT32_MAX)

/* Writes model, packed exactly as protobuf_c_message_pack would, to out; but when
 * `lazy` holds nodes and the main graph's node list is empty, the graph's nodes are
 * lazy's bytes, written as they are. Returns 0, EFBIG (over PACK_MAX: nothing was
 * written), or ENOMEM (out->err carries write errors). The model is modified
 * meanwhile (fields emptied and put back) and is as it was on return. */
int pack_stream_model(out_file *out, Onnx__ModelProto *model, const wire_nodes *lazy);

#endif
