/* test_lint.c: the rules of `onnxshape check` at the library level: each diagnostic
 * code firing on its fixture (tests/models/lint, made by gen_lint.py) and on small
 * models built here, and staying quiet on models that are fine; the Paddle rules and
 * their fallback for any domain; where a broadcast-mismatch's sizes came from; facts
 * about symbols (once each, contradictions as errors); dynamic-shape under
 * require_static; the per-diagnostic input shapes; severity overrides; and the code
 * table (every code the sources emit has a row). */
#include <criterion/criterion.h>

#include "core/model.h"
#include "mb.h"

#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINT_DIR OSH_MODELS_DIR "/lint"

/* The codes the lint rules emit: none of them may fire on a fine model. */
static const char *const lint_codes[] = {
	"broadcast-mismatch", "shape-conflict",        "same-size-broadcast", "outer-broadcast",
	"legacy-broadcast-attr", "axis-broadcast",     "symbol-constraint",   "dynamic-shape",
};
#define NLINT (sizeof lint_codes / sizeof lint_codes[0])

static osh_model *load_file(const char *path, const osh_infer_options *opts)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	if (!osh_model_is_malformed(m))
		cr_assert_eq(osh_infer(m, opts, &err), OSH_OK, "%s", err.message);
	return m;
}

static const char *nth_message(osh_model *m, const char *code, int k)
{
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		if (!strcmp(d->code, code) && k-- == 0)
			return d->message;
	}
	return "";
}

static const osh_diag *first_diag(osh_model *m, const char *code)
{
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		if (!strcmp(osh_model_diag_at(m, i)->code, code))
			return osh_model_diag_at(m, i);
	return NULL;
}

#define expect_has(msg, phrase) cr_expect(strstr((msg), (phrase)) != NULL, "'%s' not in: %s", (phrase), (msg))

/* ---- every fixture: exactly its findings --------------------------------------- */

typedef struct expect_code {
	const char *code;
	int count;
	osh_severity severity;
	const char *phrase; /* in the first message of that code */
} expect_code;

static const struct {
	const char *file;
	bool require_static;
	expect_code expect[3];
} fixtures[] = {
	{"broadcast_mismatch.onnx", false,
	 {{"broadcast-mismatch", 1, OSH_ERROR,
	   "the size of a (4) must match the size of b (6) at non-singleton dimension 2; a's 4 comes from graph "
	   "input 'x', then passed through 'relu_a' (Relu); b's 6 was set by node 'reshape' (Reshape), then "
	   "passed through 'relu_b' (Relu)"}}},
	{"shape_conflict.onnx", false, {{"shape-conflict", 1, OSH_WARNING, "dimension 1 is 3, declared 4"}}},
	{"same_size_broadcast.onnx", false,
	 {{"same-size-broadcast", 1, OSH_WARNING, "'pred' (4, 1) and 'target' (4,) hold 4 elements each but "
						   "broadcast to (4, 4), 16 elements"}}},
	{"same_size_broadcast_symbolic.onnx", false,
	 {{"same-size-broadcast", 1, OSH_WARNING, "hold N elements each but broadcast to (N, N), N*N elements"}}},
	{"outer_broadcast.onnx", false,
	 {{"outer-broadcast", 1, OSH_WARNING, "broadcast to (3, 4): 12 elements, more than any input has (at most 4)"}}},
	{"legacy_broadcast_attr.onnx", false,
	 {{"legacy-broadcast-attr", 1, OSH_WARNING,
	   "attributes 'broadcast' and 'axis' are not part of Add since opset 7 (the model imports opset 13)"},
	  {"attribute-error", 2, OSH_ERROR, "'axis' is not an attribute of Add-13 (ai.onnx)"}}},
	{"axis_broadcast_paddle.onnx", false,
	 {{"axis-broadcast", 1, OSH_NOTE, "paddle rule: 'Y' (3,) is placed at axis 1 of 'X' (2, 3, 4, 5); with "
					  "numpy broadcasting, 'Y' (3,) would be reshaped to (3, 1, 1)"}}},
	{"axis_broadcast_paddle_other_domain.onnx", false,
	 {{"axis-broadcast", 1, OSH_NOTE, "'X' (3,) is placed at axis 1 of 'Y' (2, 3, 4, 5)"}}},
	{"axis_broadcast_legacy.onnx", false,
	 {{"axis-broadcast", 1, OSH_NOTE, "pdpd rule (opset 6, broadcast=1): 'B' (3,) is placed at axis 1 of 'A' "
					  "(2, 3, 4, 5); with numpy broadcasting (opset 7), 'B' (3,) would be "
					  "reshaped to (3, 1, 1)"}}},
	{"unknown_op.onnx", false, {{"unknown-op", 1, OSH_WARNING, "no shape rule for com.example::Frobnicate"}}},
	{"dynamic_shape.onnx", false, {{NULL, 0, 0, NULL}}},
	{"dynamic_shape.onnx", true,
	 {{"dynamic-shape", 3, OSH_ERROR, "graph input 'x' has shape (N, 3), not static: 'N' is symbolic"}}},
	{"symbol_constraint.onnx", false,
	 {{"symbol-constraint", 1, OSH_NOTE, "'N' must be 1 or 8 at node 'add': 'x' (N, 3) and 'y' (8, 3)"}}},
	{"symbol_constraint_conflict.onnx", false,
	 {{"symbol-constraint", 2, OSH_ERROR, "'N' must be 1 or 8 at node 'add'"}}},
	{"symbol_constraint_must_be_one.onnx", false, {{"symbol-constraint", 3, OSH_NOTE, "'N' must be 1 or 8"}}},
	{"malformed_model.onnx", false, {{"malformed-model", 1, OSH_ERROR, "input 'ghost' is not produced"}}},
	{"clean.onnx", false, {{NULL, 0, 0, NULL}}},
	{"clean.onnx", true, {{"dynamic-shape", 7, OSH_ERROR, "graph input 'x'"}}},
	{"clean_masks.onnx", false, {{NULL, 0, 0, NULL}}},
};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

