/* test_rules_tensor_reshape.c: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Expand,
 * Tile and Pad, one node per row (see test_rules_tensor_dsl.h). Expected shapes are
 * worked out by hand from Operators.md / Changelog.md; fresh symbols (sizes known only
 * at run time) are named unk__0, unk__1... in the order a model makes them. */
#include "test_rules_tensor_dsl.h"

static const tcase reshape_cases[] = {
	{"0 copies, -1 solved", 13, "x:FLOAT:2,3,4 s=3:4,0,-1", "Reshape", "x,s", "y", "", "y=FLOAT (4, 3, 2)", NULL, 0},
	{"symbolic batch, 0 and -1", 13, "x:FLOAT:N,3,4 s=2:0,-1", "Reshape", "x,s", "y", "", "y=FLOAT (N, 12)", NULL, 0},
	{"merge heads", 13, "x:FLOAT:N,12,64 s=2:0,-1", "Reshape", "x,s", "y", "", "y=FLOAT (N, 768)", NULL, 0},
	{"split heads", 13, "x:FLOAT:N,768 s=3:0,12,-1", "Reshape", "x,s", "y", "", "y=FLOAT (N, 12, 64)", NULL, 0},
	{"-1 is the symbol", 13, "x:FLOAT:N,12,64 s=3:64,12,-1", "Reshape", "x,s", "y", "", "y=FLOAT (64, 12, N)", NULL, 0},
	{"-1 is a multiple of a symbol", 13, "x:FLOAT:N,12,64 s=2:64,-1", "Reshape", "x,s", "y", "", "y=FLOAT (64, 12*N)", NULL, 0},
	{"-1 first", 13, "x:FLOAT:2,3,4 s=2:-1,4", "Reshape", "x,s", "y", "", "y=FLOAT (6, 4)", NULL, 0},
	{"-1 alone", 13, "x:FLOAT:2,3,4 s=1:-1", "Reshape", "x,s", "y", "", "y=FLOAT (24)", NULL, 0},
	{"spec reordered_all_dims", 13, "x:FLOAT:2,3,4 s=3:4,2,3", "Reshape", "x,s", "y", "", "y=FLOAT (4, 2, 3)", NULL, 0},
	{"spec zero_and_negative_dim", 13, "x:FLOAT:2,3,4 s=4:2,0,1,-1", "Reshape", "x,s", "y", "", "y=FLOAT (2, 3, 1, 4)", NULL, 0},
	{"-1 does not divide", 13, "x:FLOAT:2,3,4 s=2:-1,5", "Reshape", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"counts differ", 13, "x:FLOAT:2,3,4 s=2:4,5", "Reshape", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"two -1", 13, "x:FLOAT:2,3,4 s=2:-1,-1", "Reshape", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"-2 is invalid", 13, "x:FLOAT:2,3,4 s=2:-2,12", "Reshape", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"0 past the input rank", 13, "x:FLOAT:2,3 s=3:0,0,0", "Reshape", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"allowzero keeps 0", 14, "x:FLOAT:0,3,4 s=3:3,4,0", "Reshape", "x,s", "y", "allowzero=1", "y=FLOAT (3, 4, 0)", NULL, 0},
	{"without allowzero 0 copies", 14, "x:FLOAT:0,3,4 s=3:0,4,3", "Reshape", "x,s", "y", "", "y=FLOAT (0, 4, 3)", NULL, 0},
	{"allowzero with 0 and -1", 14, "x:FLOAT:0,3,4 s=2:0,-1", "Reshape", "x,s", "y", "allowzero=1", "y=FLOAT (rank unknown)", NULL, 1},
	{"empty tensor, -1", 13, "x:FLOAT:0,3 s=2:-1,3", "Reshape", "x,s", "y", "", "y=FLOAT (0, 3)", NULL, 0},
	{"0 copies, then -1", 13, "x:FLOAT:2,3 s=2:0,-1", "Reshape", "x,s", "y", "", "y=FLOAT (2, 3)", NULL, 0},
	/* ONNX Runtime refuses it: "Invalid Target shape product of 0. Product cannot be 0 in
	 * combination with -1". */
	{"0 elements leave -1 open", 14, "x:FLOAT:0,3 s=2:0,-1", "Reshape", "x,s", "y", "allowzero=0", "y=FLOAT (rank unknown)", NULL, 1},
	{"allowzero 0 against 6 elements", 14, "x:FLOAT:2,3 s=2:0,6", "Reshape", "x,s", "y", "allowzero=1", "y=FLOAT (rank unknown)", NULL, 1},
	{"product of symbols", 13, "x:FLOAT:N,M s=1:-1", "Reshape", "x,s", "y", "", "y=FLOAT (M*N)", NULL, 0},
	{"unknown input rank", 13, "x:FLOAT:- s=2:0,-1", "Reshape", "x,s", "y", "", "y=FLOAT (?, unk__0)", NULL, 0},
	{"runtime target", 13, "x:FLOAT:2,3 s:INT64:3", "Reshape", "x,s", "y", "", "y=FLOAT (unk__0, unk__1, unk__2)", NULL, 0},
	/* A runtime target of length 1 holds every element. */
	{"spec one_dim, target not known", 13, "x:FLOAT:2,3,4 s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (24)", NULL, 0},
	{"runtime 1-D target, allowzero", 14, "x:FLOAT:2,3,4 s:INT64:1", "Reshape", "x,s", "y", "allowzero=1", "y=FLOAT (24)", NULL, 0},
	{"runtime 1-D target, empty input", 13, "x:FLOAT:0,N s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (0)", NULL, 0},
	{"runtime 1-D target, one symbol", 13, "x:FLOAT:N,1 s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (N)", NULL, 0},
	{"runtime 1-D target, symbol times 3", 13, "x:FLOAT:N,3 s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (3*N)", NULL, 0},
	{"runtime 1-D target, two symbols", 13, "x:FLOAT:N,M s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (M*N)", NULL, 0},
	{"runtime 1-D target, unknown dim", 13, "x:FLOAT:2,? s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (unk__0)", NULL, 0},
	{"runtime 1-D target, unknown rank", 13, "x:FLOAT:- s:INT64:1", "Reshape", "x,s", "y", "", "y=FLOAT (unk__0)", NULL, 0},
	{"runtime 2-D target stays open", 13, "x:FLOAT:2,3,4 s:INT64:2", "Reshape", "x,s", "y", "", "y=FLOAT (unk__0, unk__1)", NULL, 0},
	{"runtime 1-D target, content passes", 13, "d=2x2:1,2,3,4 s:INT64:1", "Reshape", "d,s", "y", "", "y=INT64 (4)", "y=[1, 2, 3, 4]", 0},
	{"target not 1-D", 13, "x:FLOAT:2,3 s:INT64:2,3", "Reshape", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"opset 5 input", 5, "x:FLOAT:2,3,4 s=2:6,-1", "Reshape", "x,s", "y", "", "y=FLOAT (6, 4)", NULL, 0},
	{"opset 1 attribute", 1, "x:FLOAT:2,3,4", "Reshape", "x", "y", "shape=[6,-1]", "y=FLOAT (6, 4)", NULL, 0},
	{"content passes", 13, "d=2x2:1,2,3,4 s=1:-1", "Reshape", "d,s", "y", "", "y=INT64 (4)", "y=[1, 2, 3, 4]", 0},
};

