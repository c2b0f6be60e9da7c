/* external.h: the model's cache of external data files (external.c).
 *
 * Models point thousands of tensors at a few files, and may spell one file several
 * ways ("./././x/w.bin", "x//w.bin"). Each distinct file is opened (one component
 * at a time) and checked once: a location string maps to the entry of its file,
 * both as the tensor spells it and in its normalized form (no empty or "."
 * components), so another spelling of a file already checked costs no open.
 * Visible to tests, which count the walks.
 */
#ifndef OSH_LOADER_EXTERNAL_H
#define OSH_LOADER_EXTERNAL_H

#include "core/strmap.h"
#include "onnxshape.h"

#include <stdbool.h>
#include <stdint.h>

/* What opening and checking one file found. */
typedef struct ext_file {
	int err;            /* errno of opening or stat-ing it; 0 when both worked */
	const char *at;     /* ENOTDIR: the leading components, the last not a directory */
	bool regular;       /* a regular file */
	uint64_t nlink, size;
} ext_file;

typedef struct ext_cache {
	strmap index;      /* location (as spelled, and normalized) → index into files */
	ext_file *files;
	int32_t nfiles, cap;
	const char *last;  /* the key the last tensor's location matched, NULL: none */
	int32_t last_file; /* its entry */
	uint32_t walks;    /* walks from the model's directory: one per distinct file */
	/* Opening a file failed for want of something the process ran out of (EMFILE,
	 * ENFILE, ENOMEM), not for anything about the file: the first such errno and
	 * the location as its tensor spelled it. Every tensor after it is left
	 * unchecked, and the load fails once (loader_external_failure). */
	int failed;
	const char *failed_at;
} ext_cache;

struct osh_model;

/* The error for the resource that ran out checking external data: OSH_ERR_IO, err
 * naming the model, the file and errno's text. OSH_OK when none ran out. It is
 * taken: a second call says OSH_OK. */
osh_status loader_external_failure(struct osh_model *m, osh_error *err);

#endif
