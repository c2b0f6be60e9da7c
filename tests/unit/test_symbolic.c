/* test_symbolic.c: sizes computed from symbols, through whole small networks, as
 * exported networks compute them (core/dimexpr.h).
 *
 * The fixtures of the symbolic-algebra issue: Flatten of (batch, seq, 64) is
 * (batch*seq, 64); resnet's strided convolutions on (N, 3, H, W) end in
 * (N, 512, floor((H + 31)/32), floor((W + 31)/32)) with its shortcut branches equal
 * to the main ones; Reshape (batch, seq, 768) to (-1, 12, 64) is (batch*seq, 12, 64).
 * And the shape computations exporters write around them: Shape → Gather → Mul →
 * Concat → Reshape, Range over a size, Slice of a position table to the sequence
 * length; --input-shape and --assume evaluating what was computed; the text written
 * out and read back as the same expression.
 */
#include <criterion/criterion.h>

#include "core/model.h"
#include "mb.h"

#include <stdio.h>

Test(symbolic, flatten_multiplies_the_leading_dims)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "batch,seq,64");
	mb_node(b, "Flatten", "x", "y");
	mb_attr_i(b, "axis", 2);
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (batch*seq, 64)");
	osh_model_free(m);
}

Test(symbolic, reshape_minus_one_is_the_quotient_of_the_counts)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "batch,seq,768");
	mb_init_ints(b, "heads", "3", (int64_t[]){-1, 12, 64});
	mb_init_ints(b, "back", "3", (int64_t[]){0, -1, 768});
	mb_node(b, "Reshape", "x,heads", "h");
	mb_node(b, "Reshape", "h,back", "r");
	mb_output(b, "r", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "h"), "FLOAT (batch*seq, 12, 64)");
	/* (batch*seq*768)/(batch*seq*768)... from h: 0 copies batch*seq, -1 is 1. */
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (batch*seq, 1, 768)");
	osh_model_free(m);
}

/* A convolution node x → y with weight w (k×k), stride s and padding p. */
static void conv(mb *b, const char *x, const char *w, const char *y, int64_t k, int64_t s, int64_t p)
{
	char inputs[64];
	snprintf(inputs, sizeof inputs, "%s,%s", x, w);
	mb_node(b, "Conv", inputs, y);
	mb_attr_ints(b, "kernel_shape", 2, (int64_t[]){k, k});
	mb_attr_ints(b, "strides", 2, (int64_t[]){s, s});
	mb_attr_ints(b, "pads", 4, (int64_t[]){p, p, p, p});
}

Test(symbolic, strided_convolutions_are_one_floor_and_shortcuts_agree)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3,H,W");
	mb_init(b, "w0", DT_FLOAT, "64,3,7,7");
	mb_init(b, "w1", DT_FLOAT, "128,64,3,3");
	mb_init(b, "w1s", DT_FLOAT, "128,64,1,1");
	mb_init(b, "w2", DT_FLOAT, "256,128,3,3");
	mb_init(b, "w3", DT_FLOAT, "512,256,3,3");
	mb_init(b, "w3s", DT_FLOAT, "512,256,1,1");
	conv(b, "x", "w0", "c0", 7, 2, 3);
	mb_node(b, "MaxPool", "c0", "p0");
	mb_attr_ints(b, "kernel_shape", 2, (int64_t[]){3, 3});
	mb_attr_ints(b, "strides", 2, (int64_t[]){2, 2});
	mb_attr_ints(b, "pads", 4, (int64_t[]){1, 1, 1, 1});
	/* Each stage: a 3x3 stride-2 branch plus a 1x1 stride-2 shortcut, added. */
	conv(b, "p0", "w1", "m1", 3, 2, 1);
	conv(b, "p0", "w1s", "s1", 1, 2, 0);
	mb_node(b, "Add", "m1,s1", "a1");
	conv(b, "a1", "w2", "a2", 3, 2, 1);
	conv(b, "a2", "w3", "m3", 3, 2, 1);
	conv(b, "a2", "w3s", "s3", 1, 2, 0);
	mb_node(b, "Add", "m3,s3", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "p0"), "FLOAT (N, 64, floor((H + 3)/4), floor((W + 3)/4))");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 512, floor((H + 31)/32), floor((W + 31)/32))");
	cr_expect_eq(mb_count(m, "symbol-constraint"), 0, "%s", mb_message(m, "symbol-constraint"));
	osh_model_free(m);
}

