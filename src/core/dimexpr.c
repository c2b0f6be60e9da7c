/* dimexpr.c: see dimexpr.h.
 *
 * Arithmetic works on sums (struct sum, on the stack): a constant and up to
 * DX_MAX_TERMS terms, each a coefficient and a product of up to DX_MAX_DEG atoms
 * (ids of names and function terms, sorted by text, repeated for powers). A result
 * is interned by its printed text: equal forms print equal, so the text is the key.
 *
 * Invariant: every function either returns the exact value or unknown; an overflow,
 * a bound passed or memory running out gives unknown, never a truncated form.
 */
#include "core/dimexpr.h"
#include "core/checked.h"
#include "core/grow.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct term {
	int64_t coef;
	int32_t deg;
	int32_t f[DX_MAX_DEG];
} term;

typedef struct sum {
	int64_t k;
	int32_t n;
	term t[DX_MAX_TERMS];
} sum;

typedef struct dx_floor {
	dim num, den;
} dx_floor;

typedef struct dx_args {
	int32_t n;
	dim a[DX_MAX_ARGS];
} dx_args;

/* ---- the table ------------------------------------------------------------------------ */

void symtab_init(symtab *t, arena *a)
{
	*t = (symtab){.a = a};
	strmap_init(&t->names, a);
	strmap_init(&t->sites, a);
}

static bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9') || c == '.'; }

/* Whether s is an identifier, which an expression's text holds as it is. */
static bool plain_name(const char *s)
{
	if (!name_start(*s))
		return false;
	while (name_char(*++s))
		;
	return *s == '\0';
}

static int64_t add_entry(symtab *t, const char *name, uint8_t kind, bool fresh, const void *def)
{
	if (t->n == t->cap) {
		sym_entry *v = grow_arena_i32(t->a, t->v, &t->cap, 16, sizeof *v);
		if (!v)
			return -1;
		t->v = v;
	}
	if (t->n >= INT32_MAX)
		return -1;
	int64_t id = t->n;
	if (strmap_put(&t->names, name, (int32_t)id) != (int32_t)id)
		return -1;
	t->v[t->n++] = (sym_entry){.name = name, .kind = kind, .fresh = fresh, .def = def, .parent = id,
				   .plain = kind == DX_NAME && plain_name(name)};
	return id;
}

/* The name `name`, which the caller knows is not an expression's text. */
static int64_t intern_name(symtab *t, const char *name, bool fresh)
{
	int32_t id = strmap_get(&t->names, name);
	if (id >= 0)
		return id;
	const char *copy = arena_strdup(t->a, name);
	return copy ? add_entry(t, copy, DX_NAME, fresh, NULL) : -1;
}

static bool reads_as_expr(symtab *t, const char *s, dim *out);

int64_t sym_intern(symtab *t, const char *name)
{
	dim d = dx_parse(t, name);
	return d.kind == DIM_SYMBOL ? d.v : -1;
}

/* A made-up name: `base`, `sep` and a number, that no text of the model holds and
 * that reads back as a name (a base's characters can make `base_3` an
 * expression's text: `a - a` is a name, `a - a_3` is not). -1 when there is none.
 * Models that went through ONNX Runtime's optimizer name their dims unk__0, unk__1...
 * themselves: of t->n + 1 numbers in a row one is free, and the counter moves on past
 * those taken, so no number is tried twice. */
static int64_t made_name(symtab *t, const char *base, const char *sep, int64_t *counter)
{
	for (int64_t tries = 0; tries <= t->n; tries++) {
		char buf[DX_MAX_TEXT + 32];
		snprintf(buf, sizeof buf, "%s%s%lld", base, sep, (long long)(*counter)++);
		if (strmap_get(&t->names, buf) >= 0)
			continue;
		dim d;
		if (!plain_name(buf) && reads_as_expr(t, buf, &d))
			return -1;
		return intern_name(t, buf, true);
	}
	return -1;
}

/* The first bytes of s that fit cap - 1, cut where a UTF-8 character starts: a
 * made-up name says where it comes from, it need not repeat a whole path. */