Test(lint, every_fixture_gives_exactly_its_findings)
{
	size_t ncodes;
	const osh_rule *rules = osh_rules(&ncodes);
	for (size_t i = 0; i < NFIXTURES; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", LINT_DIR, fixtures[i].file);
		osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .require_static = fixtures[i].require_static};
		osh_model *m = load_file(path, &o);
		for (size_t c = 0; c < ncodes; c++) {
			const expect_code *e = NULL;
			for (size_t k = 0; k < 3 && fixtures[i].expect[k].code; k++)
				if (!strcmp(fixtures[i].expect[k].code, rules[c].code))
					e = &fixtures[i].expect[k];
			cr_expect_eq(mb_count(m, rules[c].code), e ? e->count : 0, "%s%s: %d %s, expected %d",
				     fixtures[i].file, fixtures[i].require_static ? " (static)" : "",
				     mb_count(m, rules[c].code), rules[c].code, e ? e->count : 0);
			if (!e)
				continue;
			const osh_diag *d = first_diag(m, e->code);
			cr_assert_not_null(d, "%s: no %s", fixtures[i].file, e->code);
			cr_expect_eq(d->severity, e->severity, "%s: %s severity", fixtures[i].file, e->code);
			expect_has(d->message, e->phrase);
		}
		osh_model_free(m);
	}
}

/* Every fixture of the directory is in the table above. */
Test(lint, fixture_table_is_complete)
{
	DIR *d = opendir(LINT_DIR);
	cr_assert_not_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".onnx"))
			continue;
		bool found = false;
		for (size_t i = 0; i < NFIXTURES; i++)
			found |= !strcmp(fixtures[i].file, e->d_name);
		cr_expect(found, "%s has no row in the fixture table", e->d_name);
	}
	closedir(d);
}

/* ---- quiet on models that are fine ----------------------------------------------- */

Test(lint, quiet_on_fine_models)
{
	static const char *const fine[] = {
		"lint/clean.onnx",          "lint/clean_masks.onnx",      "examples/cnn_residual.onnx",
		"examples/transformer_block.onnx",
		"good/external_ok.onnx",    "good/if_outer.onnx",         "good/unknown_field.onnx",
		"good/local_function.onnx", "good/nested_32.onnx",
	};
	for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", OSH_MODELS_DIR, fine[i]);
		osh_model *m = load_file(path, NULL);
		for (size_t c = 0; c < NLINT; c++)
			cr_expect_eq(mb_count(m, lint_codes[c]), 0, "%s: %s: %s", fine[i], lint_codes[c],
				     mb_message(m, lint_codes[c]));
		osh_model_free(m);
	}
}

