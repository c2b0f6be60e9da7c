/* broadcast.c: the broadcasting rule families of the spec, as pure functions.
 *
 * Every rule is one loop (meet_run) over the result dimensions: it places the two
 * operands in the result (numpy: right-aligned; pdpd/paddle: at `axis`), looks up what
 * meeting two dimensions means in the rule's decision table, and records the facts
 * about symbols that the decision assumed. Rules differ only in their table and their
 * placement, so the tables below are the whole semantics of section 8 of the spec.
 *
 * Invariants: nothing here allocates, prints or keeps state. No refusal depends on a
 * value nobody knows: an unknown or symbolic dimension can only make a result less
 * precise or add a fact. Model values (axis, axes_mapping) are compared against ranks
 * before any arithmetic with them, so hostile int64 values cannot overflow.
 */
#include "passes/bcast/broadcast.h"

#include "core/strbuf.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const rule_names[] = {
	[BCAST_NONE] = "none",
	[BCAST_NUMPY] = "numpy",
	[BCAST_UNIDIRECTIONAL] = "unidirectional",
	[BCAST_PDPD] = "pdpd",
	[BCAST_PADDLE] = "paddle",
	[BCAST_BIDIRECTIONAL] = "bidirectional",
	[BCAST_EXPLICIT] = "explicit",
};

const char *bcast_rule_name(bcast_rule r)
{
	if ((unsigned)r < sizeof rule_names / sizeof rule_names[0] && rule_names[r])
		return rule_names[r];
	return "?";
}

/* ---- meeting two dimensions ------------------------------------------------------ */

/* What a dimension is, as far as broadcasting cares: 1 is the only special size. */
typedef enum dclass { C_ONE, C_SIZE, C_SYM, C_UNK } dclass;

static dclass classify(dim d)
{
	switch (d.kind) {
	case DIM_KNOWN:
		return d.v == 1 ? C_ONE : C_SIZE;
	case DIM_SYMBOL:
		return C_SYM;
	case DIM_UNKNOWN:
		break;
	}
	return C_UNK;
}

/* What meeting dimension a (first operand) with b (second operand) does. */
typedef enum meet_act {
	KEEP_A,          /* the result is a */
	KEEP_B,          /* the result is b */
	LOSE,            /* the result is unknown */
	CMP_SIZES,       /* two sizes, neither 1: the result if equal, else a mismatch */
	FAIL_GROW,       /* a is 1 and b's size would make it grow */
	FAIL_MISMATCH,   /* two different sizes where the rule allows no broadcasting */
	KEEP_A_B_ONE_OR, /* result a's size; b's symbol is 1 or that size */
	KEEP_B_A_ONE_OR, /* result b's size; a's symbol is 1 or that size */
	KEEP_A_B_IS,     /* result a's size; b's symbol equals it */
	KEEP_B_A_IS,     /* result b's size; a's symbol equals it */
	KEEP_A_A_IS_B,   /* result a's symbol, which equals b's size (A may not grow) */
	SYMS_EITHER,     /* numpy: same symbol, else unknown: N is 1, M is 1 or N = M */
	SYMS_INTO_A,     /* one-way: same symbol, else a's; b's is 1 or equals a's */
	SYMS_SAME,       /* none: same symbol, else a's; the two are equal */
} meet_act;

/* Indexed [class of a][class of b]. */
typedef meet_act meet_table[4][4];

/* Section 2 and the numpy decisions of section 8: both directions. */
static const meet_table numpy_table = {
	/* b:        ONE     SIZE             SYM              UNK */
	[C_ONE]  = {KEEP_A, KEEP_B,          KEEP_B,          KEEP_B},
	[C_SIZE] = {KEEP_A, CMP_SIZES,       KEEP_A_B_ONE_OR, KEEP_A},
	[C_SYM]  = {KEEP_A, KEEP_B_A_ONE_OR, SYMS_EITHER,     LOSE},
	[C_UNK]  = {KEEP_A, KEEP_B,          LOSE,            LOSE},
};

/* Section 3 (and pdpd, explicit): b broadcasts into a, and every row keeps a, so the
 * result is exactly A. An unknown a stays unknown: nothing to pin, nothing to refuse. */
