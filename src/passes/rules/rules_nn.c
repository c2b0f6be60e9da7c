/* rules_nn.c: the helpers of the neural-network family (see rules_nn.h), and the
 * matrix products: MatMul, MatMulInteger, QLinearMatMul, Gemm and Einsum.
 *
 * Invariant: an output gets a shape only when every dimension written is certain for
 * a valid model; dims that depend on symbols in ways we cannot express stay unknown,
 * and an operand pairing no valid model can have is reported and leaves the output
 * with its element type only.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/dtype.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------ */

static const char *shape_text(infer_ctx *c, shape s)
{
	char buf[512];
	shape_format(buf, sizeof buf, s, sym_name_cb, c->syms);
	const char *t = arena_strdup(c->a, buf);
	return t ? t : "";
}

/* The operand's name for a message, as snprintf into a buffer of `cap` would give. */
static void operand_name(infer_ctx *c, nn_operand o, char *buf, size_t cap)
{
	if (o.input < 0)
		snprintf(buf, cap, "%s", o.fmt);
	else
		snprintf(buf, cap, o.fmt, in_name(c, o.input));
}

bool nn_broadcast(infer_ctx *c, bcast_rule rule, shape a, shape b, int64_t axis, nn_operand aop, nn_operand bop,
		  int32_t *rank, dim *dims)
{
	if (bcast_plain(c, rule, a, b, dims)) {
		*rank = a.rank > b.rank ? a.rank : b.rank;
		return true;
	}
	dim small_a[SCRATCH_SMALL], small_b[SCRATCH_SMALL];
	dim *ra = dims_room(c, small_a, a.rank), *rb = dims_room(c, small_b, b.rank);
	if (!ra || !rb) {
		*rank = RANK_UNKNOWN;
		return false;
	}
	/* Resolved first, so facts already learned about symbols apply. */
	for (int32_t k = 0; k < a.rank; k++)
		ra[k] = dim_resolve(c->syms, a.dims[k]);
	for (int32_t k = 0; k < b.rank; k++)
		rb[k] = dim_resolve(c->syms, b.dims[k]);
	shape sa = {a.rank, ra}, sb = {b.rank, rb};
	sym_fact facts[64];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 64};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, c->syms};
	if (!bcast_two(rule, sa, sb, axis, &sc, &out, &err)) {
		/* The buffers' sizes are part of the message: a longer name is cut there. */
		char why[512], aname[300], bname[300];
		operand_name(c, aop, aname, sizeof aname);
		operand_name(c, bop, bname, sizeof bname);
		bcast_error_format(why, sizeof why, &err, aname, bname, sym_name_cb, c->syms);
		infer_diag(c, OSH_ERROR, DIAG_BROADCAST_MISMATCH, "%s %s and %s %s do not broadcast (%s rule): %s", aname,
			   shape_text(c, sa), bname, shape_text(c, sb), bcast_rule_name(rule), why);
		*rank = RANK_UNKNOWN;
		return false;
	}
	record_facts(c, facts, out.nfacts);
	*rank = out.rank;
	return true;
}

bool nn_ints_attr(infer_ctx *c, const char *name, int32_t n, int64_t def, int64_t min, int64_t *out)
{
	return nn_ints_view(c, attr(c, name), name, n, def, min, out);
}

bool nn_ints_view(infer_ctx *c, const attr_view *a, const char *name, int32_t n, int64_t def, int64_t min,
		  int64_t *out)
{
	/* Anything but INTS reads as absent, as attr_ints has it. */
	if (!a || a->type != AT_INTS) {
		for (int32_t i = 0; i < n; i++)
			out[i] = def;
		return true;
	}
	const int64_t *v = a->ints;
	int32_t k = a->n;
	if (k != n) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "attribute '%s' has %d values, expected %d", name, k, n);
		return false;
	}
	for (int32_t i = 0; i < n; i++) {
		if (v[i] < min) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "attribute '%s'[%d] is %lld, must be at least %lld",
				   name, i, (long long)v[i], (long long)min);
			return false;
		}
		out[i] = v[i];
	}
	return true;
}