static void cut_copy(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int64_t sym_fresh(symtab *t, const char *hint)
{
	if (!hint)
		return made_name(t, "unk", "__", &t->fresh_counter);
	char base[96];
	cut_copy(base, sizeof base, hint);
	int64_t id = made_name(t, base, "_", &t->fresh_counter);
	return id >= 0 || t->nomem ? id : made_name(t, "unk", "__", &t->fresh_counter);
}

int64_t sym_claim(symtab *t, int64_t claim)
{
	int64_t next = (int64_t)t->v[claim].claims + 1;
	int64_t id = -1;
	if (t->v[claim].kind == DX_NAME) {
		char base[96];
		cut_copy(base, sizeof base, t->v[claim].name);
		id = made_name(t, base, "_", &next);
	}
	next--; /* the number made_name took last */
	t->v[claim].claims = next > INT32_MAX ? INT32_MAX : (int32_t)next;
	return id >= 0 ? id : sym_fresh(t, NULL);
}

const char *sym_name(const symtab *t, int64_t id) { return id >= 0 && id < t->n ? t->v[id].name : "?"; }

/* ---- text ----------------------------------------------------------------------------- */

/* An expression's text under construction (core/strbuf.h). Past DX_MAX_TEXT, or
 * poisoned by what has no text that reads back, it is over: the expression gets no
 * name and is unknown. */
typedef struct text {
	char b[DX_MAX_TEXT + 1];
	strbuf s;
} text;

static void text_open(text *x) { x->s = strbuf_on(x->b, sizeof x->b); }

static bool over(const text *x) { return x->s.bad || x->s.len > DX_MAX_TEXT; }

static void poison(text *x) { x->s.bad = true; }

static void put(text *x, const char *s)
{
	if (!over(x))
		strbuf_str(&x->s, s);
}

/* The first n characters of s. */
static void put_n(text *x, const char *s, size_t n)
{
	size_t room;
	char *at = strbuf_at(&x->s, &room);
	if (n > DX_MAX_TEXT) {
		poison(x);
		return;
	}
	if (at && n < room) {
		memcpy(at, s, n);
		at[n] = '\0';
	}
	strbuf_count(&x->s, (int)n);
}

/* INT64_MIN has no text that reads back (its magnitude is past int64): what
 * would print it is unknown. */
static void put_i64(text *x, int64_t v)
{
	if (v == INT64_MIN) {
		poison(x);
		return;
	}
	char b[24];
	snprintf(b, sizeof b, "%" PRId64, v);
	put(x, b);
}

static int atom_cmp(const symtab *t, int32_t a, int32_t b) { return a == b ? 0 : strcmp(t->v[a].name, t->v[b].name); }

/* sympy's order for the terms of a sum: factor by factor by name, and a term before
 * the terms it extends the product of (x*y before x, x**2 before x). */
static int term_cmp(const symtab *t, const term *x, const term *y)
{
	int32_t n = x->deg < y->deg ? x->deg : y->deg;
	for (int32_t i = 0; i < n; i++) {
		int c = atom_cmp(t, x->f[i], y->f[i]);
		if (c)
			return c;
	}
	return y->deg - x->deg;
}

/* An atom inside an expression's text: an identifier or a function term as it is,
 * any other name between backquotes (a backquote in it doubled), so that the text
 * reads back to the same atoms: 2*`batch-size`, not 2*batch - size. */
static void put_atom(text *x, const symtab *t, int64_t id)
{
	const sym_entry *e = &t->v[id];
	if (e->kind != DX_NAME || e->plain) {
		put(x, e->name);
		return;
	}
	put(x, "`");
	for (const char *s = e->name; *s && !over(x); s++) {
		const char *q = strchr(s, '`');
		size_t n = q ? (size_t)(q - s) + 1 : strlen(s);
		put_n(x, s, n);
		if (q)
			put(x, "`");
		s += n - 1;
	}
	put(x, "`");
}

static void put_dim_text(text *x, const symtab *t, dim d)
{
	if (d.kind == DIM_KNOWN)
		put_i64(x, d.v);
	else
		put_atom(x, t, d.v);
}

/* Whether d prints as one operand of `/` (a number, a name or a function call). */
static bool is_operand(const symtab *t, dim d) { return d.kind == DIM_KNOWN ? d.v >= 0 : t->v[d.v].kind != DX_SUM; }

static void put_term(text *x, const symtab *t, const term *m, bool first)
{
	int64_t c = m->coef;
	if (c == INT64_MIN)
		poison(x);
	if (!first)
		put(x, c < 0 ? " - " : " + ");
	if (c < 0 && first)
		put(x, "-");
	uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
	if (mag != 1) {
		char b[24];
		snprintf(b, sizeof b, "%" PRIu64 "*", mag);
		put(x, b);
	}
	for (int32_t i = 0; i < m->deg;) {
		int32_t j = i;
		while (j < m->deg && m->f[j] == m->f[i])
			j++;
		if (i > 0)
			put(x, "*");
		put_atom(x, t, m->f[i]);
		if (j - i > 1) {
			put(x, "**");
			put_i64(x, j - i);
		}
		i = j;
	}
}

static void put_sum(text *x, const symtab *t, const sum *s)
{
	for (int32_t i = 0; i < s->n; i++)
		put_term(x, t, &s->t[i], i == 0);
	if (s->k == INT64_MIN)
		poison(x);
	if (s->k != 0 || s->n == 0) {
		if (s->n == 0)
			put_i64(x, s->k);
		else {
			char b[24];
			uint64_t mag = s->k < 0 ? (uint64_t)0 - (uint64_t)s->k : (uint64_t)s->k;
			snprintf(b, sizeof b, "%s%" PRIu64, s->k < 0 ? " - " : " + ", mag);
			put(x, b);
		}
	}
}

/* ---- interning ------------------------------------------------------------------------ */

/* The id of the expression with this text, made from def (size bytes) when new. */
static dim intern(symtab *t, text *x, uint8_t kind, const void *def, size_t size)
{
	if (over(x))
		return dim_unknown();
	int32_t id = strmap_get(&t->names, x->b);
	if (id >= 0)
		return dim_symbol(id);
	char *name = arena_strdup(t->a, x->b);
	void *copy = arena_alloc(t->a, size);
	if (!name || !copy) {
		t->nomem = true;
		return dim_unknown();
	}
	memcpy(copy, def, size);
	int64_t nid = add_entry(t, name, kind, false, copy);
	if (nid < 0) {
		t->nomem = true;
		return dim_unknown();
	}
	return dim_symbol(nid);
}

static dim from_sum(symtab *t, const sum *s)
{
	if (s->n == 0)
		return dim_known(s->k);
	if (s->n == 1 && s->k == 0 && s->t[0].coef == 1 && s->t[0].deg == 1)
		return dim_symbol(s->t[0].f[0]);
	text x;
	text_open(&x);
	put_sum(&x, t, s);
	/* Only the used part of the terms is stored. */
	sum stored = *s;
	return intern(t, &x, DX_SUM, &stored, sizeof stored);
}

static bool to_sum(const symtab *t, dim d, sum *s)
{
	if (d.kind == DIM_KNOWN) {
		s->k = d.v, s->n = 0;
		return true;
	}
	if (d.kind != DIM_SYMBOL)
		return false;
	if (t->v[d.v].kind == DX_SUM) {
		*s = *(const sum *)t->v[d.v].def;
		return true;
	}
	s->k = 0, s->n = 1;
	s->t[0] = (term){.coef = 1, .deg = 1, .f = {(int32_t)d.v}};
	return true;
}

/* ---- sums ------------------------------------------------------------------------------ */

/* s += m. False when the result passes the bounds. */
static bool add_term(const symtab *t, sum *s, const term *m)
{
	if (m->coef == 0)
		return true;
	int32_t i = 0;
	int c = 1;
	while (i < s->n && (c = term_cmp(t, &s->t[i], m)) < 0)
		i++;
	if (i < s->n && c == 0) {
		if (__builtin_add_overflow(s->t[i].coef, m->coef, &s->t[i].coef))
			return false;
		if (s->t[i].coef == 0) {
			memmove(&s->t[i], &s->t[i + 1], (size_t)(s->n - i - 1) * sizeof s->t[0]);
			s->n--;
		}
		return true;
	}
	if (s->n == DX_MAX_TERMS)
		return false;
	memmove(&s->t[i + 1], &s->t[i], (size_t)(s->n - i) * sizeof s->t[0]);
	s->t[i] = *m;
	s->n++;
	return true;
}

/* a + sign*b into *r. */
static bool sum_add(const symtab *t, const sum *a, const sum *b, int64_t sign, sum *r)
{
	sum out = *a;
	int64_t bk;
	if (__builtin_mul_overflow(b->k, sign, &bk) || __builtin_add_overflow(out.k, bk, &out.k))
		return false;
	for (int32_t i = 0; i < b->n; i++) {
		term m = b->t[i];
		if (__builtin_mul_overflow(m.coef, sign, &m.coef) || !add_term(t, &out, &m))
			return false;
	}
	*r = out;
	return true;
}

static bool term_mul(const symtab *t, const term *x, const term *y, term *r)
{
	if (x->deg + y->deg > DX_MAX_DEG || __builtin_mul_overflow(x->coef, y->coef, &r->coef))
		return false;
	int32_t i = 0, j = 0, k = 0;
	while (i < x->deg || j < y->deg) {
		if (j == y->deg || (i < x->deg && atom_cmp(t, x->f[i], y->f[j]) <= 0))
			r->f[k++] = x->f[i++];
		else
			r->f[k++] = y->f[j++];
	}
	r->deg = k;
	return true;
}

static bool sum_mul(const symtab *t, const sum *a, const sum *b, sum *r)
{
	sum out = {.k = 0, .n = 0};
	if (__builtin_mul_overflow(a->k, b->k, &out.k))
		return false;
	for (int32_t i = 0; i < a->n; i++) {
		for (int32_t j = 0; j < b->n; j++) {
			term m;
			if (!term_mul(t, &a->t[i], &b->t[j], &m) || !add_term(t, &out, &m))
				return false;
		}
		term m = a->t[i];
		if (__builtin_mul_overflow(m.coef, b->k, &m.coef) || !add_term(t, &out, &m))
			return false;
	}
	for (int32_t j = 0; j < b->n; j++) {
		term m = b->t[j];
		if (__builtin_mul_overflow(m.coef, a->k, &m.coef) || !add_term(t, &out, &m))
			return false;
	}
	*r = out;
	return true;
}

static bool sum_eq(const sum *a, const sum *b)
{
	if (a->k != b->k || a->n != b->n)
		return false;
	for (int32_t i = 0; i < a->n; i++) {
		const term *x = &a->t[i], *y = &b->t[i];
		if (x->coef != y->coef || x->deg != y->deg || memcmp(x->f, y->f, (size_t)x->deg * sizeof x->f[0]))
			return false;
	}
	return true;
}

/* floor(a/b) for b > 0, which always exists. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = 0;
	i64_floordiv(a, b, &q);
	return q;
}

/* a - b*floor(a/b) for b > 0, without the overflow of computing it so. */
static int64_t floor_mod(int64_t a, int64_t b)
{
	int64_t r = 0;
	i64_floormod(a, b, &r);
	return r;
}

/* For q > 0 as the first argument the result is at most q, so it fits. */
static int64_t gcd(int64_t q, int64_t b)
{
	uint64_t x = (uint64_t)q, y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
	while (y) {
		uint64_t r = x % y;
		x = y, y = r;
	}
	return (int64_t)x;
}

/* ---- operations ------------------------------------------------------------------------ */

/* The two arguments of atom id when it is a Max or Min (`kind`) of two, as sums. */
static bool two_args(const symtab *t, int32_t id, uint8_t kind, sum *u, sum *v)
{
	if (t->v[id].kind != kind)
		return false;
	const dx_args *g = t->v[id].def;
	return g->n == 2 && to_sum(t, g->a[0], u) && to_sum(t, g->a[1], v);
}

/* Whether a - b is the same as c - d. */
static bool same_gap(const symtab *t, const sum *a, const sum *b, const sum *c, const sum *d)
{
	sum x, y;
	return sum_add(t, a, b, -1, &x) && sum_add(t, c, d, -1, &y) && sum_eq(&x, &y);
}

/* k*Max(A1, A2) + k*Min(B1, B2) with A1 - B1 = A2 - B2 (= g) is k*(A1 + B2): the
 * Max is g + Max(B1, B2), and Max(B1, B2) + Min(B1, B2) = B1 + B2, for any integers.
 * A cyclic shift's two slices, Max(L - 3, 0) + Min(L, 3), add up to L so. The sum is
 * rewritten in place; false when nothing applies or the result would not fit. */
static bool fold_max_min(const symtab *t, sum *s)
{
	for (int32_t i = 0; i < s->n; i++) {
		const term *mi = &s->t[i];
		if (mi->deg != 1 || t->v[mi->f[0]].kind != DX_MAX)
			continue;
		for (int32_t j = 0; j < s->n; j++) {
			const term *mj = &s->t[j];
			sum a1, a2, b1, b2, keep;
			if (j == i || mj->deg != 1 || mj->coef != mi->coef ||
			    !two_args(t, mi->f[0], DX_MAX, &a1, &a2) || !two_args(t, mj->f[0], DX_MIN, &b1, &b2))
				continue;
			if (!same_gap(t, &a1, &b1, &a2, &b2)) {
				sum x = b1;
				b1 = b2, b2 = x;
				if (!same_gap(t, &a1, &b1, &a2, &b2))
					continue;
			}
			int64_t k = mi->coef;
			sum ks = {.k = k, .n = 0}, pair, scaled, out = *s;
			int32_t hi = i > j ? i : j, lo = i > j ? j : i;
			memmove(&out.t[hi], &out.t[hi + 1], (size_t)(out.n - hi - 1) * sizeof out.t[0]);
			out.n--;
			memmove(&out.t[lo], &out.t[lo + 1], (size_t)(out.n - lo - 1) * sizeof out.t[0]);
			out.n--;
			if (!sum_add(t, &a1, &b2, 1, &pair) || !sum_mul(t, &pair, &ks, &scaled) ||
			    !sum_add(t, &out, &scaled, 1, &keep))
				return false;
			*s = keep;
			return true;
		}
	}
	return false;
}

static dim binary(symtab *t, dim a, dim b, int op)
{
	sum x, y, r;
	if (!to_sum(t, a, &x) || !to_sum(t, b, &y))
		return dim_unknown();
	bool ok = op == '*' ? sum_mul(t, &x, &y, &r) : sum_add(t, &x, &y, op == '-' ? -1 : 1, &r);
	if (ok && op != '*')
		for (int pass = 0; pass < DX_MAX_TERMS / 2 && fold_max_min(t, &r); pass++)
			;
	return ok ? from_sum(t, &r) : dim_unknown();
}

dim dx_add(symtab *t, dim a, dim b)
{
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		int64_t r;
		return __builtin_add_overflow(a.v, b.v, &r) ? dim_unknown() : dim_known(r);
	}
	return binary(t, a, b, '+');
}

