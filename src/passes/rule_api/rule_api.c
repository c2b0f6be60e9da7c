/* rule_api.c: the rule API (rule_api.h) but its dim arithmetic (rule_api_dims.c) and
 * broadcasting (rule_api_broadcast.c): what a rule reads of its node's inputs and
 * attributes, how it sets its outputs, reports and makes fresh symbols.
 *
 * Invariant: what a setter publishes on an output is final: its dims resolved and
 * shared (infer_internal.h's share), never modified afterwards. Dims that no tensor
 * could have (too_big) are reported here, once for every rule.
 */
#include "passes/rule_api/rule_api.h"

#include "core/dtype.h"
#include "core/tensor.h"
#include "passes/rule_api/infer_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The value input i (present) is, followed out of subgraphs to where it is defined. */
static value *stored_source(infer_ctx *c, int32_t i)
{
	value *src = &c->g->values[c->n->inputs[i]];
	for (int depth = 0; src->origin == VAL_OUTER && value_outer(src) && depth < MAX_SUB_DEPTH; depth++)
		src = &value_outer(src)->values[value_outer_id(src)];
	return src;
}

/* The stored tensor behind such a value: given for this run, or its initializer. */
static const tensor_view *stored_tensor(const value *src)
{
	return value_given(src) ? value_given(src) : src->origin == VAL_INITIALIZER ? src->init_view : NULL;
}

const tensor_view *in_stored_tensor(infer_ctx *c, int32_t i)
{
	return in(c, i) ? stored_tensor(stored_source(c, i)) : NULL;
}

/* Decodes the float content of input i's initializer now, if it has one not decoded
 * yet (the pass decodes only the tiny ones up front: infer.c's EAGER_FLOATS);
 * returns the input's tinfo. A subgraph's reference to an outer initializer
 * decodes it there and shares the array. */
static const tinfo *lazy_floats(infer_ctx *c, int32_t i)
{
	value *v = &c->g->values[c->n->inputs[i]], *src = stored_source(c, i);
	const tensor_view *tv = stored_tensor(src);
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
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "output '%s' would be %s: %s", c->g->values[c->n->outputs[i]].name,
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

int64_t attr_i(infer_ctx *c, const char *name, int64_t def) { return attr_view_i(attr(c, name), def); }

float attr_f(infer_ctx *c, const char *name, float def)
{
	const attr_view *a = attr(c, name);
	return a && a->type == AT_FLOAT ? a->f : def;
}

const char *attr_s(infer_ctx *c, const char *name, const char *def) { return attr_view_s(attr(c, name), def); }

bool attr_ints(infer_ctx *c, const char *name, const int64_t **v, int32_t *n)
{
	return attr_view_ints(attr(c, name), v, n);
}

int32_t attr_len(infer_ctx *c, const char *name)
{
	const attr_view *a = attr(c, name);
	return a && (a->type == AT_INTS || a->type == AT_FLOATS || a->type == AT_STRINGS) ? a->n : -1;
}

const tensor_view *attr_tensor(infer_ctx *c, const char *name)
{
	const attr_view *a = attr(c, name);
	return a && a->type == AT_TENSOR ? a->t : NULL;
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
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: input '%s' has rank %d, above the supported %d", c->n->op_type,
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
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s %lld is out of range for rank %d (valid: %lld to %lld)", what,
		   (long long)axis, rank, (long long)-hi, (long long)hi - 1);
	return false;
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

void infer_diag(infer_ctx *c, osh_severity sev, diag_code code, const char *fmt, ...)
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

bool in_int1(infer_ctx *c, int32_t i, dim *v)
{
	const dim *vals;
	int32_t n;
	if (!in_ints(c, i, &vals, &n) || n != 1)
		return false;
	*v = dim_resolve(c->syms, vals[0]);
	return true;
}

bool in_float1(infer_ctx *c, int32_t i, double *v)
{
	const double *f;
	int32_t n;
	if (!in_floats(c, i, &f, &n) || n != 1)
		return false;
	*v = f[0];
	return true;
}

void infer_subgraph(infer_ctx *c, graph *sg, const tinfo *inputs, int32_t n) { c->driver->subgraph(c, sg, inputs, n); }

bool infer_subgraph_may_repeat(const infer_ctx *c) { return c->driver->may_repeat(c); }

void infer_subgraph_checks(infer_ctx *c, graph *sg) { c->driver->subgraph_checks(c, sg); }
