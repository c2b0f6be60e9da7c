/* rule_case.h: a one-node rule test as one table row, and the one runner every
 * tests/unit/test_rules_*.c table goes through.
 *
 * A row names the operator (domain, opset), the node's inputs and outputs, the graph
 * inputs and initializers, the attributes, and what each output must be, as mb_type
 * prints it. One small text syntax, fields split on '|', keeps a row on a line or two:
 *   decls   "x:1,3,5,5|w:INT8:2,3,3,3|s:|u:*"   graph inputs: FLOAT unless typed
 *                                               (UNDEFINED: no type); "" a scalar;
 *                                               * no shape
 *   ints    "k:1:5|axes:2:0,-1|n::3|e:0:"       INT64 initializers name:dims:values
 *                                               (dims "2,3"; "" a scalar)
 *   floats  "scales:4:1,1,2,2"                  FLOAT initializers, the same way
 *   zeros   "b:BOOL:3|c:FLOAT16:"               zero-filled initializers of any type
 *   attrs   "i:group=2|f:alpha=0.5|s:auto_pad=SAME_UPPER|is:kernel_shape=3,3|
 *            fs:scales=1,2|t:value=2,2:1,2,3,4|ft:value=1:2.5"
 *           (int, float, string, ints, floats, INT64 tensor dims:values, FLOAT tensor)
 *   expect  {"FLOAT (2, 3)", NULL, "INT64 ()"}  one per output position, NULL unchecked
 *   content {"[2, N]", "f[1.5, 2]", "none"}     the output's known values (integer,
 *                                               floating, none), NULL unchecked
 * and what the node must say:
 *   diag NULL, findings 0  no error and no finding (shape-error, broadcast-mismatch,
 *                          symbol-constraint, unknown-op, arity-error, attribute-error,
 *                          type-error, op-not-in-opset) of any severity
 *   diag "code"            that code at least once; with a schema error (the last four),
 *                          no shape-error too: the problem is said once
 *   findings N             exactly N findings of those codes (and diag among them if set)
 *   quiet                  no diagnostic at all, of any code or severity
 * The expected values are worked out by hand from the operator's specification, in
 * the rows' comments.
 */
#ifndef OSH_TESTS_RULE_CASE_H
#define OSH_TESTS_RULE_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mb.h"

#define RC_OUTPUTS 8

typedef struct rule_case {
	const char *what;
	int64_t opset;       /* ai.onnx's version */
	const char *op;
	const char *inputs;  /* the node's inputs, "" entries for omitted ones */
	const char *outputs; /* the node's outputs, "" entries for omitted ones */
	const char *domain;  /* the node's domain, imported at version 1; NULL: ai.onnx */
	const char *decls;
	const char *ints;
	const char *floats;
	const char *zeros;
	const char *attrs;
	const char *expect[RC_OUTPUTS];
	const char *content[RC_OUTPUTS];
	const char *diag;
	int findings;
	bool quiet;
} rule_case;

/* Builds the row's model, infers it and checks it; Criterion expectations. */
void rule_case_run(const rule_case *k);
void rule_cases_run(const rule_case *k, size_t n);
#define RULE_CASES(table) rule_cases_run(table, sizeof(table) / sizeof(table)[0])

/* The pieces of a row, for a test that builds more than one node: the syntaxes above
 * applied to b (attributes to its last node). */
void rule_case_decls(mb *b, const char *what, const char *decls);
void rule_case_inits(mb *b, const char *what, const char *ints, const char *floats, const char *zeros);
void rule_case_attrs(mb *b, const char *what, const char *attrs);
/* The known values of a main-graph value, as `content` above writes them. */
const char *rule_case_content(osh_model *m, const char *name);

#endif
