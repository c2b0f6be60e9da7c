/* test_functions.c: inference through model-local functions (ModelProto.functions).
 *
 * Fixtures: tests/models/functions/, made by gen_functions.py beside them. Each call's
 * outputs must be what the function body computes for that call's input types and
 * attributes; the expected shapes follow from the ONNX operator definitions (noted
 * per case) and, for the first three models, agree with ONNX Runtime (see the
 * generator).
 */
#include "mb.h"

#include <criterion/criterion.h>
#include <string.h>

#define FN_DIR OSH_MODELS_DIR "/functions"

static osh_model *load_infer(const char *file)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, file, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_not(osh_model_is_malformed(m), "%s is malformed", file);
	cr_assert_eq(osh_infer(m, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .ignore_declared = true}, &err), OSH_OK, "%s", err.message);
	return m;
}

static int count_code(osh_model *m, const char *code)
{
	int n = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		n += !strcmp(osh_model_diag_at(m, i)->code, code);
	return n;
}

/* MatMul (N, 4) x (4, 8), + (8,), Relu: (N, 8); again with (8, 3), (3,): (N, 3). */
Test(functions, body_is_inferred_per_call)
{
	osh_model *m = load_infer(FN_DIR "/fn_linear_relu.onnx");
	cr_expect_str_eq(mb_type(m, "h"), "FLOAT (N, 8)");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 3)");
	cr_expect_eq(count_code(m, "unknown-op"), 0);
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

/* Flatten of (2, 3, 4, 5) at axis 2: (6, 20); at 0: (1, 120); the call without the
 * attribute gets Flatten's default axis 1: (2, 60). */
Test(functions, attribute_references_read_the_call)
{
	osh_model *m = load_infer(FN_DIR "/fn_attr_ref.onnx");
	cr_expect_str_eq(mb_type(m, "a"), "FLOAT (6, 20)");
	cr_expect_str_eq(mb_type(m, "b"), "FLOAT (1, 120)");
	cr_expect_str_eq(mb_type(m, "c"), "FLOAT (2, 60)");
	osh_model_free(m);
}

/* Outer passes its `perm` to Inner's `p`, which is Transpose's perm: [2, 0, 1] on
 * (2, 3, 4) gives (4, 2, 3). */
Test(functions, references_chain_through_nested_calls)
{
	osh_model *m = load_infer(FN_DIR "/fn_nested.onnx");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (4, 2, 3)");
	cr_expect_eq(count_code(m, "unknown-op"), 0);
	osh_model_free(m);
}

/* The body imports opset 11 (Unsqueeze with axes as an attribute), the model 13. The
 * IR would resolve the body at 11; ONNX Runtime inlines it into the model and
 * resolves it at 13, where Unsqueeze takes its axes as a second input: it refuses
 * the one-input node ("Node with schema(::Unsqueeze:13) has input size 1"). Said as
 * an arity-error, with a not-in-spec note on the two versions; the model's own
 * Unsqueeze (axes input [1]) is (2, 1, 3). */
Test(functions, body_resolves_at_the_models_opset)
{
	osh_model *m = load_infer(FN_DIR "/fn_own_opset.onnx");
	cr_expect_eq(count_code(m, "arity-error"), 1);
	cr_expect_geq(count_code(m, "not-in-spec"), 1);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (2, 1, 3)");
	osh_model_free(m);
}

/* Two outputs; the first call's are (N, 3); the second call's (N, 3) and (4,) do
 * not broadcast: each error names the body's node and the call. */
Test(functions, errors_in_a_body_name_the_call)
{
	osh_model *m = load_infer(FN_DIR "/fn_two_outputs.onnx");
	cr_expect_str_eq(mb_type(m, "s"), "FLOAT (N, 3)");
	cr_expect_str_eq(mb_type(m, "p"), "FLOAT (N, 3)");
	cr_expect_eq(count_code(m, "broadcast-mismatch"), 2);
	const char *msg = mb_message(m, "broadcast-mismatch");
	cr_expect(msg && strstr(msg, "(in the call at node 'bad_call' (Two))"), "%s", msg ? msg : "(none)");
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
}
