/* edit_kit.h: what every rewrite stage edits with: the state of one planning or
 * editing run (rw), its change list and blocking errors, fresh names, inserted
 * nodes, initializers and attributes, and the memory budget an edit needs. The
 * stages (rewrite.c, rewrite_opset.c, rewrite_explicit.c, rewrite_implicit.c,
 * fold_shapes.c) call down into it; it calls none of them.
 *
 * A stage runs twice over the same code: once to plan (r->apply false: check every
 * node, report what blocks the rewrite as diagnostics, list the changes and count
 * what would be inserted), then, when nothing blocks it and this is not a dry run, to
 * edit (r->apply true). The helpers below do nothing to the messages while planning,
 * so builders are written once. Both runs see the IR as loaded; only the second
 * touches the messages.
 */
#ifndef OSH_PASSES_REWRITE_EDIT_KIT_H
#define OSH_PASSES_REWRITE_EDIT_KIT_H

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
	/* rw_change's last texts of a format whose one argument is a string (a node's
	 * operator, most often): thousands of changes read the same. */
	struct change_memo {
		const char *fmt, *arg, *text;
	} change_memo[32];
	strmap steps_index; /* rewrite_opset.c: operator → its first ai.onnx schema row, */
	strmap hand_index;  /* and → its first row of opset_steps.def; built on first use */
	bool steps_built;
	struct history_memo *histories; /* rewrite_opset.c: each operator's history, by op_type */
	/* rewrite_opset.c: the signatures of nodes the planning run found to take the
	 * target as they are, without an adapter (opset_adapt says what they hold). */
	struct sig_set *idle_sigs;
	size_t nfresh; /* fresh names drawn so far (rw_value, rw_init_name, rw_insert) */
	/* With replay set (before the planning run), the planning run keeps the fresh
	 * names it draws, in order, and the editing run, which draws the same ones in
	 * the same order, takes them from that list instead of looking each up again. */
	bool replay;
	const char **planned;
	size_t nplanned, cap_planned, nreplayed;
	/* rewrite.c: per graph, the nodes whose opset step the planning run found to
	 * change nothing and draw no name, which the editing run then skips; NULL: none. */
	uint8_t **opset_idle;
} rw;

/* Out of memory: the rewrite stops where it is, and the model says so (its nomem is
 * what the pipeline turns into OSH_ERR_NOMEM). True, for `return rw_nomem(r), false;`. */
static inline bool rw_nomem(rw *r)
{
	r->m->nomem = true;
	return true;
}

/* The message of node ni of g to change: while planning, its proto as the IR has
 * it (NULL for a node still in wire bytes: planning changes no message); while
 * editing, edit_node's, made from the node's bytes if need be, so call it only for
 * a node that changes. NULL when memory ran out (the model's nomem then set). */
struct Onnx__NodeProto *rw_node(rw *r, graph *g, int32_t ni);

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
 * Counts it in report->n_other_inserted. False on OOM. op_type and the inputs are
 * not copied (the kit's nodes are many): literals, the IR's names, fresh names. */
bool rw_insert(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role, int32_t nin,
	       const char *const *inputs, const char **out, struct Onnx__NodeProto **np);
/* rw_insert for a node that makes the value `out`, a name that already exists: an
 * output of node ni that a decomposition hands to one of its parts (node ni then
 * keeps fewer outputs). The node gets a fresh name "<base>/<role>". */
bool rw_insert_making(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role,
		      int32_t nin, const char *const *inputs, const char *out, struct Onnx__NodeProto **np);
/* rw_insert for a node the caller counts itself (the axis stage's Reshape, Unsqueeze
 * and Squeeze have counters of their own). */
bool rw_insert_uncounted(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role,
			 int32_t nin, const char *const *inputs, const char **out, struct Onnx__NodeProto **np);
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

/* Raises the model's memory budget for an edit the pipeline then re-indexes and
 * re-infers, of a model grown by `added` nodes (bounded: what the model used so far plus a per-node cost). */
void rewrite_grow_budget(osh_model *m, size_t added);

#endif
