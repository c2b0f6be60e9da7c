/* infer.c: the shape inference pass and the helpers operator rules use.
 *
 * Walks each graph in the loader's topological order. Graph inputs start from their
 * declared types (or --input-shape overrides), initializers from their dims and, when
 * small, their values; each node's rule (rule_table.c) sets its outputs; the result is
 * then reconciled with what the file declares for that value: a declaration fills in
 * what inference left unknown, and one that contradicts inference is kept as declared
 * and reported as a shape-conflict error. Subgraphs (If/Loop/Scan bodies) are inferred
 * when their node is, with the outer scope's values as they are at that point.
 *
 * Invariant: a value's tinfo is final once the node producing it has been processed;
 * arrays published on a value are never modified afterwards.
 */
#include "passes/infer/infer.h"

#include "passes/infer/dims_share.h"

#include "core/dtype.h"
#include "core/grow.h"
#include "core/tensor.h"
#include "core/type_memo.h"
#include "passes/infer/check_schema.h"
#include "passes/pass.h"
#include "passes/provenance.h"
#include "passes/rules/rules_paddle.h"
#include "passes/rules/rules_broadcast3.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUB_DEPTH 64

/* ---- inputs ------------------------------------------------------------------- */

const char *in_name(infer_ctx *c, int32_t i)
{
	if (i < 0 || i >= c->n->ninputs || c->n->inputs[i] < 0)
		return "";
	return c->g->values[c->n->inputs[i]].name;
}

bool in_known_ints(infer_ctx *c, int32_t i, int64_t *out, int32_t cap, int32_t *n)
{
	const dim *v;
	int32_t k;
	if (!in_ints(c, i, &v, &k) || k > cap)
		return false;
	for (int32_t j = 0; j < k; j++) {
		dim d = dim_resolve(c->syms, v[j]);
		if (d.kind != DIM_KNOWN)
			return false;
		out[j] = d.v;
	}
	*n = k;
	return true;
}

/* Float content of an initializer (or of a value given for this run) is decoded only
 * when a rule asks for it, unless it is tiny (EAGER_FLOATS): decoding every weight up
 * front stored each model's weights a second time, as doubles (twice their size), and
 * took much of the inference time, for content hardly any rule reads. Integer
 * content (shapes, axes, sizes: small, read everywhere) stays eager. Eager float
 * content follows a tensor through pass-through nodes (Identity before Resize);
 * 8 entries cover scalars and a scale per axis, where a much higher bound would store
 * every parameter of a CNN's small batch norms as doubles too. */
#define EAGER_FLOATS 8

static bool float_content(const tensor_view *tv)
{
	return tv && tv->count >= 0 && tv->count <= TINFO_MAX_VALUES && !tv->external;
}

/* Decodes the float content of input i's initializer now, if it has one not decoded
 * yet; returns the input's tinfo. A subgraph's reference to an outer initializer
 * decodes it there and shares the array. */
static const tinfo *lazy_floats(infer_ctx *c, int32_t i)
{
	value *v = &c->g->values[c->n->inputs[i]], *src = v;
	for (int depth = 0; src->origin == VAL_OUTER && value_outer(src) && depth < MAX_SUB_DEPTH; depth++)
		src = &value_outer(src)->values[value_outer_id(src)];
	const tensor_view *tv = value_given(src) ? value_given(src)
			       : src->origin == VAL_INITIALIZER ? src->init_view : NULL;
	if (src->ti.kind != TK_TENSOR || src->ti.nfval >= 0 || !float_content(tv))
		return &v->ti;
	double *f = arena_array(c->a, tv->count ? (size_t)tv->count : 1, sizeof *f);
	if (!f) {
		c->m->nomem = true;
		return &v->ti;
	}
	if (!tensor_floats(tv, f))
		return &v->ti;
	src->ti.nfval = (int32_t)tv->count;
	src->ti.fval = f;
	if (v != src && v->ti.kind == TK_TENSOR && v->ti.nfval < 0) {
		v->ti.nfval = src->ti.nfval;
		v->ti.fval = f;
	}
	return &v->ti;
}

bool in_floats_lazy(infer_ctx *c, int32_t i, const double **vals, int32_t *n)
{
	const tinfo *t = lazy_floats(c, i);
	if (t->nfval < 0)
		return false;
	*vals = t->fval;
	*n = t->nfval;
	return true;
}

/* ---- outputs ------------------------------------------------------------------ */

static inline value *out_value(infer_ctx *c, int32_t i)
{
	if (i < 0 || i >= c->n->noutputs || c->n->outputs[i] < 0)
		return NULL;
	value *v = &c->g->values[c->n->outputs[i]];
	/* A value produced twice (a loader error) belongs to its first producer. */
	return v->producer == c->ni ? v : NULL;
}

bool out_present(infer_ctx *c, int32_t i) { return out_value(c, i) != NULL; }

dim *dims_alloc(infer_ctx *c, int32_t n)
{
	dim *d = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *d);
	if (!d)
		c->m->nomem = true;
	return d;
}

dim *dims_dup(infer_ctx *c, const dim *d, int32_t n)
{
	dim *x = dims_alloc(c, n);
	if (x && n > 0)
		memcpy(x, d, (size_t)n * sizeof *d);
	return x;
}

/* A resolved copy of d[0..n) for a value, shared with any equal one published before
 * (dims_share.h): a few thousand distinct shapes among millions of values. */
#define SHARE_BUF 16

/* d's equal in the cache, or a new copy of it there (short arrays only). */
static const dim *share(infer_ctx *c, const dim *d, int32_t n)
{
	const dim *p = dims_share_get(c->shared, c->a, d, n);
	if (!p)
		c->m->nomem = true;
	return p;
}

