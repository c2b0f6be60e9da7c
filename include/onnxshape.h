/* onnxshape.h: the public API of libonnxshape.
 *
 * Load an ONNX model, look at what the loader found, summarise it, write it back.
 * Conventions:
 *  - Functions that can fail return an osh_status and fill an optional osh_error with
 *    a one-line message naming the file and the problem. OSH_OK is 0.
 *  - NULL: each function says which of its pointers may be NULL ("NULL:" in its
 *    comment). One that returns an osh_status refuses any other NULL, and every
 *    argument outside what its comment allows (a negative rank or size, a count
 *    without its array), with OSH_ERR_INVALID, changing nothing; one that returns a
 *    value answers a NULL model with NULL, 0 or false. err may be NULL everywhere.
 *  - Findings about the model (a cycle, a bad dim, a broadcast mismatch) are not
 *    failures: they are diagnostics attached to the model, in graph order.
 *  - Every pointer handed out (strings, arrays, diagnostics) is owned by the model and
 *    stays valid until osh_model_free. The library never prints and never exits.
 *  - No global state: separate models may be used from separate threads. The library
 *    starts threads of its own: osh_model_load pre-scans a file of 1 MB or more in a
 *    second thread, joined before it returns, and a model keeps a thread that faults
 *    its arena's memory in ahead of use until osh_model_free.
 *  - Every options struct starts with its version (libgit2's convention): initialise
 *    one with its _INIT macro (osh_load_options lo = OSH_LOAD_OPTIONS_INIT;) or its
 *    _init function (C++ before C++20, whose initialisers cannot name a field), then
 *    set the fields wanted. The other fields' defaults are 0, false and NULL. A version this library does not know, 0 included, is refused
 *    (OSH_ERR_INVALID, naming the struct and the version); a NULL options pointer
 *    means the defaults.
 *  - ONNXSHAPE_PLAIN_IO=1 in the environment (read by each load; =0 for the opposite
 *    of a library built with -DONNXSHAPE_PLAIN_IO=ON), or osh_load_options.io set to
 *    OSH_IO_PLAIN, loads and writes a model the plain way: no thread but the
 *    caller's, no mapping, protobuf-c unpacking and packing every message. Same
 *    results and the same bytes written, more time and memory: the reference the
 *    fast paths are tested against.
 */
#ifndef ONNXSHAPE_H
#define ONNXSHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define OSH_API
#elif defined(__GNUC__)
#define OSH_API __attribute__((visibility("default")))
#else
#define OSH_API
#endif

#define OSH_VERSION "0.1.0"

/* Returns OSH_VERSION of the library actually linked. No pointers. */
OSH_API const char *osh_version(void);

typedef enum osh_status {
	OSH_OK = 0,
	OSH_ERR_IO,       /* the file could not be opened, read or written */
	OSH_ERR_DECODE,   /* not a valid ModelProto (truncated, corrupt) */
	OSH_ERR_LIMIT,    /* over a size or memory limit */
	OSH_ERR_NOMEM,    /* out of memory */
	OSH_ERR_INVALID,  /* the model is malformed (diagnostics say how) */
	OSH_ERR_SAME_FILE, /* the output is the input and in_place was not set */
	OSH_ERR_CHANGED,  /* the model's file changed on disk since it was loaded: nothing written */
	OSH_ERR_FINDINGS  /* nothing written: the lint left for the write found an error (diagnostics) */
} osh_status;

typedef struct osh_error {
	osh_status status;
	char message[1024];
} osh_error;

typedef enum osh_severity { OSH_NOTE = 0, OSH_WARNING, OSH_ERROR } osh_severity;

/* One finding. `code` is a stable rule name ("malformed-model", ...). */
typedef struct osh_diag {
	osh_severity severity;
	const char *code;
	const char *graph;     /* "" for the main graph, else a path such as "If_3/then_branch" */
	int64_t node_index;    /* index in its graph's node list, or -1 */
	const char *node_name; /* "" when the node has no name or there is no node */
	const char *op_type;   /* "" when there is no node */
	const char *value;     /* the value concerned, or "" */
	const char *message;   /* one line, no trailing newline */
	/* The node's inputs as inference left them (in input order; an omitted optional
	 * input has name "" and type kind ""), for reports that show the shapes involved.
	 * Filled by osh_infer; 0 and NULL for diagnostics without a node, and before
	 * inference. */
	size_t n_inputs;
	const struct osh_value_summary *inputs;
} osh_diag;

