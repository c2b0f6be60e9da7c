/* test_rules_string.c: StringNormalizer, TfIdfVectorizer, RegexFullMatch, StringConcat,
 * StringSplit and SequenceMap. Expected shapes from Operators.md (its text and the
 * examples' arrays, named in each test); a size that depends on string contents is
 * checked to be a symbol, never a number, unless the strings are known (an
 * initializer or a given value), when it is counted. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <criterion/criterion.h>

#include "mb.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static osh_model *run(mb *b)
{
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

static void outputs(mb *b, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mb_output(b, names[i], 0, NULL);
}

/* t is `prefix` then a symbol (a run-time size), then `suffix`. */
static void expect_symbol_at(const char *t, const char *prefix, const char *suffix)
{
	size_t p = strlen(prefix), s = strlen(suffix), n = strlen(t);
	bool ok = n > p + s && !strncmp(t, prefix, p) && !strcmp(t + n - s, suffix);
	if (ok) {
		const char *mid = t + p;
		size_t len = n - p - s;
		ok = !memchr(mid, ',', len) && !(len == 1 && mid[0] == '?') && !(mid[0] >= '0' && mid[0] <= '9');
	}
	cr_expect(ok, "%s is not %s<symbol>%s", t, prefix, suffix);
}

/* ---- StringNormalizer ---- */

Test(rules_string, string_normalizer)
{
	const char *stop[] = {"monday"};
	mb *b = mb_new(10);
	mb_input(b, "x", DT_STRING, "4");
	mb_input(b, "x2", DT_STRING, "1,6");
	mb_node(b, "StringNormalizer", "x", "same"); /* example nostopwords_nochangecase: output = input */
	mb_node(b, "StringNormalizer", "x", "dropped");
	mb_attr_strings(b, "stopwords", 1, stop);
	mb_attr_s(b, "case_change_action", "LOWER");
	mb_node(b, "StringNormalizer", "x2", "twodim");
	mb_attr_strings(b, "stopwords", 1, stop);
	mb_attr_s(b, "case_change_action", "UPPER");
	mb_node(b, "StringNormalizer", "x2", "twodim_same");
	static const char *const outs[] = {"same", "dropped", "twodim", "twodim_same"};
	outputs(b, outs, 4);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "same"), "STRING (4)");
	cr_expect_str_eq(mb_type(m, "twodim_same"), "STRING (1, 6)");
	/* how many strings are left depends on them (3 or 1 in the examples) */
	expect_symbol_at(mb_type(m, "dropped"), "STRING (", ")");
	expect_symbol_at(mb_type(m, "twodim"), "STRING (1, ", ")");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

/* "This operator only accepts [C]- and [1, C]-tensor." */
Test(rules_string, string_normalizer_errors)
{
	mb *b = mb_new(10);
	mb_input(b, "x", DT_STRING, "2,3");
	mb_input(b, "y", DT_STRING, "1,2,3");
	mb_input(b, "i", DT_INT64, "3");
	mb_node(b, "StringNormalizer", "x", "a");
	mb_node(b, "StringNormalizer", "y", "b");
	mb_node(b, "StringNormalizer", "i", "c");
	mb_node(b, "StringNormalizer", "i", "d");
	mb_attr_s(b, "case_change_action", "TITLE");
	static const char *const outs[] = {"a", "b", "c", "d"};
	outputs(b, outs, 4);
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 3);
	cr_expect_eq(mb_count(m, "attribute-error"), 1); /* TITLE */
	cr_expect_str_eq(mb_type(m, "a"), "STRING (rank unknown)");
	osh_model_free(m);
}

/* ---- TfIdfVectorizer ---- */

/* The examples: ngram_indexes [0..6] give 7 columns; [C] in gives [7], [N, C] gives
 * [N, 7] (test_tfidfvectorizer_tf_only_bigrams_skip0: (12) -> (7);
 * tf_batch_onlybigrams_skip0: (2, 6) -> (2, 7)). */
