/* rules_nms.c: NonMaxSuppression (10, 11).
 *
 * boxes (num_batches, spatial_dimension, 4) and scores (num_batches,
 * num_classes, spatial_dimension) give selected_indices (num_selected, 3)
 * INT64, each row [batch_index, class_index, box_index]. How many boxes survive
 * depends on the data, so num_selected is a fresh symbol, except when
 * max_output_boxes_per_class is absent or known to be 0 (the spec: no output)
 * or some input dimension is 0, where it is 0, and when every input's content
 * is known (initializers, --input-data): then the selection itself is run.
 *
 * Invariant: num_selected is never a number the data could contradict.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/dtype.h"

#include <math.h>
#include <stdlib.h>

enum { IN_BOXES, IN_SCORES, IN_MAX_OUT, IN_IOU, IN_SCORE_THRESHOLD };

/* One known float scalar input, or `def` when the input is omitted. */
static bool scalar_float(infer_ctx *c, int32_t i, double def, double *out)
{
	if (!in(c, i)) {
		*out = def;
		return true;
	}
	return in_float1(c, i, out);
}

/* A box as (ymin, xmin, ymax, xmax) from either encoding. */
static void corners(const double *b, bool center, double out[4])
{
	if (center) {
		out[0] = b[1] - b[3] / 2, out[1] = b[0] - b[2] / 2;
		out[2] = b[1] + b[3] / 2, out[3] = b[0] + b[2] / 2;
	} else {
		out[0] = fmin(b[0], b[2]), out[1] = fmin(b[1], b[3]);
		out[2] = fmax(b[0], b[2]), out[3] = fmax(b[1], b[3]);
	}
}

static double iou(const double a[4], const double b[4])
{
	double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
	if (area_a <= 0 || area_b <= 0)
		return 0;
	double h = fmin(a[2], b[2]) - fmax(a[0], b[0]), w = fmin(a[3], b[3]) - fmax(a[1], b[1]);
	double inter = h > 0 && w > 0 ? h * w : 0;
	return inter / (area_a + area_b - inter);
}

/* Close enough to a threshold that float arithmetic (the runtime's) and double
 * (ours) could fall on different sides of it. */
static bool near(double x, double t) { return fabs(x - t) <= 1e-6 * fmax(1.0, fabs(t)); }

/* The number of selected boxes, computed from known content: per batch and class,
 * greedily take the highest-scoring box left (above score_threshold), drop every box
 * whose IoU with it is strictly greater than iou_threshold, up to max_out boxes.
 * False (count unknown) where the spec leaves the outcome open or precision could
 * decide it: two equal scores competing in one class, a score at the threshold
 * ("less than" is removed, equality is unspecified), an IoU at the threshold.
 * (Equal scores on identical boxes are fine: either order selects the same.) */
