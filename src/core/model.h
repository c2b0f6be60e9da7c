/* model.h: onnxshape's own small IR, beside the protobuf-c messages.
 *
 * The loader builds it; passes read and annotate it; emit patches the messages back.
 * Every graph (the main graph, each If/Loop/Scan body, each model-local function body)
 * has a value table: values are small integer ids, names are looked up once through a
 * hash map. A node holds value ids for its inputs and outputs, a pointer to its
 * NodeProto, and the opset version it resolves to. `order` is a topological order of
 * the nodes, valid even when the file's order was not (the loader reports that).
 *
 * Only src/loader and src/emit include the generated protobuf-c header; everyone else
 * sees the message types as opaque structs.
 */
#ifndef OSH_CORE_MODEL_H
#define OSH_CORE_MODEL_H

#include "core/arena.h"
#include "core/codes.h"
#include "core/shape.h"
#include "core/strmap.h"
#include "core/symbols.h"
#include "core/tinfo.h"
#include "onnxshape.h"

#include <string.h>

struct Onnx__ModelProto;
struct Onnx__GraphProto;
struct Onnx__NodeProto;
struct Onnx__TensorProto;
struct Onnx__ValueInfoProto;
struct Onnx__FunctionProto;
struct ProtobufCMessage;

typedef enum value_origin {
	VAL_UNDEFINED = 0, /* used but produced by nothing: a loader error */
	VAL_INPUT,         /* graph input (possibly with an initializer as default) */
	VAL_INITIALIZER,   /* initializer that is not a graph input */
	VAL_NODE,          /* output of a node of this graph */
	VAL_OUTER,         /* defined in an enclosing graph (outer scope) */
} value_origin;

typedef struct graph graph;

/* One entry of a STRING tensor's string_data: bytes, not NUL-terminated. Laid out as
 * protobuf-c's ProtobufCBinaryData (views.c checks), so a view points at the message's
 * array without a copy. */
typedef struct tensor_bytes {
	size_t len;
	const uint8_t *data;
} tensor_bytes;

/* A tensor held by an initializer or an attribute, decoded enough to read small ones
 * without protobuf-c: pointers into the unpacked message. */
typedef struct tensor_view {
	const char *name;
	int32_t dtype;
	int32_t rank;
	const int64_t *dims;
	int64_t count;        /* element count (validated: no overflow, no negative dim) */
	bool external;        /* the data is in another file and was not read */
	bool valid;           /* the loader found nothing wrong with it */
	const uint8_t *raw;   /* raw_data, little-endian, when present */
	size_t raw_len;
	/* Without raw_data: the typed field the dtype uses (one per initializer of
	 * models with hundreds of thousands: one pointer, not five). */
	union {
		const float *f32;     /* float_data (FLOAT, COMPLEX64) */
		const int32_t *i32;   /* int32_data (INT32 and the narrower types) */
		const int64_t *i64;   /* int64_data */
		const double *f64;    /* double_data */
		const uint64_t *u64;  /* uint64_data (UINT32, UINT64) */
		const tensor_bytes *str; /* string_data (STRING) */
		const void *typed;
	};
	size_t ntyped;        /* entries in the typed field */
} tensor_view;

/* Attribute types, numbered as onnx.AttributeProto.AttributeType. */
typedef enum attr_type {
	AT_UNDEFINED = 0, AT_FLOAT = 1, AT_INT = 2, AT_STRING = 3, AT_TENSOR = 4, AT_GRAPH = 5,
	AT_FLOATS = 6, AT_INTS = 7, AT_STRINGS = 8, AT_TENSORS = 9, AT_GRAPHS = 10,
	AT_SPARSE_TENSOR = 11, AT_SPARSE_TENSORS = 12, AT_TYPE_PROTO = 13, AT_TYPE_PROTOS = 14,
} attr_type;

/* The IR structs below exist once per attribute, value and node of models with
 * millions of them: pointers first, then the 32-bit fields, so there is no padding. */
/* decode_node.c's fill_attr sets every field of a new view, one by one: a field
 * added here must be set there too. */