/* ---- same-size-broadcast, outer-broadcast ------------------------------------------- */

static osh_model *binary(int64_t opset, const char *op, const char *a, const char *b)
{
	mb *m = mb_new(opset);
	mb_input(m, "a", DT_FLOAT, a);
	mb_input(m, "b", DT_FLOAT, b);
	mb_node(m, op, "a,b", "z");
	mb_output(m, "z", 0, NULL);
	return mb_infer(m);
}

Test(lint, growth_table)
{
	static const struct {
		const char *a, *b;
		int same, outer;
	} cases[] = {
		{"4,1", "4", 1, 0},       /* the classic */
		{"1,4", "4", 0, 0},       /* same count, same result: nothing grows */
		{"4,4", "4", 0, 0},       /* a bias */
		{"", "2,3", 0, 0},        /* a scalar */
		{"3,1", "1,4", 0, 1},     /* outer */
		{"2,1,5", "4,1", 0, 1},   /* (2, 4, 5): 40 > 10 and 4 */
		{"2,3,1", "1,3,2", 1, 0}, /* 6 and 6 give 12 */
		{"N,1", "N", 1, 0},       /* symbolic */
		{"N,1", "1,M", 0, 1},     /* N*M */
		{"N,3", "N,3", 0, 0},     /* residual */
		{"N,1", "3", 0, 1},       /* (N, 3): 3*N, more than N and 3 */
		{"N,3", "3", 0, 0},       /* a bias over a batch */
		{"0,1", "4", 0, 0},       /* empty: nothing grows */
		{"?,1", "4", 0, 0},       /* an unknown size: no claim */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		osh_model *m = binary(13, "Add", cases[i].a, cases[i].b);
		cr_assert_not_null(m);
		cr_expect_eq(mb_count(m, "same-size-broadcast"), cases[i].same, "(%s) + (%s): %s", cases[i].a,
			     cases[i].b, mb_message(m, "same-size-broadcast"));
		cr_expect_eq(mb_count(m, "outer-broadcast"), cases[i].outer, "(%s) + (%s): %s", cases[i].a, cases[i].b,
			     mb_message(m, "outer-broadcast"));
		osh_model_free(m);
	}
}

Test(lint, growth_through_variadic_where_and_paddle)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "4,1");
	mb_input(b, "b", DT_FLOAT, "4");
	mb_input(b, "c", DT_BOOL, "4");
	mb_node(b, "Sum", "a,b", "s");
	mb_node(b, "Where", "c,a,b", "w");
	mb_opset(b, "paddle", 1);
	mb_node(b, "elementwise_add", "a,b", "p");
	mb_node_domain(b, "paddle");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	/* Sum and Where; the paddle rule places (4,) at axis 1 of (4, 1): (4, 4) as well. */
	cr_expect_eq(mb_count(m, "same-size-broadcast"), 3, "%s", mb_message(m, "same-size-broadcast"));
	osh_model_free(m);
}

Test(lint, no_growth_under_legacy_rules)
{
	/* Opset 6 without broadcast needs identical shapes; with it, A never grows. */
	osh_model *m = binary(6, "Add", "4,1", "4,1");
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "same-size-broadcast") + mb_count(m, "outer-broadcast"), 0);
	osh_model_free(m);
}

/* ---- legacy-broadcast-attr ---------------------------------------------------------- */