dim dx_sub(symtab *t, dim a, dim b)
{
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		int64_t r;
		return __builtin_sub_overflow(a.v, b.v, &r) ? dim_unknown() : dim_known(r);
	}
	return binary(t, a, b, '-');
}

dim dx_mul(symtab *t, dim a, dim b)
{
	if (dim_is(a, 0) || dim_is(b, 0))
		return dim_known(0);
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		int64_t r;
		return __builtin_mul_overflow(a.v, b.v, &r) ? dim_unknown() : dim_known(r);
	}
	return binary(t, a, b, '*');
}

static dim floor_atom(symtab *t, dim num, dim den)
{
	text x;
	text_open(&x);
	dx_floor f = {num, den};
	put(&x, "floor(");
	if (is_operand(t, num))
		put_dim_text(&x, t, num);
	else if (num.kind == DIM_SYMBOL && t->v[num.v].kind == DX_SUM && ((const sum *)t->v[num.v].def)->n == 1 &&
		 ((const sum *)t->v[num.v].def)->k == 0)
		put_dim_text(&x, t, num); /* 2*a/3 reads as (2*a)/3 */
	else {
		put(&x, "(");
		put_dim_text(&x, t, num);
		put(&x, ")");
	}
	put(&x, "/");
	if (is_operand(t, den))
		put_dim_text(&x, t, den);
	else {
		put(&x, "(");
		put_dim_text(&x, t, den);
		put(&x, ")");
	}
	put(&x, ")");
	return intern(t, &x, DX_FLOOR, &f, sizeof f);
}