typedef struct osh_model osh_model;

#define OSH_LOAD_OPTIONS_VERSION 1

/* How a model is read and written (osh_load_options.io). */
typedef enum osh_io { OSH_IO_DEFAULT = 0, OSH_IO_PLAIN, OSH_IO_FAST } osh_io;

typedef struct osh_load_options {
	unsigned int version; /* OSH_LOAD_OPTIONS_VERSION */
	/* Most bytes the model's arena may use for loading, inference and writing; 0
	 * chooses a budget from the file size. osh_rewrite raises it for its edits, the
	 * second index and the second inference: at each of its stages, by the bytes then
	 * in use and 4 KiB per node the stage inserts. */
	uint64_t memory_budget;
	/* How the model is read and written: OSH_IO_DEFAULT as the build and the
	 * environment say (ONNXSHAPE_PLAIN_IO, read by this load: above), OSH_IO_PLAIN
	 * the plain way, OSH_IO_FAST the fast way whatever they say. The model keeps
	 * the choice for everything done with it. */
	osh_io io;
	/* The path the model will be written to (osh_model_write with this same
	 * string, as `onnxshape infer -o PATH` does), when the caller knows it at the
	 * load. The library may prepare that write meanwhile: on the fast path, for a
	 * file of 1 MB or more of nodes and weights, its weights are copied into a
	 * temporary file beside PATH while the model loads and is inferred, and the
	 * write skips the bytes already in place. The write's result is the same,
	 * refusals included; a model freed without it, or a failed load, leaves no
	 * temporary file. NULL: not known. */
	const char *write_to;
} osh_load_options;

#define OSH_LOAD_OPTIONS_INIT {.version = OSH_LOAD_OPTIONS_VERSION}

/* Fills *opts with the defaults of that version of the struct: OSH_OK, or
 * OSH_ERR_INVALID (nothing changed) for a version this library does not know.
 * NULL: none (OSH_ERR_INVALID). */
OSH_API osh_status osh_load_options_init(osh_load_options *opts, unsigned int version);

/* Loads and validates `path`. On OSH_OK *out owns a model whose diagnostics list the
 * structural problems found (osh_model_has_errors tells whether any is an error). On
 * failure *out is NULL and err says why. The file is read into memory the model
 * owns, so that another process shrinking or rewriting it meanwhile changes nothing
 * read (a shrink during the read is the error "the input changed while it was
 * read"; a change after it is refused when the model is written back). NULL: opts, err (out and path may not). */
OSH_API osh_status osh_model_load(osh_model **out, const char *path, const osh_load_options *opts,
				  osh_error *err);
/* The same from bytes in memory (copied as needed); `name` is used in messages and as
 * the base for external data (its directory). NULL: data when size is 0, name
 * ("<memory>"), opts, err. */
OSH_API osh_status osh_model_load_buffer(osh_model **out, const void *data, size_t size,
					 const char *name, const osh_load_options *opts,
					 osh_error *err);
/* Frees the model and everything it handed out. NULL: m (nothing to do). */
OSH_API void osh_model_free(osh_model *m);

/* The model's path (or osh_model_load_buffer's name). NULL: m (returns NULL). */
OSH_API const char *osh_model_path(const osh_model *m);
/* NULL: m (no diagnostics: 0). */
OSH_API size_t osh_model_diag_count(const osh_model *m);
/* Diagnostic i, or NULL when i is not below the count. NULL: m (returns NULL). */
OSH_API const osh_diag *osh_model_diag_at(const osh_model *m, size_t i);
/* True when a diagnostic of severity OSH_ERROR is present. NULL: m (false). */
OSH_API bool osh_model_has_errors(const osh_model *m);
/* True when the loader found the model malformed (a malformed-model error). NULL: m
 * (false). */
OSH_API bool osh_model_is_malformed(const osh_model *m);

/* ---- Summary ------------------------------------------------------------------ */

typedef enum osh_dim_kind { OSH_DIM_UNKNOWN = 0, OSH_DIM_VALUE, OSH_DIM_SYMBOL } osh_dim_kind;