static const meet_table into_a_table = {
	/* b:        ONE     SIZE             SYM              UNK */
	[C_ONE]  = {KEEP_A, FAIL_GROW,       KEEP_A_B_IS,     KEEP_A},
	[C_SIZE] = {KEEP_A, CMP_SIZES,       KEEP_A_B_ONE_OR, KEEP_A},
	[C_SYM]  = {KEEP_A, KEEP_A_A_IS_B,   SYMS_INTO_A,     KEEP_A},
	[C_UNK]  = {KEEP_A, KEEP_A,          KEEP_A,          KEEP_A},
};

/* Section 1: 1 is an ordinary size; whatever is known of either side is the result. */
static const meet_table none_table = {
	/* b:        ONE            SIZE           SYM          UNK */
	[C_ONE]  = {KEEP_A,        FAIL_MISMATCH, KEEP_A_B_IS, KEEP_A},
	[C_SIZE] = {FAIL_MISMATCH, CMP_SIZES,     KEEP_A_B_IS, KEEP_A},
	[C_SYM]  = {KEEP_B_A_IS,   KEEP_B_A_IS,   SYMS_SAME,   KEEP_A},
	[C_UNK]  = {KEEP_B,        KEEP_B,        KEEP_B,      LOSE},
};

typedef struct meet {
	dim d;
	bcast_fail fail;
	bool has_fact;
	sym_fact fact; /* its dim is filled in by the caller, who knows the position */
} meet;

static meet meet_fact(dim d, fact_kind kind, int64_t sym, int64_t k, int64_t other)
{
	return (meet){
		.d = d,
		.fail = BFAIL_NONE,
		.has_fact = true,
		.fact = {.kind = kind, .sym = sym, .k = k, .other = other, .dim = -1},
	};
}

static bool same_symbol(const sym_ctx *sc, int64_t x, int64_t y)
{
	return x == y || (sc && sc->eq && sc->eq(sc->ctx, x, y));
}

static inline meet meet_dims(const meet_table t, dim a, dim b, const sym_ctx *sc)
{
	meet m;

	/* m.fact is read only when has_fact says it was set. */
	m.d = a;
	m.fail = BFAIL_NONE;
	m.has_fact = false;

	switch (t[classify(a)][classify(b)]) {
	case KEEP_A:
		break;
	case KEEP_B:
		m.d = b;
		break;
	case LOSE:
		m.d = dim_unknown();
		break;
	case CMP_SIZES:
		if (a.v != b.v)
			m.fail = BFAIL_MISMATCH;
		break;
	case FAIL_GROW:
		m.fail = BFAIL_GROW;
		break;
	case FAIL_MISMATCH:
		m.fail = BFAIL_MISMATCH;
		break;
	case KEEP_A_B_ONE_OR:
		m = meet_fact(a, FACT_ONE_OR, b.v, a.v, 0);
		break;
	case KEEP_B_A_ONE_OR:
		m = meet_fact(b, FACT_ONE_OR, a.v, b.v, 0);
		break;
	case KEEP_A_B_IS:
		m = meet_fact(a, FACT_EQUALS, b.v, a.v, 0);
		break;
	case KEEP_B_A_IS:
		m = meet_fact(b, FACT_EQUALS, a.v, b.v, 0);
		break;
	case KEEP_A_A_IS_B:
		m = meet_fact(a, FACT_EQUALS, a.v, b.v, 0);
		break;
	case SYMS_EITHER:
		if (!same_symbol(sc, a.v, b.v))
			m = meet_fact(dim_unknown(), FACT_ONE_OR_SYM, a.v, 0, b.v);
		break;
	case SYMS_INTO_A:
		if (!same_symbol(sc, a.v, b.v))
			m = meet_fact(a, FACT_SYM_EQ_OR_ONE, a.v, 0, b.v);
		break;
	case SYMS_SAME:
		if (!same_symbol(sc, a.v, b.v))
			m = meet_fact(a, FACT_SYM_EQUALS, a.v, 0, b.v);
		break;
	}
	return m;
}

/* ---- results, refusals, facts ---------------------------------------------------- */

static bool has_rank(shape s)
{
	return s.rank >= 0;
}

static int32_t rank_of(shape s)
{
	return has_rank(s) ? s.rank : RANK_UNKNOWN;
}

