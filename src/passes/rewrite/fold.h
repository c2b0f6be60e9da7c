/* fold.h: the fold stage's state, shared by its files: fold_shapes.c decides each
 * node's fate and applies them, calling fold_layout.c for the constants a node only
 * moves and fold_transpose.c for the Transpose pairs that cancel around elementwise
 * nodes; what they share is in fold_forms.c. Private to the stage.
 */
#ifndef OSH_PASSES_REWRITE_FOLD_H
#define OSH_PASSES_REWRITE_FOLD_H

#include "passes/rewrite/rewrite.h"
#include "core/symbols.h"
#include "core/type_memo.h"

/* Content entries a folded value may have: what inference tracks at most. */
#define FOLD_MAX_VALUES TINFO_MAX_VALUES
#define FOLD_MAX_RANK 64

/* fs.negated of a Not that a Where absorbed. */
#define NEGATION_ABSORBED (-2)

/* form.slot of a form that replaces the node's axes attribute, not an input. */
#define FORM_AXES_ATTR (-1)

typedef enum fate { F_LIVE = 0, F_FOLD, F_CONST, F_PASS, F_RENAME, F_DEAD } fate;

/* A node input replaced by a new constant (an exact form): the int64 content v, or,
 * with src, src's data read as the dims v[0 .. n/2) and transposed by the
 * permutation v[n/2 .. n) (edit_transposed_initializer). */
typedef struct form {
	int32_t ni, slot;
	int64_t *v;
	int32_t n;
	bool allowzero_off; /* the Reshape's allowzero=1 set to 0 (0 entries added) */
	const tensor_view *src;
	const char *role;   /* the new initializer's name ends so: "shape", "ends", "axes"... */
} form;

/* The operators the fold treats apart; FO_OTHER for the rest, and for every operator
 * of another domain than ai.onnx. */
typedef enum fold_op {
	FO_OTHER,
	FO_CONSTANT,
	FO_IDENTITY,
	FO_CAST,
	FO_DROPOUT,
	FO_EXPAND,
	FO_RESHAPE,
	FO_TILE,
	FO_SLICE,
	FO_PAD,
	FO_TRANSPOSE,
	FO_WHERE,
	FO_NOT,
	FO_UNSQUEEZE,
	FO_SQUEEZE,
	FO_FLATTEN,
} fold_op;

/* What the fold asks of every node's operator, answered once per operator and
 * opset (core/type_memo.h): which fold_op it is, and whether the schema calls it
 * pure (its outputs follow from its inputs alone). The stage's, shared by its
 * graphs. */
#define FOLD_OP_SLOTS 128
typedef struct fold_ops {
	type_key key[FOLD_OP_SLOTS];
	uint8_t op[FOLD_OP_SLOTS];
	bool pure[FOLD_OP_SLOTS];
} fold_ops;

/* A folded value whose data is a constant's, moved, not computed (fold_layout.c):
 * src's data read as dims (rank of them) and transposed by perm. */
typedef struct moved {
	const tensor_view *src;
	int32_t rank;
	int64_t dims[EDIT_MAX_PERM], perm[EDIT_MAX_PERM];
} moved;

typedef struct fs {
	rw *r;
	graph *g;
	uint8_t *fate;     /* per node */
	int32_t *repl;     /* per value: the value consumers read instead, or -1 */
	int32_t *reads;    /* per value: live reads (after the decisions) */
	bool *outer_read;  /* per value: a subgraph reads it */
	int32_t *renamed;  /* per value: the graph output its producer's output becomes, or -1 */
	form *forms;
	int32_t nforms, cap_forms;
	int32_t *form_at;  /* per node: the first of its forms, or -1 (forms are grouped by node) */
	int32_t *negated;  /* per node, NULL until a Where absorbs a Not: that Not (for the
			    * Where), NEGATION_ABSORBED (for the Not), or -1 */
	bool *relaid;      /* per value, NULL until a Transpose pair cancels: the value's
			    * layout changed (its declared type no longer holds) */
	int32_t *moved_at; /* per node, NULL until a constant is moved: its entry in moves, or -1 */
	moved *moves;
	int32_t nmoves, cap_moves;
	fold_ops *ops;
	/* per node: its fold_op, with FOLD_OP_PURE when the schema calls it pure (and it
	 * holds no body): asked of every node several times, worked out once */
	uint8_t *op;
	int32_t *cse;      /* open addressing: node indices of the pure nodes kept so far, -1 free */
	uint32_t cse_mask;
} fs;

static inline dim fold_res(fs *s, dim d) { return dim_resolve(&s->r->m->syms, d); }

static inline const tinfo *fold_ti_in(fs *s, const node *n, int32_t i)
{
	return i < n->ninputs && n->inputs[i] >= 0 ? &s->g->values[n->inputs[i]].ti : NULL;
}

/* The element count of t, a tensor whose rank is at most max_rank and whose every dim
 * is a known number once the symbols are resolved; -1 for any other. The dims go to
 * d when it is not NULL (max_rank entries of room). */
static inline int64_t fold_known_count(fs *s, const tinfo *t, int32_t max_rank, int64_t *d)
{
	if (!t || t->kind != TK_TENSOR || t->rank < 0 || t->rank > max_rank)
		return -1;
	int64_t c = 1;
	for (int32_t k = 0; k < t->rank; k++) {
		dim x = fold_res(s, t->dims[k]);
		if (x.kind != DIM_KNOWN || x.v < 0 || __builtin_mul_overflow(c, x.v, &c))
			return -1;
		if (d)
			d[k] = x.v;
	}
	return c;
}

