/* fold_forms.c: the constant forms of the fold's decisions, which its files share
 * (fold.h reads them back).
 */
#include "passes/rewrite/fold.h"
#include "core/grow.h"

#include <string.h>

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
