/* test_rules_nn_resize.c: Resize, Upsample, DepthToSpace, SpaceToDepth, GridSample,
 * AffineGrid, CenterCropPad, DFT, STFT, CumSum, Trilu, LRN (rules_nn_resize.c). */
#include <criterion/criterion.h>

#include "rule_case.h"

/* ---- Resize, Upsample ---- */

static const rule_case resize_cases[] = {
	/* floor(2 * 0.6) = 1, floor(4 * 0.6) = 2 */
	{"Resize-10 scales", 10, "Resize", "x,s", "y", .decls = "x:1,1,2,4", .floats = "s:4:1,1,0.6,0.6",
	 .expect = {"FLOAT (1, 1, 1, 2)"}},
	{"Resize-11 scales, empty roi", 11, "Resize", "x,r,s", "y", .decls = "x:1,1,4,4",
	 .floats = "r:0:|s:4:1,1,2,3", .expect = {"FLOAT (1, 1, 8, 12)"}},
	{"Resize-11 sizes, empty scales", 11, "Resize", "x,r,s,z", "y", .decls = "x:1,1,4,4", .ints = "z:4:1,1,3,2",
	 .floats = "r:0:|s:0:", .expect = {"FLOAT (1, 1, 3, 2)"}},
	{"Resize-13 scales only", 13, "Resize", "x,,s", "y", .decls = "x:N,3,4,4", .floats = "s:4:1,1,0.5,0.5",
	 .expect = {"FLOAT (N, 3, 2, 2)"}},
	{"Resize-13 sizes only", 13, "Resize", "x,,,z", "y", .decls = "x:1,1,4,4", .ints = "z:4:1,1,7,8",
	 .expect = {"FLOAT (1, 1, 7, 8)"}},
	{"Resize-13 sizes unknown", 13, "Resize", "x,,,z", "y", .decls = "x:N,3,4,4|z:INT64:4",
	 .expect = {"FLOAT (?, ?, ?, ?)"}},
	{"Resize-13 sizes unknown, input rank unknown", 13, "Resize", "x,,,z", "y", .decls = "x:*|z:INT64:3",
	 .expect = {"FLOAT (?, ?, ?)"}},
	/* 5 * 1.4f is 6.99999988 in double but 7 in float: runtimes disagree */
	{"Resize scale the runtimes round apart", 13, "Resize", "x,,s", "y", .decls = "x:1,1,5,5",
	 .floats = "s:4:1,1,1.4,2", .expect = {"FLOAT (1, 1, ?, 10)"}},
	{"Resize-18 axes with scales", 18, "Resize", "x,,s", "y", .decls = "x:1,1,4,4", .floats = "s:2:2,3",
	 .attrs = "is:axes=2,3", .expect = {"FLOAT (1, 1, 8, 12)"}},
	{"Resize-19 negative axes with sizes", 19, "Resize", "x,,,z", "y", .decls = "x:N,C,4,4", .ints = "z:2:3,2",
	 .attrs = "is:axes=-2,-1", .expect = {"FLOAT (N, C, 3, 2)"}},
	/* one scale for both axes: min(7/2, 8/2) = 3.5 -> 7, 7; max = 4 -> 8, 8 */
	{"keep_aspect_ratio_policy not_larger", 18, "Resize", "x,,,z", "y", .decls = "x:1,1,2,2", .ints = "z:2:7,8",
	 .attrs = "is:axes=2,3|s:keep_aspect_ratio_policy=not_larger", .expect = {"FLOAT (1, 1, 7, 7)"}},
	{"keep_aspect_ratio_policy not_smaller", 18, "Resize", "x,,,z", "y", .decls = "x:1,1,2,2", .ints = "z:2:7,8",
	 .attrs = "is:axes=2,3|s:keep_aspect_ratio_policy=not_smaller", .expect = {"FLOAT (1, 1, 8, 8)"}},
	/* tf_crop_and_resize scales by the roi's extent too, which runtimes ignore */
	{"tf_crop_and_resize with a partial roi", 13, "Resize", "x,r,s", "y", .decls = "x:1,1,4,4",
	 .floats = "r:8:0,0,0.4,0.6,1,1,0.6,0.8|s:4:1,1,2,2",
	 .attrs = "s:coordinate_transformation_mode=tf_crop_and_resize", .expect = {"FLOAT (1, 1, ?, ?)"}},
	{"tf_crop_and_resize with the full roi", 13, "Resize", "x,r,s", "y", .decls = "x:1,1,4,4",
	 .floats = "r:8:0,0,0,0,1,1,1,1|s:4:1,1,2,2", .attrs = "s:coordinate_transformation_mode=tf_crop_and_resize",
	 .expect = {"FLOAT (1, 1, 8, 8)"}},
	{"scales and sizes both", 13, "Resize", "x,,s,z", "y", .decls = "x:1,1,4,4", .ints = "z:4:1,1,8,8",
	 .floats = "s:4:1,1,2,2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"neither scales nor sizes", 13, "Resize", "x", "y", .decls = "x:1,1,4,4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"scales of the wrong length", 13, "Resize", "x,,s", "y", .decls = "x:1,1,4,4", .floats = "s:2:2,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"negative scale", 11, "Resize", "x,r,s", "y", .decls = "x:1,1,4,4", .floats = "r:0:|s:4:1,1,-2,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"negative size", 13, "Resize", "x,,,z", "y", .decls = "x:1,1,4,4", .ints = "z:4:1,1,-1,4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* keep_aspect_ratio_policy is stretch, not_larger or not_smaller: the schema says so */
	{"unknown policy", 18, "Resize", "x,,,z", "y", .decls = "x:1,1,2,2", .ints = "z:4:1,1,4,4",
	 .attrs = "s:keep_aspect_ratio_policy=fit", .expect = {"FLOAT (rank unknown)"}, .diag = "attribute-error"},
	{"axes out of range", 18, "Resize", "x,,s", "y", .decls = "x:1,1,4,4", .floats = "s:1:2",
	 .attrs = "is:axes=4", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"Upsample-1", 1, "Upsample", "x", "y", .decls = "x:1,1,2,2", .attrs = "f:height_scale=2|f:width_scale=3",
	 .expect = {"FLOAT (1, 1, 4, 6)"}},
	{"Upsample-7", 7, "Upsample", "x", "y", .decls = "x:N,1,2,2", .attrs = "fs:scales=1,1,2,3",
	 .expect = {"FLOAT (N, 1, 4, 6)"}},
	{"Upsample-9", 9, "Upsample", "x,s", "y", .decls = "x:1,1,2,2", .floats = "s:4:1,1,2,3",
	 .expect = {"FLOAT (1, 1, 4, 6)"}},
	{"Upsample-9 scales unknown", 9, "Upsample", "x,s", "y", .decls = "x:1,1,2,2|s:4",
	 .expect = {"FLOAT (?, ?, ?, ?)"}},
	{"Upsample-7 scale below 1", 7, "Upsample", "x", "y", .decls = "x:1,1,2,2", .attrs = "fs:scales=1,1,0.5,1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"Upsample-7 scales of the wrong length", 7, "Upsample", "x", "y", .decls = "x:1,1,2,2",
	 .attrs = "fs:scales=2,2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* Deprecated with nothing to replace it: ONNX Runtime refuses it; still read as 9. */
	{"Upsample-10 is deprecated", 10, "Upsample", "x,s", "y", .decls = "x:1,1,2,2", .floats = "s:4:1,1,2,2",
	 .expect = {"FLOAT (1, 1, 4, 4)"}, .diag = "op-not-in-opset"},
};

Test(rules_nn_resize, resize) { RULE_CASES(resize_cases); }

/* ---- rearranging ---- */

static const rule_case rearrange_cases[] = {
	/* (N, C / b^2, H * b, W * b) */
	{"DepthToSpace", 13, "DepthToSpace", "x", "y", .decls = "x:1,8,2,3", .attrs = "i:blocksize=2",
	 .expect = {"FLOAT (1, 2, 4, 6)"}},
	{"DepthToSpace CRD", 11, "DepthToSpace", "x", "y", .decls = "x:1,8,2,3", .attrs = "i:blocksize=2|s:mode=CRD",
	 .expect = {"FLOAT (1, 2, 4, 6)"}},
	{"DepthToSpace symbolic", 1, "DepthToSpace", "x", "y", .decls = "x:N,18,H,W", .attrs = "i:blocksize=3",
	 .expect = {"FLOAT (N, 2, 3*H, 3*W)"}},
	{"DepthToSpace channels", 13, "DepthToSpace", "x", "y", .decls = "x:1,6,2,3", .attrs = "i:blocksize=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"DepthToSpace mode", 11, "DepthToSpace", "x", "y", .decls = "x:1,8,2,3", .attrs = "i:blocksize=2|s:mode=RCD",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "attribute-error"},
	{"DepthToSpace rank", 13, "DepthToSpace", "x", "y", .decls = "x:8,2,3", .attrs = "i:blocksize=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* DepthToSpace-13 requires blocksize: the schema says so */
	{"DepthToSpace blocksize missing", 13, "DepthToSpace", "x", "y", .decls = "x:1,8,2,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "attribute-error"},
	{"SpaceToDepth", 13, "SpaceToDepth", "x", "y", .decls = "x:1,2,4,6", .attrs = "i:blocksize=2",
	 .expect = {"FLOAT (1, 8, 2, 3)"}},
	{"SpaceToDepth not divisible", 1, "SpaceToDepth", "x", "y", .decls = "x:1,2,5,6", .attrs = "i:blocksize=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"SpaceToDepth huge blocksize", 13, "SpaceToDepth", "x", "y", .decls = "x:1,2,4,6",
	 .attrs = "i:blocksize=4294967296", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"GridSample-16", 16, "GridSample", "x,g", "y", .decls = "x:N,3,8,8|g:N,5,6,2",
	 .expect = {"FLOAT (N, 3, 5, 6)"}},
	{"GridSample-20 volumetric", 20, "GridSample", "x,g", "y", .decls = "x:1,3,4,5,6|g:1,2,3,4,3",
	 .expect = {"FLOAT (1, 3, 2, 3, 4)"}},
	{"GridSample-16 is 2-D only", 16, "GridSample", "x,g", "y", .decls = "x:1,3,4,5,6|g:1,2,3,4,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"GridSample grid's last dim", 22, "GridSample", "x,g", "y", .decls = "x:1,3,8,8|g:1,5,6,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"GridSample batch differs", 20, "GridSample", "x,g", "y", .decls = "x:2,3,8,8|g:1,5,6,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"AffineGrid 2-D", 20, "AffineGrid", "t,s", "y", .decls = "t:2,2,3", .ints = "s:4:2,3,5,7",
	 .expect = {"FLOAT (2, 5, 7, 2)"}},
	{"AffineGrid 3-D", 20, "AffineGrid", "t,s", "y", .decls = "t:N,3,4", .ints = "s:5:2,3,4,5,6",
	 .expect = {"FLOAT (2, 4, 5, 6, 3)"}},
	{"AffineGrid size unknown", 20, "AffineGrid", "t,s", "y", .decls = "t:N,2,3|s:INT64:4",
	 .expect = {"FLOAT (N, ?, ?, 2)"}},
	{"AffineGrid theta against size", 20, "AffineGrid", "t,s", "y", .decls = "t:2,2,3", .ints = "s:5:2,3,4,5,6",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"CenterCropPad", 18, "CenterCropPad", "x,s", "y", .decls = "x:4,5", .ints = "s:2:2,8",
	 .expect = {"FLOAT (2, 8)"}},
	{"CenterCropPad axes", 18, "CenterCropPad", "x,s", "y", .decls = "x:20,10,3", .ints = "s:2:10,8",
	 .attrs = "is:axes=0,-2", .expect = {"FLOAT (10, 8, 3)"}},
	{"CenterCropPad shape unknown", 18, "CenterCropPad", "x,s", "y", .decls = "x:N,10,3|s:INT64:2",
	 .attrs = "is:axes=1,2", .expect = {"FLOAT (N, ?, ?)"}},
	{"CenterCropPad negative shape", 18, "CenterCropPad", "x,s", "y", .decls = "x:4,5", .ints = "s:2:2,-8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"AffineGrid negative size", 20, "AffineGrid", "t,s", "y", .decls = "t:2,2,3", .ints = "s:4:2,3,-5,7",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"CenterCropPad shape length", 18, "CenterCropPad", "x,s", "y", .decls = "x:4,5", .ints = "s:1:2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_nn_resize, rearrange) { RULE_CASES(rearrange_cases); }

/* ---- DFT, STFT, and the shape-preserving ones ---- */

static const rule_case signal_cases[] = {
	{"DFT-17 real to complex", 17, "DFT", "x", "y", .decls = "x:2,16,1", .expect = {"FLOAT (2, 16, 2)"}},
	/* one-sided: 16 / 2 + 1 */
	{"DFT-17 one-sided", 17, "DFT", "x", "y", .decls = "x:2,16,1", .attrs = "i:onesided=1",
	 .expect = {"FLOAT (2, 9, 2)"}},
	{"DFT-17 dft_length", 17, "DFT", "x,n", "y", .decls = "x:2,16,2", .ints = "n::20",
	 .expect = {"FLOAT (2, 20, 2)"}},
	{"DFT-17 axis 2", 17, "DFT", "x", "y", .decls = "x:2,16,8,1", .attrs = "i:axis=2",
	 .expect = {"FLOAT (2, 16, 8, 2)"}},
	/* inverse one-sided: default length 2 * (9 - 1), real output */
	{"DFT-20 inverse one-sided", 20, "DFT", "x,,a", "y", .decls = "x:2,9,2", .ints = "a::1",
	 .attrs = "i:onesided=1|i:inverse=1", .expect = {"FLOAT (2, 16, 1)"}},
	{"DFT-20 default axis -2", 20, "DFT", "x,n", "y", .decls = "x:2,16,8,1", .ints = "n::5",
	 .expect = {"FLOAT (2, 16, 5, 2)"}},
	{"DFT-20 axis unknown", 20, "DFT", "x,,a", "y", .decls = "x:2,16,8,1|a:INT64:",
	 .expect = {"FLOAT (?, ?, ?, 2)"}},
	{"DFT last dim", 17, "DFT", "x", "y", .decls = "x:2,16,3", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"DFT axis on the complex dim", 20, "DFT", "x,,a", "y", .decls = "x:2,16,1", .ints = "a::-1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* frames (128 - 16) / 8 + 1 = 15, bins 16 / 2 + 1 = 9 */
	{"STFT with a window", 17, "STFT", "x,st,w", "y", .decls = "x:1,128,1|w:16", .ints = "st::8",
	 .expect = {"FLOAT (1, 15, 9, 2)"}},
	{"STFT with frame_length", 17, "STFT", "x,st,,fl", "y", .decls = "x:B,128,1", .ints = "st::8|fl::16",
	 .attrs = "i:onesided=0", .expect = {"FLOAT (B, 15, 16, 2)"}},
	{"STFT window and frame_length differ", 17, "STFT", "x,st,w,fl", "y", .decls = "x:1,128,1|w:16",
	 .ints = "st::8|fl::32", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"STFT one-sided complex", 17, "STFT", "x,st,w", "y", .decls = "x:1,128,2|w:16", .ints = "st::8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"CumSum", 14, "CumSum", "x,a", "y", .decls = "x:N,3", .ints = "a::1", .expect = {"FLOAT (N, 3)"}},
	{"CumSum axis out of range", 11, "CumSum", "x,a", "y", .decls = "x:2,3", .ints = "a::2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"CumSum axis of two values", 11, "CumSum", "x,a", "y", .decls = "x:2,3", .ints = "a:2:0,1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"Trilu", 14, "Trilu", "x,k", "y", .decls = "x:2,3,4", .ints = "k::-1", .expect = {"FLOAT (2, 3, 4)"}},
	{"Trilu needs 2 dims", 14, "Trilu", "x", "y", .decls = "x:4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"LRN", 13, "LRN", "x", "y", .decls = "x:N,3,5,5", .attrs = "i:size=3", .expect = {"FLOAT (N, 3, 5, 5)"}},
	/* ONNX Runtime's kernel refuses an even size (the spec is silent) */
	{"LRN of an even size", 13, "LRN", "x", "y", .decls = "x:N,3,5,5", .attrs = "i:size=2",
	 .expect = {"FLOAT (N, 3, 5, 5)"}, .diag = "attribute-error"},
	/* LRN-1 requires size: the schema says so */
	{"LRN without size", 1, "LRN", "x", "y", .decls = "x:N,3,5,5", .expect = {"FLOAT (rank unknown)"},
	 .diag = "attribute-error"},
};

Test(rules_nn_resize, signal) { RULE_CASES(signal_cases); }

/* Float content small enough to be read with the initializers (infer.c: EAGER_FLOATS)
 * follows the tensor through a pass-through node: Resize behind an Identity still
 * knows its scales. Bigger float tensors are decoded only when a rule asks. */
Test(rules_nn_resize, scales_through_identity)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3,4,4");
	mb_init_floats(b, "s", "4", (float[]){1, 1, 2, 0.5f});
	mb_node(b, "Identity", "s", "s2");
	mb_node(b, "Resize", "x,,s2", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 3, 8, 2)");
	osh_model_free(m);
}
