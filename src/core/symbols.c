/* symbols.c: see symbols.h. Union by rank with path halving. */
#include "core/symbols.h"

#include <stdio.h>
#include <string.h>

void symtab_init(symtab *t, arena *a)
{
	*t = (symtab){.a = a};
	strmap_init(&t->names, a);
}

static int64_t add(symtab *t, const char *name, bool fresh)
{
	if (t->n == t->cap) {
		int64_t cap = t->cap ? t->cap * 2 : 16;
		sym_entry *v = arena_grow(t->a, t->v, (size_t)t->n, (size_t)cap, sizeof *v);
		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	if (t->n >= INT32_MAX)
		return -1;
	int64_t id = t->n;
	if (strmap_put(&t->names, name, (int32_t)id) != (int32_t)id)
		return -1;
	t->v[t->n++] = (sym_entry){.name = name, .parent = id, .fresh = fresh};
	return id;
}

int64_t sym_intern(symtab *t, const char *name)
{
	int32_t id = strmap_get(&t->names, name);
	if (id >= 0)
		return id;
	const char *copy = arena_strdup(t->a, name);
	return copy ? add(t, copy, false) : -1;
}

int64_t sym_fresh(symtab *t, const char *hint)
{
	for (;;) {
		char buf[96];
		snprintf(buf, sizeof buf, "%s%s%lld", hint ? hint : "unk", hint ? "_" : "__",
			 (long long)t->fresh_counter++);
		if (strmap_get(&t->names, buf) >= 0)
			continue;
		const char *copy = arena_strdup(t->a, buf);
		return copy ? add(t, copy, true) : -1;
	}
}

const char *sym_name(const symtab *t, int64_t id) { return id >= 0 && id < t->n ? t->v[id].name : "?"; }

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
	sym_entry *r = &t->v[sym_root(t, id)];
	if (r->has_value)
		*value = r->value;
	return r->has_value;
}

bool sym_bind(symtab *t, int64_t a, int64_t k)
{
	sym_entry *r = &t->v[sym_root(t, a)];
	if (r->has_value)
		return r->value == k;
	r->has_value = true;
	r->value = k;
	t->bound = true;
	return true;
}

bool sym_unify(symtab *t, int64_t a, int64_t b)
{
	int64_t ra = sym_root(t, a), rb = sym_root(t, b);
	if (ra == rb)
		return true;
	sym_entry *x = &t->v[ra], *y = &t->v[rb];
	if (x->has_value && y->has_value && x->value != y->value)
		return false;
	/* Keep a name the user wrote (not a fresh one) as the representative. */
	if (x->fresh != y->fresh ? x->fresh : x->rank < y->rank) {
		sym_entry *s = x;
		x = y, y = s;
		int64_t r = ra;
		ra = rb, rb = r;
	}
	y->parent = ra;
	t->bound = true;
	if (x->rank == y->rank)
		x->rank++;
	if (y->has_value && !x->has_value)
		x->has_value = true, x->value = y->value;
	return true;
}

dim sym_resolve(symtab *t, int64_t id)
{
	int64_t r = sym_root(t, id);
	if (t->v[r].has_value)
		return dim_known(t->v[r].value);
	return dim_symbol(r);
}

bool sym_eq_cb(void *ctx, int64_t a, int64_t b) { return sym_same(ctx, a, b); }
const char *sym_name_cb(void *ctx, int64_t id) { return sym_name(ctx, id); }
