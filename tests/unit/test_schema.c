/* test_schema.c: the generated operator schema table against the ONNX documentation.
 *
 * Spot checks, each a fact read in the ONNX documentation's Changelog.md or
 * Changelog-ml.md (not in the table), chosen where a parser slip would show: type
 * lists, literal formal types, optional and variadic parameters, the documented
 * (min - max) counts, attribute types, required flags and defaults, deprecation,
 * resolution to the highest since_version, and the sequence, optional and map types.
 * Whole-table invariants (sort order, indices in range) cover the rows not named here.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "core/dtype.h"
#include "core/model.h"
#include "core/schema/kernels.h"
#include "core/schema/schema.h"

#define BIT(t) (UINT64_C(1) << (t))

static const sch_row *row_at(const char *domain, const char *op, int64_t opset, int32_t since)
{
	const sch_row *r = schema_lookup(domain, op, opset);
	cr_assert_not_null(r, "%s %s at opset %lld: no row", domain, op, (long long)opset);
	cr_assert_str_eq(r->op_type, op);
	cr_assert_eq(r->since, since, "%s at opset %lld resolved to %d, not %d", op, (long long)opset,
	             r->since, since);
	return r;
}

static const sch_attr *attr(const sch_row *r, const char *name)
{
	for (int i = 0; i < r->nattrs; i++)
		if (strcmp(r->attrs[i].name, name) == 0)
			return &r->attrs[i];
	cr_assert_fail("%s-%d has no attribute %s", r->op_type, r->since, name);
	return NULL;
}

static const sch_constraint *constraint(const sch_row *r, const char *var)
{
	for (int i = 0; i < r->nconstraints; i++)
		if (strcmp(r->constraints[i].var, var) == 0)
			return &r->constraints[i];
	cr_assert_fail("%s-%d has no type constraint %s", r->op_type, r->since, var);
	return NULL;
}

/* The types a formal parameter allows, whether by variable or literally. */
static sch_types param_types(const sch_row *r, const sch_param *p)
{
	if (p->constraint < 0)
		return p->types;
	cr_assert_lt(p->constraint, r->nconstraints);
	return r->constraints[p->constraint].allowed;
}

static bool only_tensor(sch_types t, uint64_t mask)
{
	return t.tensor == mask && t.sparse == 0 && t.seq == 0 && t.opt_tensor == 0 && t.opt_seq == 0 &&
	       !t.map && !t.seq_map;
}

/* The 15 types of "all tensor types" before bfloat16 was added (opsets up to 12). */
static const uint64_t ALL15 = BIT(DT_UINT8) | BIT(DT_UINT16) | BIT(DT_UINT32) | BIT(DT_UINT64) |
                              BIT(DT_INT8) | BIT(DT_INT16) | BIT(DT_INT32) | BIT(DT_INT64) |
                              BIT(DT_FLOAT16) | BIT(DT_FLOAT) | BIT(DT_DOUBLE) | BIT(DT_STRING) |
                              BIT(DT_BOOL) | BIT(DT_COMPLEX64) | BIT(DT_COMPLEX128);

static int32_t count_rows(const char *domain)
{
	int32_t n, k = 0;
	const sch_row *rows = schema_rows(&n);
	for (int32_t i = 0; i < n; i++)
		k += strcmp(rows[i].domain, domain) == 0;
	return k;
}

/* Operator sections ("### <a name=") of one documentation file. */
static int count_sections(const char *file)
{
	char path[4096], line[8192];
	snprintf(path, sizeof path, "%s/%s", OSH_ONNX_DOCS, file);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	int n = 0;
	while (fgets(line, sizeof line, f))
		n += strncmp(line, "### <a name=", 12) == 0;
	fclose(f);
	return n;
}

