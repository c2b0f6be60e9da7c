/* prescan.h: a linear walk over protobuf wire bytes that decides whether protobuf-c
 * may unpack them, and how much memory unpacking will take. It allocates nothing,
 * but for the outline's record of where the main graph's elements are.
 *
 * protobuf-c trusts its input more than a tool that reads models from the internet
 * can: it recurses once per nested message (a deep enough file overflows the stack),
 * merges every repeated occurrence of a singular message field into the previous
 * ones (quadratic), keeps strings as C strings (a NUL byte cuts them, so writing the
 * model back loses data) and allocates for empty messages many times their encoded
 * size. The pre-scan reads the bytes once, driven by protobuf-c's own descriptors
 * (labels, types, nested descriptors: never a second copy of the schema), and
 * refuses all of that before protobuf-c sees the bytes, with the byte offset of the
 * first problem and the field path to it ("graph.node[12].attribute[0]").
 *
 * Invariant: when prescan_message returns OSH_OK, protobuf-c's unpack of the same
 * bytes with an allocator that rounds like the arena succeeds within
 * stats.unpack_bytes (scratch it frees included, since the arena never reuses
 * memory), and recurses at most PRESCAN_MAX_DEPTH levels.
 */
#ifndef OSH_LOADER_PRESCAN_H
#define OSH_LOADER_PRESCAN_H

#include "core/tuning.h" /* PRESCAN_PROGRESS_STEP */
#include "loader/wire.h"
#include "onnxshape.h"

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Messages nested deeper than this below the top one are refused: C++ protobuf's
 * default recursion limit, so a file onnxshape accepts is one onnx can read too. */
#define PRESCAN_MAX_DEPTH 100

/* What the pre-scan counted. */
typedef struct prescan_stats {
	uint64_t messages;     /* messages, the top one included */
	uint64_t repeated;     /* elements of repeated fields (packed ones one by one) */
	uint64_t strings;      /* string fields, repeated ones element by element */
	uint64_t copied_bytes; /* bytes of strings, bytes fields and unknown fields */
	uint32_t max_depth;    /* deepest message met; the top one is 0 */
	/* What protobuf-c's unpack asks its allocator for, each request rounded up to
	 * the arena's alignment: messages, repeated arrays, strings, bytes, unknown
	 * fields, and the scratch slabs it uses to scan large messages. */
	uint64_t unpack_bytes;
} prescan_stats;

/* Checks `size` bytes at `data` as one message of type `desc`. On OSH_OK fills
 * *stats. Otherwise fills err (when not NULL) with "NAME: not an ONNX model: ..."
 * naming the byte offset and the field path of the first problem: OSH_ERR_LIMIT
 * for nesting deeper than PRESCAN_MAX_DEPTH, OSH_ERR_DECODE for everything else.
 * Uses a fixed amount of stack and no heap. */
osh_status prescan_message(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t size,
			   const char *name, prescan_stats *stats, osh_error *err);

/* The same scan in two parts, so that a second thread can read the nodes and the
 * initializers of the main graph (most of a model's bytes) while the loader indexes
 * them (load.c). Together they accept exactly what prescan_message accepts, and
 * their counts add up to its counts; an error is only a verdict (prescan_message on
 * the same bytes says where and what, as the first error in file order may be in
 * either part). */
#define PRESCAN_NODE_FIELD 1 /* GraphProto.node */
#define PRESCAN_INIT_FIELD 5 /* GraphProto.initializer */

/* Where the main graph's nodes or initializers lie, in file order, as the outline
 * framed them: each one's key, and its content (offset and length). */
typedef struct prescan_spans {
	uint32_t *start, *off, *len; /* malloc'd; a file is under 2 GiB */
	size_t n, cap;
	/* Some element's key and length are not the shortest encoding, or bytes lie
	 * between two elements: they are not one stretch as a writer writes them. */
	bool loose;
	/* off and len were given to a wire_list (unpack_split): its owner frees them. */
	bool given;
} prescan_spans;

/* Where element k of l ends (its content's end). */
static inline size_t prescan_spans_end(const prescan_spans *l, size_t k) { return (size_t)l->off[k] + l->len[k]; }

/* Makes room in l for one more element: false when memory ran out. */
bool prescan_spans_grow(prescan_spans *l);

/* Appends an element to l: false when memory ran out. Inline: the outline appends
 * one per node and initializer of the main graph. */
static inline bool prescan_spans_add(prescan_spans *l, size_t start, size_t off, size_t end)
{
	if (l->n == l->cap && !prescan_spans_grow(l))
		return false;
	/* A one-byte key (fields 1 and 5) and the shortest varint of the length. */
	if (off - start != 1 + wire_varint_len(end - off) ||
	    (l->n && start != prescan_spans_end(l, l->n - 1)))
		l->loose = true;
	l->start[l->n] = (uint32_t)start, l->off[l->n] = (uint32_t)off, l->len[l->n] = (uint32_t)(end - off);
	l->n++;
	return true;
}
void prescan_spans_free(prescan_spans *l);

typedef struct prescan_outline_result {
	prescan_stats stats;
	size_t graph_key;              /* where the main graph's field starts (its key) */
	size_t graph_start, graph_end; /* the main graph's content; both 0 without one */
	uint64_t deferred;             /* nodes and initializers framed, not read */
	/* The nodes and the initializers; `spans` false when they were not all recorded
	 * (out of memory, or elements of under 32 bytes on average, whose spans would
	 * take a good part of the file's size: unpack_split walks those itself, under
	 * the memory budget). */
	prescan_spans nodes, inits;
	bool spans;
} prescan_outline_result;

/* Frees what *o holds (its spans). */
void prescan_outline_free(prescan_outline_result *o);

/* Scans `size` bytes as a ModelProto, but for the content of its graph's node and
 * initializer fields, whose framing (key, length) only is checked. Errors as
 * prescan_message. On OSH_OK, *out must be freed (prescan_outline_free). */
osh_status prescan_outline(const uint8_t *data, size_t size, const char *name, prescan_outline_result *out,
			   osh_error *err);

/* Told after every PRESCAN_PROGRESS_STEP elements of one kind (0: initializers, 1:
 * nodes), and at the end of each kind, how many of them passed; false stops the
 * scan. */
typedef bool (*prescan_progress_fn)(void *ctx, int kind, uint64_t done);

/* Scans what prescan_outline left: the initializers, then the nodes, each as at its
 * place in the model (same depth limit), found from the spans the outline recorded
 * or else by hopping over the graph's fields. On OSH_OK fills *stats with their counts.
 * OSH_ERR_DECODE or OSH_ERR_LIMIT when an element is refused (no message: see
 * above), OSH_ERR_DECODE also when `progress` stopped it. */
osh_status prescan_graph_elements(const uint8_t *data, size_t size, const prescan_outline_result *o,
				  prescan_stats *stats, prescan_progress_fn progress, void *ctx);

/* Adds the counts of `from` to `to` (the deepest of the two depths). */
void prescan_stats_add(prescan_stats *to, const prescan_stats *from);

#endif
