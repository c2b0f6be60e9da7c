/* write_ahead.h: a write begun while its model loads (osh_load_options.write_to;
 * see write_ahead.c). api/model.c starts it, write_model.c takes its temporary file
 * and finishes the write, and osh_model_free cancels one never finished
 * (osh_model.pending.write). Calls go one way: write_model.c calls this, never back.
 */
#ifndef OSH_EMIT_WRITE_AHEAD_H
#define OSH_EMIT_WRITE_AHEAD_H

#include "core/model.h"
#include "io/atomic_file.h"
#include "loader/loader.h"

#include <stdint.h>

typedef struct write_job write_job;

/* A job for a write to `path`, doing nothing until told the layout; NULL when memory
 * ran out (the load then goes without). */
write_job *write_ahead_new(const char *path);
/* load_how.on_layout: creates the temporary file beside the path and starts the copy
 * of the graph's nodes and initializers into it, where it is worth it. */
void write_ahead_layout(void *job, const input_layout *layout);
/* The model's messages were edited (passes/pipeline.c, after each stage that edits
 * them): where the initializers land in the output is known again. When the
 * model's job copies ahead, the copy is pointed there (see write_ahead.c). */
void write_ahead_relayout(osh_model *m);
/* Ends the job, removing its temporary file, and frees it (pending_write.cancel).
 * NULL is fine. */
void write_ahead_cancel(void *job);
/* Hands the job to the model it was begun for, once loaded. */
void write_ahead_attach(osh_model *m, write_job *job);
/* The model's job when it is for a write to `path` (detached from the model: the
 * caller finishes it), else NULL. */
write_job *write_ahead_take(osh_model *m, const char *path);
/* Ends the job (taken by write_ahead_take) and frees it: the temporary file it made,
 * for the write with options ao to produce into, or NULL (none was made, or it is not
 * this write's: made in place to the input for a write that is not, it is removed).
 * With a file, *pre is what the copy ahead put in it and *use whether that may be
 * skipped (it all came, from the file m was loaded from). */
atomic_file *write_ahead_end(write_job *job, const osh_model *m, const atomic_opts *ao, out_pre *pre, bool *use);
/* For tests: where the model's job guessed the graph's content goes in the output,
 * UINT64_MAX when it copies nothing ahead (no job, no layout came, or it was not
 * worth a copy). */
uint64_t write_ahead_guess(const osh_model *m);

#endif
