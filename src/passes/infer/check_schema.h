/* check_schema.h: checking a node against its operator's schema (check_schema.c),
 * from the inference pass, with the types inference has for its inputs. */
#ifndef OSH_PASSES_CHECK_SCHEMA_H
#define OSH_PASSES_CHECK_SCHEMA_H

#include "passes/rule_api/rule_api.h"
#include "core/schema/schema.h"

/* Reports what is wrong with node c->n as an instance of r (arity-error,
 * attribute-error, type-error). False when its arity or an attribute its rule reads
 * is wrong: the rule, which would say the same its own way, then runs quiet
 * (infer_ctx.quiet) for the outputs it can still tell. A type-error leaves the
 * rule's say: what it finds of the shapes is news. */
bool check_schema_node(infer_ctx *c, const sch_row *r);

/* For a node of a domain the schemas cover (schema_knows_domain) whose operator has
 * no row at its opset, or is a model-local function there: an op-not-in-opset
 * error, saying where it came in. False when reported. */
bool check_schema_missing(infer_ctx *c);

#endif
