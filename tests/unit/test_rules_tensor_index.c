/* test_rules_tensor_index.c: Concat, Split, Slice, Gather, GatherElements, GatherND,
 * the Scatter family, NonZero, Compress, Unique, OneHot and ReverseSequence, one node
 * per row (see test_rules_tensor_dsl.h). Expected shapes are worked out by hand from
 * Operators.md / Changelog.md and the backend tests' documented outputs. */
#include "test_rules_tensor_dsl.h"

static const tcase concat_cases[] = {
	{"axis 1", 13, "a:FLOAT:2,3 b:FLOAT:2,4", "Concat", "a,b", "y", "axis=1", "y=FLOAT (2, 7)", NULL, 0},
	{"axis -1", 13, "a:FLOAT:2,3 b:FLOAT:2,4", "Concat", "a,b", "y", "axis=-1", "y=FLOAT (2, 7)", NULL, 0},
	{"other dims must agree", 13, "a:FLOAT:2,3 b:FLOAT:2,4", "Concat", "a,b", "y", "axis=0", "y=FLOAT (rank unknown)", NULL, 1},
	{"ranks must agree", 13, "a:FLOAT:2,3 b:FLOAT:2", "Concat", "a,b", "y", "axis=0", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis out of range", 13, "a:FLOAT:2,3 b:FLOAT:2,3", "Concat", "a,b", "y", "axis=2", "y=FLOAT (rank unknown)", NULL, 1},
	{"unknown dim takes the symbol", 13, "a:FLOAT:N,3 b:FLOAT:?,4", "Concat", "a,b", "y", "axis=1", "y=FLOAT (N, 7)", NULL, 0},
	{"two symbols add up", 13, "a:FLOAT:N,3 b:FLOAT:M,3", "Concat", "a,b", "y", "axis=0", "y=FLOAT (M + N, 3)", NULL, 0},
	{"symbol plus 0", 13, "a:FLOAT:N,3 b:FLOAT:0,3", "Concat", "a,b", "y", "axis=0", "y=FLOAT (N, 3)", NULL, 0},
	{"empty input", 11, "a:FLOAT:0,3 b:FLOAT:2,3", "Concat", "a,b", "y", "axis=0", "y=FLOAT (2, 3)", NULL, 0},
	{"input of unknown rank", 13, "a:FLOAT:2,3 b:FLOAT:-", "Concat", "a,b", "y", "axis=1", "y=FLOAT (2, ?)", NULL, 0},
	{"opset 4 needs axis", 4, "a:FLOAT:2,3 b:FLOAT:2,4", "Concat", "a,b", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	/* inputs that would concatenate on axis 0 or 1: the missing axis alone is the fault */
	{"opset 4 needs axis, any would do", 4, "a:FLOAT:2,2 b:FLOAT:2,2", "Concat", "a,b", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"opset 1 axis defaults to 1", 1, "a:FLOAT:2,3 b:FLOAT:2,4", "Concat", "a,b", "y", "", "y=FLOAT (2, 7)", NULL, 0},
	{"content", 13, "a=1:1 b=2:2,3", "Concat", "a,b", "y", "axis=0", "y=INT64 (3)", "y=[1, 2, 3]", 0},
	{"content, axis 1", 13, "a=2x1:1,2 b=2x2:3,4,5,6", "Concat", "a,b", "y", "axis=1", "y=INT64 (2, 3)", "y=[1, 3, 4, 2, 5, 6]", 0},
	{"content with an empty input", 13, "a=0: b=2:2,3", "Concat", "a,b", "y", "axis=0", "y=INT64 (2)", "y=[2, 3]", 0},
	{"floating content, axis 1", 13, "a~2x1:1.5,2.5 b~2x2:3,4,5,6", "Concat", "a,b", "y", "axis=1", "y=FLOAT (2, 3)",
	 "y=f[1.5, 3, 4, 2.5, 5, 6]", 0},
	/* more entries than the rule keeps on its stack */
	{"content of three inputs, 18 entries", 13, "a=3x2:1,2,3,4,5,6 b=3x3:7,8,9,10,11,12,13,14,15 c=3x1:16,17,18",
	 "Concat", "a,b,c", "y", "axis=1", "y=INT64 (3, 6)",
	 "y=[1, 2, 7, 8, 9, 16, 3, 4, 10, 11, 12, 17, 5, 6, 13, 14, 15, 18]", 0},
};

Test(rules_tensor, concat) { RUN_TABLE(concat_cases); }

static const tcase split_cases[] = {
	{"equal parts", 13, "x:FLOAT:6", "Split", "x", "a,b,c", "", "a=FLOAT (2); b=FLOAT (2); c=FLOAT (2)", NULL, 0},
	{"sizes input", 13, "x:FLOAT:6 s=2:2,4", "Split", "x,s", "a,b", "", "a=FLOAT (2); b=FLOAT (4)", NULL, 0},
	{"not divisible before 18", 13, "x:FLOAT:7", "Split", "x", "a,b", "", "a=FLOAT (rank unknown); b=FLOAT (rank unknown)", NULL, 1},
	{"num_outputs, last smaller", 18, "x:FLOAT:7", "Split", "x", "a,b,c,d", "num_outputs=4", "a=FLOAT (2); b=FLOAT (2); c=FLOAT (2); d=FLOAT (1)", NULL, 0},
	{"num_outputs even", 18, "x:FLOAT:2,6", "Split", "x", "a,b,c", "axis=1 num_outputs=3", "a=FLOAT (2, 2); b=FLOAT (2, 2); c=FLOAT (2, 2)", NULL, 0},
	{"num_outputs against outputs", 18, "x:FLOAT:6", "Split", "x", "a,b", "num_outputs=3", "a=FLOAT (rank unknown)", NULL, 1},
	{"opset 18 needs sizes or count", 18, "x:FLOAT:6", "Split", "x", "a,b", "", "a=FLOAT (rank unknown)", NULL, 1},
	{"opset 18 not both", 18, "x:FLOAT:6 s=2:3,3", "Split", "x,s", "a,b", "num_outputs=2", "a=FLOAT (rank unknown)", NULL, 1},
	{"opset 11 attribute", 11, "x:FLOAT:6", "Split", "x", "a,b", "split=[2,4]", "a=FLOAT (2); b=FLOAT (4)", NULL, 0},
	{"opset 2 axis 1", 2, "x:FLOAT:2,6", "Split", "x", "a,b", "axis=1 split=[2,4]", "a=FLOAT (2, 2); b=FLOAT (2, 4)", NULL, 0},
	/* Split-1 types 'split' as T (a float): int64 sizes are a type-error, still read. */
	{"opset 1 sizes input", 1, "x:FLOAT:6 s=2:2,4", "Split", "x,s", "a,b", "", "a=FLOAT (2); b=FLOAT (4)", NULL, 1},
	{"negative axis", 11, "x:FLOAT:2,6", "Split", "x", "a,b", "axis=-1", "a=FLOAT (2, 3); b=FLOAT (2, 3)", NULL, 0},
	{"sizes do not add up", 13, "x:FLOAT:6 s=2:2,3", "Split", "x,s", "a,b", "", "a=FLOAT (rank unknown)", NULL, 1},
	{"sizes against outputs", 13, "x:FLOAT:6 s=3:2,2,2", "Split", "x,s", "a,b", "", "a=FLOAT (rank unknown)", NULL, 1},
	{"zero sizes", 13, "x:FLOAT:0 s=3:0,0,0", "Split", "x,s", "a,b,c", "", "a=FLOAT (0); b=FLOAT (0); c=FLOAT (0)", NULL, 0},
	{"symbol in two", 13, "x:FLOAT:N,3", "Split", "x", "a,b", "", "a=FLOAT (floor(N/2), 3); b=FLOAT (floor(N/2), 3)", NULL, 0},
	/* num_outputs (18): parts of ceil(N/3), the last what remains */
	{"symbol in three, uneven", 18, "x:FLOAT:N,3", "Split", "x", "a,b,c", "axis=0 num_outputs=3",
	 "a=FLOAT (floor((N + 2)/3), 3); b=FLOAT (floor((N + 2)/3), 3); c=FLOAT (N - 2*floor((N + 2)/3), 3)", NULL, 0},
	{"symbol in one", 13, "x:FLOAT:N,3", "Split", "x", "a", "", "a=FLOAT (N, 3)", NULL, 0},
	{"symbol with sizes", 13, "x:FLOAT:N s=2:2,4", "Split", "x,s", "a,b", "", "a=FLOAT (2); b=FLOAT (4)", NULL, 0},
	{"runtime sizes", 13, "x:FLOAT:6,3 s:INT64:2", "Split", "x,s", "a,b", "", "a=FLOAT (unk__0, 3); b=FLOAT (unk__1, 3)", NULL, 0},
	/* Runtime sizes are >= 0 and add up to the axis. */
	{"spec zero_size_splits, sizes not known", 13, "x:FLOAT:0 s:INT64:3", "Split", "x,s", "a,b,c", "", "a=FLOAT (0); b=FLOAT (0); c=FLOAT (0)", NULL, 0},
	{"runtime sizes of an empty axis 1", 18, "x:FLOAT:2,0 s:INT64:2", "Split", "x,s", "a,b", "axis=1", "a=FLOAT (2, 0); b=FLOAT (2, 0)", NULL, 0},
	{"runtime sizes, empty elsewhere", 13, "x:FLOAT:0,6 s:INT64:2", "Split", "x,s", "a,b", "axis=1", "a=FLOAT (0, unk__0); b=FLOAT (0, unk__1)", NULL, 0},
	{"runtime size of a lone part", 13, "x:FLOAT:N,3 s:INT64:1", "Split", "x,s", "a", "", "a=FLOAT (N, 3)", NULL, 0},
	{"runtime sizes of a symbol", 13, "x:FLOAT:N s:INT64:2", "Split", "x,s", "a,b", "", "a=FLOAT (unk__0); b=FLOAT (unk__1)", NULL, 0},
	{"runtime size of a lone part, content", 13, "d=3:1,2,3 s:INT64:1", "Split", "d,s", "a", "", "a=INT64 (3)", "a=[1, 2, 3]", 0},
	{"content", 13, "d=4:1,2,3,4", "Split", "d", "a,b", "", "a=INT64 (2); b=INT64 (2)", "a=[1, 2]; b=[3, 4]", 0},
	{"content, uneven sizes", 13, "d=5:1,2,3,4,5 s=2:1,4", "Split", "d,s", "a,b", "", "a=INT64 (1); b=INT64 (4)", "a=[1]; b=[2, 3, 4, 5]", 0},
};

Test(rules_tensor, split) { RUN_TABLE(split_cases); }

#define X3 "x:FLOAT:20,10,5 "
static const tcase slice_cases[] = {
	{"spec slice", 10, X3 "st=2:0,0 en=2:3,10 ax=2:0,1 sp=2:1,1", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (3, 10, 5)", NULL, 0},
	{"spec neg", 10, X3 "st=1:0 en=1:-1 ax=1:1 sp=1:1", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (20, 9, 5)", NULL, 0},
	{"spec neg_steps", 10, X3 "st=3:20,10,4 en=3:0,0,1 ax=3:0,1,2 sp=3:-1,-3,-2", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (19, 3, 2)", NULL, 0},
	{"spec start_out_of_bounds", 10, X3 "st=1:1000 en=1:1000 ax=1:1 sp=1:1", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (20, 0, 5)", NULL, 0},
	{"spec end_out_of_bounds", 10, X3 "st=1:1 en=1:1000 ax=1:1 sp=1:1", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (20, 9, 5)", NULL, 0},
	{"spec default_axes", 10, X3 "st=3:0,0,3 en=3:20,10,4", "Slice", "x,st,en", "y", "", "y=FLOAT (20, 10, 1)", NULL, 0},
	{"spec negative_axes", 11, X3 "st=3:0,0,3 en=3:20,10,4 ax=3:0,-2,-1", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (20, 10, 1)", NULL, 0},
	{"clamped backwards", 13, "x:FLOAT:5 st=1:10 en=1:-10 ax=1:0 sp=1:-1", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (5)", NULL, 0},
	{"INT64_MAX end keeps a symbol", 13, "x:FLOAT:N,10 st=1:0 en=1:9223372036854775807 ax=1:0", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (N, 10)", NULL, 0},
	{"whole axis reversed", 13, "x:FLOAT:N,10 st=1:-1 en=1:-9223372036854775808 ax=1:0 sp=1:-1", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (N, 10)", NULL, 0},
	{"part of a symbol", 13, "x:FLOAT:N,10 st=1:1 en=1:9223372036854775807 ax=1:0", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (Max(N - 1, 0), 10)", NULL, 0},
	{"hostile starts", 13, "x:FLOAT:5 st=1:-9223372036854775808 en=1:9223372036854775807", "Slice", "x,st,en", "y", "", "y=FLOAT (5)", NULL, 0},
	{"hostile steps", 13, "x:FLOAT:5,5 st=2:0,-1 en=2:5,-9223372036854775808 sp=2:9223372036854775807,-9223372036854775808", "Slice", "x,st,en,,sp", "y", "", "y=FLOAT (1, 1)", NULL, 0},
	{"step 0", 13, X3 "st=1:0 en=1:3 ax=1:0 sp=1:0", "Slice", "x,st,en,ax,sp", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"repeated axes", 13, X3 "st=2:0,0 en=2:1,1 ax=2:1,-2", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"lengths differ", 13, X3 "st=2:0,0 en=1:1", "Slice", "x,st,en", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis out of range", 13, X3 "st=1:0 en=1:1 ax=1:3", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"runtime starts", 13, X3 "st:INT64:1 en=1:3 ax=1:1", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (20, ?, 5)", NULL, 0},
	{"runtime axes", 13, X3 "st=1:0 en=1:3 ax:INT64:1", "Slice", "x,st,en,ax", "y", "", "y=FLOAT (?, ?, ?)", NULL, 0},
	{"opset 1 attributes", 1, "x:FLOAT:4,5", "Slice", "x", "y", "starts=[0,1] ends=[2,3]", "y=FLOAT (2, 2)", NULL, 0},
	{"opset 1 axes", 1, "x:FLOAT:4,5", "Slice", "x", "y", "starts=[1] ends=[1000] axes=[1]", "y=FLOAT (4, 4)", NULL, 0},
	{"content", 13, "d=5:1,2,3,4,5 st=1:1 en=1:-1", "Slice", "d,st,en", "y", "", "y=INT64 (3)", "y=[2, 3, 4]", 0},
	{"content backwards by 2", 13, "d=5:1,2,3,4,5 st=1:-1 en=1:-9223372036854775808 ax=1:0 sp=1:-2", "Slice", "d,st,en,ax,sp", "y", "", "y=INT64 (3)", "y=[5, 3, 1]", 0},
	{"content, 2-D", 13, "d=2x3:1,2,3,4,5,6 st=1:1 en=1:3 ax=1:1", "Slice", "d,st,en,ax", "y", "", "y=INT64 (2, 2)", "y=[2, 3, 5, 6]", 0},
};

Test(rules_tensor, slice) { RUN_TABLE(slice_cases); }

static const tcase gather_cases[] = {
	{"scalar index", 13, "x:FLOAT:5,4,3 i=:1", "Gather", "x,i", "y", "", "y=FLOAT (4, 3)", NULL, 0},
	{"2-D indices", 13, "x:FLOAT:5,4,3 i=2x2:0,1,2,3", "Gather", "x,i", "y", "", "y=FLOAT (2, 2, 4, 3)", NULL, 0},
	{"negative axis", 13, "x:FLOAT:5,4,3 i=2x2:0,1,2,0", "Gather", "x,i", "y", "axis=-1", "y=FLOAT (5, 4, 2, 2)", NULL, 0},
	{"runtime indices", 11, "x:FLOAT:5,4,3 i:INT64:7", "Gather", "x,i", "y", "axis=1", "y=FLOAT (5, 7, 3)", NULL, 0},
	{"index out of range", 13, "x:FLOAT:5,4 i=1:5", "Gather", "x,i", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"negative index in range", 13, "x:FLOAT:5,4 i=1:-5", "Gather", "x,i", "y", "", "y=FLOAT (1, 4)", NULL, 0},
	{"negative index out of range", 13, "x:FLOAT:5,4 i=1:-6", "Gather", "x,i", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"axis out of range", 13, "x:FLOAT:5,4 i=:0", "Gather", "x,i", "y", "axis=2", "y=FLOAT (rank unknown)", NULL, 1},
	{"scalar data", 13, "x:FLOAT: i=:0", "Gather", "x,i", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"symbols kept", 13, "x:FLOAT:N,4 i=:0", "Gather", "x,i", "y", "axis=1", "y=FLOAT (N)", NULL, 0},
	{"content", 13, "d=3:10,20,30 i=2:-1,0", "Gather", "d,i", "y", "", "y=INT64 (2)", "y=[30, 10]", 0},
	{"content, scalar index", 1, "d=3:10,20,30 i=:1", "Gather", "d,i", "y", "", "y=INT64 ()", "y=[20]", 0},
	{"content, axis 1", 13, "d=2x3:1,2,3,4,5,6 i=1:2", "Gather", "d,i", "y", "axis=1", "y=INT64 (2, 1)", "y=[3, 6]", 0},
	{"content, 2-D indices", 13, "d=3:10,20,30 i=2x2:0,1,2,2", "Gather", "d,i", "y", "", "y=INT64 (2, 2)", "y=[10, 20, 30, 30]", 0},
};

Test(rules_tensor, gather) { RUN_TABLE(gather_cases); }

static const tcase gather_scatter_cases[] = {
	{"GatherElements: indices' shape", 11, "x:FLOAT:3,3 i:INT64:2,3", "GatherElements", "x,i", "y", "", "y=FLOAT (2, 3)", NULL, 0},
	{"GatherElements: ranks", 13, "x:FLOAT:3,3 i:INT64:2", "GatherElements", "x,i", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"GatherElements: axis", 13, "x:FLOAT:3,3 i:INT64:2,3", "GatherElements", "x,i", "y", "axis=2", "y=FLOAT (rank unknown)", NULL, 1},
	{"GatherND: elements", 11, "x:FLOAT:2,2 i:INT64:2,2", "GatherND", "x,i", "y", "", "y=FLOAT (2)", NULL, 0},
	{"GatherND: slices", 11, "x:FLOAT:2,2 i:INT64:2,1", "GatherND", "x,i", "y", "", "y=FLOAT (2, 2)", NULL, 0},
	{"GatherND: batch_dims", 12, "x:INT32:2,2,2 i:INT64:2,1", "GatherND", "x,i", "y", "batch_dims=1", "y=INT32 (2, 2)", NULL, 0},
	{"GatherND: too many index dims", 11, "x:FLOAT:2,2 i:INT64:1,3", "GatherND", "x,i", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"GatherND: batch dims differ", 12, "x:FLOAT:2,3 i:INT64:3,1", "GatherND", "x,i", "y", "batch_dims=1", "y=FLOAT (rank unknown)", NULL, 1},
	{"ScatterND: data's shape", 11, "x:FLOAT:4,4,4 i:INT64:2,1 u:FLOAT:2,4,4", "ScatterND", "x,i,u", "y", "", "y=FLOAT (4, 4, 4)", NULL, 0},
	{"ScatterND: updates' shape", 16, "x:FLOAT:4,4,4 i:INT64:2,1 u:FLOAT:2,4,5", "ScatterND", "x,i,u", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"ScatterElements: data's shape", 11, "x:FLOAT:3,3 i:INT64:2,3 u:FLOAT:2,3", "ScatterElements", "x,i,u", "y", "", "y=FLOAT (3, 3)", NULL, 0},
	{"ScatterElements: updates differ", 18, "x:FLOAT:3,3 i:INT64:2,3 u:FLOAT:2,2", "ScatterElements", "x,i,u", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"Scatter opset 9", 9, "x:FLOAT:3,3 i:INT64:2,3 u:FLOAT:2,3", "Scatter", "x,i,u", "y", "axis=1", "y=FLOAT (3, 3)", NULL, 0},
};

Test(rules_tensor, gather_scatter) { RUN_TABLE(gather_scatter_cases); }

/* Sizes known only at run time: fresh symbols, shared where the spec says the sizes
 * are one (Unique's u), exact where the content is known. */
static const tcase data_dependent_cases[] = {
	{"NonZero: rank rows", 13, "x:FLOAT:2,3", "NonZero", "x", "y", "", "y=INT64 (2, unk__0)", NULL, 0},
	{"NonZero: known content", 13, "x=2x2:1,0,1,1", "NonZero", "x", "y", "", "y=INT64 (2, 3)", "y=[0, 1, 1, 0, 0, 1]", 0},
	{"NonZero: empty input", 9, "x:FLOAT:0,3", "NonZero", "x", "y", "", "y=INT64 (2, 0)", NULL, 0},
	{"NonZero: unknown rank", 13, "x:FLOAT:-", "NonZero", "x", "y", "", "y=INT64 (?, unk__0)", NULL, 0},
	{"Compress: axis 0", 11, "x:FLOAT:3,2 c:BOOL:3", "Compress", "x,c", "y", "axis=0", "y=FLOAT (unk__0, 2)", NULL, 0},
	{"Compress: negative axis", 11, "x:FLOAT:3,2 c:BOOL:2", "Compress", "x,c", "y", "axis=-1", "y=FLOAT (3, unk__0)", NULL, 0},
	{"Compress: flattened", 9, "x:FLOAT:3,2 c:BOOL:3", "Compress", "x,c", "y", "", "y=FLOAT (unk__0)", NULL, 0},
	{"Compress: known condition", 11, "x:FLOAT:3,2 c!BOOL:3", "Compress", "x,c", "y", "axis=0", "y=FLOAT (0, 2)", NULL, 0},
	{"Compress: condition not 1-D", 11, "x:FLOAT:3,2 c:BOOL:3,1", "Compress", "x,c", "y", "axis=0", "y=FLOAT (rank unknown)", NULL, 1},
	{"Unique: flattened", 11, "x:FLOAT:2,3", "Unique", "x", "y,i,inv,cnt", "", "y=FLOAT (unk__0); i=INT64 (unk__0); inv=INT64 (6); cnt=INT64 (unk__0)", NULL, 0},
	{"Unique: axis 1", 11, "x:FLOAT:2,3", "Unique", "x", "y,i,inv,cnt", "axis=1", "y=FLOAT (2, unk__0); i=INT64 (unk__0); inv=INT64 (3); cnt=INT64 (unk__0)", NULL, 0},
	{"Unique: known content", 11, "d=5:2,1,1,3,2", "Unique", "d", "y,i,inv,cnt", "", "y=INT64 (3); i=INT64 (3); inv=INT64 (5); cnt=INT64 (3)", NULL, 0},
	/* Known content: counted as numpy.unique does (ONNX's reference). */
	{"Unique: known floats", 11, "f~6:2,1,1,3,4,3", "Unique", "f", "y,i,inv,cnt", "", "y=FLOAT (4); i=INT64 (4); inv=INT64 (6); cnt=INT64 (4)", NULL, 0},
	{"Unique: -0 equals 0", 11, "f~3:0,-0,1", "Unique", "f", "y", "", "y=FLOAT (2)", NULL, 0},
	{"Unique: known rows (axis 0)", 11, "d=3x2:1,2,1,2,3,4", "Unique", "d", "y,i,inv,cnt", "axis=0", "y=INT64 (2, 2); i=INT64 (2); inv=INT64 (3); cnt=INT64 (2)", NULL, 0},
	{"Unique: known columns (axis -1)", 11, "d=2x3:1,1,2,3,3,4", "Unique", "d", "y", "axis=-1", "y=INT64 (2, 2)", NULL, 0},
	{"Unique: columns equal in one row only", 11, "d=2x2:1,1,3,4", "Unique", "d", "y", "axis=1", "y=INT64 (2, 2)", NULL, 0},
	{"Unique: axis out of range", 11, "x:FLOAT:2,3", "Unique", "x", "y", "axis=2", "y=FLOAT (rank unknown)", NULL, 1},
	{"OneHot: depth known", 11, "i:INT64:3 d=:10 v:FLOAT:2", "OneHot", "i,d,v", "y", "", "y=FLOAT (3, 10)", NULL, 0},
	{"OneHot: axis 1", 11, "i:INT64:2,2 d=:10 v:FLOAT:2", "OneHot", "i,d,v", "y", "axis=1", "y=FLOAT (2, 10, 2)", NULL, 0},
	{"OneHot: axis -2", 11, "i:INT64:2,2 d=:10 v:FLOAT:2", "OneHot", "i,d,v", "y", "axis=-2", "y=FLOAT (2, 10, 2)", NULL, 0},
	{"OneHot: default last", 9, "i:INT64:2,2 d=1:10 v:INT32:2", "OneHot", "i,d,v", "y", "", "y=INT32 (2, 2, 10)", NULL, 0},
	{"OneHot: float depth", 11, "i:INT64:3 d~:12 v:FLOAT:2", "OneHot", "i,d,v", "y", "", "y=FLOAT (3, 12)", NULL, 0},
	{"OneHot: runtime depth", 11, "i:INT64:3 d:INT64: v:FLOAT:2", "OneHot", "i,d,v", "y", "", "y=FLOAT (3, unk__0)", NULL, 0},
	{"OneHot: values length", 11, "i:INT64:3 d=:10 v:FLOAT:3", "OneHot", "i,d,v", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
	{"OneHot: axis out of range", 11, "i:INT64:3 d=:10 v:FLOAT:2", "OneHot", "i,d,v", "y", "axis=2", "y=FLOAT (rank unknown)", NULL, 1},
	{"ReverseSequence: same shape", 10, "x:FLOAT:4,4 l:INT64:4", "ReverseSequence", "x,l", "y", "", "y=FLOAT (4, 4)", NULL, 0},
	{"ReverseSequence: batch first", 10, "x:FLOAT:3,4,2 l:INT64:3", "ReverseSequence", "x,l", "y", "batch_axis=0 time_axis=1", "y=FLOAT (3, 4, 2)", NULL, 0},
	{"ReverseSequence: one axis twice", 10, "x:FLOAT:4,4 l:INT64:4", "ReverseSequence", "x,l", "y", "batch_axis=1 time_axis=1", "y=FLOAT (rank unknown)", NULL, 1},
	{"ReverseSequence: lengths", 10, "x:FLOAT:4,3 l:INT64:4", "ReverseSequence", "x,l", "y", "", "y=FLOAT (rank unknown)", NULL, 1},
};

Test(rules_tensor, data_dependent) { RUN_TABLE(data_dependent_cases); }
