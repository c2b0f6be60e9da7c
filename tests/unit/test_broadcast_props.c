/* test_broadcast_props.c: the broadcasting rules against brute-force references.
 *
 * Part 1, exhaustive: every pair of shapes of rank 0..4 with dims in {0, 1, 2, 3} (341
 * shapes, 116281 pairs) through numpy, unidirectional, none, pdpd and paddle (every
 * axis from -1 to the rank, plus invalid ones) and explicit (every ascending mapping).
 * Each answer is compared with a reference written here independently: plain int
 * arrays following the spec's numbered steps, with no tables and no shared code. The
 * references decide acceptance, the result shape, and, where the spec or the notes
 * define it, the refusal's kind, dimension and sizes.
 *
 * Part 2, soundness with symbols and unknowns: for small shapes over {0, 1, 2, 3, ?, N,
 * M}, every concrete instance (each ? any size, N and M consistent) is run through the
 * reference. A symbolic refusal must hold for every instance, and every accepted
 * instance must satisfy the facts the rule recorded and agree with its result; where
 * no dim is unknown, meeting every fact must also be enough for acceptance.
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "passes/bcast/broadcast.h"

#define MAXR 8

/* ---- concrete shapes and the references -------------------------------------------- */

typedef struct cs {
	int rank;
	int d[MAXR];
} cs;

typedef struct verdict {
	bcast_fail fail; /* BFAIL_NONE: accepted with rank/d */
	int dim, a, b;   /* MISMATCH/GROW: where, and the sizes from the first/second operand */
	int rank;
	int d[MAXR];
} verdict;

static verdict refused(bcast_fail f, int at, int a, int b)
{
	verdict v = {.fail = f, .dim = at, .a = a, .b = b};
	return v;
}

static verdict accepted(int rank, const int *d)
{
	verdict v = {.fail = BFAIL_NONE, .rank = rank};
	memcpy(v.d, d, (size_t)rank * sizeof *d);
	return v;
}

/* Section 2, steps 1 to 6. */
static verdict ref_numpy(const cs *a, const cs *b)
{
	int n = a->rank > b->rank ? a->rank : b->rank;
	int pa[MAXR], pb[MAXR], r[MAXR];

	/* 1-2: align right, pad the shorter on the left with 1s. */
	for (int i = 0; i < n; i++) {
		int ia = i - (n - a->rank), ib = i - (n - b->rank);
		pa[i] = ia < 0 ? 1 : a->d[ia];
		pb[i] = ib < 0 ? 1 : b->d[ib];
	}
	/* 3: equal, or one is 1 (the rightmost disagreement is the one named). */
	for (int i = n - 1; i >= 0; i--)
		if (pa[i] != pb[i] && pa[i] != 1 && pb[i] != 1)
			return refused(BFAIL_MISMATCH, i, pa[i], pb[i]);
	/* 4, 6: the non-1 one (0 with 1 gives 0). */
	for (int i = 0; i < n; i++)
		r[i] = pa[i] == 1 ? pb[i] : pa[i];
	return accepted(n, r);
}

/* Section 3: "apply the numpy rule; the result must equal A". */
static bool ref_uni_accepts(const cs *a, const cs *b)
{
	verdict v = ref_numpy(a, b);

	return v.fail == BFAIL_NONE && v.rank == a->rank &&
	       memcmp(v.d, a->d, (size_t)a->rank * sizeof *a->d) == 0;
}

/* Section 1: identical shapes. */
static verdict ref_none(const cs *a, const cs *b)
{
	if (a->rank != b->rank)
		return refused(BFAIL_RANK, -1, 0, 0);
	for (int i = a->rank - 1; i >= 0; i--)
		if (a->d[i] != b->d[i])
			return refused(BFAIL_MISMATCH, i, a->d[i], b->d[i]);
	return accepted(a->rank, a->d);
}

/* Step 2 of section 4: drop trailing 1s, never below rank 1. */
static int trimmed_rank(const cs *b)
{
	int r = b->rank;

	while (r > 1 && b->d[r - 1] == 1)
		r--;
	return r;
}

