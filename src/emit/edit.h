/* edit.h: a small editing API over the protobuf-c messages, for passes that change
 * the model (the rewrite pass). Protobuf-free: nodes are handled through opaque
 * `struct Onnx__NodeProto *` pointers (an IR node's `proto`, or what edit_node_new
 * returns), so passes never include the generated header.
 *
 * A session (edit_begin ... edit_commit) collects the edits. Changes to existing
 * nodes (operator, inputs, attributes) and to the model header (opsets, IR version)
 * apply at once; new nodes and new initializers are queued and spliced into their
 * graphs by edit_commit, in one pass per graph, so that until then the IR's node
 * indices still equal the positions in each GraphProto's node list (insertion
 * points are given as IR node indices). Every new message and string lives in the
 * model's arena, like the unpacked ones; nothing is ever freed.
 *
 * Invariants: a name from edit_fresh_name clashes with no value, node or
 * initializer name anywhere in the model (any graph, any subgraph, any function
 * body) nor with another fresh name. After edit_commit the messages are the truth:
 * the IR is stale until model_reindex (loader/reindex.h) rebuilds it, and the model
 * counts as modified (it is packed when written, not copied).
 *
 * Every function returns false (or NULL) only when memory ran out; it then also
 * marks the session failed, and edit_commit refuses to commit a failed session.
 */
#ifndef OSH_EMIT_EDIT_H
#define OSH_EMIT_EDIT_H

#include "core/model.h"

typedef struct edit edit;

/* Starts a session. NULL when memory ran out. Every name the model uses is indexed
 * at the first edit_fresh_name. */
edit *edit_begin(osh_model *m);

/* A value/node/initializer name derived from `base` that nothing in the model uses:
 * `base` itself when free, else base_1, base_2, ... The name is reserved. */
const char *edit_fresh_name(edit *e, const char *base);

/* Reserves `name` (a name edit_fresh_name then never hands out). False when memory
 * ran out. */
bool edit_reserve_name(edit *e, const char *name);

/* Queues a new node to be placed just before node `before` of g (an IR node index;
 * g->nnodes appends). Several nodes queued before the same node keep the order they
 * were queued in. `domain` "" is ai.onnx; `name` may be NULL. Inputs "" are omitted
 * optional inputs. Returns the node, whose attributes may then be set. */
struct Onnx__NodeProto *edit_node_new(edit *e, graph *g, int32_t before, const char *op_type,
				      const char *domain, const char *name, int32_t nin,
				      const char *const *inputs, int32_t nout, const char *const *outputs);

/* edit_node_new without copying the strings (the arrays are the node's own): for a
 * caller whose names and operator live as long as the model (the model's arena, the
 * IR's names, edit_fresh_name's, string literals), as a rewrite inserting tens of
 * thousands of nodes does. */
struct Onnx__NodeProto *edit_node_new_kept(edit *e, graph *g, int32_t before, const char *op_type,
					   const char *domain, const char *name, int32_t nin,
					   const char *const *inputs, int32_t nout, const char *const *outputs);

/* The message of node ni of g (an IR node index), to change with the calls below:
 * its proto, or, for a node of the main graph a split load keeps as wire bytes,
 * one unpacked from them now (loader_node_message): an edit pays only for the
 * nodes it changes. NULL when memory ran out (the session is then failed). */
struct Onnx__NodeProto *edit_node(edit *e, graph *g, int32_t ni);

/* Changes an existing node's operator (domain "" is ai.onnx). */
bool edit_node_set_op(edit *e, struct Onnx__NodeProto *np, const char *op_type, const char *domain);
/* Sets input k; k past the end appends, filling the gap with omitted ("") inputs. */
bool edit_node_set_input(edit *e, struct Onnx__NodeProto *np, int32_t k, const char *name);
/* Renames output k (k < the current count). */
bool edit_node_set_output(edit *e, struct Onnx__NodeProto *np, int32_t k, const char *name);
/* Keeps the first n inputs / outputs (n <= the current count). */
void edit_node_keep_inputs(struct Onnx__NodeProto *np, int32_t n);
void edit_node_keep_outputs(struct Onnx__NodeProto *np, int32_t n);
/* Removes attribute `name` if present (all entries of that name). */
void edit_node_remove_attr(struct Onnx__NodeProto *np, const char *name);
/* Removes every attribute. */
void edit_node_clear_attrs(struct Onnx__NodeProto *np);
/* Adds or replaces an attribute. */
bool edit_node_set_attr_i(edit *e, struct Onnx__NodeProto *np, const char *name, int64_t v);
bool edit_node_set_attr_f(edit *e, struct Onnx__NodeProto *np, const char *name, float v);
bool edit_node_set_attr_s(edit *e, struct Onnx__NodeProto *np, const char *name, const char *v);
bool edit_node_set_attr_ints(edit *e, struct Onnx__NodeProto *np, const char *name, const int64_t *v,
			     int32_t n);
