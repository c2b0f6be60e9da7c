/* rewrite.c: the public API's rewriting (onnxshape.h, "Rewriting"), as the pipeline
 * runs its stages (passes/pipeline.c). */
#include "api/options.h"
#include "passes/pipeline.h"

osh_status osh_rewrite(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *report, osh_error *err)
{
	if (opts && opts->version != OSH_REWRITE_OPTIONS_VERSION) {
		if (report) /* filled in every case but a NULL model (onnxshape.h) */
			*report = (osh_rewrite_report){.opset_before = -1, .opset_after = -1};
		return options_version_check("osh_rewrite_options", opts->version, OSH_REWRITE_OPTIONS_VERSION,
					     "OSH_REWRITE_OPTIONS_INIT", err);
	}
	return pipeline_rewrite(m, opts, report, err);
}

osh_status osh_rewrite_options_init(osh_rewrite_options *opts, unsigned int version)
{
	if (!opts || version != OSH_REWRITE_OPTIONS_VERSION)
		return OSH_ERR_INVALID;
	*opts = (osh_rewrite_options)OSH_REWRITE_OPTIONS_INIT;
	return OSH_OK;
}
