/* rules_ms_layout.c: ONNX Runtime's operators of other memory layouts: com.microsoft's
 * NHWC convolution and pool (NhwcConv, NhwcMaxPool) and the com.microsoft.nchwc
 * operators its NCHWc layout transformer writes (Conv, MaxPool, AveragePool,
 * GlobalMaxPool, GlobalAveragePool, ReorderInput, ReorderOutput, Upsample); and the
 * channels-last wrapper the quantized pools and convolution share (ms_channels_last.h).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md, the nchwc domain's schemas
 * (onnxruntime/core/graph/contrib_ops/nchwc_schema_defs.cc) and, where those leave a
 * size out, what the kernels check and allocate:
 *   - NhwcConv, NhwcMaxPool: ai.onnx Conv's and MaxPool's windows over X (N, D..., C),
 *     Y (N, D'..., M or C), through ms_channels_last;
 *   - nchwc: every kernel takes 4-D tensors only; Conv and the pools are ai.onnx's
 *     with every window attribute, Conv's Sum has the output's shape; ReorderInput pads
 *     the channels (a multiple of 4) to the CPU's block size; ReorderOutput gives
 *     `channels` channels, first or last; Upsample multiplies H and W by integer
 *     scales.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rule_protos.h"

#include "core/dtype.h"
#include "passes/rules/ms_channels_last.h"
#include "passes/rules/ms_inputs.h"
#include "passes/rules/rules_nn.h"

/* ---- channels last ------------------------------------------------------------------ */

/* Its messages name the moved shape: the one the rule saw. */
void ms_channels_last(infer_ctx *c, infer_fn rule)
{
	int32_t r = in_rank(c, 0);
	if (r < 3) {
		if (r >= 0)
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' %s needs at least 3 dimensions (N, D..., C)", in_name(c, 0),
				   fmt_shape(c, in(c, 0)));
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	value *xv = &c->g->values[c->n->inputs[0]];
	tinfo saved = xv->ti;
	dim *moved = dims_alloc(c, r);
	if (!moved)
		return;
	moved[0] = saved.dims[0];
	moved[1] = saved.dims[r - 1];
	for (int32_t k = 1; k < r - 1; k++)
		moved[k + 1] = saved.dims[k];
	xv->ti.dims = moved;
	rule(c);
	xv->ti = saved;
	if (!out_present(c, 0))
		return;
	const tinfo *y = &c->g->values[c->n->outputs[0]].ti;
	if (y->kind != TK_TENSOR || y->rank != r)
		return;
	dim *back = dims_alloc(c, r);
	if (!back)
		return;
	back[0] = y->dims[0];
	for (int32_t k = 1; k < r - 1; k++)
		back[k] = y->dims[k + 1];
	back[r - 1] = y->dims[1];
	set_out(c, 0, y->elem, r, back);
}

/* Opset 19 has every window attribute: ceil_mode, which QLinearAveragePool has, came
 * in AveragePool-10, dilations in AveragePool-19 (MaxPool-10). */
void ms_pool_latest(infer_ctx *c)
{
	infer_ctx d = *c;
	d.opset = 19;
	infer_pool(&d);
}

/* MLAS's NCHWc block: 8 channels with AVX2, 16 with AVX-512; the nchwc kernels are
 * registered only where it is above 1. Every block size divides this one, so a channel
 * count that is a multiple of it is padded to itself on any CPU. */
#define NCHWC_BLOCK_MAX 16

/* ---- NhwcConv, NhwcMaxPool -------------------------------------------------------- */

void infer_ms_nhwc_conv(infer_ctx *c) { ms_channels_last(c, infer_conv); }

void infer_ms_nhwc_max_pool(infer_ctx *c) { ms_channels_last(c, ms_pool_latest); }

/* ---- com.microsoft.nchwc ----------------------------------------------------------- */

/* Every NCHWc kernel enforces 4-D inputs. */
static bool nchwc_4d(infer_ctx *c, int32_t i)
{
	return ms_rank_is(c, i, 4, "4-D: ONNX Runtime's NCHWc kernels take no other rank");
}

/* Input 0 when it is known 4-D, else NULL (another rank reported). */
static const tinfo *nchwc_x(infer_ctx *c) { return nchwc_4d(c, 0) ? in_ranked(c, 0) : NULL; }

void infer_nchwc_conv(infer_ctx *c)
{
	set_out_elem(c, 0, in_elem(c, 0));
	if (nchwc_4d(c, 0) && nchwc_4d(c, 1) && nchwc_4d(c, 3))
		infer_ms_fused_conv(c);
}

/* The kernels pool over H and W only: kernel_shape has two entries. */
void infer_nchwc_pool(infer_ctx *c)
{
	set_out_elem(c, 0, in_elem(c, 0));
	const int64_t *k;
	int32_t nk;
	if (attr_ints(c, "kernel_shape", &k, &nk) && nk != 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "kernel_shape has %d values; the NCHWc pools are 2-D", nk);
		return;
	}
	if (nchwc_4d(c, 0))
		ms_pool_latest(c);
}

void infer_nchwc_global_pool(infer_ctx *c)
{
	set_out_elem(c, 0, in_elem(c, 0));
	if (nchwc_4d(c, 0))
		infer_global_pool(c);
}

void infer_nchwc_reorder_input(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const tinfo *x = nchwc_x(c);
	if (!x)
		return;
	bool last = attr_i(c, "channels_last", 0) != 0;
	dim ch = dim_resolve(c->syms, x->dims[last ? 3 : 1]);
	if (ch.kind == DIM_KNOWN && ch.v % 4) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s has %lld channels; ReorderInput takes a multiple of 4",
			   in_name(c, 0), fmt_shape(c, x), (long long)ch.v);
		return;
	}
	dim d[4] = {x->dims[0], dim_unknown(), x->dims[last ? 1 : 2], x->dims[last ? 2 : 3]};
	if (ch.kind == DIM_KNOWN && ch.v % NCHWC_BLOCK_MAX == 0)
		d[1] = ch;
	set_out(c, 0, elem, 4, d);
}

void infer_nchwc_reorder_output(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int64_t ch = attr_i(c, "channels", 0);
	if (ch <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "channels is %lld; it must be positive", (long long)ch);
		return;
	}
	const tinfo *x = nchwc_x(c);
	if (!x)
		return;
	dim padded = dim_resolve(c->syms, x->dims[1]);
	if (padded.kind == DIM_KNOWN && padded.v < ch) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s has %lld channels, fewer than channels (%lld)",
			   in_name(c, 0), fmt_shape(c, x), (long long)padded.v, (long long)ch);
		return;
	}
	dim d[4] = {x->dims[0], dim_known(ch), x->dims[2], x->dims[3]};
	if (attr_i(c, "channels_last", 0)) {
		d[1] = x->dims[2];
		d[2] = x->dims[3];
		d[3] = dim_known(ch);
	}
	set_out(c, 0, elem, 4, d);
}

/* The kernel wants scales (1, 1, h, w), h and w at least 1. */
void infer_nchwc_upsample(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const int64_t *s;
	int32_t ns;
	if (!attr_ints(c, "scales", &s, &ns) || ns != 4 || s[0] != 1 || s[1] != 1 || s[2] < 1 || s[3] < 1) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "scales must be four integers (1, 1, h, w), h and w at least 1");
		return;
	}
	const tinfo *x = nchwc_x(c);
	if (!x)
		return;
	dim d[4] = {x->dims[0], x->dims[1], dim_mul(c, x->dims[2], dim_known(s[2])),
		    dim_mul(c, x->dims[3], dim_known(s[3]))};
	set_out(c, 0, elem, 4, d);
}
