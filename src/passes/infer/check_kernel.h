/* check_kernel.h: checking a model against the runtime it is deployed to
 * (check_kernel.c), from the inference pass: ONNX Runtime's CPU provider, whose
 * kernels core/schema/kernels.h lists as the runtime itself answered.
 *
 * Under --runtime spec (pass_options.runtime_ort false) none of this runs.
 */
#ifndef OSH_PASSES_CHECK_KERNEL_H
#define OSH_PASSES_CHECK_KERNEL_H

#include "core/schema/schema.h"
#include "passes/rule_api/rule_api.h"

/* runtime-version: each opset_import past the newest the runtime loads, and an IR
 * version past its newest. Once per model. */
void check_runtime_versions(osh_model *m);

/* For a node of a domain no kernel table covers (not ai.onnx, ai.onnx.ml, the
 * preview domains, com.microsoft or com.microsoft.nchwc) that no model-local function
 * defines: a no-kernel error unless the user declared its domain or operator a
 * custom op (pass_options.custom_ops). True when reported. */
bool check_kernel_domain(infer_ctx *c);

/* For a node that resolved to schema row r, with its inputs' and outputs' types
 * inferred: a no-kernel error when every binding of r's type variables the node's
 * types allow is one the runtime refused. Nothing when a type is unknown to the
 * table or the probe told nothing. */
void check_kernel_node(infer_ctx *c, const sch_row *r);

/* The same for a node of com.microsoft or com.microsoft.nchwc, which has no schema
 * row, by the table's com.microsoft rows: nothing for an operator not probed. */
void check_kernel_ms_node(infer_ctx *c);

#endif