typedef struct osh_dim {
	osh_dim_kind kind;
	int64_t value;      /* OSH_DIM_VALUE */
	const char *symbol; /* OSH_DIM_SYMBOL */
} osh_dim;

typedef struct osh_type {
	const char *kind;  /* "tensor", "sparse_tensor", "sequence", "map", "optional", or "" (none) */
	int32_t elem_type; /* onnx.TensorProto.DataType of the (innermost) tensor; 0 unknown */
	int32_t rank;      /* -1 when the rank is unknown */
	const osh_dim *dims;
} osh_type;

typedef struct osh_value_summary {
	const char *name;
	osh_type type;
} osh_value_summary;

typedef struct osh_opset {
	const char *domain; /* "" is ai.onnx */
	int64_t version;
} osh_opset;

typedef struct osh_op_count {
	const char *domain;
	const char *op_type;
	size_t count;
} osh_op_count;

typedef struct osh_summary {
	int64_t ir_version;
	const char *producer_name, *producer_version, *domain, *graph_name;
	int64_t model_version;
	size_t n_opsets;
	const osh_opset *opsets;
	size_t n_inputs; /* graph inputs that are not initializers */
	const osh_value_summary *inputs;
	size_t n_outputs;
	const osh_value_summary *outputs;
	size_t n_nodes;       /* main graph */
	size_t n_nodes_total; /* with every subgraph and function body */
	size_t n_subgraphs;
	size_t n_functions;
	size_t n_op_counts; /* main graph and subgraphs, sorted by count, then name */
	const osh_op_count *op_counts;
	size_t n_initializers;
	uint64_t initializer_bytes; /* inline data */
	size_t n_external;          /* initializers whose data is external */
	uint64_t external_bytes;    /* as declared by dims x element size */
} osh_summary;

/* Computed on first call; owned by the model. NULL when memory ran out. NULL: m
 * (returns NULL). */
OSH_API const osh_summary *osh_model_summary(osh_model *m);
/* osh_summary.n_nodes_total without the rest of the summary (whose operator counts
 * look at every node, a cost a big model's check would notice). NULL: m (0). */
OSH_API size_t osh_model_node_count(const osh_model *m);

/* "FLOAT", "INT64", ... or NULL for a value outside onnx.TensorProto.DataType. No
 * pointers. */
OSH_API const char *osh_elem_type_name(int32_t elem_type);

/* ---- Inference ---------------------------------------------------------------- */

/* Overrides the declared shape of a main-graph input (--input-shape NAME:1,3,224,224). */
typedef struct osh_input_shape {
	const char *name;    /* not NULL */
	int32_t rank;        /* 0 or more */
	/* rank entries (NULL only when rank is 0): OSH_DIM_VALUE with a value of 0 or
	 * more, OSH_DIM_SYMBOL with a symbol that is not NULL or "", or OSH_DIM_UNKNOWN
	 * (a size not known, "?"). */
	const osh_dim *dims;
} osh_input_shape;

/* Binds a symbolic dimension everywhere (--assume N=8). */
typedef struct osh_assumption {
	const char *symbol; /* not NULL or "" */
	int64_t value;      /* 0 or more */
} osh_assumption;

#define OSH_INFER_OPTIONS_VERSION 1