/* Section 4, steps 1 to 5. */
static verdict ref_pdpd(const cs *a, const cs *b, int64_t axis)
{
	int br;

	if (axis < -1)
		return refused(BFAIL_AXIS_NEGATIVE, -1, 0, 0);
	if (b->rank > a->rank)
		return refused(BFAIL_RANK, -1, 0, 0);
	if (axis == -1)
		axis = a->rank - b->rank; /* from B's rank as given */
	br = trimmed_rank(b);
	if (axis > a->rank - br)
		return refused(BFAIL_AXIS_RANGE, -1, 0, 0);
	for (int i = br - 1; i >= 0; i--) {
		int j = (int)axis + i;
		if (b->d[i] != a->d[j] && b->d[i] != 1)
			return refused(a->d[j] == 1 ? BFAIL_GROW : BFAIL_MISMATCH, j, a->d[j], b->d[i]);
	}
	return accepted(a->rank, a->d);
}

/* Section 4b: place the lower rank at axis, pad with 1s both sides, numpy both ways. */
static verdict ref_paddle(const cs *x, const cs *y, int64_t axis)
{
	bool y_small = x->rank >= y->rank;
	const cs *big = y_small ? x : y, *small = y_small ? y : x;
	int n = big->rank, sr, padded[MAXR], r[MAXR];
	const int *px, *py;

	if (axis < -1)
		return refused(BFAIL_AXIS_NEGATIVE, -1, 0, 0);
	if (axis == -1)
		axis = big->rank - small->rank;
	sr = trimmed_rank(small);
	if (axis > n - sr)
		return refused(BFAIL_AXIS_RANGE, -1, 0, 0);
	for (int i = 0; i < n; i++)
		padded[i] = (i >= axis && i < axis + sr) ? small->d[i - axis] : 1;
	px = y_small ? big->d : padded;
	py = y_small ? padded : big->d;
	for (int i = n - 1; i >= 0; i--)
		if (px[i] != py[i] && px[i] != 1 && py[i] != 1)
			return refused(BFAIL_MISMATCH, i, px[i], py[i]);
	for (int i = 0; i < n; i++)
		r[i] = px[i] == 1 ? py[i] : px[i];
	return accepted(n, r);
}

/* Section 6, for a valid mapping: each input dim is its target dim or 1. */
static verdict ref_explicit(const cs *in, const cs *t, const int64_t *map)
{
	for (int i = in->rank - 1; i >= 0; i--) {
		int j = (int)map[i];
		if (in->d[i] != t->d[j] && in->d[i] != 1)
			return refused(BFAIL_MISMATCH, j, in->d[i], t->d[j]);
	}
	return accepted(t->rank, t->d);
}

/* ---- all the shapes ------------------------------------------------------------------ */

#define NSHAPES 341 /* 1 + 4 + 16 + 64 + 256 */
static cs shapes[NSHAPES];
static dim shape_dims[NSHAPES][4];

static void make_shapes(void)
{
	int k = 0;

	for (int rank = 0; rank <= 4; rank++) {
		int count = 1 << (2 * rank);
		for (int code = 0; code < count; code++, k++) {
			shapes[k].rank = rank;
			for (int i = 0; i < rank; i++) {
				shapes[k].d[i] = (code >> (2 * i)) & 3;
				shape_dims[k][i] = dim_known(shapes[k].d[i]);
			}
		}
	}
	cr_assert_eq(k, NSHAPES);
}

static shape impl_shape(int k)
{
	return (shape){shapes[k].rank, shape_dims[k]};
}

static const char *text(char *buf, size_t cap, const cs *s)
{
	dim d[MAXR];

	for (int i = 0; i < s->rank; i++)
		d[i] = dim_known(s->d[i]);
	shape_format(buf, cap, (shape){s->rank, d}, NULL, NULL);
	return buf;
}

/* Compares one answer with the reference; `kinds` also compares refusal details. */
static void compare(const char *rule, int ka, int kb, int64_t axis, bool ok, const bcast_out *out,
		    const bcast_error *err, const verdict *v, bool kinds)
{
	char sa[64], sb[64];
	bool same = ok == (v->fail == BFAIL_NONE);

	if (same && ok) {
		same = out->rank == v->rank && out->nfacts == 0;
		for (int i = 0; same && i < v->rank; i++)
			same = dim_is(out->dims[i], v->d[i]);
	} else if (same && kinds) {
		same = err->fail == v->fail;
		if (same && (v->fail == BFAIL_MISMATCH || v->fail == BFAIL_GROW))
			same = err->dim == v->dim && dim_is(err->a, v->a) && dim_is(err->b, v->b);
	}
	if (!same)
		cr_assert_fail("%s(%s, %s, axis %" PRId64 "): got %s (fail %d at %d), reference %s "
			       "(fail %d at %d)", rule, text(sa, sizeof sa, &shapes[ka]),
			       text(sb, sizeof sb, &shapes[kb]), axis, ok ? "accept" : "refuse",
			       (int)err->fail, (int)err->dim,
			       v->fail == BFAIL_NONE ? "accept" : "refuse", (int)v->fail, v->dim);
}