static const dim *publish(infer_ctx *c, const dim *d, int32_t n)
{
	if (n > SHARE_BUF) {
		dim *r = dims_alloc(c, n);
		for (int32_t k = 0; r && k < n; k++)
			r[k] = dim_resolve(c->syms, d[k]);
		return r;
	}
	dim buf[SHARE_BUF];
	for (int32_t k = 0; k < n; k++)
		buf[k] = dim_resolve(c->syms, d[k]);
	return share(c, buf, n);
}

/* Whether a symbol of d[0..n) now resolves to something else (a size, another name). */
static bool resolves(infer_ctx *c, const dim *d, int32_t n)
{
	if (!c->syms->bound)
		return false;
	for (int32_t k = 0; k < n; k++) {
		if (d[k].kind != DIM_SYMBOL)
			continue;
		dim r = dim_resolve(c->syms, d[k]);
		if (r.kind != DIM_SYMBOL || r.v != d[k].v)
			return true;
	}
	return false;
}

/* publish for an output's shape. Most outputs have the shape of an input (Relu, x +
 * bias, a same-padded Conv): the input's array, when it is one the cache handed out
 * (dims_share_owns), is the answer, found by a compare instead of a hash. */
static const dim *publish_shape(infer_ctx *c, const dim *d, int32_t n)
{
	if (n > SHARE_BUF)
		return publish(c, d, n);
	if (dims_share_owns(c->shared, d, n) && !resolves(c, d, n))
		return d; /* an input's array, passed on as it is */
	dim buf[SHARE_BUF];
	const dim *r = d; /* d resolved: d itself while no symbol is bound (symbols.h) */
	if (c->syms->bound) {
		for (int32_t k = 0; k < n; k++)
			buf[k] = dim_resolve(c->syms, d[k]);
		r = buf;
	}
	for (int32_t i = 0; i < c->n->ninputs; i++) {
		const tinfo *t = in(c, i);
		if (t && t->kind == TK_TENSOR && t->rank == n && dims_share_owns(c->shared, t->dims, n) &&
		    dims_share_same(t->dims, r, n))
			return t->dims;
	}
	return share(c, r, n);
}

/* The same for integers: sizes (`dims`: a negative one is unknown) or content. */
static dim known_int(int64_t v, bool dims) { return v >= 0 || !dims ? dim_known(v) : dim_unknown(); }

static const dim *publish_ints(infer_ctx *c, const int64_t *v, int32_t n, bool dims)
{
	if (n > SHARE_BUF) {
		dim *r = dims_alloc(c, n);
		for (int32_t k = 0; r && k < n; k++)
			r[k] = known_int(v[k], dims);
		return r;
	}
	dim buf[SHARE_BUF];
	for (int32_t k = 0; k < n; k++)
		buf[k] = known_int(v[k], dims);
	return share(c, buf, n);
}

/* Whether no tensor of element type elem has the known dims d[0..n): their product
 * (shape_known_count), or that times the element's width in bytes, overflows int64.
 * ONNX Runtime cannot run the node that makes such an output, whichever operator it
 * is (it fails sizing the output's storage, or allocating it), so the check is made
 * here, once for every rule. Inline and cheap: it runs on every output of every node. */
static inline bool too_big(int32_t elem, const dim *d, int32_t n)
{
	int64_t count, bytes;
	if (!shape_known_count((shape){n, d}, -1, &count))
		return true;
	/* No type is wider than 16 bytes; below that the width need not be looked up.
	 * Sub-byte types take fewer bytes than elements. */
	if (count <= INT64_MAX / 16)
		return false;
	int bits = dtype_bits(elem);
	return bits > 8 && __builtin_mul_overflow(count, bits / 8, &bytes);
}

/* Output i of shape d[0..n), too_big: reports it, and returns what to publish
 * instead, the same dims with the known ones but 1 unknown, so that no node after
 * this one multiplies them again (or d when out of memory). An output as big as one
 * of the node's inputs already is (a declaration, reported where it was read) is
 * returned as it is, unreported. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static const dim *too_big_out(infer_ctx *c, int32_t i, int32_t elem, const dim *d, int32_t n)
{
	for (int32_t k = 0; k < c->n->ninputs; k++) {
		const tinfo *t = in(c, k);
		if (t && t->kind == TK_TENSOR && t->rank > 0 && too_big(t->elem, t->dims, t->rank))
			return d;
	}
	char shown[512], why[160];
	shape_format(shown, sizeof shown, (shape){n, d}, sym_name_cb, c->syms);
	int64_t count;
	if (shape_known_count((shape){n, d}, -1, &count)) {
		snprintf(why, sizeof why, "%lld elements of %d bytes overflow int64 as a byte count", (long long)count,
			 dtype_bits(elem) / 8);
	} else {
		double p = 1;
		for (int32_t k = 0; k < n; k++)
			if (d[k].kind == DIM_KNOWN)
				p *= (double)d[k].v;
		snprintf(why, sizeof why, "%.3g elements overflow int64", p);
	}
	infer_diag(c, OSH_ERROR, "shape-error", "output '%s' would be %s: %s", c->g->values[c->n->outputs[i]].name,
		   shown, why);
	dim *r = dims_dup(c, d, n);
	for (int32_t k = 0; r && k < n; k++)
		if (r[k].kind == DIM_KNOWN && r[k].v > 1)
			r[k] = dim_unknown();
	return r ? r : d;
}

/* A size computed as an expression (`floor(samples/10) - 1`) that a tensor has as a
 * dimension is >= 0 in every run: the algebra may use it (dimexpr.h). */
