/* symbols.h: what is learned about symbolic dimensions.
 *
 * Symbols and expressions over them are interned in the table of dimexpr.h. Facts
 * that broadcasting and shape rules learn (N = 3, N = M, unk__7 = seq) live in a
 * union-find over their ids: one fact about a symbol reaches every use of it and every
 * symbol known equal to it, and an expression resolves by resolving its atoms (once
 * seq is known to be 8, 2*seq + 1 is 17). A class may carry a known value.
 * Conditional facts (N is 1 or 8) are kept as a list for reporting; they do not bind
 * the symbol. A fact that contradicts the others is not recorded and the caller
 * reports it.
 *
 * Invariant: a class's representative never contains an atom of its own class, so
 * resolving an expression (substituting each atom's resolution) ends.
 */
#ifndef OSH_CORE_SYMBOLS_H
#define OSH_CORE_SYMBOLS_H

#include "core/dimexpr.h"

int64_t sym_root(symtab *t, int64_t id);
bool sym_same(symtab *t, int64_t a, int64_t b);
/* The known value of id's class, if any. */
bool sym_value(symtab *t, int64_t id, int64_t *value);
/* Record a = b, or a = k. Return false (and record nothing) on a contradiction. */
bool sym_unify(symtab *t, int64_t a, int64_t b);
bool sym_bind(symtab *t, int64_t a, int64_t k);
/* Symbol id's class as a dim: its value when known, else its representative with
 * every atom resolved. */
dim sym_resolve(symtab *t, int64_t id);
/* A dim with its symbol replaced by its class's value, or its class's resolved
 * representative. Inline: passes resolve every dim they read, and most are known
 * sizes or symbols that are their own root (published dims are resolved, and most
 * models never bind one), which need no call. */
static inline dim dim_resolve(symtab *t, dim d)
{
	if (d.kind != DIM_SYMBOL || !t->bound)
		return d;
	const sym_entry *e = &t->v[d.v];
	if (e->parent != d.v || e->kind != DX_NAME)
		return sym_resolve(t, d.v);
	return e->has_value ? dim_known(e->value) : d;
}

/* Adapters for the broadcast library's callbacks (ctx is the symtab). sym_eq_cb
 * answers whether two sizes are equal wherever a broadcast of them runs: known
 * equal, or 1 together (Min(seq, 512) and seq), which it then records. */
bool sym_eq_cb(void *ctx, int64_t a, int64_t b);
const char *sym_name_cb(void *ctx, int64_t id);

#endif
