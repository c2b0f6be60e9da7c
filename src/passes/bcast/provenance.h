/* provenance.h: where a dimension came from, for messages.
 *
 * A broadcast mismatch is found at the node where two sizes meet, but the mistake is
 * usually upstream: a Reshape with the wrong target, a graph input declared wrong.
 * These functions follow one dimension of a value back through the operators that
 * pass shapes through unchanged (unary maths, activations, Cast, normalisations,
 * Dropout, broadcasting elementwise operators where the size comes from one input)
 * to the node, graph input or initializer that set it, and say so in words.
 *
 * They only read inferred shapes (each value's tinfo is final once its producer has
 * been processed, so this is valid during inference for values already inferred).
 */
#ifndef OSH_PASSES_PROVENANCE_H
#define OSH_PASSES_PROVENANCE_H

#include "core/model.h"
#include "passes/bcast/broadcast.h"

/* Enough for any real chain; past it the origin is reported as unknown. */
#define PROV_MAX_HOPS 256

/* One node a dimension passed through: node ni of g, which made value id (of g)
 * with the dimension at index k. */
typedef struct prov_hop {
	const graph *g;
	int32_t ni, id, k;
} prov_hop;

typedef enum prov_origin { PROV_INPUT = 1, PROV_INITIALIZER, PROV_NODE } prov_origin;

/* Dimension k of a value followed back to where it was set: hops[0] made the
 * value itself, each later hop made an input of the one before, and the origin is
 * value id of g (made by node ni for PROV_NODE, with the dimension at index k). */
typedef struct prov_trace {
	prov_origin origin;
	const graph *g;
	int32_t ni, id, k;
	int32_t nhops;
	prov_hop hops[PROV_MAX_HOPS];
} prov_trace;

/* Fills *t for dimension k of value id of g. Returns false when the dimension is
 * out of range or unknown, or its way back cannot be told. */
bool prov_trace_dim(osh_model *m, graph *g, int32_t id, int32_t k, prov_trace *t);

/* Writes "was set by node 'reshape' (Reshape), then passed through 'relu' (Relu)" (or
 * "comes from graph input 'x'", "comes from initializer 'w'", with the nodes passed
 * through) about dimension k of value id of g. Returns false and writes nothing when
 * the dimension is out of range or nothing can be said. Like snprintf, the text is
 * truncated to cap - 1 characters. */
bool prov_dim(osh_model *m, graph *g, int32_t id, int32_t k, char *buf, size_t cap);

/* For a refused broadcast of inputs ia and ib of node ni of g: "; a's 4 comes from
 * graph input 'a'; b's 6 was set by node 'reshape' (Reshape), ..." naming each
 * operand's offending size and its origin. Writes "" when the refusal has no
 * dimension (a rank or axis problem) or nothing can be traced. */
void prov_broadcast(osh_model *m, graph *g, int32_t ni, int32_t ia, int32_t ib, const bcast_error *e, char *buf,
		    size_t cap);

#endif
