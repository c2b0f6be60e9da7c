/* devices.c: the speed devices' knobs of devices.h, each one entry point of the
 * public part beside it (model.c, inference.c, write.c) with the knob set. */
#include "api/devices.h"

#include "api/model_load.h"
#include "api/options.h"
#include "io/temp_guard.h"
#include "passes/pipeline.h"

osh_status osh_model_load_mapped(osh_model **out, const char *path, const osh_load_options *opts,
				 void (*on_map)(void *ctx, const void *addr, size_t size), void *map_ctx,
				 osh_error *err)
{
	load_map map = {.on_map = on_map, .ctx = map_ctx};
	return model_load_file(out, path, opts, &map, err);
}

osh_status osh_infer_lint_later(osh_model *m, const osh_infer_options *opts, osh_error *err)
{
	osh_status s = opts ? options_version_check("osh_infer_options", opts->version, OSH_INFER_OPTIONS_VERSION,
						    "OSH_INFER_OPTIONS_INIT", err)
			    : OSH_OK;
	return s != OSH_OK ? s : pipeline_infer(m, opts, true, err);
}

void osh_write_abandon_all(void) { write_abandon_all(); }
