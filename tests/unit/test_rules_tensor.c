/* test_rules_tensor.c: Shape, Size, Constant, ConstantOfShape, Range, the generators
 * and the quantize operators, one node per row (see tests/support/rule_case.h); then the
 * shape-arithmetic chains the family exists for (Shape → Gather → Unsqueeze → Concat →
 * Reshape, Shape → Slice → Expand, Shape → ConstantOfShape), built node by node.
 * Expected shapes and contents are worked out by hand from Operators.md. */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case shape_cases[] = {
	{"dims as content", 13, "Shape", "x", "y", .decls = "x:FLOAT:N,3,224", .expect = {"INT64 (3)"},
	 .content = {"[N, 3, 224]"}},
	{"unknown dims stay unknown entries", 1, "Shape", "x", "y", .decls = "x:FLOAT:?,3", .expect = {"INT64 (2)"},
	 .content = {"[?, 3]"}},
	{"scalar", 13, "Shape", "x", "y", .decls = "x:FLOAT:", .expect = {"INT64 (0)"}, .content = {"[]"}},
	{"unknown rank", 13, "Shape", "x", "y", .decls = "x:FLOAT:*", .expect = {"INT64 (?)"}, .content = {"none"}},
	{"start -1", 15, "Shape", "x", "y", .decls = "x:FLOAT:N,3,224", .attrs = "i:start=-1",
	 .expect = {"INT64 (1)"}, .content = {"[224]"}},
	{"end -1", 15, "Shape", "x", "y", .decls = "x:FLOAT:N,3,224", .attrs = "i:end=-1", .expect = {"INT64 (2)"},
	 .content = {"[N, 3]"}},
	{"start 1 end 2", 15, "Shape", "x", "y", .decls = "x:FLOAT:N,3,224", .attrs = "i:start=1|i:end=2",
	 .expect = {"INT64 (1)"}, .content = {"[3]"}},
	{"clipped", 15, "Shape", "x", "y", .decls = "x:FLOAT:N,3,224", .attrs = "i:start=-10|i:end=10",
	 .expect = {"INT64 (3)"}, .content = {"[N, 3, 224]"}},
	{"start after end", 15, "Shape", "x", "y", .decls = "x:FLOAT:N,3,224", .attrs = "i:start=2|i:end=1",
	 .expect = {"INT64 (0)"}, .content = {"[]"}},
	{"hostile bounds", 21, "Shape", "x", "y", .decls = "x:FLOAT:2,3",
	 .attrs = "i:start=-9223372036854775808|i:end=9223372036854775807", .expect = {"INT64 (2)"},
	 .content = {"[2, 3]"}},
	/* The shape is Shape-13's; the attribute is an attribute-error (ONNX Runtime refuses it). */
	{"start/end ignored before 15", 13, "Shape", "x", "y", .decls = "x:FLOAT:2,3", .attrs = "i:start=1",
	 .expect = {"INT64 (2)"}, .content = {"[2, 3]"}, .findings = 1},
	{"Size known", 13, "Size", "x", "y", .decls = "x:FLOAT:2,3,4", .expect = {"INT64 ()"}, .content = {"[24]"}},
	{"Size N * 1", 1, "Size", "x", "y", .decls = "x:FLOAT:N,1", .expect = {"INT64 ()"}, .content = {"[N]"}},
	{"Size N * M", 13, "Size", "x", "y", .decls = "x:FLOAT:N,M", .expect = {"INT64 ()"}, .content = {"[M*N]"}},
	{"Size with a 0", 13, "Size", "x", "y", .decls = "x:FLOAT:0,N", .expect = {"INT64 ()"}, .content = {"[0]"}},
	{"Size of a scalar", 13, "Size", "x", "y", .decls = "x:FLOAT:", .expect = {"INT64 ()"}, .content = {"[1]"}},
};

Test(rules_tensor, shape_and_size) { RULE_CASES(shape_cases); }

