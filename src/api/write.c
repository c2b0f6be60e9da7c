/* write.c: the public API's writing (onnxshape.h, "Writing"), as emit/ does it. */
#include "api/options.h"
#include "emit/write_model.h"

osh_status osh_model_write(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err)
{
	osh_status s = opts ? options_version_check("osh_write_options", opts->version, OSH_WRITE_OPTIONS_VERSION,
						    "OSH_WRITE_OPTIONS_INIT", err)
			    : OSH_OK;
	return s != OSH_OK ? s : model_write(m, path, opts, err);
}

osh_status osh_write_options_init(osh_write_options *opts, unsigned int version)
{
	if (!opts || version != OSH_WRITE_OPTIONS_VERSION)
		return OSH_ERR_INVALID;
	*opts = (osh_write_options)OSH_WRITE_OPTIONS_INIT;
	return OSH_OK;
}

osh_status osh_model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err) { return model_pack(m, data, size, err); }
