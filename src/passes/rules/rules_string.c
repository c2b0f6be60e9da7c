/* rules_string.c: the operators on string tensors, StringNormalizer (10),
 * RegexFullMatch, StringConcat and StringSplit (20), and TfIdfVectorizer (9), which
 * turns strings or integers into n-gram counts.
 *
 * A size that depends on string contents (how many stop words were dropped, how many
 * pieces a split makes) is exact when the strings are known (an initializer, or a
 * value given for inference) and otherwise a fresh symbol: fixed at run time, unknown
 * now. What the attributes alone decide is exact.
 */
#include "passes/rules/rule_protos.h"

#include "core/dtype.h"
#include "passes/rules/rules_tensor.h"

#include <string.h>

/* Reports input i when its element type is known and is none of `allowed` (n). */
static void expect_elem(infer_ctx *c, int32_t i, const int32_t *allowed, int32_t n)
{
	int32_t e = in_elem(c, i);
	if (!e)
		return;
	for (int32_t k = 0; k < n; k++)
		if (allowed[k] == e)
			return;
	tr_error(c, "input '%s' is %s, which this operator does not take", in_name(c, i), dtype_name(e));
}

static void expect_string(infer_ctx *c, int32_t i)
{
	static const int32_t s[] = {DT_STRING};
	expect_elem(c, i, s, 1);
}

/* The strings of input i when they are known: an initializer that is not a graph
 * input (a graph input's initializer is only a default) or a value given for this
 * run, followed to an outer graph. NULL otherwise; *n is then unset. */
static const tensor_bytes *known_strings(infer_ctx *c, int32_t i, int64_t *n)
{
	const tensor_view *tv = in_stored_tensor(c, i);
	if (!tv || tv->dtype != DT_STRING || !tv->valid || tv->external || tv->raw || tv->count < 0 ||
	    tv->ntyped != (size_t)tv->count || (tv->count && !tv->str))
		return NULL;
	static const tensor_bytes none = {0, NULL};
	*n = tv->count;
	return tv->count ? tv->str : &none;
}

static unsigned char ascii_lower(unsigned char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch - 'A' + 'a') : ch;
}

/* Whether s is one of the stop words (n), byte for byte or with ASCII letters folded:
 * the case of other characters is left as it is, whatever the locale. */
static bool is_stopword(const tensor_bytes *s, const char *const *stop, int32_t n, bool sensitive)
{
	for (int32_t k = 0; k < n; k++) {
		size_t len = strlen(stop[k]);
		if (len != s->len)
			continue;
		size_t j = 0;
		for (; j < len; j++) {
			unsigned char a = s->data[j], b = (unsigned char)stop[k][j];
			if (sensitive ? a != b : ascii_lower(a) != ascii_lower(b))
				break;
		}
		if (j == len)
			return true;
	}
	return false;
}

/* ---- StringNormalizer -------------------------------------------------------------- */

/* [C] or [1, C] in, the same rank out, with C' strings left after the stop words are
 * dropped ([1] or [1, 1] when none is left). Without stop words nothing is dropped and
 * C' = C for C > 0; with them C' depends on the strings: counted when they are known. */
void infer_string_normalizer(infer_ctx *c)
{
	static const char *const actions[] = {"NONE", "LOWER", "UPPER"};
	expect_string(c, 0);
	const char *act = attr_s(c, "case_change_action", "NONE");
	bool valid = false;
	for (size_t k = 0; k < sizeof actions / sizeof actions[0]; k++)
		valid |= !strcmp(act, actions[k]);
	if (!valid)
		tr_error(c, "case_change_action '%s' is not NONE, LOWER or UPPER", act);
	const tinfo *x = in_tensor(c, 0);
	int32_t r = in_rank(c, 0);
	if (r != 1 && r != 2) {
		if (r >= 0)
			tr_error(c, "input '%s' %s must be [C] or [1, C]", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, DT_STRING);
		return;
	}
	if (r == 2) {
		dim d0 = dim_resolve(c->syms, x->dims[0]);
		if (d0.kind == DIM_KNOWN && d0.v != 1) {
			tr_error(c, "input '%s' %s must be [C] or [1, C]", in_name(c, 0), fmt_shape(c, x));
			set_out_elem(c, 0, DT_STRING);
			return;
		}
	}
	dim cdim = dim_resolve(c->syms, x->dims[r - 1]);
	bool drops = attr_len(c, "stopwords") > 0;
	dim left = !drops && cdim.kind == DIM_KNOWN && cdim.v > 0 ? cdim : dim_fresh(c);
	int64_t n;
	const tensor_bytes *s = drops ? known_strings(c, 0, &n) : NULL;
	const attr_view *a = attr(c, "stopwords");
	if (s && n > 0 && cdim.kind == DIM_KNOWN && cdim.v == n && a->type == AT_STRINGS) {
		bool sensitive = attr_i(c, "is_case_sensitive", 0) != 0;
		int64_t kept = 0;
		for (int64_t k = 0; k < n; k++)
			kept += !is_stopword(&s[k], (const char *const *)a->strings, a->n, sensitive);
		left = dim_known(kept ? kept : 1); /* none left: one empty string */
	}
	dim d[2] = {dim_known(1), left};
	set_out(c, 0, DT_STRING, r, r == 1 ? &d[1] : d);
}

