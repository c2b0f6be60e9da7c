/* loader.h: the stages of loading, in the order load.c runs them.
 *
 * read (load.c) → validate_model (validate.c: opsets, types, tensors, external data
 * references) → index_model (index.c: value tables, producers and consumers,
 * topological order, subgraphs and functions). Each stage reports what it finds as
 * diagnostics and only returns false when memory ran out: malformed-model for what
 * cannot be read or indexed as it is, an error of its own code (opset-error,
 * graph-error, function-error, type-error) for what ONNX Runtime refuses to load, a
 * not-in-spec warning for what only the spec forbids.
 */
#ifndef OSH_LOADER_LOADER_H
#define OSH_LOADER_LOADER_H

#include "core/model.h"
#include "onnx-ml.pb-c.h"

#define MAX_SUBGRAPH_DEPTH 32
/* Model-local functions: how many a model may define, and how deep calls from one
 * function to the next may go (a function calling itself, directly or not, is an
 * error at any depth). */
#define MAX_FUNCTIONS 4096
#define MAX_FUNCTION_DEPTH 32

/* Reports a malformed-model error and marks the model malformed. */
#define malformed(m, g, node, value, ...)                                                  \
	do {                                                                               \
		model_diag((m), OSH_ERROR, DIAG_MALFORMED_MODEL, (g), (node), (value), __VA_ARGS__); \
		(m)->malformed = true;                                                     \
	} while (0)

bool validate_model(osh_model *m);
/* Checks one tensor (an initializer or an attribute's value); `label` names it in
 * messages ("attribute 'value' of node 3"), NULL for "initializer 'NAME'", which is
 * then written only for a message (initializers are most tensors, nearly all fine). */
void validate_tensor(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
		     const char *label);
/* validate_tensor, but a finding about the data alone (its size against the dims, the
 * field that holds it) is written into why (cap bytes) and true returned, for the
 * caller to report once it knows whether anything reads the tensor: ONNX Runtime
 * drops an initializer nothing reads before it looks at its data. */
bool validate_tensor_data_later(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
				const char *label, char *why, size_t cap);
/* A sparse tensor's indices against its values and dims, as ONNX Runtime checks
 * them (its values and indices are checked as tensors first); `what` names it. */
void validate_sparse(osh_model *m, const graph *g, int32_t ni, const struct Onnx__SparseTensorProto *st,
		     const char *what);
/* The nodes of a model-local function's body g, and of its subgraphs: ONNX Runtime
 * makes the function a schema from them, called or not, at the function's own
 * opset_import, and refuses a node with more inputs or outputs than its operator has
 * parameters there. */
void validate_function_counts(osh_model *m, const graph *g);
/* Checks an external-data reference without reading the weights; `label` as above. */
void validate_external(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
		       const char *label);
/* How the messages above name t: `label`, or (NULL) "initializer 'NAME'" written into
 * buf, TENSOR_WHAT_CAP bytes (tensor_what.c). */
#define TENSOR_WHAT_CAP 300
const char *tensor_what(const char *label, const Onnx__TensorProto *t, char *buf);
/* Checks the type a graph declares for one of its values (an input, an output, a
 * value_info entry). */
void validate_value_info(osh_model *m, const graph *g, const Onnx__ValueInfoProto *vi);
/* Checks a TypeProto held by an attribute (data types, dims); `what` names it. */
void validate_type_proto(osh_model *m, const graph *g, const char *what, const Onnx__TypeProto *tp);
/* The newest version of the domain's operator set that any release defines ("" and
 * "ai.onnx": the schema's newest; com.microsoft and com.microsoft.nchwc: 1), 0 for a domain nobody
 * publishes (a custom one: any version goes). */
int64_t opset_newest_known(const char *domain);
bool index_model(osh_model *m);

/* Where the parts of a model file lie, as the loader finds them early in a load
 * (load_how.on_layout). Offsets are in bytes from the start of the file. */
typedef struct input_layout {
	int fd;              /* the file, open for reading while on_layout runs */
	uint64_t size;       /* its size */
	uint64_t graph_key;  /* the main graph's field: its key, */
	uint64_t graph_start, graph_end; /* and its content */
	/* The main graph's initializers, from the first one's key to the end of the last
	 * (nothing else between them), before the loader reads them. */
	uint64_t inits_start, inits_end;
	uint64_t elements;   /* the main graph's nodes and initializers */
} input_layout;