Test(schema, one_row_per_documented_section)
{
	int32_t n;
	schema_rows(&n);
	cr_assert_eq(count_sections("Changelog.md"), 617);
	cr_assert_eq(count_sections("Changelog-ml.md"), 25);
	cr_assert_eq(n, 617 + 25);
	cr_assert_eq(count_rows(""), 612);
	cr_assert_eq(count_rows("ai.onnx.preview"), 1);
	cr_assert_eq(count_rows("ai.onnx.preview.training"), 4);
	cr_assert_eq(count_rows("ai.onnx.ml"), 25);
}

/* The order schema_lookup's binary search needs, every row found again by its own
 * key, and every index and count in range. */
Test(schema, table_invariants)
{
	int32_t n;
	const sch_row *rows = schema_rows(&n);
	for (int32_t i = 0; i < n; i++) {
		const sch_row *r = &rows[i];
		if (i > 0) {
			const sch_row *p = &rows[i - 1];
			int c = strcmp(p->domain, r->domain);
			if (c == 0)
				c = strcmp(p->op_type, r->op_type);
			cr_assert(c < 0 || (c == 0 && p->since < r->since), "rows %d and %d out of order", i - 1, i);
		}
		cr_assert_eq(schema_lookup(r->domain, r->op_type, r->since), r, "%s-%d", r->op_type, r->since);
		cr_assert(r->deprecated == 0 || r->deprecated == r->since);
		cr_assert(r->min_inputs <= r->max_inputs && r->min_outputs <= r->max_outputs);
		cr_assert(r->max_inputs == INT32_MAX || r->max_inputs == r->ninputs, "%s-%d", r->op_type, r->since);
		cr_assert(r->max_outputs == INT32_MAX || r->max_outputs == r->noutputs);
		for (int k = 0; k < r->ninputs + r->noutputs; k++) {
			const sch_param *p = k < r->ninputs ? &r->inputs[k] : &r->outputs[k - r->ninputs];
			cr_assert_lt(p->constraint, r->nconstraints, "%s-%d %s", r->op_type, r->since, p->name);
			sch_types t = param_types(r, p);
			cr_assert(t.tensor | t.sparse | t.seq | t.opt_tensor | t.opt_seq || t.map || t.seq_map);
			bool last = k == r->ninputs - 1 || k == r->ninputs + r->noutputs - 1;
			cr_assert(p->option != SCH_VARIADIC || last, "%s-%d: variadic %s not last", r->op_type,
			          r->since, p->name);
		}
		for (int k = 0; k < r->nconstraints; k++) {
			sch_types t = r->constraints[k].allowed;
			uint64_t all = t.tensor | t.sparse | t.seq | t.opt_tensor | t.opt_seq;
			cr_assert_eq(all & ~((BIT(DT_COUNT) - 1) & ~UINT64_C(1)), 0, "element type outside 1..26");
		}
	}
}

Test(schema, add_versions_and_types)
{
	const sch_row *r = row_at("", "Add", 7, 7);
	cr_assert(only_tensor(constraint(r, "T")->allowed,
	                      BIT(DT_UINT32) | BIT(DT_UINT64) | BIT(DT_INT32) | BIT(DT_INT64) |
	                          BIT(DT_FLOAT16) | BIT(DT_FLOAT) | BIT(DT_DOUBLE)));
	cr_assert_eq(r->nattrs, 0);
	cr_assert_eq(r->ninputs, 2);
	cr_assert_eq(r->inputs[0].constraint, 0);
	cr_assert_eq(r->inputs[1].constraint, 0);
	row_at("", "Add", 12, 7);
	r = row_at("", "Add", 13, 13);
	cr_assert(constraint(r, "T")->allowed.tensor & BIT(DT_BFLOAT16));
	cr_assert_eq(constraint(r, "T")->allowed.tensor & BIT(DT_INT8), 0);
	r = row_at("", "Add", 14, 14);
	cr_assert(constraint(r, "T")->allowed.tensor & BIT(DT_INT8));
	row_at("", "Add", 28, 14);
	/* Add-1 and Add-6 still had the legacy broadcast attributes. */
	r = row_at("", "Add", 6, 6);
	cr_assert_str_eq(attr(r, "broadcast")->default_text, "0");
	cr_assert_null(attr(r, "axis")->default_text);
	cr_assert_eq(attr(r, "axis")->type, AT_INT);
}

