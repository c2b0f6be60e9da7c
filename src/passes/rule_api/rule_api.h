/* rule_api.h: what an operator's shape rule sees, and the helpers rules share: the
 * one header a rule includes (with core's); the pass's workings stay out of it.
 *
 * A rule is a function `void rule(infer_ctx *c)`: it reads the node's inputs (their
 * tinfo: kind, element type, shape, and for small integer tensors their content),
 * its attributes and opset version, and sets its outputs. Whatever it does not set
 * stays unknown: a rule never guesses. Problems with the model (shapes that do not
 * broadcast, an axis out of range) are reported with infer_diag and the outputs left
 * unknown (or as precise as still certain).
 *
 * Rules are registered in ops.def, one row per (domain, op_type, since_version): in
 * the domains the schemas cover, one per schema row (core/schema), so a node's rule
 * is its schema row's; elsewhere the pass picks the row with the highest
 * since_version not above the node's opset (rule_table.h).
 *
 * Implemented by rule_api.c (inputs, outputs, attributes, reports, fresh symbols),
 * rule_api_dims.c (dim arithmetic), rule_api_broadcast.c (broadcasting two inputs)
 * and, for infer_subgraph and its kin, the pass itself (infer.c), which sits above
 * the rules and is reached only through the entry points it puts in the context.
 */
#ifndef OSH_PASSES_RULE_API_H
#define OSH_PASSES_RULE_API_H

#include "core/model.h"
#include "passes/bcast/broadcast.h"

struct infer_ctx;

/* What the pass offers a rule of itself: bodies to infer (infer_subgraph and its
 * kin below call these). The pass (infer.c) sets them; a rule never calls it by
 * name, as the pass is above the rules and calls them. */
typedef struct infer_driver {
	void (*subgraph)(struct infer_ctx *c, graph *sg, const tinfo *inputs, int32_t n);
	bool (*may_repeat)(const struct infer_ctx *c);
	void (*subgraph_checks)(struct infer_ctx *c, graph *sg);
} infer_driver;

typedef struct infer_ctx {
	osh_model *m;
	graph *g;
	int32_t ni;     /* node index in g */
	node *n;
	int64_t opset;  /* version of the node's domain */
	symtab *syms;
	arena *a;
	/* The rest is the pass's (infer.c) and the rule API's: rules do not read it. */
	const struct rule_index *rules;
	const infer_driver *driver;
	int32_t sub_depth; /* nesting of infer_subgraph calls, bounded */
	/* Inside a model-local function's body: the context of the node that called it,
	 * whose attributes answer the body's ref_attr_name references. NULL elsewhere. */
	const struct infer_ctx *caller;
	struct dims_share *shared; /* the pass's published-dims cache (dims_share.h) */
	struct op_memo *ops;       /* the pass's node type → rule memo (infer.c) */
	strmap *fresh_keys;        /* dim_fresh_same's symbols, by what they were made for */
	struct body_work *work;    /* what inferring bodies has cost the pass (infer.c) */
	/* The node's schema refused its inputs or outputs (check_schema.h): its rule
	 * still sets what it can, but what it would say is said already. */
	bool quiet;
	const struct pass_options *opts; /* the pass's options (passes/pass.h) */
	/* In a branch that never runs (infer_subgraph_checks): each node is held to its
	 * schema, as ONNX Runtime holds it when it loads the model, and its rule runs
	 * quiet (what it finds of the sizes is not true of the model). */
	bool checks_only;
	/* Per main-graph value: it depends on a graph input whose shape
	 * osh_infer_options.input_shapes replaced, so what the file declares for it was
	 * written for the old shape and is not used (infer.c). NULL when nothing was
	 * replaced. */
	bool *rederive;
} infer_ctx;

typedef void (*infer_fn)(infer_ctx *c);

/* ---- inputs ---- */
/* Number of inputs the node lists (including omitted optional ones). */
static inline int32_t in_count(const infer_ctx *c) { return c->n->ninputs; }
/* The input's info, or NULL when the input is omitted ("") or i >= in_count. Inline:
 * rules ask for their inputs several times each, millions of calls a model. */