Test(exhaustive, numpy_and_bidirectional)
{
	dim dims[MAXR];
	sym_fact facts[MAXR];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = MAXR};
	bcast_error err;

	make_shapes();
	for (int i = 0; i < NSHAPES; i++)
		for (int j = 0; j < NSHAPES; j++) {
			verdict v = ref_numpy(&shapes[i], &shapes[j]);
			bool ok = bcast_numpy(impl_shape(i), impl_shape(j), NULL, &out, &err);
			compare("numpy", i, j, -1, ok, &out, &err, &v, true);
			ok = bcast_bidirectional(impl_shape(i), impl_shape(j), NULL, &out, &err);
			compare("bidirectional", i, j, -1, ok, &out, &err, &v, true);
		}
}

Test(exhaustive, unidirectional)
{
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;

	make_shapes();
	for (int i = 0; i < NSHAPES; i++)
		for (int j = 0; j < NSHAPES; j++) {
			const cs *a = &shapes[i], *b = &shapes[j];
			verdict v = ref_uni_accepts(a, b) ? accepted(a->rank, a->d)
							  : refused(BFAIL_RANK, -1, 0, 0);
			bool ok = bcast_unidirectional(impl_shape(i), impl_shape(j), NULL, &out, &err);

			compare("unidirectional", i, j, -1, ok, &out, &err, &v, false);
			if (ok || b->rank > a->rank)
				continue;
			/* The refusal names the rightmost dim where B is neither 1 nor A's size,
			 * and calls it growth exactly when A's size there is 1. */
			int at = -1, off = a->rank - b->rank;
			for (int k = a->rank - 1; k >= off && at < 0; k--)
				if (b->d[k - off] != 1 && b->d[k - off] != a->d[k])
					at = k;
			cr_assert(at >= 0 && err.dim == at && dim_is(err.a, a->d[at]) &&
				  dim_is(err.b, b->d[at - off]) &&
				  err.fail == (a->d[at] == 1 ? BFAIL_GROW : BFAIL_MISMATCH),
				  "unidirectional: refusal details for pair %d, %d", i, j);
		}
}

Test(exhaustive, none)
{
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;

	make_shapes();
	for (int i = 0; i < NSHAPES; i++)
		for (int j = 0; j < NSHAPES; j++) {
			verdict v = ref_none(&shapes[i], &shapes[j]);
			bool ok = bcast_none(impl_shape(i), impl_shape(j), NULL, &out, &err);
			compare("none", i, j, -1, ok, &out, &err, &v, true);
		}
}

/* Axes to try against a host of rank n: every valid one and the invalid neighbours. */
static int axes_for(int n, int64_t *axes)
{
	int k = 0;

	axes[k++] = INT64_MIN;
	axes[k++] = -3;
	axes[k++] = -2;
	for (int64_t ax = -1; ax <= n + 1; ax++)
		axes[k++] = ax;
	axes[k++] = INT64_MAX;
	return k;
}

Test(exhaustive, pdpd_and_its_numpy_rewrite)
{
	dim dims[MAXR], re[MAXR], res[MAXR];
	bcast_out out = {.dims = dims}, nout = {.dims = res};
	bcast_error err;
	int64_t axes[16];

	make_shapes();
	for (int i = 0; i < NSHAPES; i++) {
		int naxes = axes_for(shapes[i].rank, axes);
		for (int j = 0; j < NSHAPES; j++)
			for (int x = 0; x < naxes; x++) {
				verdict v = ref_pdpd(&shapes[i], &shapes[j], axes[x]);
				bool ok = bcast_pdpd(impl_shape(i), impl_shape(j), axes[x], NULL, &out,
						     &err);
				int32_t rrank;
				bool placed = v.fail == BFAIL_NONE || v.fail == BFAIL_GROW ||
					      v.fail == BFAIL_MISMATCH;

				compare("pdpd", i, j, axes[x], ok, &out, &err, &v, true);
				/* The rewrite exists exactly for valid placements, and under numpy it
				 * gives A wherever pdpd accepts (section 4's rewriting rule). */
				cr_assert_eq(bcast_pdpd_reshape(impl_shape(i), impl_shape(j), axes[x],
								re, &rrank), placed,
					     "pdpd_reshape validity for pair %d, %d, axis %" PRId64, i,
					     j, axes[x]);
				if (!ok)
					continue;
				cr_assert(bcast_numpy(impl_shape(i), (shape){rrank, re}, NULL, &nout,
						      NULL));
				cr_assert_eq(nout.rank, shapes[i].rank);
				for (int k = 0; k < nout.rank; k++)
					cr_assert(dim_is(nout.dims[k], shapes[i].d[k]),
						  "rewrite differs for pair %d, %d", i, j);
			}
	}
}

