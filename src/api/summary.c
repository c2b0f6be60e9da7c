/* summary.c: the public API's summary of a model (onnxshape.h, "Summary"), as
 * emit/summary.c counts it. */
#include "emit/summary.h"

const osh_summary *osh_model_summary(osh_model *m) { return summary_build(m); }

size_t osh_model_node_count(const osh_model *m) { return summary_node_count(m); }

const char *osh_elem_type_name(int32_t elem_type) { return summary_elem_type_name(elem_type); }