static void mark_sizes(infer_ctx *c, const dim *d, int32_t rank)
{
	for (int32_t k = 0; k < rank; k++)
		if (d[k].kind == DIM_SYMBOL)
			c->syms->v[d[k].v].size = true;
}

void set_out(infer_ctx *c, int32_t i, int32_t elem, int32_t rank, const dim *dims)
{
	value *v = out_value(c, i);
	if (!v)
		return;
	tinfo t = tinfo_unknown();
	t.kind = TK_TENSOR;
	t.elem = dtype_valid(elem) ? elem : 0;
	if (rank >= 0) {
		const dim *d = publish_shape(c, dims, rank);
		if (!d)
			return;
		if (too_big(t.elem, d, rank))
			d = too_big_out(c, i, t.elem, d, rank);
		t.rank = rank;
		t.dims = d;
		mark_sizes(c, d, rank);
	}
	v->ti = t;
}

void set_out_info(infer_ctx *c, int32_t i, const tinfo *t)
{
	value *v = out_value(c, i);
	if (!v)
		return;
	v->ti = *t;
	if (t->kind == TK_TENSOR && t->rank > 0)
		mark_sizes(c, t->dims, t->rank);
	if (t->kind == TK_TENSOR && t->rank > 0 && too_big(t->elem, t->dims, t->rank)) {
		const dim *d = too_big_out(c, i, t->elem, t->dims, t->rank);
		if (d != t->dims) {
			v->ti.dims = d;
			v->ti.nval = v->ti.nfval = -1; /* content of a tensor that cannot be */
		}
	}
}

static int64_t element_count(const tinfo *t)
{
	if (t->rank < 0)
		return -1;
	int64_t n = 1;
	for (int32_t k = 0; k < t->rank; k++) {
		if (t->dims[k].kind != DIM_KNOWN || __builtin_mul_overflow(n, t->dims[k].v, &n))
			return -1;
	}
	return n;
}

void set_out_ints(infer_ctx *c, int32_t i, const dim *vals, int32_t n)
{
	value *v = out_value(c, i);
	if (!v || v->ti.kind != TK_TENSOR || n > TINFO_MAX_VALUES)
		return;
	int64_t count = element_count(&v->ti);
	if (count >= 0 && count != n)
		return; /* content and shape disagree: trust neither for content */
	const dim *d = publish(c, vals, n);
	if (!d)
		return;
	v->ti.nval = n;
	v->ti.val = d;
}

void set_out_floats(infer_ctx *c, int32_t i, const double *vals, int32_t n)
{
	value *v = out_value(c, i);
	if (!v || v->ti.kind != TK_TENSOR || n > TINFO_MAX_VALUES)
		return;
	int64_t count = element_count(&v->ti);
	if (count >= 0 && count != n)
		return;
	double *f = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *f);
	if (!f) {
		c->m->nomem = true;
		return;
	}
	if (n > 0)
		memcpy(f, vals, (size_t)n * sizeof *f);
	v->ti.nfval = n;
	v->ti.fval = f;
}

/* ---- attributes --------------------------------------------------------------- */

/* In a function body an attribute may be a reference (ref_attr_name) to one of the
 * function's own attributes: the calling node's attribute of that name, itself
 * possibly a reference one call further out. Absent there, it is absent here (the
 * rule's default applies), as in ONNX. */
static const attr_view *attr_in(const infer_ctx *c, const char *name)
{
	const attr_view *a = node_attr(c->n, name);
	if (!a || !a->ref)
		return a;
	return c->caller ? attr_in(c->caller, a->ref) : NULL;
}

const attr_view *attr(infer_ctx *c, const char *name) { return attr_in(c, name); }

bool attr_has(infer_ctx *c, const char *name) { return attr(c, name) != NULL; }

int64_t attr_i(infer_ctx *c, const char *name, int64_t def)
{
	const attr_view *a = attr(c, name);
	return a && a->type == AT_INT ? a->i : def;
}

float attr_f(infer_ctx *c, const char *name, float def)
{
	const attr_view *a = attr(c, name);
	return a && a->type == AT_FLOAT ? a->f : def;
}

const char *attr_s(infer_ctx *c, const char *name, const char *def)
{
	const attr_view *a = attr(c, name);
	return a && a->type == AT_STRING && a->s ? a->s : def;
}

bool attr_ints(infer_ctx *c, const char *name, const int64_t **v, int32_t *n)
{
	const attr_view *a = attr(c, name);
	if (!a || a->type != AT_INTS)
		return false;
	*v = a->ints;
	*n = a->n;
	return true;
}

graph *attr_graph(infer_ctx *c, const char *name)
{
	const attr_view *a = attr(c, name);
	if (!a || a->type != AT_GRAPH || a->graph_index >= c->n->nsubgraphs)
		return NULL;
	return c->n->subgraphs[a->graph_index];
}

/* ---- helpers ------------------------------------------------------------------ */

int32_t in_rank_refused(infer_ctx *c, int32_t i)
{
	infer_diag(c, OSH_ERROR, "shape-error", "%s: input '%s' has rank %d, above the supported %d", c->n->op_type,
		   in_name(c, i), in(c, i)->rank, RULE_MAX_RANK);
	return -1;
}

dim dim_fresh(infer_ctx *c)
{
	int64_t id = sym_fresh(c->syms, NULL);
	if (id < 0) {
		c->m->nomem = true;
		return dim_unknown();
	}
	return dim_symbol(id);
}