Test(rules_string, tfidf_vectorizer_1d_and_2d)
{
	const int64_t idx[] = {0, 1, 2, 3, 4, 5, 6};
	const int64_t pool[] = {2, 3, 5, 4, 5, 6, 7, 8, 6, 7};
	const char *spool[] = {"a", "b"};
	mb *b = mb_new(9);
	mb_input(b, "v", DT_INT32, "12");
	mb_input(b, "m", DT_INT64, "N,6");
	mb_input(b, "s", DT_STRING, "3");
	const char *ins[] = {"v", "m"}, *outs[] = {"y1", "y2"};
	for (int k = 0; k < 2; k++) {
		mb_node(b, "TfIdfVectorizer", ins[k], outs[k]);
		mb_attr_i(b, "min_gram_length", 2);
		mb_attr_i(b, "max_gram_length", 2);
		mb_attr_i(b, "max_skip_count", 0);
		mb_attr_s(b, "mode", "TF");
		mb_attr_ints(b, "ngram_counts", 2, (int64_t[]){0, 4});
		mb_attr_ints(b, "ngram_indexes", 7, idx);
		mb_attr_ints(b, "pool_int64s", 10, pool);
	}
	mb_node(b, "TfIdfVectorizer", "s", "ys"); /* output width from the largest index, not the pool */
	mb_attr_i(b, "min_gram_length", 1);
	mb_attr_i(b, "max_gram_length", 1);
	mb_attr_i(b, "max_skip_count", 0);
	mb_attr_s(b, "mode", "IDF");
	mb_attr_ints(b, "ngram_counts", 1, (int64_t[]){0});
	mb_attr_ints(b, "ngram_indexes", 2, (int64_t[]){4, 1});
	mb_attr_strings(b, "pool_strings", 2, spool);
	static const char *const all[] = {"y1", "y2", "ys"};
	outputs(b, all, 3);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "y1"), "FLOAT (7)");
	cr_expect_str_eq(mb_type(m, "y2"), "FLOAT (N, 7)");
	cr_expect_str_eq(mb_type(m, "ys"), "FLOAT (5)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

/* The attributes TfIdfVectorizer-9 requires that the rule does not read: unigrams. */
static void unigrams(mb *b)
{
	mb_attr_i(b, "min_gram_length", 1);
	mb_attr_i(b, "max_gram_length", 1);
	mb_attr_i(b, "max_skip_count", 0);
	mb_attr_ints(b, "ngram_counts", 1, (int64_t[]){0});
}

Test(rules_string, tfidf_vectorizer_errors)
{
	const char *spool[] = {"a"};
	mb *b = mb_new(9);
	mb_input(b, "v", DT_INT32, "12");
	mb_input(b, "t", DT_INT64, "2,3,4");
	mb_node(b, "TfIdfVectorizer", "v", "strings_for_ints");
	mb_attr_s(b, "mode", "TF");
	unigrams(b);
	mb_attr_ints(b, "ngram_indexes", 1, (int64_t[]){0});
	mb_attr_strings(b, "pool_strings", 1, spool);
	mb_node(b, "TfIdfVectorizer", "v", "negative_index");
	mb_attr_s(b, "mode", "TF");
	unigrams(b);
	mb_attr_ints(b, "ngram_indexes", 2, (int64_t[]){0, -1});
	mb_attr_ints(b, "pool_int64s", 2, (int64_t[]){1, 2});
	mb_node(b, "TfIdfVectorizer", "t", "rank3");
	mb_attr_s(b, "mode", "TF");
	unigrams(b);
	mb_attr_ints(b, "ngram_indexes", 1, (int64_t[]){0});
	mb_attr_ints(b, "pool_int64s", 1, (int64_t[]){1});
	mb_node(b, "TfIdfVectorizer", "v", "huge_index"); /* max + 1 does not fit int64: no size */
	mb_attr_s(b, "mode", "TF");
	unigrams(b);
	mb_attr_ints(b, "ngram_indexes", 1, (int64_t[]){INT64_MAX});
	mb_attr_ints(b, "pool_int64s", 1, (int64_t[]){1});
	static const char *const outs[] = {"strings_for_ints", "negative_index", "rank3", "huge_index"};
	outputs(b, outs, 4);
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 3);
	cr_expect_str_eq(mb_type(m, "huge_index"), "FLOAT (?)");
	cr_expect_str_eq(mb_type(m, "strings_for_ints"), "FLOAT (1)");
	cr_expect_str_eq(mb_type(m, "negative_index"), "FLOAT (?)");
	cr_expect_str_eq(mb_type(m, "rank3"), "FLOAT (rank unknown)");
	osh_model_free(m);
}