static inline const tinfo *in(infer_ctx *c, int32_t i)
{
	if (i < 0 || i >= c->n->ninputs || c->n->inputs[i] < 0)
		return NULL;
	return &c->g->values[c->n->inputs[i]].ti;
}
/* Name of input i (for messages), "" if omitted. */
const char *in_name(infer_ctx *c, int32_t i);
/* Known integer content of input i (from an initializer, a Constant or propagation):
 * sets *vals and *n and returns true; false when not known. Entries may be symbols. */
static inline bool in_ints(infer_ctx *c, int32_t i, const dim **vals, int32_t *n)
{
	const tinfo *t = in(c, i);
	if (!t || t->nval < 0)
		return false;
	*vals = t->val;
	*n = t->nval;
	return true;
}
/* Ranks above this are refused (reported) before a rule allocates anything for them;
 * every rule family shares it. */
#define RULE_MAX_RANK 1024

/* Input i when it is a tensor (kind TK_TENSOR), else NULL. */
static inline const tinfo *in_tensor(infer_ctx *c, int32_t i)
{
	const tinfo *t = in(c, i);
	return t && t->kind == TK_TENSOR ? t : NULL;
}
/* Input i when it is a tensor whose rank is known, else NULL. */
static inline const tinfo *in_ranked(infer_ctx *c, int32_t i)
{
	const tinfo *t = in(c, i);
	return t && tinfo_has_rank(t) ? t : NULL;
}
/* Element type of input i when it is a tensor, 0 otherwise (unknown, omitted). */
static inline int32_t in_elem(infer_ctx *c, int32_t i)
{
	const tinfo *t = in_tensor(c, i);
	return t ? t->elem : 0;
}
/* in_rank's report of a rank above RULE_MAX_RANK; returns -1. */
int32_t in_rank_refused(infer_ctx *c, int32_t i);
/* Input i's rank when known and at most RULE_MAX_RANK; reports a larger one and
 * returns -1, as for an unknown rank. Inline, these: every rule asks them for its
 * inputs, several times. */
static inline int32_t in_rank(infer_ctx *c, int32_t i)
{
	const tinfo *t = in_ranked(c, i);
	if (!t)
		return -1;
	return t->rank > RULE_MAX_RANK ? in_rank_refused(c, i) : t->rank;
}

/* The same, but only when every entry is a known integer (copied to out, capacity cap). */
bool in_known_ints(infer_ctx *c, int32_t i, int64_t *out, int32_t cap, int32_t *n);
/* The stored tensor input i's content comes from, read or not: a value given for this
 * run (--input-data) or an initializer that is not a graph input, followed from a
 * subgraph out to the graph that holds it. NULL for a node's output, a graph input
 * without given data, an omitted input. */
const tensor_view *in_stored_tensor(infer_ctx *c, int32_t i);
/* in_floats for an input whose content is not decoded yet (rule_api.c: lazy_floats). */
bool in_floats_lazy(infer_ctx *c, int32_t i, const double **vals, int32_t *n);
/* Known floating content of input i (Resize scales...). Inline: binary operators ask
 * for every node, and most inputs are node outputs, settled at once. */
static inline bool in_floats(infer_ctx *c, int32_t i, const double **vals, int32_t *n)
{
	const tinfo *t = in(c, i);
	if (!t)
		return false;
	if (t->nfval < 0) {
		/* Only an initializer (or a value given for this run) has content still to
		 * decode (in_floats_lazy); a node's output has what its rule set. */
		if (c->g->values[c->n->inputs[i]].origin == VAL_NODE)
			return false;
		return in_floats_lazy(c, i, vals, n);
	}
	*vals = t->fval;
	*n = t->nfval;
	return true;
}

/* The single entry of input i's known content (a scalar or a one-element tensor):
 * true with *v (an integer may be a symbol), false when it is not known or not one. */
bool in_int1(infer_ctx *c, int32_t i, dim *v);
bool in_float1(infer_ctx *c, int32_t i, double *v);

/* ---- outputs ---- */
static inline int32_t out_count(const infer_ctx *c) { return c->n->noutputs; }
/* Whether output i is wanted (listed and not ""). */
bool out_present(infer_ctx *c, int32_t i);
/* Sets output i to a tensor of element type elem (0 unknown) and the given shape
 * (rank RANK_UNKNOWN: rank unknown). dims are copied. Symbols are resolved. */
