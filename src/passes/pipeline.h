/* pipeline.h: every stage the library runs after loading, in one table per command
 * (pipeline.c), as src/api/passes.c offers them: osh_infer, osh_lint, osh_annotate,
 * osh_rewrite, osh_value_type and osh_pipeline_stages (onnxshape.h). No stage calls
 * these: the pipeline calls the stages. */
#ifndef OSH_PASSES_PIPELINE_H
#define OSH_PASSES_PIPELINE_H

#include "core/model.h"

osh_status pipeline_infer(osh_model *m, const osh_infer_options *opts, bool lint_later, osh_error *err);
osh_status pipeline_lint(osh_model *m, osh_error *err);
osh_status pipeline_annotate(osh_model *m, osh_error *err);
osh_status pipeline_rewrite(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *report, osh_error *err);
bool pipeline_value_type(osh_model *m, const char *name, osh_type *out);
size_t pipeline_stages(const char *command, const char **names, size_t cap);

#endif
