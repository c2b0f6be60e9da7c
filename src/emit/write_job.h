/* write_job.h: osh_write_finish with what tests need to see. */
#ifndef OSH_EMIT_WRITE_JOB_H
#define OSH_EMIT_WRITE_JOB_H

#include "onnxshape.h"

/* osh_write_finish; *skipped (not NULL): bytes the copy ahead put in place that
 * were not written again (0 when it was not used). */
osh_status write_job_finish(osh_write_job *job, uint64_t *skipped, osh_error *err);

#endif
