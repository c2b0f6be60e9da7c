/* options.h: the version every public options struct starts with (onnxshape.h):
 * one refusal, worded alike, for each entry point that takes one. */
#ifndef OSH_API_OPTIONS_H
#define OSH_API_OPTIONS_H

#include "onnxshape.h"

/* OSH_OK when `version` is `known` (the one version of the struct this library
 * has); else OSH_ERR_INVALID, naming the struct (`name`, "osh_load_options") and
 * the version, and how it is set (`init`, "OSH_LOAD_OPTIONS_INIT"). */
osh_status options_version_check(const char *name, unsigned int version, unsigned int known, const char *init,
				 osh_error *err);

#endif