static const rule_case constant_cases[] = {
	{"value tensor", 13, "Constant", "", "y", .attrs = "t:value=2,2:1,2,3,4", .expect = {"INT64 (2, 2)"},
	 .content = {"[1, 2, 3, 4]"}},
	{"value float tensor", 9, "Constant", "", "y", .attrs = "ft:value=3:1.5,2,3", .expect = {"FLOAT (3)"},
	 .content = {"f[1.5, 2, 3]"}},
	{"empty value", 13, "Constant", "", "y", .attrs = "t:value=0:", .expect = {"INT64 (0)"}, .content = {"[]"}},
	{"value_int", 13, "Constant", "", "y", .attrs = "i:value_int=7", .expect = {"INT64 ()"}, .content = {"[7]"}},
	{"value_ints", 12, "Constant", "", "y", .attrs = "is:value_ints=1,-2", .expect = {"INT64 (2)"},
	 .content = {"[1, -2]"}},
	{"value_float", 13, "Constant", "", "y", .attrs = "f:value_float=2.5", .expect = {"FLOAT ()"},
	 .content = {"f[2.5]"}},
	{"value_floats", 19, "Constant", "", "y", .attrs = "fs:value_floats=1,2,3", .expect = {"FLOAT (3)"},
	 .content = {"f[1, 2, 3]"}},
	{"value_string", 13, "Constant", "", "y", .attrs = "s:value_string=hello", .expect = {"STRING ()"}},
	/* Constant-11 has no value_int, and a Constant takes one attribute; but ONNX
	 * Runtime makes a Constant of the main graph an initializer from its first
	 * attribute, by type, whatever the opset (a not-in-spec warning). */
	{"value_int before 12", 11, "Constant", "", "y", .attrs = "i:value_int=7", .expect = {"INT64 ()"},
	 .content = {"[7]"}},
	{"nothing given", 13, "Constant", "", "y", .expect = {"unknown"}, .findings = 1},
	{"two given", 13, "Constant", "", "y", .attrs = "i:value_int=7|f:value_float=1", .expect = {"INT64 ()"},
	 .content = {"[7]"}},
	{"ConstantOfShape default FLOAT 0", 9, "ConstantOfShape", "s", "y", .ints = "s:2:2,3",
	 .expect = {"FLOAT (2, 3)"}, .content = {"f[0, 0, 0, 0, 0, 0]"}},
	{"ConstantOfShape INT64 value", 20, "ConstantOfShape", "s", "y", .ints = "s:2:2,3", .attrs = "t:value=1:5",
	 .expect = {"INT64 (2, 3)"}, .content = {"[5, 5, 5, 5, 5, 5]"}},
	{"ConstantOfShape empty dim", 9, "ConstantOfShape", "s", "y", .ints = "s:1:0", .expect = {"FLOAT (0)"}},
	{"ConstantOfShape scalar", 9, "ConstantOfShape", "s", "y", .ints = "s:0:", .attrs = "ft:value=1:1",
	 .expect = {"FLOAT ()"}, .content = {"f[1]"}},
	{"ConstantOfShape runtime shape", 9, "ConstantOfShape", "s", "y", .decls = "s:INT64:3",
	 .expect = {"FLOAT (unk__0, unk__1, unk__2)"}},
	{"ConstantOfShape negative size", 9, "ConstantOfShape", "s", "y", .ints = "s:1:-1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"ConstantOfShape value of 2", 9, "ConstantOfShape", "s", "y", .ints = "s:1:3", .attrs = "t:value=2:1,2",
	 .expect = {"unknown"}, .findings = 1},
	{"ConstantOfShape shape not 1-D", 9, "ConstantOfShape", "s", "y", .decls = "s:INT64:2,2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
};

Test(rules_tensor, constants) { RULE_CASES(constant_cases); }

static const rule_case range_cases[] = {
	{"ceil(10 / 3)", 11, "Range", "a,b,c", "y", .ints = "a::0|b::10|c::3", .expect = {"INT64 (4)"},
	 .content = {"[0, 3, 6, 9]"}},
	{"spec example 1", 11, "Range", "a,b,c", "y", .ints = "a::3|b::9|c::3", .expect = {"INT64 (2)"},
	 .content = {"[3, 6]"}},
	{"spec example 2", 11, "Range", "a,b,c", "y", .ints = "a::10|b::4|c::-2", .expect = {"INT64 (3)"},
	 .content = {"[10, 8, 6]"}},
	{"empty", 11, "Range", "a,b,c", "y", .ints = "a::5|b::1|c::1", .expect = {"INT64 (0)"}, .content = {"[]"}},
	{"delta 0", 11, "Range", "a,b,c", "y", .ints = "a::0|b::10|c::0", .expect = {"INT64 (rank unknown)"},
	 .findings = 1},
	{"floats", 11, "Range", "a,b,c", "y", .floats = "a::1|b::2|c::0.3", .expect = {"FLOAT (4)"}},
	{"hostile bounds", 11, "Range", "a,b,c", "y", .ints = "a::-9223372036854775808|b::9223372036854775807|c::1",
	 .expect = {"INT64 (unk__0)"}},
	{"runtime bounds", 11, "Range", "a,b,c", "y", .decls = "a:INT64:|b:INT64:|c:INT64:",
	 .expect = {"INT64 (unk__0)"}},
	{"not a scalar", 11, "Range", "a,b,c", "y", .decls = "a:INT64:2", .ints = "b::10|c::1",
	 .expect = {"INT64 (rank unknown)"}, .findings = 1},
};

Test(rules_tensor, range) { RULE_CASES(range_cases); }

static const rule_case generator_cases[] = {
	{"EyeLike", 9, "EyeLike", "x", "y", .decls = "x:FLOAT:3,4", .expect = {"FLOAT (3, 4)"}},
	{"EyeLike dtype", 22, "EyeLike", "x", "y", .decls = "x:FLOAT:3,N", .attrs = "i:dtype=7|i:k=1",
	 .expect = {"INT64 (3, N)"}},
	{"EyeLike not 2-D", 9, "EyeLike", "x", "y", .decls = "x:FLOAT:3,4,5", .expect = {"FLOAT (rank unknown)"},
	 .findings = 1},
	{"RandomNormal", 1, "RandomNormal", "", "y", .attrs = "is:shape=2,3", .expect = {"FLOAT (2, 3)"}},
	{"RandomUniform dtype", 22, "RandomUniform", "", "y", .attrs = "is:shape=2,3|i:dtype=11",
	 .expect = {"DOUBLE (2, 3)"}},
	{"RandomUniform bad dtype", 1, "RandomUniform", "", "y", .attrs = "is:shape=2|i:dtype=99",
	 .expect = {"? (2)"}, .findings = 1},
	{"RandomNormal needs shape", 1, "RandomNormal", "", "y", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"RandomUniformLike", 1, "RandomUniformLike", "x", "y", .decls = "x:DOUBLE:N,2", .expect = {"DOUBLE (N, 2)"}},
	{"RandomNormalLike dtype", 22, "RandomNormalLike", "x", "y", .decls = "x:INT64:3", .attrs = "i:dtype=10",
	 .expect = {"FLOAT16 (3)"}},
	{"Multinomial", 7, "Multinomial", "x", "y", .decls = "x:FLOAT:4,10", .attrs = "i:sample_size=5",
	 .expect = {"INT32 (4, 5)"}},
	{"Multinomial INT64", 22, "Multinomial", "x", "y", .decls = "x:FLOAT:B,10", .attrs = "i:dtype=7",
	 .expect = {"INT64 (B, 1)"}},
	{"Multinomial not 2-D", 7, "Multinomial", "x", "y", .decls = "x:FLOAT:10", .expect = {"INT32 (rank unknown)"},
	 .findings = 1},
	{"Bernoulli", 15, "Bernoulli", "x", "y", .decls = "x:FLOAT:3", .expect = {"FLOAT (3)"}},
	{"Bernoulli dtype", 15, "Bernoulli", "x", "y", .decls = "x:DOUBLE:3", .attrs = "i:dtype=9",
	 .expect = {"BOOL (3)"}},
	{"Det", 11, "Det", "x", "y", .decls = "x:FLOAT:3,2,2", .expect = {"FLOAT (3)"}},
	{"Det 2-D", 22, "Det", "x", "y", .decls = "x:FLOAT:N,N", .expect = {"FLOAT ()"}},
	{"Det not square", 11, "Det", "x", "y", .decls = "x:FLOAT:2,3", .expect = {"FLOAT (rank unknown)"},
	 .findings = 1},
	{"Det of a vector", 11, "Det", "x", "y", .decls = "x:FLOAT:3", .expect = {"FLOAT (rank unknown)"},
	 .findings = 1},
};

Test(rules_tensor, generators) { RULE_CASES(generator_cases); }

static const rule_case quantize_cases[] = {
	{"QuantizeLinear default UINT8", 13, "QuantizeLinear", "x,s", "y", .decls = "x:FLOAT:2,3|s:FLOAT:",
	 .expect = {"UINT8 (2, 3)"}},
	{"QuantizeLinear zero point's type", 10, "QuantizeLinear", "x,s,z", "y",
	 .decls = "x:FLOAT:2,3|s:FLOAT:|z:INT8:", .expect = {"INT8 (2, 3)"}},
	{"QuantizeLinear output_dtype", 21, "QuantizeLinear", "x,s", "y", .decls = "x:FLOAT:2,3|s:FLOAT:",
	 .attrs = "i:output_dtype=3", .expect = {"INT8 (2, 3)"}},
	{"QuantizeLinear output_dtype conflict", 21, "QuantizeLinear", "x,s,z", "y",
	 .decls = "x:FLOAT:2,3|s:FLOAT:|z:UINT8:", .attrs = "i:output_dtype=3", .expect = {"? (rank unknown)"},
	 .findings = 1},
	{"QuantizeLinear per axis", 13, "QuantizeLinear", "x,s", "y", .decls = "x:FLOAT:2,3|s:FLOAT:3",
	 .attrs = "i:axis=1", .expect = {"UINT8 (2, 3)"}},
	{"QuantizeLinear per axis mismatch", 13, "QuantizeLinear", "x,s", "y", .decls = "x:FLOAT:2,3|s:FLOAT:4",
	 .attrs = "i:axis=1", .expect = {"UINT8 (rank unknown)"}, .findings = 1},
	{"DequantizeLinear FLOAT", 13, "DequantizeLinear", "x,s", "y", .decls = "x:INT8:2,3|s:FLOAT:",
	 .expect = {"FLOAT (2, 3)"}},
	{"DequantizeLinear scale's type", 19, "DequantizeLinear", "x,s", "y", .decls = "x:INT8:2,3|s:FLOAT16:",
	 .expect = {"FLOAT16 (2, 3)"}},
	{"DequantizeLinear output_dtype", 23, "DequantizeLinear", "x,s", "y", .decls = "x:INT8:2,3|s:FLOAT16:",
	 .attrs = "i:output_dtype=1", .expect = {"FLOAT (2, 3)"}},
	{"DequantizeLinear axis out of range", 13, "DequantizeLinear", "x,s", "y", .decls = "x:INT8:2,3|s:FLOAT:3",
	 .attrs = "i:axis=2", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"DynamicQuantizeLinear", 11, "DynamicQuantizeLinear", "x", "y,s,z", .decls = "x:FLOAT:N,3",
	 .expect = {"UINT8 (N, 3)", "FLOAT ()", "UINT8 ()"}},
};

Test(rules_tensor, quantize) { RULE_CASES(quantize_cases); }

/* ---- chains --------------------------------------------------------------------- */

/* The flagship: Reshape to [N, 12, 64] where N is a graph input's dim_param, the target
 * computed from the input's own shape: Shape → Gather(0) → Unsqueeze → Concat with the
 * constant [12, 64]. */
static void flagship(int64_t opset, bool constant_node)
{
	mb *b = mb_new(opset);
	mb_input(b, "x", DT_FLOAT, "N,768");
	mb_init_ints(b, "zero", "", (int64_t[]){0});
	mb_node(b, "Shape", "x", "shp");
	mb_node(b, "Gather", "shp,zero", "n");
	mb_attr_i(b, "axis", 0);
	if (opset >= 13) {
		mb_init_ints(b, "axes", "1", (int64_t[]){0});
		mb_node(b, "Unsqueeze", "n,axes", "n1");
	} else {
		mb_node(b, "Unsqueeze", "n", "n1");
		mb_attr_ints(b, "axes", 1, (int64_t[]){0});
	}
	if (constant_node) {
		mb_node(b, "Constant", "", "tail");
		mb_attr_tensor_ints(b, "value", "2", (int64_t[]){12, 64});
	} else {
		mb_init_ints(b, "tail", "2", (int64_t[]){12, 64});
	}
	mb_node(b, "Concat", "n1,tail", "target");
	mb_attr_i(b, "axis", 0);
	mb_node(b, "Reshape", "x,target", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "shp"), "INT64 (2)");
	cr_expect_str_eq(rule_case_content(m, "shp"), "[N, 768]");
	cr_expect_str_eq(mb_type(m, "n"), "INT64 ()");
	cr_expect_str_eq(rule_case_content(m, "n"), "[N]");
	cr_expect_str_eq(rule_case_content(m, "n1"), "[N]");
	cr_expect_str_eq(mb_type(m, "target"), "INT64 (3)");
	cr_expect_str_eq(rule_case_content(m, "target"), "[N, 12, 64]");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 12, 64)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