dim dim_fresh_same(infer_ctx *c)
{
	/* The key: the operator, its attributes, and the values it reads (by address:
	 * unique in the model). Attributes of other types than these are not compared:
	 * such a node gets a symbol of its own. */
	char key[1024];
	int len = snprintf(key, sizeof key, "%s|%s", c->n->domain, c->n->op_type);
	for (int32_t i = 0; i < c->n->ninputs && len < (int)sizeof key; i++)
		len += snprintf(key + len, sizeof key - (size_t)len, "|%p",
				c->n->inputs[i] < 0 ? NULL : (void *)&c->g->values[c->n->inputs[i]]);
	for (int32_t k = 0; k < c->n->nattrs && len < (int)sizeof key; k++) {
		const attr_view *a = &c->n->attrs[k];
		if (a->type == AT_INT)
			len += snprintf(key + len, sizeof key - (size_t)len, "|%s=%lld", a->name, (long long)a->i);
		else if (a->type == AT_FLOAT)
			len += snprintf(key + len, sizeof key - (size_t)len, "|%s=%a", a->name, (double)a->f);
		else if (a->type == AT_STRING)
			len += snprintf(key + len, sizeof key - (size_t)len, "|%s=%s", a->name, a->s ? a->s : "");
		else
			return dim_fresh(c);
	}
	if (len >= (int)sizeof key || !c->fresh_keys)
		return dim_fresh(c);
	int32_t id = strmap_get(c->fresh_keys, key);
	if (id >= 0)
		return dim_symbol(id);
	dim d = dim_fresh(c);
	const char *copy = d.kind == DIM_SYMBOL ? arena_strdup(c->a, key) : NULL;
	if (copy && strmap_put(c->fresh_keys, copy, (int32_t)d.v) < 0)
		c->m->nomem = true;
	return d;
}

bool norm_axis(infer_ctx *c, int64_t axis, int32_t rank, bool inclusive, const char *what, int32_t *out)
{
	int64_t hi = (int64_t)rank + (inclusive ? 1 : 0);
	if (shape_axis(axis, hi, out))
		return true;
	infer_diag(c, OSH_ERROR, "shape-error", "%s %lld is out of range for rank %d (valid: %lld to %lld)", what,
		   (long long)axis, rank, (long long)-hi, (long long)hi - 1);
	return false;
}

static dim overflow(infer_ctx *c, const char *op, int64_t a, int64_t b)
{
	infer_diag(c, OSH_ERROR, "shape-error", "dimension arithmetic overflows int64: %lld %s %lld",
		   (long long)a, op, (long long)b);
	return dim_unknown();
}

/* Known sizes are computed here, so that an overflow is reported; anything with a
 * symbol is an expression (dimexpr.h), which gives unknown past its bounds. */
dim dim_add(infer_ctx *c, dim a, dim b)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return __builtin_add_overflow(a.v, b.v, &r) ? overflow(c, "+", a.v, b.v) : dim_known(r);
	return dx_add(c->syms, a, b);
}

dim dim_sub(infer_ctx *c, dim a, dim b)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return __builtin_sub_overflow(a.v, b.v, &r) ? overflow(c, "-", a.v, b.v) : dim_known(r);
	return dx_sub(c->syms, a, b);
}

dim dim_mul(infer_ctx *c, dim a, dim b)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return __builtin_mul_overflow(a.v, b.v, &r) ? overflow(c, "*", a.v, b.v) : dim_known(r);
	return dx_mul(c->syms, a, b);
}

dim dims_product(infer_ctx *c, const dim *dims, int32_t n, int32_t skip)
{
	dim p = dim_known(1);
	for (int32_t k = 0; k < n; k++) {
		if (k == skip)
			continue;
		dim d = dim_resolve(c->syms, dims[k]);
		/* A 0 anywhere empties the tensor, whatever the unknown dims are. */
		if (dim_is(d, 0))
			return d;
		if (p.kind != DIM_UNKNOWN)
			p = d.kind == DIM_KNOWN && p.kind == DIM_KNOWN ? dim_mul(c, p, d) : dx_mul(c->syms, p, d);
	}
	return p;
}

dim dim_floordiv(infer_ctx *c, dim a, dim b)
{
	return dx_floordiv(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b));
}

dim dim_ceildiv(infer_ctx *c, dim a, dim b)
{
	return dx_ceildiv(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b));
}

dim dim_divexact(infer_ctx *c, dim a, dim b)
{
	return dx_divexact(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b));
}

dim dim_max(infer_ctx *c, dim a, dim b) { return dx_max(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b)); }
dim dim_min(infer_ctx *c, dim a, dim b) { return dx_min(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b)); }

/* dim_merge when a dim may be a symbol or unknown. */
bool dim_merge_symbolic(infer_ctx *c, dim a, dim b, dim *out)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	if (a.kind == DIM_UNKNOWN) {
		*out = b;
		return true;
	}
	if (b.kind == DIM_UNKNOWN) {
		*out = a;
		return true;
	}
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		*out = a;
		return a.v == b.v;
	}
	if (a.kind == DIM_KNOWN || b.kind == DIM_KNOWN) {
		dim k = a.kind == DIM_KNOWN ? a : b, s = a.kind == DIM_KNOWN ? b : a;
		*out = k;
		return sym_bind(c->syms, s.v, k.v);
	}
	*out = a;
	return sym_unify(c->syms, a.v, b.v);
}

const char *fmt_shape(infer_ctx *c, const tinfo *t)
{
	if (!t || t->kind == TK_UNKNOWN)
		return "(unknown)";
	char buf[512];
	shape_format(buf, sizeof buf, tinfo_shape(t), sym_name_cb, c->syms);
	const char *s = arena_strdup(c->a, buf);
	return s ? s : "";
}