typedef struct attr_view {
	const char *name;
	const char *ref;        /* ref_attr_name inside a function body, else NULL */
	/* The payload of `type`, and only that one: the pointers share storage (an
	 * attribute has one type), so a member is meaningful only after checking type
	 * and writing one member overwrites the others. */
	union {
		const char *s;          /* AT_STRING: NUL-terminated copy */
		const int64_t *ints;    /* AT_INTS */
		const float *floats;    /* AT_FLOATS */
		const char **strings;   /* AT_STRINGS, NUL-terminated copies */
		const tensor_view *t;   /* AT_TENSOR */
		const tensor_view *ts;  /* AT_TENSORS: n entries */
		const tinfo *tp;        /* AT_TYPE_PROTO (never NULL for that type) */
	};
	int64_t i;
	attr_type type;
	float f;
	int32_t n;              /* entries of ints / floats / strings / tensors / graphs */
	int32_t graph_index;    /* AT_GRAPH / AT_GRAPHS: first index into node.subgraphs */
} attr_view;

/* graph_index of an attribute (not a graph) whose file leaves its type out: its type
 * is then read from the field that is set, and ONNX Runtime refuses the model
 * (passes/check_schema.c says so). A field of its own would cost 8 bytes an
 * attribute. */
#define ATTR_UNTYPED (-1)
/* graph_index of an attribute (not a graph) whose type names one kind while a field
 * of another kind holds a value, or that holds values in several fields: ONNX
 * Runtime refuses it ("type field and data field mismatch"), but a Constant of the
 * main graph, which it never checks (passes/check_schema.c). */
#define ATTR_MIXED (-2)

/* One exists per attribute of every node (millions in a large model): the union
 * keeps it at 48 bytes (with 64-bit pointers), half of what a field per kind takes.
 * A field added here costs that much memory again per attribute; this makes the
 * cost a decision, not an accident. */
_Static_assert(sizeof(void *) != 8 || sizeof(attr_view) == 48,
	       "attr_view grew: it exists once per attribute of every node");

/* What few values have, kept out of `value` (a 1M-node model has millions of values
 * and most of them need none of this): allocated from the model's arena on first need
 * (value_extra_need), shared by the copies arena_grow makes of the value table. */
typedef struct value_extra {
	struct Onnx__TensorProto *init;    /* initializer message, when there is one (the main
					    * graph's stay in the input until their messages are built) */
	struct Onnx__ValueInfoProto *decl; /* declared type: input, output or value_info */
	const tensor_view *given;          /* a value supplied for inference (--input-data) */
	/* From decl: what the file says; NULL when it says nothing. See value_declared. */
	const tinfo *declared;
	graph *outer;                      /* VAL_OUTER: the graph where the name is defined */
	int32_t outer_id;                  /* VAL_OUTER: its id in outer, else -1 */
	/* A graph input whose shape osh_infer_options.input_shapes replaced (declared
	 * is then the override): the writer declares the input so, or the model
	 * written would contradict its own value_info. */
	bool input_override;
	/* The value depends on such an input: its declaration, written for the old
	 * shape, was set aside by the last inference, and the writer does not keep it
	 * where inference found nothing. */
	bool declared_stale;
} value_extra;

/* index.c's value_new sets every field of a new row, one by one: a field added here
 * must be set there too. */
typedef struct value {
	const char *name;
	int32_t *consumers;   /* node indices, in node order, a node once per use */
	const tensor_view *init_view; /* decoded initializer: most values of CNNs have one */
	value_extra *x;       /* NULL for most values: read through value_init() etc. */
	tinfo ti;             /* what inference knows */
	int32_t producer;     /* node index for VAL_NODE, else -1 */
	int32_t producer_out; /* which output of the producer */
	/* consumers holds room for a power of two of them, at least 2 (index.c,
	 * add_consumer): the capacity follows from the count. */
	int32_t nconsumers;
	uint8_t origin;       /* value_origin */
	bool is_output;
} value;

/* The value table is the largest single allocation of a big model (2.7M values for
 * a 1M-node CNN): each byte here is 2.7 MB there. A field that most values
 * leave empty belongs in value_extra. */
_Static_assert(sizeof(void *) != 8 || sizeof(value) <= 96, "value grew: move rarely used fields to value_extra");