Test(lint, legacy_attribute_variants)
{
	static const struct {
		int64_t opset;
		const char *op;
		bool broadcast, axis;
		int warn;
		const char *phrase;
	} cases[] = {
		{13, "Add", true, true, 1, "attributes 'broadcast' and 'axis' are not part of Add since opset 7"},
		{7, "Mul", false, true, 1, "attribute 'axis' is not part of Mul since opset 7 (the model imports opset 7)"},
		{14, "Div", true, false, 1, "attribute 'broadcast' is not part of Div"},
		{13, "Add", false, false, 0, NULL},
		{6, "Add", true, true, 0, NULL},       /* legacy: the attributes mean something there */
		{13, "Mod", false, true, 0, NULL},      /* Mod never had them: not a legacy leftover */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mb *b = mb_new(cases[i].opset);
		mb_input(b, "a", DT_FLOAT, "2,3,4,5");
		mb_input(b, "b", DT_FLOAT, "5");
		mb_node(b, cases[i].op, "a,b", "z");
		if (cases[i].broadcast)
			mb_attr_i(b, "broadcast", 1);
		if (cases[i].axis)
			mb_attr_i(b, "axis", 3);
		osh_model *m = mb_infer(b);
		cr_assert_not_null(m);
		cr_expect_eq(mb_count(m, "legacy-broadcast-attr"), cases[i].warn, "case %zu: %s", i,
			     mb_message(m, "legacy-broadcast-attr"));
		if (cases[i].phrase)
			expect_has(mb_message(m, "legacy-broadcast-attr"), cases[i].phrase);
		osh_model_free(m);
	}
}

Test(lint, legacy_attribute_says_what_axis_meant)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "2,5,4,5");
	mb_input(b, "b", DT_FLOAT, "5");
	mb_node(b, "Add", "a,b", "z");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	/* numpy puts b on the last axis, silently; axis 1 meant (5, 1, 1). */
	cr_expect_eq(mb_count(m, "broadcast-mismatch"), 0);
	expect_has(mb_message(m, "legacy-broadcast-attr"), "read as pdpd broadcasting at axis 1, 'b' (5,) would be "
							   "reshaped to (5, 1, 1)");
	osh_model_free(m);
}

/* A stray broadcast=1 whose pdpd placement is itself invalid (A would have to grow at
 * dimension 1): the warning must not claim a numpy equivalent. */
Test(lint, legacy_attribute_whose_placement_is_invalid)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "2,1,4");
	mb_input(b, "b", DT_FLOAT, "3,1");
	mb_node(b, "Add", "a,b", "z");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	const char *msg = mb_message(m, "legacy-broadcast-attr");
	expect_has(msg, "read as pdpd broadcasting at axis 1, the shapes do not broadcast even so: ");
	expect_has(msg, "A may not grow under the pdpd rule");
	cr_expect(!strstr(msg, "same result"), "%s", msg);
	osh_model_free(m);
}

/* ---- axis-broadcast and the Paddle rules ------------------------------------------ */

static osh_model *paddle(const char *domain, const char *op, const char *x, const char *y, int64_t axis)
{
	mb *b = mb_new(13);
	mb_opset(b, domain, 1);
	mb_input(b, "X", DT_FLOAT, x);
	mb_input(b, "Y", DT_FLOAT, y);
	mb_node(b, op, "X,Y", "Out");
	mb_node_domain(b, domain);
	if (axis != -100)
		mb_attr_i(b, "axis", axis);
	mb_output(b, "Out", 0, NULL);
	return mb_infer(b);
}

/* Spec section 4b's table, through every registered domain and one that is not. */
Test(lint, paddle_rule_shapes)
{
	static const char *const domains[] = {"paddle", "ai.paddle", "pd", "custom", "org.example.converted"};
	static const struct {
		const char *x, *y;
		int64_t axis;
		const char *out; /* NULL: broadcast-mismatch */
	} cases[] = {
		{"2,1,4", "3,1", 1, "FLOAT (2, 3, 4)"},
		{"2,3,4,5", "4,5", 1, NULL},
		{"2,3,4,5", "3", 1, "FLOAT (2, 3, 4, 5)"},
		{"2,3,4", "2,3,4", -1, "FLOAT (2, 3, 4)"},
		{"3", "2,3,4", 1, "FLOAT (2, 3, 4)"},
		{"2,3,4,5", "4,5", -100, "FLOAT (2, 3, 4, 5)"}, /* axis absent: -1 */
	};
	for (size_t d = 0; d < sizeof domains / sizeof domains[0]; d++) {
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			osh_model *m = paddle(domains[d], "elementwise_add", cases[i].x, cases[i].y, cases[i].axis);
			cr_assert_not_null(m);
			cr_expect_eq(mb_count(m, "unknown-op"), 0, "%s", domains[d]);
			if (cases[i].out) {
				cr_expect_str_eq(mb_type(m, "Out"), cases[i].out, "%s: (%s) (%s) axis %lld", domains[d],
						 cases[i].x, cases[i].y, (long long)cases[i].axis);
				cr_expect_eq(mb_count(m, "axis-broadcast"), 1);
			} else {
				cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1, "%s", domains[d]);
				expect_has(mb_message(m, "broadcast-mismatch"), "(paddle rule)");
				cr_expect_eq(mb_count(m, "axis-broadcast"), 0);
			}
			osh_model_free(m);
		}
	}
}