Test(schema, concat_variadic_and_required_axis)
{
	const sch_row *r = row_at("", "Concat", 13, 13);
	const sch_attr *a = attr(r, "axis");
	cr_assert_eq(a->type, AT_INT);
	cr_assert(a->required);
	cr_assert_eq(r->ninputs, 1);
	cr_assert_eq(r->inputs[0].option, SCH_VARIADIC);
	cr_assert_not(r->inputs[0].heterogeneous);
	cr_assert_eq(r->inputs[0].min_arity, 1);
	cr_assert_eq(r->min_inputs, 1);
	cr_assert_eq(r->max_inputs, INT32_MAX);
	cr_assert_eq(r->min_outputs, 1);
	cr_assert_eq(r->max_outputs, 1);
	/* Concat-1's axis was optional. */
	cr_assert_not(attr(row_at("", "Concat", 3, 1), "axis")->required);
}

Test(schema, resolution_to_the_highest_since)
{
	row_at("", "Relu", 13, 13);
	row_at("", "Relu", 12, 6);
	row_at("", "Relu", 5, 1);
	row_at("", "Relu", 28, 14);
	cr_assert_null(schema_lookup("", "Gelu", 19));
	row_at("", "Gelu", 20, 20);
	row_at("", "Gelu", 28, 20);
	row_at("ai.onnx", "Gelu", 20, 20);
	cr_assert_null(schema_lookup("", "Relu", 0));
	cr_assert_null(schema_lookup("", "Relu", -1));
	cr_assert_null(schema_lookup("", "NoSuchOp", 28));
	cr_assert_null(schema_lookup("com.example", "Relu", 28));
	cr_assert_null(schema_lookup("ai.onnx.ml", "Relu", 5));
	cr_assert_null(schema_lookup("", "ZipMap", 28));
	/* Names compare exactly. */
	cr_assert_null(schema_lookup("", "relu", 28));
	cr_assert_null(schema_lookup("", "Rel", 28));
	cr_assert_null(schema_lookup("", "ReluX", 28));
	/* The first and the last row of the table. */
	row_at("", "Abs", 1, 1);
	row_at("ai.onnx.preview.training", "Momentum", 1, 1);
	row_at("ai.onnx.preview.training", "Momentum", INT64_MAX, 1);
}

Test(schema, deprecated_versions)
{
	const sch_row *r = row_at("", "Upsample", 10, 10);
	cr_assert_eq(r->deprecated, 10);
	cr_assert_eq(r->ninputs + r->noutputs + r->nattrs + r->nconstraints, 0);
	cr_assert_eq(row_at("", "Upsample", 28, 10)->deprecated, 10);
	r = row_at("", "Upsample", 9, 9);
	cr_assert_eq(r->deprecated, 0);
	cr_assert_eq(r->inputs[1].constraint, -1);
	cr_assert(only_tensor(r->inputs[1].types, BIT(DT_FLOAT)));
	cr_assert_eq(row_at("", "Scatter", 11, 11)->deprecated, 11);
	cr_assert_eq(row_at("", "Scatter", 10, 9)->deprecated, 0);
	cr_assert_eq(row_at("", "GroupNormalization", 18, 18)->deprecated, 18);
	cr_assert_eq(row_at("", "GroupNormalization", 21, 21)->deprecated, 0);
	cr_assert_eq(row_at("ai.onnx.ml", "TreeEnsembleClassifier", 5, 5)->deprecated, 5);
	cr_assert_eq(row_at("ai.onnx.ml", "TreeEnsembleRegressor", 4, 3)->deprecated, 0);
}