typedef struct osh_infer_options {
	unsigned int version; /* OSH_INFER_OPTIONS_VERSION */
	size_t n_input_shapes;
	const osh_input_shape *input_shapes; /* NULL only when n_input_shapes is 0 */
	size_t n_assumptions;
	const osh_assumption *assumptions;   /* NULL only when n_assumptions is 0 */
	/* Ignore the shapes the file declares for graph outputs and value_info, and infer
	 * everything from the graph inputs (how conformance is measured). */
	bool ignore_declared;
	/* Report every main-graph value whose shape is not fully known after inference
	 * (a symbol, an unknown size or rank) as a dynamic-shape error: graph inputs,
	 * then graph outputs, then the other values in node order (check --static). */
	bool require_static;
	/* Report every node that still broadcasts implicitly (implicit-broadcast notes),
	 * for targets without implicit broadcasting (check --require-explicit). */
	bool require_explicit;
	/* Debugging: after each run of the stage of this name (osh_pipeline_stages
	 * lists them: "infer", "lint"...), the IR is written to dump_to as text, one
	 * line per node with its values' types. For the stages of this call and of the
	 * osh_lint, osh_annotate and deferred lint after it, which have no options of
	 * their own: dump_to must stay open until the model is written or freed. NULL
	 * (either): no dump. A name that is no stage's is OSH_ERR_INVALID. */
	const char *dump_after;
	FILE *dump_to;
	/* The runtime a clean check promises the model to: "ort-cpu", ONNX Runtime's CPU
	 * provider (a node it has no kernel for is a no-kernel error, an opset or IR
	 * version past its own a runtime-version error, and so is an operator of a domain
	 * no kernel table covers, unless custom_ops declares it); "spec" or NULL, the ONNX
	 * specification only. Another name is OSH_ERR_INVALID. */
	const char *runtime;
	/* Under "ort-cpu": the custom-op libraries the deployment registers, as the
	 * domains ("com.example") or operators ("com.example::Relu") they provide. */
	size_t n_custom_ops;
	const char *const *custom_ops;
	/* Take the initializers that are also main-graph inputs as the constants they
	 * hold (--constant-initializers). Before IR 4 every initializer had to be
	 * listed among the graph inputs, and any graph input may be fed: ONNX Runtime
	 * takes such an initializer as a default a caller may replace, and so does
	 * inference unless this is set, leaving unknown what their values decide (a
	 * Reshape's target, a Slice's bounds). Set, their values and shapes are facts,
	 * as rewrite's drop_initializer_inputs makes them for every runtime. */
	bool constant_initializers;
} osh_infer_options;

#define OSH_INFER_OPTIONS_INIT {.version = OSH_INFER_OPTIONS_VERSION}

/* As osh_load_options_init, for osh_infer_options. */
OSH_API osh_status osh_infer_options_init(osh_infer_options *opts, unsigned int version);

/* Infers the type and shape of every value, adding diagnostics (unknown-op,
 * broadcast-mismatch, shape-conflict, ...), then lints. A
 * malformed model is refused (OSH_ERR_INVALID); a name in opts that the model does
 * not have, or options outside what osh_infer_options allows (a negative rank or
 * size, a NULL name), is OSH_ERR_INVALID with a message, before anything of opts is
 * applied. NULL: opts (the defaults), err. */
OSH_API osh_status osh_infer(osh_model *m, const osh_infer_options *opts, osh_error *err);

/* The stages the pipeline of the onnxshape command `command` runs, in order, by the
 * names dump_after takes: "check" (osh_infer, osh_lint), "infer" (the same, then
 * osh_annotate), "rewrite" (osh_infer, then osh_rewrite's stages: a name may come
 * more than once, as the IR is rebuilt and inferred again after each edit). Stores up to cap of them in
 * names (static strings) and returns how many there are; 0 for another command.
 * Between two stages the library checks the IR's invariants in debug builds, or
 * when the environment has ONNXSHAPE_VERIFY_IR=1, and reports a violation as
 * OSH_ERR_INVALID, "internal error: after stage 'S': ...". NULL: command (0), names
 * (nothing stored: the count alone). */
OSH_API size_t osh_pipeline_stages(const char *command, const char **names, size_t cap);

/* Runs the lint now if it was left for the model's write (as the onnxshape tool
 * leaves it, to run beside the write), on this thread; OSH_OK at once when none is
 * pending. OSH_ERR_NOMEM when memory ran out.
 * NULL: err. */
OSH_API osh_status osh_lint(osh_model *m, osh_error *err);

/* Treats a main-graph input as a known constant during inference (--input-data,
 * --input-value), so shapes computed from it at run time (Reshape targets, Resize
 * scales, TopK's K...) become exact. `data` is a serialized onnx.TensorProto. The
 * input is the one named `name`; with name NULL, the one the TensorProto names, or
 * else the index-th graph input that is not an initializer. Call before osh_infer.
 * OSH_ERR_INVALID when no input matches or the tensor is not a valid TensorProto.
 * NULL: name, data when size is 0, err. */
OSH_API osh_status osh_model_set_input_value(osh_model *m, const char *name, int index, const void *data,
					     size_t size, osh_error *err);

/* Writes what inference found into the model: value_info for every value that is not
 * a graph input or initializer (subgraphs too), and the graph outputs' types where
 * they are missing or less precise. New unknown sizes become fresh dim_param names
 * that clash with no existing one. After this the model counts as changed. Over the
 * memory budget it is OSH_ERR_LIMIT, naming the budget (osh_load_options.memory_budget). NULL: err. */