/* The floor atom of the term `m`, when it is floor(N/q) for a number q, alone and to
 * the first power. */
static const dx_floor *floor_by_number(const symtab *t, const term *m)
{
	if (m->coef != 1 || m->deg != 1 || t->v[m->f[0]].kind != DX_FLOOR)
		return NULL;
	const dx_floor *f = t->v[m->f[0]].def;
	return f->den.kind == DIM_KNOWN && f->den.v > 0 ? f : NULL;
}

static bool uses_atom(const sum *s, int32_t atom, int32_t skip)
{
	for (int32_t i = 0; i < s->n; i++)
		for (int32_t j = 0; i != skip && j < s->t[i].deg; j++)
			if (s->t[i].f[j] == atom)
				return true;
	return false;
}

/* floor(p/q), q > 0. `depth` bounds the merging of nested floors. */
static dim floor_number(symtab *t, const sum *p, int64_t q, int depth)
{
	if (q == 1)
		return from_sum(t, p);
	/* p = q*A + R with R's coefficients in [0, q): floor(p/q) = A + floor(R/q). */
	sum A = {.k = floor_div(p->k, q), .n = 0}, R = {.k = floor_mod(p->k, q), .n = 0};
	for (int32_t i = 0; i < p->n; i++) {
		term a = p->t[i], r = p->t[i];
		a.coef = floor_div(p->t[i].coef, q);
		r.coef = floor_mod(p->t[i].coef, q);
		if (!add_term(t, &A, &a) || !add_term(t, &R, &r))
			return dim_unknown();
	}
	dim rest;
	if (R.n == 0) {
		rest = dim_known(0); /* 0 <= R.k < q */
	} else {
		/* floor((floor(N/m) + Q)/q) = floor((N + m*Q)/(m*q)) for integer Q. */
		int32_t fi = -1;
		for (int32_t i = 0; i < R.n && fi < 0 && depth < 8; i++)
			if (floor_by_number(t, &R.t[i]) && !uses_atom(&R, R.t[i].f[0], i))
				fi = i;
		if (fi >= 0) {
			const dx_floor *f = floor_by_number(t, &R.t[fi]);
			sum n, m = {.k = f->den.v, .n = 0}, Q = R, scaled, merged;
			int64_t mq;
			memmove(&Q.t[fi], &Q.t[fi + 1], (size_t)(Q.n - fi - 1) * sizeof Q.t[0]);
			Q.n--;
			if (!to_sum(t, f->num, &n) || !sum_mul(t, &Q, &m, &scaled) ||
			    !sum_add(t, &n, &scaled, 1, &merged) || __builtin_mul_overflow(f->den.v, q, &mq))
				return dim_unknown();
			rest = floor_number(t, &merged, mq, depth + 1);
		} else {
			int64_t g = gcd(q, R.k);
			for (int32_t i = 0; i < R.n; i++)
				g = gcd(g, R.t[i].coef);
			if (g > 1) {
				R.k /= g;
				for (int32_t i = 0; i < R.n; i++)
					R.t[i].coef /= g;
			}
			dim num = from_sum(t, &R);
			if (num.kind == DIM_UNKNOWN)
				return num;
			rest = floor_atom(t, num, dim_known(q / g));
		}
	}
	if (rest.kind == DIM_UNKNOWN)
		return rest;
	return dx_add(t, from_sum(t, &A), rest);
}

/* p/d exactly when d is a single term dividing every term of p. */
static bool divide_by_term(const symtab *t, const sum *p, const term *d, sum *r)
{
	if (p->k != 0 || d->coef == 0)
		return false;
	sum out = {.k = 0, .n = 0};
	for (int32_t i = 0; i < p->n; i++) {
		const term *m = &p->t[i];
		term q = {.coef = 0, .deg = 0};
		if (!i64_divexact(m->coef, d->coef, &q.coef))
			return false;
		int32_t j = 0;
		for (int32_t k = 0; k < m->deg; k++) {
			if (j < d->deg && m->f[k] == d->f[j])
				j++;
			else
				q.f[q.deg++] = m->f[k];
		}
		if (j != d->deg)
			return false;
		if (q.deg == 0) {
			if (__builtin_add_overflow(out.k, q.coef, &out.k))
				return false;
		} else if (!add_term(t, &out, &q)) {
			return false;
		}
	}
	*r = out;
	return true;
}

/* The quotient when b divides a exactly; false when it does not provably. */
static bool exact_quotient(symtab *t, dim a, dim b, dim *q)
{
	sum x, y, r;
	if (!to_sum(t, a, &x) || !to_sum(t, b, &y))
		return false;
	if (y.n == 0) {
		if (y.k == 0)
			return false;
		r = (sum){.k = 0, .n = 0};
		if (!i64_divexact(x.k, y.k, &r.k))
			return false;
		for (int32_t i = 0; i < x.n; i++) {
			r.t[r.n] = x.t[i];
			if (!i64_divexact(x.t[i].coef, y.k, &r.t[r.n++].coef))
				return false;
		}
		*q = from_sum(t, &r);
		return q->kind != DIM_UNKNOWN;
	}
	if (y.n == 1 && y.k == 0 && divide_by_term(t, &x, &y.t[0], &r)) {
		*q = from_sum(t, &r);
		return q->kind != DIM_UNKNOWN;
	}
	/* a = c*b for a number c. */
	sum c = {.k = 0, .n = 0}, cb;
	if (y.n > 0 && x.n == y.n && i64_divexact(x.t[0].coef, y.t[0].coef, &c.k)) {
		if (sum_mul(t, &y, &c, &cb) && sum_eq(&cb, &x)) {
			*q = dim_known(c.k);
			return true;
		}
	}
	return false;
}

dim dx_divexact(symtab *t, dim a, dim b)
{
	int64_t k;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return i64_divexact(a.v, b.v, &k) ? dim_known(k) : dim_unknown();
	dim q;
	return exact_quotient(t, a, b, &q) ? q : dim_unknown();
}