void infer_diag(infer_ctx *c, osh_severity sev, const char *code, const char *fmt, ...)
{
	if (c->quiet)
		return;
	char buf[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* In a function body the finding depends on the call: name it. */
	if (c->caller)
		model_diag(c->m, sev, code, c->g, c->ni, NULL, "%s (in the call at node '%s' (%s))", buf,
			   c->caller->n->name, c->caller->n->op_type);
	else
		model_diag(c->m, sev, code, c->g, c->ni, NULL, "%s", buf);
}

bool bcast_plain(infer_ctx *c, bcast_rule rule, shape a, shape b, dim *dims)
{
	bool numpy = rule == BCAST_NUMPY || rule == BCAST_BIDIRECTIONAL;
	if (!numpy && rule != BCAST_UNIDIRECTIONAL)
		return false;
	if (a.rank < 0 || b.rank < 0 || (!numpy && b.rank > a.rank))
		return false;
	int32_t n = a.rank > b.rank ? a.rank : b.rank, oa = n - a.rank, ob = n - b.rank;
	for (int32_t i = n - 1; i >= 0; i--) {
		dim da = i >= oa ? dim_resolve(c->syms, a.dims[i - oa]) : dim_known(1);
		dim db = i >= ob ? dim_resolve(c->syms, b.dims[i - ob]) : dim_known(1);
		if (dim_eq(da, db) || dim_is(db, 1))
			dims[i] = da;
		else if (numpy && dim_is(da, 1))
			dims[i] = db;
		else if (!numpy && (da.kind == DIM_UNKNOWN || db.kind == DIM_UNKNOWN))
			dims[i] = da;
		else
			return false;
	}
	return true;
}

void record_facts(infer_ctx *c, const sym_fact *facts, int32_t n)
{
	for (int32_t k = 0; k < n; k++) {
		const sym_fact *f = &facts[k];
		if (f->kind == FACT_EQUALS && !sym_bind(c->syms, f->sym, f->k)) {
			int64_t was = 0;
			sym_value(c->syms, f->sym, &was);
			infer_diag(c, OSH_ERROR, "symbol-constraint",
				   "'%s' must be %lld here, but it was found to be %lld earlier",
				   sym_name(c->syms, f->sym), (long long)f->k, (long long)was);
		}
	}
}

/* infer_broadcast past bcast_plain: the rule tables, the facts, the report. Out of
 * line, with its buffers, so that the usual case sets up no frame for them. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool broadcast_by_rule(infer_ctx *c, bcast_rule rule, int32_t ia, int32_t ib, int64_t axis, int32_t *rank,
			      dim *dims, const tinfo *ta, const tinfo *tb, int32_t need)
{
	sym_fact facts[64];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 64};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, c->syms};
	/* Resolve symbols with known values first, so facts already learned apply. */
	dim ra[need > 0 ? need : 1], rb[need > 0 ? need : 1];
	for (int32_t k = 0; k < ta->rank; k++)
		ra[k] = dim_resolve(c->syms, ta->dims[k]);
	for (int32_t k = 0; k < tb->rank; k++)
		rb[k] = dim_resolve(c->syms, tb->dims[k]);
	shape sa = {ta->rank, ra}, sb = {tb->rank, rb};
	bool ok;
	switch (rule) {
	case BCAST_NONE: ok = bcast_none(sa, sb, &sc, &out, &err); break;
	case BCAST_NUMPY: ok = bcast_numpy(sa, sb, &sc, &out, &err); break;
	case BCAST_UNIDIRECTIONAL: ok = bcast_unidirectional(sa, sb, &sc, &out, &err); break;
	case BCAST_PDPD: ok = bcast_pdpd(sa, sb, axis, &sc, &out, &err); break;
	case BCAST_PADDLE: ok = bcast_paddle(sa, sb, axis, &sc, &out, &err); break;
	case BCAST_BIDIRECTIONAL: ok = bcast_bidirectional(sa, sb, &sc, &out, &err); break;
	default: ok = false; break;
	}
	if (!ok) {
		char why[512], origin[1024];
		const char *an = in_name(c, ia), *bn = in_name(c, ib);
		bcast_error_format(why, sizeof why, &err, an, bn, sym_name_cb, c->syms);
		prov_broadcast(c->m, c->g, c->ni, ia, ib, &err, origin, sizeof origin);
		infer_diag(c, OSH_ERROR, "broadcast-mismatch", "'%s' %s and '%s' %s do not broadcast (%s rule): %s%s",
			   an, fmt_shape(c, ta), bn, fmt_shape(c, tb), bcast_rule_name(rule), why, origin);
		*rank = RANK_UNKNOWN;
		return false;
	}
	record_facts(c, facts, out.nfacts);
	*rank = out.rank;
	return true;
}

bool infer_broadcast(infer_ctx *c, bcast_rule rule, int32_t ia, int32_t ib, int64_t axis, int32_t *rank,
		     dim *dims, int32_t cap)
{
	const tinfo *ta = in(c, ia), *tb = in(c, ib);
	if (!ta || !tb || ta->kind != TK_TENSOR || tb->kind != TK_TENSOR) {
		*rank = RANK_UNKNOWN;
		return true;
	}
	int32_t need = ta->rank > tb->rank ? ta->rank : tb->rank;
	if (need > cap) {
		*rank = RANK_UNKNOWN;
		return true;
	}
	if (bcast_plain(c, rule, tinfo_shape(ta), tinfo_shape(tb), dims)) {
		*rank = need;
		return true;
	}
	return broadcast_by_rule(c, rule, ia, ib, axis, rank, dims, ta, tb, need);
}