/* The value consumers of id read after the bypasses decided so far. */
static inline int32_t fold_current(fs *s, int32_t id)
{
	for (int guard = 0; id >= 0 && s->repl[id] >= 0 && guard < 1 << 20; guard++)
		id = s->repl[id];
	return id;
}

/* Whether value id may be bypassed: its consumers can read another value. */
static inline bool fold_bypassable(fs *s, int32_t id)
{
	return id >= 0 && !s->g->values[id].is_output && !s->outer_read[id];
}

/* ---- fold_forms.c ---- */

#define FOLD_OP_PURE 0x80

/* Node n's operator, as the fold tells them apart, and whether it is pure; the
 * answers for an operator the memo has no room for are worked out each time. */
void fold_op_answer(const node *n, uint8_t *op, bool *pure);
static inline void fold_op_lookup(fs *s, const node *n, uint8_t *op, bool *pure)
{
	bool found;
	int32_t i = type_memo_slot(s->ops->key, FOLD_OP_SLOTS, (type_key){n->op_type, n->domain, n->opset}, &found);
	if (i >= 0 && found) {
		*op = s->ops->op[i];
		*pure = s->ops->pure[i];
		return;
	}
	fold_op_answer(n, op, pure);
	if (i >= 0) {
		s->ops->op[i] = *op;
		s->ops->pure[i] = *pure;
	}
}
/* Node n's operator class with FOLD_OP_PURE when it is pure and holds no body, as
 * fs.op keeps it for every node. */
static inline uint8_t fold_op_classify(fs *s, const node *n)
{
	uint8_t op;
	bool pure;
	fold_op_lookup(s, n, &op, &pure);
	return (uint8_t)(op | (pure && !n->nsubgraphs ? FOLD_OP_PURE : 0));
}
/* fs.op's entry for node n, a node of s->g (filled before any decision). */
static inline uint8_t fold_op_class(const fs *s, const node *n) { return s->op[n - s->g->nodes]; }
static inline fold_op fold_op_of(fs *s, const node *n) { return (fold_op)(fold_op_class(s, n) & ~FOLD_OP_PURE); }
/* Pure, and holding no body (whose nodes might not be). */
static inline bool fold_pure(fs *s, const node *n) { return fold_op_class(s, n) & FOLD_OP_PURE; }

/* Appends form f (its content copied into the model's arena); forms_counted: it is
 * one of the report's constant forms. False when memory ran out (r is marked). */
bool fold_add_form(fs *s, form f, bool forms_counted);

/* Whether input slot i of node ni reads a new constant instead. */
static inline bool fold_slot_formed(const fs *s, int32_t ni, int32_t i)
{
	for (int32_t k = s->form_at[ni]; k >= 0 && k < s->nforms && s->forms[k].ni == ni; k++)
		if (s->forms[k].slot == i)
			return true;
	return false;
}

/* The value input slot i of live node ni reads once the decisions are applied: its
 * own input as bypassed, or the swapped branch and the Not's input of an absorbed
 * Not (fs.negated); -1 where a new constant replaces the input (or none is there).
 * Asked for every input of every node: inline. */
static inline int32_t fold_slot_reads(fs *s, int32_t ni, int32_t i)
{
	const node *n = &s->g->nodes[ni];
	int32_t neg = s->negated ? s->negated[ni] : -1;
	if (neg >= 0 && i < 3)
		return fold_current(s, i ? n->inputs[3 - i] : s->g->nodes[neg].inputs[0]);
	if (n->inputs[i] < 0 || fold_slot_formed(s, ni, i))
		return -1;
	return fold_current(s, n->inputs[i]);
}

/* The data of value id when it is a constant: an initializer's, or a Constant
 * node's tensor; NULL otherwise. */
const tensor_view *fold_constant_view(fs *s, int32_t id);

/* The permutation of Transpose n, whose input has rank `rank`, into p (the dims
 * reversed without perm): false when it has none of that rank. */
bool fold_perm(const node *n, int32_t rank, int64_t *p);

/* ---- fold_layout.c ---- */

/* Whether node ni (pure, its outputs too large or unknown for inference to hold
 * their content) only moves a constant's data: a Reshape, Unsqueeze, Squeeze or
 * Flatten of one, or a Transpose, to a shape inference knows. Records how (its
 * fate is then F_FOLD); false when memory ran out, or it is none of those. */
bool fold_layout_decide(fs *s, int32_t ni);
/* Queues the initializer named `name` that holds node ni's moved output. */
bool fold_layout_apply(fs *s, int32_t ni, const char *name);
/* Whether fold_layout_decide moved node ni's output. */
static inline bool fold_moved(const fs *s, int32_t ni) { return s->moved_at && s->moved_at[ni] >= 0; }

/* ---- fold_transpose.c ---- */

/* After every node's fate is decided: each Transpose whose output only elementwise
 * nodes and keepdims reductions read, up to Transposes of the inverse permutation,
 * goes with them, and the nodes between work in its input's layout (their constant
 * operands and reduction axes permuted to match). */
void fold_cancel_transposes(fs *s);

#endif