OSH_API osh_status osh_annotate(osh_model *m, osh_error *err);

/* The inferred type of a value of the main graph, by name. False when there is no
 * such value or inference has not run. Strings and dims are owned by the model.
 * NULL: none (false for any). */
OSH_API bool osh_value_type(osh_model *m, const char *name, osh_type *out);

/* ---- Walking the model ---------------------------------------------------------- */

/* Every graph of the model is numbered: graph 0 is the main graph, then the
 * subgraphs (bodies of If, Loop, Scan... at any depth) and the bodies of the
 * model-local functions, in the order the loader indexed them. A graph's values and
 * nodes are numbered from 0 too: node i is the graph's i-th node in file order, which
 * is the node_index of its diagnostics. A malformed model may have graphs the loader
 * indexed only in part. The functions below take indices below the counts; for an
 * index past them, as for a NULL model, they return NULL, 0 or false. */

/* How many graphs the model has (0 only for a malformed model without one). NULL: m
 * (0). */
OSH_API size_t osh_model_graph_count(const osh_model *m);
/* The graph's path, as osh_diag.graph names it: "" for the main graph; for a
 * subgraph, its enclosing graph's path, the node's name (node7 for an unnamed node 7)
 * and the attribute's: "If_3/then_branch", "loop/body/inner/else_branch", "Scan_1/
 * bodies[0]" for a list of graphs; "function domain.Name" for a function body.
 * NULL: m (NULL), as the two counts below (0). */
OSH_API const char *osh_graph_path(const osh_model *m, size_t graph);
OSH_API size_t osh_graph_value_count(const osh_model *m, size_t graph);
OSH_API size_t osh_graph_node_count(const osh_model *m, size_t graph);

typedef enum osh_value_origin {
	OSH_VALUE_UNDEFINED = 0, /* used but produced by nothing (a malformed-model error) */
	OSH_VALUE_INPUT,         /* a graph input (possibly with an initializer as default) */
	OSH_VALUE_INITIALIZER,   /* an initializer that is not a graph input */
	OSH_VALUE_NODE,          /* an output of a node of this graph */
	OSH_VALUE_OUTER          /* a subgraph's use of a name of an enclosing graph */
} osh_value_origin;

typedef struct osh_value_info {
	const char *name;
	osh_value_origin origin;
	/* After osh_infer: what inference found (osh_value_type's answer). Before: what
	 * the file declares (graph inputs, outputs, value_info), kind "" where it
	 * declares nothing. A symbol is a dim_param name or, for a size computed from
	 * them, an expression over them ("8*seq"); what inference learned is applied: a
	 * symbol whose size it found shows as OSH_DIM_VALUE, one known equal to another
	 * as its class's name. */
	osh_type type;
	int64_t producer;  /* OSH_VALUE_NODE: the node's index in this graph; else -1 */
	int32_t producer_output; /* which of its outputs; else -1 */
	bool is_graph_output;
} osh_value_info;

/* Fills *out with value `value` of graph `graph`. False when memory ran out (within
 * the model's budget), and for an index past the counts. The dims are allocated
 * from the model's memory at each call and live until osh_model_free: walk a graph
 * once per inference, not in an inner loop. Strings are owned by the model. NULL:
 * none (false for m or out). */
OSH_API bool osh_graph_value_at(osh_model *m, size_t graph, size_t value, osh_value_info *out);

typedef struct osh_node_info {
	const char *name;    /* "" when unnamed */
	const char *op_type;
	const char *domain;  /* "" for ai.onnx ("ai.onnx" is normalised to "") */
	size_t n_inputs;
	const char *const *inputs;  /* value names; "" for an omitted optional input */
	size_t n_outputs;
	const char *const *outputs; /* "" for an omitted optional output */
	size_t n_subgraphs;
	/* The graphs the node's attributes hold (If's then_branch and else_branch, a
	 * Loop's body), in attribute order, as indices for osh_graph_path & co. */
	const size_t *subgraphs;
} osh_node_info;

/* Fills *out with node `node` of graph `graph`. False when memory ran out, and for
 * an index past the counts. The arrays are allocated as osh_graph_value_at's dims
 * are; strings are the model's. NULL: none (false for m or out). */