bool edit_node_set_attr_floats(edit *e, struct Onnx__NodeProto *np, const char *name, const float *v,
			       int32_t n);

/* Queues an initializer of g holding `count` = product(dims) values, given as int64
 * (integer and BOOL types) or as double (FLOAT, DOUBLE, FLOAT16): exactly one of ivals
 * and fvals is non-NULL. Returns false also for an element type it cannot encode
 * (anything else); callers check edit_dtype_encodable first. */
bool edit_add_initializer(edit *e, graph *g, const char *name, int32_t dtype, const int64_t *dims,
			  int32_t rank, const int64_t *ivals, const double *fvals);
/* Queues an initializer of g named `name` holding the tensor of Constant node np's
 * `value` attribute (the message itself, not a copy of its data). False when np has
 * no tensor `value` (nothing is queued) or memory ran out. */
bool edit_constant_initializer(edit *e, graph *g, struct Onnx__NodeProto *np, const char *name);
/* The most dims edit_transposed_initializer permutes. */
#define EDIT_MAX_PERM 8
/* Queues an initializer of g named `name` holding src's data, read as dims[] (rank
 * of them, their product src's element count: 1s may pad src's own, or it may be
 * any reshape of them), transposed by perm (its dim k is dims[perm[k]]), and given
 * out_dims (out_rank of them; NULL: the transposed dims) of the same count. False
 * when src cannot be copied (see edit_view_copyable), the counts differ or memory
 * ran out. */
bool edit_transposed_initializer(edit *e, graph *g, const char *name, const tensor_view *src, const int64_t *dims,
				 const int64_t *perm, int32_t rank, const int64_t *out_dims, int32_t out_rank);
/* The view edit_transposed_initializer's initializer would hold: src's data, in
 * the arena a, in the transposed order and under the dims given; NULL when src
 * cannot be copied, the counts differ or memory ran out. */
const tensor_view *edit_view_transposed(arena *a, const tensor_view *src, const int64_t *dims, const int64_t *perm,
					int32_t rank, const int64_t *out_dims, int32_t out_rank);
/* Whether edit_transposed_initializer can copy src: valid, its data in the file, of
 * whole bytes an element (not strings). */
bool edit_view_copyable(const tensor_view *src);

/* Whether edit_add_initializer can write this element type (and whether as floats). */
bool edit_dtype_encodable(int32_t dtype, bool *is_float);

/* Sets the version of an opset import, adding the import when missing. */
bool edit_set_opset(edit *e, const char *domain, int64_t version);
/* Drops the opset import of a domain (no-op when absent). */
void edit_remove_opset(edit *e, const char *domain);
/* Raises the model's ir_version to at least v. */
void edit_raise_ir_version(edit *e, int64_t v);
/* Removes from the main graph's GraphProto input list every input that is also an
 * initializer (the IR's g->inputs tell which: it is that list one for one), for
 * rewrite's drop_initializer_inputs; the IR is to be rebuilt after. */
void edit_drop_initializer_inputs(osh_model *m);
/* The model's ir_version as its message says it (0 when absent). */
int64_t edit_ir_version(const osh_model *m);

/* Splices the queued nodes and initializers into their graphs and marks the model
 * modified. False when memory ran out at any point of the session (the messages may
 * then be half edited: the model must not be written). */
bool edit_commit(edit *e);

/* After model_reindex and inference: writes a value_info entry (replacing the type of
 * an existing one, else appending) for every value a node produces, in any graph,
 * whose name is in `names` and that is not a graph output, from what inference
 * found. Values inference knows nothing about are skipped. False on OOM. */
bool edit_value_info(osh_model *m, const strmap *names);

/* Removes the nodes of g with drop[ni] set (IR node indices; while they are the
 * main graph's wire bytes, at the commit, edit_node finding them until then), and the
 * initializers and value_info entries of g whose names are in `names` (may be NULL).
 * Call it only while g's node list still matches the IR: before any node is queued
 * for g in this session and before any commit since the IR was built. Marks the
 * model modified; the IR is stale afterwards (model_reindex). */
void edit_drop(edit *e, graph *g, const bool *drop, const strmap *names);

/* What osh_annotate does (include/onnxshape.h), run by passes/pipeline.c as the
 * annotate stage (annotate.c). */
osh_status annotate_model(osh_model *m, osh_error *err);

/* Declares each main-graph input whose shape osh_infer_options.input_shapes
 * overrode with that shape, in its graph input message (annotate.c); marks the
 * model changed when there was one. False when memory ran out. */
bool annotate_overridden_inputs(osh_model *m);

#endif
