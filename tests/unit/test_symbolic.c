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
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "core/model.h"
#include "mb.h"
#include "test_files.h"

#include <stdio.h>
#include <string.h>

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
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1, .input_shapes = shapes, .n_assumptions = 2, .assumptions = assume};
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

/* ---- declared dims as claims -------------------------------------------------------- */

/* Loads and infers a fixture of tests/models (NULL when loading failed). */
static osh_model *infer_file(const char *rel, const osh_infer_options *o)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", OSH_MODELS_DIR, rel);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s: %s", path, err.message);
	cr_assert_eq(osh_infer(m, o, &err), OSH_OK, "%s: %s", path, err.message);
	return m;
}

Test(symbolic, one_declared_name_for_two_sizes_makes_no_fact)
{
	/* ONNX Runtime, N = 2, L = 3, three rows masked: masked (2, 3, 16), picked
	 * (3, 16). Both declare Where68_dim_0 first, as PyTorch 1.13 writes them. */
	osh_model *m = infer_file("claims/where_reused.onnx", NULL);
	cr_expect_str_eq(mb_type(m, "masked"), "FLOAT (N, L, 16)");
	const char *picked = mb_type(m, "picked");
	cr_expect(strncmp(picked, "FLOAT (unk__", 12) == 0, "the picked rows are a count of their own: %s", picked);
	cr_expect_eq(mb_count(m, "shape-conflict"), 0, "%s", mb_message(m, "shape-conflict"));
	osh_model_free(m);
}

Test(symbolic, if_branches_declaring_one_name_keep_their_counts_apart)
{
	/* ONNX Runtime, x (5, 4) as the fixture's comment in test gen_claims.py: the two
	 * If outputs are (3, 4) and (2, 4), all (5, 4); every one declares lvl_dim_0. */
	osh_model *m = infer_file("claims/if_one_name.onnx", NULL);
	char a[64], b[64];
	snprintf(a, sizeof a, "%s", mb_type(m, "lvl0"));
	snprintf(b, sizeof b, "%s", mb_type(m, "lvl1"));
	cr_expect(strcmp(a, b) != 0, "two data-dependent counts stay two: %s and %s", a, b);
	cr_expect(strstr(mb_type(m, "all"), " + ") != NULL, "the Concat adds them: %s", mb_type(m, "all"));
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

Test(symbolic, a_loop_body_input_is_what_the_loop_passes)
{
	/* ONNX Runtime runs it: e (3, 5), y (1, 17). The body declares its carried input
	 * with the names an output of the main graph declares for (3, 5). */
	osh_model *m = infer_file("claims/loop_claim.onnx", NULL);
	cr_expect_eq(mb_count(m, "shape-error"), 0, "%s", mb_message(m, "shape-error"));
	cr_expect_eq(osh_model_has_errors(m), false);
	cr_expect_str_eq(mb_type(m, "e"), "FLOAT (3, 5)");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 17)");
	osh_model_free(m);
}

Test(symbolic, a_claim_fills_in_what_inference_does_not_know)
{
	/* An operator without a rule: its outputs are what the file declares. A name
	 * declared once is that size; one declared twice stands for two sizes; an
	 * input's name is the input's size. */
	mb *b = mb_new(13);
	mb_opset(b, "custom", 1);
	mb_input(b, "x", DT_FLOAT, "batch,3");
	const char *outs[] = {"p", "q", "r", "s"};
	const char *decl[] = {"once,3", "twice,3", "twice,3", "batch,3"};
	for (int i = 0; i < 4; i++) {
		mb_node(b, "NoSuchOp", "x", outs[i]);
		mb_node_domain(b, "custom");
		mb_output(b, outs[i], DT_FLOAT, decl[i]);
	}
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "p"), "FLOAT (once, 3)");
	cr_expect_str_eq(mb_type(m, "q"), "FLOAT (twice_1, 3)");
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (twice_2, 3)");
	cr_expect_str_eq(mb_type(m, "s"), "FLOAT (batch, 3)");
	osh_model_free(m);
}

