/* edit_kit.c: the rewrite stages' editing kit (edit_kit.h): change lines, blocking
 * errors, fresh names, inserted nodes, initializers, attributes and the budget an
 * edit needs.
 *
 * Invariant: while planning (r->apply false) nothing here touches the messages, yet
 * every name, count and change is made exactly as the editing run makes it, so the
 * plan reports what the edit does.
 */
#include "passes/rewrite/edit_kit.h"
#include "core/arena.h"
#include "core/checked.h"
#include "core/dtype.h"
#include "core/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* fmt's text of ap, in the arena; NULL when memory ran out. A format without a
 * conversion is its own text. One whose only conversion is a leading %s (an
 * operator's name, most often) gives the same text for the same string, which
 * r->change_memo keeps: the text is that string followed by the rest of fmt, and a
 * kept one is taken only when it reads so. */
static const char *change_text(rw *r, const char *fmt, va_list ap)
{
	if (!strchr(fmt, '%'))
		return fmt;
	struct change_memo *slot = NULL;
	const char *arg = NULL;
	if (fmt[0] == '%' && fmt[1] == 's' && !strchr(fmt + 2, '%')) {
		va_list first;
		va_copy(first, ap);
		arg = va_arg(first, const char *);
		va_end(first);
		uint64_t h = ((uint64_t)(uintptr_t)fmt ^ (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15u) >> 40;
		slot = &r->change_memo[h % (sizeof r->change_memo / sizeof *r->change_memo)];
		size_t n = arg ? strlen(arg) : 0;
		if (arg && slot->fmt == fmt && slot->text && !strncmp(slot->text, arg, n) && !strcmp(slot->text + n, fmt + 2))
			return slot->text;
	}
	char buf[1024];
	vsnprintf(buf, sizeof buf, fmt, ap);
	const char *text = arena_strdup(r->m->arena, buf);
	if (slot && arg && text)
		*slot = (struct change_memo){fmt, arg, text};
	return text;
}

void rw_change(rw *r, const graph *g, int32_t ni, const char *kind, const char *fmt, ...)
{
	if (r->apply)
		return;
	if (r->nchanges == r->cap_changes) {
		osh_rewrite_change *c = grow_arena(r->m->arena, r->changes, &r->cap_changes, 16, sizeof *c);
		if (!c) {
			rw_nomem(r);
			return;
		}
		r->changes = c;
	}
	const node *n = &g->nodes[ni];
	osh_rewrite_change c = {
		.graph = g->path,
		.node_index = ni,
		.node_name = n->name,
		.op_type = n->op_type,
		.kind = kind,
	};
	va_list ap;
	va_start(ap, fmt);
	c.what = change_text(r, fmt, ap);
	va_end(ap);
	if (!c.what) {
		rw_nomem(r);
		return;
	}
	r->changes[r->nchanges++] = c;
}

void rw_error(rw *r, const graph *g, int32_t ni, diag_code code, const char *fmt, ...)
{
	if (r->apply)
		return;
	char buf[1536];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	model_diag(r->m, OSH_ERROR, code, g, ni, NULL, "%s", buf);
	r->rep->n_errors++;
}

bool rw_continue_changes(rw *r)
{
	size_t n = r->rep->n_changes;
	r->nchanges = r->cap_changes = n;
	if (!n)
		return true;
	r->changes = arena_array(r->m->arena, n, sizeof *r->changes);
	if (!r->changes)
		return false;
	memcpy(r->changes, r->rep->changes, n * sizeof *r->changes);
	return true;
}

struct Onnx__NodeProto *rw_node(rw *r, graph *g, int32_t ni)
{
	if (!r->apply)
		return g->nodes[ni].proto;
	struct Onnx__NodeProto *np = edit_node(r->e, g, ni);
	if (!np)
		rw_nomem(r);
	return np;
}

const char *rw_base(rw *r, const graph *g, int32_t ni)
{
	const node *n = &g->nodes[ni];
	const char *b = n->name[0] ? n->name : arena_printf(r->m->arena, "%s_%d", n->op_type, ni);
	if (!b)
		rw_nomem(r);
	return b ? b : "";
}

/* The planning run's name for this draw of the editing run, or NULL when the list
 * does not hold one for base/role there. That would be a planning run that drew
 * otherwise than the editing run (a bug): the names are then drawn from the
 * session from here on, every planned one reserved in it first, so that none is
 * handed out twice. */
static const char *replayed(rw *r, const char *base, const char *role, size_t nb, size_t nr)
{
	if (r->nreplayed < r->nplanned) {
		const char *p = r->planned[r->nreplayed];
		if (!strncmp(p, base, nb) && p[nb] == '/' && !strncmp(p + nb + 1, role, nr) &&
		    (!p[nb + 1 + nr] || p[nb + 1 + nr] == '_')) {
			r->nreplayed++;
			return p;
		}
	}
	r->replay = false;
	for (size_t i = 0; i < r->nplanned; i++)
		if (!edit_reserve_name(r->e, r->planned[i]))
			return NULL;
	return NULL;
}

static bool keep_planned(rw *r, const char *s)
{
	if (r->nplanned == r->cap_planned) {
		const char **grown = grow_arena(r->m->arena, r->planned, &r->cap_planned, 64, sizeof *grown);
		if (!grown)
			return false;
		r->planned = grown;
	}
	r->planned[r->nplanned++] = s;
	return true;
}

static const char *fresh(rw *r, const char *base, const char *role)
{
	/* base/role, put together here: a rewrite asks for one or two per node it
	 * inserts, and printf's formatting took more than the name's look-up. */
	size_t nb = strlen(base), nr = strlen(role);
	r->nfresh++;
	if (r->replay && r->apply) {
		const char *p = replayed(r, base, role, nb, nr);
		if (p)
			return p;
		if (r->m->nomem)
			return "";
	}
	char stack[256];
	char *want = nb + nr + 2 <= sizeof stack ? stack : arena_alloc(r->m->arena, nb + nr + 2);
	if (want) {
		memcpy(want, base, nb);
		want[nb] = '/';
		memcpy(want + nb + 1, role, nr + 1);
	}
	const char *s = want ? edit_fresh_name(r->e, want) : NULL;
	if (s && r->replay && !r->apply && !keep_planned(r, s))
		s = NULL;
	if (!s)
		rw_nomem(r);
	return s ? s : "";
}

const char *rw_value(rw *r, const char *base, const char *role)
{
	const char *s = fresh(r, base, role);
	/* Sized at once for the names the planning run drew: grown as it filled, the
	 * map was rehashed again and again. */
	if (r->apply && s[0] && !r->made.cap && r->nplanned && !strmap_reserve(&r->made, r->nplanned))
		rw_nomem(r);
	if (r->apply && s[0] && strmap_put(&r->made, s, 0) == -2)
		rw_nomem(r);
	return s;
}

const char *rw_init_name(rw *r, const char *base, const char *role) { return fresh(r, base, role); }

bool rw_insert_uncounted(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role,
			 int32_t nin, const char *const *inputs, const char **out, struct Onnx__NodeProto **np)
{
	const char *name = rw_value(r, base, role);
	*out = name;
	*np = NULL;
	if (!r->apply)
		return !r->m->nomem;
	/* The node is named after the one value it makes: unique among nodes too.
	 * Every name a stage gives the kit is the IR's or a fresh one, and every
	 * operator a literal or a table's: none is copied. */
	*np = edit_node_new_kept(r->e, g, ni, op_type, "", name, nin, inputs, 1, &name);
	if (!*np)
		rw_nomem(r);
	return *np != NULL;
}

bool rw_insert(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role, int32_t nin,
	       const char *const *inputs, const char **out, struct Onnx__NodeProto **np)
{
	r->rep->n_other_inserted++;
	return rw_insert_uncounted(r, g, ni, op_type, base, role, nin, inputs, out, np);
}

bool rw_insert_making(rw *r, graph *g, int32_t ni, const char *op_type, const char *base, const char *role,
		      int32_t nin, const char *const *inputs, const char *out, struct Onnx__NodeProto **np)
{
	const char *name = fresh(r, base, role);
	*np = NULL;
	r->rep->n_other_inserted++;
	if (!r->apply)
		return !r->m->nomem;
	*np = edit_node_new_kept(r->e, g, ni, op_type, "", name, nin, inputs, 1, &out);
	if (!*np)
		rw_nomem(r);
	return *np != NULL;
}

static bool add_init(rw *r, graph *g, const char *name, int32_t dtype, const int64_t *dims, int32_t rank,
		     const int64_t *iv, const double *fv)
{
	r->ninits++;
	if (!r->apply)
		return true;
	if (!edit_add_initializer(r->e, g, name, dtype, dims, rank, iv, fv)) {
		rw_nomem(r);
		return false;
	}
	return true;
}

bool rw_scalar(rw *r, graph *g, const char *base, const char *role, int32_t dtype, double v, const char **out)
{
	bool is_float = false;
	if (!edit_dtype_encodable(dtype, &is_float))
		return false;
	int64_t iv = 0;
	if (!is_float && !f64_to_i64(v, &iv))
		return false;
	*out = rw_init_name(r, base, role);
	return add_init(r, g, *out, dtype, NULL, 0, is_float ? NULL : &iv, is_float ? &v : NULL);
}

bool rw_ints(rw *r, graph *g, const char *base, const char *role, const int64_t *v, int32_t n, const char **out)
{
	*out = rw_init_name(r, base, role);
	int64_t dims[1] = {n};
	return add_init(r, g, *out, DT_INT64, dims, 1, v, NULL);
}

bool rw_set_attr_i(rw *r, struct Onnx__NodeProto *np, const char *name, int64_t v)
{
	if (r->apply && !edit_node_set_attr_i(r->e, np, name, v)) {
		rw_nomem(r);
		return false;
	}
	return true;
}

bool rw_set_attr_ints(rw *r, struct Onnx__NodeProto *np, const char *name, const int64_t *v, int32_t n)
{
	if (r->apply && !edit_node_set_attr_ints(r->e, np, name, v, n)) {
		rw_nomem(r);
		return false;
	}
	return true;
}

/* Room for a stage's edits and the re-index and inference after them. The load-time
 * budget covers one IR and one inference; re-indexing builds a second IR beside the first (the old
 * one stays in the arena) and inference runs again, on a model with `added` more
 * nodes. That growth is bounded by what the model already used plus a per-node cost
 * (a node message, its names and IR entries, measured at most 1,664 bytes each by
 * load.c's budget: 4 KiB leaves room for content on shape values), so the budget
 * grows by that much, not without bound. */
void rewrite_grow_budget(osh_model *m, size_t added)
{
	if (!m->budget)
		return; /* no limit */
	uint64_t more = arena_used(m->arena) + (uint64_t)added * 4096;
	m->budget = m->budget + more < m->budget ? UINT64_MAX : m->budget + more;
	arena_set_budget(m->arena, m->budget);
}
