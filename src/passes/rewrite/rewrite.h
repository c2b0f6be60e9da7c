/* rewrite.h: the rewrite stages' entry points, which pipeline.c runs in order: the
 * axis rewrite (rewrite.c, with the opset conversion of every other node,
 * rewrite_opset.c), the explicit and implicit broadcast stages and the fold. They
 * edit through the kit in edit_kit.h, which calls none of them.
 */
#ifndef OSH_PASSES_REWRITE_H
#define OSH_PASSES_REWRITE_H

#include "passes/rewrite/edit_kit.h"

/* Plans (r->e NULL) or applies the rewrite; pipeline_rewrite (pipeline.c) runs the rest. */
osh_status rewrite_apply(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep, strmap *made,
			 osh_error *err);

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
/* The explicit stage, after the axis stage and its re-inference (the IR
 * fresh and inferred): lowers Broadcast-3 nodes and, with explicit_broadcast,
 * expands every implicitly broadcasting input. Nothing to do under
 * implicit_broadcast, or when the model has errors. Plans and, unless that blocks
 * (rep->n_errors grows) or this is a dry run, edits and commits the messages:
 * *edited says whether it did, *made then holds the values it made. The IR is left
 * as it was: pipeline.c re-indexes, re-infers and writes value_info after it. Adds
 * to *rep. */
osh_status rewrite_explicit_stage(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
				  strmap *made, bool *edited, osh_error *err);
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
