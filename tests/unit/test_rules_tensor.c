/* test_rules_tensor.c: Shape, Size, Constant, ConstantOfShape, Range, the generators
 * and the quantize operators, one node per row (see test_rules_tensor_dsl.h); then the
 * shape-arithmetic chains the family exists for (Shape → Gather → Unsqueeze → Concat →
 * Reshape, Shape → Slice → Expand, Shape → ConstantOfShape), built node by node.
 * Expected shapes and contents are worked out by hand from Operators.md. */
#include "test_rules_tensor_dsl.h"

static const tcase shape_cases[] = {
	{"dims as content", 13, "x:FLOAT:N,3,224", "Shape", "x", "y", "", "y=INT64 (3)", "y=[N, 3, 224]", 0},
	{"unknown dims stay unknown entries", 1, "x:FLOAT:?,3", "Shape", "x", "y", "", "y=INT64 (2)", "y=[?, 3]", 0},
	{"scalar", 13, "x:FLOAT:", "Shape", "x", "y", "", "y=INT64 (0)", "y=[]", 0},
	{"unknown rank", 13, "x:FLOAT:-", "Shape", "x", "y", "", "y=INT64 (?)", "y=none", 0},
	{"start -1", 15, "x:FLOAT:N,3,224", "Shape", "x", "y", "start=-1", "y=INT64 (1)", "y=[224]", 0},
	{"end -1", 15, "x:FLOAT:N,3,224", "Shape", "x", "y", "end=-1", "y=INT64 (2)", "y=[N, 3]", 0},
	{"start 1 end 2", 15, "x:FLOAT:N,3,224", "Shape", "x", "y", "start=1 end=2", "y=INT64 (1)", "y=[3]", 0},
	{"clipped", 15, "x:FLOAT:N,3,224", "Shape", "x", "y", "start=-10 end=10", "y=INT64 (3)", "y=[N, 3, 224]", 0},
	{"start after end", 15, "x:FLOAT:N,3,224", "Shape", "x", "y", "start=2 end=1", "y=INT64 (0)", "y=[]", 0},
	{"hostile bounds", 21, "x:FLOAT:2,3", "Shape", "x", "y", "start=-9223372036854775808 end=9223372036854775807", "y=INT64 (2)", "y=[2, 3]", 0},
	/* The shape is Shape-13's; the attribute is an attribute-error (ONNX Runtime refuses it). */
	{"start/end ignored before 15", 13, "x:FLOAT:2,3", "Shape", "x", "y", "start=1", "y=INT64 (2)", "y=[2, 3]", 1},
	{"Size known", 13, "x:FLOAT:2,3,4", "Size", "x", "y", "", "y=INT64 ()", "y=[24]", 0},
	{"Size N * 1", 1, "x:FLOAT:N,1", "Size", "x", "y", "", "y=INT64 ()", "y=[N]", 0},
	{"Size N * M", 13, "x:FLOAT:N,M", "Size", "x", "y", "", "y=INT64 ()", "y=[M*N]", 0},
	{"Size with a 0", 13, "x:FLOAT:0,N", "Size", "x", "y", "", "y=INT64 ()", "y=[0]", 0},
	{"Size of a scalar", 13, "x:FLOAT:", "Size", "x", "y", "", "y=INT64 ()", "y=[1]", 0},
};

Test(rules_tensor, shape_and_size) { RUN_TABLE(shape_cases); }