Test(schema, resize_attributes)
{
	const sch_row *r = row_at("", "Resize", 19, 19);
	const sch_attr *a = attr(r, "antialias");
	cr_assert_eq(a->type, AT_INT);
	cr_assert_str_eq(a->default_text, "0");
	cr_assert_eq(attr(r, "axes")->type, AT_INTS);
	cr_assert_str_eq(attr(r, "coordinate_transformation_mode")->default_text, "half_pixel");
	cr_assert_str_eq(attr(r, "cubic_coeff_a")->default_text, "-0.75");
	cr_assert_eq(attr(r, "cubic_coeff_a")->type, AT_FLOAT);
	cr_assert_eq(r->min_inputs, 1);
	cr_assert_eq(r->max_inputs, 4);
	cr_assert_eq(r->inputs[1].option, SCH_OPTIONAL);
	cr_assert_str_eq(r->inputs[2].name, "scales");
	cr_assert(only_tensor(param_types(r, &r->inputs[2]), BIT(DT_FLOAT)));
	cr_assert(only_tensor(param_types(r, &r->inputs[3]), BIT(DT_INT64)));
	/* Resize-13 had no antialias. */
	r = row_at("", "Resize", 17, 13);
	for (int i = 0; i < r->nattrs; i++)
		cr_assert_str_neq(r->attrs[i].name, "antialias");
}

Test(schema, control_flow)
{
	const sch_row *r = row_at("", "If", 21, 21);
	cr_assert_eq(attr(r, "then_branch")->type, AT_GRAPH);
	cr_assert(attr(r, "then_branch")->required);
	cr_assert_eq(attr(r, "else_branch")->type, AT_GRAPH);
	cr_assert(attr(r, "else_branch")->required);
	cr_assert(only_tensor(param_types(r, &r->inputs[0]), BIT(DT_BOOL)));
	cr_assert_eq(r->outputs[0].option, SCH_VARIADIC);
	cr_assert(r->outputs[0].heterogeneous);
	cr_assert_eq(r->max_outputs, INT32_MAX);
	sch_types v = constraint(r, "V")->allowed;
	cr_assert(v.tensor & BIT(DT_INT4));
	cr_assert(v.seq & BIT(DT_FLOAT));
	cr_assert(v.opt_tensor & BIT(DT_FLOAT));
	cr_assert(v.opt_seq & BIT(DT_FLOAT));

	/* Loop-1 counted its variadic from 1, Loop-11 from 0; the optional M and cond
	 * come first and count towards the minimum. */
	r = row_at("", "Loop", 10, 1);
	cr_assert_eq(r->min_inputs, 3);
	cr_assert_eq(r->inputs[2].min_arity, 1);
	r = row_at("", "Loop", 11, 11);
	cr_assert_eq(r->min_inputs, 2);
	cr_assert_eq(r->max_inputs, INT32_MAX);
	cr_assert_eq(r->ninputs, 3);
	cr_assert_eq(r->inputs[0].option, SCH_OPTIONAL);
	cr_assert_eq(r->inputs[1].option, SCH_OPTIONAL);
	cr_assert_eq(r->inputs[2].option, SCH_VARIADIC);
	cr_assert(r->inputs[2].heterogeneous);
	cr_assert_eq(r->inputs[2].min_arity, 0);
	cr_assert(only_tensor(param_types(r, &r->inputs[0]), BIT(DT_INT64)));
	cr_assert(attr(r, "body")->required);

	r = row_at("", "Scan", 9, 9);
	cr_assert_eq(attr(r, "num_scan_inputs")->type, AT_INT);
	cr_assert(attr(r, "num_scan_inputs")->required);
	cr_assert_eq(r->min_inputs, 1);
	r = row_at("", "Scan", 8, 8);
	cr_assert_eq(r->inputs[0].option, SCH_OPTIONAL);
	cr_assert_eq(r->min_inputs, 2);

	r = row_at("", "SequenceMap", 17, 17);
	cr_assert_eq(r->inputs[1].option, SCH_VARIADIC);
	cr_assert_eq(r->inputs[1].min_arity, 0);
	cr_assert_eq(r->min_inputs, 1);
	cr_assert(param_types(r, &r->inputs[0]).seq & BIT(DT_FLOAT));
	cr_assert_eq(param_types(r, &r->inputs[0]).tensor, 0);
}

