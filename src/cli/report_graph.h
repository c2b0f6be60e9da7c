/* report_graph.h: what the HTML report (format_html.c) reads of a model that the
 * public API does not hand out: the graph around a finding, the value table and the
 * symbols with what inference learned about them.
 *
 * This is the one file of the tool that looks inside the library (core/model.h,
 * passes/bcast/provenance.h, passes/bcast/bcast_sites.h): when the library gains a public way to walk a model, only
 * report_graph.c changes. Everything it returns is plain data: names point into the
 * model (valid until it is freed), labels are copied.
 */
#ifndef OSH_CLI_REPORT_GRAPH_H
#define OSH_CLI_REPORT_GRAPH_H

#include "onnxshape.h"

#include <stdbool.h>
#include <stdint.h>

/* An edge's label ("name (2, 3, 4)"), cut with "..." past this many bytes. */
#define RG_LABEL_MAX 120
/* Highlighted dimensions one label can mark. */
#define RG_HL_MAX 8

typedef enum rg_kind {
	RG_NODE,        /* a node: name and op_type */
	RG_INPUT,       /* a graph input */
	RG_INITIALIZER, /* an initializer */
	RG_OUTPUT,      /* a graph output, or a result nothing uses */
	RG_UNDEFINED,   /* a value nothing defines (a malformed model) */
	RG_MORE,        /* a cut: "... N more" */
} rg_kind;

typedef struct rg_box {
	rg_kind kind;
	bool focus;          /* the finding's node (or value) */
	int64_t node_index;  /* RG_NODE in the finding's graph: its index, else -1 */
	const char *name;    /* the node's or value's name; "" when unnamed */
	const char *what;    /* op_type, or "graph input", "initializer", ... */
	int64_t more;        /* RG_MORE: how many were left out */
	/* Which box this is, so a node on two chains is drawn once. */
	const void *key_graph;
	int32_t key_index;
	bool downstream;
} rg_box;

typedef struct rg_edge {
	int32_t from, to; /* box indices; data flows from -> to */
	char label[RG_LABEL_MAX];
	/* [start, end) byte ranges of label that are highlighted dimensions. */
	int16_t hl[RG_HL_MAX][2];
	int32_t nhl;
} rg_edge;

/* A finding's neighbourhood: the node, the chains that carried each operand's
 * dimension from where it was set (provenance.h), the consumers of its results. */
typedef struct rg_hood {
	rg_box *boxes;
	int32_t nboxes;
	size_t cap_boxes;
	rg_edge *edges;
	int32_t nedges;
	size_t cap_edges;
	int32_t nhl; /* highlighted dimensions over every label */
} rg_hood;

/* Fills *h for diagnostic d of m. Returns false when there is nothing to draw (no
 * node and no value) or memory ran out; *h is then empty. rg_hood_free in both cases. */
bool rg_hood_build(osh_model *m, const osh_diag *d, rg_hood *h);
void rg_hood_free(rg_hood *h);

/* One value of the main graph, for the value table. */
typedef struct rg_value {
	const char *name;
	const char *elem;     /* "FLOAT"..., "" when unknown */
	char shape[RG_LABEL_MAX];
	int64_t producer;     /* node index, -1 for an input or initializer */
	const char *origin;   /* "input", "initializer", "node", "outer", "undefined" */
} rg_value;

/* Values of the main graph (0 before loading finished). */
int64_t rg_value_count(const osh_model *m);
/* Value i, in the order of the model's value table. */
void rg_value_at(osh_model *m, int64_t i, rg_value *out);
/* The main graph's node i: name and op_type; false past the last. */
bool rg_node_at(const osh_model *m, int64_t i, const char **name, const char **op_type);

/* One symbolic size of the model and what the checker knows of it. */
typedef struct rg_symbol {
	const char *name; /* the dim_param, or the expression's text */
	const char *what; /* "graph input size", "dim_param", "expression", "made up" */
	bool fresh;       /* made up by onnxshape for an unknown size */
	/* What it resolves to, when facts changed it: "8", "seq"; else "". */
	char learned[RG_LABEL_MAX];
} rg_symbol;

int64_t rg_symbol_count(const osh_model *m);
void rg_symbol_at(osh_model *m, int64_t i, rg_symbol *out);

#endif