/* How loader_load_file reads a file. */
typedef struct load_how {
	/* The plain path (core/tuning.h): the model's osh_model.plain_io. */
	bool plain;
	/* Map the file rather than read it (api/devices.h, osh_model_load_mapped);
	 * on_map, when set, is told the mapping before anything reads it. Not on the
	 * plain path. */
	bool map_file;
	void (*on_map)(void *ctx, const void *addr, size_t size);
	void *map_ctx;
	/* Called once, on the loading thread, when a file of SPLIT_SCAN_MIN bytes or more
	 * holds its main graph's initializers in one stretch, each key and length in its
	 * shortest encoding: as soon as the loader knows where, before it reads them
	 * (emit/write_ahead.c copies them into the output meanwhile; tests change the
	 * file there). Never on the plain path. NULL: not called. */
	void (*on_layout)(void *ctx, const input_layout *layout);
	void *layout_ctx;
} load_how;

/* osh_model_load, done the way `how` says (NULL: fast, nobody told the layout):
 * api/model.c decides it for the public entry point. */
osh_status loader_load_file(osh_model **out, const char *path, const osh_load_options *opts, const load_how *how,
			    osh_error *err);

/* views.c: protobuf-free views for the passes. NULL / false when memory ran out. */
const tensor_view *view_tensor(osh_model *m, const Onnx__TensorProto *t);
/* The same, with everything it points to copied into the arena but for raw_data when
 * `raw_aliased` (it points into the input, which the model keeps): for a message
 * that is freed next. */
const tensor_view *view_tensor_copy(osh_model *m, const Onnx__TensorProto *t, bool raw_aliased);
/* Adds t to the summary's initializer counts and bytes. */
void tensor_stats_add(tensor_stats *s, const Onnx__TensorProto *t);
/* The same for a tensor of raw_len bytes of raw data, stored in the file itself. */
void tensor_stats_add_raw(tensor_stats *s, size_t raw_len);
tinfo view_type(osh_model *m, const Onnx__TypeProto *tp);
bool view_attrs(osh_model *m, node *n);
/* Which fields of an AttributeProto are set (counts for repeated ones): its type
 * when the file leaves it out (IR version 1 did), by the field that is set. */
typedef struct attr_presence {
	bool has_type;
	int64_t type;
	bool f, i, s, t, g, sparse, tp;
	size_t floats, ints, strings, tensors, graphs, sparses, tps;
} attr_presence;
attr_type attr_type_of(const attr_presence *p);
/* Whether the attribute's type field names one kind while a field of another holds a
 * value, or several fields hold values (ONNX's checker: "type field and data field
 * mismatch"): its view's graph_index is then ATTR_MIXED. Every attribute of a big
 * model passes here: bit t for each field set that holds a value of type t, and
 * anything but none or the type's own bit is a mismatch. An unknown type is
 * malformed, and reported as such. */
static inline bool attr_fields_mixed(const attr_presence *p)
{
	if (!p->has_type || p->type <= AT_UNDEFINED || p->type > AT_TYPE_PROTOS)
		return false;
	uint32_t set = (uint32_t)p->f << AT_FLOAT | (uint32_t)p->i << AT_INT | (uint32_t)p->s << AT_STRING |
		       (uint32_t)p->t << AT_TENSOR | (uint32_t)p->g << AT_GRAPH | (uint32_t)p->sparse << AT_SPARSE_TENSOR |
		       (uint32_t)p->tp << AT_TYPE_PROTO | (uint32_t)(p->floats != 0) << AT_FLOATS |
		       (uint32_t)(p->ints != 0) << AT_INTS | (uint32_t)(p->strings != 0) << AT_STRINGS |
		       (uint32_t)(p->tensors != 0) << AT_TENSORS | (uint32_t)(p->graphs != 0) << AT_GRAPHS |
		       (uint32_t)(p->sparses != 0) << AT_SPARSE_TENSORS | (uint32_t)(p->tps != 0) << AT_TYPE_PROTOS;
	return set && set != UINT32_C(1) << p->type;
}

/* The API's model functions, as the loader has them (src/api/model.c calls them):
 * osh_model_free, osh_model_load_buffer and osh_model_set_input_value (onnxshape.h). */
void model_free(osh_model *m);
osh_status loader_load_buffer(osh_model **out, const void *data, size_t size, const char *name,
			      const osh_load_options *opts, osh_error *err);
osh_status model_set_input_value(osh_model *m, const char *name, int index, const void *data, size_t size,
				 osh_error *err);

#endif
