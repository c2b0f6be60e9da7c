/* symbols.h: symbolic dimensions (dim_param) and what is learned about them.
 *
 * Every dim_param name is interned once into a small integer id. Facts that
 * broadcasting and shape rules learn (N = 3, N = M) live in a union-find: one fact
 * about a symbol reaches every use of it and every symbol known equal to it. A class
 * may carry a known value. Conditional facts (N is 1 or 8) are kept as a list for
 * reporting; they do not bind the symbol. A fact that contradicts the others is not
 * recorded and the caller reports it.
 */
#ifndef OSH_CORE_SYMBOLS_H
#define OSH_CORE_SYMBOLS_H

#include "core/arena.h"
#include "core/shape.h"
#include "core/strmap.h"

typedef struct sym_entry {
	const char *name;
	int64_t parent;    /* union-find */
	int32_t rank;
	bool has_value;    /* meaningful on the root */
	int64_t value;
	bool fresh;        /* made up by onnxshape for an unknown size */
} sym_entry;

typedef struct symtab {
	arena *a;
	strmap names;
	sym_entry *v;
	int64_t n, cap;
	int64_t fresh_counter;
	/* Whether any symbol has been bound to a size or unified with another. Until
	 * then every symbol is its own root with no value, and resolves to itself. */
	bool bound;
} symtab;

void symtab_init(symtab *t, arena *a);
/* Returns the id of name, adding it if new; -1 when memory ran out. */
int64_t sym_intern(symtab *t, const char *name);
/* A new symbol whose name clashes with no dim_param of the model (names are checked
 * against everything interned so far; the loader interns every dim_param first).
 * `hint` (may be NULL) becomes part of the name. -1 when memory ran out. */
int64_t sym_fresh(symtab *t, const char *hint);
const char *sym_name(const symtab *t, int64_t id);
int64_t sym_root(symtab *t, int64_t id);
bool sym_same(symtab *t, int64_t a, int64_t b);
/* The known value of id's class, if any. */
bool sym_value(symtab *t, int64_t id, int64_t *value);
/* Record a = b, or a = k. Return false (and record nothing) on a contradiction. */
bool sym_unify(symtab *t, int64_t a, int64_t b);
bool sym_bind(symtab *t, int64_t a, int64_t k);
/* Symbol id's class as a dim: its value when known, else its root. */
dim sym_resolve(symtab *t, int64_t id);
/* A dim with its symbol replaced by its class's value, or its class's root. Inline:
 * passes resolve every dim they read, and most are known sizes or symbols that are
 * their own root (published dims are resolved, and most models never bind one),
 * which need no call. */
static inline dim dim_resolve(symtab *t, dim d)
{
	if (d.kind != DIM_SYMBOL || !t->bound)
		return d;
	const sym_entry *e = &t->v[d.v];
	if (e->parent != d.v)
		return sym_resolve(t, d.v);
	return e->has_value ? dim_known(e->value) : d;
}

/* Adapters for the broadcast library's callbacks (ctx is the symtab). */
bool sym_eq_cb(void *ctx, int64_t a, int64_t b);
const char *sym_name_cb(void *ctx, int64_t id);

#endif