typedef struct node {
	struct Onnx__NodeProto *proto;
	const char *name;    /* "" when unnamed */
	const char *op_type;
	const char *domain;  /* "" for ai.onnx ("ai.onnx" is normalised to "") */
	int32_t *inputs;     /* value ids; -1 for an omitted optional input ("") */
	int32_t *outputs;
	attr_view *attrs;    /* nattrs entries; NULL when nattrs is 0 */
	graph **subgraphs;   /* bodies held in attributes, in attribute order (each one's
			      * path ends in its attribute's name) */
	int64_t opset;       /* the imported version of its domain, -1 when not imported */
	int32_t ninputs;
	int32_t noutputs;
	int32_t nattrs;
	int32_t nsubgraphs;
} node;

/* One per node (a million in a big model): 88 bytes, 8 less since the subgraphs'
 * attribute names, which their paths hold, went. */
_Static_assert(sizeof(void *) != 8 || sizeof(node) <= 88, "node grew: it exists once per node of every graph");

struct graph {
	struct Onnx__GraphProto *proto; /* NULL for a function body */
	struct Onnx__FunctionProto *function;
	const char *path;     /* "" for the main graph; "If_3/then_branch"; "function domain.Name" */
	graph *parent;        /* enclosing graph for subgraphs, NULL otherwise */
	int32_t parent_node;  /* node of the parent that holds it */
	int32_t depth;        /* subgraph nesting depth; the main graph is 0 */
	value *values;
	int32_t nvalues, cap_values;
	int32_t nproduced;    /* values of origin VAL_NODE */
	int32_t first_produced; /* the first of them: define_nodes appends them all, in a row */
	strmap names;         /* value name → id */
	/* The names of its nodes → the first node of each (loader/index.c's check of
	 * node names), but for the Constants ONNX Runtime makes initializers (of a
	 * graph that is no function body): the editor's fresh names avoid them. NULL
	 * when no such node is named; valid once node_names_checked. */
	const strmap *node_names;
	bool node_names_checked;
	node *nodes;
	int32_t nnodes;
	int32_t *order;       /* topological order of node indices */
	/* A node uses a value that it or a later node produces (index.c notes it as it
	 * adds consumers): the file order is not a topological one. */
	bool backward;
	/* A model-local function's body that a graph of the model calls, directly or
	 * through other functions: ONNX Runtime inlines it and checks it then (loader/
	 * index.c). An uncalled one only has a schema made of its signature. */
	bool called;
	/* A function body whose FunctionProto gives its attributes defaults
	 * (attribute_proto, field 11, which an older onnx.proto keeps as an unknown
	 * field): a reference the call leaves unbound may take one. */
	bool attr_defaults;
	/* The index dropped a reference (ref_attr_name) of one of its nodes' attributes
	 * outside a function body, with a warning: those views are not what the bytes
	 * decode to, so a re-index decodes the nodes again (loader/index.c). */
	bool refs_dropped;
	int32_t *inputs, ninputs;   /* value ids of the graph inputs, in order */
	int32_t *outputs, noutputs; /* value ids of the graph outputs, in order */
	/* The main graph a re-index built while osh_model.before holds the IR it
	 * replaced: per node, the node there it was decoded from (the same bytes), or
	 * -1; NULL otherwise. */
	int32_t *before_node;
};

/* Messages still in wire bytes: message k is bytes[off[k], off[k] + len[k]). */
typedef struct wire_list {
	const uint8_t *bytes;
	const uint32_t *off, *len;
	size_t n;
	/* The messages are fields of one number, each right before the next with its key
	 * and length in the shortest encoding: one stretch of bytes, as a writer of those
	 * fields writes them (emit/pack_stream.c copies it without looking). */
	bool tight;
	/* Every element that is still bytes has its key and length right before it, in
	 * the shortest encoding: true of a tight list and of every list an edit makes
	 * of one (it moves, drops and adds elements, but not their bytes), so that
	 * the writer needs no look at the input to know it (emit/pack_stream.c). */
	bool shortest_heads;
	/* off and len are the pre-scan's own arrays (malloc'd), freed with the model:
	 * a copy in the arena was a megabyte of fresh memory at 100k nodes. */
	bool owns;
	/* Element k's message where an edit made it or changed it (emit/edit.c: a
	 * NodeProto or TensorProto, by its base), its off and len then unused; NULL
	 * where it is still the bytes, and msg NULL when none is. An edited list is the
	 * graph's elements in their new order: the index reads a message as it reads
	 * one of a graph of messages, the writer packs it and copies the rest. */
	struct ProtobufCMessage **msg;
	/* After an edit reordered the list (emit/edit.c), the IR index of the node
	 * element k was, -1 for a new one; NULL: element k was node k. Only until the
	 * re-index (loader/reindex.c), which reads it to reuse what the old IR decoded. */
	int32_t *from;
	/* An initializer list: element k's view as the last index built it from the
	 * element's bytes, where building it again would give the same (a tensor of
	 * dims, type, name, raw data and doc string only; loader/index.c); NULL for
	 * the others, and the array NULL until an index has gone through the list.
	 * The re-index and the edits read names and views here, not in the input, whose
	 * pages lie a weight apart. In the arena; moved with the elements by the edits. */
	const tensor_view **view;
} wire_list;