bool nn_sizes_ok(infer_ctx *c, int32_t i, const dim *v, int32_t n)
{
	for (int32_t k = 0; k < n; k++) {
		dim d = dim_resolve(c->syms, v[k]);
		if (d.kind == DIM_KNOWN && d.v < 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s'[%d] is %lld; a size cannot be negative",
				   in_name(c, i), k, (long long)d.v);
			return false;
		}
	}
	return true;
}

bool nn_merge_dim(infer_ctx *c, dim *acc, dim d, const char *what, int32_t i)
{
	dim before = dim_resolve(c->syms, *acc), merged;
	if (dim_merge(c, *acc, d, &merged)) {
		*acc = merged;
		return true;
	}
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s is %s, but '%s' %s gives %s", what, nn_dim_text(c, before),
		   in_name(c, i), fmt_shape(c, in(c, i)), nn_dim_text(c, d));
	return false;
}

const char *nn_dim_text(infer_ctx *c, dim d)
{
	char buf[128];
	dim_format(buf, sizeof buf, dim_resolve(c->syms, d), sym_name_cb, c->syms);
	const char *t = arena_strdup(c->a, buf);
	return t ? t : "?";
}

/* ---- MatMul ------------------------------------------------------------------- */

/* numpy.matmul: 1-D operands are promoted (A (K) to (1, K), B (K) to (K, 1)) and the
 * added dimension removed from the result; the batch dims broadcast. */
static void matmul_shape(infer_ctx *c, int32_t ia, int32_t ib, int32_t elem)
{
	set_out_elem(c, 0, elem);
	int32_t ra = in_rank(c, ia), rb = in_rank(c, ib);
	if (ra < 0 || rb < 0)
		return;
	const tinfo *ta = in(c, ia), *tb = in(c, ib);
	if (ra == 0 || rb == 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' is a scalar; both operands need at least one dimension",
			   in_name(c, ra == 0 ? ia : ib));
		return;
	}
	/* A's last dim is its columns and B's rows come before its columns, whether or not a
	 * 1-D operand was promoted; promotion adds no batch dims. */
	dim cols = ta->dims[ra - 1], rows = tb->dims[rb == 1 ? 0 : rb - 2];
	dim k;
	if (!dim_merge(c, cols, rows, &k)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "the inner dimensions differ: '%s' %s has %s columns, '%s' %s has %s rows", in_name(c, ia),
			   fmt_shape(c, ta), nn_dim_text(c, cols), in_name(c, ib), fmt_shape(c, tb),
			   nn_dim_text(c, rows));
		return;
	}
	shape batch_a = {ra > 2 ? ra - 2 : 0, ta->dims}, batch_b = {rb > 2 ? rb - 2 : 0, tb->dims};
	dim small[SCRATCH_SMALL];
	dim *out = dims_room(c, small, (batch_a.rank > batch_b.rank ? batch_a.rank : batch_b.rank) + 2);
	if (!out)
		return;
	int32_t r;
	nn_operand an = {"the batch dims of '%s'", ia}, bn = {"the batch dims of '%s'", ib};
	if (!nn_broadcast(c, BCAST_NUMPY, batch_a, batch_b, -1, an, bn, &r, out))
		return;
	if (ra != 1)
		out[r++] = ta->dims[ra - 2];
	if (rb != 1)
		out[r++] = tb->dims[rb - 1];
	set_out(c, 0, elem, r, out);
}

void infer_matmul(infer_ctx *c) { matmul_shape(c, 0, 1, in_elem(c, 0)); }
void infer_matmul_integer(infer_ctx *c) { matmul_shape(c, 0, 1, DT_INT32); }
/* a, a_scale, a_zero_point, b, ...; the output type is y_zero_point's. */
void infer_qlinear_matmul(infer_ctx *c) { matmul_shape(c, 0, 3, in_elem(c, 7)); }

