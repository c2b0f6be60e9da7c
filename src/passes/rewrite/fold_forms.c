/* fold_forms.c: what the fold's files share: the constant forms of their decisions
 * (fold.h reads them back), and what they read of constants and Transposes.
 */
#include "passes/rewrite/fold.h"
#include "core/grow.h"
#include "core/schema/schema.h"

#include <string.h>

static const struct {
	const char *name;
	fold_op op;
} fold_op_names[] = {
	{"Constant", FO_CONSTANT}, {"Identity", FO_IDENTITY}, {"Cast", FO_CAST},	  {"Dropout", FO_DROPOUT},
	{"Expand", FO_EXPAND},	   {"Reshape", FO_RESHAPE},   {"Tile", FO_TILE},	  {"Slice", FO_SLICE},
	{"Pad", FO_PAD},	   {"Transpose", FO_TRANSPOSE}, {"Where", FO_WHERE},	  {"Not", FO_NOT},
	{"Unsqueeze", FO_UNSQUEEZE}, {"Squeeze", FO_SQUEEZE}, {"Flatten", FO_FLATTEN},
};

void fold_op_answer(const node *n, uint8_t *op, bool *pure)
{
	*op = FO_OTHER;
	*pure = false;
	if (n->domain[0])
		return;
	for (size_t k = 0; k < sizeof fold_op_names / sizeof *fold_op_names; k++)
		if (!strcmp(n->op_type, fold_op_names[k].name)) {
			*op = (uint8_t)fold_op_names[k].op;
			break;
		}
	const sch_row *r = schema_lookup(n->domain, n->op_type, n->opset);
	*pure = r && r->pure && !r->deprecated;
}

bool fold_add_form(fs *s, form f, bool forms_counted)
{
	rw *r = s->r;
	int64_t *c = arena_array(r->m->arena, f.n > 0 ? (size_t)f.n : 1, sizeof *c);
	if (!c || (s->nforms == s->cap_forms &&
		   !(s->forms = grow_arena_i32(r->m->arena, s->forms, &s->cap_forms, 16, sizeof *s->forms)))) {
		rw_nomem(r);
		return false;
	}
	if (f.n)
		memcpy(c, f.v, (size_t)f.n * sizeof *c);
	f.v = c;
	if (s->form_at[f.ni] < 0)
		s->form_at[f.ni] = s->nforms;
	s->forms[s->nforms++] = f;
	r->rep->n_fold_forms += forms_counted;
	return true;
}

const tensor_view *fold_constant_view(fs *s, int32_t id)
{
	const value *v = &s->g->values[id];
	if (v->origin == VAL_INITIALIZER)
		return v->init_view;
	if (v->origin != VAL_NODE || v->producer < 0)
		return NULL;
	const node *p = &s->g->nodes[v->producer];
	if (fold_op_of(s, p) != FO_CONSTANT)
		return NULL;
	const attr_view *a = node_attr(p, "value");
	return a && a->type == AT_TENSOR ? a->t : NULL;
}

bool fold_perm(const node *n, int32_t rank, int64_t *p)
{
	if (rank < 1 || rank > EDIT_MAX_PERM)
		return false;
	const attr_view *a = node_attr(n, "perm");
	if (!a) {
		for (int32_t k = 0; k < rank; k++)
			p[k] = rank - 1 - k;
		return true;
	}
	if (a->type != AT_INTS || a->n != rank)
		return false;
	bool seen[EDIT_MAX_PERM] = {false};
	for (int32_t k = 0; k < rank; k++) {
		if (a->ints[k] < 0 || a->ints[k] >= rank || seen[a->ints[k]])
			return false;
		seen[a->ints[k]] = true;
		p[k] = a->ints[k];
	}
	return true;
}
