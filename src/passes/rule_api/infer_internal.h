/* infer_internal.h: what the inference pass (infer.c) and the rule API's setters
 * (rule_api.c) both need and rules do not: how deep bodies nest, and how a value's
 * dims and content are published. Rules never include it (theirs is rule_api.h).
 *
 * Inline, these: the pass publishes every initializer's dims through share, the
 * setters every node output's.
 */
#ifndef OSH_PASSES_INFER_INTERNAL_H
#define OSH_PASSES_INFER_INTERNAL_H

#include "passes/rule_api/dims_share.h"
#include "passes/rule_api/rule_api.h"

/* The deepest nesting of bodies inference follows (infer_ctx.sub_depth), and of
 * subgraphs an outer value is followed out of. */
#define MAX_SUB_DEPTH 64

/* Dims of up to this many entries are published through the cache (dims_share.h), from
 * a buffer on the stack; longer ones are copied to the arena as they are. */
#define SHARE_BUF 16

/* d's equal in the cache, or a new copy of it there (short arrays only). */
static inline const dim *share(infer_ctx *c, const dim *d, int32_t n)
{
	const dim *p = dims_share_get(c->shared, c->a, d, n);
	if (!p)
		c->m->nomem = true;
	return p;
}

/* Whether a stored tensor's content may be carried as a value's (floats decoded now
 * or on demand): few enough entries, and in the file. */
static inline bool float_content(const tensor_view *tv)
{
	return tv && tv->count >= 0 && tv->count <= TINFO_MAX_VALUES && !tv->external;
}

#endif