Test(symbolic, an_output_declared_static_does_not_pin_an_input_made_dynamic)
{
	/* --input-shape x:N,3 on a model exported with x (1, 3): y declared (1, 3) is
	 * what ran then, not a fact about N. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "1,3");
	mb_node(b, "Relu", "x", "y");
	mb_output(b, "y", DT_FLOAT, "1,3");
	osh_dim dims[] = {{OSH_DIM_SYMBOL, 0, "N"}, {OSH_DIM_VALUE, 3, NULL}};
	osh_input_shape shapes[] = {{"x", 2, dims}};
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1, .input_shapes = shapes};
	osh_model *m = mb_infer_opts(b, &o);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 3)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

Test(symbolic, half_a_length_sliced_is_half_the_length)
{
	/* TopK of floor(L/2) along L, and x[:, :floor(L/2)] added to it: the slice is
	 * Min(L, floor(L/2)) long, which is floor(L/2) as sizes are never negative. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "B,L");
	mb_init_ints(b, "one", "", (int64_t[]){1});
	mb_init_ints(b, "two", "", (int64_t[]){2});
	mb_init_ints(b, "ax0", "1", (int64_t[]){0});
	mb_init_ints(b, "zero1", "1", (int64_t[]){0});
	mb_init_ints(b, "ax1", "1", (int64_t[]){1});
	mb_node(b, "Shape", "x", "s");
	mb_node(b, "Gather", "s,one", "len");
	mb_node(b, "Div", "len,two", "half");
	mb_node(b, "Unsqueeze", "half,ax0", "k");
	mb_node(b, "TopK", "x,k", "top,idx");
	mb_node(b, "Slice", "x,zero1,k,ax1", "head");
	mb_node(b, "Add", "top,head", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "head"), "FLOAT (B, floor(L/2))");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (B, floor(L/2))");
	cr_expect_eq(mb_count(m, "symbol-constraint"), 0, "%s", mb_message(m, "symbol-constraint"));
	osh_model_free(m);
}

/* ---- dim_param text through the tool ------------------------------------------------ */

/* Dim k of value `name` of the main graph as the file at path declares it: its
 * dim_param's text, or "=N" for a dim_value (loaded, not inferred: what the file
 * says). */
static char *declared_dim(const char *path, const char *name, int k)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s: %s", path, err.message);
	char *text = NULL;
	for (size_t i = 0; i < osh_graph_value_count(m, 0) && !text; i++) {
		osh_value_info vi;
		cr_assert(osh_graph_value_at(m, 0, i, &vi));
		if (strcmp(vi.name, name) != 0)
			continue;
		cr_assert(vi.type.rank > k, "%s: '%s' has rank %d", path, name, vi.type.rank);
		const osh_dim *d = &vi.type.dims[k];
		if (d->kind == OSH_DIM_VALUE)
			cr_assert(asprintf(&text, "=%lld", (long long)d->value) > 0);
		else
			text = strdup(d->kind == OSH_DIM_SYMBOL ? d->symbol : "?");
	}
	osh_model_free(m);
	cr_assert_not_null(text, "%s: no value '%s'", path, name);
	return text;
}

/* `check` of path finds nothing: no error, no warning, no symbol-constraint note. */
static void expect_quiet_check(const char *dir, const char *path)
{
	cli_result r = cli_run(dir, 0, (const char *const[]){"onnxshape", "check", path, NULL});
	cr_expect_eq(r.status, 0, "check %s: exit %d\n%s%s", path, r.status, r.out, r.err);
	cr_expect(!strstr(r.out, ": error:") && !strstr(r.out, ": warning:") && !strstr(r.out, "[symbol-constraint]"),
		  "check %s:\n%s", path, r.out);
	free(r.out), free(r.err);
}

/* infer in -o out with extra arguments (NULL-terminated). */
static void run_infer(const char *dir, const char *in, const char *out, const char *a1, const char *a2,
		      const char *a3, const char *a4)
{
	const char *argv[] = {"onnxshape", "infer", in, "-o", out, a1, a2, a3, a4, NULL};
	cli_result r = cli_run(dir, 0, argv);
	cr_assert_eq(r.status, 0, "infer %s: exit %d\n%s%s", in, r.status, r.out, r.err);
	free(r.out), free(r.err);
}

