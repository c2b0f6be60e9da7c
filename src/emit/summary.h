/* summary.h: what a model holds, in numbers (summary.c), for src/api/summary.c and
 * the passes: osh_model_summary, osh_model_node_count and osh_elem_type_name
 * (onnxshape.h). */
#ifndef OSH_EMIT_SUMMARY_H
#define OSH_EMIT_SUMMARY_H

#include "core/model.h"

const osh_summary *summary_build(osh_model *m);
size_t summary_node_count(const osh_model *m);
const char *summary_elem_type_name(int32_t t);

#endif
