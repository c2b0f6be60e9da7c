/* inference.c: the public API's inference (onnxshape.h, "Inference"): the passes
 * the pipeline runs (passes/pipeline.c), and the input values they may take. */
#include "api/options.h"
#include "loader/loader.h"
#include "passes/pipeline.h"

osh_status osh_infer_options_init(osh_infer_options *opts, unsigned int version)
{
	if (!opts || version != OSH_INFER_OPTIONS_VERSION)
		return OSH_ERR_INVALID;
	*opts = (osh_infer_options)OSH_INFER_OPTIONS_INIT;
	return OSH_OK;
}

osh_status osh_infer(osh_model *m, const osh_infer_options *opts, osh_error *err)
{
	osh_status s = opts ? options_version_check("osh_infer_options", opts->version, OSH_INFER_OPTIONS_VERSION,
						    "OSH_INFER_OPTIONS_INIT", err)
			    : OSH_OK;
	return s != OSH_OK ? s : pipeline_infer(m, opts, false, err);
}

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