Test(rules_tensor, flagship_reshape_opset13) { flagship(13, false); }
Test(rules_tensor, flagship_reshape_opset11_constant) { flagship(11, true); }

/* Reshape (B, S, 768) → [0, 0, 12, -1]: -1 solved with the symbols cancelled. */
Test(rules_tensor, reshape_heads_symbolic)
{
	mb *b = mb_new(14);
	mb_input(b, "x", DT_FLOAT, "B,S,768");
	mb_init_ints(b, "s", "4", (int64_t[]){0, 0, 12, -1});
	mb_node(b, "Reshape", "x,s", "y");
	mb_node(b, "Transpose", "y", "t");
	mb_attr_ints(b, "perm", 4, (int64_t[]){0, 2, 1, 3});
	mb_node(b, "Shape", "t", "ts");
	mb_init_ints(b, "minus", "1", (int64_t[]){-1});
	mb_init_ints(b, "k2", "1", (int64_t[]){2});
	mb_node(b, "Slice", "ts,k2,minus", "last2");
	mb_output(b, "t", 0, NULL);
	mb_output(b, "last2", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (B, S, 12, 64)");
	cr_expect_str_eq(mb_type(m, "t"), "FLOAT (B, 12, S, 64)");
	cr_expect_str_eq(rule_case_content(m, "last2"), "[S]");
	osh_model_free(m);
}

/* Shape → Slice → Expand: a (1,) tensor expanded to the first two dims of x. */
Test(rules_tensor, shape_slice_expand)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "B,S,64");
	mb_input(b, "v", DT_FLOAT, "1");
	mb_init_ints(b, "zero", "1", (int64_t[]){0});
	mb_init_ints(b, "two", "1", (int64_t[]){2});
	mb_node(b, "Shape", "x", "shp");
	mb_node(b, "Slice", "shp,zero,two", "bs");
	mb_node(b, "Expand", "v,bs", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(rule_case_content(m, "bs"), "[B, S]");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (B, S)");
	osh_model_free(m);
}

