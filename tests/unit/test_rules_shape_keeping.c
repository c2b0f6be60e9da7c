/* test_rules_shape_keeping.c: Swish (24), CumProd (26) and BitCast (26), operators
 * whose output keeps the input's shape (Operators.md: Swish "produces one output data
 * (Tensor<T>) of the same shape"; CumProd "Output tensor of the same type as 'x'";
 * BitCast "The output tensor has the same shape as the input tensor" and "The target
 * data type must have the same bit-width as the input data type"). One table row per
 * one-node model (see tests/support/rule_case.h). */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case cases[] = {
	{"Swish", 24, "Swish", "x", "y", .decls = "x:N,3,5", .attrs = "f:alpha=0.5", .expect = {"FLOAT (N, 3, 5)"}},
	{"CumProd", 26, "CumProd", "x,a", "y", .decls = "x:2,3|a:INT64:", .attrs = "i:exclusive=1|i:reverse=1",
	 .expect = {"FLOAT (2, 3)"}},
	{"CumProd axis out of range", 26, "CumProd", "x,a", "y", .decls = "x:2,3", .ints = "a::2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* 1 = FLOAT, 6 = INT32, 7 = INT64, 11 = DOUBLE */
	{"BitCast FLOAT to INT32", 26, "BitCast", "x", "y", .decls = "x:3,4", .attrs = "i:to=6",
	 .expect = {"INT32 (3, 4)"}},
	{"BitCast INT64 to DOUBLE", 26, "BitCast", "x", "y", .decls = "x:INT64:B", .attrs = "i:to=11",
	 .expect = {"DOUBLE (B)"}},
	{"BitCast widths differ", 26, "BitCast", "x", "y", .decls = "x:3,4", .attrs = "i:to=7",
	 .expect = {"INT64 (rank unknown)"}, .diag = "shape-error"},
	/* BitCast-26 requires to: the schema says so */
	{"BitCast without to", 26, "BitCast", "x", "y", .decls = "x:3,4", .expect = {"unknown"},
	 .diag = "attribute-error"},
};

Test(rules_shape_keeping, all) { RULE_CASES(cases); }