dim dx_floordiv(symtab *t, dim a, dim b)
{
	if (a.kind == DIM_UNKNOWN || b.kind == DIM_UNKNOWN)
		return dim_unknown();
	if (b.kind == DIM_KNOWN) {
		if (b.v <= 0)
			return dim_unknown();
		if (a.kind == DIM_KNOWN)
			return dim_known(floor_div(a.v, b.v));
		sum p;
		if (!to_sum(t, a, &p))
			return dim_unknown();
		return floor_number(t, &p, b.v, 0);
	}
	if (dim_is(a, 0))
		return a;
	dim q;
	if (exact_quotient(t, a, b, &q))
		return q;
	return floor_atom(t, a, b);
}

dim dx_ceildiv(symtab *t, dim a, dim b)
{
	/* ceil(a/b) = floor((a + b - 1)/b) for b > 0. */
	if (b.kind == DIM_KNOWN && b.v <= 0)
		return dim_unknown();
	if (b.kind != DIM_KNOWN) {
		dim q;
		if (exact_quotient(t, a, b, &q))
			return q;
	}
	return dx_floordiv(t, dx_sub(t, dx_add(t, a, b), dim_known(1)), b);
}

dim dx_mod(symtab *t, dim a, dim b)
{
	if (b.kind == DIM_KNOWN && b.v <= 0)
		return dim_unknown();
	return dx_sub(t, a, dx_mul(t, b, dx_floordiv(t, a, b)));
}

/* Whether the sum is an interned expression marked as a size; nothing is added. */
static bool marked_size(const symtab *t, const sum *s)
{
	if (s->n == 0)
		return s->k >= 0;
	if (s->n == 1 && s->k == 0 && s->t[0].coef == 1 && s->t[0].deg == 1)
		return t->v[s->t[0].f[0]].size;
	text x;
	text_open(&x);
	put_sum(&x, t, s);
	int32_t id = over(&x) ? -1 : strmap_get(&t->names, x.b);
	return id >= 0 && t->v[id].size;
}

static bool sum_nonneg(const symtab *t, const sum *s)
{
	if (s->k < 0)
		return false;
	for (int32_t i = 0; i < s->n; i++) {
		if (s->t[i].coef < 0)
			return false;
		for (int32_t j = 0; j < s->t[i].deg; j++)
			if (!dx_nonneg(t, dim_symbol(s->t[i].f[j])))
				return false;
	}
	return true;
}

bool dx_nonneg(const symtab *t, dim a)
{
	if (a.kind == DIM_KNOWN)
		return a.v >= 0;
	if (a.kind != DIM_SYMBOL)
		return false;
	const sym_entry *e = &t->v[a.v];
	switch (e->kind) {
	case DX_NAME:
		return true;
	case DX_SUM:
		return e->size || sum_nonneg(t, e->def);
	case DX_FLOOR: {
		const dx_floor *f = e->def;
		return dx_nonneg(t, f->num) && dx_nonneg(t, f->den);
	}
	case DX_MAX:
	case DX_MIN: {
		const dx_args *g = e->def;
		for (int32_t i = 0; i < g->n; i++)
			if (dx_nonneg(t, g->a[i]) == (e->kind == DX_MAX))
				return e->kind == DX_MAX;
		return e->kind == DX_MIN;
	}
	}
	return false;
}

bool dx_diff_const(symtab *t, dim a, dim b, int64_t *diff)
{
	sum x, y, r;
	if (!to_sum(t, a, &x) || !to_sum(t, b, &y) || !sum_add(t, &x, &y, -1, &r) || r.n != 0)
		return false;
	*diff = r.k;
	return true;
}

const dim *dx_args_of(const symtab *t, dim d, uint8_t kind, int64_t *n)
{
	if (d.kind != DIM_SYMBOL || t->v[d.v].kind != kind || (kind != DX_MAX && kind != DX_MIN))
		return NULL;
	const dx_args *g = t->v[d.v].def;
	*n = g->n;
	return g->a;
}

bool dx_linear(const symtab *t, dim d, int64_t *atom, int64_t *c, int64_t *k)
{
	sum s;
	if (d.kind != DIM_SYMBOL || t->v[d.v].kind != DX_SUM || !to_sum(t, d, &s) || s.n != 1 || s.t[0].deg != 1)
		return false;
	*atom = s.t[0].f[0], *c = s.t[0].coef, *k = s.k;
	return true;
}

/* rest + c*d, for a number c. */
static bool add_scaled(const symtab *t, const sum *rest, int64_t c, dim d, sum *r)
{
	sum x, cs = {.k = c, .n = 0}, cx;
	return to_sum(t, d, &x) && sum_mul(t, &x, &cs, &cx) && sum_add(t, rest, &cx, 1, r);
}

/* Whether s >= 0 provably: every term is (sum_nonneg), it is a size, or it is once
 * one of its atoms is replaced by a bound in the right direction. A floor by a number
 * q lies in [(P - q + 1)/q, P/q], so L - floor(L/2) >= 0 because 2*L - L is (all terms
 * are integers, which tightens the bound by q - 1 for a floor taken once); c*Min(..)
 * with c < 0 is at least c times any argument, c*Max(..) with c > 0 likewise. Sizes
 * are never negative, so Min(L, floor(L/2)) is floor(L/2). `depth` bounds the
 * replacements (each tries every term). */
static bool sum_provably_nonneg(const symtab *t, const sum *s, int depth)
{
	if (sum_nonneg(t, s) || marked_size(t, s))
		return true;
	if (depth >= 2)
		return false;
	for (int32_t i = 0; i < s->n; i++) {
		const term *m = &s->t[i];
		if (m->deg != 1)
			continue;
		const sym_entry *e = &t->v[m->f[0]];
		int64_t c = m->coef;
		sum rest = *s, bound;
		memmove(&rest.t[i], &rest.t[i + 1], (size_t)(rest.n - i - 1) * sizeof rest.t[0]);
		rest.n--;
		if (e->kind == DX_FLOOR) {
			const dx_floor *f = e->def;
			if (f->den.kind != DIM_KNOWN || f->den.v <= 0)
				continue;
			/* q*s >= B with B = q*rest + c*P (c < 0), or q*rest + c*(P - q + 1)
			 * (c > 0). s and B are integers, so s >= ceil(B/q), which is >= 0 when
			 * B + q - 1 is (a - floor((a + 1)/2) at a = 0; a window's padded length
			 * against the size, 6*b + floor((u + 1)/4) - 7*floor((24*b + u + 1)/28),
			 * needs it at both floors). */
			int64_t q = f->den.v;
			sum qs = {.k = q, .n = 0}, qrest, low = {.k = 0, .n = 0};
			if (!sum_mul(t, &rest, &qs, &qrest) || (c > 0 && __builtin_mul_overflow(c, 1 - q, &low.k)) ||
			    __builtin_add_overflow(low.k, q - 1, &low.k) || !add_scaled(t, &qrest, c, f->num, &bound) ||
			    !sum_add(t, &bound, &low, 1, &bound))
				continue;
			if (sum_provably_nonneg(t, &bound, depth + 1))
				return true;
		} else if ((e->kind == DX_MIN && c < 0) || (e->kind == DX_MAX && c > 0)) {
			const dx_args *g = e->def;
			for (int32_t j = 0; j < g->n; j++)
				if (add_scaled(t, &rest, c, g->a[j], &bound) && sum_provably_nonneg(t, &bound, depth + 1))
					return true;
		}
	}
	return false;
}

