/* unpack_split.h: unpacking a model without its main graph's nodes and initializers,
 * which stay wire bytes for the index (see unpack_split.c).
 */
#ifndef OSH_LOADER_UNPACK_SPLIT_H
#define OSH_LOADER_UNPACK_SPLIT_H

#include "core/model.h"
#include "loader/prescan.h"
#include "loader/wire.h"
#include "onnx-ml.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum split_result {
	SPLIT_OK,       /* *out is the model */
	SPLIT_NOT_USED, /* nothing to split, or an unusual layout: unpack in one call */
	SPLIT_NOMEM,    /* out of memory for scratch */
	SPLIT_FAILED,   /* protobuf-c refused the rest, or the arena ran out: see the arena */
} split_result;

/* The most memory unpack_split takes per node or initializer: its scratch spans
 * when the outline did not record them (three offsets each, the arrays up to twice
 * as long as needed while they grow) and what the model keeps of each (an offset
 * and a length). */
#define UNPACK_SPLIT_BYTES_PER_ELEMENT (2 * 3 * sizeof(uint32_t) + 2 * sizeof(uint32_t))

/* Unpacks the `size` pre-scanned bytes at `data` into `alloc`, but for the main
 * graph's nodes and initializers: on SPLIT_OK the graph has none (n_node and
 * n_initializer 0); *inits holds their extents in `data`, which must then live as
 * long as the model, and *nodes theirs, in `data` too or in a copy in the arena.
 * outline, when not NULL, is the outline pre-scan of the same bytes: the elements
 * it recorded are not looked for again, and the lists that point into `data` take
 * its arrays of offsets and lengths (given, and the list `owns` them), which the
 * outline's readers may go on reading. */
split_result unpack_split(const uint8_t *data, size_t size, prescan_outline_result *outline,
			  ProtobufCAllocator *alloc, Onnx__ModelProto **out, wire_list *nodes, wire_list *inits);

/* Empties w, freeing the arrays it owns. */
void wire_list_clear(wire_list *w);

#endif