Test(lint, every_paddle_operator_and_none_in_ai_onnx)
{
	static const char *const ops[] = {"elementwise_add", "elementwise_sub", "elementwise_mul",
					  "elementwise_div", "elementwise_pow", "elementwise_max",
					  "elementwise_min", "elementwise_mod", "elementwise_floordiv"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		osh_model *m = paddle("paddle", ops[i], "2,3,4", "3", 1);
		cr_assert_not_null(m);
		cr_expect_str_eq(mb_type(m, "Out"), "FLOAT (2, 3, 4)", "%s", ops[i]);
		osh_model_free(m);
	}
	/* ONNX itself has no elementwise_add: no rule, no fallback, and an error (ONNX
	 * Runtime refuses an operator its domain does not define). */
	mb *b = mb_new(13);
	mb_input(b, "X", DT_FLOAT, "2,3");
	mb_input(b, "Y", DT_FLOAT, "3");
	mb_node(b, "elementwise_add", "X,Y", "Out");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "op-not-in-opset"), 1);
	cr_expect_eq(mb_count(m, "unknown-op"), 0);
	cr_expect_eq(mb_count(m, "axis-broadcast"), 0);
	osh_model_free(m);
}

Test(lint, axis_note_variants)
{
	osh_model *m = paddle("paddle", "elementwise_add", "2,3,4,5", "4,5", -100);
	cr_assert_not_null(m);
	expect_has(mb_message(m, "axis-broadcast"), "'Y' (4, 5) is placed at axis 2 (the default, -1) of 'X' (2, 3, 4, 5); "
						    "numpy broadcasting gives the same result without a reshape");
	osh_model_free(m);

	m = paddle("paddle", "elementwise_add", "2,3,4,5", "3,1", 1); /* trailing 1s are trimmed */
	cr_assert_not_null(m);
	expect_has(mb_message(m, "axis-broadcast"), "'Y' (3, 1) would be reshaped to (3, 1, 1)");
	osh_model_free(m);

	m = paddle("paddle", "elementwise_add", "2,3,4,5", NULL, 1); /* Y's shape unknown */
	cr_assert_not_null(m);
	expect_has(mb_message(m, "axis-broadcast"), "paddle rule with axis 1: the input shapes are not known");
	osh_model_free(m);

	/* Legacy without broadcast=1: identical shapes, no axis rule. */
	m = binary(6, "Add", "2,3", "2,3");
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "axis-broadcast"), 0);
	osh_model_free(m);
}

/* ---- broadcast-mismatch: where the sizes came from ---------------------------------- */

Test(lint, provenance_follows_sizes_back)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,12");
	mb_init_ints(b, "shape", "3", (int64_t[]){2, 3, 4});
	mb_node(b, "Reshape", "x,shape", "r"); /* Reshape_0: sets (2, 3, 4) */
	mb_node(b, "Relu", "r", "a");          /* Relu_1 */
	mb_node(b, "Sigmoid", "a", "c");       /* Sigmoid_2 */
	mb_node(b, "Tanh", "c", "d");          /* Tanh_3 */
	mb_node(b, "Abs", "d", "e");           /* Abs_4 */
	mb_input(b, "bias", DT_FLOAT, "4");
	mb_node(b, "Add", "e,bias", "f");      /* Add_5: the 4 comes from e, not bias */
	mb_init(b, "w", DT_FLOAT, "6");
	mb_node(b, "Mul", "f,w", "z");         /* Mul_6: 4 against 6 */
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_assert_eq(mb_count(m, "broadcast-mismatch"), 1);
	const char *msg = mb_message(m, "broadcast-mismatch");
	expect_has(msg, "the size of f (4) must match the size of w (6) at non-singleton dimension 2");
	expect_has(msg, "f's 4 was set by node 'Reshape_0' (Reshape), then passed through 'Relu_1' (Relu), "
			"'Sigmoid_2' (Sigmoid), 'Tanh_3' (Tanh), 1 more, 'Add_5' (Add)");
	expect_has(msg, "w's 6 comes from initializer 'w'");
	osh_model_free(m);
}