Test(exhaustive, paddle_and_its_numpy_rewrite)
{
	dim dims[MAXR], re[MAXR], res[MAXR];
	bcast_out out = {.dims = dims}, nout = {.dims = res};
	bcast_error err;
	int64_t axes[16];

	make_shapes();
	for (int i = 0; i < NSHAPES; i++)
		for (int j = 0; j < NSHAPES; j++) {
			int big = shapes[i].rank >= shapes[j].rank ? i : j;
			int small = big == i ? j : i;
			int naxes = axes_for(shapes[big].rank, axes);
			for (int x = 0; x < naxes; x++) {
				verdict v = ref_paddle(&shapes[i], &shapes[j], axes[x]);
				bool ok = bcast_paddle(impl_shape(i), impl_shape(j), axes[x], NULL, &out,
						       &err);
				int32_t rrank;

				compare("paddle", i, j, axes[x], ok, &out, &err, &v, true);
				/* Reshaping the lower rank and broadcasting with numpy is the same. */
				if (!bcast_pdpd_reshape(impl_shape(big), impl_shape(small), axes[x], re,
							&rrank)) {
					cr_assert(!ok && (err.fail == BFAIL_AXIS_NEGATIVE ||
							  err.fail == BFAIL_AXIS_RANGE));
					continue;
				}
				bool nok = bcast_numpy(impl_shape(big), (shape){rrank, re}, NULL, &nout,
						       NULL);
				cr_assert_eq(nok, ok, "paddle rewrite for pair %d, %d", i, j);
				for (int k = 0; ok && k < out.rank; k++)
					cr_assert(dim_is(nout.dims[k], out.dims[k].v));
			}
		}
}

Test(exhaustive, explicit_every_ascending_mapping)
{
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;
	int64_t map[4];

	make_shapes();
	for (int i = 0; i < NSHAPES; i++)
		for (int j = 0; j < NSHAPES; j++) {
			int r = shapes[i].rank, n = shapes[j].rank;
			if (r > n)
				continue;
			/* Each subset of the target's axes of the input's size, ascending. */
			for (int set = 0; set < (1 << n); set++) {
				int k = 0;
				for (int ax = 0; ax < n; ax++)
					if (set & (1 << ax))
						map[k++] = ax;
				if (k != r)
					continue;
				verdict v = ref_explicit(&shapes[i], &shapes[j], map);
				bool ok = bcast_explicit(impl_shape(i), impl_shape(j), map, r, NULL,
							 &out, &err);
				compare("explicit", i, j, set, ok, &out, &err, &v, true);
			}
		}
}

/* ---- part 2: symbols and unknowns ------------------------------------------------------ */

/* Abstract dims: 0..3 known, then these. */
enum { A_UNK = 4, A_N, A_M, A_KINDS };
#define SYM_N 1000
#define SYM_M 1001
#define AMAXR 2

typedef struct as {
	int rank;
	int c[AMAXR];
} as;

static as ashapes[1 + A_KINDS + A_KINDS * A_KINDS];
static int nashapes;

static void make_ashapes(int maxrank)
{
	nashapes = 0;
	for (int rank = 0; rank <= maxrank; rank++) {
		int count = rank == 0 ? 1 : rank == 1 ? A_KINDS : A_KINDS * A_KINDS;
		for (int code = 0; code < count; code++) {
			as *s = &ashapes[nashapes++];
			s->rank = rank;
			for (int i = 0, c = code; i < rank; i++, c /= A_KINDS)
				s->c[i] = c % A_KINDS;
		}
	}
}

