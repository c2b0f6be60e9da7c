/* rules_loss.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (every
 * version).
 *
 * Both take scores/log-probabilities (N, C, d1, ..., dk), k >= 0, and integer
 * targets (N, d1, ..., dk), with an optional per-class weight (C). The loss is
 * (N, d1, ..., dk) with reduction "none" and a scalar with "sum" or "mean" (the
 * default); SoftmaxCrossEntropyLoss's optional second output, log_prob, has the
 * scores' shape. ignore_index changes values only, never shapes.
 *
 * Invariant: the unreduced loss takes each dim from the scores or the target,
 * whichever knows it, after checking the two (and the weight against C) agree.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include <string.h>

enum { IN_SCORES, IN_TARGET, IN_WEIGHT };

/* The loss shape (N, d1..dk): *rank and *out (in the arena), or RANK_UNKNOWN
 * when neither input has a known rank. False when the inputs disagree
 * (reported). */
static bool unreduced(infer_ctx *c, int32_t *rank, dim **outp)
{
	int32_t rs = in_rank(c, IN_SCORES), rt = in_rank(c, IN_TARGET);
	const tinfo *s = rs >= 0 ? in(c, IN_SCORES) : NULL, *t = rt >= 0 ? in(c, IN_TARGET) : NULL;
	*rank = RANK_UNKNOWN;
	if (s && rs < 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be (N, C, d1, ..., dk): rank 2 at least",
			   in_name(c, IN_SCORES), fmt_shape(c, s));
		return false;
	}
	if (t && rt < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be (N, d1, ..., dk): rank 1 at least",
			   in_name(c, IN_TARGET), fmt_shape(c, t));
		return false;
	}
	if (s && t && rt != rs - 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "'%s' %s must have one dimension less than '%s' %s (no class dimension)",
			   in_name(c, IN_TARGET), fmt_shape(c, t), in_name(c, IN_SCORES), fmt_shape(c, s));
		return false;
	}
	if (!s && !t)
		return true;
	int32_t r = t ? rt : rs - 1;
	dim *out = dims_alloc(c, r);
	if (!out)
		return false;
	for (int32_t k = 0; k < r; k++) {
		/* dim k of the loss is dim k of the target, dim 0 or k + 1 of the scores */
		dim ds = s ? s->dims[k ? k + 1 : 0] : dim_unknown(), dt = t ? t->dims[k] : dim_unknown();
		if (!dim_merge(c, ds, dt, &out[k])) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' %s and '%s' %s disagree: dimension %d of the target is %s, the scores have %s",
				   in_name(c, IN_TARGET), fmt_shape(c, t), in_name(c, IN_SCORES), fmt_shape(c, s), k,
				   nn_dim_text(c, dt), nn_dim_text(c, ds));
			return false;
		}
	}
	const tinfo *w = in_ranked(c, IN_WEIGHT);
	if (w) {
		dim cls = s ? s->dims[1] : dim_unknown(), merged;
		if (w->rank != 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "weight '%s' %s must be 1-D of the %s classes",
				   in_name(c, IN_WEIGHT), fmt_shape(c, w), nn_dim_text(c, cls));
			return false;
		}
		/* ONNX Runtime reads the weights of the targets it meets, whatever their count. */
		if (!dim_merge(c, w->dims[0], cls, &merged))
			infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
				   "weight '%s' %s should hold one weight per class (%s); ONNX Runtime does not check it",
				   in_name(c, IN_WEIGHT), fmt_shape(c, w), nn_dim_text(c, cls));
	}
	*rank = r;
	*outp = out;
	return true;
}

/* Sets output 0 (the loss); true when the inputs are consistent. */
static bool loss_shape(infer_ctx *c, int32_t elem)
{
	set_out_elem(c, 0, elem);
	/* ONNX Runtime reduces for any reduction but "none", documented or not. */
	const char *red = attr_s(c, "reduction", "mean");
	bool none = !strcmp(red, "none");
	int32_t rank;
	dim *out = NULL;
	if (!unreduced(c, &rank, &out))
		return false;
	if (!none)
		set_out(c, 0, elem, 0, NULL);
	else if (rank >= 0)
		set_out(c, 0, elem, rank, out);
	return true;
}

void infer_nll_loss(infer_ctx *c) { loss_shape(c, in_elem(c, IN_SCORES)); }

void infer_softmax_cross_entropy_loss(infer_ctx *c)
{
	int32_t elem = in_elem(c, IN_SCORES);
	set_out_elem(c, 1, elem);
	if (!loss_shape(c, elem))
		return;
	/* log_prob = log(softmax(scores)) along the class axis: the scores' shape */
	const tinfo *s = in_ranked(c, IN_SCORES);
	if (s)
		set_out(c, 1, elem, s->rank, s->dims);
}