/* Whether a >= b provably. */
static bool dominates(symtab *t, dim a, dim b)
{
	sum x, y, r;
	if (!to_sum(t, a, &x) || !to_sum(t, b, &y) || !sum_add(t, &x, &y, -1, &r))
		return false;
	return sum_provably_nonneg(t, &r, 0);
}

static int dim_text_cmp(const symtab *t, dim a, dim b)
{
	if (a.kind == DIM_KNOWN || b.kind == DIM_KNOWN) {
		if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
			return a.v < b.v ? -1 : a.v > b.v;
		return a.kind == DIM_KNOWN ? 1 : -1; /* numbers last */
	}
	return atom_cmp(t, (int32_t)a.v, (int32_t)b.v);
}

static dim extreme(symtab *t, dim a, dim b, uint8_t kind)
{
	if (a.kind == DIM_UNKNOWN || b.kind == DIM_UNKNOWN)
		return dim_unknown();
	bool is_max = kind == DX_MAX;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return dim_known(is_max ? (a.v > b.v ? a.v : b.v) : (a.v < b.v ? a.v : b.v));
	/* The arguments of both, flattened, without the dominated ones. */
	dx_args g = {.n = 0};
	dim in[2 * DX_MAX_ARGS];
	int32_t nin = 0;
	dim ab[2] = {a, b};
	for (int k = 0; k < 2; k++) {
		dim d = ab[k];
		if (d.kind == DIM_SYMBOL && t->v[d.v].kind == kind) {
			const dx_args *sub = t->v[d.v].def;
			for (int32_t i = 0; i < sub->n; i++)
				in[nin++] = sub->a[i];
		} else {
			in[nin++] = d;
		}
	}
	for (int32_t i = 0; i < nin; i++) {
		bool drop = false;
		for (int32_t j = 0; j < nin && !drop; j++) {
			if (i == j)
				continue;
			bool j_wins = is_max ? dominates(t, in[j], in[i]) : dominates(t, in[i], in[j]);
			/* Of two equal arguments keep the first. */
			bool i_wins = is_max ? dominates(t, in[i], in[j]) : dominates(t, in[j], in[i]);
			drop = j_wins && (!i_wins || j < i);
		}
		if (drop)
			continue;
		if (g.n == DX_MAX_ARGS)
			return dim_unknown();
		int32_t p = g.n;
		while (p > 0 && dim_text_cmp(t, g.a[p - 1], in[i]) > 0) {
			g.a[p] = g.a[p - 1];
			p--;
		}
		g.a[p] = in[i];
		g.n++;
	}
	if (g.n == 1)
		return g.a[0];
	text x;
	text_open(&x);
	put(&x, is_max ? "Max(" : "Min(");
	for (int32_t i = 0; i < g.n; i++) {
		if (i)
			put(&x, ", ");
		put_dim_text(&x, t, g.a[i]);
	}
	put(&x, ")");
	return intern(t, &x, kind, &g, sizeof g);
}

dim dx_max(symtab *t, dim a, dim b) { return extreme(t, a, b, DX_MAX); }
dim dx_min(symtab *t, dim a, dim b) { return extreme(t, a, b, DX_MIN); }

/* ---- substitution ---------------------------------------------------------------------- */

/* fn's answer for an atom; a function term fn leaves as it is is rebuilt from its
 * arguments' answers. */
static dim subst_atom(symtab *t, int64_t atom, dx_atom_fn fn, void *ctx)
{
	dim r = fn(ctx, atom);
	if (r.kind == DIM_SYMBOL && r.v == atom && t->v[atom].kind != DX_NAME)
		return dx_subst(t, r, fn, ctx);
	return r;
}

static dim subst_arg(symtab *t, dim d, dx_atom_fn fn, void *ctx)
{
	if (d.kind != DIM_SYMBOL)
		return d;
	return t->v[d.v].kind == DX_SUM ? dx_subst(t, d, fn, ctx) : subst_atom(t, d.v, fn, ctx);
}

dim dx_subst(symtab *t, dim d, dx_atom_fn fn, void *ctx)
{
	if (d.kind != DIM_SYMBOL)
		return d;
	const sym_entry *e = &t->v[d.v];
	switch (e->kind) {
	case DX_NAME:
		return fn(ctx, d.v);
	case DX_SUM: {
		const sum *s = e->def;
		dim acc = dim_known(s->k);
		for (int32_t i = 0; i < s->n && acc.kind != DIM_UNKNOWN; i++) {
			dim m = dim_known(s->t[i].coef);
			for (int32_t j = 0; j < s->t[i].deg; j++)
				m = dx_mul(t, m, subst_atom(t, s->t[i].f[j], fn, ctx));
			acc = dx_add(t, acc, m);
		}
		return acc;
	}
	case DX_FLOOR: {
		const dx_floor *f = e->def;
		return dx_floordiv(t, subst_arg(t, f->num, fn, ctx), subst_arg(t, f->den, fn, ctx));
	}
	case DX_MAX:
	case DX_MIN: {
		const dx_args *g = e->def;
		uint8_t kind = e->kind;
		dim acc = subst_arg(t, g->a[0], fn, ctx);
		for (int32_t i = 1; i < g->n; i++)
			acc = extreme(t, acc, subst_arg(t, g->a[i], fn, ctx), kind);
		return acc;
	}
	}
	return dim_unknown();
}

bool dx_occurs(const symtab *t, dim d, int64_t atom)
{
	if (d.kind != DIM_SYMBOL)
		return false;
	if (d.v == atom)
		return true;
	const sym_entry *e = &t->v[d.v];
	switch (e->kind) {
	case DX_NAME:
		return false;
	case DX_SUM: {
		const sum *s = e->def;
		for (int32_t i = 0; i < s->n; i++)
			for (int32_t j = 0; j < s->t[i].deg; j++)
				if (dx_occurs(t, dim_symbol(s->t[i].f[j]), atom))
					return true;
		return false;
	}
	case DX_FLOOR: {
		const dx_floor *f = e->def;
		return dx_occurs(t, f->num, atom) || dx_occurs(t, f->den, atom);
	}
	case DX_MAX:
	case DX_MIN: {
		const dx_args *g = e->def;
		for (int32_t i = 0; i < g->n; i++)
			if (dx_occurs(t, g->a[i], atom))
				return true;
		return false;
	}
	}
	return false;
}