Test(lint, provenance_for_unidirectional_and_pdpd)
{
	/* PRelu: the slope may not grow X; pdpd: B is placed at axis. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_input(b, "s", DT_FLOAT, "4,3");
	mb_node(b, "PRelu", "x,s", "y");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	expect_has(mb_message(m, "broadcast-mismatch"), "s's 4 comes from graph input 's'");
	osh_model_free(m);

	b = mb_new(6);
	mb_input(b, "a", DT_FLOAT, "2,3,4,5");
	mb_input(b, "b", DT_FLOAT, "4,5");
	mb_node(b, "Add", "a,b", "y");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	m = mb_infer(b);
	cr_assert_not_null(m);
	const char *msg = mb_message(m, "broadcast-mismatch");
	expect_has(msg, "(pdpd rule)");
	expect_has(msg, "b's 5 comes from graph input 'b'"); /* b[1] meets a[2] */
	osh_model_free(m);
}

/* ---- symbol-constraint -------------------------------------------------------------- */

Test(lint, facts_reported_once_each)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "y", DT_FLOAT, "8,3");
	mb_node(b, "Add", "x,y", "s1");
	mb_node(b, "Mul", "x,y", "s2"); /* the same fact again */
	mb_input(b, "p", DT_FLOAT, "N,M");
	mb_input(b, "q", DT_FLOAT, "M,M");
	mb_node(b, "Add", "p,q", "s3"); /* N and M: equal, or one of them 1 */
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "symbol-constraint"), 2);
	expect_has(nth_message(m, "symbol-constraint", 0), "'N' must be 1 or 8 at node 'Add_0'");
	expect_has(nth_message(m, "symbol-constraint", 1), "'N' and 'M' must be equal, or one of them 1, at node 'Add_2'");
	cr_expect_eq(first_diag(m, "symbol-constraint")->severity, OSH_NOTE);
	osh_model_free(m);
}

/* Two counts only the run decides (NonZero of two tensors) broadcast against each
 * other: the note would name two sizes onnxshape made up, so there is none. Against
 * a size the model declares, or a number, the count's fact is still a note. */
Test(lint, no_note_between_two_made_up_sizes)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "y", DT_FLOAT, "M,5");
	mb_input(b, "p", DT_INT64, "2,N");
	mb_input(b, "q", DT_INT64, "2,8");
	mb_node(b, "NonZero", "x", "i");
	mb_node(b, "NonZero", "y", "j");
	mb_node(b, "Add", "i,j", "s"); /* count of x's against count of y's: no note */
	mb_node(b, "Add", "i,p", "t"); /* against N */
	mb_node(b, "Add", "j,q", "u"); /* against 8 */
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "symbol-constraint"), 2, "%s", mb_message(m, "symbol-constraint"));
	expect_has(nth_message(m, "symbol-constraint", 0), "'N' must be equal, or one of them 1, at node 'Add_3'");
	expect_has(nth_message(m, "symbol-constraint", 1), "must be 1 or 8 at node 'Add_4'");
	osh_model_free(m);
}

Test(lint, operands_quiet_under_one_rule_or_axis_speak_under_another)
{
	/* lint remembers the broadcasts that said nothing; the same operands under
	 * another rule or axis are another broadcast. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "1,3");
	mb_input(b, "w", DT_FLOAT, "M,3");
	mb_node(b, "Add", "x,w", "s");   /* numpy: (M, 3), nothing to say */
	mb_node(b, "PRelu", "x,w", "p"); /* x may not grow: 'M' must be 1 */
	mb_input(b, "y", DT_FLOAT, "N,3");
	mb_input(b, "z", DT_FLOAT, "3");
	mb_opset(b, "paddle", 1);
	mb_node(b, "elementwise_add", "y,z", "q1"); /* (3,) at axis 1: nothing to say */
	mb_node_domain(b, "paddle");
	mb_node(b, "elementwise_add", "y,z", "q2"); /* at axis 0: 'N' must be 1 or 3 */
	mb_node_domain(b, "paddle");
	mb_attr_i(b, "axis", 0);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "symbol-constraint"), 2, "%s", mb_message(m, "symbol-constraint"));
	expect_has(nth_message(m, "symbol-constraint", 0), "'M' must be 1 at node 'PRelu_1'");
	expect_has(nth_message(m, "symbol-constraint", 1), "'N' must be 1 or 3 at node 'elementwise_add_3'");
	osh_model_free(m);
}