void set_out(infer_ctx *c, int32_t i, int32_t elem, int32_t rank, const dim *dims);
/* Sets output i to exactly t (kind, element type, shape, content). Arrays in t must
 * live in the arena (or be copied first with dims_dup). */
void set_out_info(infer_ctx *c, int32_t i, const tinfo *t);
/* Attaches known integer content (n entries, copied) to output i, which must have
 * been set as a tensor of at most TINFO_MAX_VALUES elements. */
void set_out_ints(infer_ctx *c, int32_t i, const dim *vals, int32_t n);
void set_out_floats(infer_ctx *c, int32_t i, const double *vals, int32_t n);
/* Sets only the element type of output i (shape unknown). */
static inline void set_out_elem(infer_ctx *c, int32_t i, int32_t elem) { set_out(c, i, elem, RANK_UNKNOWN, NULL); }

/* ---- attributes ---- */
/* The node's first attribute of that name, or NULL; inside a function body a
 * reference (ref_attr_name) is answered by the calling node's attribute. */
const attr_view *attr(infer_ctx *c, const char *name);
int64_t attr_i(infer_ctx *c, const char *name, int64_t def);
float attr_f(infer_ctx *c, const char *name, float def);
const char *attr_s(infer_ctx *c, const char *name, const char *def);
/* INTS attribute: true with *v and *n set when present. */
bool attr_ints(infer_ctx *c, const char *name, const int64_t **v, int32_t *n);
bool attr_has(infer_ctx *c, const char *name);
/* Entries of a list attribute (INTS, FLOATS, STRINGS), -1 when absent (or another
 * kind of attribute). */
int32_t attr_len(infer_ctx *c, const char *name);
/* A TENSOR attribute's tensor, or NULL. */
const tensor_view *attr_tensor(infer_ctx *c, const char *name);
/* attr_i, attr_s and attr_ints for an attribute attr() already found (NULL: absent),
 * for a rule that finds several in one pass over the node's (rules_nn_conv.c). */
static inline int64_t attr_view_i(const attr_view *a, int64_t def) { return a && a->type == AT_INT ? a->i : def; }
static inline const char *attr_view_s(const attr_view *a, const char *def)
{
	return a && a->type == AT_STRING && a->s ? a->s : def;
}
static inline bool attr_view_ints(const attr_view *a, const int64_t **v, int32_t *n)
{
	if (!a || a->type != AT_INTS)
		return false;
	*v = a->ints;
	*n = a->n;
	return true;
}

/* ---- helpers ---- */
dim *dims_alloc(infer_ctx *c, int32_t n);
/* Rules keep scratch arrays (dims, per-axis windows, index maps) on the stack up to
 * this many entries, which every real model fits; more come from the arena, which
 * zeroes what it hands out, a cost every node would pay if it were the only room. */
#define SCRATCH_SMALL 16
/* Room for n dims: `small` (SCRATCH_SMALL of them) when it is enough, else
 * dims_alloc's. */
static inline dim *dims_room(infer_ctx *c, dim *small, int32_t n)
{
	return n <= SCRATCH_SMALL ? small : dims_alloc(c, n);
}
dim *dims_dup(infer_ctx *c, const dim *d, int32_t n);
/* A new symbolic dim for a size only known at run time (data-dependent outputs). */
dim dim_fresh(infer_ctx *c);
/* The same for a size the node's inputs and attributes determine (NonZero's count,
 * Unique's, TopK's K read at run time): two nodes of the same operator and
 * attributes reading the same values get the same symbol. */
dim dim_fresh_same(infer_ctx *c);
/* Normalises axis into [0, rank) (or [0, rank] when `inclusive`, for Unsqueeze-like
 * positions); reports an error naming `what` and returns false when out of range. */
bool norm_axis(infer_ctx *c, int64_t axis, int32_t rank, bool inclusive, const char *what, int32_t *out);
/* Dim arithmetic on resolved operands: known op known gives known (overflow →
 * unknown and an error), symbols give the expression (core/dimexpr.h: `batch*seq`,
 * `floor((H + 1)/2)`), anything with an unknown gives unknown. */