/* value_info entries to add to a graph, each a name and a type and nothing else. */
typedef struct vi_list {
	const char **names;
	struct Onnx__TypeProto **types;
	size_t n;
} vi_list;

/* Initializer counts and bytes for the summary (loader/views.c: tensor_stats_add). */
typedef struct tensor_stats {
	size_t n, n_external;
	uint64_t inline_bytes, external_bytes;
} tensor_stats;

typedef struct opset_entry {
	const char *domain;
	int64_t version;
} opset_entry;

/* Work a pass left to run beside the next write (the lint osh_infer deferred): the
 * writer starts it before it packs the model and joins it after, knowing nothing of
 * what it does (passes/pipeline.c sets it). Until the join the writer touches neither
 * the model's arena, nor its symbols, values' types or diagnostics. */
typedef struct beside_write {
	void *(*start)(osh_model *m);             /* a handle; NULL: nothing ran */
	bool (*join)(osh_model *m, void *handle); /* false: it ran out of memory */
	/* Or all of it now, on the caller's thread (a write to memory has nothing to
	 * overlap it with); err says why it could not. */
	osh_status (*run)(osh_model *m, osh_error *err);
} beside_write;

/* A write begun while the model loaded (osh_load_options.write_to: emit/
 * write_ahead.c), until osh_model_write takes it or osh_model_free cancels it: the
 * loader frees a model without knowing what the job is. */
typedef struct pending_write {
	void *job;                 /* NULL: none */
	void (*cancel)(void *job); /* ends it: no temporary file is left */
} pending_write;

/* The source input: where the model came from, and what of it is still wire bytes
 * read where they lie. The loader fills it (load.c; index.c counts the initializers,
 * views.c and external.c note external data); the writer reads it, to copy bytes
 * rather than pack them and to refuse a source that changed since it was loaded.
 * The wire lists are emptied when their messages are built (loader/build_messages.c);
 * the scan job ends with the load; the input stays until osh_model_free closes it
 * (io/input.h: its descriptor, and its view if the model kept it). */
typedef struct model_source {
	/* The file's input (io/input.h), which owns the descriptor and the view; NULL
	 * when loaded from memory. */
	struct input *input;
	/* The input bytes, kept for an unchanged model to be written back byte for byte
	 * without holding them in memory: a file descriptor of the source (the input's,
	 * borrowed), or a copy when loaded from memory. */
	int fd;
	const uint8_t *copy;
	/* The input's bytes at their offsets in the file (the input's view: the file
	 * mapped, osh_model_load_mapped, or a private copy of it). Kept while the
	 * main graph's nodes and initializers are read from it (wire_nodes, wire_inits)
	 * and weights point into it; a mapping's pages are given back as the index
	 * passes them (they come back from the page cache when read again). */
	const uint8_t *map;
	size_t map_size;
	bool map_is_file;       /* map maps the file: its pages can be dropped */
	bool viewed_external;   /* a view of a tensor in external data was made */
	/* While loading, the second thread that pre-scans the main graph's initializers
	 * and nodes as the index reads them (loader/scan_job.h); NULL when none runs. */
	struct scan_job *scan;
	uint64_t size;
	bool has_stat; /* the source's identity, to refuse writing over it by accident */
	uint64_t dev, ino;
	int64_t mtime_sec, mtime_nsec;
	/* The main graph's nodes as the file has them (loader/unpack_split.c), in the
	 * input like wire_inits: while wire_nodes.n > 0 the GraphProto holds no
	 * NodeProto and the main graph's node k is wire node k; a node decode_node.c
	 * read has proto NULL. An edit keeps it, with messages only for the nodes it
	 * changed or made (wire_list.msg, emit/edit.c); emptied when every message is
	 * built for a packing into memory or the plain write (loader/build_messages.c). */
	wire_list wire_nodes;
	/* The same for the main graph's initializers: TensorProtos in the input
	 * (map, or copy), which stays until the model is freed. While wire_inits.n > 0
	 * the GraphProto holds no initializer; their values have an init_view and no
	 * init. Built by the same calls as the nodes. */
	wire_list wire_inits;
	tensor_stats wire_init_stats; /* what osh_model_summary reports of them */
	/* While model_reindex runs: the main graph it replaces, whose nodes decoded from
	 * bytes the index takes as they were for the elements of wire_nodes still those
	 * bytes (a node's IR is what its bytes decode to); NULL otherwise. */
	const struct graph *reindex_from;
	/* The external data files checked so far (loader/external.h), NULL before the
	 * first: models point thousands of tensors at a few files, each checked once. */
	struct ext_cache *ext_files;
} model_source;

