/* rules_nn.h: the helpers the neural-network family's files share (its rules, named
 * by ops_nn.def's rows, are declared in the generated rule_protos.h).
 *
 * The family is split by what the operators compute:
 *   rules_nn.c         helpers; MatMul, MatMulInteger, QLinearMatMul, Gemm, Einsum
 *   rules_nn_conv.c    Conv, ConvTranspose, ConvInteger, QLinearConv, the pools, the RoI
 *                      pools, MaxUnpool, Col2Im
 *   rules_reduce.c     the Reduce family, ArgMax/ArgMin, TopK
 *   rules_nn_resize.c  Resize, Upsample, DepthToSpace, SpaceToDepth, GridSample,
 *                      AffineGrid, CenterCropPad, DFT, STFT, CumSum, Trilu, LRN
 */
#ifndef OSH_PASSES_RULES_NN_H
#define OSH_PASSES_RULES_NN_H

#include "passes/rule_api/rule_api.h"

/* ---- helpers shared by the family (defined in rules_nn.c) ---- */

/* How a broadcast-mismatch names an operand: `fmt` with the name of input `input` for
 * its one %s ("the batch dims of '%s'"), or fmt itself, holding no %, when input < 0.
 * Formatted only when the message is emitted: a valid model never pays for it. */
typedef struct nn_operand {
	const char *fmt;
	int32_t input;
} nn_operand;
/* Broadcasts two shapes that are not whole inputs (MatMul's batch dims, Gemm's C
 * against (M, N)) under `rule`, records the facts learned about symbols and reports a
 * broadcast-mismatch naming both operands on failure. dims holds the larger rank. */
bool nn_broadcast(infer_ctx *c, bcast_rule rule, shape a, shape b, int64_t axis, nn_operand aname, nn_operand bname,
		  int32_t *rank, dim *dims);
/* Reads INTS attribute `name` into out (n entries): its values, or `def` in each entry
 * when absent. Reports a wrong length and values below `min` and returns false. */
bool nn_ints_attr(infer_ctx *c, const char *name, int32_t n, int64_t def, int64_t min, int64_t *out);
/* The same for an attribute already looked up: `a` is what attr(c, name) returned
 * (NULL when absent), `name` is for the messages. */
bool nn_ints_view(infer_ctx *c, const attr_view *a, const char *name, int32_t n, int64_t def, int64_t min,
		  int64_t *out);

/* Content v (n entries) of input i used as sizes: reports a negative one. */
bool nn_sizes_ok(infer_ctx *c, int32_t i, const dim *v, int32_t n);
/* A dim as text for messages ("3", "N", "?"), in the arena. */
const char *nn_dim_text(infer_ctx *c, dim d);
/* Merges d (from input i) into *acc, a size two inputs must agree on; on a conflict
 * reports "WHAT is X, but 'input' (shape) gives Y" and returns false. */
bool nn_merge_dim(infer_ctx *c, dim *acc, dim d, const char *what, int32_t i);
/* Gemm's rule as ai.onnx opset `version` defines it (legacy C broadcast before 7, C
 * optional from 11), for Gemm and for operators shaped like it (FusedGemm). */
void nn_gemm(infer_ctx *c, int64_t version);

/* ---- defined in rules_nn_conv.c ---- */

/* Output size along spatial axis i (of n) of a window with explicit pads (2n: begins,
 * then ends), no auto_pad and no ceil_mode: what Conv computes, for DeformConv.
 * kernel[i] is -1 when unknown. False (with an error) when the window does not fit or
 * the size overflows. */
bool nn_conv_out(infer_ctx *c, int32_t i, int32_t n, dim in, const int64_t *kernel, const int64_t *strides,
		 const int64_t *dil, const int64_t *pads, dim *out);

/* Input i's rank when known; reports a rank other than `want` (naming the layout it
 * must have) and sets *bad. -1 when unknown or omitted. */
int32_t nn_rank_want(infer_ctx *c, int32_t i, int32_t want, const char *layout, bool *bad);

#endif
