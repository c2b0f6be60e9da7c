/* rules_seqmap.c: SequenceMap (17), which runs its body once per element of its
 * first input sequence and collects each body output into a sequence.
 *
 * The body is inferred once, for "any element": a sequence input gives the body the
 * description its elements share (rules_tensor_seq.c), a tensor input is given as it
 * is. Each output sequence is then described by the body's output. A size the body
 * made up while being inferred (a fresh symbol: a NonZero count, an unknown element
 * dim turned into a symbol) may differ from one element to the next, so it is
 * unknown in the result; symbols of the model (and their known values) are shared by
 * every element and kept.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_tensor.h"

/* What the body sees for input t: a sequence's element, or the tensor itself;
 * content dropped either way (it is not the same for every element). */
static tinfo body_input(const tinfo *t)
{
	tinfo x = tinfo_unknown();
	if (!t)
		return x;
	if (t->kind == TK_SEQUENCE) {
		if (t->inner != TK_TENSOR)
			return x;
		x.kind = TK_TENSOR;
	} else {
		x.kind = t->kind;
		x.inner = t->inner;
	}
	x.elem = t->elem;
	x.key = t->key;
	x.rank = t->rank;
	x.dims = t->dims;
	return x;
}

/* A sequence of what body output e describes, with dims made up inside the body
 * (symbol ids from `mark` on) unknown. */
static tinfo collect(infer_ctx *c, const tinfo *e, int64_t mark)
{
	tinfo s = tinfo_unknown();
	s.kind = TK_SEQUENCE;
	s.inner = e->kind;
	if (e->kind != TK_TENSOR)
		return s;
	s.elem = e->elem;
	if (e->rank < 0)
		return s;
	dim *d = dims_alloc(c, e->rank);
	if (!d)
		return s;
	for (int32_t k = 0; k < e->rank; k++) {
		dim x = dim_resolve(c->syms, e->dims[k]);
		d[k] = x.kind == DIM_SYMBOL && x.v >= mark ? dim_unknown() : x;
	}
	s.rank = e->rank;
	s.dims = d;
	return s;
}

void infer_sequence_map(infer_ctx *c)
{
	graph *body = attr_graph(c, "body");
	if (!body) {
		tr_error(c, "attribute 'body' (a graph) is required");
		return;
	}
	int32_t nin = in_count(c);
	if (body->ninputs != nin || body->noutputs != out_count(c)) {
		tr_error(c, "the body takes %d inputs and gives %d outputs; the node has %d and %d", body->ninputs,
			 body->noutputs, nin, out_count(c));
		return;
	}
	const tinfo *first = in(c, 0);
	if (first && first->kind != TK_UNKNOWN && first->kind != TK_SEQUENCE) {
		tr_error(c, "input '%s' must be a sequence", in_name(c, 0));
		return;
	}
	tinfo *ins = arena_array(c->a, nin > 0 ? (size_t)nin : 1, sizeof *ins);
	if (!ins) {
		c->m->nomem = true;
		return;
	}
	for (int32_t k = 0; k < nin; k++)
		ins[k] = body_input(in(c, k));
	int64_t mark = c->syms->n;
	infer_subgraph(c, body, ins, nin);
	for (int32_t k = 0; k < out_count(c); k++) {
		tinfo s = collect(c, &body->values[body->outputs[k]].ti, mark);
		set_out_info(c, k, &s);
	}
}