/* Points err at caller storage or at `spare`, and clears it for `rule`. */
static bcast_error *err_init(bcast_error *err, bcast_error *spare, bcast_rule rule)
{
	if (!err)
		err = spare;
	*err = (bcast_error){
		.rule = rule,
		.fail = BFAIL_NONE,
		.dim = -1,
		.a = dim_unknown(),
		.b = dim_unknown(),
		.input = -1,
		.axis = 0,
		.arank = RANK_UNKNOWN,
		.brank = RANK_UNKNOWN,
	};
	return err;
}

static bool refuse(bcast_error *err, bcast_fail fail)
{
	err->fail = fail;
	return false;
}

static void out_init(bcast_out *out)
{
	assert(out);
	out->rank = RANK_UNKNOWN;
	out->nfacts = 0;
}

/* The result is s itself; memmove because s may already live in out->dims. */
static void out_copy(bcast_out *out, shape s)
{
	out->rank = rank_of(s);
	if (out->rank > 0) {
		assert(out->dims && s.dims);
		memmove(out->dims, s.dims, (size_t)out->rank * sizeof *out->dims);
	}
}

static void fact_add(bcast_out *out, sym_fact f)
{
	if (out->facts && out->nfacts < out->facts_cap)
		out->facts[out->nfacts++] = f;
}

/* Facts are found right to left; callers read them left to right. */
static void facts_reverse_from(bcast_out *out, int32_t first)
{
	if (!out->facts)
		return;
	for (int32_t i = first, j = out->nfacts - 1; i < j; i++, j--) {
		sym_fact t = out->facts[i];
		out->facts[i] = out->facts[j];
		out->facts[j] = t;
	}
}

/* ---- placing operands in the result ---------------------------------------------- */

/* An operand as it sits in a result: its dims occupy [off, off + rank), and it reads
 * as 1 everywhere else (numpy's left padding, pdpd's padding on both sides). */
typedef struct placed {
	shape s;
	int32_t off;
} placed;

static dim placed_dim(placed p, int32_t i)
{
	int64_t j = (int64_t)i - p.off;

	return (j >= 0 && j < p.s.rank) ? p.s.dims[j] : dim_known(1);
}

/* Step 2 of pdpd: trailing known 1s go, but never below rank 1, so (1, 1) stays (1). */
static shape trim_ones(shape s)
{
	while (s.rank > 1 && dim_is(s.dims[s.rank - 1], 1))
		s.rank--;
	return s;
}

/* Steps 2 and 4 of pdpd: b, trimmed, placed at axis (>= 0) inside a host of rank n.
 * Returns false when it cannot fit. Trailing dims that would sit past the host's end
 * are dropped when each may be 1 (a symbol, or unknown): refusing would depend on a
 * value nobody knows. Only known 1s are trimmed, so such dims can remain; a symbol
 * among them is recorded in out (may be NULL) as a fact that it equals 1. Trimming
 * never goes below rank 1, so neither does this. */
static bool place(int32_t n, shape b, int64_t axis, shape *placed_b, bcast_out *out)
{
	shape t = trim_ones(b);
	int32_t room;

	if (axis > n)
		return false;
	room = n - (int32_t)axis;
	if (t.rank > room) {
		if (room < 1)
			return false;
		for (int32_t i = room; i < t.rank; i++)
			if (t.dims[i].kind == DIM_KNOWN && t.dims[i].v != 1)
				return false;
		for (int32_t i = room; out && i < t.rank; i++)
			if (t.dims[i].kind == DIM_SYMBOL)
				fact_add(out, (sym_fact){.kind = FACT_EQUALS, .sym = t.dims[i].v,
							 .k = 1, .dim = -1});
		t.rank = room;
	}
	*placed_b = t;
	return true;
}

/* Meets a and b at each of the n result dims. It runs from the right so that a
 * refusal names the rightmost disagreement, as PyTorch's does, and so that writing
 * result dim i never clobbers an operand dim still to be read: operands sit at offsets
 * >= 0, so dim i reads only operand indices <= i. */
