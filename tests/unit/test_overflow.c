/* test_overflow.c: shapes whose element count does not fit in int64. No
 * tensor has more than INT64_MAX elements, so neither a Reshape to such a shape nor a
 * graph input, output or value_info declared with one can be part of a valid run:
 *
 *   - Reshape (the rule, through one-node table rows, tests/support/rule_case.h):
 *     a target whose known dims multiply past INT64_MAX, none of them 0, is a
 *     shape-error whatever the input, and the output keeps its element type only;
 *     with a -1 the same holds unless the input is empty (the -1 is then 0).
 *     Expand, whose target is content as well, likewise.
 *   - Any node's output (rule_api.c, where a rule publishes it): known dims whose
 *     product, or that product times the element's width in bytes, overflows int64
 *     are a shape-error at that node, once, and the output is published with those
 *     dims unknown, so nothing downstream reports it again; an output that keeps the
 *     size of an input already too big (a declaration, reported there) is left as
 *     it is. ConstantOfShape, Range, Pad and Resize have no check of their own.
 *   - Declared types (the loader, through the public API): a shape-error naming
 *     the value, the model not malformed (it is still inferred over, and `infer` of
 *     a clean model must write one that loads without malformed-model, fuzz.h);
 *     symbols count as unknown, so only the known dims' product matters, and a
 *     known 0 empties the tensor.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "rule_case.h"
#include "test_files.h"

/* 2^40, 2^32 and 2^62, written out for the table. */
#define P40 "1099511627776"
#define P32 "4294967296"
#define P62 "4611686018427387904"

static const rule_case reshape_overflow_cases[] = {
	{"2^40 x 2^40", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:4", .ints = "s:2:1099511627776,1099511627776",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"2^32 x 2^32 is 2^64", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:4", .ints = "s:2:4294967296,4294967296",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"2^62 x 4", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:4", .ints = "s:2:4611686018427387904,4",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"-1 cannot make it fit", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:4",
	 .ints = "s:3:-1,1099511627776,1099511627776", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"symbolic input", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N", .ints = "s:2:1099511627776,1099511627776",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"symbolic input, -1", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N",
	 .ints = "s:3:-1,1099511627776,1099511627776", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"input of unknown rank", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:*",
	 .ints = "s:2:1099511627776,1099511627776", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"0 copied from the input", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:4",
	 .ints = "s:3:0,1099511627776,1099511627776", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"opset 1 attribute", 1, "Reshape", "x", "y", .decls = "x:FLOAT:4",
	 .attrs = "is:shape=1099511627776,1099511627776", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	/* Counts that fit, or a 0 that empties the tensor, stay as they were (bytes, not
	 * FLOATs: 2^62 FLOATs overflow int64 in bytes, node_outputs below). */
	{"2^62 x 1 fits", 13, "Reshape", "x,s", "y", .decls = "x:UINT8:N", .ints = "s:2:4611686018427387904,1",
	 .expect = {"UINT8 (4611686018427387904, 1)"}},
	{"2^31 x 2^31 fits", 13, "Reshape", "x,s", "y", .decls = "x:UINT8:N", .ints = "s:2:2147483648,2147483648",
	 .expect = {"UINT8 (2147483648, 2147483648)"}},
	{"allowzero 0 empties it", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:0",
	 .ints = "s:3:0,1099511627776,1099511627776", .attrs = "i:allowzero=1",
	 .expect = {"FLOAT (0, 1099511627776, 1099511627776)"}},
	{"0 copied from an empty input", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:0",
	 .ints = "s:3:0,1099511627776,1099511627776", .expect = {"FLOAT (0, 1099511627776, 1099511627776)"}},
	{"empty input: -1 is 0", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:0",
	 .ints = "s:3:-1,1099511627776,1099511627776", .expect = {"FLOAT (0, 1099511627776, 1099511627776)"}},
};

Test(overflow, reshape_target) { RULE_CASES(reshape_overflow_cases); }

/* Expand takes its target as content too: the same limit on what it may make. */
static const rule_case expand_overflow_cases[] = {
	{"2^40 x 2^40", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:1", .ints = "s:2:1099511627776,1099511627776",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"the input's dim times the target's", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:1099511627776,1",
	 .ints = "s:2:1,1099511627776", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"2^31 x 2^31 fits", 13, "Expand", "x,s", "y", .decls = "x:UINT8:1", .ints = "s:2:2147483648,2147483648",
	 .expect = {"UINT8 (2147483648, 2147483648)"}},
	{"an empty input stays empty", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:0,1",
	 .ints = "s:3:1099511627776,1,1099511627776", .expect = {"FLOAT (1099511627776, 0, 1099511627776)"}},
};

Test(overflow, expand_target) { RULE_CASES(expand_overflow_cases); }

/* The message says what is wrong with which shape: the requested count overflows,
 * and the input's 4 elements. */
Test(overflow, reshape_message)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "4");
	mb_init_ints(b, "s", "2", (int64_t[]){1099511627776LL, 1099511627776LL});
	mb_node(b, "Reshape", "x,s", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	const char *msg = mb_message(m, "shape-error");
	cr_expect(strstr(msg, "cannot reshape 'x' (4,) (4 elements) to (" P40 ", " P40 ")"), "%s", msg);
	cr_expect(strstr(msg, "overflows int64"), "%s", msg);
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
}