static shape to_dims(const as *s, dim *d)
{
	for (int i = 0; i < s->rank; i++)
		d[i] = s->c[i] == A_UNK ? dim_unknown()
		       : s->c[i] == A_N ? dim_symbol(SYM_N)
		       : s->c[i] == A_M ? dim_symbol(SYM_M)
					: dim_known(s->c[i]);
	return (shape){s->rank, d};
}

/* One concrete instance of several abstract shapes: each ? takes its own value; N and
 * M take one value each, wherever they appear. */
typedef struct instance {
	const as *ops[3];
	int nops;
	int nunk;        /* ? slots, in operand then dim order */
	int vals[8];     /* ? values, then N, then M */
	bool has_n, has_m;
} instance;

static int count_values(instance *in)
{
	in->nunk = 0;
	in->has_n = in->has_m = false;
	for (int o = 0; o < in->nops; o++)
		for (int i = 0; i < in->ops[o]->rank; i++) {
			in->nunk += in->ops[o]->c[i] == A_UNK;
			in->has_n |= in->ops[o]->c[i] == A_N;
			in->has_m |= in->ops[o]->c[i] == A_M;
		}
	return in->nunk + 2;
}

static int val_n(const instance *in) { return in->vals[in->nunk]; }
static int val_m(const instance *in) { return in->vals[in->nunk + 1]; }

/* Steps to the next instance; false after the last. N and M only vary when present. */
static bool next_instance(instance *in)
{
	int n = in->nunk + 2;

	for (int i = 0; i < n; i++) {
		if ((i == in->nunk && !in->has_n) || (i == in->nunk + 1 && !in->has_m))
			continue;
		if (++in->vals[i] < 4)
			return true;
		in->vals[i] = 0;
	}
	return false;
}

static void concrete(const instance *in, cs *out)
{
	int u = 0;

	for (int o = 0; o < in->nops; o++) {
		out[o].rank = in->ops[o]->rank;
		for (int i = 0; i < out[o].rank; i++) {
			int c = in->ops[o]->c[i];
			out[o].d[i] = c == A_UNK ? in->vals[u++] : c == A_N ? val_n(in)
				      : c == A_M ? val_m(in) : c;
		}
	}
}

static int sym_value(const instance *in, int64_t id)
{
	cr_assert(id == SYM_N || id == SYM_M, "fact names symbol %" PRId64, id);
	return id == SYM_N ? val_n(in) : val_m(in);
}

static bool fact_holds(const instance *in, const sym_fact *f)
{
	int s = sym_value(in, f->sym);

	switch (f->kind) {
	case FACT_ONE_OR:
		return s == 1 || s == f->k;
	case FACT_EQUALS:
		return s == f->k;
	case FACT_ONE_OR_SYM: {
		int o = sym_value(in, f->other);
		return s == 1 || o == 1 || s == o;
	}
	case FACT_SYM_EQ_OR_ONE: {
		int o = sym_value(in, f->other);
		return o == 1 || o == s;
	}
	case FACT_SYM_EQUALS:
		return s == sym_value(in, f->other);
	}
	return false;
}

typedef verdict (*concrete_rule)(const cs *ops, int64_t axis);

static verdict c_numpy(const cs *ops, int64_t axis) { (void)axis; return ref_numpy(&ops[0], &ops[1]); }
static verdict c_none(const cs *ops, int64_t axis) { (void)axis; return ref_none(&ops[0], &ops[1]); }
static verdict c_pdpd(const cs *ops, int64_t axis) { return ref_pdpd(&ops[0], &ops[1], axis); }
static verdict c_paddle(const cs *ops, int64_t axis) { return ref_paddle(&ops[0], &ops[1], axis); }

static verdict c_uni(const cs *ops, int64_t axis)
{
	(void)axis;
	return ref_uni_accepts(&ops[0], &ops[1]) ? accepted(ops[0].rank, ops[0].d)
						 : refused(BFAIL_RANK, -1, 0, 0);
}

static verdict c_fold3(const cs *ops, int64_t axis)
{
	verdict v = ref_numpy(&ops[0], &ops[1]);
	cs acc;

	(void)axis;
	if (v.fail != BFAIL_NONE)
		return v;
	acc.rank = v.rank;
	memcpy(acc.d, v.d, sizeof acc.d);
	return ref_numpy(&acc, &ops[2]);
}

