/* test_rules_deform_conv.c: DeformConv, one table row per one-node model (see
 * tests/support/rule_case.h).
 *
 * DeformConv (Operators.md): Y (N, oC, o1..on), o_i = floor((D_i + pads - (k_i - 1) *
 * d_i - 1) / s_i) + 1; the offset (N, offset_group * prod(k) * n, o1..on) and mask
 * carry o_i too. The first row is the spec's own example: X (1, 1, 3, 3), W (1, 1, 2, 2),
 * offset (1, 8, 2, 2) -> Y (1, 1, 2, 2).
 */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case deform_cases[] = {
	{"spec example", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,1,3,3|w:1,1,2,2|o:1,8,2,2",
	 .expect = {"FLOAT (1, 1, 2, 2)"}},
	/* (10 + 1 + 1 - 3) / 2 + 1 = 5; (8 - 2 * 2 - 1) / 1 + 1 = 4 with dilation 2 */
	{"strides, pads, dilations", 22, "DeformConv", "x,w,o,b,m", "y",
	 .decls = "x:2,4,10,8|w:6,4,3,3|o:2,18,5,4|b:6|m:2,9,5,4",
	 .attrs = "is:strides=2,1|is:pads=1,0,1,0|is:dilations=1,2", .expect = {"FLOAT (2, 6, 5, 4)"}},
	/* group 2: W (oC, C / 2, k...) */
	{"groups", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,4,5,5|w:6,2,3,3|o:1,36,3,3",
	 .attrs = "i:group=2|i:offset_group=2", .expect = {"FLOAT (1, 6, 3, 3)"}},
	/* the output sizes from the offset when X's are symbolic */
	{"output size from offset", 19, "DeformConv", "x,w,o", "y", .decls = "x:N,3,H,W|w:8,3,3,3|o:N,18,7,9",
	 .expect = {"FLOAT (N, 8, 7, 9)"}},
	{"3-D", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,2,4,4,4|w:3,2,2,2,2|o:1,24,3,3,3",
	 .expect = {"FLOAT (1, 3, 3, 3, 3)"}},
	{"offset disagrees", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,1,3,3|w:1,1,2,2|o:1,8,3,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"channels disagree", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,3,3,3|w:1,2,2,2|o:1,8,2,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* 2 * 2 taps * 2 coordinates = 8 offset channels, not 9 */
	{"offset channels", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,1,3,3|w:1,1,2,2|o:1,9,2,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* offset_group 2: the mask has 2 * 9 channels */
	{"mask channels", 19, "DeformConv", "x,w,o,,m", "y", .decls = "x:1,4,5,5|w:6,4,3,3|o:1,36,3,3|m:1,9,3,3",
	 .attrs = "i:offset_group=2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"kernel larger than input", 19, "DeformConv", "x,w,o", "y", .decls = "x:1,1,2,2|w:1,1,3,3|o:*",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_deform_conv, deform_conv) { RULE_CASES(deform_cases); }
