/* write.c: the public API's writing (onnxshape.h, "Writing"), as emit/ and io/ do it. */
#include "io/temp_guard.h"
#include "emit/write_model.h"

osh_status osh_model_write(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err)
{
	return model_write(m, path, opts, err);
}

osh_status osh_model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err) { return model_pack(m, data, size, err); }

void osh_write_abandon_all(void) { write_abandon_all(); }