/* ---- the pass ----------------------------------------------------------------- */

/* What the initializers published last for each rank: a layer's initializers have
 * a few shapes (weight, bias, scale, mean, variance), the same in layer after layer,
 * and an initializer with the dims of its rank's entry gets the same array without
 * building and hashing its dims again (dims_share_again). */
#define INIT_MEMO_RANKS 8
_Static_assert(INIT_MEMO_RANKS <= SHARE_BUF, "a memo rank's dims are published through the cache");

typedef struct init_memo {
	struct {
		const int64_t *dims;
		const dim *published; /* NULL: nothing yet */
		int32_t at;           /* its slot in the cache */
	} rank[INIT_MEMO_RANKS];
} init_memo;

static const dim *initializer_dims(infer_ctx *c, const tensor_view *tv, init_memo *memo)
{
	int32_t n = tv->rank;
	if (n >= INIT_MEMO_RANKS || !c->shared)
		return publish_ints(c, tv->dims, n, true);
	bool same = memo->rank[n].published != NULL;
	for (int32_t k = 0; same && k < n; k++) /* a few entries: no call to memcmp */
		same = tv->dims[k] == memo->rank[n].dims[k];
	if (same && dims_share_again(c->shared, memo->rank[n].published, n, memo->rank[n].at))
		return memo->rank[n].published;
	const dim *d = publish_ints(c, tv->dims, n, true);
	if (d) {
		memo->rank[n].dims = tv->dims;
		memo->rank[n].published = d;
		memo->rank[n].at = c->shared->last; /* n <= SHARE_BUF: d came from the cache */
	}
	return d;
}

/* tinfo of an initializer: its dims, and its values when small. */
static tinfo from_initializer(infer_ctx *c, const tensor_view *tv, bool with_content, init_memo *memo)
{
	tinfo t = tinfo_unknown();
	if (!tv || !dtype_valid(tv->dtype))
		return t;
	t.kind = TK_TENSOR;
	t.elem = tv->dtype;
	if (!(t.dims = initializer_dims(c, tv, memo)))
		return t;
	t.rank = tv->rank;
	if (!with_content || !float_content(tv))
		return t;
	int64_t ints[TINFO_MAX_VALUES];
	/* tensor_ints refuses floats: most small initializers (biases, norms) need not ask. */
	if (tv->dtype != DT_FLOAT && tensor_ints(tv, ints) && (t.val = publish_ints(c, ints, (int32_t)tv->count, false)))
		t.nval = (int32_t)tv->count;
	if (tv->count <= EAGER_FLOATS) { /* larger ones: lazy_floats */
		double floats[EAGER_FLOATS];
		if (tensor_floats(tv, floats)) {
			double *f = arena_alloc(c->a, tv->count ? (size_t)tv->count * sizeof *f : sizeof *f);
			if (f) {
				memcpy(f, floats, (size_t)tv->count * sizeof *f);
				t.nfval = (int32_t)tv->count;
				t.fval = f;
			}
		}
	}
	return t;
}

/* Reconciles what inference found for v with what the file declares. */
static void reconcile(infer_ctx *c, value *v, bool use_declared)
{
	tinfo declared = value_declared(v);
	const tinfo *d = &declared;
	if (!use_declared || d->kind == TK_UNKNOWN)
		return;
	tinfo *t = &v->ti;
	if (t->kind == TK_UNKNOWN) {
		tinfo keep = *d;
		*t = keep;
		return;
	}
	const char *why = NULL;
	char buf[256];
	/* ONNX Runtime refuses a declared type that contradicts the inferred one, and
	 * runs a declared shape that does: it computes the sizes as it goes. */
	bool type_differs = t->kind != d->kind || (t->elem && d->elem && t->elem != d->elem);
	if (t->kind != d->kind) {
		why = "a different kind of value";
	} else if (t->elem && d->elem && t->elem != d->elem) {
		snprintf(buf, sizeof buf, "element type %s, declared %s", dtype_name(t->elem), dtype_name(d->elem));
		why = buf;
	} else if (t->rank >= 0 && d->rank >= 0 && t->rank != d->rank) {
		snprintf(buf, sizeof buf, "rank %d, declared rank %d", t->rank, d->rank);
		why = buf;
	}
	dim *merged = NULL, mbuf[SHARE_BUF];
	if (!why && t->rank >= 0 && d->rank >= 0) {
		merged = t->rank <= SHARE_BUF ? mbuf : dims_alloc(c, t->rank);
		if (!merged)
			return;
		for (int32_t k = 0; k < t->rank && !why; k++) {
			dim a = dim_resolve(c->syms, t->dims[k]), b = dim_resolve(c->syms, d->dims[k]);
			/* A declared symbol against an inferred size binds the symbol; a
			 * declared size against an inferred one must agree. */
			if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN && a.v != b.v) {
				snprintf(buf, sizeof buf, "dimension %d is %lld, declared %lld", k, (long long)a.v,
					 (long long)b.v);
				why = buf;
			} else if (!dim_merge(c, a, b, &merged[k])) {
				snprintf(buf, sizeof buf, "dimension %d: '%s' was found to be another size", k,
					 b.kind == DIM_SYMBOL ? sym_name(c->syms, b.v) : "?");
				why = buf;
			}
		}
	}
	if (why) {
		tinfo inferred = *t;
		model_diag(c->m, type_differs ? OSH_ERROR : OSH_WARNING, "shape-conflict", c->g, v->producer, v->name,
			   "'%s' is declared %s %s but inferred %s: %s", v->name,
			   d->elem ? dtype_name(d->elem) : "?", fmt_shape(c, d), fmt_shape(c, &inferred), why);
		tinfo keep = *d;
		*t = keep;
		return;
	}
	if (!t->elem)
		t->elem = d->elem;
	if (t->rank < 0 && d->rank >= 0) {
		t->rank = d->rank;
		t->dims = d->dims;
	} else if (merged) {
		const dim *shared = merged == mbuf ? share(c, mbuf, t->rank) : merged;
		if (shared)
			t->dims = shared;
	}
}

