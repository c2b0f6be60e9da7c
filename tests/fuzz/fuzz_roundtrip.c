/* fuzz_roundtrip.c: libFuzzer target for load -> rewrite -> write -> reload.
 *
 * A model that loads without a malformed-model finding is serialized (by the
 * packer osh_model_write uses, into memory: the atomic file writer has its own
 * fault-injection tests), then reloaded: the reload must succeed with no
 * malformed-model finding, and serializing the reloaded model must give the same
 * bytes. The same again after infer + annotate (`onnxshape infer`), and after infer
 * + osh_rewrite (`onnxshape rewrite`, alone and with --explicit-broadcast or
 * --implicit-broadcast), which all edit the messages; the rewrite must never produce
 * a model it calls malformed itself. See fuzz.h.
 *
 * Before that, the model is also written by osh_model_write (to a file on tmpfs),
 * which copies the nodes and initializers the loader left as wire bytes instead of
 * packing messages: reloaded and packed, the file must give the bytes osh_model_pack
 * gives for the model it was written from.
 */
#include "fuzz.h"

#include <stdio.h>
#include <unistd.h>

/* Packs m into memory (its messages, built if the loader left them as bytes). */
static bool pack(osh_model *m, uint8_t **out, size_t *n, const char *stage, const char *what)
{
	osh_error err = {0};
	osh_status s = osh_model_pack(m, out, n, &err);
	if (s == OSH_ERR_LIMIT)
		return false;
	if (s != OSH_OK)
		fuzz_fail("%s: packing %s failed (%d): %s", stage, what, (int)s, err.message);
	return true;
}

/* osh_model_write's streamed bytes, reloaded, against osh_model_pack of m. Runs
 * before anything packs m into messages. */
static void stream_trip(osh_model *m, const char *stage)
{
	char path[64];
	snprintf(path, sizeof path, "/dev/shm/osh_fuzz_stream_%d.onnx", (int)getpid());
	osh_error err = {0};
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .force_pack = true};
	osh_status s = osh_model_write(m, path, &wo, &err);
	if (s == OSH_ERR_LIMIT || (s == OSH_ERR_INVALID && strstr(err.message, "external data")) ||
	    (s == OSH_ERR_IO && access("/dev/shm", W_OK) != 0))
		return; /* a budget, external data elsewhere, or no tmpfs: nothing to compare */
	if (s != OSH_OK)
		fuzz_fail("%s: the streamed write failed (%d): %s", stage, (int)s, err.message);
	osh_model *r = NULL;
	s = osh_model_load(&r, path, NULL, &err);
	unlink(path);
	if (s == OSH_ERR_LIMIT)
		return;
	if (s != OSH_OK)
		fuzz_fail("%s: the streamed model does not load (%d): %s", stage, (int)s, err.message);
	uint8_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	if (pack(r, &b, &nb, stage, "the streamed model") && pack(m, &a, &na, stage, "the model") &&
	    (na != nb || memcmp(a, b, na)))
		fuzz_fail("%s: the streamed bytes are another model (%zu bytes packed, %zu from the stream)", stage,
			  na, nb);
	free(a);
	free(b);
	osh_model_free(r);
}

/* Packs m, reloads the bytes, packs again: the same bytes, or a broken promise. A
 * memory budget getting in the way is not a finding. */
static void round_trip(osh_model *m, const char *stage)
{
	uint8_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	osh_error err = {0};
	osh_status s = osh_model_pack(m, &a, &na, &err);
	if (s == OSH_ERR_LIMIT)
		return;
	if (s != OSH_OK)
		fuzz_fail("%s: pack failed (%d): %s", stage, (int)s, err.message);
	osh_model *r = NULL;
	s = osh_model_load_buffer(&r, a, na, FUZZ_NAME, NULL, &err);
	if (s == OSH_ERR_LIMIT) {
		free(a);
		return;
	}
	if (s != OSH_OK)
		fuzz_fail("%s: the written model does not load (%d): %s", stage, (int)s, err.message);
	if (osh_model_is_malformed(r)) {
		const char *why = "";
		for (size_t i = 0; i < osh_model_diag_count(r) && !*why; i++)
			if (!strcmp(osh_model_diag_at(r, i)->code, "malformed-model"))
				why = osh_model_diag_at(r, i)->message;
		fuzz_fail("%s: the written model is malformed: %s", stage, why);
	}
	s = osh_model_pack(r, &b, &nb, &err);
	if (s != OSH_OK)
		fuzz_fail("%s: packing the reloaded model failed (%d): %s", stage, (int)s, err.message);
	if (na != nb || memcmp(a, b, na))
		fuzz_fail("%s: writing the reloaded model gives other bytes (%zu, then %zu)", stage, na, nb);
	free(a);
	free(b);
	osh_model_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	osh_model *m = fuzz_load(data, size);
	if (!m)
		return 0;
	if (osh_model_is_malformed(m)) {
		osh_model_free(m);
		return 0;
	}
	stream_trip(m, "load");
	round_trip(m, "load");
	osh_model_free(m);
	osh_error err = {0};
	m = fuzz_load(data, size);
	if (m && osh_infer(m, NULL, &err) == OSH_OK && !osh_model_has_errors(m) && osh_annotate(m, &err) == OSH_OK) {
		stream_trip(m, "infer+annotate");
		round_trip(m, "infer+annotate");
	}
	osh_model_free(m);

	/* The axis rewrite alone, then with each broadcast direction after it. */
	static const char *const stage[] = {"rewrite", "rewrite --explicit-broadcast", "rewrite --implicit-broadcast"};
	for (int k = 0; k < 3; k++) {
		m = fuzz_load(data, size);
		if (m && osh_infer(m, NULL, &err) == OSH_OK) {
			osh_rewrite_options opts = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = k == 1, .implicit_broadcast = k == 2};
			osh_rewrite_report rep;
			osh_status s = osh_rewrite(m, &opts, &rep, &err);
			if (s == OSH_ERR_INVALID && strstr(err.message, "internal error"))
				fuzz_fail("%s: %s", stage[k], err.message);
			if (s == OSH_OK && !osh_model_has_errors(m))
				round_trip(m, stage[k]);
		}
		osh_model_free(m);
	}
	return 0;
}
