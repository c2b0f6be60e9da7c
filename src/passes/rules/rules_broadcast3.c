/* rules_broadcast3.c: the shape rule of OpenVINO's Broadcast-3 (ops_broadcast3.def).
 *
 * The target shape is the content of input 1; unknown entries are sizes fixed at run
 * time (fresh symbols, as Expand's rule does). Each mode is one rule family of the
 * broadcasting spec, run through broadcast.c: numpy is the unidirectional rule (the
 * data broadcasts into the target, which never grows), bidirectional is Expand's,
 * explicit maps data axes onto target axes. A refusal is a broadcast-mismatch error
 * and the output keeps only its element type: never a guessed shape.
 */
#include "passes/rules/rule_protos.h"

#include <stdio.h>
#include <string.h>

#define B3_MAX_RANK 64

/* The target shape: its content when known (unknown entries fresh), else as many
 * fresh sizes as its length says. False when not even its length is known. */
static bool target_of(infer_ctx *c, dim *t, int32_t *n)
{
	const tinfo *ts = in(c, 1);
	const dim *v;
	int32_t k;
	if (in_ints(c, 1, &v, &k)) {
		if (k > B3_MAX_RANK)
			return false;
		for (int32_t i = 0; i < k; i++) {
			dim d = dim_resolve(c->syms, v[i]);
			if (d.kind == DIM_KNOWN && d.v < 0) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the target shape '%s' has %lld at %d", in_name(c, 1),
					   (long long)d.v, i);
				return false;
			}
			t[i] = d.kind == DIM_UNKNOWN ? dim_fresh(c) : d;
		}
		*n = k;
		return true;
	}
	if (!ts || ts->kind != TK_TENSOR || ts->rank != 1)
		return false;
	dim len = dim_resolve(c->syms, ts->dims[0]);
	if (len.kind != DIM_KNOWN || len.v > B3_MAX_RANK)
		return false;
	for (int32_t i = 0; i < (int32_t)len.v; i++)
		t[i] = dim_fresh(c);
	*n = (int32_t)len.v;
	return true;
}

static void refuse(infer_ctx *c, bcast_rule rule, const bcast_error *err, shape data, shape target)
{
	char why[512], ds[512], ts[512];
	/* The unidirectional rule's A is the target (it may not grow), B the data. */
	if (rule == BCAST_UNIDIRECTIONAL)
		bcast_error_format(why, sizeof why, err, "the target shape", in_name(c, 0), sym_name_cb, c->syms);
	else
		bcast_error_format(why, sizeof why, err, in_name(c, 0), "the target shape", sym_name_cb, c->syms);
	shape_format(ds, sizeof ds, data, sym_name_cb, c->syms);
	shape_format(ts, sizeof ts, target, sym_name_cb, c->syms);
	infer_diag(c, OSH_ERROR, DIAG_BROADCAST_MISMATCH,
		   "'%s' %s does not broadcast to the target shape %s given by '%s' (%s rule): %s",
		   in_name(c, 0), ds, ts, in_name(c, 1), bcast_rule_name(rule), why);
}

void infer_broadcast3(infer_ctx *c)
{
	const tinfo *x = in(c, 0);
	if (in_count(c) < 2 || !x || !in(c, 1) || out_count(c) < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "Broadcast takes data, target_shape and, in explicit mode, axes_mapping");
		return;
	}
	int32_t elem = x->kind == TK_TENSOR ? x->elem : 0;
	const char *mode = attr_s(c, "mode", "numpy");
	bcast_rule rule = !strcmp(mode, "numpy")	   ? BCAST_UNIDIRECTIONAL
			  : !strcmp(mode, "bidirectional") ? BCAST_BIDIRECTIONAL
			  : !strcmp(mode, "explicit")	   ? BCAST_EXPLICIT
							   : BCAST_NONE;
	if (rule == BCAST_NONE) {
		/* OpenVINO also has pdpd (with an axis attribute); not modelled here. */
		infer_diag(c, OSH_WARNING, DIAG_UNKNOWN_OP,
			   "Broadcast mode '%s' has no shape rule here (numpy, explicit and bidirectional do): "
			   "its output is unknown", mode);
		set_out_elem(c, 0, elem);
		return;
	}
	dim target[B3_MAX_RANK], data[B3_MAX_RANK], out[B3_MAX_RANK];
	int32_t tn = 0;
	if (!target_of(c, target, &tn)) {
		set_out_elem(c, 0, elem);
		return;
	}
	shape ts = {tn, target};
	if (x->kind != TK_TENSOR || x->rank < 0 || x->rank > B3_MAX_RANK) {
		/* The result is the target whatever the data, except bidirectionally. */
		if (rule == BCAST_BIDIRECTIONAL)
			set_out_elem(c, 0, elem);
		else
			set_out(c, 0, elem, tn, target);
		return;
	}
	for (int32_t k = 0; k < x->rank; k++)
		data[k] = dim_resolve(c->syms, x->dims[k]);
	shape ds = {x->rank, data};
	bcast_out bo = {.dims = out};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, c->syms};
	bool ok;
	if (rule == BCAST_EXPLICIT) {
		int64_t map[B3_MAX_RANK];
		int32_t nm = 0;
		if (in_count(c) < 3 || !in(c, 2)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Broadcast in explicit mode needs axes_mapping (input 2)");
			set_out_elem(c, 0, elem);
			return;
		}
		if (!in_known_ints(c, 2, map, B3_MAX_RANK, &nm)) {
			/* Valid or not, an explicit broadcast gives the target shape. */
			set_out(c, 0, elem, tn, target);
			return;
		}
		ok = bcast_explicit(ds, ts, map, nm, &sc, &bo, &err);
	} else if (rule == BCAST_UNIDIRECTIONAL) {
		ok = bcast_unidirectional(ts, ds, &sc, &bo, &err);
	} else {
		ok = bcast_bidirectional(ds, ts, &sc, &bo, &err);
	}
	if (!ok) {
		refuse(c, rule, &err, ds, ts);
		set_out_elem(c, 0, elem);
		return;
	}
	set_out(c, 0, elem, bo.rank, out);
}
