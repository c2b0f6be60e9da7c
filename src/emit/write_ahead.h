/* write_ahead.h: a write begun while its model loads (osh_load_options.write_to;
 * see write_ahead.c). api/model.c starts it, model_write finishes it, and
 * osh_model_free cancels one never finished (osh_model.pending.write).
 */
#ifndef OSH_EMIT_WRITE_AHEAD_H
#define OSH_EMIT_WRITE_AHEAD_H

#include "core/model.h"
#include "loader/loader.h"

#include <stdint.h>

typedef struct write_job write_job;

/* A job for a write to `path`, doing nothing until told the layout; NULL when memory
 * ran out (the load then goes without). */
write_job *write_ahead_new(const char *path);
/* load_how.on_layout: creates the temporary file beside the path and starts the copy
 * of the graph's nodes and initializers into it, where it is worth it. */
void write_ahead_layout(void *job, const input_layout *layout);
/* Ends the job, removing its temporary file, and frees it (pending_write.cancel).
 * NULL is fine. */
void write_ahead_cancel(void *job);
/* Hands the job to the model it was begun for, once loaded. */
void write_ahead_attach(osh_model *m, write_job *job);
/* The model's job when it is for a write to `path` (detached from the model: the
 * caller finishes it), else NULL. */
write_job *write_ahead_take(osh_model *m, const char *path);
/* Writes m as model_write(m, path, opts) writes it, where path is the job's,
 * into the file begun ahead when it is fit for this write, and frees the job.
 * *skipped (not NULL): bytes the copy ahead put in place that were not written
 * again (0 when it was not used). */
osh_status write_ahead_finish(write_job *job, osh_model *m, const osh_write_options *opts, uint64_t *skipped,
			      osh_error *err);
/* For tests: where the model's job guessed the graph's content goes in the output,
 * UINT64_MAX when it copies nothing ahead (no job, no layout came, or it was not
 * worth a copy). */
uint64_t write_ahead_guess(const osh_model *m);

#endif
