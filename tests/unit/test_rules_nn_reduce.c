/* test_rules_nn_reduce.c: the Reduce family, ArgMax/ArgMin and TopK (rules_reduce.c),
 * including content propagation through ReduceSum/Prod/Max/Min, observed through a
 * consumer whose shape depends on it. */
#include <criterion/criterion.h>

#include "rule_case.h"

/* ---- Reduce* ---- */

static const rule_case reduce_cases[] = {
	{"axes attribute, keepdims", 11, "ReduceSum", "x", "y", .decls = "x:2,3,4", .attrs = "is:axes=1",
	 .expect = {"FLOAT (2, 1, 4)"}},
	{"axes attribute, no keepdims", 11, "ReduceSum", "x", "y", .decls = "x:2,3,4",
	 .attrs = "is:axes=1|i:keepdims=0", .expect = {"FLOAT (2, 4)"}},
	{"negative axis", 11, "ReduceMean", "x", "y", .decls = "x:2,3,4", .attrs = "is:axes=-1|i:keepdims=0",
	 .expect = {"FLOAT (2, 3)"}},
	{"two axes", 13, "ReduceMax", "x", "y", .decls = "x:2,3,4", .attrs = "is:axes=0,-1",
	 .expect = {"FLOAT (1, 3, 1)"}},
	{"no axes: all, keepdims", 1, "ReduceSum", "x", "y", .decls = "x:2,3,4", .expect = {"FLOAT (1, 1, 1)"}},
	{"no axes: all, scalar", 1, "ReduceProd", "x", "y", .decls = "x:2,3,4", .attrs = "i:keepdims=0",
	 .expect = {"FLOAT ()"}},
	{"axes input", 13, "ReduceSum", "x,a", "y", .decls = "x:2,3,4", .ints = "a:2:0,2",
	 .expect = {"FLOAT (1, 3, 1)"}},
	{"axes input, negative", 13, "ReduceSum", "x,a", "y", .decls = "x:2,3,4", .ints = "a:1:-2",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (2, 4)"}},
	{"axes input absent: all", 13, "ReduceSum", "x", "y", .decls = "x:2,3,4", .attrs = "i:keepdims=0",
	 .expect = {"FLOAT ()"}},
	{"axes input absent, noop_with_empty_axes", 13, "ReduceSum", "x", "y", .decls = "x:2,3,4",
	 .attrs = "i:noop_with_empty_axes=1", .expect = {"FLOAT (2, 3, 4)"}},
	{"axes input empty: all", 13, "ReduceSum", "x,a", "y", .decls = "x:2,3,4", .ints = "a:0:",
	 .expect = {"FLOAT (1, 1, 1)"}},
	{"axes input empty, noop_with_empty_axes", 18, "ReduceLogSum", "x,a", "y", .decls = "x:2,3,4", .ints = "a:0:",
	 .attrs = "i:noop_with_empty_axes=1|i:keepdims=0", .expect = {"FLOAT (2, 3, 4)"}},
	{"axes input of unknown length", 13, "ReduceSum", "x,a", "y", .decls = "x:2,1,4|a:INT64:?",
	 .expect = {"FLOAT (?, 1, ?)"}},
	{"axes input unknown, no keepdims", 13, "ReduceSum", "x,a", "y", .decls = "x:2,1,4|a:INT64:2",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (rank unknown)"}},
	/* One axis, unknown which: rank r - 1; dim k is x's k or k + 1 (equal: known). */
	{"one unknown axis, no keepdims", 13, "ReduceSum", "x,a", "y", .decls = "x:3,2,2|a:INT64:1",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (?, 2)"}},
	{"one unknown axis of a symbolic shape", 18, "ReduceMax", "x,a", "y", .decls = "x:N,N,4|a:INT64:1",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (N, ?)"}},
	{"axes input known empty by shape", 18, "ReduceMean", "x,a", "y", .decls = "x:2,3|a:INT64:0",
	 .attrs = "i:noop_with_empty_axes=1", .expect = {"FLOAT (2, 3)"}},
	{"ReduceMean-13 keeps the attribute", 13, "ReduceMean", "x", "y", .decls = "x:2,3,4", .attrs = "is:axes=1",
	 .expect = {"FLOAT (2, 1, 4)"}},
	{"ReduceMean-18 takes the input", 18, "ReduceMean", "x,a", "y", .decls = "x:2,3,4", .ints = "a:1:1",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (2, 4)"}},
	/* From 18 an axes attribute is not part of the operator (an attribute-error of
	 * the schema): runtimes differ on it */
	{"ReduceMean-18 with a stray axes attribute", 18, "ReduceMean", "x", "y", .decls = "x:2,3,4",
	 .attrs = "is:axes=1", .expect = {"FLOAT (?, ?, ?)"}, .diag = "attribute-error"},
	{"ReduceMax-20 on BOOL", 20, "ReduceMax", "x,a", "y", .decls = "x:BOOL:2,3", .ints = "a:1:0",
	 .expect = {"BOOL (1, 3)"}},
	{"ReduceMin-12 on INT8", 12, "ReduceMin", "x", "y", .decls = "x:INT8:2,3", .attrs = "is:axes=1|i:keepdims=0",
	 .expect = {"INT8 (2)"}},
	{"ReduceL1", 1, "ReduceL1", "x", "y", .decls = "x:3,2,2", .attrs = "is:axes=2",
	 .expect = {"FLOAT (3, 2, 1)"}},
	{"ReduceL2", 18, "ReduceL2", "x,a", "y", .decls = "x:3,2,2", .ints = "a:1:2", .attrs = "i:keepdims=0",
	 .expect = {"FLOAT (3, 2)"}},
	{"ReduceLogSumExp", 13, "ReduceLogSumExp", "x", "y", .decls = "x:3,2,2", .attrs = "is:axes=-2",
	 .expect = {"FLOAT (3, 1, 2)"}},
	{"ReduceSumSquare", 11, "ReduceSumSquare", "x", "y", .decls = "x:3,2,2", .attrs = "is:axes=0|i:keepdims=0",
	 .expect = {"FLOAT (2, 2)"}},
	{"ReduceProd-18", 18, "ReduceProd", "x,a", "y", .decls = "x:3,2,2", .ints = "a:2:0,1",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (2)"}},
	{"symbolic dims kept", 13, "ReduceSum", "x,a", "y", .decls = "x:N,3,W", .ints = "a:1:1",
	 .attrs = "i:keepdims=0", .expect = {"FLOAT (N, W)"}},
	{"empty dim reduced", 11, "ReduceMax", "x", "y", .decls = "x:0,3", .attrs = "is:axes=0",
	 .expect = {"FLOAT (1, 3)"}},
	{"empty dim kept", 11, "ReduceSum", "x", "y", .decls = "x:0,3", .attrs = "is:axes=1|i:keepdims=0",
	 .expect = {"FLOAT (0)"}},
	{"rank unknown, all, scalar", 11, "ReduceSum", "x", "y", .decls = "x:*", .attrs = "i:keepdims=0",
	 .expect = {"FLOAT ()"}},
	{"rank unknown, all, keepdims", 11, "ReduceSum", "x", "y", .decls = "x:*",
	 .expect = {"FLOAT (rank unknown)"}},
	{"axis out of range", 11, "ReduceSum", "x", "y", .decls = "x:2,3,4", .attrs = "is:axes=3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"negative axis out of range", 13, "ReduceSum", "x,a", "y", .decls = "x:2,3,4", .ints = "a:1:-4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"axes input of rank 2", 13, "ReduceSum", "x,a", "y", .decls = "x:2,3,4", .ints = "a:1,1:0",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"scalar input, no axes", 18, "ReduceMax", "x", "y", .decls = "x:", .expect = {"FLOAT ()"}},
};

Test(rules_nn_reduce, reduce) { RULE_CASES(reduce_cases); }

/* ---- ArgMax, ArgMin ---- */

static const rule_case argmax_cases[] = {
	{"keepdims", 13, "ArgMax", "x", "y", .decls = "x:2,3,4", .attrs = "i:axis=1", .expect = {"INT64 (2, 1, 4)"}},
	{"no keepdims", 11, "ArgMin", "x", "y", .decls = "x:2,3,4", .attrs = "i:axis=1|i:keepdims=0",
	 .expect = {"INT64 (2, 4)"}},
	{"default axis 0", 1, "ArgMax", "x", "y", .decls = "x:2,3,4", .expect = {"INT64 (1, 3, 4)"}},
	{"negative axis", 12, "ArgMin", "x", "y", .decls = "x:N,3,4", .attrs = "i:axis=-1|i:select_last_index=1",
	 .expect = {"INT64 (N, 3, 1)"}},
	{"axis out of range", 13, "ArgMax", "x", "y", .decls = "x:2,3,4", .attrs = "i:axis=3",
	 .expect = {"INT64 (rank unknown)"}, .diag = "shape-error"},
	{"rank unknown", 13, "ArgMax", "x", "y", .decls = "x:*", .expect = {"INT64 (rank unknown)"}},
};

Test(rules_nn_reduce, argmax) { RULE_CASES(argmax_cases); }

/* ---- TopK ---- */

static const rule_case topk_cases[] = {
	{"k attribute", 1, "TopK", "x", "v,i", .decls = "x:3,4", .attrs = "i:k=2",
	 .expect = {"FLOAT (3, 2)", "INT64 (3, 2)"}},
	{"K input", 10, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:1:3",
	 .expect = {"FLOAT (3, 3)", "INT64 (3, 3)"}},
	{"axis 0", 11, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:1:2", .attrs = "i:axis=0|i:largest=0",
	 .expect = {"FLOAT (2, 4)", "INT64 (2, 4)"}},
	{"negative axis, symbolic dims", 24, "TopK", "x,k", "v,i", .decls = "x:N,5,M", .ints = "k:1:5",
	 .attrs = "i:axis=-2", .expect = {"FLOAT (N, 5, M)", "INT64 (N, 5, M)"}},
	/* K unknown: one fresh symbol for both outputs */
	{"K unknown", 11, "TopK", "x,k", "v,i", .decls = "x:3,4|k:INT64:1",
	 .expect = {"FLOAT (3, unk__0)", "INT64 (3, unk__0)"}},
	{"K = 0", 11, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:1:0",
	 .expect = {"FLOAT (3, 0)", "INT64 (3, 0)"}},
	{"K above the axis size", 11, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:1:5",
	 .expect = {"FLOAT (rank unknown)", "INT64 (rank unknown)"}, .diag = "shape-error"},
	{"negative K", 10, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:1:-1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"K of two values", 11, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:2:1,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* TopK-1 requires k: the schema says so */
	{"k attribute missing", 1, "TopK", "x", "v,i", .decls = "x:3,4",
	 .expect = {"FLOAT (rank unknown)", "INT64 (rank unknown)"}, .diag = "attribute-error"},
	{"axis out of range", 11, "TopK", "x,k", "v,i", .decls = "x:3,4", .ints = "k:1:1", .attrs = "i:axis=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_nn_reduce, topk) { RULE_CASES(topk_cases); }

/* ---- content propagation, seen through TopK's K ---- */

/* data -> Reduce* (keepdims, one value) -> TopK K on a (30, 4) input. */
static const char *topk_after(int64_t opset, const char *op, const char *dims, const int64_t *vals, const char *attrs)
{
	mb *b = mb_new(opset);
	mb_input(b, "x", DT_FLOAT, "30,4");
	mb_init_ints(b, "d", dims, vals);
	mb_node(b, op, "d", "k");
	if (attrs && !strcmp(attrs, "axes0"))
		mb_attr_ints(b, "axes", 1, (int64_t[]){0});
	mb_node(b, "TopK", "x,k", "v,i");
	mb_attr_i(b, "axis", 0);
	mb_output(b, "v", 0, NULL);
	mb_output(b, "i", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	static char buf[64];
	snprintf(buf, sizeof buf, "%s", mb_type(m, "v"));
	cr_expect_eq(mb_count(m, "shape-error"), 0, "%s: %s", op, mb_message(m, "shape-error"));
	osh_model_free(m);
	return buf;
}

Test(rules_nn_reduce, content_through_reductions)
{
	/* ReduceProd of a shape gives its element count: 2 * 3 * 4 */
	cr_expect_str_eq(topk_after(13, "ReduceProd", "3", (int64_t[]){2, 3, 4}, NULL), "FLOAT (24, 4)");
	cr_expect_str_eq(topk_after(18, "ReduceProd", "3", (int64_t[]){2, 3, 4}, NULL), "FLOAT (24, 4)");
	cr_expect_str_eq(topk_after(13, "ReduceSum", "3", (int64_t[]){2, 3, 4}, NULL), "FLOAT (9, 4)");
	cr_expect_str_eq(topk_after(11, "ReduceSum", "3", (int64_t[]){2, 3, 4}, "axes0"), "FLOAT (9, 4)");
	cr_expect_str_eq(topk_after(18, "ReduceMax", "3", (int64_t[]){2, 7, 4}, NULL), "FLOAT (7, 4)");
	cr_expect_str_eq(topk_after(13, "ReduceMin", "3", (int64_t[]){5, 7, 6}, NULL), "FLOAT (5, 4)");
	/* ReduceMean's content is not integral in general: not carried, K unknown */
	cr_expect_str_eq(topk_after(13, "ReduceMean", "3", (int64_t[]){2, 3, 4}, NULL), "FLOAT (unk__0, 4)");
}

/* A per-axis reduction: (2, 2) [[1, 2], [3, 4]] summed over axis 0 is [4, 6], used as
 * Resize's sizes. */
Test(rules_nn_reduce, content_per_axis)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_init_ints(b, "d", "2,2", (int64_t[]){1, 2, 3, 4});
	mb_init_ints(b, "ax", "1", (int64_t[]){0});
	mb_node(b, "ReduceSum", "d,ax", "sz");
	mb_attr_i(b, "keepdims", 0);
	mb_node(b, "Resize", "x,,,sz", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "sz"), "INT64 (2)");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (4, 6)");
	osh_model_free(m);
}

/* A reduction over an empty axis gives the identity: sum 0, product 1. */
Test(rules_nn_reduce, content_empty_reduction)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "3,4");
	mb_init_ints(b, "d", "2,0", NULL);
	mb_init_ints(b, "ax", "1", (int64_t[]){1});
	mb_node(b, "ReduceProd", "d", "p");
	mb_attr_ints(b, "axes", 1, (int64_t[]){1});
	mb_attr_i(b, "keepdims", 0);
	mb_node(b, "Resize", "x,,,p", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "p"), "INT64 (2)");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 1)");
	osh_model_free(m);
}

/* The brief's chain: Reshape x (N, 3, 4) to (N, prod(shape[1:3])). Shape, Slice,
 * Concat and Reshape are the tensor family's rules; ReduceProd carries the count. */
Test(rules_nn_reduce, reduce_prod_of_a_shape_slice)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3,4");
	mb_init_ints(b, "st", "1", (int64_t[]){1});
	mb_init_ints(b, "en", "1", (int64_t[]){3});
	mb_init_ints(b, "z", "1", (int64_t[]){0});
	mb_init_ints(b, "o", "1", (int64_t[]){1});
	mb_node(b, "Shape", "x", "s");
	mb_node(b, "Slice", "s,st,en", "tail");
	mb_node(b, "ReduceProd", "tail", "cnt");
	mb_node(b, "Slice", "s,z,o", "head");
	mb_node(b, "Concat", "head,cnt", "shp");
	mb_attr_i(b, "axis", 0);
	mb_node(b, "Reshape", "x,shp", "y");
	/* over the whole shape the count involves N: not a known number */
	mb_node(b, "ReduceProd", "s", "all");
	mb_attr_i(b, "keepdims", 0);
	mb_output(b, "y", 0, NULL);
	mb_output(b, "all", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "cnt"), "INT64 (1)");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 12)");
	cr_expect_str_eq(mb_type(m, "all"), "INT64 ()");
	osh_model_free(m);
}
