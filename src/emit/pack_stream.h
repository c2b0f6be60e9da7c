/* pack_stream.h: packing a model into an output file, linear in its size.
 */
#ifndef OSH_EMIT_PACK_STREAM_H
#define OSH_EMIT_PACK_STREAM_H

#include "core/model.h"
#include "io/output.h"
#include "onnx-ml.pb-c.h"

/* protobuf's limit for one message: 2 GiB - 1. */
#define PACK_MAX ((size_t)INT32_MAX)

/* What a loaded model still holds of its input: the main graph's nodes as bytes
 * (m->src.wire_nodes), and the file mapping its weights point into (m->src.map, when
 * it maps the file itself; else NULL). */
typedef struct pack_source {
	const wire_list *lazy;
	/* The main graph's IR nodes: wire node k is nodes[k]; one the index unpacked
	 * (proto set: a node with a subgraph or a tensor, which annotations may have
	 * changed) is packed from its message, the others are their bytes. */
	const node *nodes;
	size_t nnodes;
	const wire_list *lazy_inits; /* the main graph's initializers as bytes (m->src.wire_inits) */
	/* value_info entries of the main graph not yet messages (m->pending.value_info):
	 * packed after the graph's own entries, each a name and a type. */
	const vi_list *lazy_vi;
	/* The input file's bytes at their offsets: the file mapped, or a private copy
	 * of it (osh_model_load_mapped). Bytes that lie in it are copied from fd. */
	const uint8_t *map;
	size_t map_size;
	int fd;
	bool map_is_file; /* map maps fd: its pages may be given back once written */
} pack_source;

/* What pack_stream_model reads of m: its main graph's nodes and initializers as bytes
 * and the input file they lie in (write_model.c packs with it, write_ahead.c plans
 * with it). */
pack_source pack_stream_source(const osh_model *m);

/* Writes model, packed exactly as protobuf_c_message_pack would, to out; but when
 * src->lazy holds nodes and the main graph's node list is empty, the graph's nodes
 * are those bytes, written as they are; the same for initializers (lazy_inits). Bytes
 * that lie in src->map are copied from src->fd by the kernel, and the mapping's pages
 * read meanwhile (headers, bytes the kernel could not copy) are dropped from it once
 * written (the page cache keeps them). src may be NULL. Returns 0,
 * EFBIG (over PACK_MAX: nothing was written), or ENOMEM (out->err carries write
 * errors). The model is modified meanwhile (fields emptied and put back) and is as
 * it was on return. */
int pack_stream_model(out_file *out, Onnx__ModelProto *model, const pack_source *src);

/* Where pack_stream_model writes the content of the model's graph, when the graph
 * packs to graph_len bytes: after everything protobuf-c packs before it and the
 * graph field's key and length (model's own graph is not looked at). UINT64_MAX when
 * memory ran out. */
uint64_t pack_stream_graph_content_at(const Onnx__ModelProto *model, uint64_t graph_len);

/* The longest stretch of the input that pack_stream_model, given model and src as
 * they are now, writes among the main graph's initializers as it is (consecutive
 * initializers still bytes of the input, back to back there and in the output, in
 * the mapping, their keys and lengths encoded as the packer encodes them, each
 * written by a copy from src->fd): its offset in the input (src_off), where it
 * lands among the graph's content (graph_off: counted from the first byte after the
 * graph's key and length), its length, and `upto`, the graph's content up to the end
 * of its initializers. Nodes are sized as the packer sizes them, from their messages
 * where they have one; before a re-index, an edited list's node k that has none is
 * the IR node it was (wire_list.from). False (*out all 0) when there is none, when
 * it holds fewer than per_message bytes for each node and initializer that would
 * be sized from its message to place it (sizing them costs more than copying the
 * stretch saves), or when memory ran out. The model is modified meanwhile and is
 * as it was on return. */
typedef struct pack_stretch {
	uint64_t src_off, graph_off, len, upto;
} pack_stretch;
bool pack_stream_init_stretch(Onnx__ModelProto *model, const pack_source *src, uint64_t per_message,
			      pack_stretch *out);

#endif
