/* bcast_sites.h: which inputs of a node broadcast implicitly, and to what.
 *
 * One table for the three users that must agree on it: the explicit rewrite
 * (rewrite_explicit.c) expands exactly these inputs, the reverse rewrite
 * (rewrite_implicit.c) only removes an Expand whose consumers read it through one of
 * them, and check --require-explicit (lint_explicit.c) reports the ones left. A
 * "site" is a node and the inputs that meet under a broadcasting rule; its result is
 * the node's first output, whose shape every site input must have for the node to
 * run on a target without implicit broadcasting.
 */
#ifndef OSH_PASSES_BCAST_SITES_H
#define OSH_PASSES_BCAST_SITES_H

#include "core/model.h"
#include "passes/bcast/broadcast.h"

/* Variadic nodes with more inputs than this are not handled (left as they are). */
#define BSITE_MAX_INPUTS 64

typedef struct bsite {
	bcast_rule rule;                  /* numpy, unidirectional; pdpd/paddle for axis forms */
	int32_t n;                        /* inputs that broadcast */
	int32_t slot[BSITE_MAX_INPUTS];   /* their input indices */
} bsite;

/* Fills *s for a node that broadcasts implicitly: ai.onnx elementwise operators with
 * numpy broadcasting (binary from opset 7, Sum/Mean/Max/Min from 8, Where), PRelu's
 * slope and Gemm's C (unidirectional, from 7), and the axis forms (legacy broadcast=1
 * before opset 7, Paddle's elementwise_* in other domains). False otherwise, and for
 * a node whose opset is not imported. */
bool bsite_of(const node *n, bsite *s);

/* The axis forms of broadcasting, where a node places one operand inside the other at
 * its `axis`: Paddle's elementwise_* operators (in any domain but ai.onnx's "", as
 * inference reads them: rules_paddle.c) and, before opset 7, the ai.onnx operators
 * whose schemas had the broadcast/axis attributes. Inference reads the attributes
 * through its own look-up (a function's caller may supply them); everything that
 * reads them from the node (lint, the sites below, the rewrite, the HTML report's
 * highlights) decodes them here. */
typedef struct axis_form {
	bcast_rule rule; /* BCAST_PADDLE; before opset 7, BCAST_PDPD with broadcast=1, else
			  * BCAST_NONE (identical shapes) */
	int64_t axis;    /* `axis`; -1, the default (right-aligned), when absent or not an
			  * integer */
} axis_form;

/* The form of a node known to read one (a Paddle operator, or an ai.onnx operator
 * with the legacy attributes, whatever its opset: the rewrite reads a stray
 * broadcast=1 the legacy way). */
static inline axis_form bsite_axis_read(const node *n)
{
	bcast_rule r = n->domain[0] ? BCAST_PADDLE : node_attr_i(n, "broadcast", 0) ? BCAST_PDPD : BCAST_NONE;
	return (axis_form){r, node_attr_i(n, "axis", -1)};
}

/* Fills *f for a node that reads an axis form; false for any other (a node whose
 * opset is not imported, an ai.onnx operator from opset 7). */
bool bsite_axis_form(const node *n, axis_form *f);

/* Whether the rule is one the explicit rewrite handles (numpy or unidirectional). */
static inline bool bsite_numpy_like(const bsite *s)
{
	return s->rule == BCAST_NUMPY || s->rule == BCAST_UNIDIRECTIONAL;
}

/* Whether t is a tensor whose shape is, dimension by dimension, the same as `want`
 * (same rank; each pair the same known size or the same symbol once resolved). An
 * unknown dimension is never proven equal. */
bool bsite_same_shape(symtab *syms, const tinfo *t, const tinfo *want);

#endif
