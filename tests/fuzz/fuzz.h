/* fuzz.h: what the fuzz targets (fuzz_*.c) share.
 *
 * Each target defines LLVMFuzzerTestOneInput over the public API only, but
 * fuzz_dimexpr, which calls the size algebra of src/core directly. It is built
 * twice: with clang and libFuzzer (-fsanitize=fuzzer,address,undefined; `make fuzz`)
 * and with any compiler beside replay.c, whose main() feeds it saved inputs (ctest
 * runs the seed corpus and every crash reproducer that way, under gcc, and under
 * ASan + UBSan in `make test-asan`).
 *
 * A broken promise of the library is reported with fuzz_fail, which prints and
 * aborts so that libFuzzer saves the input and replay fails.
 */
#ifndef OSH_FUZZ_H
#define OSH_FUZZ_H

#include "onnxshape.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs are loaded under this name: its directory does not exist, so external data
 * references resolve to nothing (no file outside the input is ever read), the same
 * way on every machine. */
#define FUZZ_NAME "/nonexistent-osh-fuzz/model.onnx"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2), noreturn))
#endif
	;
static inline void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz: broken promise: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* Loads data; on failure checks the error contract (no model, a message naming the
 * input, and never protobuf-c refusing bytes the pre-scan accepted). */
static inline osh_model *fuzz_load(const uint8_t *data, size_t size)
{
	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	osh_status s = osh_model_load_buffer(&m, data, size, FUZZ_NAME, NULL, &err);
	if (s == OSH_OK) {
		if (!m)
			fuzz_fail("load returned OSH_OK without a model");
		return m;
	}
	if (m)
		fuzz_fail("load failed (%d) but left a model", (int)s);
	if (err.status != s)
		fuzz_fail("status %d but err.status %d", (int)s, (int)err.status);
	if (strncmp(err.message, FUZZ_NAME ": ", strlen(FUZZ_NAME) + 2))
		fuzz_fail("the message does not name the input: %s", err.message);
	/* The pre-scan's own errors name a byte offset; a decode error without one means
	 * protobuf-c refused bytes the pre-scan let through. */
	if (s == OSH_ERR_DECODE && !strstr(err.message, " at byte offset ") && !strstr(err.message, "the file is empty"))
		fuzz_fail("protobuf-c refused what the pre-scan accepted: %s", err.message);
	if (s == OSH_ERR_NOMEM)
		fuzz_fail("out of memory instead of a budget refusal: %s", err.message);
	return NULL;
}

/* Reads every diagnostic's strings (ASan checks they are valid). Not checked:
 * that a message is one line, as osh_diag promises: names from the model are quoted
 * raw, newlines and terminal escapes included (tests/fuzz/open/diag-newline-*). */
static inline size_t fuzz_touch_diags(const osh_model *m)
{
	size_t sum = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		sum += strlen(d->code) + strlen(d->graph) + strlen(d->node_name) + strlen(d->op_type) +
		       strlen(d->value) + strlen(d->message);
	}
	return sum;
}

#endif
