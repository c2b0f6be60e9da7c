/* fold_layout.c: constants moved, not computed.
 *
 * A Reshape, Unsqueeze, Squeeze or Flatten of a constant holds the constant's data
 * under other dims, and a Transpose of one the same data in another order. When the
 * constant is too large for inference to hold its content (a weight), the fold can
 * still replace such a node by an initializer: the data is copied from the
 * constant's tensor, not computed from what inference knows, along a chain of
 * such nodes (Transposes compose; a reshape after one changes only the dims, and
 * a Transpose after that permutes the data the chain made so far, copied then).
 * ONNX Runtime's constant folding does the same to any constant.
 */
#include "passes/rewrite/fold.h"
#include "core/grow.h"

#include <string.h>

/* The largest constant moved: the edit holds a copy of it until the write. */
#define FOLD_MAX_MOVED (1 << 24)

typedef enum move_kind { MV_NONE, MV_RESHAPE, MV_TRANSPOSE } move_kind;

static move_kind kind_of(fs *s, const node *n)
{
	if (n->noutputs != 1 || n->outputs[0] < 0 || n->ninputs < 1 || n->inputs[0] < 0)
		return MV_NONE;
	switch (fold_op_of(s, n)) {
	case FO_RESHAPE: return n->opset >= 5 ? MV_RESHAPE : MV_NONE;
	case FO_UNSQUEEZE:
	case FO_SQUEEZE:
	case FO_FLATTEN: return MV_RESHAPE;
	case FO_TRANSPOSE: return MV_TRANSPOSE;
	default: return MV_NONE;
	}
}

/* How value id's data is a constant's: a moved value's record, or the constant
 * itself; false when it is neither. */
static bool source_of(fs *s, int32_t id, moved *m)
{
	const value *v = &s->g->values[id];
	if (v->origin == VAL_NODE && v->producer >= 0 && s->fate[v->producer] == F_FOLD && fold_moved(s, v->producer)) {
		*m = s->moves[s->moved_at[v->producer]];
		return true;
	}
	const tensor_view *tv = fold_constant_view(s, id);
	if (!edit_view_copyable(tv) || tv->rank > EDIT_MAX_PERM || tv->count > FOLD_MAX_MOVED)
		return false;
	*m = (moved){.src = tv, .rank = tv->rank};
	for (int32_t k = 0; k < tv->rank; k++) {
		m->dims[k] = tv->dims[k];
		m->perm[k] = k;
	}
	return true;
}

static bool identity(const moved *m)
{
	for (int32_t k = 0; k < m->rank; k++)
		if (m->perm[k] != k)
			return false;
	return true;
}

bool fold_layout_decide(fs *s, int32_t ni)
{
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	move_kind kind = kind_of(s, n);
	if (kind == MV_NONE)
		return false;
	const value *out = &g->values[n->outputs[0]];
	int64_t od[EDIT_MAX_PERM];
	int32_t x = fold_current(s, n->inputs[0]);
	moved m;
	if ((out->is_output && g == s->r->m->main) || x < 0 || !source_of(s, x, &m) ||
	    m.src->count != fold_known_count(s, &out->ti, EDIT_MAX_PERM, od))
		return false;
	if (kind == MV_TRANSPOSE) {
		int64_t xd[EDIT_MAX_PERM], p[EDIT_MAX_PERM];
		const tinfo *xt = &g->values[x].ti;
		if (fold_known_count(s, xt, EDIT_MAX_PERM, xd) != m.src->count || !fold_perm(n, xt->rank, p))
			return false;
		/* A transpose of a transpose is one, unless a reshape came between (the
		 * input's dims are then not the first's transposed dims). */
		bool composes = xt->rank == m.rank;
		for (int32_t k = 0; composes && k < m.rank; k++)
			composes = xd[k] == m.dims[m.perm[k]];
		if (composes) {
			int64_t q[EDIT_MAX_PERM];
			for (int32_t k = 0; k < m.rank; k++)
				q[k] = m.perm[p[k]];
			memcpy(m.perm, q, (size_t)m.rank * sizeof *q);
		} else {
			/* The input's data made in its own order first: a row-major view under
			 * its dims, which this Transpose permutes. */
			if (!identity(&m) &&
			    !(m.src = edit_view_transposed(s->r->m->arena, m.src, m.dims, m.perm, m.rank, xd, xt->rank)))
				return false;
			m.rank = xt->rank;
			memcpy(m.dims, xd, (size_t)xt->rank * sizeof *xd);
			memcpy(m.perm, p, (size_t)xt->rank * sizeof *p);
		}
	}
	if (!s->moved_at) {
		size_t nn = (size_t)g->nnodes;
		if (!(s->moved_at = arena_array(s->r->m->arena, nn, sizeof *s->moved_at))) {
			rw_nomem(s->r);
			return false;
		}
		memset(s->moved_at, 0xff, nn * sizeof *s->moved_at);
	}
	if (s->nmoves == s->cap_moves &&
	    !(s->moves = grow_arena_i32(s->r->m->arena, s->moves, &s->cap_moves, 8, sizeof *s->moves))) {
		rw_nomem(s->r);
		return false;
	}
	s->moved_at[ni] = s->nmoves;
	s->moves[s->nmoves++] = m;
	s->fate[ni] = F_FOLD;
	return true;
}

bool fold_layout_apply(fs *s, int32_t ni, const char *name)
{
	const moved *m = &s->moves[s->moved_at[ni]];
	const tinfo *t = &s->g->values[s->g->nodes[ni].outputs[0]].ti;
	int64_t od[EDIT_MAX_PERM];
	fold_known_count(s, t, EDIT_MAX_PERM, od);
	return edit_transposed_initializer(s->r->e, s->g, name, m->src, m->dims, m->perm, m->rank, od, t->rank);
}
