/* rules_training.c: the ai.onnx.preview.training operators Adagrad, Adam,
 * Momentum and Gradient (version 1).
 *
 * The optimizers take R (learning rate) and T (update count), then n optimized
 * tensors followed by groups of n tensors of the same shapes: their gradients
 * and their optimizer states. Their outputs are the n new tensors followed by
 * the n new values of each state:
 *   Adagrad   X, G, H      -> X', H'
 *   Adam      X, G, V, H   -> X', V', H'
 *   Momentum  X, G, V      -> X', V'
 * The update is elementwise, so tensor k of every group has one shape: it is
 * merged from the whole group, and each output takes it with the element type
 * of the input it replaces. Gradient's i-th output is dY/dX_i for the i-th
 * input (the tensors of attribute xs come first): it has X_i's shape; its
 * element type is left to the file.
 *
 * Invariant: an output's dims are the merge of inputs that must all have them;
 * a group whose shapes disagree is reported and left with element types only.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

/* Inputs before the variadic groups: R and T. */
#define OPT_FIXED 2

typedef struct optimizer {
	int32_t in_groups;   /* groups of n inputs after R and T */
	int32_t out_groups;  /* groups of n outputs */
	int32_t out_from[3]; /* the input group each output group replaces */
} optimizer;

static const optimizer adagrad = {3, 2, {0, 2}}, adam = {4, 3, {0, 2, 3}}, momentum = {3, 2, {0, 2}};

/* The merged shape of tensor k across all input groups, into *rank/dims
 * (capacity RULE_MAX_RANK). False when they disagree (reported). */
static bool group_shape(infer_ctx *c, const optimizer *o, int32_t n, int32_t k, int32_t *rank, dim *dims)
{
	int32_t first = -1;
	*rank = RANK_UNKNOWN;
	for (int32_t g = 0; g < o->in_groups; g++) {
		int32_t i = OPT_FIXED + g * n + k, r = in_rank(c, i);
		if (r < 0)
			continue;
		const tinfo *t = in(c, i);
		if (first < 0) {
			first = i;
			*rank = r;
			for (int32_t d = 0; d < r; d++)
				dims[d] = t->dims[d];
			continue;
		}
		bool same = r == *rank;
		for (int32_t d = 0; same && d < r; d++)
			same = dim_merge(c, dims[d], t->dims[d], &dims[d]);
		if (!same) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' %s and '%s' %s belong to the same optimized tensor and must have one shape",
				   in_name(c, first), fmt_shape(c, in(c, first)), in_name(c, i), fmt_shape(c, t));
			*rank = RANK_UNKNOWN;
			return false;
		}
	}
	return true;
}

static void optimize(infer_ctx *c, const optimizer *o)
{
	int32_t vars = in_count(c) - OPT_FIXED;
	if (vars < o->in_groups || vars % o->in_groups) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "%s needs R, T and %d groups of equally many tensors, but it has %d inputs", c->n->op_type,
			   o->in_groups, in_count(c));
		return;
	}
	int32_t n = vars / o->in_groups;
	if (out_count(c) > o->out_groups * n) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s optimizes %d tensors: it has at most %d outputs, not %d",
			   c->n->op_type, n, o->out_groups * n, out_count(c));
		return;
	}
	dim *dims = dims_alloc(c, RULE_MAX_RANK);
	if (!dims)
		return;
	for (int32_t k = 0; k < n; k++) {
		int32_t rank;
		bool ok = group_shape(c, o, n, k, &rank, dims);
		for (int32_t g = 0; g < o->out_groups; g++) {
			int32_t out = g * n + k, elem = in_elem(c, OPT_FIXED + o->out_from[g] * n + k);
			if (ok && rank >= 0)
				set_out(c, out, elem, rank, dims);
			else
				set_out_elem(c, out, elem);
		}
	}
}

void infer_adagrad(infer_ctx *c) { optimize(c, &adagrad); }
void infer_adam(infer_ctx *c) { optimize(c, &adam); }
void infer_momentum(infer_ctx *c) { optimize(c, &momentum); }

void infer_gradient(infer_ctx *c)
{
	const attr_view *xs = attr(c, "xs");
	if (!xs || xs->type != AT_STRINGS) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the xs attribute (a list of strings) is required");
		return;
	}
	if (out_count(c) > xs->n || xs->n > in_count(c)) {
		infer_diag(
			c, OSH_ERROR, DIAG_SHAPE_ERROR,
			"xs names %d tensors: the node needs at least that many inputs (it has %d) and at most that many outputs (it has %d)",
			xs->n, in_count(c), out_count(c));
		return;
	}
	for (int32_t i = 0; i < out_count(c); i++) {
		const tinfo *x = in_ranked(c, i);
		if (x)
			set_out(c, i, 0, x->rank, x->dims);
	}
}
