/* symbols.c: see symbols.h. Union by preference, then rank, with path halving. */
#include "core/symbols.h"
#include "core/checked.h"

/* Resolution recurses through an expression's atoms; facts cannot make it cycle
 * (symbols.h), and this bound keeps a bug from doing so either. */
#define MAX_DEPTH 32

int64_t sym_root(symtab *t, int64_t id)
{
	while (t->v[id].parent != id) {
		t->v[id].parent = t->v[t->v[id].parent].parent;
		id = t->v[id].parent;
	}
	return id;
}

bool sym_same(symtab *t, int64_t a, int64_t b) { return sym_root(t, a) == sym_root(t, b); }

bool sym_value(symtab *t, int64_t id, int64_t *value)
{
	dim d = sym_resolve(t, id);
	if (d.kind == DIM_KNOWN)
		*value = d.v;
	return d.kind == DIM_KNOWN;
}

typedef struct resolver {
	symtab *t;
	int depth;
} resolver;

static dim resolve_at(resolver *r, int64_t id);

static dim atom_cb(void *ctx, int64_t atom) { return resolve_at(ctx, atom); }

static dim resolve_at(resolver *r, int64_t id)
{
	symtab *t = r->t;
	int64_t root = sym_root(t, id);
	sym_entry *e = &t->v[root];
	if (e->has_value)
		return dim_known(e->value);
	if (e->kind == DX_NAME || r->depth >= MAX_DEPTH)
		return dim_symbol(root);
	if (e->res_gen == t->gen && t->gen != 0)
		return e->res;
	r->depth++;
	dim d = dx_subst(t, dim_symbol(root), atom_cb, r);
	/* The rebuilt form may be a member of another class. */
	if (d.kind == DIM_SYMBOL && d.v != root && sym_root(t, d.v) != d.v)
		d = resolve_at(r, d.v);
	else if (d.kind == DIM_SYMBOL && t->v[d.v].has_value)
		d = dim_known(t->v[d.v].value);
	r->depth--;
	/* Could not rebuild: the form as it was is still right. Nor when the facts make
	 * it negative (`a - b` with a = 1 and b = 5): no tensor has that size, and the
	 * text, which ONNX Runtime reads as a name, is then taken as one. */
	if (d.kind == DIM_UNKNOWN || (d.kind == DIM_KNOWN && d.v < 0))
		d = dim_symbol(root);
	e = &t->v[root];          /* the table may have grown */
	e->res_gen = t->gen;
	e->res = d;
	return d;
}

dim sym_resolve(symtab *t, int64_t id)
{
	resolver r = {t, 0};
	return resolve_at(&r, id);
}

static void changed(symtab *t)
{
	t->bound = true;
	t->gen++;
}

/* c*x + k = v for a single atom x: the value of x, when it is a whole number. */
static bool solve_linear(symtab *t, int64_t id, int64_t v, int64_t *atom, int64_t *value)
{
	int64_t c, k, rest;
	return dx_linear(t, dim_symbol(id), atom, &c, &k) && !__builtin_sub_overflow(v, k, &rest) &&
	       i64_divexact(rest, c, value);
}

bool sym_bind(symtab *t, int64_t a, int64_t k)
{
	if (k < 0)
		return false; /* no size is negative */
	dim d = sym_resolve(t, a);
	if (d.kind == DIM_KNOWN)
		return d.v == k;
	int64_t x, xv;
	/* A solution below 0 (seq + 5 = 3) binds the expression alone, as a name. */
	if (solve_linear(t, d.v, k, &x, &xv) && xv >= 0)
		return sym_bind(t, x, xv);
	sym_entry *r = &t->v[sym_root(t, d.v)];
	if (r->has_value)
		return r->value == k;
	r->has_value = true;
	r->value = k;
	changed(t);
	return true;
}

/* Which member represents a class: a size of a graph input (batch), then an
 * expression (batch*seq, over those), then another name the model wrote (an
 * exporter's placeholder for an output, LayerNormalization340_dim_1), then a name
 * onnxshape made up. */
static int preference(const sym_entry *e)
{
	if (e->kind != DX_NAME)
		return 1;
	return e->fresh ? 3 : e->input ? 0 : 2;
}

bool sym_unify(symtab *t, int64_t a, int64_t b)
{
	dim da = sym_resolve(t, a), db = sym_resolve(t, b);
	if (da.kind == DIM_KNOWN && db.kind == DIM_KNOWN)
		return da.v == db.v;
	if (da.kind == DIM_KNOWN)
		return sym_bind(t, db.v, da.v);
	if (db.kind == DIM_KNOWN)
		return sym_bind(t, da.v, db.v);
	int64_t ra = sym_root(t, da.v), rb = sym_root(t, db.v);
	if (ra == rb)
		return true;
	sym_entry *x = &t->v[ra], *y = &t->v[rb];
	if (x->has_value && y->has_value && x->value != y->value)
		return false;
	int px = preference(x), py = preference(y);
	bool swap = px != py ? px > py : x->rank < y->rank;
	/* The representative must not contain the other (symbols.h). */
	if (swap ? dx_occurs(t, dim_symbol(rb), ra) : dx_occurs(t, dim_symbol(ra), rb))
		swap = !swap;
	if (swap) {
		sym_entry *s = x;
		x = y, y = s;
		int64_t r = ra;
		ra = rb, rb = r;
	}
	y->parent = ra;
	if (x->rank == y->rank)
		x->rank++;
	if (y->has_value && !x->has_value)
		x->has_value = true, x->value = y->value;
	changed(t);
	return true;
}

/* Whether x is Min(y, K...) with every other argument a number >= 2: then x is 1
 * exactly when y is. */
static bool min_of(const symtab *t, dim x, dim y)
{
	int64_t n;
	const dim *args = dx_args_of(t, x, DX_MIN, &n);
	bool has_y = false;
	for (int64_t i = 0; args && i < n; i++) {
		if (args[i].kind == DIM_SYMBOL && y.kind == DIM_SYMBOL && args[i].v == y.v)
			has_y = true;
		else if (args[i].kind != DIM_KNOWN || args[i].v < 2)
			return false;
	}
	return has_y;
}

bool sym_eq_cb(void *ctx, int64_t a, int64_t b)
{
	symtab *t = ctx;
	if (sym_same(t, a, b))
		return true;
	dim x = sym_resolve(t, a), y = sym_resolve(t, b);
	if (x.kind == y.kind && x.kind != DIM_UNKNOWN && x.v == y.v)
		return true;
	/* Two sizes that are 1 together are equal wherever they broadcast: Min(seq, 512)
	 * against seq (a position table sliced to the sequence) runs only when seq <=
	 * 512. The fact is recorded, so what follows uses one of them. */
	if (x.kind == DIM_SYMBOL && y.kind == DIM_SYMBOL && (min_of(t, x, y) || min_of(t, y, x)))
		return sym_unify(t, x.v, y.v);
	return false;
}

const char *sym_name_cb(void *ctx, int64_t id) { return sym_name(ctx, id); }