/* ---- Gemm --------------------------------------------------------------------- */

/* Y (M, N) = A' (M, K) B' (K, N) + C. Before opset 7, C is broadcast under the legacy
 * rule when `broadcast` is set and must be (M, N) otherwise; from 7 it broadcasts
 * unidirectionally to (M, N); from 11 it is optional. `version` is the ai.onnx opset
 * whose Gemm the node follows: its own opset for Gemm, 11 for com.microsoft FusedGemm. */
void nn_gemm(infer_ctx *c, int64_t version)
{
	bool legacy = version < 7;
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t ra = in_rank(c, 0), rb = in_rank(c, 1);
	for (int32_t i = 0; i < 2; i++) {
		int32_t r = i ? rb : ra;
		if (r >= 0 && r != 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' must be 2-D, but it is %s", in_name(c, i),
				   fmt_shape(c, in(c, i)));
			return;
		}
	}
	bool ta = attr_i(c, "transA", 0) != 0, tb = attr_i(c, "transB", 0) != 0;
	const tinfo *a = ra == 2 ? in(c, 0) : NULL, *b = rb == 2 ? in(c, 1) : NULL;
	dim mn[2] = {dim_unknown(), dim_unknown()}, ka = dim_unknown(), kb = dim_unknown();
	if (a) {
		mn[0] = a->dims[ta ? 1 : 0];
		ka = a->dims[ta ? 0 : 1];
	}
	if (b) {
		kb = b->dims[tb ? 1 : 0];
		mn[1] = b->dims[tb ? 0 : 1];
	}
	dim k;
	if (!dim_merge(c, ka, kb, &k)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "the inner dimensions differ: '%s' %s%s gives K = %s, '%s' %s%s gives K = %s", in_name(c, 0),
			   fmt_shape(c, a), ta ? " (transposed)" : "", nn_dim_text(c, ka), in_name(c, 1),
			   fmt_shape(c, b), tb ? " (transposed)" : "", nn_dim_text(c, kb));
		return;
	}
	const tinfo *ct = in(c, 2);
	if (!ct && version < 11) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input C is required before opset 11");
		return;
	}
	dim out[2] = {mn[0], mn[1]};
	int32_t cr = in_rank(c, 2);
	if (ct && cr >= 0) {
		if (cr > 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "C '%s' %s has more dimensions than (M, N)",
				   in_name(c, 2), fmt_shape(c, ct));
			return;
		}
		bcast_rule rule = BCAST_UNIDIRECTIONAL;
		if (legacy)
			rule = attr_i(c, "broadcast", 0) ? BCAST_PDPD : BCAST_NONE;
		int32_t r;
		nn_operand mnop = {"(M, N)", -1}, cop = {"C '%s'", 2};
		if (!nn_broadcast(c, rule, (shape){2, mn}, tinfo_shape(ct), -1, mnop, cop, &r, out))
			return;
	}
	set_out(c, 0, elem, 2, out);
}

void infer_gemm1(infer_ctx *c) { nn_gemm(c, c->opset); }
void infer_gemm7(infer_ctx *c) { nn_gemm(c, c->opset); }

/* ---- Einsum ------------------------------------------------------------------- */

#define EIN_LABELS 52

/* Labels in ASCII order, so the implicit output (sorted labels) is index order. */
static int label_of(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return 26 + (ch - 'a');
	return -1;
}

/* One term of the equation: its labels in order, -1 standing for the ellipsis. */
typedef struct ein_term {
	int8_t lab[EIN_LABELS + 1];
	int32_t n; /* entries in lab */
	int32_t letters; /* entries other than the ellipsis */
	bool ell;
} ein_term;