Test(rules_tensor, reshape) { RUN_TABLE(reshape_cases); }

static const tcase flatten_cases[] = {
	{"default axis 1", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "", "y=FLOAT (2, 60)", NULL, 0},
	{"axis 0", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "axis=0", "y=FLOAT (1, 120)", NULL, 0},
	{"axis r", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "axis=4", "y=FLOAT (120, 1)", NULL, 0},
	{"axis -1", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "axis=-1", "y=FLOAT (24, 5)", NULL, 0},
	{"axis -4", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "axis=-4", "y=FLOAT (1, 120)", NULL, 0},
	{"axis 5 out of range", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "axis=5", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis -5 out of range", 13, "x:FLOAT:2,3,4,5", "Flatten", "x", "y", "axis=-5", "y=FLOAT (rank unknown)", NULL, 1},
	{"symbol times known", 13, "x:FLOAT:N,3,4", "Flatten", "x", "y", "", "y=FLOAT (N, 12)", NULL, 0},
	{"symbol times symbol", 13, "x:FLOAT:N,3,M", "Flatten", "x", "y", "axis=2", "y=FLOAT (3*N, M)", NULL, 0},
	{"unknown rank, axis 0", 13, "x:FLOAT:-", "Flatten", "x", "y", "axis=0", "y=FLOAT (1, ?)", NULL, 0},
	{"empty dim", 9, "x:FLOAT:2,0,4", "Flatten", "x", "y", "axis=2", "y=FLOAT (0, 4)", NULL, 0},
};

Test(rules_tensor, flatten) { RUN_TABLE(flatten_cases); }

static const tcase transpose_cases[] = {
	{"default reverses", 13, "x:FLOAT:2,3,4", "Transpose", "x", "y", "", "y=FLOAT (4, 3, 2)", NULL, 0},
	{"perm", 13, "x:FLOAT:2,3,4", "Transpose", "x", "y", "perm=[1,0,2]", "y=FLOAT (3, 2, 4)", NULL, 0},
	{"symbols move", 1, "x:FLOAT:N,3", "Transpose", "x", "y", "", "y=FLOAT (3, N)", NULL, 0},
	{"perm too short", 13, "x:FLOAT:2,3,4", "Transpose", "x", "y", "perm=[0,1]", "y=FLOAT (rank unknown)", NULL, 1},
	{"perm repeats", 13, "x:FLOAT:2,3,4", "Transpose", "x", "y", "perm=[0,0,1]", "y=FLOAT (rank unknown)", NULL, 1},
	{"perm out of range", 13, "x:FLOAT:2,3,4", "Transpose", "x", "y", "perm=[0,1,3]", "y=FLOAT (rank unknown)", NULL, 1},
	{"hostile perm", 13, "x:FLOAT:2,3", "Transpose", "x", "y", "perm=[9223372036854775807,0]", "y=FLOAT (rank unknown)", NULL, 1},
	{"unknown rank, perm", 13, "x:FLOAT:-", "Transpose", "x", "y", "perm=[1,0]", "y=FLOAT (?, ?)", NULL, 0},
	{"content moves", 13, "d=2x3:1,2,3,4,5,6", "Transpose", "d", "y", "", "y=INT64 (3, 2)", "y=[1, 4, 2, 5, 3, 6]", 0},
};

Test(rules_tensor, transpose) { RUN_TABLE(transpose_cases); }

static const tcase squeeze_cases[] = {
	{"opset 11 axes", 11, "x:FLOAT:1,3,1,5", "Squeeze", "x", "y", "axes=[0,2]", "y=FLOAT (3, 5)", NULL, 0},
	{"opset 11 negative axis", 11, "x:FLOAT:1,3,1,5", "Squeeze", "x", "y", "axes=[-2]", "y=FLOAT (1, 3, 5)", NULL, 0},
	{"opset 1 axes", 1, "x:FLOAT:1,3,1,5", "Squeeze", "x", "y", "axes=[0]", "y=FLOAT (3, 1, 5)", NULL, 0},
	{"opset 13 axes input", 13, "x:FLOAT:1,3,1,5 a=1:-4", "Squeeze", "x,a", "y", "", "y=FLOAT (3, 1, 5)", NULL, 0},
	{"opset 13 no axes", 13, "x:FLOAT:1,3,1,5", "Squeeze", "x", "y", "", "y=FLOAT (3, 5)", NULL, 0},
	{"no axes, a dim may be 1", 13, "x:FLOAT:1,N,3", "Squeeze", "x", "y", "", "y=FLOAT (rank unknown)", NULL, 0},
	/* Unknown axes of known count: only the dims that may be 1 can go. */
	{"unknown axes, as many as the 1s", 13, "x:FLOAT:1,3,1,5 a:INT64:2", "Squeeze", "x,a", "y", "", "y=FLOAT (3, 5)", NULL, 0},
	{"spec squeeze, axes not known", 13, "x:FLOAT:1,3,4,5 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (3, 4, 5)", NULL, 0},
	{"unknown axis, a symbol must be the 1", 13, "x:FLOAT:N,3,4 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (3, 4)", NULL, 0},
	{"unknown axis, an unknown dim must be the 1", 13, "x:FLOAT:?,3 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (3)", NULL, 0},
	{"unknown axis, two 1s: only the ends", 13, "x:FLOAT:1,3,1,5 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (?, ?, 5)", NULL, 0},
	{"unknown axis, two 1s inside", 13, "x:FLOAT:2,1,3,1,4 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (2, ?, ?, 4)", NULL, 0},
	{"unknown axis, a symbol may be 1", 13, "x:FLOAT:N,3,1 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (?, ?)", NULL, 0},
	{"unknown axis, an unknown dim may be 1", 13, "x:FLOAT:2,?,1 a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (2, ?)", NULL, 0},
	{"unknown axes, fewer dims may be 1", 13, "x:FLOAT:1,3 a:INT64:2", "Squeeze", "x,a", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"unknown axes, more than the rank", 13, "x:FLOAT:1 a:INT64:2", "Squeeze", "x,a", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"unknown axes of unknown count", 13, "x:FLOAT:1,3 a:INT64:?", "Squeeze", "x,a", "y", "", "y=FLOAT (rank unknown)", NULL, 0},
	{"unknown input rank", 13, "x:FLOAT:- a:INT64:1", "Squeeze", "x,a", "y", "", "y=FLOAT (rank unknown)", NULL, 0},
	{"empty axes input, no 1s", 13, "x:FLOAT:2,3 a:INT64:0", "Squeeze", "x,a", "y", "", "y=FLOAT (2, 3)", NULL, 0},
	{"empty axes input, a 1", 13, "x:FLOAT:1,3 a:INT64:0", "Squeeze", "x,a", "y", "", "y=FLOAT (rank unknown)", NULL, 0},
	{"unknown axis, content passes", 13, "d=1x2:4,5 a:INT64:1", "Squeeze", "d,a", "y", "", "y=INT64 (2)", "y=[4, 5]", 0},
	{"squeezing a 3", 11, "x:FLOAT:1,3", "Squeeze", "x", "y", "axes=[1]", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis out of range", 11, "x:FLOAT:1,3", "Squeeze", "x", "y", "axes=[2]", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis repeated", 11, "x:FLOAT:1,3", "Squeeze", "x", "y", "axes=[0,-2]", "y=FLOAT (rank unknown)", NULL, 1},
	{"symbol squeezed is 1", 11, "x:FLOAT:N,3", "Squeeze", "x", "y", "axes=[0]", "y=FLOAT (3)", NULL, 0},
	{"content passes", 13, "d=1x2:4,5 a=1:0", "Squeeze", "d,a", "y", "", "y=INT64 (2)", "y=[4, 5]", 0},
};

Test(rules_tensor, squeeze) { RUN_TABLE(squeeze_cases); }

static const tcase unsqueeze_cases[] = {
	{"opset 11 axis 0", 11, "x:FLOAT:3,4,5", "Unsqueeze", "x", "y", "axes=[0]", "y=FLOAT (1, 3, 4, 5)", NULL, 0},
	{"opset 11 axis -1 counts in the output", 11, "x:FLOAT:3,4,5", "Unsqueeze", "x", "y", "axes=[-1]", "y=FLOAT (3, 4, 5, 1)", NULL, 0},
	{"opset 1 two axes", 1, "x:FLOAT:3,4,5", "Unsqueeze", "x", "y", "axes=[1,4]", "y=FLOAT (3, 1, 4, 5, 1)", NULL, 0},
	{"opset 13 input", 13, "x:FLOAT:3,4,5 a=2:1,-1", "Unsqueeze", "x,a", "y", "", "y=FLOAT (3, 1, 4, 5, 1)", NULL, 0},
	{"spec negative_axes", 13, "x:FLOAT:1,3,1,5 a=1:-2", "Unsqueeze", "x,a", "y", "", "y=FLOAT (1, 3, 1, 1, 5)", NULL, 0},
	{"spec unsorted_axes", 13, "x:FLOAT:3,4,5 a=3:5,4,2", "Unsqueeze", "x,a", "y", "", "y=FLOAT (3, 4, 1, 5, 1, 1)", NULL, 0},
	{"symbols stay", 13, "x:FLOAT:N a=1:0", "Unsqueeze", "x,a", "y", "", "y=FLOAT (1, N)", NULL, 0},
	{"repeated axis", 13, "x:FLOAT:3 a=2:0,-3", "Unsqueeze", "x,a", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis past the output rank", 11, "x:FLOAT:3,4,5", "Unsqueeze", "x", "y", "axes=[4]", "y=FLOAT (rank unknown)", NULL, 1},
	{"opset 13 without axes", 13, "x:FLOAT:3", "Unsqueeze", "x", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"unknown axes of known count", 13, "x:FLOAT:3 a:INT64:2", "Unsqueeze", "x,a", "y", "", "y=FLOAT (?, ?, ?)", NULL, 0},
	{"scalar content", 13, "d=:7 a=1:0", "Unsqueeze", "d,a", "y", "", "y=INT64 (1)", "y=[7]", 0},
};

Test(rules_tensor, unsqueeze) { RUN_TABLE(unsqueeze_cases); }

/* The bidirectional table of broadcasting.md section 5, then the edges. */
static const tcase expand_cases[] = {
	{"(5,) to (1,)", 13, "x:FLOAT:5 s=1:1", "Expand", "x,s", "y", "", "y=FLOAT (5)", NULL, 0},
	{"(2, 3) to (3,)", 13, "x:FLOAT:2,3 s=1:3", "Expand", "x,s", "y", "", "y=FLOAT (2, 3)", NULL, 0},
	{"(3, 1) to (3, 4)", 13, "x:FLOAT:3,1 s=2:3,4", "Expand", "x,s", "y", "", "y=FLOAT (3, 4)", NULL, 0},
	{"(3, 4) to ()", 13, "x:FLOAT:3,4 s=0:", "Expand", "x,s", "y", "", "y=FLOAT (3, 4)", NULL, 0},
	{"(3, 1) to (2, 1, 6)", 13, "x:FLOAT:3,1 s=3:2,1,6", "Expand", "x,s", "y", "", "y=FLOAT (2, 3, 6)", NULL, 0},
	{"(16, 1, 1) to (1, 1, 50, 50)", 8, "x:FLOAT:16,1,1 s=4:1,1,50,50", "Expand", "x,s", "y", "", "y=FLOAT (1, 16, 50, 50)", NULL, 0},
	{"(3,) to (2,) mismatch", 13, "x:FLOAT:3 s=1:2", "Expand", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"symbol kept", 13, "x:FLOAT:N,1 s=2:1,4", "Expand", "x,s", "y", "", "y=FLOAT (N, 4)", NULL, 0},
	{"runtime target", 13, "x:FLOAT:5,1 s:INT64:3", "Expand", "x,s", "y", "", "y=FLOAT (unk__0, 5, unk__2)", NULL, 0},
	{"negative target", 13, "x:FLOAT:5 s=1:-1", "Expand", "x,s", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"empty dim", 13, "x:FLOAT:0,1 s=2:1,3", "Expand", "x,s", "y", "", "y=FLOAT (0, 3)", NULL, 0},
	{"content broadcast", 13, "d=2:1,2 s=2:2,2", "Expand", "d,s", "y", "", "y=INT64 (2, 2)", "y=[1, 2, 1, 2]", 0},
	{"content column", 13, "d=2x1:1,2 s=2:2,3", "Expand", "d,s", "y", "", "y=INT64 (2, 3)", "y=[1, 1, 1, 2, 2, 2]", 0},
};

Test(rules_tensor, expand) { RUN_TABLE(expand_cases); }

static const tcase tile_cases[] = {
	{"repeats", 13, "x:FLOAT:2,3 r=2:2,2", "Tile", "x,r", "y", "", "y=FLOAT (4, 6)", NULL, 0},
	{"repeat 0", 13, "x:FLOAT:2,3 r=2:1,0", "Tile", "x,r", "y", "", "y=FLOAT (2, 0)", NULL, 0},
	{"symbol times 1", 6, "x:FLOAT:N,3 r=2:1,2", "Tile", "x,r", "y", "", "y=FLOAT (N, 6)", NULL, 0},
	{"symbol times 2", 6, "x:FLOAT:N,3 r=2:2,1", "Tile", "x,r", "y", "", "y=FLOAT (2*N, 3)", NULL, 0},
	{"repeats length", 13, "x:FLOAT:2,3 r=1:2", "Tile", "x,r", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"negative repeat", 13, "x:FLOAT:2,3 r=2:1,-1", "Tile", "x,r", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"runtime repeats", 13, "x:FLOAT:2,3 r:INT64:2", "Tile", "x,r", "y", "", "y=FLOAT (unk__0, unk__1)", NULL, 0},
	{"runtime repeats of 0", 13, "x:FLOAT:0,3 r:INT64:2", "Tile", "x,r", "y", "", "y=FLOAT (0, unk__0)", NULL, 0},
	{"content repeats", 13, "d=2:1,2 r=1:2", "Tile", "d,r", "y", "", "y=INT64 (4)", "y=[1, 2, 1, 2]", 0},
	/* Tile-1 types 'tiles' and 'axis' as T (a float): int64 is a type-error (said once
	 * for both), and the values are still read. */
	{"opset 1 tiles and axis", 1, "x:FLOAT:2,3 t=:3 a=:1", "Tile", "x,t,a", "y", "", "y=FLOAT (2, 9)", NULL, 1},
};

Test(rules_tensor, tile) { RUN_TABLE(tile_cases); }

static const tcase pad_cases[] = {
	{"opset 2 attribute", 2, "x:FLOAT:2,2", "Pad", "x", "y", "pads=[0,2,0,0]", "y=FLOAT (2, 4)", NULL, 0},
	{"opset 1 paddings", 1, "x:FLOAT:2,2", "Pad", "x", "y", "paddings=[1,0,1,0]", "y=FLOAT (4, 2)", NULL, 0},
	{"opset 11 input", 11, "x:FLOAT:2,2 p=4:0,2,0,0", "Pad", "x,p", "y", "", "y=FLOAT (2, 4)", NULL, 0},
	{"spec constant_pad", 11, "x:FLOAT:1,3,4,5 p=8:0,0,1,3,0,0,2,4", "Pad", "x,p", "y", "", "y=FLOAT (1, 3, 7, 12)", NULL, 0},
	{"reflect keeps the rule", 13, "x:FLOAT:1,3,4,5 p=8:0,0,1,1,0,0,1,1", "Pad", "x,p", "y", "mode=reflect", "y=FLOAT (1, 3, 6, 7)", NULL, 0},
	{"negative pads crop", 11, "x:FLOAT:3,4 p=4:-1,0,0,-2", "Pad", "x,p", "y", "", "y=FLOAT (2, 2)", NULL, 0},
	{"crop past zero", 11, "x:FLOAT:3,4 p=4:-2,0,-2,0", "Pad", "x,p", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"pads length", 11, "x:FLOAT:3,4 p=2:1,1", "Pad", "x,p", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"opset 18 axes", 18, "x:FLOAT:1,3,4,5 p=2:1,1 a=1:-1", "Pad", "x,p,,a", "y", "", "y=FLOAT (1, 3, 4, 7)", NULL, 0},
	{"opset 18 axes length", 18, "x:FLOAT:1,3,4,5 p=4:1,1,1,1 a=1:-1", "Pad", "x,p,,a", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	/* ONNX Runtime's kernel runs wrap at every version. */
	{"wrap before 19", 18, "x:FLOAT:2,2 p=4:0,1,0,1", "Pad", "x,p", "y", "mode=wrap", "y=FLOAT (2, 4)", NULL, 0},
	{"wrap from 19", 19, "x:FLOAT:2,2 p=4:0,1,0,1", "Pad", "x,p", "y", "mode=wrap", "y=FLOAT (2, 4)", NULL, 0},
	{"runtime pads", 11, "x:FLOAT:2,2 p:INT64:4", "Pad", "x,p", "y", "", "y=FLOAT (unk__0, unk__1)", NULL, 0},
	{"symbol padded by 0 stays", 11, "x:FLOAT:N,3 p=4:0,1,0,1", "Pad", "x,p", "y", "", "y=FLOAT (N, 5)", NULL, 0},
	{"symbol padded", 11, "x:FLOAT:N,3 p=4:1,0,0,0", "Pad", "x,p", "y", "", "y=FLOAT (N + 1, 3)", NULL, 0},
};

Test(rules_tensor, pad) { RUN_TABLE(pad_cases); }

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