OSH_API bool osh_graph_node_at(osh_model *m, size_t graph, size_t node, osh_node_info *out);

/* ---- Diagnostic codes ----------------------------------------------------------- */

/* One diagnostic code: what every report (text, JSON, SARIF) and the README say
 * about it. `severity` is the default; symbol-constraint is a note that becomes an
 * error when facts contradict each other, dynamic-shape only exists under
 * require_static. Strings are static. */
typedef struct osh_rule {
	const char *code;        /* "broadcast-mismatch" */
	osh_severity severity;   /* default severity */
	const char *summary;     /* one short sentence */
	const char *description; /* a paragraph: what it means and what to do */
	const char *example;     /* an example message, as the tool prints it */
} osh_rule;

/* Every code the library emits, in a stable order; *n gets the count. NULL: n. */
OSH_API const osh_rule *osh_rules(size_t *n);
/* The rule with this code, or NULL. NULL: code (returns NULL). */
OSH_API const osh_rule *osh_rule_find(const char *code);

/* A change of severity for one code: report it at `severity`, or drop it. */
typedef struct osh_severity_override {
	const char *code;
	bool ignore;
	osh_severity severity;
} osh_severity_override;

/* Applies overrides (in order: a later one for the same code wins) to every
 * diagnostic of the model, dropping ignored ones, and recomputes
 * osh_model_has_errors. A code that is not in osh_rules, or malformed-model (a
 * malformed model cannot be checked whatever its severity says), is refused with
 * OSH_ERR_INVALID and nothing changes, and so is a model whose lint is still
 * left for its write (osh_lint runs it). Pointers from
 * osh_model_diag_at taken before the call may then point at other diagnostics.
 * Each override's code may not be NULL and, unless it ignores, its severity is one
 * of osh_severity's. NULL: o when n is 0, err. */
OSH_API osh_status osh_model_override_severities(osh_model *m, const osh_severity_override *o, size_t n,
						 osh_error *err);

/* ---- Rewriting ---------------------------------------------------------------- */

/* The highest ai.onnx opset osh_rewrite converts a model to (the newest ONNX
 * Runtime 1.30 runs). */
#define OSH_REWRITE_MAX_OPSET 26

#define OSH_REWRITE_OPTIONS_VERSION 1

typedef struct osh_rewrite_options {
	unsigned int version; /* OSH_REWRITE_OPTIONS_VERSION */
	/* Only Paddle elementwise operators of this domain are rewritten; NULL: any
	 * domain other than the standard ones (ai.onnx, ai.onnx.ml, ...). */
	const char *paddle_domain;
	/* The ai.onnx opset to convert the model to, up or down; 0: the lowest the
	 * rewrite needs (7 for legacy broadcasting; Paddle's operators may need more,
	 * e.g. 10 for Mod). A value below what the rewrite needs, below the model's
	 * opset when there is Paddle or legacy broadcasting to rewrite, or above
	 * OSH_REWRITE_MAX_OPSET, is refused (OSH_ERR_INVALID). Every node is adapted
	 * to the target or, where no exact adapter exists, refused (an error
	 * diagnostic naming it). */
	int64_t target_opset;
	/* Plan and report, change nothing. */
	bool dry_run;
	/* After the axis rewrite, make every implicit broadcast explicit: each input of
	 * an implicitly broadcasting node (the numpy family, PRelu's slope, Gemm's C)
	 * that does not already have the node's result shape gets an Expand to it (a
	 * constant shape when known, else computed in the graph from the inputs'
	 * Shape). Raises the ai.onnx opset to 8 when lower and an Expand is needed. */
	bool explicit_broadcast;
	/* The reverse: remove Expand (and Tile that only replicates size-1 dims) whose
	 * consumers all broadcast implicitly anyway with unchanged output shapes, and
	 * the shape computations only they used. Exclusive with explicit_broadcast. */
	bool implicit_broadcast;
	/* Broadcast-3-style nodes (OpenVINO's Broadcast: data, target_shape,
	 * axes_mapping; mode numpy/explicit/bidirectional) are lowered to Expand (with a
	 * Reshape or Unsqueeze for explicit mode) in this domain only; NULL: in any
	 * domain other than the standard ones. */
	const char *broadcast_domain;
	/* Last, fold what inference knows: every value whose content it knows exactly
	 * (a shape, an index, a size; at most 4096 entries) becomes an initializer;
	 * where a value depends on symbols, its consumer takes an exact constant form
	 * when there is one (a Reshape target with 0 for the input's own dims at the
	 * same place and -1 for one other, an Expand by ones, a Slice to the end); an
	 * Expand, Tile, Slice, Reshape, Cast or Dropout that changes nothing, and every
	 * Identity, is bypassed, and so is a node computing what an earlier one does
 * (same operator, inputs and attributes); Constant nodes become initializers; nodes and
	 * initializers nothing reads any more go. Graph inputs and outputs keep their
	 * names and declared shapes, so the model accepts every binding it accepted
	 * (with osh_infer_options.input_shapes it is static, and folds more). No
	 * operator is fused or split. */
	bool fold_shapes;
	/* Debugging, as osh_infer_options.dump_after for osh_infer's stages: after
	 * each run of this one of osh_rewrite's stages, the IR is written to dump_to.
	 * NULL (either): no dump. A name that is no stage's is OSH_ERR_INVALID. */
	const char *dump_after;
	FILE *dump_to;
	/* Remove from the main graph's inputs every name that is also one of its
	 * initializers (what ONNX Runtime's remove_initializer_from_input tool does):
	 * they become constants to every runtime and to inference. The model's IR
	 * version is raised to 4 when lower (IR 3 required every initializer to be an
	 * input). Subgraph inputs are left alone: a body's are positional. */
	bool drop_initializer_inputs;
} osh_rewrite_options;

