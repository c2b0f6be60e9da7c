/* dimexpr.h: sizes as expressions over symbols, in one canonical form.
 *
 * A symbol id names either a dim_param the model wrote (`batch`), a size onnxshape
 * made up (`unk__3`), or an expression over those: a sum of products with integer
 * coefficients (`2*seq + 1`, `batch*seq`), or a function of them: `floor(N/D)`,
 * `Max(a, b)`, `Min(a, b)`. Ceiling division and `Mod` are written with floor
 * (ceil(a/q) = floor((a + q - 1)/q), Mod(a, b) = a - b*floor(a/b)).
 *
 * Every expression is kept in one canonical form and interned under the text of that
 * form, the text ONNX Runtime's symbolic_shape_infer writes for it (the printing of
 * sympy: `batch*seq`, `floor((H + 31)/32)`, `Max(a, b)`). Two equal expressions thus
 * get the same id: comparing sizes stays comparing integers, and the text is the
 * dim_param a written model carries. The canonical form:
 *  - a sum is its terms ordered as sympy prints them, each a coefficient and a
 *    product of atoms (names and function terms) sorted by their text, then the
 *    constant; no zero terms, no sum of one plain atom (that is the atom);
 *  - floor(P/q) by a number q > 0 keeps only the part of P that q does not divide
 *    (floor((q*A + R)/q) = A + floor(R/q), R's coefficients in [0, q)), divided by
 *    their common factor, with floors of floors by numbers merged (floor((floor(N/m)
 *    + Q)/q) = floor((N + m*Q)/(m*q))), so that the output size of a chain of
 *    strided convolutions is one floor of the input size;
 *  - a quotient that divides exactly (`(batch*seq*768)/768`) is the quotient;
 *  - Max and Min drop an argument another provably dominates (every symbol is a
 *    size, so >= 0) and sort the rest.
 * Expressions the table cannot keep (too many terms, a coefficient past int64, a
 * text past DX_MAX_TEXT) become unknown: an operation never gives a wrong size.
 *
 * Operations take resolved dims (symbols.h: dim_resolve) and give a dim: a number
 * when the result is one, an id otherwise, unknown when an operand is unknown.
 */
#ifndef OSH_CORE_DIMEXPR_H
#define OSH_CORE_DIMEXPR_H

#include "core/arena.h"
#include "core/shape.h"
#include "core/strmap.h"

/* Bounds that keep expressions readable and arithmetic on the stack; what passes
 * them is unknown. */
#define DX_MAX_TERMS 8
#define DX_MAX_DEG 4
#define DX_MAX_ARGS 4
#define DX_MAX_TEXT 200

typedef enum dx_kind {
	DX_NAME = 0, /* a dim_param, or a made-up name */
	DX_SUM,      /* def: a dx_sum, never a number or a plain atom */
	DX_FLOOR,    /* def: a dx_floor */
	DX_MAX,      /* def: a dx_args */
	DX_MIN,
} dx_kind;

typedef struct sym_entry {
	const char *name; /* the dim_param text: the name, or the expression's text */
	uint8_t kind;     /* dx_kind */
	bool fresh;       /* made up by onnxshape for an unknown size */
	const void *def;  /* kind != DX_NAME: the expression */
	/* A tensor has it as a dimension: it is >= 0 wherever the model runs, which the
	 * form alone may not show (floor(samples/10) - 1). */
	bool size;
	/* A name a graph input of the main graph has as a dimension (batch, seq). */
	bool input;
	/* DX_NAME: an identifier ([A-Za-z_][A-Za-z0-9_.]*), which an expression's text
	 * holds as it is; any other name is written there between backquotes. */
	bool plain;
	/* DX_NAME: how often a declared dim of the model (loader/views.c) names it, and
	 * how many stand-ins sym_claim made from it. */
	int32_t decls;
	int32_t claims;
	/* symbols.h's union-find and resolution cache; dimexpr.c only creates them. */
	int64_t parent;
	int32_t rank;
	bool has_value; /* meaningful on the root */
	int64_t value;
	uint64_t res_gen;
	dim res;
} sym_entry;

typedef struct symtab {
	arena *a;
	strmap names; /* text → id */
	/* Where a declaration filled in a size inference left unknown (passes/infer:
	 * a value and a dimension, as text) → the stand-in symbol made there, so that
	 * a body inferred again gets the same one. */
	strmap sites;
	sym_entry *v;
	int64_t n;
	int32_t cap; /* ids stay below INT32_MAX */
	int64_t fresh_counter;
	/* Whether any symbol has been bound to a size or unified with another. Until
	 * then every symbol is its own root with no value, and resolves to itself. */
	bool bound;
	/* Bumped by every bind and unify: resolutions cached before are stale. */
	uint64_t gen;
	/* Out of memory while building an expression (the result was unknown). */
	bool nomem;
} symtab;

void symtab_init(symtab *t, arena *a);
/* The id of the symbol a dim_param with this text stands for (dx_parse), adding it
 * if new; -1 when memory ran out. */