static void seed_values(infer_ctx *c, graph *g)
{
	init_memo memo = {{{0}}};
	for (int32_t i = 0; i < g->nvalues; i++) {
		/* The node outputs, set by infer_nodes, lie in a row: not swept here
		 * (most of a graph's values, megabytes of rows on a big one). */
		if (i == g->first_produced && g->nproduced) {
			i += g->nproduced - 1;
			continue;
		}
		value *v = &g->values[i];
		switch (v->origin) {
		case VAL_INPUT:
			/* A default from an initializer can be replaced at run time: take its
			 * shape only where nothing is declared. */
			v->ti = value_declared(v);
			if (value_given(v)) /* supplied for this run: its dims and values are facts */
				v->ti = from_initializer(c, value_given(v), true, &memo);
			else if (v->ti.kind == TK_UNKNOWN && v->init_view)
				v->ti = from_initializer(c, v->init_view, false, &memo);
			/* The graph's own sizes: they name a class before what is computed
			 * from them, and before an output's placeholder name (symbols.c). */
			for (int32_t k = 0; v->ti.kind == TK_TENSOR && k < v->ti.rank; k++)
				if (v->ti.dims[k].kind == DIM_SYMBOL && !sym_is_expr(c->syms, v->ti.dims[k].v))
					c->syms->v[v->ti.dims[k].v].input = true;
			break;
		case VAL_INITIALIZER:
			v->ti = from_initializer(c, v->init_view, true, &memo);
			break;
		case VAL_OUTER:
			v->ti = value_outer(v)->values[value_outer_id(v)].ti;
			break;
		case VAL_NODE:
			break; /* infer_nodes, when it reaches the producer (the line is hot then) */
		default:
			v->ti = tinfo_unknown();
			break;
		}
	}
}

static void infer_nodes(infer_ctx *base, graph *g, bool use_declared, pass_state *ps);

/* A call to a model-local function: the body is inferred with the call's input types
 * and attributes, and its outputs become the call's. The body's values keep the types
 * of the last call only; lint does not report on them. The loader has refused
 * recursion and call chains deeper than its limit, so this terminates. */
static void infer_call(infer_ctx *c, graph *body)
{
	int32_t n = c->n->ninputs;
	tinfo *given = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *given);
	if (!given) {
		c->m->nomem = true;
		return;
	}
	for (int32_t k = 0; k < n; k++) {
		const tinfo *t = in(c, k);
		given[k] = t ? *t : tinfo_unknown();
	}
	if (c->sub_depth >= MAX_SUB_DEPTH)
		return; /* outputs stay unknown */
	infer_ctx call = *c;
	call.caller = c;
	infer_subgraph(&call, body, given, n);
	for (int32_t k = 0; k < c->n->noutputs && k < body->noutputs; k++) {
		if (body->outputs[k] < 0)
			continue;
		tinfo t = body->values[body->outputs[k]].ti;
		set_out_info(c, k, &t);
	}
}

/* What runs for a type of node: its rule, or else the body of the model-local
 * function it calls; neither when the type is unknown. */
typedef struct op_handler {
	infer_fn fn;
	graph *body;
	const sch_row *schema; /* the operator's schema at the node's opset, or NULL */
	bool schema_domain;    /* the schemas cover the node's domain (schema_knows_domain) */
	bool lint; /* lint_may_broadcast */
} op_handler;

static op_handler resolve_op(const infer_ctx *c, const node *n)
{
	op_handler h = {NULL, NULL, NULL, false, lint_may_broadcast(n->domain, n->op_type, n->opset)};
	if (n->opset >= 0) {
		rule_hit hit = rule_lookup(c->rules, n->domain, n->op_type, n->opset);
		h.fn = hit.fn;
		h.schema = hit.schema;
		h.schema_domain = hit.schema_domain;
	}
	if (!h.fn)
		h.body = model_function(c->m, n->domain, n->op_type);
	if (!h.fn && !h.body && n->opset >= 0)
		h.fn = paddle_fallback(n->domain, n->op_type); /* elementwise_* in any other domain */
	if (!h.fn && n->opset >= 0)
		h.fn = broadcast3_fallback(n->domain, n->op_type); /* Broadcast-3 likewise */
	return h;
}

/* resolve_op's answers by node type (core/type_memo.h). */
#define OP_MEMO_SLOTS 128 /* a power of two */

struct op_memo {
	type_key key[OP_MEMO_SLOTS];
	op_handler h[OP_MEMO_SLOTS];
};

static op_handler handler_of(const infer_ctx *c, const node *n)
{
	if (!c->ops) /* out of memory for the memo: resolve every node */
		return resolve_op(c, n);
	bool found;
	int32_t i = type_memo_slot(c->ops->key, OP_MEMO_SLOTS, (type_key){n->op_type, n->domain, n->opset}, &found);
	if (i < 0)
		return resolve_op(c, n);
	if (!found)
		c->ops->h[i] = resolve_op(c, n);
	return c->ops->h[i];
}