/* ---- what a dim is made of ------------------------------------------------------------- */

/* Calls fn on every name in d (a name repeated as often as it occurs) until it
 * returns false; returns whether none did. */
typedef bool (*name_fn)(symtab *t, int64_t id);

static bool each_name(symtab *t, dim d, name_fn fn, int depth)
{
	if (d.kind != DIM_SYMBOL)
		return true;
	const sym_entry *e = &t->v[d.v];
	if (depth > 32)
		return false;
	switch (e->kind) {
	case DX_NAME:
		return fn(t, d.v);
	case DX_SUM: {
		const sum *m = e->def;
		for (int32_t i = 0; i < m->n; i++)
			for (int32_t j = 0; j < m->t[i].deg; j++)
				if (!each_name(t, dim_symbol(m->t[i].f[j]), fn, depth + 1))
					return false;
		return true;
	}
	case DX_FLOOR: {
		const dx_floor *f = e->def;
		return each_name(t, f->num, fn, depth + 1) && each_name(t, f->den, fn, depth + 1);
	}
	case DX_MAX:
	case DX_MIN: {
		const dx_args *g = e->def;
		for (int32_t i = 0; i < g->n; i++)
			if (!each_name(t, g->a[i], fn, depth + 1))
				return false;
		return true;
	}
	}
	return false;
}

static bool is_input_name(symtab *t, int64_t id) { return t->v[id].input; }

bool dx_over_inputs(symtab *t, dim d) { return d.kind == DIM_SYMBOL && each_name(t, d, is_input_name, 0); }

static bool is_made_up(symtab *t, int64_t id) { return t->v[id].fresh; }

bool dx_made_up(symtab *t, dim d) { return d.kind == DIM_SYMBOL && each_name(t, d, is_made_up, 0); }

static bool is_given(symtab *t, int64_t id) { return !t->v[id].fresh; }

bool dx_expr_mentions_made_up(symtab *t, dim d) { return d.kind == DIM_SYMBOL && !each_name(t, d, is_given, 0); }

static bool count_declared(symtab *t, int64_t id)
{
	if (t->v[id].decls < INT32_MAX)
		t->v[id].decls++;
	return true;
}

void dx_note_declared(symtab *t, dim d) { (void)each_name(t, d, count_declared, 0); }

void dx_forget_declared(symtab *t)
{
	for (int64_t i = 0; i < t->n; i++)
		t->v[i].decls = 0;
}

/* ---- parsing ----------------------------------------------------------------------------- */

/* A parsed value is num/den: sympy writes rationals inside floor() (floor(H/32 +
 * 31/32)); `/` appears nowhere else, so that outside a floor den stays 1. */
typedef struct qv {
	dim num, den;
} qv;

/* The text is read twice: its syntax first, building nothing (t NULL), so that a
 * name such as `conv/out_dim_0` or `batch size` adds no atoms to the table; then,
 * when the syntax is an expression's, its value. */
typedef struct parser {
	symtab *t;
	const char *s;
	bool bad;
	bool divide; /* directly inside floor() or ceiling(): `/` may appear */
	int depth;
} parser;

static qv q_int(dim d) { return (qv){d, dim_known(1)}; }
static bool q_ok(qv v) { return v.num.kind != DIM_UNKNOWN && v.den.kind != DIM_UNKNOWN; }
static qv q_bad(parser *p)
{
	p->bad = true;
	return q_int(dim_unknown());
}

/* v, or a refusal when building it passed a bound or divided by zero. */
static qv q_checked(parser *p, qv v) { return q_ok(v) ? v : q_bad(p); }

/* Integer value of v, or unknown when it does not divide out. */
static dim q_whole(parser *p, qv v)
{
	if (dim_is(v.den, 1))
		return v.num;
	return dx_divexact(p->t, v.num, v.den);
}

static qv parse_sum(parser *p);

enum { FN_FLOOR, FN_CEIL, FN_MAX, FN_MIN, FN_MOD, FN_FLOORDIV, FN_CEILDIV, FN_NONE };

static int function_of(const char *name, size_t len)
{
	static const struct {
		const char *name;
		int fn;
	} fns[] = {{"floor", FN_FLOOR}, {"ceiling", FN_CEIL},      {"ceil", FN_CEIL},        {"Max", FN_MAX},
		   {"max", FN_MAX},     {"Min", FN_MIN},           {"min", FN_MIN},          {"Mod", FN_MOD},
		   {"FloorDiv", FN_FLOORDIV}, {"CeilDiv", FN_CEILDIV}};
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
		if (strlen(fns[i].name) == len && !memcmp(fns[i].name, name, len))
			return fns[i].fn;
	return FN_NONE;
}

/* A call, p->s just past its `(`. */
static qv parse_call(parser *p, int fn)
{
	bool outer = p->divide;
	p->divide = fn == FN_FLOOR || fn == FN_CEIL;
	qv args[DX_MAX_ARGS];
	int n = 0;
	for (;;) {
		if (n == DX_MAX_ARGS)
			return q_bad(p);
		args[n++] = parse_sum(p);
		if (p->bad || p->s[0] != ',' || p->s[1] != ' ')
			break;
		p->s += 2;
	}
	p->divide = outer;
	if (p->bad || *p->s != ')')
		return q_bad(p);
	p->s++;
	bool one = fn == FN_FLOOR || fn == FN_CEIL, extreme = fn == FN_MAX || fn == FN_MIN;
	if (one ? n != 1 : extreme ? n < 2 : n != 2)
		return q_bad(p);
	symtab *t = p->t;
	if (!t)
		return q_int(dim_known(1));
	if (fn == FN_FLOOR)
		return q_checked(p, q_int(dx_floordiv(t, args[0].num, args[0].den)));
	if (fn == FN_CEIL)
		return q_checked(p, q_int(dx_ceildiv(t, args[0].num, args[0].den)));
	dim r = q_whole(p, args[0]);
	for (int i = 1; i < n; i++) {
		dim b = q_whole(p, args[i]);
		switch (fn) {
		case FN_MAX: r = dx_max(t, r, b); break;
		case FN_MIN: r = dx_min(t, r, b); break;
		case FN_MOD: r = dx_mod(t, r, b); break;
		case FN_FLOORDIV: r = dx_floordiv(t, r, b); break;
		default: r = dx_ceildiv(t, r, b); break;
		}
	}
	return q_checked(p, q_int(r));
}