/* Pending work: what a stage left for a later one to finish. passes/pipeline.c fills
 * in the lint osh_infer deferred (with how to run it beside a write) and the
 * debugging asked of the stages; emit/annotate.c the value_info entries;
 * emit/write_ahead.c the write begun while loading. What finishes each empties it:
 * pipeline_lint, or the join after a write, the lint; loader/build_messages.c the value_info
 * entries (a streamed write packs them and leaves them); osh_model_write the write
 * begun (osh_model_free cancels one never taken). The next osh_infer replaces the
 * debugging. */
typedef struct model_pending {
	/* The value_info entries osh_annotate added to the main graph, while the
	 * GraphProto does not hold them yet: as names and types they take a fraction of
	 * what ValueInfoProto messages and their pointers would. The
	 * writer packs them after the graph's own entries (emit/pack_stream.c);
	 * loader/build_messages.c makes them messages when messages are needed. */
	vi_list value_info;
	/* The lint inference left for later (osh_infer_lint_later), or NULL:
	 * passes/pipeline.c. */
	struct lint_later *lint;
	/* How to run it beside a write, or NULL. */
	const beside_write *beside;
	/* What the last osh_infer was asked to do between stages for debugging (the
	 * IR checker, a dump), for the stages osh_lint and osh_annotate run after it;
	 * NULL when nothing (passes/pipeline.c). */
	struct stage_debug *debug;
	pending_write write;
} model_pending;

/* One per model: the IR and what the passes make of it, beside the source it was
 * read from and the work still pending (each its own struct, above). */
struct osh_model {
	arena *arena;
	uint64_t budget;  /* the arena's memory budget */
	/* Loaded the plain way, and so written (core/tuning.h, plain_io_chosen): no
	 * thread beside the caller's, nothing mapped, every message unpacked and packed
	 * by protobuf-c. Decided once, when the load starts. */
	bool plain_io;
	const char *path; /* as given */
	const char *dir;  /* directory of the model, for external data */
	struct Onnx__ModelProto *proto;
	model_source src;
	opset_entry *opsets;
	int32_t nopsets;
	strmap opset_index; /* domain → index into opsets */
	strmap functions;   /* model-local functions by function_key (loader/index.c) */
	strmap function_domains; /* the domains of those functions (a call to a name none has) */
	/* Domains nodes use that opset_import leaves out, and that ONNX Runtime fills in
	 * itself → the version they resolve at (loader/index.c; reported once each). */
	strmap implied_opsets;
	graph **function_graphs; /* the body of proto->functions[i], NULL if not indexed */
	symtab syms;      /* every dim_param of the model, interned by the loader */
	strmap interned;  /* op types, domains and attribute names of decoded nodes */
	graph *main;
	graph **graphs; /* every graph: main, subgraphs, function bodies */
	int32_t ngraphs, cap_graphs;
	osh_diag *diags;
	size_t ndiags, cap_diags;
	bool has_errors;
	bool malformed;
	bool modified; /* a pass changed the messages */
	bool nomem;    /* an allocation failed during indexing or a pass */
	bool inferred; /* the inference pass has run: values' ti are meaningful */
	bool inferred_plain; /* and its last run had the default options */
	/* What the inference before the last re-index found, for the first one after it
	 * (passes/infer/infer.c): the main graph it inferred and, per node of it, whether
	 * a diagnostic names the node. Kept by model_reindex when that inference ran with
	 * the default options, as every inference after an edit does; main NULL otherwise
	 * and once that inference ran. */
	struct {
		const graph *main;
		const uint8_t *noisy;
	} before;
	size_t carried; /* how many nodes that inference took from it */
	bool ignore_declared; /* inference ran without the file's output/value_info types */
	model_pending pending;
	osh_summary *summary;
};