Test(lint, facts_the_user_settled_are_not_news)
{
	static const osh_assumption n8[] = {{"N", 8}};
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "y", DT_FLOAT, "8,3");
	mb_node(b, "Add", "x,y", "s");
	osh_model *m = mb_infer_opts(b, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .n_assumptions = 1, .assumptions = n8});
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "symbol-constraint"), 0, "%s", mb_message(m, "symbol-constraint"));
	osh_model_free(m);

	/* A fact inference bound itself (PRelu: X may not grow) is reported. */
	b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "w", DT_FLOAT, "5,3");
	mb_node(b, "PRelu", "x,w", "p");
	m = mb_infer(b);
	cr_assert_not_null(m);
	expect_has(mb_message(m, "symbol-constraint"), "'N' must be 5 at node 'PRelu_0'");
	cr_expect_str_eq(mb_type(m, "p"), "FLOAT (5, 3)");
	osh_model_free(m);
}

Test(lint, contradicting_facts_are_an_error)
{
	char path[512];
	snprintf(path, sizeof path, "%s/symbol_constraint_conflict.onnx", LINT_DIR);
	osh_model *m = load_file(path, NULL);
	const osh_diag *d = first_diag(m, "symbol-constraint");
	cr_assert_not_null(d);
	cr_expect_eq(d->severity, OSH_ERROR);
	expect_has(d->message, "; but 'N' was found to be 5");
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
}

/* ---- dynamic-shape ------------------------------------------------------------------ */

Test(lint, dynamic_shape_order_and_wording)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,?,4");
	mb_node(b, "Relu", "x", "h");
	mb_opset(b, "com.example", 1);
	mb_node(b, "Mystery", "h", "u");
	mb_node_domain(b, "com.example");
	mb_node(b, "Relu", "u", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer_opts(b, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .require_static = true});
	cr_assert_not_null(m);
	cr_assert_eq(mb_count(m, "dynamic-shape"), 4);
	expect_has(nth_message(m, "dynamic-shape", 0), "graph input 'x' has shape (N, ?, 4), not static: 'N' is "
						       "symbolic; dimension 1 is unknown (give --input-shape or --assume)");
	expect_has(nth_message(m, "dynamic-shape", 1), "graph output 'y' has an unknown rank, so no static shape");
	expect_has(nth_message(m, "dynamic-shape", 2), "'h' has shape (N, ?, 4)");
	expect_has(nth_message(m, "dynamic-shape", 3), "'u' has no known type or shape");
	cr_expect_str_eq(first_diag(m, "dynamic-shape")->value, "x");
	osh_model_free(m);
}

Test(lint, dynamic_shape_quiet_when_given)
{
	static const osh_dim dims[] = {{OSH_DIM_VALUE, 2, NULL}, {OSH_DIM_VALUE, 3, NULL}};
	static const osh_input_shape shapes[] = {{"x", 2, dims}};
	char path[512];
	snprintf(path, sizeof path, "%s/dynamic_shape.onnx", LINT_DIR);
	osh_model *m = load_file(path, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .require_static = true, .n_input_shapes = 1,
							     .input_shapes = shapes});
	cr_expect_eq(mb_count(m, "dynamic-shape"), 0, "%s", mb_message(m, "dynamic-shape"));
	osh_model_free(m);
}

/* ---- what reports get ------------------------------------------------------------------- */