/* A name between backquotes, p->s just past the first: a doubled backquote is one.
 * What it holds must read as a name by itself (a name never is an expression's
 * text: `a - b` between backquotes would be one that cannot exist). */
static qv parse_quoted(parser *p)
{
	char name[DX_MAX_TEXT + 1];
	size_t len = 0;
	for (;;) {
		if (!*p->s)
			return q_bad(p);
		if (p->s[0] == '`' && p->s[1] != '`')
			break;
		if (len == DX_MAX_TEXT)
			return q_bad(p);
		name[len++] = *p->s;
		p->s += p->s[0] == '`' ? 2 : 1;
	}
	p->s++;
	name[len] = '\0';
	if (!len)
		return q_bad(p);
	if (!p->t)
		return q_int(dim_known(1));
	dim d;
	if (plain_name(name) || reads_as_expr(p->t, name, &d))
		return q_bad(p); /* needed no quotes, or is no name */
	int64_t id = intern_name(p->t, name, false);
	return id < 0 ? q_bad(p) : q_int(dim_symbol(id));
}

static qv parse_atom(parser *p)
{
	if (++p->depth > 32)
		return q_bad(p);
	qv r;
	char ch = *p->s;
	if (ch == '(') {
		p->s++;
		r = parse_sum(p);
		if (p->bad || *p->s != ')')
			r = q_bad(p);
		else
			p->s++;
	} else if (ch >= '0' && ch <= '9') {
		int64_t v = 0;
		while (*p->s >= '0' && *p->s <= '9') {
			if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p->s - '0', &v))
				p->bad = true;
			p->s++;
		}
		r = p->bad ? q_bad(p) : q_int(dim_known(v));
	} else if (name_start(ch)) {
		const char *start = p->s;
		while (name_char(*p->s))
			p->s++;
		size_t len = (size_t)(p->s - start);
		if (*p->s == '(') {
			int fn = function_of(start, len);
			p->s++;
			r = fn == FN_NONE ? q_bad(p) : parse_call(p, fn);
		} else if (!p->t) {
			r = q_int(dim_known(1));
		} else {
			char name[DX_MAX_TEXT + 1];
			memcpy(name, start, len); /* the whole text is at most DX_MAX_TEXT */
			name[len] = '\0';
			int64_t id = intern_name(p->t, name, false);
			r = id < 0 ? q_bad(p) : q_int(dim_symbol(id));
		}
	} else if (ch == '`') {
		p->s++;
		r = parse_quoted(p);
	} else {
		r = q_bad(p);
	}
	p->depth--;
	return r;
}

/* An atom, or an atom to a whole power from 1 to DX_MAX_DEG (seq**2). */
static qv parse_power(parser *p)
{
	qv base = parse_atom(p);
	if (p->bad || p->s[0] != '*' || p->s[1] != '*')
		return base;
	p->s += 2;
	int64_t e = 0;
	if (*p->s < '1' || *p->s > '9')
		return q_bad(p);
	while (*p->s >= '0' && *p->s <= '9' && e <= DX_MAX_DEG)
		e = e * 10 + (*p->s++ - '0');
	if (e > DX_MAX_DEG)
		return q_bad(p);
	if (!p->t)
		return base;
	qv r = base;
	for (int64_t i = 1; i < e; i++)
		r = (qv){dx_mul(p->t, r.num, base.num), dx_mul(p->t, r.den, base.den)};
	return q_checked(p, r);
}

static qv parse_product(parser *p)
{
	qv v = parse_power(p);
	while (!p->bad) {
		char op = *p->s;
		if (!((op == '*' && p->s[1] != '*') || (op == '/' && p->divide)))
			return v;
		p->s++;
		qv w = parse_power(p);
		if (p->bad || !p->t)
			continue;
		symtab *t = p->t;
		if (op == '*')
			v = (qv){dx_mul(t, v.num, w.num), dx_mul(t, v.den, w.den)};
		else
			v = (qv){dx_mul(t, v.num, w.den), dx_mul(t, v.den, w.num)};
		v = q_checked(p, v);
	}
	return v;
}

/* Terms joined by ` + ` and ` - ` (one space either side, as both printers write
 * them), the first one possibly negated: -seq + 1. */
static qv parse_sum(parser *p)
{
	bool neg = *p->s == '-';
	if (neg)
		p->s++;
	qv v = parse_product(p);
	if (neg && p->t && !p->bad)
		v = q_checked(p, (qv){dx_sub(p->t, dim_known(0), v.num), v.den});
	while (!p->bad && p->s[0] == ' ' && (p->s[1] == '+' || p->s[1] == '-') && p->s[2] == ' ') {
		bool sub = p->s[1] == '-';
		p->s += 3;
		qv w = parse_product(p);
		if (p->bad || !p->t)
			continue;
		symtab *t = p->t;
		dim n1 = dx_mul(t, v.num, w.den), n2 = dx_mul(t, w.num, v.den);
		v = q_checked(p, (qv){sub ? dx_sub(t, n1, n2) : dx_add(t, n1, n2), dx_mul(t, v.den, w.den)});
	}
	return v;
}

/* Whether text is an expression's text (dimexpr.h, dx_parse), and which. */
static bool reads_as_expr(symtab *t, const char *s, dim *out)
{
	size_t len = 0;
	while (s[len] && len <= DX_MAX_TEXT)
		len++;
	if (len > DX_MAX_TEXT)
		return false; /* longer than any expression's text */
	parser syntax = {.t = NULL, .s = s};
	(void)parse_sum(&syntax);
	if (syntax.bad || *syntax.s)
		return false;
	parser p = {.t = t, .s = s};
	qv v = parse_sum(&p);
	if (p.bad || *p.s || !q_ok(v) || !dim_is(v.den, 1))
		return false;
	/* A number or a single name is no expression: `1 - 2`, `a - a` and `(batch)`
	 * are names, as ONNX Runtime reads every dim_param. */
	if (v.num.kind != DIM_SYMBOL || t->v[v.num.v].kind == DX_NAME)
		return false;
	*out = v.num;
	return true;
}

dim dx_parse(symtab *t, const char *s)
{
	int32_t id = strmap_get(&t->names, s);
	if (id >= 0)
		return dim_symbol(id);
	dim d;
	if (!plain_name(s) && reads_as_expr(t, s, &d))
		return d;
	if (t->nomem)
		return dim_unknown(); /* not a name for want of memory to read it */
	int64_t nid = intern_name(t, s, false);
	return nid < 0 ? dim_unknown() : dim_symbol(nid);
}
