/* schema.c: resolving a node to its operator schema row.
 *
 * The rows (schema_table.c, generated) are sorted by (domain, op_type, since) in
 * strcmp order, so a node resolves by one binary search: the last row not above
 * (domain, op_type, opset), kept when it is of the same operator. Constant data only;
 * schema_rows itself is defined by the generated file, beside the rows.
 */
#include "core/schema/schema.h"

#include <assert.h>
#include <string.h>

/* ONNX names the default domain both ways; the table writes it "". */
static const char *canonical_domain(const char *domain)
{
	if (domain == NULL || strcmp(domain, "ai.onnx") == 0)
		return "";
	return domain;
}

static int cmp_op(const sch_row *r, const char *domain, const char *op_type)
{
	int c = strcmp(r->domain, domain);
	return c != 0 ? c : strcmp(r->op_type, op_type);
}

const sch_row *schema_lookup(const char *domain, const char *op_type, int64_t opset)
{
	int32_t n;
	const sch_row *rows = schema_rows(&n);
	if (op_type == NULL || opset < 1)
		return NULL;
	domain = canonical_domain(domain);
	/* The first row above the key; the one before it is the candidate. */
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		int c = cmp_op(&rows[mid], domain, op_type);
		if (c < 0 || (c == 0 && rows[mid].since <= opset))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || cmp_op(&rows[lo - 1], domain, op_type) != 0)
		return NULL;
	return &rows[lo - 1];
}

/* The rows of one domain, [*first, *end): they are contiguous because the domain
 * leads the sort key. */
static void domain_range(const char *domain, int32_t *first, int32_t *end)
{
	int32_t n;
	const sch_row *rows = schema_rows(&n);
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (strcmp(rows[mid].domain, domain) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (strcmp(rows[mid].domain, domain) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*end = lo;
}

/* The documentation has a version section for an operator set only where some
 * operator changed (the generator fails on an empty one), so the domain's newest
 * version is its highest since_version. A scan of the domain's rows: callers ask
 * once per model and domain. */
int32_t schema_newest_opset(const char *domain)
{
	int32_t n, first, end, newest = 0;
	const sch_row *rows = schema_rows(&n);
	domain_range(canonical_domain(domain), &first, &end);
	for (int32_t i = first; i < end; i++)
		if (rows[i].since > newest)
			newest = rows[i].since;
	return newest;
}

static bool types_equal(const sch_types *a, const sch_types *b)
{
	return a->tensor == b->tensor && a->sparse == b->sparse && a->seq == b->seq && a->opt_tensor == b->opt_tensor &&
	       a->opt_seq == b->opt_seq && a->map == b->map && a->seq_map == b->seq_map;
}

static bool params_alike(const sch_param *a, const sch_param *b, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		if (strcmp(a[i].name, b[i].name) || a[i].constraint != b[i].constraint || a[i].option != b[i].option ||
		    a[i].heterogeneous != b[i].heterogeneous || a[i].min_arity != b[i].min_arity ||
		    (a[i].constraint < 0 && !types_equal(&a[i].types, &b[i].types)))
			return false;
	return true;
}

bool schema_rows_alike(const sch_row *a, const sch_row *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->deprecated || b->deprecated || a->min_inputs != b->min_inputs ||
	    a->max_inputs != b->max_inputs || a->min_outputs != b->min_outputs || a->max_outputs != b->max_outputs ||
	    a->ninputs != b->ninputs || a->noutputs != b->noutputs || a->nattrs != b->nattrs ||
	    a->nconstraints != b->nconstraints || a->broadcast != b->broadcast || a->shape != b->shape ||
	    a->pure != b->pure || a->view != b->view || strcmp(a->domain, b->domain) || strcmp(a->op_type, b->op_type))
		return false;
	if (!params_alike(a->inputs, b->inputs, a->ninputs) || !params_alike(a->outputs, b->outputs, a->noutputs))
		return false;
	for (int32_t i = 0; i < a->nconstraints; i++)
		if (strcmp(a->constraints[i].var, b->constraints[i].var))
			return false;
	for (int32_t i = 0; i < a->nattrs; i++) {
		const sch_attr *x = &a->attrs[i], *y = &b->attrs[i];
		if (strcmp(x->name, y->name) || x->type != y->type || x->required != y->required ||
		    (!x->default_text != !y->default_text) || (x->default_text && strcmp(x->default_text, y->default_text)))
			return false;
	}
	return true;
}

bool schema_knows_domain(const char *domain)
{
	int32_t first, end;
	domain_range(canonical_domain(domain), &first, &end);
	return first < end;
}

bool schema_legacy_broadcast(const char *op_type)
{
	/* The legacy attributes went in opset 7: the row in force at 6 has them or not. */
	const sch_row *r = schema_lookup("", op_type, 6);
	bool broadcast = false, axis = false;
	for (int32_t i = 0; r && i < r->nattrs; i++) {
		broadcast |= !strcmp(r->attrs[i].name, "broadcast");
		axis |= !strcmp(r->attrs[i].name, "axis");
	}
	return broadcast && axis;
}

int32_t schema_multi_broadcast_since(const char *op_type)
{
	/* From the newest version back: the last one found broadcasting is the first. */
	int32_t since = 0;
	for (const sch_row *r = schema_lookup("", op_type, INT32_MAX); r; r = r->since > 1 ? schema_lookup("", op_type, r->since - 1) : NULL) {
		if (r->broadcast != SCH_BCAST_MULTI)
			break;
		since = r->since;
	}
	return since;
}

int32_t schema_index(const sch_row *r)
{
	int32_t n;
	const sch_row *rows = schema_rows(&n);
	assert(r >= rows && r < rows + n);
	return (int32_t)(r - rows);
}