int64_t sym_intern(symtab *t, const char *name);
/* A new symbol whose name clashes with no dim_param of the model (names are checked
 * against everything interned so far; the loader interns every dim_param first).
 * `hint` (may be NULL) becomes part of the name (cut when long). -1 when memory ran
 * out. */
int64_t sym_fresh(symtab *t, const char *hint);
/* A new symbol standing for one more size a declaration names `claim`: named
 * `claim_1`, `claim_2`... (or `unk__N` when that cannot read back as a name), so
 * that one name declared for several sizes is several symbols. -1 when memory ran
 * out. */
int64_t sym_claim(symtab *t, int64_t claim);
const char *sym_name(const symtab *t, int64_t id);
static inline bool sym_is_expr(const symtab *t, int64_t id) { return t->v[id].kind != DX_NAME; }

/* A dim_param as a dim: never a number, always a symbol. An expression when the
 * text is written as onnxshape and sympy write expressions and its value is one:
 * names ([A-Za-z_][A-Za-z0-9_.]*, or any text between backquotes, a backquote in it
 * doubled), whole numbers, `+` and `-` between single spaces, `*` and `**` without,
 * a leading `-`, parentheses, the calls floor(), ceiling(), Max(), Min(), Mod(),
 * FloorDiv() and CeilDiv() with `, ` between arguments, and `/` only directly in
 * floor() and ceiling() (`batch*seq`, `past + seq`, `floor(H/32 + 31/32)`,
 * 2*`batch-size`); it is then interned in its canonical form. Any other text is
 * one opaque name, whatever it holds (`batch-size`, `batch size`, `conv/out.0`),
 * and so is a text whose value is a number or a single name (`1 - 2`, `a - a - 5`,
 * `(batch)`): ONNX Runtime reads every dim_param as a name, and no text gives a
 * negative size. Unknown only when memory ran out. */
dim dx_parse(symtab *t, const char *text);
/* Whether every name in d is a graph input's size (sym_entry.input): d is a size
 * the main graph's inputs decide, the same wherever it is declared. */
bool dx_over_inputs(symtab *t, dim d);
/* Whether every name in d was made up by onnxshape (sym_entry.fresh) for a size
 * inference could not know: a data-dependent count, a stand-in for a claim. */
bool dx_made_up(symtab *t, dim d);
/* Whether d names one onnxshape made up (an unknown size, a claim's stand-in)
 * anywhere in it. A plain name, the common case, is answered here; an expression's
 * names are walked out of line. */
bool dx_expr_mentions_made_up(symtab *t, dim d);
static inline bool dx_mentions_made_up(symtab *t, dim d)
{
	if (d.kind != DIM_SYMBOL)
		return false;
	const sym_entry *e = &t->v[d.v];
	return e->kind == DX_NAME ? e->fresh : dx_expr_mentions_made_up(t, d);
}
/* Counts one more declaration of every name in d (sym_entry.decls). */
void dx_note_declared(symtab *t, dim d);
/* Forgets every count, before the declarations are read again (a re-index). */
void dx_forget_declared(symtab *t);

dim dx_add(symtab *t, dim a, dim b);
dim dx_sub(symtab *t, dim a, dim b);
dim dx_mul(symtab *t, dim a, dim b);
/* floor(a/b), for b > 0 (a number b <= 0: unknown). */
dim dx_floordiv(symtab *t, dim a, dim b);
/* ceil(a/b), for b > 0. */
dim dx_ceildiv(symtab *t, dim a, dim b);
/* a - b*floor(a/b), for b > 0: ONNX's integer Mod (fmod 0) for a divisor > 0. */
dim dx_mod(symtab *t, dim a, dim b);
/* a/b when b divides a exactly, as a polynomial or as numbers; unknown otherwise. */
dim dx_divexact(symtab *t, dim a, dim b);
dim dx_max(symtab *t, dim a, dim b);
dim dx_min(symtab *t, dim a, dim b);
/* Whether a is provably >= 0, taking every symbol and every expression marked as a
 * size (sym_entry.size) as >= 0. */
bool dx_nonneg(const symtab *t, dim a);
/* Whether a - b is a number, and which (*diff). */
bool dx_diff_const(symtab *t, dim a, dim b, int64_t *diff);

/* The arguments of d when it is a function term of `kind` (DX_MAX, DX_MIN), else
 * NULL. */
const dim *dx_args_of(const symtab *t, dim d, uint8_t kind, int64_t *n);

/* Whether d is a sum c*x + k for one atom x (a name or a function term), and which
 * (a plain atom is not: it is x itself). */
bool dx_linear(const symtab *t, dim d, int64_t *atom, int64_t *c, int64_t *k);

/* The expression d with every atom x (a name or a function term) replaced by
 * fn(ctx, x), rebuilt in canonical form; a function term fn returns unchanged is
 * rebuilt from its arguments the same way. d itself, when an atom, is not given to
 * fn: a function term is rebuilt, a name is fn's. */
typedef dim (*dx_atom_fn)(void *ctx, int64_t atom);
dim dx_subst(symtab *t, dim d, dx_atom_fn fn, void *ctx);
/* Whether the name atom occurs in d. */
bool dx_occurs(const symtab *t, dim d, int64_t atom);

#endif