/* Node n's attribute `name` as the node writes it (a ref_attr_name inside a function
 * body is the caller's to answer: passes/rule_api/rule_api.h's attr), or NULL. The one
 * look-up of attributes by name; the first letters tell most names apart without a
 * call (rules ask for several attributes each, of nodes with several). */
static inline const attr_view *node_attr(const node *n, const char *name)
{
	for (int32_t i = 0; i < n->nattrs; i++) {
		const attr_view *a = &n->attrs[i];
		if (a->name[0] == name[0] && !strcmp(a->name, name))
			return a;
	}
	return NULL;
}

/* Its INT value, or def when it is absent or of another type. */
static inline int64_t node_attr_i(const node *n, const char *name, int64_t def)
{
	const attr_view *a = node_attr(n, name);
	return a && a->type == AT_INT ? a->i : def;
}

/* Readers of value_extra: NULL (outer_id -1) when v has no extra block. */
static inline struct Onnx__TensorProto *value_init(const value *v) { return v->x ? v->x->init : NULL; }
static inline struct Onnx__ValueInfoProto *value_decl(const value *v) { return v->x ? v->x->decl : NULL; }
static inline const tensor_view *value_given(const value *v) { return v->x ? v->x->given : NULL; }
static inline graph *value_outer(const value *v) { return v->x ? v->x->outer : NULL; }
static inline int32_t value_outer_id(const value *v) { return v->x ? v->x->outer_id : -1; }

/* What the file declares for v: kind TK_UNKNOWN when nothing. */
static inline tinfo value_declared(const value *v)
{
	return v->x && v->x->declared ? *v->x->declared : tinfo_unknown();
}

/* An empty extra block from a (outer_id -1), or NULL when memory ran out. */
static inline value_extra *value_extra_new(arena *a)
{
	value_extra *x = arena_zalloc(a, sizeof *x);
	if (x)
		x->outer_id = -1;
	return x;
}

/* v's extra block, allocated from a (the arena of v's model) on first need so that
 * the caller can set its fields. Returns NULL when memory ran out: the caller reports
 * it as it does any other arena failure. */
static inline value_extra *value_extra_need(arena *a, value *v)
{
	if (!v->x)
		v->x = value_extra_new(a);
	return v->x;
}

/* Adds a diagnostic; all strings are copied into the arena. node may be NULL. On
 * memory exhaustion marks m->nomem and drops the diagnostic. */
void model_diag(osh_model *m, osh_severity sev, diag_code code, const graph *g, int32_t node_index,
		const char *val, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;

/* The version of `domain` the model imports, or -1. "" and "ai.onnx" are the same. */
int64_t model_opset(const osh_model *m, const char *domain);

/* The body of the model-local function (domain, name) a node calls, or NULL. */
graph *model_function(const osh_model *m, const char *domain, const char *name);

/* Looks a name up in g and, failing that, in its enclosing graphs. Returns the id in
 * g (creating a VAL_OUTER entry for an outer-scope name) or -1. */
int32_t graph_lookup(graph *g, const char *name);

/* The diagnostic codes (codes.c), for src/api/codes.c and the passes: the table,
 * one code's row (NULL when unknown), and severities overridden on a model, as
 * osh_rules, osh_rule_find and osh_model_override_severities (onnxshape.h). */
const osh_rule *codes_table(size_t *n);
const osh_rule *code_find(const char *code);
osh_status codes_override_severities(osh_model *m, const osh_severity_override *o, size_t n, osh_error *err);

#endif
