/* model_load.h: the load of a file both model.c (osh_model_load) and devices.c
 * (osh_model_load_mapped) make, mapped or not. */
#ifndef OSH_API_MODEL_LOAD_H
#define OSH_API_MODEL_LOAD_H

#include "onnxshape.h"

/* The file mapped (devices.h), on_map told where. */
typedef struct load_map {
	void (*on_map)(void *ctx, const void *addr, size_t size);
	void *ctx;
} load_map;

/* osh_model_load; map NULL: the file read, not mapped. */
osh_status model_load_file(osh_model **out, const char *path, const osh_load_options *opts, const load_map *map,
			   osh_error *err);

#endif