Test(schema, cast_types_and_required_to)
{
	const sch_row *r = row_at("", "Cast", 22, 21);
	cr_assert_eq(attr(r, "to")->type, AT_INT);
	cr_assert(attr(r, "to")->required);
	cr_assert_str_eq(attr(r, "saturate")->default_text, "1");
	uint64_t t1 = constraint(r, "T1")->allowed.tensor;
	cr_assert(t1 & BIT(DT_INT4) && t1 & BIT(DT_UINT4) && t1 & BIT(DT_FLOAT8E5M2FNUZ) && t1 & BIT(DT_STRING));
	cr_assert_eq(t1 & BIT(DT_FLOAT4E2M1), 0);
	cr_assert_eq(r->outputs[0].constraint, 1);
	r = row_at("", "Cast", 28, 25);
	t1 = constraint(r, "T2")->allowed.tensor;
	cr_assert(t1 & BIT(DT_UINT2) && t1 & BIT(DT_INT2) && t1 & BIT(DT_FLOAT8E8M0));
	cr_assert_str_eq(attr(r, "round_mode")->default_text, "up");
}

Test(schema, newest_opsets_and_domains)
{
	cr_assert_eq(schema_newest_opset(""), 28);
	cr_assert_eq(schema_newest_opset("ai.onnx"), 28);
	cr_assert_eq(schema_newest_opset("ai.onnx.ml"), 5);
	cr_assert_eq(schema_newest_opset("ai.onnx.preview"), 1);
	cr_assert_eq(schema_newest_opset("ai.onnx.preview.training"), 1);
	cr_assert_eq(schema_newest_opset("com.microsoft"), 0);
	cr_assert_eq(schema_newest_opset("ai.onnx.m"), 0);
	cr_assert(schema_knows_domain(""));
	cr_assert(schema_knows_domain("ai.onnx"));
	cr_assert(schema_knows_domain("ai.onnx.ml"));
	cr_assert(schema_knows_domain("ai.onnx.preview"));
	cr_assert(schema_knows_domain("ai.onnx.preview.training"));
	cr_assert_not(schema_knows_domain("com.microsoft"));
	cr_assert_not(schema_knows_domain("ai.onnx.preview.train"));
	cr_assert_not(schema_knows_domain("zzz"));
}

Test(schema, optional_inputs_and_literal_types)
{
	const sch_row *r = row_at("", "Clip", 13, 13);
	cr_assert_eq(r->ninputs, 3);
	cr_assert_str_eq(r->inputs[1].name, "min");
	cr_assert_eq(r->inputs[1].option, SCH_OPTIONAL);
	cr_assert_str_eq(r->inputs[2].name, "max");
	cr_assert_eq(r->inputs[2].option, SCH_OPTIONAL);
	cr_assert_eq(r->inputs[0].option, SCH_SINGLE);
	cr_assert_eq(r->min_inputs, 1);
	cr_assert_eq(r->max_inputs, 3);
	/* Clip-6's defaults are written with parentheses. */
	cr_assert_str_eq(attr(row_at("", "Clip", 6, 6), "min")->default_text, "(-3.402823e+38)");

	r = row_at("", "TopK", 10, 10);
	cr_assert_str_eq(r->inputs[1].name, "K");
	cr_assert_eq(r->inputs[1].constraint, -1);
	cr_assert(only_tensor(r->inputs[1].types, BIT(DT_INT64)));
	cr_assert(only_tensor(param_types(r, &r->outputs[1]), BIT(DT_INT64)));
	cr_assert_eq(attr(r, "axis")->type, AT_INT);
	cr_assert_str_eq(attr(r, "axis")->default_text, "-1");
	/* TopK-1 took k as a required attribute. */
	cr_assert(attr(row_at("", "TopK", 9, 1), "k")->required);

	r = row_at("", "Reshape", 14, 14);
	cr_assert_str_eq(r->inputs[1].name, "shape");
	cr_assert_eq(r->inputs[1].constraint, -1);
	cr_assert(only_tensor(r->inputs[1].types, BIT(DT_INT64)));
	cr_assert_eq(attr(r, "allowzero")->type, AT_INT);
	cr_assert_not(attr(r, "allowzero")->required);
	cr_assert_str_eq(attr(r, "allowzero")->default_text, "0");
	cr_assert(only_tensor(constraint(r, "T")->allowed, ALL15 | BIT(DT_BFLOAT16)));

	/* GRU-1: the optional Y before the required Y_h counts towards the minimum. */
	r = row_at("", "GRU", 1, 1);
	cr_assert_eq(r->outputs[0].option, SCH_OPTIONAL);
	cr_assert_eq(r->min_outputs, 2);
	cr_assert_eq(r->max_outputs, 2);
	cr_assert_str_eq(attr(r, "direction")->default_text, "foward");
}