/* Notes node ni for lint (pass.h); out of memory, lint walks every node instead. */
static void list_for_lint(infer_ctx *c, pass_state *ps, int32_t ni)
{
	if (!ps->lint_listed)
		return;
	if (ps->nlint_nodes == ps->cap_lint_nodes) {
		int32_t *grown = grow_arena_i32(c->a, ps->lint_nodes, &ps->cap_lint_nodes, 1024, sizeof *grown);
		if (!grown) {
			ps->lint_listed = false;
			return;
		}
		ps->lint_nodes = grown;
	}
	ps->lint_nodes[ps->nlint_nodes++] = ni;
}

/* Infers g's nodes in order. ps: where to list the nodes for lint (the main graph's
 * run), else NULL. */
static void infer_nodes(infer_ctx *base, graph *g, bool use_declared, pass_state *ps)
{
	for (int32_t k = 0; k < g->nnodes; k++) {
		int32_t ni = g->order[k];
		node *n = &g->nodes[ni];
		infer_ctx c = *base;
		c.g = g;
		c.ni = ni;
		c.n = n;
		c.opset = n->opset;
		/* seed_values leaves node outputs to be set here, next to their use. */
		for (int32_t o = 0; o < n->noutputs; o++) {
			int32_t id = n->outputs[o];
			if (id >= 0 && g->values[id].producer == ni)
				g->values[id].ti = tinfo_unknown();
		}
		op_handler h = handler_of(&c, n);
		if (ps && h.lint)
			list_for_lint(&c, ps, ni);
		infer_fn fn = h.fn;
		graph *body = h.body;
		/* A node its schema refuses is reported once, as such: its rule runs
		 * quiet (rules cope with any inputs, reading them by position). */
		/* A model-local function of a domain the schemas cover is no operator to
		 * ONNX Runtime, which refuses the call: check_schema_missing says so. */
		c.quiet = base->quiet || (h.schema ? !check_schema_node(&c, h.schema)
						   : h.schema_domain && !check_schema_missing(&c));
		if (fn)
			fn(&c);
		else if (body)
			infer_call(&c, body);
		else if (!c.quiet)
			model_diag(c.m, OSH_WARNING, "unknown-op", g, ni, NULL,
				   "no shape rule for %s%s%s (opset %lld): its outputs are unknown",
				   n->domain, n->domain[0] ? "::" : "", n->op_type, (long long)n->opset);
		for (int32_t o = 0; o < n->noutputs; o++) {
			int32_t id = n->outputs[o];
			if (id >= 0 && g->values[id].producer == ni)
				reconcile(&c, &g->values[id], use_declared);
		}
	}
}

/* Whether a and b have the same rank and every dimension of both is known and equal. */
static bool tinfo_same_shape(infer_ctx *c, const tinfo *a, const tinfo *b)
{
	if (a->rank < 0 || a->rank != b->rank)
		return false;
	for (int32_t k = 0; k < a->rank; k++) {
		dim x = dim_resolve(c->syms, a->dims[k]), y = dim_resolve(c->syms, b->dims[k]);
		if (x.kind != DIM_KNOWN || y.kind != DIM_KNOWN || x.v != y.v)
			return false;
	}
	return true;
}

void infer_subgraph(infer_ctx *c, graph *sg, const tinfo *inputs, int32_t n)
{
	if (c->sub_depth >= MAX_SUB_DEPTH)
		return;
	infer_ctx sub = *c;
	sub.sub_depth++;
	seed_values(&sub, sg);
	for (int32_t k = 0; k < sg->ninputs && k < n; k++) {
		if (!inputs || inputs[k].kind == TK_UNKNOWN)
			continue;
		value *v = &sg->values[sg->inputs[k]];
		tinfo given = inputs[k];
		tinfo t = value_declared(v);
		if (t.kind == TK_UNKNOWN) {
			v->ti = given;
			continue;
		}
		/* Declared and given: the declaration wins where it says something. */
		if (!t.elem)
			t.elem = given.elem;
		if (t.rank < 0) {
			t.rank = given.rank;
			t.dims = given.dims;
		}
		/* Content the caller knows (a Loop's condition) survives a declaration
		 * that agrees with its shape. */
		if ((given.nval >= 0 || given.nfval >= 0) && tinfo_same_shape(c, &t, &given)) {
			t.nval = given.nval, t.val = given.val;
			t.nfval = given.nfval, t.fval = given.fval;
		}
		v->ti = t;
	}
	infer_nodes(&sub, sg, true, NULL);
}

bool pass_infer(osh_model *m, const pass_options *opts)
{
	rule_index ri;
	if (!rule_index_build(&ri, m->arena)) {
		m->nomem = true;
		return false;
	}
	size_t values = m->main ? (size_t)m->main->nvalues : 0;
	infer_ctx base = {.m = m, .syms = &m->syms, .a = m->arena, .rules = &ri, .shared = dims_share_new(m->arena, values),
			  .ops = arena_zalloc(m->arena, sizeof(struct op_memo)), .fresh_keys = arena_alloc(m->arena, sizeof(strmap))};
	if (base.fresh_keys)
		strmap_init(base.fresh_keys, m->arena);
	bool use_declared = !opts->ignore_declared;
	m->ignore_declared = opts->ignore_declared;
	if (!m->main)
		return true;
	seed_values(&base, m->main);
	pass_state *ps = opts->state;
	if (ps)
		*ps = (pass_state){.lint_listed = true};
	infer_nodes(&base, m->main, use_declared, ps);
	m->inferred = true;
	return !m->nomem;
}