Test(symbolic, texts_whose_value_is_a_number_are_names)
{
	/* ONNX Runtime reads each as a name and runs the model with any sizes. `a - b`
	 * is an expression, which no --assume makes a negative size. */
	char *dir = make_tmpdir_for("dim_param");
	char *out = path_in(dir, "out.onnx"), *assumed = path_in(dir, "assumed.onnx");
	run_infer(dir, OSH_MODELS_DIR "/dim_param/number_texts.onnx", out, NULL, NULL, NULL, NULL);
	run_infer(dir, OSH_MODELS_DIR "/dim_param/number_texts.onnx", assumed, "--assume", "a=1", "--assume", "b=5");
	const char *want[][2] = {{"x_out", "1 - 2"}, {"y_out", "a - a - 5"}, {"z_out", "a - b"}};
	for (size_t i = 0; i < 3; i++) {
		for (int pass = 0; pass < 2; pass++) {
			char *got = declared_dim(pass ? assumed : out, want[i][0], 0);
			cr_expect_str_eq(got, want[i][1], "%s of %s", want[i][0], pass ? "the assumed run" : "infer");
			free(got);
		}
	}
	expect_quiet_check(dir, out);
	expect_quiet_check(dir, assumed);
	free(out), free(assumed);
	remove_dir(dir);
}