Test(schema, sequence_and_optional_types)
{
	const sch_row *r = row_at("", "SequenceAt", 11, 11);
	sch_types s = param_types(r, &r->inputs[0]);
	cr_assert_eq(s.seq, ALL15);
	cr_assert_eq(s.tensor, 0);
	cr_assert(only_tensor(param_types(r, &r->inputs[1]), BIT(DT_INT32) | BIT(DT_INT64)));
	cr_assert(only_tensor(param_types(r, &r->outputs[0]), ALL15));

	r = row_at("", "OptionalHasElement", 17, 15);
	sch_types o = param_types(r, &r->inputs[0]);
	cr_assert_eq(o.opt_tensor, ALL15);
	cr_assert_eq(o.opt_seq, ALL15);
	cr_assert_eq(o.tensor | o.seq, 0);
	cr_assert_eq(r->inputs[0].option, SCH_SINGLE);
	cr_assert(only_tensor(param_types(r, &r->outputs[0]), BIT(DT_BOOL)));
	/* From 18 the input is optional and may also be a plain tensor or sequence. */
	r = row_at("", "OptionalHasElement", 18, 18);
	cr_assert_eq(r->inputs[0].option, SCH_OPTIONAL);
	cr_assert_eq(r->min_inputs, 0);
	cr_assert_eq(r->max_inputs, 1);
	o = param_types(r, &r->inputs[0]);
	cr_assert(o.tensor & BIT(DT_FLOAT) && o.seq & BIT(DT_FLOAT) && o.opt_seq & BIT(DT_FLOAT));

	r = row_at("", "Optional", 15, 15);
	cr_assert_eq(attr(r, "type")->type, AT_TYPE_PROTO);
	cr_assert_eq(r->min_inputs, 0);
}

Test(schema, ml_map_types)
{
	const sch_row *r = row_at("ai.onnx.ml", "ZipMap", 5, 1);
	sch_types z = param_types(r, &r->outputs[0]);
	cr_assert(z.seq_map);
	cr_assert_not(z.map);
	cr_assert_eq(z.tensor | z.seq, 0);
	cr_assert_eq(r->inputs[0].constraint, -1);
	cr_assert(only_tensor(r->inputs[0].types, BIT(DT_FLOAT)));
	cr_assert_eq(attr(r, "classlabels_strings")->type, AT_STRINGS);

	r = row_at("ai.onnx.ml", "DictVectorizer", 1, 1);
	sch_types d = param_types(r, &r->inputs[0]);
	cr_assert(d.map);
	cr_assert_not(d.seq_map);
	cr_assert_eq(d.tensor, 0);
	cr_assert(only_tensor(param_types(r, &r->outputs[0]),
	                      BIT(DT_INT64) | BIT(DT_FLOAT) | BIT(DT_DOUBLE) | BIT(DT_STRING)));
	cr_assert_eq(schema_lookup("ai.onnx.ml", "TreeEnsemble", 4), NULL);
	row_at("ai.onnx.ml", "TreeEnsemble", 5, 5);
}