/* ConstantOfShape of a Shape: the zeros have the input's shape, symbols included. */
Test(rules_tensor, constant_of_shape_from_shape)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,4");
	mb_node(b, "Shape", "x", "shp");
	mb_node(b, "ConstantOfShape", "shp", "y");
	mb_attr_tensor_ints(b, "value", "1", (int64_t[]){1});
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "INT64 (N, 4)");
	osh_model_free(m);
}

/* Range whose bounds come from a Shape: its length is the dim. */
Test(rules_tensor, range_from_shape_content)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,5");
	mb_init_ints(b, "one", "", (int64_t[]){1});
	mb_init_ints(b, "zero", "", (int64_t[]){0});
	mb_node(b, "Shape", "x", "shp");
	mb_node(b, "Gather", "shp,one", "len");
	mb_node(b, "Range", "zero,len,one", "r");
	mb_output(b, "r", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "r"), "INT64 (5)");
	cr_expect_str_eq(rule_case_content(m, "r"), "[0, 1, 2, 3, 4]");
	osh_model_free(m);
}

/* Squeezing a symbolic axis asserts it is 1: the fact reaches other uses of N. */
Test(rules_tensor, squeeze_binds_symbol)
{
	mb *b = mb_new(11);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "z", DT_FLOAT, "N,5");
	mb_node(b, "Squeeze", "x", "y");
	mb_attr_ints(b, "axes", 1, (int64_t[]){0});
	mb_node(b, "Shape", "z", "zs");
	mb_output(b, "y", 0, NULL);
	mb_output(b, "zs", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (3)");
	cr_expect_str_eq(rule_case_content(m, "zs"), "[1, 5]");
	osh_model_free(m);
}

/* A Concat of two symbols that must agree records N = M. */
Test(rules_tensor, concat_unifies_symbols)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "N,3");
	mb_input(b, "c", DT_FLOAT, "M,4");
	mb_input(b, "d", DT_FLOAT, "M");
	mb_node(b, "Concat", "a,c", "y");
	mb_attr_i(b, "axis", 1);
	mb_node(b, "Shape", "d", "ds");
	mb_node(b, "Shape", "a", "as");
	mb_node(b, "Concat", "ds,as", "both");
	mb_attr_i(b, "axis", 0);
	mb_output(b, "y", 0, NULL);
	mb_output(b, "both", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	/* the two entries are one symbol now, whichever name it prints with */
	const char *both = rule_case_content(m, "both");
	cr_expect(!strcmp(both, "[N, N, 3]") || !strcmp(both, "[M, M, 3]"), "both is %s", both);
	osh_model_free(m);
}
