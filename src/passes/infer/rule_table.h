/* rule_table.h: the rule table (ops.def) and the lookup that gives a node type its
 * schema row and its rule together (rule_table.c), for the inference pass and the
 * tests; rules never see it (theirs is rule_api.h).
 */
#ifndef OSH_PASSES_RULE_TABLE_H
#define OSH_PASSES_RULE_TABLE_H

#include "core/arena.h"
#include "core/schema/schema.h"
#include "passes/rule_api/rule_api.h"

/* The rule table (ops.def). Rules of the domains the schemas cover are attached to
 * schema rows (core/schema/schema_ids.h names them); the rows of other domains
 * (com.microsoft, Paddle's...) are these, indexed once per pass run. */
/* The domain of the rows that serve an operator in any domain outside ai.onnx and
 * its sub-domains the table has no row for (Paddle's elementwise_*, Broadcast-3,
 * wherever a converter put them). */
#define ANY_DOMAIN "*"

typedef struct rule_row {
	const char *domain;
	const char *op_type;
	int32_t op_len; /* strlen(op_type), from the literal's size */
	int32_t since;
	infer_fn fn;
} rule_row;

/* The other domains' rows by a hash of their op_type (its length, first and last
 * characters), each bucket's rows in table order. Built by a counting sort over the
 * table, with no string hashed or stored: a hash map built per model cost more than
 * checking a small model. */
#define RULE_BUCKETS 256
typedef struct rule_index {
	const rule_row *rows; /* the table, as ops.def lists it */
	int32_t nrows;
	uint16_t start[RULE_BUCKETS + 1]; /* bucket b's rows: in[start[b] .. start[b + 1]) */
	uint16_t *in;                     /* nrows row indices, by bucket */
} rule_index;

bool rule_index_build(rule_index *ri, arena *a);

/* A node type's schema row and rule, found together. */
typedef struct rule_hit {
	infer_fn fn;           /* NULL: no rule */
	const sch_row *schema; /* the row the node resolves to, or NULL */
	bool schema_domain;    /* the schemas cover the domain (schema_knows_domain) */
	bool any_domain;       /* fn is an ANY_DOMAIN row's: a model-local function wins */
} rule_hit;

/* What a node of (domain, op_type) at imported version `version` resolves to: in a
 * schema domain, its schema row (schema_lookup) and that row's rule, or an ONNX
 * Runtime kernel's rule where ONNX has no row (rule_ort_extra); elsewhere the rule
 * row of the domain with the highest since_version <= version, or else the
 * ANY_DOMAIN row's (outside ai.onnx and its sub-domains). */
rule_hit rule_lookup(const rule_index *ri, const char *domain, const char *op_type, int64_t version);

/* The rule of schema row r: its own rule row's, else that of the operator's nearest
 * earlier version with one (a row holds until the operator's next row). Every schema
 * row has one (test_rule_table). */
infer_fn rule_of_schema(const sch_row *r);

/* The rule of schema row r's own rule row, NULL where it has none, for tests. */
infer_fn rule_row_of_schema(const sch_row *r);

/* An operator ONNX Runtime registers in the ai.onnx domain where ONNX has no row for
 * it (ops_ort_extra.def's ORT_EXTRA rows): its rule, up to which opset ONNX Runtime has it,
 * and whether its kernels take FLOAT16, FLOAT and DOUBLE only. */
typedef struct ort_extra {
	const char *op;
	int32_t last;
	bool floats_only;
	infer_fn fn;
} ort_extra;

/* The row of op_type at opset `version` of domain, NULL when there is none (another
 * domain, or ONNX Runtime has no such kernel at that opset). */
const ort_extra *rule_ort_extra(const char *domain, const char *op_type, int64_t version);

/* The rows of the domains the schemas do not cover, for tests. */
const rule_row *rule_rows(int32_t *n);

#endif