static bool meet_run(const meet_table t, placed a, placed b, int32_t n, const sym_ctx *sc,
		     bcast_out *out, bcast_error *err)
{
	int32_t first = out->nfacts;

	assert(n == 0 || out->dims);
	for (int32_t i = n - 1; i >= 0; i--) {
		dim da = placed_dim(a, i), db = placed_dim(b, i);
		/* Equal dims (unknowns aside) meet as themselves under every table, without
		 * a fact: the usual case, decided without the table. */
		if (dim_eq(da, db)) {
			out->dims[i] = da;
			continue;
		}
		meet m = meet_dims(t, da, db, sc);

		if (m.fail != BFAIL_NONE) {
			err->dim = i;
			err->a = da;
			err->b = db;
			return refuse(err, m.fail);
		}
		if (m.has_fact) {
			m.fact.dim = i;
			fact_add(out, m.fact);
		}
		out->dims[i] = m.d;
	}
	facts_reverse_from(out, first);
	out->rank = n;
	return true;
}

/* ---- the rules ------------------------------------------------------------------- */

static bool numpy_pair(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err)
{
	int32_t n = a.rank > b.rank ? a.rank : b.rank;

	return meet_run(numpy_table, (placed){a, n - a.rank}, (placed){b, n - b.rank}, n, sc,
			out, err);
}

static bool numpy_rule(bcast_rule rule, shape a, shape b, const sym_ctx *sc, bcast_out *out,
		       bcast_error *err)
{
	bcast_error spare;

	out_init(out);
	err = err_init(err, &spare, rule);
	if (!has_rank(a) || !has_rank(b))
		return true;
	return numpy_pair(a, b, sc, out, err);
}

bool bcast_numpy(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err)
{
	return numpy_rule(BCAST_NUMPY, a, b, sc, out, err);
}

bool bcast_bidirectional(shape input, shape target, const sym_ctx *sc, bcast_out *out,
			 bcast_error *err)
{
	return numpy_rule(BCAST_BIDIRECTIONAL, input, target, sc, out, err);
}

bool bcast_numpy_n(const shape *ops, int n, const sym_ctx *sc, bcast_out *out, bcast_error *err)
{
	bcast_error spare;
	bool lost = false, started = false;

	out_init(out);
	err = err_init(err, &spare, BCAST_NUMPY);
	assert(n >= 0 && (n == 0 || ops));
	/* Broadcasting is associative and commutative in what it accepts, so an operand of
	 * unknown rank can be skipped: the known ones must still agree with each other. */
	for (int i = 0; i < n; i++) {
		if (!has_rank(ops[i])) {
			lost = true;
		} else if (!started) {
			out_copy(out, ops[i]);
			started = true;
		} else if (!numpy_pair((shape){out->rank, out->dims}, ops[i], sc, out, err)) {
			err->input = i;
			return false;
		}
	}
	if (lost || !started)
		out->rank = RANK_UNKNOWN;
	return true;
}

bool bcast_none(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err)
{
	bcast_error spare;

	out_init(out);
	err = err_init(err, &spare, BCAST_NONE);
	err->arank = rank_of(a);
	err->brank = rank_of(b);
	/* Both must be identical, so either known shape is the answer. */
	if (!has_rank(a)) {
		out_copy(out, b);
		return true;
	}
	if (!has_rank(b)) {
		out_copy(out, a);
		return true;
	}
	if (a.rank != b.rank)
		return refuse(err, BFAIL_RANK);
	return meet_run(none_table, (placed){a, 0}, (placed){b, 0}, a.rank, sc, out, err);
}

bool bcast_unidirectional(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err)
{
	bcast_error spare;

	out_init(out);
	err = err_init(err, &spare, BCAST_UNIDIRECTIONAL);
	err->arank = rank_of(a);
	err->brank = rank_of(b);
	if (!has_rank(a))
		return true;
	if (!has_rank(b)) {
		out_copy(out, a);
		return true;
	}
	/* Leading 1s of B would still make the numpy result longer than A. */
	if (b.rank > a.rank)
		return refuse(err, BFAIL_RANK);
	return meet_run(into_a_table, (placed){a, 0}, (placed){b, a.rank - b.rank}, a.rank, sc,
			out, err);
}