Test(symbolic, shape_arithmetic_builds_exact_targets)
{
	/* (batch, seq, 64) → (batch*4, seq, 16) through Shape → Gather → Mul → Concat,
	 * as an exporter splits heads. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "batch,seq,64");
	mb_init_ints(b, "i0", "", (int64_t[]){0});
	mb_init_ints(b, "i1", "", (int64_t[]){1});
	mb_init_ints(b, "four", "", (int64_t[]){4});
	mb_init_ints(b, "ax0", "1", (int64_t[]){0});
	mb_init_ints(b, "sixteen", "1", (int64_t[]){16});
	mb_node(b, "Shape", "x", "s");
	mb_node(b, "Gather", "s,i0", "bt");
	mb_node(b, "Gather", "s,i1", "sq");
	mb_node(b, "Mul", "bt,four", "b4");
	mb_node(b, "Unsqueeze", "b4,ax0", "b4u");
	mb_node(b, "Unsqueeze", "sq,ax0", "squ");
	mb_node(b, "Concat", "b4u,squ,sixteen", "target");
	mb_attr_i(b, "axis", 0);
	mb_node(b, "Reshape", "x,target", "y");
	/* Range over the sequence length, and a position table sliced to it. */
	mb_node(b, "Range", "i0,sq,i1", "pos");
	mb_init(b, "table", DT_FLOAT, "1,512,64");
	mb_init_ints(b, "start", "1", (int64_t[]){0});
	mb_init_ints(b, "axis1", "1", (int64_t[]){1});
	mb_node(b, "Slice", "table,start,squ,axis1", "posemb");
	mb_node(b, "Add", "x,posemb", "emb");
	mb_output(b, "y", 0, NULL);
	mb_output(b, "pos", 0, NULL);
	mb_output(b, "emb", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (4*batch, seq, 16)");
	cr_expect_str_eq(mb_type(m, "pos"), "INT64 (seq)");
	/* The slice is Min(512, seq) long; added to x it meets seq, which runs only
	 * where the two are equal: the fact is recorded and the slice reads as seq. */
	cr_expect_str_eq(mb_type(m, "posemb"), "FLOAT (1, seq, 64)");
	cr_expect_str_eq(mb_type(m, "emb"), "FLOAT (batch, seq, 64)");
	osh_model_free(m);
}

Test(symbolic, input_shape_and_assume_evaluate_expressions)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "batch,seq,64");
	mb_input(b, "img", DT_FLOAT, "N,3,H,W");
	mb_init(b, "w", DT_FLOAT, "8,3,3,3");
	mb_node(b, "Flatten", "x", "f");
	mb_attr_i(b, "axis", 2);
	conv(b, "img", "w", "c", 3, 2, 1);
	mb_output(b, "f", 0, NULL);
	mb_output(b, "c", 0, NULL);
	osh_dim dims[] = {{OSH_DIM_VALUE, 2, NULL}, {OSH_DIM_SYMBOL, 0, "seq"}, {OSH_DIM_VALUE, 64, NULL}};
	osh_input_shape shapes[] = {{"x", 3, dims}};
	osh_assumption assume[] = {{"seq", 7}, {"H", 224}};
	osh_infer_options o = {.n_input_shapes = 1, .input_shapes = shapes, .n_assumptions = 2, .assumptions = assume};
	osh_model *m = mb_infer_opts(b, &o);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "f"), "FLOAT (14, 64)");
	cr_expect_str_eq(mb_type(m, "c"), "FLOAT (N, 8, 112, floor((W + 1)/2))");
	osh_model_free(m);
}

Test(symbolic, written_expressions_read_back_as_the_same_size)
{
	/* A model annotated by a tool (or by onnxshape) carries batch*seq as text: read
	 * back, it meets the same size computed again, so nothing is reported. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "batch,seq,64");
	mb_input(b, "y", DT_FLOAT, "batch*seq,64");
	mb_input(b, "z", DT_FLOAT, "floor(H/32 + 31/32)");
	mb_input(b, "u", DT_FLOAT, "floor((H + 31)/32)");
	mb_node(b, "Flatten", "x", "f");
	mb_attr_i(b, "axis", 2);
	mb_node(b, "Sub", "f,y", "d");
	mb_node(b, "Sub", "z,u", "e");
	mb_output(b, "d", 0, NULL);
	mb_output(b, "e", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "d"), "FLOAT (batch*seq, 64)");
	cr_expect_str_eq(mb_type(m, "e"), "FLOAT (floor((H + 31)/32))");
	cr_expect_eq(mb_count(m, "symbol-constraint"), 0, "%s", mb_message(m, "symbol-constraint"));
	osh_model_free(m);
}
