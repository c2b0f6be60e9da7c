/* test_rules_tensor_reshape.c: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Expand,
 * Tile and Pad, one node per row (see tests/support/rule_case.h). Expected shapes are
 * worked out by hand from Operators.md / Changelog.md; fresh symbols (sizes known only
 * at run time) are named unk__0, unk__1... in the order a model makes them. */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case reshape_cases[] = {
	{"0 copies, -1 solved", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:3:4,0,-1",
	 .expect = {"FLOAT (4, 3, 2)"}},
	{"symbolic batch, 0 and -1", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,3,4", .ints = "s:2:0,-1",
	 .expect = {"FLOAT (N, 12)"}},
	{"merge heads", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,12,64", .ints = "s:2:0,-1",
	 .expect = {"FLOAT (N, 768)"}},
	{"split heads", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,768", .ints = "s:3:0,12,-1",
	 .expect = {"FLOAT (N, 12, 64)"}},
	{"-1 is the symbol", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,12,64", .ints = "s:3:64,12,-1",
	 .expect = {"FLOAT (64, 12, N)"}},
	{"-1 is a multiple of a symbol", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,12,64", .ints = "s:2:64,-1",
	 .expect = {"FLOAT (64, 12*N)"}},
	{"-1 first", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:2:-1,4",
	 .expect = {"FLOAT (6, 4)"}},
	{"-1 alone", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:1:-1", .expect = {"FLOAT (24)"}},
	{"spec reordered_all_dims", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:3:4,2,3",
	 .expect = {"FLOAT (4, 2, 3)"}},
	{"spec zero_and_negative_dim", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:4:2,0,1,-1",
	 .expect = {"FLOAT (2, 3, 1, 4)"}},
	{"-1 does not divide", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:2:-1,5",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"counts differ", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:2:4,5",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"two -1", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:2:-1,-1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"-2 is invalid", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:2:-2,12",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"0 past the input rank", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3", .ints = "s:3:0,0,0",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"allowzero keeps 0", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:0,3,4", .ints = "s:3:3,4,0",
	 .attrs = "i:allowzero=1", .expect = {"FLOAT (3, 4, 0)"}},
	{"without allowzero 0 copies", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:0,3,4", .ints = "s:3:0,4,3",
	 .expect = {"FLOAT (0, 4, 3)"}},
	{"allowzero with 0 and -1", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:0,3,4", .ints = "s:2:0,-1",
	 .attrs = "i:allowzero=1", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"empty tensor, -1", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:0,3", .ints = "s:2:-1,3",
	 .expect = {"FLOAT (0, 3)"}},
	{"0 copies, then -1", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3", .ints = "s:2:0,-1",
	 .expect = {"FLOAT (2, 3)"}},
	/* ONNX Runtime refuses it: "Invalid Target shape product of 0. Product cannot be 0 in
	 * combination with -1". */
	{"0 elements leave -1 open", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:0,3", .ints = "s:2:0,-1",
	 .attrs = "i:allowzero=0", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"allowzero 0 against 6 elements", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3", .ints = "s:2:0,6",
	 .attrs = "i:allowzero=1", .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"product of symbols", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,M", .ints = "s:1:-1",
	 .expect = {"FLOAT (M*N)"}},
	{"unknown input rank", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:*", .ints = "s:2:0,-1",
	 .expect = {"FLOAT (?, unk__0)"}},
	{"runtime target", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3|s:INT64:3",
	 .expect = {"FLOAT (unk__0, unk__1, unk__2)"}},
	/* A runtime target of length 1 holds every element. */
	{"spec one_dim, target not known", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4|s:INT64:1",
	 .expect = {"FLOAT (24)"}},
	{"runtime 1-D target, allowzero", 14, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4|s:INT64:1",
	 .attrs = "i:allowzero=1", .expect = {"FLOAT (24)"}},
	{"runtime 1-D target, empty input", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:0,N|s:INT64:1",
	 .expect = {"FLOAT (0)"}},
	{"runtime 1-D target, one symbol", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,1|s:INT64:1",
	 .expect = {"FLOAT (N)"}},
	{"runtime 1-D target, symbol times 3", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,3|s:INT64:1",
	 .expect = {"FLOAT (3*N)"}},
	{"runtime 1-D target, two symbols", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:N,M|s:INT64:1",
	 .expect = {"FLOAT (M*N)"}},
	{"runtime 1-D target, unknown dim", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,?|s:INT64:1",
	 .expect = {"FLOAT (unk__0)"}},
	{"runtime 1-D target, unknown rank", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:*|s:INT64:1",
	 .expect = {"FLOAT (unk__0)"}},
	{"runtime 2-D target stays open", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4|s:INT64:2",
	 .expect = {"FLOAT (unk__0, unk__1)"}},
	{"runtime 1-D target, content passes", 13, "Reshape", "d,s", "y", .decls = "s:INT64:1",
	 .ints = "d:2,2:1,2,3,4", .expect = {"INT64 (4)"}, .content = {"[1, 2, 3, 4]"}},
	{"target not 1-D", 13, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3|s:INT64:2,3",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"opset 5 input", 5, "Reshape", "x,s", "y", .decls = "x:FLOAT:2,3,4", .ints = "s:2:6,-1",
	 .expect = {"FLOAT (6, 4)"}},
	{"opset 1 attribute", 1, "Reshape", "x", "y", .decls = "x:FLOAT:2,3,4", .attrs = "is:shape=6,-1",
	 .expect = {"FLOAT (6, 4)"}},
	{"content passes", 13, "Reshape", "d,s", "y", .ints = "d:2,2:1,2,3,4|s:1:-1", .expect = {"INT64 (4)"},
	 .content = {"[1, 2, 3, 4]"}},
};

Test(rules_tensor, reshape) { RULE_CASES(reshape_cases); }

static const rule_case flatten_cases[] = {
	{"default axis 1", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .expect = {"FLOAT (2, 60)"}},
	{"axis 0", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .attrs = "i:axis=0",
	 .expect = {"FLOAT (1, 120)"}},
	{"axis r", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .attrs = "i:axis=4",
	 .expect = {"FLOAT (120, 1)"}},
	{"axis -1", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .attrs = "i:axis=-1",
	 .expect = {"FLOAT (24, 5)"}},
	{"axis -4", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .attrs = "i:axis=-4",
	 .expect = {"FLOAT (1, 120)"}},
	{"axis 5 out of range", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .attrs = "i:axis=5",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"axis -5 out of range", 13, "Flatten", "x", "y", .decls = "x:FLOAT:2,3,4,5", .attrs = "i:axis=-5",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"symbol times known", 13, "Flatten", "x", "y", .decls = "x:FLOAT:N,3,4", .expect = {"FLOAT (N, 12)"}},
	{"symbol times symbol", 13, "Flatten", "x", "y", .decls = "x:FLOAT:N,3,M", .attrs = "i:axis=2",
	 .expect = {"FLOAT (3*N, M)"}},
	{"unknown rank, axis 0", 13, "Flatten", "x", "y", .decls = "x:FLOAT:*", .attrs = "i:axis=0",
	 .expect = {"FLOAT (1, ?)"}},
	{"empty dim", 9, "Flatten", "x", "y", .decls = "x:FLOAT:2,0,4", .attrs = "i:axis=2",
	 .expect = {"FLOAT (0, 4)"}},
};

Test(rules_tensor, flatten) { RULE_CASES(flatten_cases); }

static const rule_case transpose_cases[] = {
	{"default reverses", 13, "Transpose", "x", "y", .decls = "x:FLOAT:2,3,4", .expect = {"FLOAT (4, 3, 2)"}},
	{"perm", 13, "Transpose", "x", "y", .decls = "x:FLOAT:2,3,4", .attrs = "is:perm=1,0,2",
	 .expect = {"FLOAT (3, 2, 4)"}},
	{"symbols move", 1, "Transpose", "x", "y", .decls = "x:FLOAT:N,3", .expect = {"FLOAT (3, N)"}},
	{"perm too short", 13, "Transpose", "x", "y", .decls = "x:FLOAT:2,3,4", .attrs = "is:perm=0,1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"perm repeats", 13, "Transpose", "x", "y", .decls = "x:FLOAT:2,3,4", .attrs = "is:perm=0,0,1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"perm out of range", 13, "Transpose", "x", "y", .decls = "x:FLOAT:2,3,4", .attrs = "is:perm=0,1,3",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"hostile perm", 13, "Transpose", "x", "y", .decls = "x:FLOAT:2,3", .attrs = "is:perm=9223372036854775807,0",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"unknown rank, perm", 13, "Transpose", "x", "y", .decls = "x:FLOAT:*", .attrs = "is:perm=1,0",
	 .expect = {"FLOAT (?, ?)"}},
	{"content moves", 13, "Transpose", "d", "y", .ints = "d:2,3:1,2,3,4,5,6", .expect = {"INT64 (3, 2)"},
	 .content = {"[1, 4, 2, 5, 3, 6]"}},
};

Test(rules_tensor, transpose) { RULE_CASES(transpose_cases); }

static const rule_case squeeze_cases[] = {
	{"opset 11 axes", 11, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3,1,5", .attrs = "is:axes=0,2",
	 .expect = {"FLOAT (3, 5)"}},
	{"opset 11 negative axis", 11, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3,1,5", .attrs = "is:axes=-2",
	 .expect = {"FLOAT (1, 3, 5)"}},
	{"opset 1 axes", 1, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3,1,5", .attrs = "is:axes=0",
	 .expect = {"FLOAT (3, 1, 5)"}},
	{"opset 13 axes input", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3,1,5", .ints = "a:1:-4",
	 .expect = {"FLOAT (3, 1, 5)"}},
	{"opset 13 no axes", 13, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3,1,5", .expect = {"FLOAT (3, 5)"}},
	{"no axes, a dim may be 1", 13, "Squeeze", "x", "y", .decls = "x:FLOAT:1,N,3",
	 .expect = {"FLOAT (rank unknown)"}},
	/* Unknown axes of known count: only the dims that may be 1 can go. */
	{"unknown axes, as many as the 1s", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3,1,5|a:INT64:2",
	 .expect = {"FLOAT (3, 5)"}},
	{"spec squeeze, axes not known", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3,4,5|a:INT64:1",
	 .expect = {"FLOAT (3, 4, 5)"}},
	{"unknown axis, a symbol must be the 1", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:N,3,4|a:INT64:1",
	 .expect = {"FLOAT (3, 4)"}},
	{"unknown axis, an unknown dim must be the 1", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:?,3|a:INT64:1",
	 .expect = {"FLOAT (3)"}},
	{"unknown axis, two 1s: only the ends", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3,1,5|a:INT64:1",
	 .expect = {"FLOAT (?, ?, 5)"}},
	{"unknown axis, two 1s inside", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:2,1,3,1,4|a:INT64:1",
	 .expect = {"FLOAT (2, ?, ?, 4)"}},
	{"unknown axis, a symbol may be 1", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:N,3,1|a:INT64:1",
	 .expect = {"FLOAT (?, ?)"}},
	{"unknown axis, an unknown dim may be 1", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:2,?,1|a:INT64:1",
	 .expect = {"FLOAT (2, ?)"}},
	{"unknown axes, fewer dims may be 1", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3|a:INT64:2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"unknown axes, more than the rank", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1|a:INT64:2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"unknown axes of unknown count", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3|a:INT64:?",
	 .expect = {"FLOAT (rank unknown)"}},
	{"unknown input rank", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:*|a:INT64:1",
	 .expect = {"FLOAT (rank unknown)"}},
	{"empty axes input, no 1s", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:2,3|a:INT64:0",
	 .expect = {"FLOAT (2, 3)"}},
	{"empty axes input, a 1", 13, "Squeeze", "x,a", "y", .decls = "x:FLOAT:1,3|a:INT64:0",
	 .expect = {"FLOAT (rank unknown)"}},
	{"unknown axis, content passes", 13, "Squeeze", "d,a", "y", .decls = "a:INT64:1", .ints = "d:1,2:4,5",
	 .expect = {"INT64 (2)"}, .content = {"[4, 5]"}},
	{"squeezing a 3", 11, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3", .attrs = "is:axes=1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"axis out of range", 11, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3", .attrs = "is:axes=2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"axis repeated", 11, "Squeeze", "x", "y", .decls = "x:FLOAT:1,3", .attrs = "is:axes=0,-2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"symbol squeezed is 1", 11, "Squeeze", "x", "y", .decls = "x:FLOAT:N,3", .attrs = "is:axes=0",
	 .expect = {"FLOAT (3)"}},
	{"content passes", 13, "Squeeze", "d,a", "y", .ints = "d:1,2:4,5|a:1:0", .expect = {"INT64 (2)"},
	 .content = {"[4, 5]"}},
};

Test(rules_tensor, squeeze) { RULE_CASES(squeeze_cases); }

static const rule_case unsqueeze_cases[] = {
	{"opset 11 axis 0", 11, "Unsqueeze", "x", "y", .decls = "x:FLOAT:3,4,5", .attrs = "is:axes=0",
	 .expect = {"FLOAT (1, 3, 4, 5)"}},
	{"opset 11 axis -1 counts in the output", 11, "Unsqueeze", "x", "y", .decls = "x:FLOAT:3,4,5",
	 .attrs = "is:axes=-1", .expect = {"FLOAT (3, 4, 5, 1)"}},
	{"opset 1 two axes", 1, "Unsqueeze", "x", "y", .decls = "x:FLOAT:3,4,5", .attrs = "is:axes=1,4",
	 .expect = {"FLOAT (3, 1, 4, 5, 1)"}},
	{"opset 13 input", 13, "Unsqueeze", "x,a", "y", .decls = "x:FLOAT:3,4,5", .ints = "a:2:1,-1",
	 .expect = {"FLOAT (3, 1, 4, 5, 1)"}},
	{"spec negative_axes", 13, "Unsqueeze", "x,a", "y", .decls = "x:FLOAT:1,3,1,5", .ints = "a:1:-2",
	 .expect = {"FLOAT (1, 3, 1, 1, 5)"}},
	{"spec unsorted_axes", 13, "Unsqueeze", "x,a", "y", .decls = "x:FLOAT:3,4,5", .ints = "a:3:5,4,2",
	 .expect = {"FLOAT (3, 4, 1, 5, 1, 1)"}},
	{"symbols stay", 13, "Unsqueeze", "x,a", "y", .decls = "x:FLOAT:N", .ints = "a:1:0",
	 .expect = {"FLOAT (1, N)"}},
	{"repeated axis", 13, "Unsqueeze", "x,a", "y", .decls = "x:FLOAT:3", .ints = "a:2:0,-3",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"axis past the output rank", 11, "Unsqueeze", "x", "y", .decls = "x:FLOAT:3,4,5", .attrs = "is:axes=4",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"opset 13 without axes", 13, "Unsqueeze", "x", "y", .decls = "x:FLOAT:3", .expect = {"FLOAT (rank unknown)"},
	 .findings = 1},
	{"unknown axes of known count", 13, "Unsqueeze", "x,a", "y", .decls = "x:FLOAT:3|a:INT64:2",
	 .expect = {"FLOAT (?, ?, ?)"}},
	{"scalar content", 13, "Unsqueeze", "d,a", "y", .ints = "d::7|a:1:0", .expect = {"INT64 (1)"},
	 .content = {"[7]"}},
};

Test(rules_tensor, unsqueeze) { RULE_CASES(unsqueeze_cases); }

/* The bidirectional table of broadcasting.md section 5, then the edges. */
static const rule_case expand_cases[] = {
	{"(5,) to (1,)", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:5", .ints = "s:1:1", .expect = {"FLOAT (5)"}},
	{"(2, 3) to (3,)", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:2,3", .ints = "s:1:3",
	 .expect = {"FLOAT (2, 3)"}},
	{"(3, 1) to (3, 4)", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:3,1", .ints = "s:2:3,4",
	 .expect = {"FLOAT (3, 4)"}},
	{"(3, 4) to ()", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:3,4", .ints = "s:0:",
	 .expect = {"FLOAT (3, 4)"}},
	{"(3, 1) to (2, 1, 6)", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:3,1", .ints = "s:3:2,1,6",
	 .expect = {"FLOAT (2, 3, 6)"}},
	{"(16, 1, 1) to (1, 1, 50, 50)", 8, "Expand", "x,s", "y", .decls = "x:FLOAT:16,1,1", .ints = "s:4:1,1,50,50",
	 .expect = {"FLOAT (1, 16, 50, 50)"}},
	{"(3,) to (2,) mismatch", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:3", .ints = "s:1:2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"symbol kept", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:N,1", .ints = "s:2:1,4",
	 .expect = {"FLOAT (N, 4)"}},
	{"runtime target", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:5,1|s:INT64:3",
	 .expect = {"FLOAT (unk__0, 5, unk__2)"}},
	{"negative target", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:5", .ints = "s:1:-1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"empty dim", 13, "Expand", "x,s", "y", .decls = "x:FLOAT:0,1", .ints = "s:2:1,3",
	 .expect = {"FLOAT (0, 3)"}},
	{"content broadcast", 13, "Expand", "d,s", "y", .ints = "d:2:1,2|s:2:2,2", .expect = {"INT64 (2, 2)"},
	 .content = {"[1, 2, 1, 2]"}},
	{"content column", 13, "Expand", "d,s", "y", .ints = "d:2,1:1,2|s:2:2,3", .expect = {"INT64 (2, 3)"},
	 .content = {"[1, 1, 1, 2, 2, 2]"}},
};

Test(rules_tensor, expand) { RULE_CASES(expand_cases); }

static const rule_case tile_cases[] = {
	{"repeats", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:2,3", .ints = "r:2:2,2", .expect = {"FLOAT (4, 6)"}},
	{"repeat 0", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:2,3", .ints = "r:2:1,0", .expect = {"FLOAT (2, 0)"}},
	{"symbol times 1", 6, "Tile", "x,r", "y", .decls = "x:FLOAT:N,3", .ints = "r:2:1,2",
	 .expect = {"FLOAT (N, 6)"}},
	{"symbol times 2", 6, "Tile", "x,r", "y", .decls = "x:FLOAT:N,3", .ints = "r:2:2,1",
	 .expect = {"FLOAT (2*N, 3)"}},
	{"repeats length", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:2,3", .ints = "r:1:2",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"negative repeat", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:2,3", .ints = "r:2:1,-1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"runtime repeats", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:2,3|r:INT64:2",
	 .expect = {"FLOAT (unk__0, unk__1)"}},
	{"runtime repeats of 0", 13, "Tile", "x,r", "y", .decls = "x:FLOAT:0,3|r:INT64:2",
	 .expect = {"FLOAT (0, unk__0)"}},
	{"content repeats", 13, "Tile", "d,r", "y", .ints = "d:2:1,2|r:1:2", .expect = {"INT64 (4)"},
	 .content = {"[1, 2, 1, 2]"}},
	/* Tile-1 types 'tiles' and 'axis' as T (a float): int64 is a type-error (said once
	 * for both), and the values are still read. */
	{"opset 1 tiles and axis", 1, "Tile", "x,t,a", "y", .decls = "x:FLOAT:2,3", .ints = "t::3|a::1",
	 .expect = {"FLOAT (2, 9)"}, .findings = 1},
};

Test(rules_tensor, tile) { RULE_CASES(tile_cases); }

static const rule_case pad_cases[] = {
	{"opset 2 attribute", 2, "Pad", "x", "y", .decls = "x:FLOAT:2,2", .attrs = "is:pads=0,2,0,0",
	 .expect = {"FLOAT (2, 4)"}},
	{"opset 1 paddings", 1, "Pad", "x", "y", .decls = "x:FLOAT:2,2", .attrs = "is:paddings=1,0,1,0",
	 .expect = {"FLOAT (4, 2)"}},
	{"opset 11 input", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:2,2", .ints = "p:4:0,2,0,0",
	 .expect = {"FLOAT (2, 4)"}},
	{"spec constant_pad", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:1,3,4,5", .ints = "p:8:0,0,1,3,0,0,2,4",
	 .expect = {"FLOAT (1, 3, 7, 12)"}},
	{"reflect keeps the rule", 13, "Pad", "x,p", "y", .decls = "x:FLOAT:1,3,4,5", .ints = "p:8:0,0,1,1,0,0,1,1",
	 .attrs = "s:mode=reflect", .expect = {"FLOAT (1, 3, 6, 7)"}},
	{"negative pads crop", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:3,4", .ints = "p:4:-1,0,0,-2",
	 .expect = {"FLOAT (2, 2)"}},
	{"crop past zero", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:3,4", .ints = "p:4:-2,0,-2,0",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"pads length", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:3,4", .ints = "p:2:1,1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	{"opset 18 axes", 18, "Pad", "x,p,,a", "y", .decls = "x:FLOAT:1,3,4,5", .ints = "p:2:1,1|a:1:-1",
	 .expect = {"FLOAT (1, 3, 4, 7)"}},
	{"opset 18 axes length", 18, "Pad", "x,p,,a", "y", .decls = "x:FLOAT:1,3,4,5", .ints = "p:4:1,1,1,1|a:1:-1",
	 .expect = {"FLOAT (rank unknown)"}, .findings = 1},
	/* ONNX Runtime's kernel runs wrap at every version. */
	{"wrap before 19", 18, "Pad", "x,p", "y", .decls = "x:FLOAT:2,2", .ints = "p:4:0,1,0,1",
	 .attrs = "s:mode=wrap", .expect = {"FLOAT (2, 4)"}},
	{"wrap from 19", 19, "Pad", "x,p", "y", .decls = "x:FLOAT:2,2", .ints = "p:4:0,1,0,1", .attrs = "s:mode=wrap",
	 .expect = {"FLOAT (2, 4)"}},
	{"runtime pads", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:2,2|p:INT64:4",
	 .expect = {"FLOAT (unk__0, unk__1)"}},
	{"symbol padded by 0 stays", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:N,3", .ints = "p:4:0,1,0,1",
	 .expect = {"FLOAT (N, 5)"}},
	{"symbol padded", 11, "Pad", "x,p", "y", .decls = "x:FLOAT:N,3", .ints = "p:4:1,0,0,0",
	 .expect = {"FLOAT (N + 1, 3)"}},
};

Test(rules_tensor, pad) { RULE_CASES(pad_cases); }

/* Hostile attributes: sizes and ranks from the model are bounded before use. */
Test(rules_tensor, hostile_attributes)
{
	static int64_t many[3000];
	for (int i = 0; i < 3000; i++)
		many[i] = i;
	mb *b = mb_new(11);
	mb_input(b, "x", DT_FLOAT, "3");
	mb_node(b, "Unsqueeze", "x", "y");
	mb_attr_ints(b, "axes", 3000, many);
	mb_node(b, "Transpose", "x", "t");
	mb_attr_ints(b, "perm", 3000, many);
	mb_output(b, "y", 0, NULL);
	mb_output(b, "t", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (rank unknown)");
	cr_expect_str_eq(mb_type(m, "t"), "FLOAT (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 2); /* Unsqueeze's rank, Transpose's perm length */
	osh_model_free(m);

	b = mb_new(1);
	mb_input(b, "x", DT_FLOAT, "3");
	mb_node(b, "Reshape", "x", "z");
	mb_attr_ints(b, "shape", 3000, many);
	mb_node(b, "RandomNormal", "", "r");
	mb_attr_ints(b, "shape", 2, (int64_t[]){2, -3});
	mb_output(b, "z", 0, NULL);
	mb_output(b, "r", 0, NULL);
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (rank unknown)");
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	osh_model_free(m);
}