bool bcast_pdpd(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
		bcast_error *err)
{
	bcast_error spare;
	shape t;

	out_init(out);
	err = err_init(err, &spare, BCAST_PDPD);
	err->axis = axis;
	err->arank = rank_of(a);
	err->brank = rank_of(b);
	if (axis < -1)
		return refuse(err, BFAIL_AXIS_NEGATIVE);
	if (!has_rank(a))
		return true;
	if (!has_rank(b)) {
		/* Even a scalar B cannot sit past A's end; that much is decidable. */
		if (axis > a.rank)
			return refuse(err, BFAIL_AXIS_RANGE);
		out_copy(out, a);
		return true;
	}
	if (b.rank > a.rank)
		return refuse(err, BFAIL_RANK);
	axis = bcast_axis_at(axis, b.rank, a.rank);
	err->axis = axis;
	err->brank = trim_ones(b).rank;
	if (!place(a.rank, b, axis, &t, out))
		return refuse(err, BFAIL_AXIS_RANGE);
	return meet_run(into_a_table, (placed){a, 0}, (placed){t, (int32_t)axis}, a.rank, sc, out,
			err);
}

bool bcast_paddle(shape x, shape y, int64_t axis, const sym_ctx *sc, bcast_out *out,
		  bcast_error *err)
{
	bcast_error spare;
	bool y_placed;
	shape big, small;
	placed pbig, psmall;

	out_init(out);
	err = err_init(err, &spare, BCAST_PADDLE);
	err->axis = axis;
	err->arank = rank_of(x);
	err->brank = rank_of(y);
	if (axis < -1)
		return refuse(err, BFAIL_AXIS_NEGATIVE);
	if (!has_rank(x) || !has_rank(y))
		return true;
	/* Paddle places Y inside X unless Y has the higher rank. */
	y_placed = x.rank >= y.rank;
	big = y_placed ? x : y;
	small = y_placed ? y : x;
	axis = bcast_axis_at(axis, small.rank, big.rank);
	err->axis = axis;
	if (y_placed)
		err->brank = trim_ones(small).rank;
	else
		err->arank = trim_ones(small).rank;
	if (!place(big.rank, small, axis, &small, out))
		return refuse(err, BFAIL_AXIS_RANGE);
	pbig = (placed){big, 0};
	psmall = (placed){small, (int32_t)axis};
	/* X stays the first operand so that err->a is X's size whichever is placed. */
	return meet_run(numpy_table, y_placed ? pbig : psmall, y_placed ? psmall : pbig, big.rank,
			sc, out, err);
}

bool bcast_explicit(shape input, shape target, const int64_t *axes_mapping, int32_t naxes,
		    const sym_ctx *sc, bcast_out *out, bcast_error *err)
{
	bcast_error spare;
	int32_t first;

	out_init(out);
	err = err_init(err, &spare, BCAST_EXPLICIT);
	err->arank = rank_of(input);
	err->brank = rank_of(target);
	assert(naxes >= 0 && (naxes == 0 || axes_mapping));
	if (has_rank(input) && naxes != input.rank) {
		err->axis = naxes;
		return refuse(err, BFAIL_MAPPING_LENGTH);
	}
	for (int32_t i = 0; i < naxes; i++) {
		int64_t m = axes_mapping[i];

		err->dim = i;
		err->axis = m;
		if (m < 0 || (has_rank(target) && m >= target.rank))
			return refuse(err, BFAIL_MAPPING_RANGE);
		if (i > 0 && m <= axes_mapping[i - 1])
			return refuse(err, BFAIL_MAPPING_ORDER);
	}
	err->dim = -1;
	err->axis = 0;
	if (!has_rank(target))
		return true;
	if (has_rank(input)) {
		/* The input broadcasts into the target, which never grows: one-way meets, read
		 * from the right like every other rule. The mapping is now known in range. */
		first = out->nfacts;
		for (int32_t i = naxes - 1; i >= 0; i--) {
			int32_t t = (int32_t)axes_mapping[i];
			meet m = meet_dims(into_a_table, target.dims[t], input.dims[i], sc);

			if (m.fail != BFAIL_NONE) {
				err->dim = t;
				err->a = input.dims[i];
				err->b = target.dims[t];
				err->axis = i;
				/* A target 1 cannot grow either, but the spec calls every
				 * disagreement here a mismatch. */
				return refuse(err, BFAIL_MISMATCH);
			}
			if (m.has_fact) {
				m.fact.dim = t;
				fact_add(out, m.fact);
			}
		}
		facts_reverse_from(out, first);
	}
	out_copy(out, target);
	return true;
}

