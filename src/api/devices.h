/* devices.h: the speed devices' knobs that the public header leaves out, for the
 * onnxshape tool (src/cli/README.md says where it uses each) and the tests.
 *
 * Each trades a guarantee of the public API for speed, and asks of the program what
 * a library cannot promise by itself: a mapping needs a program that handles
 * SIGBUS, a lint left for the write needs a caller that looks at the diagnostics
 * after the write, and the handler of a fatal signal must be able to remove the
 * temporary files of the writes in flight. Defined in devices.c; not exported by
 * libonnxshape.so (no OSH_API).
 */
#ifndef OSH_API_DEVICES_H
#define OSH_API_DEVICES_H

#include "onnxshape.h"

/* osh_model_load, with the file mapped instead of read into memory of the model's
 * own: no copy, and the pages of its weights are the page cache's. But a page read
 * after another process truncated the file raises SIGBUS, in whichever thread reads
 * it, while the model lives; the library installs no handler for that (signal
 * dispositions belong to the program): call it only from a program that handles
 * SIGBUS. on_map, when not NULL, is called with the mapping before anything reads
 * it, so that the handler can tell a fault in it from another; the mapping lasts
 * until the load fails or osh_model_free returns. A file that cannot be mapped
 * (some file systems) is read as osh_model_load reads it; so is every file on the
 * plain path, and on_map is then not called. NULL: opts, on_map, map_ctx, err. */
osh_status osh_model_load_mapped(osh_model **out, const char *path, const osh_load_options *opts,
				 void (*on_map)(void *ctx, const void *addr, size_t size), void *map_ctx,
				 osh_error *err);

/* osh_infer, with the lint (the hazards and symbol facts found on top of inference,
 * and the shapes attached to each diagnostic) left for later: the next
 * osh_model_write runs it on a second thread while it writes the model (on the
 * plain path, on the caller's thread before it), and commits nothing, returning
 * OSH_ERR_FINDINGS, when the model then has an error; osh_model_pack and osh_lint
 * run it at once. Until it has run, the model's diagnostics are inference's alone
 * (without their input shapes). For writing an inferred model, as `onnxshape
 * infer` does: the lint is off the critical path. NULL: opts, err. */
osh_status osh_infer_lint_later(osh_model *m, const osh_infer_options *opts, osh_error *err);

/* Removes the temporary file of every write in progress in the process, for a
 * program about to end from a handler of a fatal signal (SIGBUS from a mapped
 * input: osh_model_load_mapped); async-signal-safe. The writes themselves are not
 * usable afterwards: call it only on the way out. No pointers. */
void osh_write_abandon_all(void);

#endif