Test(schema, no_inputs_and_many_attributes)
{
	const sch_row *r = row_at("", "Constant", 13, 13);
	cr_assert_eq(r->ninputs, 0);
	cr_assert_null(r->inputs);
	cr_assert_eq(r->min_inputs, 0);
	cr_assert_eq(r->max_inputs, 0);
	cr_assert_eq(r->nattrs, 8);
	cr_assert_eq(attr(r, "sparse_value")->type, AT_SPARSE_TENSOR);
	cr_assert_eq(attr(r, "value")->type, AT_TENSOR);
	cr_assert_eq(attr(r, "value_floats")->type, AT_FLOATS);
	cr_assert_eq(attr(r, "value_strings")->type, AT_STRINGS);
	cr_assert_not(attr(r, "value")->required);
	/* Constant-1 required its value. */
	cr_assert(attr(row_at("", "Constant", 8, 1), "value")->required);
}

Test(schema, preview_domains)
{
	const sch_row *r = row_at("ai.onnx.preview", "FlexAttention", 1, 1);
	cr_assert_eq(attr(r, "score_mod")->type, AT_GRAPH);
	cr_assert_not(attr(r, "score_mod")->required);
	cr_assert_eq(r->ninputs, 3);
	r = row_at("ai.onnx.preview.training", "Adagrad", 1, 1);
	cr_assert_eq(r->min_inputs, 3);
	cr_assert_eq(r->max_inputs, INT32_MAX);
	cr_assert_eq(r->inputs[2].option, SCH_VARIADIC);
	cr_assert(r->inputs[2].heterogeneous);
	cr_assert_eq(r->inputs[2].min_arity, 1);
	cr_assert_null(schema_lookup("ai.onnx.preview.training", "Adagrad", 0));
	cr_assert_null(schema_lookup("", "Adagrad", 28));
}

/* The broadcast column, read from the descriptions' own words, and the legacy
 * attributes: what lint and rewrite derive their operator lists from. */
Test(schema, broadcast_column)
{
	static const struct {
		const char *op;
		int32_t opset;
		uint8_t want;
	} cases[] = {
		{"Add", 14, SCH_BCAST_MULTI},   {"Add", 6, SCH_BCAST_NONE},   {"Where", 16, SCH_BCAST_MULTI},
		{"Sum", 13, SCH_BCAST_MULTI},   {"Mod", 13, SCH_BCAST_MULTI}, {"PRelu", 16, SCH_BCAST_UNI},
		{"Gemm", 13, SCH_BCAST_UNI},    {"Relu", 14, SCH_BCAST_NONE}, {"MatMul", 13, SCH_BCAST_NONE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const sch_row *r = schema_lookup("", cases[i].op, cases[i].opset);
		cr_assert_not_null(r, "%s at %d", cases[i].op, cases[i].opset);
		cr_expect_eq(r->broadcast, cases[i].want, "%s-%d: broadcast %d, want %d", r->op_type, r->since,
			     r->broadcast, cases[i].want);
	}
	static const char *const legacy[] = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"};
	for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++)
		cr_expect(schema_legacy_broadcast(legacy[i]), "%s", legacy[i]);
	static const char *const not_legacy[] = {"Gemm", "Mod", "Max", "Where", "PRelu", "Relu", "Nope"};
	for (size_t i = 0; i < sizeof not_legacy / sizeof not_legacy[0]; i++)
		cr_expect(!schema_legacy_broadcast(not_legacy[i]), "%s", not_legacy[i]);
}

/* The first opset where an operator broadcasts numpy-style: bcast_sites.c and
 * provenance.c derive their operators from it. */