bool bcast_pdpd_reshape(shape a, shape b, int64_t axis, dim *dims, int32_t *rank)
{
	shape t;
	int32_t r;

	if (!has_rank(a) || !has_rank(b) || axis < -1 || b.rank > a.rank)
		return false;
	axis = bcast_axis_at(axis, b.rank, a.rank);
	if (!place(a.rank, b, axis, &t, NULL))
		return false;
	/* Numpy pads on the left by itself, so only the ones after B are spelled out. */
	r = a.rank - (int32_t)axis;
	assert(r == 0 || dims);
	if (t.rank > 0)
		memmove(dims, t.dims, (size_t)t.rank * sizeof *dims);
	for (int32_t i = t.rank; i < r; i++)
		dims[i] = dim_known(1);
	*rank = r;
	return true;
}

/* ---- messages -------------------------------------------------------------------- */

typedef struct namer {
	sym_name_fn fn;
	void *ctx;
} namer;

static void sink_dim(strbuf *s, dim d, namer nm)
{
	size_t room;
	char *at = strbuf_at(s, &room);

	strbuf_count(s, dim_format(at, room, d, nm.fn, nm.ctx));
}

static void sink_rank(strbuf *s, int32_t rank)
{
	if (rank < 0)
		strbuf_printf(s, "?");
	else
		strbuf_printf(s, "%" PRId32, rank);
}

/* "the size of A (4) must match the size of B (6) at non-singleton dimension 2" */
static void say_sizes(strbuf *s, const bcast_error *e, const char *an, const char *bn,
		      namer nm, bool singleton_ok)
{
	strbuf_printf(s, "the size of %s (", an);
	sink_dim(s, e->a, nm);
	strbuf_printf(s, ") must match the size of %s (", bn);
	sink_dim(s, e->b, nm);
	strbuf_printf(s, ") at %sdimension %" PRId32, singleton_ok ? "non-singleton " : "", e->dim);
}

/* PyTorch's in-place wording: B's size is the one that would be expanded. */
static void say_expand(strbuf *s, const bcast_error *e, const char *an, const char *bn, namer nm)
{
	strbuf_printf(s, "the expanded size of %s (", bn);
	sink_dim(s, e->b, nm);
	strbuf_printf(s, ") must match the existing size of %s (", an);
	sink_dim(s, e->a, nm);
	strbuf_printf(s, ") at non-singleton dimension %" PRId32, e->dim);
}

static void say_mismatch(strbuf *s, const bcast_error *e, const char *an, const char *bn, namer nm)
{
	const char *rule = bcast_rule_name(e->rule);

	switch (e->rule) {
	case BCAST_NONE:
		say_sizes(s, e, an, bn, nm, false);
		strbuf_printf(s, ": the none rule does not broadcast");
		return;
	case BCAST_UNIDIRECTIONAL:
		say_expand(s, e, an, bn, nm);
		return;
	case BCAST_PDPD:
	case BCAST_PADDLE:
		say_sizes(s, e, an, bn, nm, true);
		strbuf_printf(s, ": %s is placed at axis %" PRId64 " under the %s rule",
			    e->brank > e->arank ? an : bn, e->axis, rule);
		return;
	case BCAST_EXPLICIT:
		strbuf_printf(s, "the size of %s (", an);
		sink_dim(s, e->a, nm);
		strbuf_printf(s, ") at axis %" PRId64 " must be 1 or match the size of %s (", e->axis, bn);
		sink_dim(s, e->b, nm);
		strbuf_printf(s, ") at dimension %" PRId32 ", where axes_mapping places it", e->dim);
		return;
	case BCAST_NUMPY:
	case BCAST_BIDIRECTIONAL:
		break;
	}
	say_sizes(s, e, an, bn, nm, true);
}

