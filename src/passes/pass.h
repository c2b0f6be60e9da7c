/* pass.h: the passes and the one place that runs them in order (pipeline.c).
 *
 * Every pass here has the same signature: it reads and annotates the model, reports
 * findings as diagnostics, and returns false only when it could not do its job (out
 * of memory). pipeline.c runs each as a stage, beside the rewrite's, the loader's
 * re-index and the writer's annotate. Derived data a pass changes is recomputed
 * before the next one runs.
 */
#ifndef OSH_PASSES_PASS_H
#define OSH_PASSES_PASS_H

#include "core/model.h"

/* What one pass leaves for a later one in the same run (pipeline.c holds it). A
 * million-node graph is a full sweep of the cache each time a pass walks its nodes:
 * inference, which walks them anyway, notes what lint would look for. */
typedef struct pass_state {
	/* The main graph's nodes whose type may broadcast (bcast_may_broadcast), in the
	 * order inference saw them (the graph's order); valid when lint_listed. */
	int32_t *lint_nodes;
	int32_t nlint_nodes, cap_lint_nodes;
	bool lint_listed;
} pass_state;

typedef struct pass_options {
	bool ignore_declared; /* infer from the graph inputs alone (value_info and outputs ignored) */
	bool require_static;  /* lint: every value whose shape is not static is an error */
	bool require_explicit; /* lint: every implicitly broadcasting node (lint_explicit.c) */
	/* The user's --assume bindings: lint does not report facts they already settle. */
	size_t n_assumed;
	const osh_assumption *assumed;
	pass_state *state; /* NULL: each pass finds what it needs by itself */
	/* The runtime to check for besides the spec (check_kernel.h): ONNX Runtime's CPU
	 * provider when set, with the custom-op domains ("DOMAIN") and operators
	 * ("DOMAIN::OP") the deployment registers. */
	bool runtime_ort;
	size_t n_custom_ops;
	const char *const *custom_ops;
	/* Main-graph inputs that are initializers are the constants they hold
	 * (osh_infer_options.constant_initializers); off, they are defaults a caller
	 * may replace, as ONNX Runtime takes them. */
	bool constant_initializers;
} pass_options;

/* One note (symbol-constraint) when main-graph inputs that are initializers hold
 * integers that inference would otherwise use as sizes, saying why what they decide
 * is unknown and how to take them as constants (initializer_inputs.c). False when
 * out of memory. */
bool note_initializer_inputs(osh_model *m, const pass_options *opts);

bool pass_infer(osh_model *m, const pass_options *opts);
/* Hazards and notes on top of inference (lint.c): same-size-broadcast,
 * outer-broadcast, legacy-broadcast-attr, axis-broadcast, symbol-constraint,
 * dynamic-shape. */
bool pass_lint(osh_model *m, const pass_options *opts);
/* Attaches each diagnostic's node input types (describe.c), for reports. */
bool pass_describe(osh_model *m, const pass_options *opts);
/* What inference knows of a value, as the public API shows it (describe.c; dims in
 * the model's arena, symbols resolved). False when out of memory. */
bool type_of(osh_model *m, const tinfo *t, osh_type *out);
/* implicit-broadcast notes (lint_explicit.c), run by pass_lint under require_explicit. */
bool lint_explicit(osh_model *m);


#endif