static bool parse_term(infer_ctx *c, const char *s, const char *end, ein_term *t)
{
	t->n = t->letters = 0;
	t->ell = false;
	for (const char *p = s; p < end; p++) {
		if (*p == '.') {
			if (end - p < 3 || p[1] != '.' || p[2] != '.' || t->ell) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "term '%.*s': '.' must come as one '...' per term", (int)(end - s), s);
				return false;
			}
			t->ell = true;
			t->lab[t->n++] = -1;
			p += 2;
			continue;
		}
		int l = label_of(*p);
		if (l < 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "term '%.*s' has the character '%c', not a letter",
				   (int)(end - s), s, *p);
			return false;
		}
		if (t->n >= EIN_LABELS) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "term '%.*s' has more than %d labels", (int)(end - s),
				   s, EIN_LABELS);
			return false;
		}
		t->lab[t->n++] = (int8_t)l;
		t->letters++;
	}
	return true;
}

static char label_char(int l) { return (char)(l < 26 ? 'A' + l : 'a' + (l - 26)); }

void infer_einsum(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const char *eq = attr_s(c, "equation", NULL);
	if (!eq) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the equation attribute is required");
		return;
	}
	size_t len = strlen(eq);
	char *buf = arena_alloc(c->a, len + 1);
	if (!buf) {
		c->m->nomem = true;
		return;
	}
	size_t w = 0;
	for (size_t i = 0; i < len; i++)
		if (eq[i] != ' ')
			buf[w++] = eq[i];
	buf[w] = 0;
	char *arrow = strstr(buf, "->");
	const char *rhs = NULL;
	if (arrow) {
		*arrow = 0;
		rhs = arrow + 2;
	}
	int32_t nin = in_count(c), nterms = 1;
	for (const char *p = buf; *p; p++)
		nterms += *p == ',';
	if (nterms != nin) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "the equation '%s' has %d input terms but the node has %d inputs", eq, nterms, nin);
		return;
	}
	ein_term *terms = arena_array(c->a, (size_t)nterms, sizeof *terms);
	if (!terms) {
		c->m->nomem = true;
		return;
	}
	const char *s = buf;
	for (int32_t i = 0; i < nterms; i++) {
		const char *e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (!parse_term(c, s, e, &terms[i]))
			return;
		s = *e ? e + 1 : e;
	}
	ein_term out_term = {0};
	if (rhs && !parse_term(c, rhs, rhs + strlen(rhs), &out_term))
		return;

	/* The ellipsis stands for the same number of dims in every term (the spec); those
	 * dims broadcast together. */
	int32_t nell = -1;
	bool shapes = true;
	for (int32_t i = 0; i < nterms; i++) {
		int32_t r = in_rank(c, i);
		const ein_term *t = &terms[i];
		if (r < 0) {
			if (t->ell)
				shapes = false;
			continue;
		}
		if (!t->ell && r != t->letters) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "term %d has %d labels but input '%s' has rank %d", i,
				   t->letters, in_name(c, i), r);
			return;
		}
		if (t->ell) {
			if (r < t->letters) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "term %d has %d labels besides '...' but input '%s' has rank %d", i,
					   t->letters, in_name(c, i), r);
				return;
			}
			if (nell >= 0 && r - t->letters != nell) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "'...' stands for %d dims in an earlier term but %d in term %d ('%s')", nell,
					   r - t->letters, i, in_name(c, i));
				return;
			}
			nell = r - t->letters;
		}
	}
	if (!shapes)
		return;
	if (nell < 0)
		nell = 0;

	dim ldim[EIN_LABELS];
	int32_t count[EIN_LABELS] = {0}, last_term[EIN_LABELS];
	bool vague[EIN_LABELS] = {0};
	dim *edims = dims_alloc(c, nell), *tmp = dims_alloc(c, nell);
	if (!edims || !tmp)
		return;
	bool have_ell = false;
	int32_t erank = nell;
	for (int32_t k = 0; k < nell; k++)
		edims[k] = dim_unknown();
	for (int32_t i = 0; i < nterms; i++) {
		const ein_term *t = &terms[i];
		const tinfo *ti = in_ranked(c, i);
		int32_t pos = 0;
		for (int32_t j = 0; j < t->n; j++) {
			if (t->lab[j] < 0) {
				shape es = {nell, ti ? ti->dims + pos : NULL};
				if (!ti)
					return; /* unreachable: an ellipsis term has a known rank here */
				if (!have_ell) {
					memcpy(edims, es.dims, (size_t)nell * sizeof *edims);
					have_ell = true;
				} else {
					nn_operand an = {"the '...' dims so far", -1};
					nn_operand bn = {"the '...' dims of '%s'", i};
					if (!nn_broadcast(c, BCAST_NUMPY, (shape){erank, edims}, es, -1, an, bn,
							  &erank, tmp))
						return;
					memcpy(edims, tmp, (size_t)nell * sizeof *edims);
				}
				pos += nell;
				continue;
			}
			int l = t->lab[j];
			dim d = ti ? dim_resolve(c->syms, ti->dims[pos]) : dim_unknown();
			pos++;
			if (!count[l]++) {
				ldim[l] = d;
				last_term[l] = i;
				continue;
			}
			dim prev = dim_resolve(c->syms, ldim[l]);
			/* A label repeated within one term takes a diagonal: runtimes disagree on
			 * whether a 1 there broadcasts, so such a dim is left unknown. */
			if (last_term[l] == i && prev.kind == DIM_KNOWN && d.kind == DIM_KNOWN && prev.v != d.v &&
			    (prev.v == 1 || d.v == 1)) {
				vague[l] = true;
				continue;
			}
			char fmt[] = "label '?' of '%s'";
			fmt[7] = label_char(l);
			nn_operand an = {fmt, last_term[l]}, bn = {fmt, i};
			last_term[l] = i;
			dim r1;
			int32_t rr;
			if (!nn_broadcast(c, BCAST_NUMPY, (shape){1, &prev}, (shape){1, &d}, -1, an, bn, &rr, &r1))
				return;
			ldim[l] = r1;
		}
	}

	dim *out = dims_alloc(c, EIN_LABELS + nell);
	int32_t r = 0;
	if (!out)
		return;
	if (rhs) {
		bool used[EIN_LABELS] = {0};
		for (int32_t j = 0; j < out_term.n; j++) {
			int l = out_term.lab[j];
			if (l < 0) {
				for (int32_t k = 0; k < nell; k++)
					out[r++] = edims[k];
				continue;
			}
			if (!count[l]) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "output label '%c' does not appear in the inputs of '%s'", label_char(l),
					   eq);
				return;
			}
			if (used[l]) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "output label '%c' appears twice in '%s'",
					   label_char(l), eq);
				return;
			}
			used[l] = true;
			out[r++] = vague[l] ? dim_unknown() : ldim[l];
		}
	} else {
		/* Implicit output: the '...' dims, then the labels seen exactly once, sorted. */
		if (have_ell)
			for (int32_t k = 0; k < nell; k++)
				out[r++] = edims[k];
		for (int l = 0; l < EIN_LABELS; l++)
			if (count[l] == 1)
				out[r++] = ldim[l];
	}
	set_out(c, 0, elem, r, out);
}

/* Input i's rank when known; reports a rank other than `want` (naming what the
 * input holds) and sets *bad. -1 when unknown or omitted. */
int32_t nn_rank_want(infer_ctx *c, int32_t i, int32_t want, const char *layout, bool *bad)
{
	int32_t r = in_rank(c, i);
	if (r >= 0 && r != want) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be %d-D %s", in_name(c, i), fmt_shape(c, in(c, i)),
			   want, layout);
		*bad = true;
		return -1;
	}
	return r;
}