int bcast_error_format(char *buf, size_t cap, const bcast_error *e, const char *aname,
		       const char *bname, sym_name_fn symname, void *symctx)
{
	strbuf s = strbuf_on(buf, cap);
	namer nm = {symname, symctx};
	const char *an = aname ? aname : "A", *bn = bname ? bname : "B";
	const char *rule = bcast_rule_name(e->rule);
	/* For pdpd/paddle the placed operand is the lower-ranked, B (Y) on a tie. */
	bool a_placed = e->brank > e->arank;
	const char *placed_name = a_placed ? an : bn, *host_name = a_placed ? bn : an;

	switch (e->fail) {
	case BFAIL_NONE:
		strbuf_printf(&s, "no error");
		break;
	case BFAIL_MISMATCH:
		say_mismatch(&s, e, an, bn, nm);
		break;
	case BFAIL_GROW:
		say_expand(&s, e, an, bn, nm);
		strbuf_printf(&s, ": %s may not grow under the %s rule", an, rule);
		if (e->rule == BCAST_PDPD)
			strbuf_printf(&s, " (%s is placed at axis %" PRId64 ")", bn, e->axis);
		break;
	case BFAIL_RANK:
		if (e->rule == BCAST_NONE) {
			strbuf_printf(&s, "the rank of %s (", an);
			sink_rank(&s, e->arank);
			strbuf_printf(&s, ") must equal the rank of %s (", bn);
			sink_rank(&s, e->brank);
			strbuf_printf(&s, ") under the none rule");
		} else {
			strbuf_printf(&s, "the rank of %s (", bn);
			sink_rank(&s, e->brank);
			strbuf_printf(&s, ") must not exceed the rank of %s (", an);
			sink_rank(&s, e->arank);
			strbuf_printf(&s, ") under the %s rule: %s may not grow", rule, an);
		}
		break;
	case BFAIL_AXIS_NEGATIVE:
		strbuf_printf(&s, "axis %" PRId64 " is not allowed under the %s rule: the only negative "
			    "axis is -1, the default (%s has rank ", e->axis, rule, an);
		sink_rank(&s, e->arank);
		strbuf_printf(&s, ", %s rank ", bn);
		sink_rank(&s, e->brank);
		strbuf_printf(&s, ")");
		break;
	case BFAIL_AXIS_RANGE:
		if (e->brank < 0 && e->arank >= 0) {
			strbuf_printf(&s, "axis %" PRId64 " is past the end of %s (rank ", e->axis, an);
			sink_rank(&s, e->arank);
			strbuf_printf(&s, ") under the %s rule", rule);
			break;
		}
		strbuf_printf(&s, "axis %" PRId64 " places %s (rank ", e->axis, placed_name);
		sink_rank(&s, a_placed ? e->arank : e->brank);
		strbuf_printf(&s, " without trailing 1s) past the end of %s (rank ", host_name);
		sink_rank(&s, a_placed ? e->brank : e->arank);
		strbuf_printf(&s, ") under the %s rule: axis + rank(%s) must not exceed rank(%s)", rule,
			    placed_name, host_name);
		break;
	case BFAIL_MAPPING_LENGTH:
		strbuf_printf(&s, "axes_mapping has length %" PRId64 " but %s has rank ", e->axis, an);
		sink_rank(&s, e->arank);
		strbuf_printf(&s, ": it needs one entry per axis of %s", an);
		break;
	case BFAIL_MAPPING_ORDER:
		strbuf_printf(&s, "axes_mapping[%" PRId32 "] = %" PRId64 " does not exceed the entry "
			    "before it: axes_mapping must be strictly ascending", e->dim, e->axis);
		break;
	case BFAIL_MAPPING_RANGE:
		strbuf_printf(&s, "axes_mapping[%" PRId32 "] = %" PRId64, e->dim, e->axis);
		if (e->brank >= 0)
			strbuf_printf(&s, " is outside the axes of %s (rank %" PRId32 ")", bn, e->brank);
		else
			strbuf_printf(&s, " is negative");
		break;
	}
	return strbuf_end(&s);
}

bool bcast_two(bcast_rule rule, shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
	       bcast_error *err)
{
	switch (rule) {
	case BCAST_NONE: return bcast_none(a, b, sc, out, err);
	case BCAST_NUMPY: return bcast_numpy(a, b, sc, out, err);
	case BCAST_UNIDIRECTIONAL: return bcast_unidirectional(a, b, sc, out, err);
	case BCAST_PDPD: return bcast_pdpd(a, b, axis, sc, out, err);
	case BCAST_PADDLE: return bcast_paddle(a, b, axis, sc, out, err);
	case BCAST_BIDIRECTIONAL: return bcast_bidirectional(a, b, sc, out, err);
	case BCAST_EXPLICIT: break;
	}
	return false;
}