static const tcase constant_cases[] = {
	{"value tensor", 13, "", "Constant", "", "y", "value=T2x2:1,2,3,4", "y=INT64 (2, 2)", "y=[1, 2, 3, 4]", 0},
	{"value float tensor", 9, "", "Constant", "", "y", "value=F3:1.5,2,3", "y=FLOAT (3)", "y=f[1.5, 2, 3]", 0},
	{"empty value", 13, "", "Constant", "", "y", "value=T0:", "y=INT64 (0)", "y=[]", 0},
	{"value_int", 13, "", "Constant", "", "y", "value_int=7", "y=INT64 ()", "y=[7]", 0},
	{"value_ints", 12, "", "Constant", "", "y", "value_ints=[1,-2]", "y=INT64 (2)", "y=[1, -2]", 0},
	{"value_float", 13, "", "Constant", "", "y", "value_float=f2.5", "y=FLOAT ()", "y=f[2.5]", 0},
	{"value_floats", 19, "", "Constant", "", "y", "value_floats=f[1,2,3]", "y=FLOAT (3)", "y=f[1, 2, 3]", 0},
	{"value_string", 13, "", "Constant", "", "y", "value_string=hello", "y=STRING ()", NULL, 0},
	/* Constant-11 has no value_int, and a Constant takes one attribute; but ONNX
	 * Runtime makes a Constant of the main graph an initializer from its first
	 * attribute, by type, whatever the opset (a not-in-spec warning). */
	{"value_int before 12", 11, "", "Constant", "", "y", "value_int=7", "y=INT64 ()", "y=[7]", 0},
	{"nothing given", 13, "", "Constant", "", "y", "", "y=unknown", NULL, 1},
	{"two given", 13, "", "Constant", "", "y", "value_int=7 value_float=f1", "y=INT64 ()", "y=[7]", 0},
	{"ConstantOfShape default FLOAT 0", 9, "s=2:2,3", "ConstantOfShape", "s", "y", "", "y=FLOAT (2, 3)", "y=f[0, 0, 0, 0, 0, 0]", 0},
	{"ConstantOfShape INT64 value", 20, "s=2:2,3", "ConstantOfShape", "s", "y", "value=T1:5", "y=INT64 (2, 3)", "y=[5, 5, 5, 5, 5, 5]", 0},
	{"ConstantOfShape empty dim", 9, "s=1:0", "ConstantOfShape", "s", "y", "", "y=FLOAT (0)", NULL, 0},
	{"ConstantOfShape scalar", 9, "s=0:", "ConstantOfShape", "s", "y", "value=F1:1", "y=FLOAT ()", "y=f[1]", 0},
	{"ConstantOfShape runtime shape", 9, "s:INT64:3", "ConstantOfShape", "s", "y", "", "y=FLOAT (unk__0, unk__1, unk__2)", NULL, 0},
	{"ConstantOfShape negative size", 9, "s=1:-1", "ConstantOfShape", "s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"ConstantOfShape value of 2", 9, "s=1:3", "ConstantOfShape", "s", "y", "value=T2:1,2", "y=unknown", NULL, 1},
	{"ConstantOfShape shape not 1-D", 9, "s:INT64:2,2", "ConstantOfShape", "s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
};

Test(rules_tensor, constants) { RUN_TABLE(constant_cases); }

static const tcase range_cases[] = {
	{"ceil(10 / 3)", 11, "a=:0 b=:10 c=:3", "Range", "a,b,c", "y", "", "y=INT64 (4)", "y=[0, 3, 6, 9]", 0},
	{"spec example 1", 11, "a=:3 b=:9 c=:3", "Range", "a,b,c", "y", "", "y=INT64 (2)", "y=[3, 6]", 0},
	{"spec example 2", 11, "a=:10 b=:4 c=:-2", "Range", "a,b,c", "y", "", "y=INT64 (3)", "y=[10, 8, 6]", 0},
	{"empty", 11, "a=:5 b=:1 c=:1", "Range", "a,b,c", "y", "", "y=INT64 (0)", "y=[]", 0},
	{"delta 0", 11, "a=:0 b=:10 c=:0", "Range", "a,b,c", "y", "", "y=INT64 (rank unknown)", NULL, 1},
	{"floats", 11, "a~:1 b~:2 c~:0.3", "Range", "a,b,c", "y", "", "y=FLOAT (4)", NULL, 0},
	{"hostile bounds", 11, "a=:-9223372036854775808 b=:9223372036854775807 c=:1", "Range", "a,b,c", "y", "", "y=INT64 (unk__0)", NULL, 0},
	{"runtime bounds", 11, "a:INT64: b:INT64: c:INT64:", "Range", "a,b,c", "y", "", "y=INT64 (unk__0)", NULL, 0},
	{"not a scalar", 11, "a:INT64:2 b=:10 c=:1", "Range", "a,b,c", "y", "", "y=INT64 (rank unknown)", NULL, 1},
};

Test(rules_tensor, range) { RUN_TABLE(range_cases); }

static const tcase generator_cases[] = {
	{"EyeLike", 9, "x:FLOAT:3,4", "EyeLike", "x", "y", "", "y=FLOAT (3, 4)", NULL, 0},
	{"EyeLike dtype", 22, "x:FLOAT:3,N", "EyeLike", "x", "y", "dtype=7 k=1", "y=INT64 (3, N)", NULL, 0},
	{"EyeLike not 2-D", 9, "x:FLOAT:3,4,5", "EyeLike", "x", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"RandomNormal", 1, "", "RandomNormal", "", "y", "shape=[2,3]", "y=FLOAT (2, 3)", NULL, 0},
	{"RandomUniform dtype", 22, "", "RandomUniform", "", "y", "shape=[2,3] dtype=11", "y=DOUBLE (2, 3)", NULL, 0},
	{"RandomUniform bad dtype", 1, "", "RandomUniform", "", "y", "shape=[2] dtype=99", "y=? (2)", NULL, 1},
	{"RandomNormal needs shape", 1, "", "RandomNormal", "", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"RandomUniformLike", 1, "x:DOUBLE:N,2", "RandomUniformLike", "x", "y", "", "y=DOUBLE (N, 2)", NULL, 0},
	{"RandomNormalLike dtype", 22, "x:INT64:3", "RandomNormalLike", "x", "y", "dtype=10", "y=FLOAT16 (3)", NULL, 0},
	{"Multinomial", 7, "x:FLOAT:4,10", "Multinomial", "x", "y", "sample_size=5", "y=INT32 (4, 5)", NULL, 0},
	{"Multinomial INT64", 22, "x:FLOAT:B,10", "Multinomial", "x", "y", "dtype=7", "y=INT64 (B, 1)", NULL, 0},
	{"Multinomial not 2-D", 7, "x:FLOAT:10", "Multinomial", "x", "y", "", "y=INT32 (rank unknown)", NULL, 1},
	{"Bernoulli", 15, "x:FLOAT:3", "Bernoulli", "x", "y", "", "y=FLOAT (3)", NULL, 0},
	{"Bernoulli dtype", 15, "x:DOUBLE:3", "Bernoulli", "x", "y", "dtype=9", "y=BOOL (3)", NULL, 0},
	{"Det", 11, "x:FLOAT:3,2,2", "Det", "x", "y", "", "y=FLOAT (3)", NULL, 0},
	{"Det 2-D", 22, "x:FLOAT:N,N", "Det", "x", "y", "", "y=FLOAT ()", NULL, 0},
	{"Det not square", 11, "x:FLOAT:2,3", "Det", "x", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"Det of a vector", 11, "x:FLOAT:3", "Det", "x", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
};

Test(rules_tensor, generators) { RUN_TABLE(generator_cases); }

static const tcase quantize_cases[] = {
	{"QuantizeLinear default UINT8", 13, "x:FLOAT:2,3 s:FLOAT:", "QuantizeLinear", "x,s", "y", "", "y=UINT8 (2, 3)", NULL, 0},
	{"QuantizeLinear zero point's type", 10, "x:FLOAT:2,3 s:FLOAT: z:INT8:", "QuantizeLinear", "x,s,z", "y", "", "y=INT8 (2, 3)", NULL, 0},
	{"QuantizeLinear output_dtype", 21, "x:FLOAT:2,3 s:FLOAT:", "QuantizeLinear", "x,s", "y", "output_dtype=3", "y=INT8 (2, 3)", NULL, 0},
	{"QuantizeLinear output_dtype conflict", 21, "x:FLOAT:2,3 s:FLOAT: z:UINT8:", "QuantizeLinear", "x,s,z", "y", "output_dtype=3", "y=? (rank unknown)", NULL, 1},
	{"QuantizeLinear per axis", 13, "x:FLOAT:2,3 s:FLOAT:3", "QuantizeLinear", "x,s", "y", "axis=1", "y=UINT8 (2, 3)", NULL, 0},
	{"QuantizeLinear per axis mismatch", 13, "x:FLOAT:2,3 s:FLOAT:4", "QuantizeLinear", "x,s", "y", "axis=1", "y=UINT8 (rank unknown)", NULL, 1},
	{"DequantizeLinear FLOAT", 13, "x:INT8:2,3 s:FLOAT:", "DequantizeLinear", "x,s", "y", "", "y=FLOAT (2, 3)", NULL, 0},
	{"DequantizeLinear scale's type", 19, "x:INT8:2,3 s:FLOAT16:", "DequantizeLinear", "x,s", "y", "", "y=FLOAT16 (2, 3)", NULL, 0},
	{"DequantizeLinear output_dtype", 23, "x:INT8:2,3 s:FLOAT16:", "DequantizeLinear", "x,s", "y", "output_dtype=1", "y=FLOAT (2, 3)", NULL, 0},
	{"DequantizeLinear axis out of range", 13, "x:INT8:2,3 s:FLOAT:3", "DequantizeLinear", "x,s", "y", "axis=2", "y=FLOAT (rank unknown)", NULL, 1},
	{"DynamicQuantizeLinear", 11, "x:FLOAT:N,3", "DynamicQuantizeLinear", "x", "y,s,z", "", "y=UINT8 (N, 3); s=FLOAT (); z=UINT8 ()", NULL, 0},
};

Test(rules_tensor, quantize) { RUN_TABLE(quantize_cases); }

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
	cr_expect_str_eq(dsl_content(m, "shp"), "[N, 768]");
	cr_expect_str_eq(mb_type(m, "n"), "INT64 ()");
	cr_expect_str_eq(dsl_content(m, "n"), "[N]");
	cr_expect_str_eq(dsl_content(m, "n1"), "[N]");
	cr_expect_str_eq(mb_type(m, "target"), "INT64 (3)");
	cr_expect_str_eq(dsl_content(m, "target"), "[N, 12, 64]");
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
	cr_expect_str_eq(dsl_content(m, "last2"), "[S]");
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
	cr_expect_str_eq(dsl_content(m, "bs"), "[B, S]");
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
	cr_expect_str_eq(dsl_content(m, "r"), "[0, 1, 2, 3, 4]");
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
	cr_expect_str_eq(dsl_content(m, "zs"), "[1, 5]");
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
	const char *both = dsl_content(m, "both");
	cr_expect(!strcmp(both, "[N, N, 3]") || !strcmp(both, "[M, M, 3]"), "both is %s", both);
	osh_model_free(m);
}