#define OSH_REWRITE_OPTIONS_INIT {.version = OSH_REWRITE_OPTIONS_VERSION}

/* As osh_load_options_init, for osh_rewrite_options. */
OSH_API osh_status osh_rewrite_options_init(osh_rewrite_options *opts, unsigned int version);

/* One change, for listings (--dry-run). Node fields describe the node as loaded. */
typedef struct osh_rewrite_change {
	const char *graph;     /* "" for the main graph */
	int64_t node_index;
	const char *node_name; /* "" when unnamed */
	const char *op_type;
	const char *kind;      /* "paddle", "legacy", "stray", or "opset" (adapted to the new opset) */
	const char *what;      /* one line, e.g. "Add; reshape 'B' (3,) to (3, 1, 1); remove axis, broadcast" */
} osh_rewrite_change;

typedef struct osh_rewrite_report {
	size_t n_paddle, n_legacy, n_stray; /* nodes rewritten, by kind */
	size_t n_adapted;                   /* other nodes changed to be valid at the new opset */
	size_t n_reshape, n_unsqueeze, n_squeeze; /* nodes inserted to place an operand */
	size_t n_other_inserted;            /* other nodes inserted (floor division, adapters) */
	int64_t opset_before, opset_after;  /* ai.onnx; -1 when not imported */
	size_t n_errors;                    /* findings that block the rewrite (diagnostics) */
	bool changed;                       /* the model was (dry run: would be) changed */
	size_t n_changes;
	const osh_rewrite_change *changes;  /* owned by the model */
	/* explicit_broadcast / implicit_broadcast / Broadcast-3 lowering: */
	size_t n_explicit;       /* nodes whose inputs were made explicit */
	size_t n_expand;         /* Expand nodes inserted (shared between consumers) */
	size_t n_target_nodes;   /* nodes inserted to compute symbolic target shapes */
	size_t n_lowered;        /* Broadcast-3 nodes lowered to standard ONNX */
	size_t n_removed;        /* implicit: Expand/Tile removed */
	size_t n_dead_removed;   /* implicit: nodes that only fed removed ones, removed */
	/* drop_initializer_inputs: the graph inputs removed (dry run: that would be), and
	 * the model's IR version before and after (0 when the file has none). */
	size_t n_initializer_inputs_dropped;
	int64_t ir_version_before, ir_version_after;
	/* fold_shapes, by kind: */
	size_t n_fold_values;    /* nodes whose known outputs became initializers */
	size_t n_fold_constants; /* Constant nodes that became initializers */
	size_t n_fold_identity;  /* Identity nodes removed */
	size_t n_fold_forms;     /* inputs rewritten to an exact constant form (Reshape 0/-1, Expand by ones, Slice to the end) */
	size_t n_fold_noops;     /* Expand, Tile, Slice, Reshape, Cast, Dropout, Pad, Transpose, Add 0, Mul 1... that changed nothing, removed */
	size_t n_fold_shared;    /* nodes removed that computed what an earlier one did (same operator, inputs, attributes) */
	size_t n_fold_absorbed;  /* nodes removed whose work a neighbour took over (a Not by Where's swapped branches) */
	size_t n_fold_dead;      /* other nodes removed once nothing read them */
	size_t n_fold_inits;     /* initializers added (the values and constants still read) */
	size_t n_fold_inits_dropped; /* initializers removed once nothing read them */
	size_t fold_nodes_before, fold_nodes_after; /* nodes of every graph, before and after */
} osh_rewrite_report;