Test(lint, diagnostics_carry_their_node_inputs)
{
	char path[512];
	snprintf(path, sizeof path, "%s/symbol_constraint.onnx", LINT_DIR);
	osh_model *m = load_file(path, NULL);
	const osh_diag *d = first_diag(m, "symbol-constraint");
	cr_assert_not_null(d);
	cr_assert_eq(d->n_inputs, 2);
	cr_expect_str_eq(d->inputs[0].name, "x");
	cr_expect_eq(d->inputs[0].type.rank, 2);
	cr_expect_eq(d->inputs[0].type.dims[0].kind, OSH_DIM_SYMBOL);
	cr_expect_str_eq(d->inputs[0].type.dims[0].symbol, "N");
	cr_expect_eq(d->inputs[1].type.dims[0].value, 8);
	osh_model_free(m);
}

Test(lint, severity_overrides)
{
	char path[512];
	snprintf(path, sizeof path, "%s/same_size_broadcast.onnx", LINT_DIR);
	osh_model *m = load_file(path, NULL);
	cr_expect_not(osh_model_has_errors(m));
	osh_error err = {0};
	osh_severity_override up[] = {{"same-size-broadcast", false, OSH_ERROR}};
	cr_assert_eq(osh_model_override_severities(m, up, 1, &err), OSH_OK);
	cr_expect(osh_model_has_errors(m));
	cr_expect_eq(first_diag(m, "same-size-broadcast")->severity, OSH_ERROR);
	/* A later override of the same code wins. */
	osh_severity_override back[] = {{"same-size-broadcast", false, OSH_ERROR}, {"same-size-broadcast", true, 0}};
	cr_assert_eq(osh_model_override_severities(m, back, 2, &err), OSH_OK);
	cr_expect_eq(mb_count(m, "same-size-broadcast"), 0);
	cr_expect_not(osh_model_has_errors(m));
	osh_severity_override bad[] = {{"no-such-code", true, 0}};
	cr_expect_eq(osh_model_override_severities(m, bad, 1, &err), OSH_ERR_INVALID);
	expect_has(err.message, "'no-such-code' is not a diagnostic code");
	osh_severity_override mal[] = {{"malformed-model", true, 0}};
	cr_expect_eq(osh_model_override_severities(m, mal, 1, &err), OSH_ERR_INVALID);
	osh_model_free(m);
}

/* ---- the code table ------------------------------------------------------------------ */

/* The code literal is group 2 of re. */
static void scan_file(const char *path, regex_t *re)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char line[4096];
	int ln = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		regmatch_t mt[3];
		for (const char *p = line; !regexec(re, p, 3, mt, 0); p += mt[0].rm_eo) {
			char code[64];
			snprintf(code, sizeof code, "%.*s", (int)(mt[2].rm_eo - mt[2].rm_so), p + mt[2].rm_so);
			cr_expect_fail("%s:%d: code '%s' is a string: name it by its DIAG_ value (core/codes.h)%s", path, ln,
				       code, osh_rule_find(code) ? "" : ", after giving it a row in src/core/codes.def");
		}
	}
	fclose(f);
}

static void scan_dir(const char *dir, regex_t *re)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (n > 2 && !strcmp(e->d_name + n - 2, ".c"))
			scan_file(path, re);
		else if (!strchr(e->d_name, '.'))
			scan_dir(path, re);
	}
	closedir(d);
}

/* Every code passed to model_diag / infer_diag or to the rewrite's error helper has a
 * row, which SARIF's rule list and --error/--warn/--ignore depend on: the stages name
 * codes by their DIAG_ values, so none is a literal after the severity (a literal would
 * be a code the table need not have), and each DIAG_ value's string is its own row. */
Test(lint, every_emitted_code_has_a_row)
{
	size_t n = 0;
	const osh_rule *rows = codes_table(&n);
	cr_assert_eq(n, DIAG_CODE_COUNT);
	for (int c = 0; c < DIAG_CODE_COUNT; c++) {
		cr_expect_str_eq(diag_code_name((diag_code)c), rows[c].code);
		cr_expect_eq(osh_rule_find(diag_code_name((diag_code)c)), &rows[c]);
	}
	regex_t re;
	cr_assert_eq(regcomp(&re, "(OSH_ERROR|OSH_WARNING|OSH_NOTE|rw_error\\([^\"]*), *\"([a-z]+(-[a-z]+)+)\"",
			     REG_EXTENDED),
		     0);
	scan_dir(OSH_SOURCE_DIR "/src", &re);
	regfree(&re);
}