/* ---- TfIdfVectorizer ---------------------------------------------------------------- */

/* FLOAT [M] for [C], [N, M] for [N, C], M = max(ngram_indexes) + 1. */
void infer_tfidf_vectorizer(infer_ctx *c)
{
	static const int32_t in_types[] = {DT_STRING, DT_INT32, DT_INT64};
	static const char *const modes[] = {"TF", "IDF", "TFIDF"};
	expect_elem(c, 0, in_types, 3);
	int32_t e = in_elem(c, 0);
	int32_t ns = attr_len(c, "pool_strings"), ni = attr_len(c, "pool_int64s");
	if (ns >= 0 && ni >= 0)
		tr_error(c, "only one of 'pool_strings' and 'pool_int64s' may be set");
	else if (ns < 0 && ni < 0)
		tr_error(c, "one of 'pool_strings' and 'pool_int64s' is required");
	else if (e && (ns >= 0) != (e == DT_STRING))
		tr_error(c, "input '%s' is %s but the pool holds %s", in_name(c, 0), dtype_name(e),
			 ns >= 0 ? "strings" : "integers");
	const char *mode = attr_s(c, "mode", NULL);
	bool valid = false;
	for (size_t k = 0; mode && k < sizeof modes / sizeof modes[0]; k++)
		valid |= !strcmp(mode, modes[k]);
	if (!valid)
		tr_error(c, "mode '%s' is not TF, IDF or TFIDF", mode ? mode : "(missing)");
	int64_t lo = attr_i(c, "min_gram_length", 1), hi = attr_i(c, "max_gram_length", 1);
	if (lo < 1 || hi < lo)
		tr_error(c, "min_gram_length %lld and max_gram_length %lld: need 1 <= min <= max", (long long)lo,
			 (long long)hi);

	const int64_t *idx;
	int32_t n;
	dim m = dim_unknown();
	if (!attr_ints(c, "ngram_indexes", &idx, &n) || n == 0) {
		tr_error(c, "attribute 'ngram_indexes' is required and must not be empty");
	} else {
		int64_t max = 0;
		bool ok = true;
		for (int32_t k = 0; k < n && ok; k++) {
			if (idx[k] < 0) {
				tr_error(c, "ngram_indexes[%d] is %lld, must be >= 0", k, (long long)idx[k]);
				ok = false;
			}
			max = idx[k] > max ? idx[k] : max;
		}
		int64_t len;
		if (ok && !__builtin_add_overflow(max, 1, &len))
			m = dim_known(len);
	}
	const tinfo *x = in_tensor(c, 0);
	int32_t r = in_rank(c, 0);
	if (r != 1 && r != 2) {
		if (r >= 0)
			tr_error(c, "input '%s' %s must be [C] or [N, C]", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, DT_FLOAT);
		return;
	}
	dim d[2] = {r == 2 ? x->dims[0] : m, m};
	set_out(c, 0, DT_FLOAT, r, d);
}

/* ---- RegexFullMatch, StringConcat ------------------------------------------------------ */

void infer_regex_full_match(infer_ctx *c)
{
	expect_string(c, 0);
	tr_same_shape(c, 0, in_tensor(c, 0), DT_BOOL);
}