dim dim_add(infer_ctx *c, dim a, dim b);
dim dim_sub(infer_ctx *c, dim a, dim b);
dim dim_mul(infer_ctx *c, dim a, dim b);
/* The element count of dims (but the one at `skip`, -1: none) as a dim: a number,
 * an expression (batch*seq*64), or unknown. */
dim dims_product(infer_ctx *c, const dim *dims, int32_t n, int32_t skip);
/* floor(a/b) and ceil(a/b) for b > 0 (a known b <= 0: unknown). */
dim dim_floordiv(infer_ctx *c, dim a, dim b);
dim dim_ceildiv(infer_ctx *c, dim a, dim b);
/* a/b when b provably divides a (Reshape's -1: the element count over the others). */
dim dim_divexact(infer_ctx *c, dim a, dim b);
dim dim_max(infer_ctx *c, dim a, dim b);
dim dim_min(infer_ctx *c, dim a, dim b);
/* Merges two facts about the same dim: known beats unknown; two different knowns
 * are a conflict (returns false, *out = a). Its most common case, two known sizes,
 * is decided inline: rules merge a few dims per node (channels, vector sizes). */
bool dim_merge_symbolic(infer_ctx *c, dim a, dim b, dim *out);
static inline bool dim_merge(infer_ctx *c, dim a, dim b, dim *out)
{
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		*out = a;
		return a.v == b.v;
	}
	return dim_merge_symbolic(c, a, b, out);
}

/* Broadcasts under `rule` and reports a broadcast-mismatch error naming the node,
 * the operands (input indices ia, ib), both shapes and the dimension, on failure.
 * On success writes the result into *rank/dims (capacity cap) and records the facts
 * learned about symbols. axis is for pdpd/paddle. */
bool infer_broadcast(infer_ctx *c, bcast_rule rule, int32_t ia, int32_t ib, int64_t axis,
		     int32_t *rank, dim *dims, int32_t cap);

/* Records the facts a broadcast had to assume that bind a symbol to a size (the
 * others are the lint's to report), reporting a symbol-constraint error where one
 * contradicts what was learned before. */
void record_facts(infer_ctx *c, const sym_fact *facts, int32_t n);

/* The broadcasts most nodes do, decided without broadcast.c's rule tables: numpy
 * (and bidirectional, the same rule) where each pair of dims, resolved, is equal or
 * one of them is a known 1; unidirectional where each of B's is A's, a known 1, or
 * either is unknown. The tables decide these the same way, with no error and no fact
 * about a symbol. Writes the result (rank: the larger one) into dims, which must not
 * overlap a or b, and returns true; false leaves the pair to the full rule. */
bool bcast_plain(infer_ctx *c, bcast_rule rule, shape a, shape b, dim *dims);

/* A finding about this node. code: DIAG_BROADCAST_MISMATCH, DIAG_SHAPE_ERROR, ... */
void infer_diag(infer_ctx *c, osh_severity sev, diag_code code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* Runs inference on subgraph sg (an attribute body of this node) with the given
 * types for its formal inputs (n of them; NULL entries: leave as declared). After
 * the call, sg's values hold their inferred tinfo; read sg's outputs from
 * sg->values[sg->outputs[k]].ti. */
void infer_subgraph(infer_ctx *c, graph *sg, const tinfo *inputs, int32_t n);
/* Whether a body may be inferred more than once for one run of this node (a Loop's
 * again, when a loop-carried value changed): false once bodies have cost the pass
 * more than a bound proportional to the model's nodes. Repeats compound through
 * nested bodies (a nest of n Loops is 2^n runs of the innermost), so past the bound
 * a rule infers the body once, with what may change from one run to the next left
 * unknown. */
bool infer_subgraph_may_repeat(const infer_ctx *c);
/* A subgraph that never runs (If's branch against a condition known at load time):
 * only its nodes' schemas are checked, which ONNX Runtime does all the same; no rule
 * runs, and its values' types stay unknown but for the outer ones. */
void infer_subgraph_checks(infer_ctx *c, graph *sg);
/* The subgraph held by attribute `name` (AT_GRAPH), or NULL. */
graph *attr_graph(infer_ctx *c, const char *name);

/* Shape text for messages, in the arena: "(2, N, ?)". */
const char *fmt_shape(infer_ctx *c, const tinfo *t);

#endif