static bool selected_count(infer_ctx *c, int64_t nb, int64_t nc, int64_t ns, int64_t max_out, int64_t *count)
{
	const double *boxes, *scores;
	int32_t n_boxes, n_scores;
	double iou_t, score_t;
	bool has_score_t = in(c, IN_SCORE_THRESHOLD) != NULL;
	if (!in_floats(c, IN_BOXES, &boxes, &n_boxes) || n_boxes != nb * ns * 4 ||
	    !in_floats(c, IN_SCORES, &scores, &n_scores) || n_scores != nb * nc * ns ||
	    !scalar_float(c, IN_IOU, 0.0, &iou_t) || !scalar_float(c, IN_SCORE_THRESHOLD, 0.0, &score_t))
		return false;
	bool center = attr_i(c, "center_point_box", 0) == 1;
	/* ns <= n_boxes / 4 <= TINFO_MAX_VALUES: small arrays. */
	int64_t *order = arena_array(c->a, ns ? (size_t)ns : 1, sizeof *order);
	bool *gone = arena_array(c->a, ns ? (size_t)ns : 1, sizeof *gone);
	double(*box)[4] = arena_array(c->a, ns ? (size_t)ns : 1, sizeof *box);
	if (!order || !gone || !box) {
		c->m->nomem = true;
		return false;
	}
	int64_t total = 0;
	for (int64_t b = 0; b < nb; b++) {
		for (int64_t k = 0; k < ns; k++)
			corners(boxes + (b * ns + k) * 4, center, box[k]);
		for (int64_t cl = 0; cl < nc; cl++) {
			const double *sc = scores + (b * nc + cl) * ns;
			int64_t live = 0;
			for (int64_t k = 0; k < ns; k++) {
				if (isnan(sc[k]) || (has_score_t && near(sc[k], score_t)))
					return false;
				gone[k] = has_score_t && sc[k] < score_t;
				live += !gone[k];
			}
			int64_t taken = 0;
			while (taken < max_out && live > 0) {
				int64_t best = -1;
				for (int64_t k = 0; k < ns; k++)
					if (!gone[k] && (best < 0 || sc[k] > sc[best]))
						best = k;
				/* Which of two equal scores goes first is unspecified: it cannot
				 * change the count only when the boxes are the same box. */
				for (int64_t k = 0; k < ns; k++)
					if (!gone[k] && k != best && sc[k] == sc[best] &&
					    (box[k][0] != box[best][0] || box[k][1] != box[best][1] ||
					     box[k][2] != box[best][2] || box[k][3] != box[best][3]))
						return false;
				gone[best] = true, live--, taken++;
				for (int64_t k = 0; k < ns; k++) {
					if (gone[k])
						continue;
					/* 0 (no overlap, or an empty box) is exact in any precision: the
					 * sign of a difference of floats does not depend on rounding. */
					double v = iou(box[best], box[k]);
					if (v != 0 && near(v, iou_t))
						return false;
					if (v > iou_t)
						gone[k] = true, live--;
				}
			}
			total += taken;
		}
	}
	*count = total;
	return true;
}

void infer_non_max_suppression(infer_ctx *c)
{
	set_out_elem(c, 0, DT_INT64);
	bool bad = false;
	const tinfo *b = in_ranked(c, IN_BOXES), *s = in_ranked(c, IN_SCORES);
	if (b && b->rank != 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "boxes '%s' %s must be (num_batches, spatial_dimension, 4)",
			   in_name(c, IN_BOXES), fmt_shape(c, b));
		bad = true;
	}
	if (s && s->rank != 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "scores '%s' %s must be (num_batches, num_classes, spatial_dimension)",
			   in_name(c, IN_SCORES), fmt_shape(c, s));
		bad = true;
	}
	if (bad)
		return;
	dim batches = b ? b->dims[0] : dim_unknown(), boxes = b ? b->dims[1] : dim_unknown();
	dim classes = s ? s->dims[1] : dim_unknown();
	if (b && dim_resolve(c->syms, b->dims[2]).kind == DIM_KNOWN && !dim_is(dim_resolve(c->syms, b->dims[2]), 4)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "boxes '%s' %s must have 4 coordinates per box",
			   in_name(c, IN_BOXES), fmt_shape(c, b));
		return;
	}
	if (s && (!dim_merge(c, batches, s->dims[0], &batches) || !dim_merge(c, boxes, s->dims[2], &boxes))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "boxes '%s' %s and scores '%s' %s disagree on num_batches or spatial_dimension",
			   in_name(c, IN_BOXES), fmt_shape(c, b), in_name(c, IN_SCORES), fmt_shape(c, s));
		return;
	}
	dim max_out = dim_unknown();
	if (!in(c, IN_MAX_OUT))
		max_out = dim_known(0);
	else
		in_int1(c, IN_MAX_OUT, &max_out);
	bool none = dim_is(max_out, 0) || dim_is(dim_resolve(c->syms, batches), 0) ||
		    dim_is(dim_resolve(c->syms, boxes), 0) || dim_is(dim_resolve(c->syms, classes), 0);
	dim nb = dim_resolve(c->syms, batches), ns = dim_resolve(c->syms, boxes), nc = dim_resolve(c->syms, classes),
	    mo = dim_resolve(c->syms, max_out);
	int64_t count = -1;
	if (!none && nb.kind == DIM_KNOWN && ns.kind == DIM_KNOWN && nc.kind == DIM_KNOWN && mo.kind == DIM_KNOWN &&
	    mo.v > 0 && !selected_count(c, nb.v, nc.v, ns.v, mo.v, &count))
		count = -1;
	dim out[2] = {none ? dim_known(0) : count >= 0 ? dim_known(count) : dim_fresh_same(c), dim_known(3)};
	set_out(c, 0, DT_INT64, 2, out);
}