/* ---- any node's output ---------------------------------------------------------- */

/* 2^61, 2^60 and 2^59: 2^62 FLOATs and 2^60 INT64s take 2^64 and 2^63 bytes, past
 * INT64_MAX; 2^59 INT64s take 2^62, which fits. */
#define P61 "2305843009213693952"
#define P60 "1152921504606846976"
#define P59 "576460752303423488"

static const rule_case output_overflow_cases[] = {
	/* Elements: the product itself overflows. */
	{"ConstantOfShape 2^40 x 2^40", 13, "ConstantOfShape", "s", "y", .ints = "s:2:1099511627776,1099511627776",
	 .expect = {"FLOAT (?, ?)"}, .findings = 1},
	{"Resize by 1e10 x 1e10", 13, "Resize", "x,,sc", "y", .decls = "x:FLOAT:1,1,2,2",
	 .floats = "sc:4:1,1,1e10,1e10", .expect = {"FLOAT (1, 1, ?, ?)"}, .findings = 1},
	/* Bytes: the count fits, times the element's width it does not. */
	{"Range 0..2^62 on INT64", 13, "Range", "a,b,d", "y", .ints = "a::0|b::4611686018427387904|d::1",
	 .expect = {"INT64 (?)"}, .findings = 1},
	{"Range 0..2^60 on INT64 is 2^63 bytes", 13, "Range", "a,b,d", "y",
	 .ints = "a::0|b::1152921504606846976|d::1", .expect = {"INT64 (?)"}, .findings = 1},
	{"Pad (2,) by 2^62", 13, "Pad", "x,p", "y", .decls = "x:FLOAT:2", .ints = "p:2:0,4611686018427387904",
	 .expect = {"FLOAT (?)"}, .findings = 1},
	{"Tile (2,) 2^61 times", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:2", .ints = "r:1:2305843009213693952",
	 .expect = {"FLOAT (?)"}, .findings = 1},
	{"Expand to 2^62 FLOATs", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:1", .ints = "s:1:4611686018427387904",
	 .expect = {"FLOAT (?)"}, .findings = 1},
	{"Cast of 2^62 INT8s to FLOAT", 13, "Cast", "x", "y", .decls = "x:INT8:4611686018427387904",
	 .attrs = "i:to=1", .expect = {"FLOAT (?)"}, .findings = 1},
	{"a symbol beside them", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:N,2", .ints = "r:2:1,2305843009213693952",
	 .expect = {"FLOAT (N, ?)"}, .findings = 1},
	/* What fits stays as it is. */
	{"Range 0..2^59 on INT64 fits", 13, "Range", "a,b,d", "y", .ints = "a::0|b::576460752303423488|d::1",
	 .expect = {"INT64 (576460752303423488)"}},
	{"2^62 INT8s fit", 13, "Expand", "x,s", "y", .decls = "x:INT8:1", .ints = "s:1:4611686018427387904",
	 .expect = {"INT8 (4611686018427387904)"}},
	{"2^62 INT4s fit", 21, "Cast", "x", "y", .decls = "x:INT8:4611686018427387904", .attrs = "i:to=22",
	 .expect = {"INT4 (4611686018427387904)"}},
	{"a 0 empties it", 13, "ConstantOfShape", "s", "y", .ints = "s:3:1099511627776,1099511627776,0",
	 .expect = {"FLOAT (1099511627776, 1099511627776, 0)"}},
	{"symbols do not count", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:N,1", .ints = "r:2:1,1099511627776",
	 .expect = {"FLOAT (N, 1099511627776)"}},
	{"STRING has no width", 13, "Expand", "x,s", "y", .decls = "x:STRING:1", .ints = "s:1:4611686018427387904",
	 .expect = {"STRING (4611686018427387904)"}},
};

Test(overflow, node_outputs) { RULE_CASES(output_overflow_cases); }

/* The message names the output and its shape; the node after it sees unknown dims
 * and says nothing. */
