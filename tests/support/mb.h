/* mb.h: a tiny model builder for rule tests.
 *
 * Builds a ModelProto in memory with protobuf-c (in its own arena), packs it, loads
 * it through the public API and runs inference, so a test states a graph in a few
 * lines and asserts on the inferred shapes as text:
 *
 *   mb *b = mb_new(13);
 *   mb_input(b, "x", DT_FLOAT, "N,3,224,224");
 *   mb_init_ints(b, "shape", "0,-1", (int64_t[]){0, -1});   // an INT64 initializer
 *   mb_node(b, "Reshape", "x,shape", "y");
 *   osh_model *m = mb_infer(b);               // NULL when loading failed
 *   cr_assert_str_eq(mb_type(m, "y"), "FLOAT (N, 672)");
 *
 * Shapes are written "2,N,?" (? unknown dim), "" for a scalar, NULL for no shape.
 */
#ifndef OSH_TESTS_MB_H
#define OSH_TESTS_MB_H

#include "core/dtype.h"
#include "onnxshape.h"

#include <stdint.h>

typedef struct mb mb;

mb *mb_new(int64_t opset);
/* Adds another opset import (e.g. "ai.onnx.ml", 3). */
void mb_opset(mb *b, const char *domain, int64_t version);
void mb_input(mb *b, const char *name, int32_t elem, const char *shape);
/* Declares a graph output (type optional: elem 0 and shape NULL declare nothing). */
void mb_output(mb *b, const char *name, int32_t elem, const char *shape);
/* A value_info entry. */
void mb_value_info(mb *b, const char *name, int32_t elem, const char *shape);
/* Initializers: INT64 with given dims and values; FLOAT filled with zeros. */
void mb_init_ints(mb *b, const char *name, const char *dims, const int64_t *vals);
void mb_init_floats(mb *b, const char *name, const char *dims, const float *vals);
void mb_init(mb *b, const char *name, int32_t elem, const char *dims);
/* Adds a node (inputs/outputs comma-separated, "" entries allowed as in "x,,y").
 * Attributes apply to the node added last. */
void mb_node(mb *b, const char *op, const char *inputs, const char *outputs);
void mb_node_domain(mb *b, const char *domain);
/* Renames the node added last (mb_node names it <op>_<index>). */
void mb_node_name(mb *b, const char *name);
void mb_attr_i(mb *b, const char *name, int64_t v);
void mb_attr_f(mb *b, const char *name, float v);
void mb_attr_s(mb *b, const char *name, const char *v);
void mb_attr_ints(mb *b, const char *name, int n, const int64_t *v);
void mb_attr_floats(mb *b, const char *name, int n, const float *v);
/* A TENSOR attribute holding an INT64 or FLOAT tensor (Constant's value). */
void mb_attr_tensor_ints(mb *b, const char *name, const char *dims, const int64_t *vals);
void mb_attr_tensor_floats(mb *b, const char *name, const char *dims, const float *vals);
/* A GRAPH attribute: the subgraph is built with its own mb (opset ignored) and
 * consumed. */
void mb_attr_graph(mb *b, const char *name, mb *sub);

/* Packs, loads and infers; frees the builder. Returns NULL if loading failed (the
 * error is printed). The model must be freed with osh_model_free. */
osh_model *mb_infer(mb *b);
osh_model *mb_infer_opts(mb *b, const osh_infer_options *opts);
/* Packs into a file (for CLI tests); frees the builder. */
void mb_save(mb *b, const char *path);

/* "FLOAT (N, 3)", "INT64 ()", "? (rank unknown)", "unknown" (no info), or
 * "missing" (no such value). The string lives in a static ring of buffers. */
const char *mb_type(osh_model *m, const char *name);
/* Number of diagnostics with this code; and the first one's message (or ""). */
int mb_count(osh_model *m, const char *code);
const char *mb_message(osh_model *m, const char *code);

/* ---- for the ai.onnx.ml and string rule tests ---- */
/* A STRINGS attribute. */
void mb_attr_strings(mb *b, const char *name, int n, const char *const *v);
/* A TENSOR attribute of element type elem and the given dims, zero-filled (empty
 * strings for STRING). */
void mb_attr_tensor_zeros(mb *b, const char *name, int32_t elem, const char *dims);
/* A graph input of type map(key, tensor(value)). */
void mb_input_map(mb *b, const char *name, int32_t key, int32_t value);

#endif
