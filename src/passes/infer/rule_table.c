/* rule_table.c: ops.def as tables, and the lookup that gives a node type its schema
 * row and its rule together.
 *
 * The rows of the domains the schemas cover name a schema row (ONNX(Abs, 1, fn) is
 * SCH_ai_onnx__Abs_1 of core/schema/schema_ids.h) and fill an array parallel to the
 * schema table, joined at compile time: such a node resolves by schema_lookup alone.
 * A row holds from its schema row until the operator's next row, so the versions
 * after it with no row of their own (Abs-6 and Abs-13) take the nearest earlier
 * version's rule: the schema table keeps an operator's versions together in since
 * order, and the walk back is a few entries, once per operator type a pass meets. A
 * rule row that names no schema row does not compile; an operator whose first
 * version has no row is test_rule_table's failure.
 *
 * The other domains' rows are constant data too; each pass run indexes them by
 * operator type (rule_table.h's rule_index: rows bucketed by a cheap hash of their
 * op_type), so a lookup compares a few rows of its bucket. Lookups are few anyway:
 * infer.c remembers the answer per (op_type, domain, opset).
 */
#include "passes/infer/rule_table.h"

#include "passes/rules/rule_protos.h"

#include "core/schema/schema_ids.h"

#include <string.h>

#define ONNX(op, since, fn) SCHEMA_ROW(ai_onnx, op, since, fn)
#define ONNX_ML(op, since, fn) SCHEMA_ROW(ai_onnx_ml, op, since, fn)
#define ONNX_PREVIEW(op, since, fn) SCHEMA_ROW(ai_onnx_preview, op, since, fn)
#define ONNX_TRAINING(op, since, fn) SCHEMA_ROW(ai_onnx_preview_training, op, since, fn)

/* A designated initializer per row: GCC's -Woverride-init (in -Wextra) warns when
 * two rows name the same schema row. */
static const infer_fn by_schema[SCH_NROWS] = {
#define SCHEMA_ROW(dom, op, since, fn) [SCH_##dom##__##op##_##since] = fn,
#define OP(domain, op, since, fn)
#define ORT_EXTRA(op, last, floats, fn)
#include "passes/rules/ops.def"
#undef SCHEMA_ROW
#undef OP
#undef ORT_EXTRA
};

/* "" op: a compile error unless op is a string literal, whose size is its length. */
static const rule_row table[] = {
#define SCHEMA_ROW(dom, op, since, fn)
#define OP(domain, op, since, fn) {domain, "" op, (int32_t)sizeof(op) - 1, since, fn},
#define ORT_EXTRA(op, last, floats, fn)
#include "passes/rules/ops.def"
#undef SCHEMA_ROW
#undef OP
#undef ORT_EXTRA
};

static const ort_extra ort_extras[] = {
#define SCHEMA_ROW(dom, op, since, fn)
#define OP(domain, op, since, fn)
#define ORT_EXTRA(op, last, floats, fn) {#op, last, floats, fn},
#include "passes/rules/ops.def"
#undef SCHEMA_ROW
#undef OP
#undef ORT_EXTRA
};

#define NROWS ((int32_t)(sizeof table / sizeof table[0]))
_Static_assert(sizeof table / sizeof table[0] <= UINT16_MAX, "rule_index.in holds uint16_t row indices");

static unsigned bucket(const char *op, size_t len)
{
	unsigned first = len ? (unsigned char)op[0] : 0, last = len ? (unsigned char)op[len - 1] : 0;
	return ((unsigned)len * 31u + first * 7u + last) % RULE_BUCKETS;
}

bool rule_index_build(rule_index *ri, arena *a)
{
	ri->rows = table;
	ri->nrows = NROWS;
	ri->in = arena_array(a, (size_t)NROWS, sizeof *ri->in);
	if (!ri->in)
		return false;
	/* A counting sort: each bucket's size, where each bucket starts, then the rows. */
	uint16_t fill[RULE_BUCKETS];
	memset(ri->start, 0, sizeof ri->start);
	for (int32_t i = 0; i < NROWS; i++)
		ri->start[bucket(table[i].op_type, (size_t)table[i].op_len) + 1]++;
	for (unsigned b = 0; b < RULE_BUCKETS; b++) {
		ri->start[b + 1] = (uint16_t)(ri->start[b + 1] + ri->start[b]);
		fill[b] = ri->start[b];
	}
	for (int32_t i = 0; i < NROWS; i++)
		ri->in[fill[bucket(table[i].op_type, (size_t)table[i].op_len)]++] = (uint16_t)i;
	return true;
}

infer_fn rule_of_schema(const sch_row *r)
{
	int32_t n, i = schema_index(r);
	const sch_row *rows = schema_rows(&n);
	while (!by_schema[i] && i > 0 && !strcmp(rows[i - 1].op_type, r->op_type) &&
	       !strcmp(rows[i - 1].domain, r->domain))
		i--;
	return by_schema[i];
}

infer_fn rule_row_of_schema(const sch_row *r) { return by_schema[schema_index(r)]; }

const ort_extra *rule_ort_extra(const char *domain, const char *op_type, int64_t version)
{
	if (domain[0])
		return NULL;
	for (size_t i = 0; i < sizeof ort_extras / sizeof ort_extras[0]; i++)
		if (!strcmp(ort_extras[i].op, op_type))
			return version <= ort_extras[i].last ? &ort_extras[i] : NULL;
	return NULL;
}

/* The row of the highest since_version <= version among the other domains' rows. */
static infer_fn other_domain_rule(const rule_index *ri, const char *domain, const char *op_type, int64_t version)
{
	infer_fn best = NULL;
	int64_t best_since = -1;
	size_t len = strlen(op_type);
	unsigned b = bucket(op_type, len);
	for (unsigned k = ri->start[b]; k < ri->start[b + 1]; k++) {
		const rule_row *r = &ri->rows[ri->in[k]];
		if ((size_t)r->op_len == len && !memcmp(r->op_type, op_type, len) && r->since <= version &&
		    r->since > best_since && !strcmp(r->domain, domain)) {
			best = r->fn;
			best_since = r->since;
		}
	}
	return best;
}

rule_hit rule_lookup(const rule_index *ri, const char *domain, const char *op_type, int64_t version)
{
	rule_hit h = {NULL, schema_lookup(domain, op_type, version), false, false};
	if (h.schema) {
		h.fn = rule_of_schema(h.schema);
		h.schema_domain = true;
	} else if ((h.schema_domain = schema_knows_domain(domain))) {
		const ort_extra *e = rule_ort_extra(domain, op_type, version);
		h.fn = e ? e->fn : NULL;
	} else {
		h.fn = other_domain_rule(ri, domain, op_type, version);
		if (!h.fn && domain[0] && strcmp(domain, "ai.onnx") && strncmp(domain, "ai.onnx.", 8)) {
			h.fn = other_domain_rule(ri, ANY_DOMAIN, op_type, version);
			h.any_domain = h.fn != NULL;
		}
	}
	return h;
}

const rule_row *rule_rows(int32_t *n)
{
	*n = NROWS;
	return table;
}