/* ---- RegexFullMatch, StringConcat ---- */

Test(rules_string, regex_and_concat)
{
	mb *b = mb_new(20);
	mb_input(b, "a", DT_STRING, "2,3");
	mb_input(b, "r", DT_STRING, "3");
	mb_input(b, "s", DT_STRING, "");
	mb_input(b, "q", DT_STRING, "2");
	mb_node(b, "RegexFullMatch", "a", "match");
	mb_attr_s(b, "pattern", "www\\.[\\w.-]+\\.\\bcom\\b");
	mb_node(b, "StringConcat", "a,r", "cat");
	mb_node(b, "StringConcat", "s,a", "cat_scalar");
	mb_node(b, "StringConcat", "q,r", "bad");
	static const char *const outs[] = {"match", "cat", "cat_scalar", "bad"};
	outputs(b, outs, 4);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "match"), "BOOL (2, 3)");
	cr_expect_str_eq(mb_type(m, "cat"), "STRING (2, 3)");
	cr_expect_str_eq(mb_type(m, "cat_scalar"), "STRING (2, 3)");
	cr_expect_str_eq(mb_type(m, "bad"), "STRING (rank unknown)");
	cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1);
	osh_model_free(m);
}

/* ---- StringSplit ---- */

Test(rules_string, string_split)
{
	mb *b = mb_new(20);
	mb_input(b, "x", DT_STRING, "2,2");
	mb_input(b, "e", DT_STRING, "0");
	mb_input(b, "n", DT_STRING, "N");
	mb_node(b, "StringSplit", "x", "y,z"); /* example maxsplit=2: ((2, 2, 3), (2, 2)) */
	mb_attr_i(b, "maxsplit", 2);
	mb_node(b, "StringSplit", "e", "ye,ze"); /* example empty_tensor: (0) gives (0, 0), (0) */
	mb_node(b, "StringSplit", "x", "y0,z0"); /* maxsplit 0 with a delimiter: one piece each */
	mb_attr_s(b, "delimiter", ",");
	mb_attr_i(b, "maxsplit", 0);
	mb_node(b, "StringSplit", "x", "yw,zw"); /* maxsplit 0 on whitespace: "" gives no piece */
	mb_attr_i(b, "maxsplit", 0);
	mb_node(b, "StringSplit", "n", "yn,zn"); /* N may be 0: no claim */
	mb_attr_s(b, "delimiter", ",");
	mb_attr_i(b, "maxsplit", 0);
	static const char *const outs[] = {"y", "z", "ye", "ze", "y0", "z0", "yw", "zw", "yn", "zn"};
	outputs(b, outs, 10);
	osh_model *m = run(b);
	/* up to maxsplit + 1 = 3 pieces, 3 in the example: the width depends on the strings */
	expect_symbol_at(mb_type(m, "y"), "STRING (2, 2, ", ")");
	cr_expect_str_eq(mb_type(m, "z"), "INT64 (2, 2)");
	cr_expect_str_eq(mb_type(m, "ye"), "STRING (0, 0)");
	cr_expect_str_eq(mb_type(m, "ze"), "INT64 (0)");
	cr_expect_str_eq(mb_type(m, "y0"), "STRING (2, 2, 1)");
	expect_symbol_at(mb_type(m, "yw"), "STRING (2, 2, ", ")");
	expect_symbol_at(mb_type(m, "yn"), "STRING (N, ", ")");
	cr_expect_str_eq(mb_type(m, "zn"), "INT64 (N)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

/* ---- known strings: initializers and values given for inference ---- */

/* Serialized protobuf, written by hand: the builder makes no STRING tensors. */
typedef struct pbuf {
	uint8_t b[4096];
	size_t n;
} pbuf;

static void pb_varint(pbuf *p, uint64_t v)
{
	do {
		cr_assert_lt(p->n, sizeof p->b);
		p->b[p->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pb_bytes(pbuf *p, int field, const void *data, size_t len)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, len);
	cr_assert_leq(len, sizeof p->b - p->n);
	memcpy(p->b + p->n, data, len);
	p->n += len;
}

/* A STRING TensorProto named `name` with dims (rank r) holding strs. */
static void pb_strings(pbuf *p, const char *name, int r, const int64_t *dims, int n, const char *const *strs)
{
	for (int k = 0; k < r; k++) {
		pb_varint(p, 1 << 3); /* dims */
		pb_varint(p, (uint64_t)dims[k]);
	}
	pb_varint(p, 2 << 3); /* data_type */
	pb_varint(p, DT_STRING);
	for (int k = 0; k < n; k++)
		pb_bytes(p, 6, strs[k], strlen(strs[k])); /* string_data */
	pb_bytes(p, 8, name, strlen(name));
}

typedef struct strinit {
	const char *name;
	int r;
	int64_t dims[2];
	int n;
	const char *const *strs;
} strinit;

static uint64_t rd_varint(const uint8_t *b, size_t len, size_t *at)
{
	uint64_t v = 0;
	for (int sh = 0; sh < 64; sh += 7) {
		cr_assert_lt(*at, len);
		uint8_t c = b[(*at)++];
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return v;
	}
	cr_assert_fail("bad varint");
	return 0;
}

/* Saves b, adds the STRING initializers `inits` to its graph (the ModelProto's field
 * 7, rewritten with them appended), loads it, gives the input `given` the strings
 * `gv` when given is not NULL, and infers. */
static osh_model *run_strings(mb *b, const strinit *inits, int ninits, const strinit *gv)
{
	char path[] = "/tmp/test_rules_string_XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	mb_save(b, path);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	static uint8_t in[1 << 16], buf[1 << 16];
	size_t inlen = fread(in, 1, sizeof in, f);
	fclose(f);
	unlink(path);
	cr_assert_lt(inlen, sizeof in);
	pbuf extra = {.n = 0};
	for (int k = 0; k < ninits; k++) {
		pbuf t = {.n = 0};
		pb_strings(&t, inits[k].name, inits[k].r, inits[k].dims, inits[k].n, inits[k].strs);
		pb_bytes(&extra, 5, t.b, t.n); /* GraphProto.initializer */
	}
	size_t len = 0;
	for (size_t at = 0; at < inlen;) {
		size_t start = at;
		uint64_t tag = rd_varint(in, inlen, &at);
		size_t body = at, n = 0;
		switch (tag & 7) {
		case 0:
			rd_varint(in, inlen, &at);
			break;
		case 1:
			at += 8;
			break;
		case 5:
			at += 4;
			break;
		case 2:
			n = rd_varint(in, inlen, &at);
			body = at;
			at += n;
			break;
		default:
			cr_assert_fail("wire type %d", (int)(tag & 7));
		}
		cr_assert_leq(at, inlen);
		if (tag >> 3 == 7) { /* graph: its fields, then the initializers */
			pbuf h = {.n = 0};
			pb_varint(&h, tag);
			pb_varint(&h, n + extra.n);
			cr_assert_leq(h.n + n + extra.n, sizeof buf - len);
			memcpy(buf + len, h.b, h.n);
			memcpy(buf + len + h.n, in + body, n);
			memcpy(buf + len + h.n + n, extra.b, extra.n);
			len += h.n + n + extra.n;
		} else {
			memcpy(buf + len, in + start, at - start);
			len += at - start;
		}
	}
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, buf, len, "test.onnx", NULL, &err), OSH_OK, "%s", err.message);
	if (gv) {
		pbuf t = {.n = 0};
		pb_strings(&t, gv->name, gv->r, gv->dims, gv->n, gv->strs);
		cr_assert_eq(osh_model_set_input_value(m, gv->name, -1, t.b, t.n, &err), OSH_OK, "%s", err.message);
	}
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

/* Strings known: C' is counted. The examples (Operators.md): monday_casesensintive_*
 * [4] -> [3], monday_empty_output [2] -> [1] (one empty string), insensintive_upper_twodim
 * [1, 6] -> [1, 4]. */
Test(rules_string, string_normalizer_known_strings)
{
	static const char *const days[] = {"monday", "tuesday", "wednesday", "thursday"};
	static const char *const mixed[] = {"Monday", "tuesday", "wednesday", "MONDAY", "tuesday", "wednesday"};
	static const char *const two[] = {"monday", "tuesday"};
	static const char *const accents[] = {"\xc3\x89t\xc3\xa9", "\xc3\xa9T\xc3\xa9", "x"}; /* Été, éTé */
	static const char *stop1[] = {"monday"}, *stop2[] = {"monday", "tuesday"}, *stop_acc[] = {"\xc3\xa9t\xc3\xa9"};
	const strinit inits[] = {
		{"days", 1, {4}, 4, days},
		{"mixed", 2, {1, 6}, 6, mixed},
		{"two", 1, {2}, 2, two},
		{"two2", 2, {1, 2}, 2, two},
		{"acc", 1, {3}, 3, accents},
	};
	mb *b = mb_new(10);
	mb_input(b, "g", DT_STRING, "3");
	mb_node(b, "StringNormalizer", "days", "sensitive");
	mb_attr_strings(b, "stopwords", 1, stop1);
	mb_attr_i(b, "is_case_sensitive", 1);
	mb_node(b, "StringNormalizer", "mixed", "folded"); /* default: Monday and MONDAY are stop words */
	mb_attr_strings(b, "stopwords", 1, stop1);
	mb_attr_s(b, "case_change_action", "UPPER");
	mb_node(b, "StringNormalizer", "mixed", "unfolded");
	mb_attr_strings(b, "stopwords", 1, stop1);
	mb_attr_i(b, "is_case_sensitive", 1);
	mb_node(b, "StringNormalizer", "two", "empty");
	mb_attr_strings(b, "stopwords", 2, stop2);
	mb_node(b, "StringNormalizer", "two2", "empty2");
	mb_attr_strings(b, "stopwords", 2, stop2);
	mb_attr_s(b, "case_change_action", "LOWER");
	mb_node(b, "StringNormalizer", "acc", "ascii_only"); /* only ASCII letters fold: éTé matches, Été not */
	mb_attr_strings(b, "stopwords", 1, stop_acc);
	mb_node(b, "StringNormalizer", "g", "given");
	mb_attr_strings(b, "stopwords", 2, stop2);
	static const char *const outs[] = {"sensitive", "folded", "unfolded", "empty", "empty2", "ascii_only", "given"};
	outputs(b, outs, 7);
	static const char *const gs[] = {"TUESDAY", "friday", "Monday"};
	const strinit g = {"g", 1, {3}, 3, gs};
	osh_model *m = run_strings(b, inits, 5, &g);
	cr_expect_str_eq(mb_type(m, "sensitive"), "STRING (3)");
	cr_expect_str_eq(mb_type(m, "folded"), "STRING (1, 4)");
	cr_expect_str_eq(mb_type(m, "unfolded"), "STRING (1, 6)");
	cr_expect_str_eq(mb_type(m, "empty"), "STRING (1)");
	cr_expect_str_eq(mb_type(m, "empty2"), "STRING (1, 1)");
	cr_expect_str_eq(mb_type(m, "ascii_only"), "STRING (2)");
	cr_expect_str_eq(mb_type(m, "given"), "STRING (1)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

/* Strings known: the last axis of Y is the most pieces, as Python's str.split counts
 * them (the reference). The examples: basic ["hello.world", "hello.world.again",
 * "hello"] on "." -> (3, 3); consecutive_delimiters ["hello---world", "-"] on "-" ->
 * (2, 4); maxsplit [["hello world", "def.net"], ["o n n x", "the quick brown fox"]]
 * with 2 -> (2, 2, 3); no_delimiter and empty_string_delimiter split on spaces. */
Test(rules_string, string_split_known_strings)
{
	static const char *const dots[] = {"hello.world", "hello.world.again", "hello"};
	static const char *const dashes[] = {"hello---world", "-"};
	static const char *const words[] = {"hello world", "def.net", "o n n x", "the quick brown fox"};
	static const char *const spaces[] = {"  a  b ", "", "a\tb\nc \xc2\xa0 d"}; /* U+00A0 is a space */
	static const char *const blank[] = {"", " \t "};
	static const char *const ab[] = {"aabab", ""};
	const strinit inits[] = {
		{"dots", 1, {3}, 3, dots},     {"dashes", 1, {2}, 2, dashes}, {"words", 2, {2, 2}, 4, words},
		{"spaces", 1, {3}, 3, spaces}, {"blank", 1, {2}, 2, blank},   {"ab", 1, {2}, 2, ab},
	};
	mb *b = mb_new(20);
	mb_input(b, "g", DT_STRING, "2");
	mb_node(b, "StringSplit", "dots", "y1,z1");
	mb_attr_s(b, "delimiter", ".");
	mb_node(b, "StringSplit", "dashes", "y2,z2"); /* "hello", "", "", "world" */
	mb_attr_s(b, "delimiter", "-");
	mb_node(b, "StringSplit", "words", "y3,z3");
	mb_attr_i(b, "maxsplit", 2);
	mb_node(b, "StringSplit", "words", "y4,z4"); /* unlimited: "the quick brown fox" */
	mb_node(b, "StringSplit", "spaces", "y5,z5"); /* a b / none / a b c d */
	mb_attr_s(b, "delimiter", "");
	mb_node(b, "StringSplit", "spaces", "y6,z6"); /* "a", "b c \xc2\xa0 d" */
	mb_attr_i(b, "maxsplit", 1);
	mb_node(b, "StringSplit", "blank", "y7,z7"); /* no piece anywhere */
	mb_node(b, "StringSplit", "ab", "y8,z8"); /* "a", "", "" and "" */
	mb_attr_s(b, "delimiter", "ab");
	mb_node(b, "StringSplit", "dashes", "y9,z9"); /* negative maxsplit: no limit */
	mb_attr_s(b, "delimiter", "-");
	mb_attr_i(b, "maxsplit", -1);
	mb_node(b, "StringSplit", "g", "yg,zg");
	mb_attr_s(b, "delimiter", ",");
	static const char *const outs[] = {"y1", "z1", "y2", "y3", "z3", "y4", "y5", "y6", "y7", "y8", "y9", "yg", "zg"};
	outputs(b, outs, 13);
	static const char *const gs[] = {"a,b", ",,,"};
	const strinit g = {"g", 1, {2}, 2, gs};
	osh_model *m = run_strings(b, inits, 6, &g);
	cr_expect_str_eq(mb_type(m, "y1"), "STRING (3, 3)");
	cr_expect_str_eq(mb_type(m, "z1"), "INT64 (3)");
	cr_expect_str_eq(mb_type(m, "y2"), "STRING (2, 4)");
	cr_expect_str_eq(mb_type(m, "y3"), "STRING (2, 2, 3)");
	cr_expect_str_eq(mb_type(m, "z3"), "INT64 (2, 2)");
	cr_expect_str_eq(mb_type(m, "y4"), "STRING (2, 2, 4)");
	cr_expect_str_eq(mb_type(m, "y5"), "STRING (3, 4)");
	cr_expect_str_eq(mb_type(m, "y6"), "STRING (3, 2)");
	cr_expect_str_eq(mb_type(m, "y7"), "STRING (2, 0)");
	cr_expect_str_eq(mb_type(m, "y8"), "STRING (2, 3)");
	cr_expect_str_eq(mb_type(m, "y9"), "STRING (2, 4)");
	cr_expect_str_eq(mb_type(m, "yg"), "STRING (2, 4)");
	cr_expect_str_eq(mb_type(m, "zg"), "INT64 (2)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}
