/* write_ahead.h: osh_write_finish with what tests need to see. */
#ifndef OSH_EMIT_WRITE_AHEAD_H
#define OSH_EMIT_WRITE_AHEAD_H

#include "onnxshape.h"

#include <stdint.h>

/* Where the job guessed the graph's content goes in the output, UINT64_MAX when it
 * copies nothing ahead (no layout came, or it was not worth a copy). */
uint64_t write_ahead_guess(const osh_write_job *job);

/* osh_write_finish; *skipped (not NULL): bytes the copy ahead put in place that were
 * not written again (0 when it was not used). */
osh_status write_ahead_finish(osh_write_job *job, osh_model *m, uint64_t *skipped, osh_error *err);

#endif