Test(overflow, output_reported_once)
{
	mb *b = mb_new(13);
	mb_init_ints(b, "s", "2", (int64_t[]){1099511627776LL, 1099511627776LL});
	mb_node(b, "ConstantOfShape", "s", "y");
	mb_node(b, "Relu", "y", "z");
	mb_node(b, "Tile", "z,s", "w");
	mb_output(b, "w", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	const char *msg = mb_message(m, "shape-error");
	cr_expect(strstr(msg, "output 'y' would be (" P40 ", " P40 "): "), "%s", msg);
	cr_expect(strstr(msg, "elements overflow int64"), "%s", msg);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (?, ?)");
	cr_expect_str_eq(mb_type(m, "w"), "FLOAT (?, ?)");
	osh_model_free(m);
}

Test(overflow, output_bytes_message)
{
	mb *b = mb_new(13);
	mb_init_ints(b, "a", "", (int64_t[]){0});
	mb_init_ints(b, "l", "", (int64_t[]){4611686018427387904LL});
	mb_init_ints(b, "d", "", (int64_t[]){1});
	mb_node(b, "Range", "a,l,d", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	const char *msg = mb_message(m, "shape-error");
	cr_expect(strstr(msg, "output 'y' would be (" P62 ",): " P62 " elements of 8 bytes overflow int64"), "%s", msg);
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
}

/* ---- declared types ------------------------------------------------------------ */

/* Loads what b built through osh_model_load_buffer, as a file would be (mb_save into
 * a scratch directory, then the bytes). */
static osh_model *load_built(mb *b)
{
	char *dir = make_tmpdir_for("overflow");
	char *path = path_in(dir, "m.onnx");
	mb_save(b, path);
	size_t n;
	uint8_t *bytes = slurp(path, &n);
	unlink(path);
	free(path);
	remove_dir(dir);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, bytes, n, "m.onnx", NULL, &err), OSH_OK, "%s", err.message);
	free(bytes);
	return m;
}

/* The diagnostic about the value `name`, or NULL. */
static const osh_diag *diag_for(osh_model *m, const char *name)
{
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		if (!strcmp(d->value, name))
			return d;
	}
	return NULL;
}

typedef enum where { AS_INPUT, AS_OUTPUT, AS_VALUE_INFO } where;

/* x -> Identity -> t -> Identity -> y, with one of x, y, t declared with `dims`. */
static osh_model *declared(where w, const char *dims)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, w == AS_INPUT ? dims : "?,?");
	mb_node(b, "Identity", "x", "t");
	mb_node(b, "Identity", "t", "y");
	if (w == AS_VALUE_INFO)
		mb_value_info(b, "t", DT_FLOAT, dims);
	mb_output(b, "y", DT_FLOAT, w == AS_OUTPUT ? dims : NULL);
	return load_built(b);
}

static const struct {
	const char *name;
	where w;
	const char *value, *dims;
	bool overflows;
} declared_cases[] = {
	{"input 2^40 x 2^40", AS_INPUT, "x", P40 "," P40, true},
	{"output 2^40 x 2^40", AS_OUTPUT, "y", P40 "," P40, true},
	{"value_info 2^62 x 4", AS_VALUE_INFO, "t", P62 ",4", true},
	{"input 2^32 x 2^32", AS_INPUT, "x", P32 "," P32, true},
	{"symbol beside an overflow", AS_INPUT, "x", "N," P40 "," P40, true},
	{"unknown dim beside an overflow", AS_VALUE_INFO, "t", P40 ",?," P40, true},
	{"2^31 x 2^31 fits", AS_INPUT, "x", "2147483648,2147483648", false},
	{"INT64_MAX alone fits", AS_OUTPUT, "y", "9223372036854775807", false},
	{"a 0 empties it", AS_VALUE_INFO, "t", P40 ",0," P40, false},
	{"symbols do not count", AS_INPUT, "x", "N,M," P40, false},
};

Test(overflow, declared_shapes)
{
	for (size_t i = 0; i < sizeof declared_cases / sizeof declared_cases[0]; i++) {
		const char *name = declared_cases[i].name, *val = declared_cases[i].value;
		osh_model *m = declared(declared_cases[i].w, declared_cases[i].dims);
		const osh_diag *d = diag_for(m, val);
		if (!declared_cases[i].overflows) {
			cr_expect_null(d, "%s: unexpected: %s", name, d ? d->message : "");
			cr_expect(!osh_model_has_errors(m), "%s: the model has errors", name);
			osh_model_free(m);
			continue;
		}
		cr_expect(osh_model_has_errors(m), "%s: no error", name);
		cr_expect(!osh_model_is_malformed(m), "%s: malformed", name);
		cr_expect_not_null(d, "%s: no diagnostic names '%s'", name, val);
		if (d) {
			char want[64];
			snprintf(want, sizeof want, "'%s' is declared with", val);
			cr_expect_eq(d->severity, OSH_ERROR, "%s", name);
			cr_expect_str_eq(d->code, "shape-error", "%s", name);
			cr_expect(strstr(d->message, want), "%s: %s", name, d->message);
			cr_expect(strstr(d->message, "element count overflows int64"), "%s: %s", name, d->message);
		}
		osh_model_free(m);
	}
}

/* The rest of the model is still inferred, and the finding stays among its errors. */
Test(overflow, declared_input_is_still_inferred)
{
	osh_model *m = declared(AS_INPUT, P40 "," P40);
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_expect_str_eq(mb_type(m, "t"), "FLOAT (" P40 ", " P40 ")");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
}
