/* rules_rnn.c: the recurrent layers RNN, GRU and LSTM (every version).
 *
 * The three differ only in their number of gates (1, 3, 4: W and R stack that
 * many hidden_size blocks, B twice that many), LSTM's cell state (initial_c,
 * Y_c) and its peepholes P (num_directions, 3 * hidden_size). Each output
 * dimension has several witnesses: seq_length comes from X; batch_size from X,
 * sequence_lens, initial_h and initial_c; num_directions from `direction` and
 * the leading dim of W, R, B, P and the initial states; hidden_size from the
 * attribute, R's last dim, the initial states, and W, R, B, P divided by their
 * gate count. All witnesses are merged, so a model whose shapes disagree is
 * reported and a symbol pinned by one witness is resolved.
 *
 * Invariant: an output dim is written only when some witness gives it; layout
 * (14+) decides where batch and num_directions sit. A layout attribute on an
 * older version is ambiguous (strict runtimes ignore it), so its shapes are
 * then left unknown.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include <string.h>

typedef struct rnn_op {
	int64_t gates; /* hidden_size blocks stacked in W and R */
	bool cell;     /* LSTM: initial_c (input 6), P (input 7), Y_c (output 2) */
} rnn_op;

static const rnn_op op_rnn = {1, false}, op_gru = {3, false}, op_lstm = {4, true};

/* Input indices, common to the three operators. */
enum { IN_X, IN_W, IN_R, IN_B, IN_SEQ_LENS, IN_INITIAL_H, IN_INITIAL_C, IN_P };

/* The dimensions every shape is made of, merged from all witnesses. */
typedef struct rnn_dims {
	dim seq, batch, dirs, hidden, input;
} rnn_dims;

/* Merges witness d (dimension `k` of input i, or an attribute when i < 0) into
 * *acc; reports a disagreement naming `what` and returns false. */
static bool witness(infer_ctx *c, dim *acc, dim d, const char *what, int32_t i, int32_t k)
{
	dim before = dim_resolve(c->syms, *acc), merged;
	if (dim_merge(c, *acc, d, &merged)) {
		*acc = merged;
		return true;
	}
	if (i >= 0)
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s is %s, but '%s' %s gives %s (dimension %d)", what,
			   nn_dim_text(c, before), in_name(c, i), fmt_shape(c, in(c, i)), nn_dim_text(c, d), k);
	else
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s is %s, but the attribute gives %s", what,
			   nn_dim_text(c, before), nn_dim_text(c, d));
	return false;
}

/* dims[k] of input i divided by `per`, a witness of hidden_size when it
 * divides. */
static bool hidden_witness(infer_ctx *c, rnn_dims *r, int32_t i, int32_t k, int64_t per)
{
	const tinfo *t = in(c, i);
	dim d = dim_resolve(c->syms, t->dims[k]);
	if (per == 1)
		return witness(c, &r->hidden, d, "hidden_size", i, k);
	if (d.kind != DIM_KNOWN)
		return true;
	if (d.v % per) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s: dimension %d (%lld) must be %lld times hidden_size",
			   in_name(c, i), fmt_shape(c, t), k, (long long)d.v, (long long)per);
		return false;
	}
	return witness(c, &r->hidden, dim_known(d.v / per), "hidden_size", i, k);
}

/* Input i when present with a known rank, after checking that rank is `want`.
 * *bad is set when it is not (reported). */
static const tinfo *ranked(infer_ctx *c, int32_t i, int32_t want, bool *bad)
{
	int32_t r = in_rank(c, i);
	if (r < 0)
		return NULL;
	if (r != want) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must have rank %d", in_name(c, i),
			   fmt_shape(c, in(c, i)), want);
		*bad = true;
		return NULL;
	}
	return in(c, i);
}

/* Reads every witness into *r; false when the model contradicts itself
 * (reported). */