/* Rewrites Paddle-style and legacy axis broadcasting into standard ONNX:
 *  - Paddle elementwise_{add,sub,mul,div,pow,max,min,mod,floordiv} (inputs X, Y,
 *    attribute axis) become the standard operators, the lower-rank operand reshaped
 *    to its place under the paddle rule of the broadcasting spec;
 *  - nodes of ai.onnx opset <= 6 with broadcast=1 (Add, Sub, Mul, Div, Pow, And, Or,
 *    Xor, Equal, Greater, Less; Gemm's C) get B reshaped under the strict pdpd rule,
 *    the opset is raised and every other node adapted to it;
 *  - elementwise nodes of opset >= 7 still carrying axis/broadcast are rewritten the
 *    same way and lose the attributes.
 * Run osh_infer first (OSH_ERR_INVALID otherwise): placements need the shapes. Where a
 * rule says the shapes do not broadcast, or a node cannot be rewritten or adapted,
 * the finding is an error diagnostic (report->n_errors) and nothing is changed.
 * Otherwise the model is edited, its IR rebuilt and inference run again (with default
 * options): the model's diagnostics are then those of the rewritten model, and the
 * values the rewrite made get value_info entries. A model with nothing to rewrite is
 * left untouched (and is written back byte for byte). report is filled in every case
 * but a NULL model. NULL: opts (the defaults), err; not report. */
OSH_API osh_status osh_rewrite(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *report,
			       osh_error *err);

/* ---- Writing ------------------------------------------------------------------ */

#define OSH_WRITE_OPTIONS_VERSION 1

typedef struct osh_write_options {
	unsigned int version; /* OSH_WRITE_OPTIONS_VERSION */
	/* Allow the output to be the input file itself (same inode). */
	bool in_place;
	/* fsync the file before it is renamed into place and its directory after: the
	 * new file survives a power cut. Off, a crash of the machine right after the
	 * write may leave the old file or, for a new one, an empty file. */
	bool durable;
	/* Serialize the messages even when nothing changed (normally an unchanged model is
	 * copied byte for byte). Used by tests to prove the packer is lossless. */
	bool force_pack;
} osh_write_options;

#define OSH_WRITE_OPTIONS_INIT {.version = OSH_WRITE_OPTIONS_VERSION}

/* As osh_load_options_init, for osh_write_options. */
OSH_API osh_status osh_write_options_init(osh_write_options *opts, unsigned int version);

/* Writes the model to `path` atomically: a temporary file in the destination
 * directory renamed over path (with opts->durable, fsync before and the directory's
 * fsync after); readers see the old file or the new one, never a part. On failure the destination is untouched
 * and no temporary file remains. Refuses (OSH_ERR_SAME_FILE) to write over the
 * model's own file unless opts->in_place. Refuses (OSH_ERR_INVALID) a malformed
 * model, and (OSH_ERR_CHANGED) to write a model whose file another program changed
 * or replaced since it was loaded, whose unread parts would be the new file's. A
 * write to the path the load was told (osh_load_options.write_to) finishes what was
 * prepared then; its result is the same. NULL: opts, err. */
OSH_API osh_status osh_model_write(osh_model *m, const char *path, const osh_write_options *opts,
				   osh_error *err);

/* Serializes the model into a buffer from malloc (the caller frees it): *data and
 * *size, NULL and 0 on failure. NULL: err. */
OSH_API osh_status osh_model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err);

#ifdef __cplusplus
}
#endif
#endif
