/* test_rule_table.c: the shape rules attached to the operator schema table.
 *
 * ops.def's rows of the schema domains name schema rows at compile time
 * (rule_table.c), so a rule for a row that does not exist cannot be built; what is
 * left to check is the other direction (a row holds until the operator's next row, so
 * every operator's first version needs one), and that nothing of a schema domain hides
 * among the rows keyed by name: adding an ONNX operator is one schema row, one rule
 * row and one function, and forgetting the rule row fails here.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "core/arena.h"
#include "core/schema/schema.h"
#include "passes/infer/rule_table.h"

Test(rule_table, every_schema_row_has_a_rule)
{
	int32_t n, missing = 0;
	const sch_row *rows = schema_rows(&n);
	for (int32_t i = 0; i < n; i++) {
		if (rule_of_schema(&rows[i]))
			continue;
		cr_log_error("%s %s-%d: no rule row in ops.def", rows[i].domain[0] ? rows[i].domain : "ai.onnx",
			     rows[i].op_type, rows[i].since);
		missing++;
	}
	cr_assert_eq(missing, 0, "%d schema rows without a rule", missing);
}

/* A row holds until the operator's next row: Relu's one row serves its four versions,
 * and a version with a row of its own takes that row's rule. */
Test(rule_table, a_row_holds_until_the_next)
{
	const sch_row *relu1 = schema_lookup("", "Relu", 1);
	cr_assert_not_null(relu1);
	for (int64_t v = 6; v <= 14; v++) {
		const sch_row *r = schema_lookup("", "Relu", v);
		cr_assert_not_null(r);
		cr_expect_eq(rule_of_schema(r), rule_of_schema(relu1), "Relu-%d", r->since);
	}
	const sch_row *scan8 = schema_lookup("", "Scan", 8), *scan9 = schema_lookup("", "Scan", 9),
		      *scan25 = schema_lookup("", "Scan", 25);
	cr_assert(scan8 && scan9 && scan25);
	cr_expect_neq(rule_of_schema(scan8), rule_of_schema(scan9));
	cr_expect_eq(rule_of_schema(scan25), rule_of_schema(scan9));
}

/* A version that takes its predecessor's rule has no row of its own: the table lists
 * where rules change, not every version. */
Test(rule_table, no_row_restates_the_previous_version)
{
	int32_t n, restated = 0;
	const sch_row *rows = schema_rows(&n);
	for (int32_t i = 1; i < n; i++) {
		if (strcmp(rows[i].domain, rows[i - 1].domain) || strcmp(rows[i].op_type, rows[i - 1].op_type))
			continue;
		infer_fn own = rule_row_of_schema(&rows[i]);
		if (!own || own != rule_of_schema(&rows[i - 1]))
			continue;
		cr_log_error("%s %s-%d: its row restates version %d's rule", rows[i].domain[0] ? rows[i].domain : "ai.onnx",
			     rows[i].op_type, rows[i].since, rows[i - 1].since);
		restated++;
	}
	cr_assert_eq(restated, 0, "%d rows restate the previous version's rule", restated);
}

Test(rule_table, name_keyed_rows_are_of_other_domains)
{
	int32_t n;
	const rule_row *rows = rule_rows(&n);
	cr_assert_gt(n, 0);
	for (int32_t i = 0; i < n; i++)
		cr_expect(!schema_knows_domain(rows[i].domain),
			  "OP(\"%s\", \"%s\", %d): a schema domain; name the schema row (ONNX(...), ONNX_ML(...))",
			  rows[i].domain, rows[i].op_type, rows[i].since);
}

Test(rule_table, lookup_gives_row_and_rule_together)
{
	arena *a = arena_new(0);
	cr_assert_not_null(a);
	rule_index ri;
	cr_assert(rule_index_build(&ri, a));

	/* A schema row and its rule. */
	rule_hit h = rule_lookup(&ri, "", "Relu", 15);
	cr_assert_not_null(h.schema);
	cr_assert_eq(h.schema->since, 14);
	cr_assert_eq(h.fn, rule_of_schema(h.schema));
	cr_assert_not_null(h.fn);
	cr_assert(h.schema_domain);

	/* ai.onnx.ml resolves the same way. */
	h = rule_lookup(&ri, "ai.onnx.ml", "LabelEncoder", 5);
	cr_assert_not_null(h.schema);
	cr_assert_eq(h.fn, rule_of_schema(h.schema));

	/* ONNX Runtime's LayerNormalization before ONNX's 17: a rule, no schema row. */
	h = rule_lookup(&ri, "", "LayerNormalization", 13);
	cr_assert_null(h.schema);
	cr_assert(h.schema_domain);
	cr_assert_not_null(h.fn);
	cr_assert_eq(h.fn, rule_ort_extra("", "LayerNormalization", 13)->fn);
	h = rule_lookup(&ri, "", "LayerNormalization", 17);
	cr_assert_not_null(h.schema);
	cr_assert_null(rule_ort_extra("com.microsoft", "LayerNormalization", 13));

	/* ONNX's removed experimental operators: ONNX Runtime runs them up to opset 9. */
	h = rule_lookup(&ri, "", "Crop", 9);
	cr_assert_null(h.schema);
	cr_assert_not_null(h.fn);
	cr_assert(rule_ort_extra("", "Crop", 9)->floats_only);
	h = rule_lookup(&ri, "", "Crop", 10);
	cr_assert_null(h.fn);

	/* Not an operator of a schema domain: nothing. */
	h = rule_lookup(&ri, "", "NoSuchOp", 17);
	cr_assert_null(h.schema);
	cr_assert_null(h.fn);
	cr_assert(h.schema_domain);

	/* Another domain: by name, no schema. */
	h = rule_lookup(&ri, "com.microsoft", "FusedMatMul", 1);
	cr_assert_null(h.schema);
	cr_assert_not(h.schema_domain);
	cr_assert_not_null(h.fn);
	h = rule_lookup(&ri, "paddle", "elementwise_add", 1);
	cr_assert_not_null(h.fn);
	arena_free(a);
}