/* Elementwise, numpy broadcasting. */
void infer_string_concat(infer_ctx *c)
{
	expect_string(c, 0);
	expect_string(c, 1);
	int32_t ra = in_rank(c, 0), rb = in_rank(c, 1);
	if (ra < 0 || rb < 0) {
		set_out_elem(c, 0, DT_STRING);
		return;
	}
	int32_t cap = ra > rb ? ra : rb, r = RANK_UNKNOWN;
	dim *d = dims_alloc(c, cap);
	if (!d || !infer_broadcast(c, BCAST_NUMPY, 0, 1, -1, &r, d, cap) || r < 0) {
		set_out_elem(c, 0, DT_STRING);
		return;
	}
	set_out(c, 0, DT_STRING, r, d);
}

static bool utf8_space(const uint8_t *p, size_t len, size_t *adv)
{
	*adv = 1;
	unsigned char b = p[0];
	if (b == ' ' || (b >= '\t' && b <= '\r') || (b >= 0x1c && b <= 0x1f))
		return true;
	uint32_t cp;
	if ((b & 0xE0) == 0xC0 && len >= 2 && (p[1] & 0xC0) == 0x80) {
		cp = (uint32_t)(b & 0x1F) << 6 | (p[1] & 0x3F);
		*adv = 2;
	} else if ((b & 0xF0) == 0xE0 && len >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
		cp = (uint32_t)(b & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
		*adv = 3;
	} else {
		return false;
	}
	return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* How many pieces s splits into, as Python's str.split(sep, maxsplit) counts them
 * (ONNX's reference): with a delimiter, the splits made plus one, so "" is one piece;
 * without, the runs of non-space characters, a split taking the rest after the
 * maxsplit-th. maxsplit < 0: no limit. */
static int64_t split_count(const tensor_bytes *s, const char *delim, int64_t maxsplit)
{
	const uint8_t *p = s->data;
	size_t len = s->len, dl = strlen(delim);
	int64_t pieces = 0;
	if (dl) {
		pieces = 1;
		for (size_t j = 0; j + dl <= len && (maxsplit < 0 || pieces <= maxsplit);) {
			if (!memcmp(p + j, delim, dl)) {
				pieces++;
				j += dl;
			} else {
				j++;
			}
		}
		return pieces;
	}
	size_t j = 0, adv;
	for (;;) {
		while (j < len && utf8_space(p + j, len - j, &adv))
			j += adv;
		if (j == len)
			return pieces;
		pieces++;
		if (maxsplit >= 0 && pieces > maxsplit)
			return pieces; /* the rest, spaces and all, is the last piece */
		while (j < len && !utf8_space(p + j, len - j, &adv))
			j += adv;
	}
}

/* ---- StringSplit ---------------------------------------------------------------------- */

/* Y: the input's shape plus an axis as long as the most pieces any string gave (the
 * others padded); Z: the number of pieces, the input's shape. No string: the axis is
 * 0 (the spec's example: (0) gives (0, 0)). With maxsplit 0 and a delimiter every
 * string is one piece (the whole string, even an empty one), so the axis is 1;
 * otherwise it depends on the strings: counted when they are known. */
void infer_string_split(infer_ctx *c)
{
	expect_string(c, 0);
	const tinfo *x = in_tensor(c, 0);
	int32_t r = in_rank(c, 0);
	if (r < 0) {
		set_out_elem(c, 0, DT_STRING);
		set_out_elem(c, 1, DT_INT64);
		return;
	}
	const char *delim = attr_s(c, "delimiter", "");
	int64_t count = tr_count(c, r, x->dims);
	dim last = dim_fresh(c);
	if (count == 0)
		last = dim_known(0);
	else if (count > 0 && delim[0] && attr_has(c, "maxsplit") && attr_i(c, "maxsplit", -1) == 0)
		last = dim_known(1);
	int64_t n;
	const tensor_bytes *s = count > 0 ? known_strings(c, 0, &n) : NULL;
	if (s && n == count) {
		int64_t maxsplit = attr_i(c, "maxsplit", -1), most = 0;
		for (int64_t k = 0; k < n; k++) {
			int64_t p = split_count(&s[k], delim, maxsplit);
			most = p > most ? p : most;
		}
		last = dim_known(most);
	}
	dim *d = dims_alloc(c, r + 1);
	if (!d)
		return;
	for (int32_t k = 0; k < r; k++)
		d[k] = x->dims[k];
	d[r] = last;
	set_out(c, 0, DT_STRING, r + 1, d);
	set_out(c, 1, DT_INT64, r, x->dims);
}