Test(schema, multi_broadcast_since)
{
	static const struct {
		const char *op;
		int32_t since;
	} cases[] = {{"Add", 7},   {"Mod", 10},  {"Sum", 8},    {"Where", 9}, {"BitwiseAnd", 18},
		     {"GreaterOrEqual", 12}, {"PRelu", 0}, {"Relu", 0}, {"Gemm", 0}, {"Nope", 0}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect_eq(schema_multi_broadcast_since(cases[i].op), cases[i].since, "%s: %d, want %d", cases[i].op,
			     schema_multi_broadcast_since(cases[i].op), cases[i].since);
}

/* The shape column (gen_schema.py's SAME_SHAPE, read by provenance.c), the pure
 * column (no seed, no graph attribute in any version; read by rewrite_implicit.c) and
 * the view column (VIEWS, read by lint.c). */
Test(schema, shape_pure_and_view_columns)
{
	static const struct {
		const char *op;
		int32_t opset;
		uint8_t shape;
		bool pure, view;
	} cases[] = {
		{"Relu", 14, SCH_SHAPE_SAME, true, false},   {"Cast", 21, SCH_SHAPE_SAME, true, true},
		{"LayerNormalization", 17, SCH_SHAPE_SAME, true, false}, {"Dropout", 7, SCH_SHAPE_SAME, false, false},
		{"Add", 14, SCH_SHAPE_RULE, true, false},    {"Reshape", 21, SCH_SHAPE_RULE, true, true},
		{"Unsqueeze", 13, SCH_SHAPE_RULE, true, true}, {"Unsqueeze", 1, SCH_SHAPE_RULE, true, true},
		{"RandomNormal", 1, SCH_SHAPE_RULE, false, false}, {"Bernoulli", 15, SCH_SHAPE_RULE, false, false},
		{"Loop", 21, SCH_SHAPE_RULE, false, false},  {"If", 1, SCH_SHAPE_RULE, false, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const sch_row *r = schema_lookup("", cases[i].op, cases[i].opset);
		cr_assert_not_null(r, "%s at %d", cases[i].op, cases[i].opset);
		cr_expect_eq(r->shape, cases[i].shape, "%s-%d: shape %d", r->op_type, r->since, r->shape);
		cr_expect_eq(r->pure, cases[i].pure, "%s-%d: pure %d", r->op_type, r->since, r->pure);
		cr_expect_eq(r->view, cases[i].view, "%s-%d: view %d", r->op_type, r->since, r->view);
	}
}

/* The kernel check indexes a row's verdicts by its binding without measuring them:
 * every row must hold one verdict per binding of its variables, which are the
 * schema row's own. */
Test(schema, kernel_rows_hold_one_verdict_per_binding)
{
	int32_t n;
	const sch_row *rows = schema_rows(&n);
	const kernel_row *kr = kernel_rows();
	for (int32_t i = 0; i < n; i++) {
		if (!kr[i].nvars)
			continue;
		cr_assert_eq(kr[i].nvars, rows[i].nconstraints, "%s-%d: %d variables in the kernel table, %d in the schema",
			     rows[i].op_type, rows[i].since, kr[i].nvars, rows[i].nconstraints);
		size_t bindings = 1;
		for (int32_t v = 0; v < kr[i].nvars; v++)
			bindings *= kr[i].ntypes[v];
		cr_assert_eq(strlen(kr[i].states), bindings, "%s-%d: %zu verdicts for %zu bindings", rows[i].op_type,
			     rows[i].since, strlen(kr[i].states), bindings);
	}
	int32_t nms;
	const kernel_ms_row *ms = kernel_ms_rows(&nms);
	for (int32_t i = 0; i < nms; i++) {
		size_t bindings = 1;
		for (int32_t v = 0; v < ms[i].nvars; v++)
			bindings *= ms[i].ntypes[v];
		cr_assert_eq(strlen(ms[i].states), bindings, "%s::%s: %zu verdicts for %zu bindings", ms[i].domain,
			     ms[i].op_type, strlen(ms[i].states), bindings);
	}
}
