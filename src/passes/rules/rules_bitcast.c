/* rules_bitcast.c: BitCast (26).
 *
 * The output has the input's shape and the element type `to`, which must have the
 * input type's bit width. The bits are reinterpreted, so known integer content is
 * never carried over (a Cast would convert it; a BitCast does not).
 *
 * Invariant: the output's element type is `to` only when `to` is a valid type.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/dtype.h"

void infer_bitcast(infer_ctx *c)
{
	const attr_view *a = attr(c, "to");
	if (!a || a->type != AT_INT || !dtype_valid(a->i) || a->i == DT_STRING) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "attribute 'to' must be a non-string element type");
		return;
	}
	int32_t to = (int32_t)a->i, from = in_elem(c, 0);
	if (from && dtype_bits(from) != dtype_bits(to)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "BitCast from %s (%d bits) to %s (%d bits): the widths differ",
			   dtype_name(from), dtype_bits(from), dtype_name(to), dtype_bits(to));
		set_out_elem(c, 0, to);
		return;
	}
	const tinfo *x = in_ranked(c, 0);
	if (x)
		set_out(c, 0, to, x->rank, x->dims);
	else
		set_out_elem(c, 0, to);
}
