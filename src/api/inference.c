/* inference.c: the public API's inference (onnxshape.h, "Inference"): the passes
 * the pipeline runs (passes/pipeline.c), and the input values they may take. */
#include "loader/loader.h"
#include "passes/pipeline.h"

osh_status osh_infer(osh_model *m, const osh_infer_options *opts, osh_error *err) { return pipeline_infer(m, opts, err); }

osh_status osh_lint(osh_model *m, osh_error *err) { return pipeline_lint(m, err); }

osh_status osh_annotate(osh_model *m, osh_error *err) { return pipeline_annotate(m, err); }

bool osh_value_type(osh_model *m, const char *name, osh_type *out) { return pipeline_value_type(m, name, out); }

size_t osh_pipeline_stages(const char *command, const char **names, size_t cap)
{
	return pipeline_stages(command, names, cap);
}

osh_status osh_model_set_input_value(osh_model *m, const char *name, int index, const void *data, size_t size,
				     osh_error *err)
{
	return model_set_input_value(m, name, index, data, size, err);
}
