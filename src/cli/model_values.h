/* model_values.h: every value of a model, one at a time, for `shapes` and `print`.
 *
 * The one place the tool reads the library's IR (src/core/model.h) rather than the
 * public header, which lists no values yet; when it does, model_values() is what
 * changes, and nothing that calls it.
 */
#ifndef OSH_CLI_MODEL_VALUES_H
#define OSH_CLI_MODEL_VALUES_H

#include "cli.h"

typedef enum value_source { SRC_INPUT, SRC_INITIALIZER, SRC_NODE } value_source;

typedef struct model_value {
	const char *graph;   /* "" for the main graph, else its path ("If_0/then_branch") */
	const char *name;
	value_source source;
	int64_t node_index;  /* SRC_NODE: its producer's index in its graph, else -1 */
	const char *op_type; /* SRC_NODE: its producer's operator, else "" */
	bool is_output;      /* a graph output */
	/* Inferred when inference has run; else an initializer's own shape and, for
	 * every other value, no type (kind ""). Dims last until the next value. */
	osh_type type;
	/* SRC_INITIALIZER, and inputs with an initializer: its elements and their
	 * bytes (as the dims declare them: external data is never read); else 0. */
	int64_t elements;
	uint64_t bytes;
} model_value;

/* Calls fn for each value of each graph (function bodies, templates for their
 * calls, excepted), graph by graph: its inputs, its initializers that are not
 * inputs, then what its nodes produce in a topological order. Stops when fn
 * returns false. Returns false when memory ran out. */
bool model_values(osh_model *m, bool (*fn)(void *ctx, const model_value *v), void *ctx);

#endif