/* Checks one symbolic answer against every instance of its operands. With `exact`, an
 * instance without unknowns (only sizes and symbols) that satisfies all the facts must
 * be accepted: the facts are then the whole condition, not just a part of it. */
static void check_sound(const char *rule, instance *in, int64_t axis, bool ok, const bcast_out *out,
			concrete_rule ref, bool exact)
{
	cs ops[3];

	memset(in->vals, 0, sizeof in->vals);
	count_values(in);
	do {
		concrete(in, ops);
		verdict v = ref(ops, axis);
		if (ok && exact && in->nunk == 0) {
			bool all = true;
			for (int f = 0; f < out->nfacts; f++)
				all = all && fact_holds(in, &out->facts[f]);
			cr_assert(!all || v.fail == BFAIL_NONE, "%s: an instance meets every fact but "
				  "is refused (axis %" PRId64 ")", rule, axis);
		}
		if (!ok) {
			cr_assert(v.fail != BFAIL_NONE, "%s: refused a symbolic case (axis %" PRId64
				  ") that an instance accepts", rule, axis);
			continue;
		}
		if (v.fail != BFAIL_NONE)
			continue;
		for (int f = 0; f < out->nfacts; f++)
			cr_assert(fact_holds(in, &out->facts[f]), "%s: fact %d (kind %d) fails in an "
				  "accepted instance (axis %" PRId64 ")", rule, f,
				  (int)out->facts[f].kind, axis);
		cr_assert_eq(out->rank, v.rank, "%s: rank", rule);
		for (int i = 0; i < v.rank; i++) {
			dim d = out->dims[i];
			int want = v.d[i];
			bool agrees = d.kind == DIM_UNKNOWN || (d.kind == DIM_KNOWN && d.v == want) ||
				      (d.kind == DIM_SYMBOL && sym_value(in, d.v) == want);
			cr_assert(agrees, "%s: result dim %d disagrees with an instance (axis %" PRId64
				  ")", rule, i, axis);
		}
	} while (next_instance(in));
}

Test(symbolic, binary_rules_are_sound)
{
	dim da[AMAXR], db[AMAXR], dims[MAXR];
	sym_fact facts[16];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 16};
	static const int64_t axes[] = {-1, 0, 1, 2};

	make_ashapes(2);
	for (int i = 0; i < nashapes; i++)
		for (int j = 0; j < nashapes; j++) {
			instance in = {.ops = {&ashapes[i], &ashapes[j]}, .nops = 2};
			shape a = to_dims(&ashapes[i], da), b = to_dims(&ashapes[j], db);
			bool ok;

			ok = bcast_numpy(a, b, NULL, &out, NULL);
			check_sound("numpy", &in, -1, ok, &out, c_numpy, true);
			ok = bcast_unidirectional(a, b, NULL, &out, NULL);
			check_sound("unidirectional", &in, -1, ok, &out, c_uni, true);
			ok = bcast_none(a, b, NULL, &out, NULL);
			check_sound("none", &in, -1, ok, &out, c_none, true);
			for (size_t x = 0; x < sizeof axes / sizeof axes[0]; x++) {
				ok = bcast_pdpd(a, b, axes[x], NULL, &out, NULL);
				check_sound("pdpd", &in, axes[x], ok, &out, c_pdpd, true);
				ok = bcast_paddle(a, b, axes[x], NULL, &out, NULL);
				check_sound("paddle", &in, axes[x], ok, &out, c_paddle, true);
			}
		}
}

Test(symbolic, three_way_fold_is_sound)
{
	dim d[3][AMAXR], dims[MAXR];
	sym_fact facts[16];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 16};

	make_ashapes(1);
	for (int i = 0; i < nashapes; i++)
		for (int j = 0; j < nashapes; j++)
			for (int k = 0; k < nashapes; k++) {
				instance in = {.ops = {&ashapes[i], &ashapes[j], &ashapes[k]},
					       .nops = 3};
				shape ops[3] = {to_dims(&ashapes[i], d[0]), to_dims(&ashapes[j], d[1]),
						to_dims(&ashapes[k], d[2])};
				bool ok = bcast_numpy_n(ops, 3, NULL, &out, NULL);
				/* Not exact: a fold's running result can be unknown where
				 * two symbols met, and a later operand no longer sees them. */
				check_sound("numpy_n", &in, -1, ok, &out, c_fold3, false);
			}
}
