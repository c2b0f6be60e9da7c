/* test_rules_string.c: StringNormalizer, TfIdfVectorizer, RegexFullMatch, StringConcat,
 * StringSplit and SequenceMap. Expected shapes from Operators.md (its text and the
 * examples' arrays, named in each test); a size that depends on string contents is
 * checked to be a symbol, never a number. */
#include <criterion/criterion.h>

#include "mb.h"

#include <stdint.h>
#include <string.h>

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
	cr_expect_eq(mb_count(m, "shape-error"), 5);
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
