/* model.c: the public API's model (onnxshape.h, its first part): loading, freeing,
 * and what the model struct tells of itself.
 *
 * osh_model_load is the loader's load of a file (loader/load.c) with the write
 * osh_load_options.write_to announces begun beside it (emit/write_ahead.c):
 * composed here, above both, because starting a write is emit's business and the
 * loader only tells a hook where the file's parts lie (load_how.on_layout). The
 * plain-or-fast decision (osh_load_options.io, core/tuning.h) is made here, once
 * per model: the loader, the passes and the writer all follow it.
 */
#include "api/model_load.h"
#include "api/options.h"
#include "core/error.h"
#include "core/tuning.h"
#include "emit/write_ahead.h"
#include "loader/loader.h"

static osh_status load_version_check(const osh_load_options *opts, osh_error *err)
{
	return opts ? options_version_check("osh_load_options", opts->version, OSH_LOAD_OPTIONS_VERSION,
					    "OSH_LOAD_OPTIONS_INIT", err)
		    : OSH_OK;
}

osh_status osh_load_options_init(osh_load_options *opts, unsigned int version)
{
	if (!opts || version != OSH_LOAD_OPTIONS_VERSION)
		return OSH_ERR_INVALID;
	*opts = (osh_load_options)OSH_LOAD_OPTIONS_INIT;
	return OSH_OK;
}

osh_status model_load_file(osh_model **out, const char *path, const osh_load_options *opts, const load_map *map,
			   osh_error *err)
{
	if (!out)
		return error_set(err, OSH_ERR_INVALID, "osh_model_load: out is NULL");
	*out = NULL;
	if (!path)
		return error_set(err, OSH_ERR_INVALID, "osh_model_load: the path is NULL");
	osh_status s = load_version_check(opts, err);
	if (s != OSH_OK)
		return s;
	load_how how = {.plain = plain_io_for(opts ? opts->io : OSH_IO_DEFAULT)};
	if (map)
		how.map_file = true, how.on_map = map->on_map, how.map_ctx = map->ctx;
	const char *to = opts ? opts->write_to : NULL;
	/* Without memory for a job, the load goes on without one: the write makes all. */
	write_job *job = to && !how.plain ? write_ahead_new(to) : NULL;
	if (job)
		how.on_layout = write_ahead_layout, how.layout_ctx = job;
	s = loader_load_file(out, path, opts, &how, err);
	if (s != OSH_OK)
		write_ahead_cancel(job); /* a failed load leaves no temporary file */
	else if (job)
		write_ahead_attach(*out, job);
	return s;
}

osh_status osh_model_load(osh_model **out, const char *path, const osh_load_options *opts, osh_error *err)
{
	return model_load_file(out, path, opts, NULL, err);
}

osh_status osh_model_load_buffer(osh_model **out, const void *data, size_t size, const char *name,
				 const osh_load_options *opts, osh_error *err)
{
	if (out)
		*out = NULL;
	osh_status s = load_version_check(opts, err);
	return s != OSH_OK ? s : loader_load_buffer(out, data, size, name, opts, err);
}

void osh_model_free(osh_model *m) { model_free(m); }

const char *osh_version(void) { return OSH_VERSION; }

/* A NULL model has no path, no diagnostics, no errors (onnxshape.h). */
const char *osh_model_path(const osh_model *m) { return m ? m->path : NULL; }
size_t osh_model_diag_count(const osh_model *m) { return m ? m->ndiags : 0; }
const osh_diag *osh_model_diag_at(const osh_model *m, size_t i) { return m && i < m->ndiags ? &m->diags[i] : NULL; }
bool osh_model_has_errors(const osh_model *m) { return m && m->has_errors; }
bool osh_model_is_malformed(const osh_model *m) { return m && m->malformed; }
