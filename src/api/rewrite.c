/* rewrite.c: the public API's rewriting (onnxshape.h, "Rewriting"), as the pipeline
 * runs its stages (passes/pipeline.c). */
#include "passes/pipeline.h"

osh_status osh_rewrite(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *report, osh_error *err)
{
	return pipeline_rewrite(m, opts, report, err);
}
