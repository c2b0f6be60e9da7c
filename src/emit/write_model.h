/* write_model.h: osh_model_write and osh_model_pack, and what tests need to see. */
#ifndef OSH_EMIT_WRITE_MODEL_H
#define OSH_EMIT_WRITE_MODEL_H

#include "core/model.h"

/* model_write; *skipped (not NULL): the bytes a write begun ahead put in place
 * that were not written again (0 when there was none, or it was not used). */
osh_status write_model(osh_model *m, const char *path, const osh_write_options *opts, uint64_t *skipped,
		       osh_error *err);

/* osh_model_write and osh_model_pack (onnxshape.h), for src/api/write.c. */
osh_status model_write(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err);
osh_status model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err);

#endif
