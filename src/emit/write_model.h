/* write_model.h: osh_model_write in parts, shared with write_ahead.c, and with what
 * tests need to see. */
#ifndef OSH_EMIT_WRITE_MODEL_H
#define OSH_EMIT_WRITE_MODEL_H

#include "core/model.h"
#include "emit/write_atomic.h"

/* How osh_model_write opens its temporary file for model m: refusing to write over
 * the file it was loaded from unless in place, and over a file that replaced it at
 * all; written the plain way when m->plain_io. */
atomic_opts write_atomic_opts(const osh_write_options *opts, const osh_model *m);

/* The refusals of osh_model_write that depend on the model, not the file system. */
osh_status write_check_model(osh_model *m, const char *path, osh_error *err);

/* Fills the temporary file f with the model as it is now (pre: bytes in place already,
 * or NULL; *skipped, when not NULL: how many of them were not written again) and
 * renames it over path. Frees f. */
osh_status write_commit(osh_model *m, const char *path, atomic_file *f, const osh_write_options *opts,
			const out_pre *pre, uint64_t *skipped, osh_error *err);

/* osh_model_write with a temporary file of its own, whatever was begun ahead. */
osh_status write_model_fresh(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err);

/* model_write; *skipped (not NULL): the bytes a write begun ahead put in place
 * that were not written again (0 when there was none, or it was not used). */
osh_status write_model(osh_model *m, const char *path, const osh_write_options *opts, uint64_t *skipped,
		       osh_error *err);

/* osh_model_write and osh_model_pack (onnxshape.h), for src/api/write.c. */
osh_status model_write(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err);
osh_status model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err);

#endif