Test(symbolic, odd_names_doubled_read_back_as_themselves)
{
	/* The Concat of each input with itself: ONNX Runtime gives twice the rows, and
	 * the written size reads back, in `infer` again and in `check`, as that. */
	char *dir = make_tmpdir_for("dim_param");
	char *once = path_in(dir, "once.onnx"), *again = path_in(dir, "again.onnx");
	run_infer(dir, OSH_MODELS_DIR "/dim_param/odd_names.onnx", once, NULL, NULL, NULL, NULL);
	run_infer(dir, once, again, NULL, NULL, NULL, NULL);
	const char *want[][2] = {{"h2", "2*`batch-size`"}, {"s2", "2*`my dim`"}, {"d2", "2*conv.out.0"},
				 {"p2", "2*`feat/len`"}, {"q2", "2*`a``b`"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char *a = declared_dim(once, want[i][0], 0), *b = declared_dim(again, want[i][0], 0);
		cr_expect_str_eq(a, want[i][1]);
		cr_expect_str_eq(b, want[i][1], "read back and written again");
		free(a), free(b);
	}
	char *h = declared_dim(again, "h", 0);
	cr_expect_str_eq(h, "batch-size");
	free(h);
	expect_quiet_check(dir, once);
	expect_quiet_check(dir, again);
	free(once), free(again);
	remove_dir(dir);
}

Test(symbolic, strided_picks_of_a_multiple_are_equal)
{
	/* Box decoding's x[:, k::4] on a row of 4*L: every pick is L long (ONNX
	 * Runtime: (2, 12) gives four (2, 3)), and subtracting one from another is no
	 * constraint. Of a length C it knows nothing about, x[:, 1::4] is
	 * floor((C + 2)/4) (0 for C = 0 and C = 1). */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,L");
	mb_input(b, "y", DT_FLOAT, "N,C");
	mb_node(b, "Concat", "x,x,x,x", "row");
	mb_attr_i(b, "axis", 1);
	mb_init_ints(b, "ax1", "1", (int64_t[]){1});
	mb_init_ints(b, "end", "1", (int64_t[]){INT64_MAX});
	mb_init_ints(b, "four", "1", (int64_t[]){4});
	const char *picks[] = {"p0", "p1", "p2", "p3"};
	for (int k = 0; k < 4; k++) {
		char start[8], inputs[64];
		snprintf(start, sizeof start, "s%d", k);
		mb_init_ints(b, start, "1", (int64_t[]){k});
		snprintf(inputs, sizeof inputs, "row,%s,end,ax1,four", start);
		mb_node(b, "Slice", inputs, picks[k]);
	}
	mb_node(b, "Sub", "p0,p2", "d02");
	mb_node(b, "Sub", "p1,p3", "d13");
	mb_node(b, "Slice", "y,s1,end,ax1,four", "q1");
	mb_output(b, "d02", 0, NULL);
	mb_output(b, "d13", 0, NULL);
	mb_output(b, "q1", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	for (int k = 0; k < 4; k++)
		cr_expect_str_eq(mb_type(m, picks[k]), "FLOAT (N, L)", "pick %d", k);
	cr_expect_str_eq(mb_type(m, "q1"), "FLOAT (N, floor((C + 2)/4))");
	cr_expect_eq(mb_count(m, "symbol-constraint"), 0, "%s", mb_message(m, "symbol-constraint"));
	osh_model_free(m);
}

Test(symbolic, a_float_range_over_a_cast_size_has_that_many_elements)
{
	/* A positional encoding over a subsampled length: Range(0.0, Cast<float>(T),
	 * 1.0), T = floor((L + 1)/2) after x[:, ::2], added to the subsampled input
	 * (ONNX Runtime: L = 7 gives four positions and (N, 4, 16)). */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,L,16");
	mb_init_ints(b, "zero1", "1", (int64_t[]){0});
	mb_init_ints(b, "end", "1", (int64_t[]){INT64_MAX});
	mb_init_ints(b, "ax1", "1", (int64_t[]){1});
	mb_init_ints(b, "two1", "1", (int64_t[]){2});
	mb_init_ints(b, "one", "", (int64_t[]){1});
	mb_init_floats(b, "f0", "", (float[]){0.0f});
	mb_init_floats(b, "f1", "", (float[]){1.0f});
	mb_node(b, "Slice", "x,zero1,end,ax1,two1", "sub");
	mb_node(b, "Shape", "sub", "s");
	mb_node(b, "Gather", "s,one", "t");
	mb_node(b, "Cast", "t", "tf");
	mb_attr_i(b, "to", DT_FLOAT);
	mb_node(b, "Range", "f0,tf,f1", "pos");
	mb_init_ints(b, "ax01", "2", (int64_t[]){0, 2});
	mb_node(b, "Unsqueeze", "pos,ax01", "pe");
	mb_node(b, "Add", "sub,pe", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "pos"), "FLOAT (floor((L + 1)/2))");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, floor((L + 1)/2), 16)");
	cr_expect_eq(mb_count(m, "symbol-constraint"), 0, "%s", mb_message(m, "symbol-constraint"));
	osh_model_free(m);
}

Test(symbolic, a_claim_keeps_its_name_when_a_rewrite_infers_again)
{
	/* explicit_broadcast edits the graph, which is then indexed and inferred
	 * again: the name declared once for the unknown operator's output is still
	 * declared once, and the output keeps it. */
	char *dir = make_tmpdir_for("claims");
	char *in = path_in(dir, "in.onnx");
	mb *b = mb_new(13);
	mb_opset(b, "custom", 1);
	mb_input(b, "x", DT_FLOAT, "batch,3");
	mb_init(b, "bias", DT_FLOAT, "3");
	mb_node(b, "Add", "x,bias", "a");
	mb_node(b, "NoSuchOp", "a", "p");
	mb_node_domain(b, "custom");
	mb_output(b, "p", DT_FLOAT, "once,3");
	mb_save(b, in);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, in, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_expect_str_eq(mb_type(m, "p"), "FLOAT (once, 3)");
	osh_rewrite_options o = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = true};
	osh_rewrite_report report;
	cr_assert_eq(osh_rewrite(m, &o, &report, &err), OSH_OK, "%s", err.message);
	cr_assert(report.n_expand > 0 || report.n_explicit > 0, "the rewrite edited the graph");
	cr_expect_str_eq(mb_type(m, "p"), "FLOAT (once, 3)");
	osh_model_free(m);
	free(in);
	remove_dir(dir);
}
