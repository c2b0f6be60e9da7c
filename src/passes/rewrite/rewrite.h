/* rewrite.h: the rewrite pass (osh_rewrite's planning and editing), shared by
 * rewrite.c (Paddle, legacy and stray axis broadcasting) and rewrite_opset.c (every
 * other node adapted when the ai.onnx opset is converted, up or down).
 *
 * The pass runs twice over the same code: once to plan (r->apply false: check every
 * node, report what blocks the rewrite as diagnostics, list the changes and count
 * what would be inserted), then, when nothing blocks it and this is not a dry run, to
 * edit (r->apply true). Helpers below do nothing to the messages while planning, so
 * builders are written once.
 * Both runs see the IR as loaded; only the second touches the messages.
 */
#ifndef OSH_PASSES_REWRITE_H
#define OSH_PASSES_REWRITE_H

#include "core/model.h"
#include "emit/edit.h"

typedef struct rw {
	osh_model *m;
	const osh_rewrite_options *opts;
	osh_rewrite_report *rep;
	edit *e;          /* planning: a session used for fresh names only, never committed */
	bool apply;       /* the editing run */
	int64_t from, to; /* the ai.onnx opset before and after (-1: not imported) */
	size_t ninits;    /* initializers added (they need IR version 4) */
	strmap made;      /* names of the values the rewrite made (they get value_info) */
	osh_rewrite_change *changes;
	size_t nchanges, cap_changes;
	strmap steps_index; /* rewrite_opset.c: operator → its first row, built on first use */
	bool steps_built;
	bool nomem;
} rw;

/* Out of memory: the rewrite stops where it is, and the model says so (its nomem is
 * what the pipeline turns into OSH_ERR_NOMEM). True, for `return rw_nomem(r), false;`. */
static inline bool rw_nomem(rw *r)
{
	r->nomem = r->m->nomem = true;
	return true;
}

/* Plans (r->e NULL) or applies the rewrite; pipeline_rewrite (pipeline.c) runs the rest. */
osh_status rewrite_apply(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep, strmap *made,
			 osh_error *err);

/* ---- shared helpers (rewrite.c) ---- */

/* Adds a line to the change list (planning run only; the editing run repeats none). */
void rw_change(rw *r, const graph *g, int32_t ni, const char *kind, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
/* An error that blocks the rewrite, attached to node ni of g. */
void rw_error(rw *r, const graph *g, int32_t ni, diag_code code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
/* For a stage after the axis rewrite (rewrite_explicit.c, rewrite_implicit.c): its
 * rw_change lines go after the earlier stages' in report->changes, so r starts from
 * a copy of that list. False when out of memory. */
bool rw_continue_changes(rw *r);
/* The stem new names of node ni derive from: its name, else "<op_type>_<index>". */
const char *rw_base(rw *r, const graph *g, int32_t ni);
/* A fresh value name "<base>/<role>", recorded for value_info in the editing run. */
const char *rw_value(rw *r, const char *base, const char *role);
/* A fresh initializer name "<base>/<role>". */
const char *rw_init_name(rw *r, const char *base, const char *role);
/* Inserts a node before node ni of g producing one new value "<base>/<role>" (also
 * the node's name): *out gets the value's name, *np the node (NULL while planning).
 * Counts it in report->n_other_inserted. False on OOM. */
bool rw_insert(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role, int32_t nin,
	       const char *const *inputs, const char **out, struct Onnx__NodeProto **np);
/* Attributes on a node rw_insert made (no-ops while planning). */
bool rw_set_attr_i(rw *r, struct Onnx__NodeProto *np, const char *name, int64_t v);
bool rw_set_attr_ints(rw *r, struct Onnx__NodeProto *np, const char *name, const int64_t *v, int32_t n);
/* A scalar (rank 0) initializer of element type dtype holding v (truncated for an
 * integer type); its name in *out. False for a type edit_add_initializer cannot
 * encode, for an integer type and a v past int64 (NaN, an infinity), or on OOM. */
bool rw_scalar(rw *r, graph *g, const char *base, const char *role, int32_t dtype, double v, const char **out);
/* A 1-D INT64 initializer. */
bool rw_ints(rw *r, graph *g, const char *base, const char *role, const int64_t *v, int32_t n,
	     const char **out);

/* ---- rewrite_opset.c ---- */

/* The IR version a model at ai.onnx opset `opset` needs at least. */
int64_t opset_min_ir(int64_t opset);
/* Adapts node ni of g (ai.onnx, at r->from) to r->to, above or below: planning run: checks that it
 * can be (else rw_error) and lists what changes unless `quiet` (the node is rewritten
 * anyway); editing run: edits it. False only when memory ran out. */
bool opset_adapt(rw *r, graph *g, int32_t ni, bool quiet);

/* ---- rewrite_explicit.c, rewrite_implicit.c ---- */

/* The lowest ai.onnx opset the explicit stage needs (8, for Expand) when it will run
 * (explicit_broadcast, or a Broadcast-3 node to lower) and the model is below it;
 * 0 otherwise. osh_rewrite raises the axis stage's target to it. */
int64_t rewrite_explicit_need(osh_model *m, const osh_rewrite_options *opts);
/* One round of the explicit stage, after the axis stage and its re-inference (the IR
 * fresh and inferred): lowers Broadcast-3 nodes and, with explicit_broadcast,
 * expands every implicitly broadcasting input. Nothing to do under
 * implicit_broadcast, or when the model has errors. Plans and, unless that blocks
 * (rep->n_errors grows) or this is a dry run, edits and commits the messages:
 * *edited says whether it did, *made then holds the values it made. The IR is left
 * as it was: pipeline.c re-indexes, re-infers and writes value_info after it. Adds
 * to *rep. */
osh_status rewrite_explicit_round(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
				  strmap *made, bool *edited, osh_error *err);
/* Raises the model's memory budget for an edit the pipeline then re-indexes and
 * re-infers, of a model grown by `added` nodes (bounded: what the model used so far plus a per-node cost). */
void rewrite_grow_budget(osh_model *m, size_t added);
/* implicit_broadcast: removes redundant Expand/Tile (see osh_rewrite_options). Plans
 * and, unless this is a dry run, edits and commits the messages (*edited: whether
 * it did); as after the explicit stage, pipeline.c re-indexes and re-infers. */
osh_status rewrite_implicit_stage(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
				  bool *edited, osh_error *err);

/* ---- fold_shapes.c ---- */

/* fold_shapes: values inference knows exactly become initializers, consumers of
 * symbolic ones take exact constant forms, no-ops and Identity are bypassed,
 * Constant nodes become initializers, and what nothing reads goes (see
 * osh_rewrite_options). Nothing to do without the option or when the model has
 * errors. Plans and, unless this is a dry run, edits and commits the messages
 * (*edited); pipeline.c re-indexes and re-infers after it. Adds to *rep. */
osh_status rewrite_fold_stage(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
			      bool *edited, osh_error *err);

#endif
