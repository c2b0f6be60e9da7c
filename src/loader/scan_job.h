/* scan_job.h: the pre-scan of a big file on a second thread (scan_job.c).
 *
 * The loader (load.c) plans and starts the job and settles it; the index (index.c)
 * waits on it before it reads a node or an initializer, or takes memory in
 * proportion to them. Both call down to here: neither calls the other. The model
 * holds the job (osh_model.src.scan) while it runs.
 */
#ifndef OSH_LOADER_SCAN_JOB_H
#define OSH_LOADER_SCAN_JOB_H

#include "core/model.h"
#include "loader/prescan.h"
#include "onnxshape.h"

typedef struct scan_job scan_job;

/* Scans the outline of the input `data` (which stays in place until the job is
 * settled) and prepares a job for the rest: *out, and the budget the arena starts
 * under (a bound no accepted file reaches). *out is NULL when there is nothing to
 * split, or no memory for it: the whole file was then pre-scanned here and *budget
 * is the exact one. A refused file gets prescan_message's verdict. */
osh_status scan_job_plan(const char *name, const uint8_t *data, size_t size, const osh_load_options *opts,
			 uint64_t *budget, scan_job **out, osh_error *err);
/* Starts the second thread; where none can start, the caller's scans the rest first. */
void scan_job_start(scan_job *j);
/* What the outline found: where the nodes and initializers lie, and how many. The
 * unpacking may take its arrays (unpack_split.h); the job reads them meanwhile. */
prescan_outline_result *scan_job_outline(scan_job *j);
/* Ends m's job, if any (stopping it first when `stop`: the loader failed and needs no
 * more), and settles the pre-scan as a whole: its verdict against the file, or the
 * exact budget set in place of the bound. m->src.scan is NULL afterwards. */
osh_status scan_job_finish(osh_model *m, bool stop, osh_error *err);
/* Frees a job that is not to be settled (a failed load), stopping and joining its
 * thread first if one started. NULL is a no-op. */
void scan_job_discard(scan_job *j);

/* The index calls this before it reads the main graph's initializer (kind 0) or
 * node (kind 1) number i from the input: it returns once the pre-scan has accepted
 * that one (at once when no job runs: the whole input was pre-scanned first), false
 * when the pre-scan refused the input, which the loader then reports. */
bool scan_job_wait_scanned(osh_model *m, int kind, size_t i);
/* The index calls this before it takes memory in proportion to the main graph's
 * nodes or values (`bytes` of arena) while the pre-scan may still run: it returns
 * once a file the pre-scan goes on to refuse for its size cannot have cost that
 * much, false when the pre-scan refused the input. */
bool scan_job_wait_room(osh_model *m, uint64_t bytes);

#endif
