/* rule_table.c: ops.def as a table, and its lookup.
 *
 * The table is constant data; each pass run indexes it by operator type (infer.h's
 * rule_index: rows bucketed by a cheap hash of their op_type), so a lookup compares
 * a few rows of its bucket, whatever the number of nodes. Lookups are few anyway:
 * infer.c remembers the answer per (op_type, domain, opset).
 */
#include "passes/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "" op: a compile error unless op is a string literal, whose size is its length. */
static const rule_row table[] = {
#define OP(domain, op, since, fn) {domain, "" op, (int32_t)sizeof(op) - 1, since, fn},
#include "passes/ops.def"
#undef OP
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

infer_fn rule_lookup(const rule_index *ri, const char *domain, const char *op_type, int64_t version,
		     int64_t *since)
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
	if (best)
		*since = best_since;
	return best;
}
