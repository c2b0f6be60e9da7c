/* model_load.c: osh_model_load, the loader's load of a file (loader/load.c) with the
 * write osh_load_options.write_ahead_to announces begun beside it (write_ahead.c).
 *
 * Here rather than in the loader because starting a write is emit's business and a
 * stage never calls up: the loader only tells a hook where the file's parts lie
 * (load_how.on_layout). The plain-or-fast decision (core/tuning.h) is made here,
 * once per model: the loader, the passes and the writer all follow it.
 */
#include "core/error.h"
#include "core/tuning.h"
#include "emit/write_ahead.h"
#include "loader/loader.h"

osh_status osh_model_load(osh_model **out, const char *path, const osh_load_options *opts, osh_error *err)
{
	if (!out)
		return error_set(err, OSH_ERR_INVALID, "osh_model_load: out is NULL");
	*out = NULL;
	if (!path)
		return error_set(err, OSH_ERR_INVALID, "osh_model_load: the path is NULL");
	load_how how = {.plain = plain_io_chosen()};
	const char *to = opts ? opts->write_ahead_to : NULL;
	/* Without memory for a job, the load goes on without one: the write makes all. */
	write_job *job = to && !how.plain ? write_ahead_new(to) : NULL;
	if (job)
		how.on_layout = write_ahead_layout, how.layout_ctx = job;
	osh_status s = loader_load_file(out, path, opts, &how, err);
	if (s != OSH_OK)
		write_ahead_cancel(job); /* a failed load leaves no temporary file */
	else if (job)
		write_ahead_attach(*out, job);
	return s;
}