static bool gather(infer_ctx *c, const rnn_op *op, bool batch_first, rnn_dims *r)
{
	bool bad = false;
	const tinfo *x = ranked(c, IN_X, 3, &bad), *w = ranked(c, IN_W, 3, &bad), *rr = ranked(c, IN_R, 3, &bad),
		    *b = ranked(c, IN_B, 2, &bad), *sl = ranked(c, IN_SEQ_LENS, 1, &bad),
		    *h0 = ranked(c, IN_INITIAL_H, 3, &bad);
	const tinfo *c0 = op->cell ? ranked(c, IN_INITIAL_C, 3, &bad) : NULL,
		    *p = op->cell ? ranked(c, IN_P, 2, &bad) : NULL;
	if (bad)
		return false;
	bool ok = true;
	if (x) {
		r->seq = x->dims[batch_first ? 1 : 0];
		ok = witness(c, &r->batch, x->dims[batch_first ? 0 : 1], "batch_size", IN_X, batch_first ? 0 : 1) &&
		     witness(c, &r->input, x->dims[2], "input_size", IN_X, 2);
	}
	if (ok && w)
		ok = witness(c, &r->dirs, w->dims[0], "num_directions", IN_W, 0) &&
		     witness(c, &r->input, w->dims[2], "input_size", IN_W, 2) &&
		     hidden_witness(c, r, IN_W, 1, op->gates);
	if (ok && rr)
		ok = witness(c, &r->dirs, rr->dims[0], "num_directions", IN_R, 0) &&
		     witness(c, &r->hidden, rr->dims[2], "hidden_size", IN_R, 2) &&
		     hidden_witness(c, r, IN_R, 1, op->gates);
	if (ok && b)
		ok = witness(c, &r->dirs, b->dims[0], "num_directions", IN_B, 0) &&
		     hidden_witness(c, r, IN_B, 1, 2 * op->gates);
	if (ok && sl)
		ok = witness(c, &r->batch, sl->dims[0], "batch_size", IN_SEQ_LENS, 0);
	/* initial_h and initial_c: (num_directions, batch, hidden), or (batch,
	 * num_directions, hidden) with layout 1. */
	for (int32_t k = 0; ok && k < 2; k++) {
		const tinfo *s = k ? c0 : h0;
		int32_t i = k ? IN_INITIAL_C : IN_INITIAL_H;
		if (s)
			ok = witness(c, &r->dirs, s->dims[batch_first ? 1 : 0], "num_directions", i,
				     batch_first ? 1 : 0) &&
			     witness(c, &r->batch, s->dims[batch_first ? 0 : 1], "batch_size", i,
				     batch_first ? 0 : 1) &&
			     witness(c, &r->hidden, s->dims[2], "hidden_size", i, 2);
	}
	if (ok && p)
		ok = witness(c, &r->dirs, p->dims[0], "num_directions", IN_P, 0) && hidden_witness(c, r, IN_P, 1, 3);
	return ok;
}

static void rnn_shapes(infer_ctx *c, const rnn_op *op)
{
	int32_t elem = in_elem(c, IN_X);
	int32_t nout = op->cell ? 3 : 2;
	for (int32_t o = 0; o < nout; o++)
		set_out_elem(c, o, elem);

	int64_t layout = 0;
	if (attr_has(c, "layout")) {
		layout = attr_i(c, "layout", 0);
		if (c->opset < 14 && layout != 0)
			return; /* an attribute-error of its schema: what it would change is unknown */
		if (layout != 0 && layout != 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "layout is %lld; it must be 0 or 1", (long long)layout);
			return;
		}
	}
	rnn_dims r = {dim_unknown(), dim_unknown(), dim_unknown(), dim_unknown(), dim_unknown()};
	/* GRU-1 documents its default as "foward": the same direction. */
	const char *dir = attr_s(c, "direction", "forward");
	if (!strcmp(dir, "forward") || !strcmp(dir, "reverse") || !strcmp(dir, "foward")) {
		r.dirs = dim_known(1);
	} else if (!strcmp(dir, "bidirectional")) {
		r.dirs = dim_known(2);
	} else {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "direction is '%s'; it must be forward, reverse or bidirectional", dir);
		return;
	}
	if (attr_has(c, "hidden_size")) {
		/* ONNX Runtime's RNN runs a hidden size of 0; its GRU and LSTM refuse it. */
		int64_t hs = attr_i(c, "hidden_size", -1), least = !strcmp(c->n->op_type, "RNN") ? 0 : 1;
		if (hs < least) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "hidden_size is %lld; it must be at least %lld",
				   (long long)hs, (long long)least);
			return;
		}
		r.hidden = dim_known(hs);
	}
	if (!gather(c, op, layout == 1, &r))
		return;

	dim y[4], state[3];
	if (layout == 1) {
		y[0] = r.batch, y[1] = r.seq, y[2] = r.dirs, y[3] = r.hidden;
		state[0] = r.batch, state[1] = r.dirs, state[2] = r.hidden;
	} else {
		y[0] = r.seq, y[1] = r.dirs, y[2] = r.batch, y[3] = r.hidden;
		state[0] = r.dirs, state[1] = r.batch, state[2] = r.hidden;
	}
	set_out(c, 0, elem, 4, y);
	for (int32_t o = 1; o < nout; o++)
		set_out(c, o, elem, 3, state);
}

void infer_rnn(infer_ctx *c) { rnn_shapes(c, &op_rnn); }
void infer_gru(infer_ctx *c) { rnn_shapes(c, &op_gru); }
void infer_lstm(infer_ctx *c) { rnn_shapes(c, &op_lstm); }
