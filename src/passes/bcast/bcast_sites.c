/* bcast_sites.c: which inputs of a node broadcast implicitly (bcast_sites.h).
 *
 * From the operator schemas (core/schema): an operator broadcasts from the first
 * opset whose description says its inputs broadcast multidirectionally, and had the
 * legacy broadcast/axis attributes before 7 if its schema says so. The two
 * unidirectional sites (PRelu's slope, Gemm's C) are listed here: the schemas also
 * call LayerNormalization's and RMSNormalization's scale unidirectional, which is no
 * elementwise site to make explicit. Before those opsets the same
 * operators required identical shapes or used the legacy axis form, which the axis
 * rewrite removes.
 */
#include "passes/bcast/bcast_sites.h"

#include "core/schema/schema.h"
#include "passes/bcast/bcast_ops.h"

#include <string.h>

typedef enum site_kind {
	SK_BINARY,   /* inputs 0, 1; numpy from `since`, legacy broadcast=1 before 7 */
	SK_VARIADIC, /* every input; numpy from `since` */
	SK_WHERE,    /* inputs 0, 1, 2 */
	SK_UNI1,     /* input 1 into input 0's shape (PRelu's slope) */
	SK_UNI2,     /* input 2 into the output's shape (Gemm's C) */
} site_kind;

static const struct {
	const char *op;
	site_kind kind;
	int64_t since; /* first opset with unidirectional broadcasting */
} uni_sites[] = {
	{"PRelu", SK_UNI1, 7},
	{"Gemm", SK_UNI2, 7},
};

/* op's kind and first broadcasting opset; false when it has no implicit site. */
static bool site_of(const char *op, site_kind *k, int64_t *since)
{
	for (size_t i = 0; i < sizeof uni_sites / sizeof uni_sites[0]; i++)
		if (!strcmp(uni_sites[i].op, op)) {
			*k = uni_sites[i].kind, *since = uni_sites[i].since;
			return true;
		}
	int32_t from = schema_multi_broadcast_since(op);
	const sch_row *r = from ? schema_lookup("", op, INT32_MAX) : NULL;
	if (!r)
		return false;
	*since = from;
	*k = r->ninputs && r->inputs[r->ninputs - 1].option == SCH_VARIADIC ? SK_VARIADIC
	     : r->ninputs == 3					       ? SK_WHERE
									       : SK_BINARY;
	return true;
}

bool bsite_axis_form(const node *n, axis_form *f)
{
	if (n->opset < 0)
		return false;
	if (n->domain[0] ? !paddle_is_elementwise(n->op_type)
			 : n->opset >= 7 || !schema_legacy_broadcast(n->op_type))
		return false;
	*f = bsite_axis_read(n);
	return true;
}

static void two(bsite *s, bcast_rule r, int32_t a, int32_t b)
{
	s->rule = r;
	s->n = 2;
	s->slot[0] = a;
	s->slot[1] = b;
}

bool bsite_of(const node *n, bsite *s)
{
	*s = (bsite){0};
	if (n->opset < 0 || n->noutputs < 1)
		return false;
	/* ONNX's own domains hold no Paddle operator to make explicit. */
	if (n->domain[0] && strncmp(n->domain, "ai.onnx", 7) == 0)
		return false;
	axis_form f;
	if (bsite_axis_form(n, &f)) {
		if (f.rule == BCAST_NONE)
			return false;
		two(s, f.rule, 0, 1);
		return n->ninputs >= 2;
	}
	site_kind k;
	int64_t since;
	if (!n->domain[0] && site_of(n->op_type, &k, &since)) {
		if (n->opset < since) {
			/* Before numpy broadcasting only the axis forms broadcast, and Gemm's
			 * broadcast=1, which places C against (M, N) the same way. */
			if (k != SK_UNI2 || !node_attr_i(n, "broadcast", 0))
				return false;
			two(s, BCAST_UNIDIRECTIONAL, 2, 2), s->n = 1;
			return n->ninputs > 2;
		}
		switch (k) {
		case SK_BINARY:
			two(s, BCAST_NUMPY, 0, 1);
			break;
		case SK_VARIADIC:
		case SK_WHERE:
			s->rule = BCAST_NUMPY;
			s->n = k == SK_WHERE ? 3 : n->ninputs;
			if (s->n > BSITE_MAX_INPUTS)
				return false;
			for (int32_t j = 0; j < s->n; j++)
				s->slot[j] = j;
			break;
		case SK_UNI1:
			two(s, BCAST_UNIDIRECTIONAL, 1, 1);
			s->n = 1;
			break;
		case SK_UNI2:
			two(s, BCAST_UNIDIRECTIONAL, 2, 2);
			s->n = 1;
			break;
		}
		/* Every slot must name a present input (Gemm's C is optional from 11). */
		for (int32_t j = 0; j < s->n; j++)
			if (s->slot[j] >= n->ninputs || n->inputs[s->slot[j]] < 0)
				return false;
		return true;
	}
	return false;
}

bool bsite_same_shape(symtab *syms, const tinfo *t, const tinfo *want)
{
	if (!t || !want || t->kind != TK_TENSOR || want->kind != TK_TENSOR || t->rank < 0 || t->rank != want->rank)
		return false;
	for (int32_t k = 0; k < t->rank; k++) {
		dim a = dim_resolve(syms, t->dims[k]), b = dim_resolve(syms, want->dims[k]);
		if (!dim_eq(a, b))
			return false;
	}
	return true;
}
