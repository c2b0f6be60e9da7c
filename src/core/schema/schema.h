/* schema.h: the ONNX operator schemas, as the ONNX documentation states them.
 *
 * One row per (domain, op_type, since_version) of every operator of the default
 * domain (opsets 1 to 28), ai.onnx.ml, ai.onnx.preview and ai.onnx.preview.training:
 * formal inputs and outputs, attributes, type constraints, deprecation. The rows are
 * generated (schema_table.c, by gen_schema.py from ../shared/reference/onnx's
 * Changelog.md and Changelog-ml.md) and committed, so that a change to them is a
 * reviewable diff; a test regenerates them and compares. This is the project's one
 * operator table: properties other code needs (broadcasting, shape kept, purity)
 * are its columns, and passes/rule_table.c attaches a shape rule to every row.
 *
 * A node resolves to the row of its (domain, op_type) with the highest
 * since_version not above the node's imported opset for that domain, as ONNX
 * resolves it. Only constant data here: no state, no allocation. In core, as
 * dtype.h is: facts about ONNX that the loader (opsets) and the passes (checks,
 * rules) both read.
 */
#ifndef OSH_CORE_SCHEMA_H
#define OSH_CORE_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

/* A set of types, as a type constraint or a literal formal type allows them. Each
 * mask has bit k set for element type k (onnx.TensorProto.DataType, 1..26). */
typedef struct sch_types {
	uint64_t tensor;      /* tensor(T) */
	uint64_t sparse;      /* sparse_tensor(T) */
	uint64_t seq;         /* seq(tensor(T)) */
	uint64_t opt_tensor;  /* optional(tensor(T)) */
	uint64_t opt_seq;     /* optional(seq(tensor(T))) */
	/* map(K, V) and seq(map(K, V)): allowed whatever K and V (rare: ai.onnx.ml). */
	bool map, seq_map;
} sch_types;

enum sch_option { SCH_SINGLE = 0, SCH_OPTIONAL = 1, SCH_VARIADIC = 2 };

/* One formal input or output. */
typedef struct sch_param {
	const char *name;
	/* Index into the row's constraints when the formal type is a type variable
	 * ("T"), else -1 and `types` holds its literal type ("tensor(int64)"). */
	int8_t constraint;
	uint8_t option;      /* enum sch_option */
	bool heterogeneous;  /* SCH_VARIADIC: the arguments may differ in type */
	uint8_t min_arity;   /* SCH_VARIADIC: the least number of arguments; 0 otherwise */
	sch_types types;     /* constraint == -1 only */
} sch_param;

/* Attribute types as onnx.AttributeProto.AttributeType numbers them (core/model.h's
 * attr_type). */
typedef struct sch_attr {
	const char *name;
	uint8_t type;
	bool required;
	/* The default as the documentation writes it ("1", "NOTSET", "['Tanh', 'Tanh']"),
	 * or NULL when none is given. */
	const char *default_text;
} sch_attr;

typedef struct sch_constraint {
	const char *var; /* "T", "T1", "V" */
	sch_types allowed;
} sch_constraint;

typedef struct sch_row {
	const char *domain;  /* "" for ai.onnx */
	const char *op_type;
	int32_t since;
	/* Deprecated since this opset (this row's own version: Upsample-10, Scatter-11,
	 * GroupNormalization-18), 0 when not: the operator must not be used from then on. */
	int32_t deprecated;
	/* The documentation's "Inputs (min - max)"; max is INT32_MAX for "∞". Without a
	 * range, counted as ONNX counts them: min up to the last required parameter
	 * (optional ones before it included), max all of them. */
	int32_t min_inputs, max_inputs, min_outputs, max_outputs;
	const sch_param *inputs, *outputs;
	const sch_attr *attrs;
	const sch_constraint *constraints;
	uint8_t ninputs, noutputs, nattrs, nconstraints;
	/* How its inputs broadcast, as its description says (enum sch_broadcast). The
	 * legacy broadcast/axis attributes of the versions before 7 are attributes:
	 * schema_legacy_broadcast. */
	uint8_t broadcast;
	/* What output 0's shape is (enum sch_shape): gen_schema.py's SAME_SHAPE list. */
	uint8_t shape;
	/* The outputs depend on the inputs and attributes alone: no version of the
	 * operator takes a seed (randomness) or a graph (a body that may hold randomness),
	 * so a node that nothing reads may be removed. */
	bool pure;
	/* Output 0 holds input 0's elements, moved or converted (Reshape, Transpose,
	 * Cast...): gen_schema.py's VIEWS list. */
	bool view;
} sch_row;

enum sch_broadcast {
	SCH_BCAST_NONE = 0,
	SCH_BCAST_MULTI, /* numpy-style, every input (Add, Where, Max...) */
	SCH_BCAST_UNI,   /* one input to another's shape (PRelu's slope, Gemm's C) */
};

enum sch_shape {
	SCH_SHAPE_RULE = 0, /* only the shape rule knows */
	SCH_SHAPE_SAME,     /* output 0 has input 0's shape (Relu, Cast, LayerNormalization...) */
};

/* The row a node of (domain, op_type) at imported version `opset` resolves to, or
 * NULL when the operator is not defined at that opset (or not at all). domain ""
 * is ai.onnx ("ai.onnx" is accepted too). */
const sch_row *schema_lookup(const char *domain, const char *op_type, int64_t opset);

/* Whether rows a and b of one operator differ at most in the types their constraints
 * allow: the same inputs, outputs and attributes (names, options, defaults), the
 * same literal types and type variables, the same broadcasting and shape columns.
 * What a node of either computes and the shapes of its outputs are then the same;
 * only the types each accepts may differ. */
bool schema_rows_alike(const sch_row *a, const sch_row *b);

/* The newest version of the domain's operator set the table knows (28 for "",
 * 5 for "ai.onnx.ml", ...), 0 for a domain it does not know. */
int32_t schema_newest_opset(const char *domain);

/* Whether the table knows the domain at all. */
bool schema_knows_domain(const char *domain);

/* Whether ai.onnx's op_type had the broadcast and axis attributes of the versions
 * before 7 (Add...Xor, Equal, Greater, Less: the legacy pdpd rule). */
bool schema_legacy_broadcast(const char *op_type);

/* The first opset of ai.onnx at which op_type's description says its inputs
 * broadcast numpy-style (Add 7, Mod 10, Sum 8, Where 9); 0 when no version does. */
int32_t schema_multi_broadcast_since(const char *op_type);

/* Every row, for tests and tools. */
const sch_row *schema_rows(int32_t *n);

/* r's index among schema_rows' rows: its enum sch_id (schema_ids.h). r must be one
 * of the rows. */
int32_t schema_index(const sch_row *r);

#endif
