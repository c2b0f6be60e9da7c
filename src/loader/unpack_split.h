/* unpack_split.h: unpacking a model in pieces: its main graph's nodes are kept as
 * wire bytes for decode_node.c, and its initializers are unpacked one at a time so
 * that the input's pages are given back while the weights are copied out of them.
 */
#ifndef OSH_LOADER_UNPACK_SPLIT_H
#define OSH_LOADER_UNPACK_SPLIT_H

#include "core/model.h"
#include "onnx-ml.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The input: `size` pre-scanned bytes at `data`. When `releasable`, data is a private
 * mapping of ours whose pages unpack_split unmaps as it goes: on return everything
 * before `released` is unpacked and, apart from aliased weights, unmapped (whole
 * pages; the partial page at `released` is not). When `alias_ok`, the input lives as
 * long as the model, and big raw_data fields may point into it instead of being
 * copied; `aliased` then says whether any does (the caller must keep the input, or
 * for a mapping, the pages not unmapped). */
typedef struct split_input {
	uint8_t *data;
	size_t size;
	bool releasable;
	bool alias_ok;
	bool file_mapped; /* data maps the file itself (not a copy) */
	size_t released;
	bool aliased;
} split_input;

typedef enum split_result {
	SPLIT_OK,       /* *out is the model */
	SPLIT_NOT_USED, /* nothing to split, or an unusual layout: unpack in one call */
	SPLIT_NOMEM,    /* out of memory for the small copy (nothing released) */
	SPLIT_FAILED,   /* protobuf-c refused a piece, or the arena ran out: see the arena */
} split_result;

/* Unpacks the model into `alloc`, but for the main graph's nodes: on SPLIT_OK the
 * graph has none (n_node 0) and *nodes holds them. On SPLIT_NOT_USED and SPLIT_NOMEM
 * the input is untouched; after SPLIT_FAILED part of it may have been released. */
split_result unpack_split(split_input *in, ProtobufCAllocator *alloc, Onnx__ModelProto **out, wire_nodes *nodes);

#endif
