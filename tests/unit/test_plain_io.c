/* test_plain_io.c: the plain path (core/tuning.h) starts no thread, and writes what
 * the fast path writes.
 *
 * The test is linked with pthread_create wrapped (tests/CMakeLists.txt: --wrap), so
 * that every thread the library starts is counted, whichever device starts it. One
 * model is big enough for all of them on the fast path: a file of over 16 MB, mapped
 * (the page releaser), 1 MB and more of nodes and initializers in one stretch (the
 * pre-scan's second thread, the copy begun ahead), over 16,384 nodes (the second
 * thread of the name look-ups, and the lint beside the write) and an arena of
 * chunks over 16 MB (the prefault). It is loaded, inferred with the lint deferred,
 * annotated and written both ways: the plain way counts no thread, the fast way
 * some (so the count can fail), and the two files are the same bytes.
 */
#define _GNU_SOURCE
#include "api/devices.h"
#include "core/model.h"
#include "core/tuning.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include "wbuf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int threads_started;

int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	atomic_fetch_add(&threads_started, 1);
	return __real_pthread_create(t, attr, fn, arg);
}

enum { NODES = 40000, WEIGHT_BYTES = 17 << 20 };

/* A chain of NODES Relu nodes, named (the pre-scan records their spans), and one
 * unused initializer of WEIGHT_BYTES. */
static wbuf big_model(void)
{
	wbuf b = {0}, g = {0}, t = {0};
	put_model_header(&b, 13);
	put_relu_chain(&g, NODES, true);
	uint8_t *w = calloc(1, WEIGHT_BYTES);
	cr_assert(w);
	for (size_t i = 0; i < WEIGHT_BYTES; i += 4096)
		w[i] = (uint8_t)i;
	put_vfield(&t, 1, WEIGHT_BYTES / 4);
	put_vfield(&t, 2, 1); /* FLOAT */
	put_str(&t, 8, "w");
	put_bytes(&t, 9, w, WEIGHT_BYTES);
	free(w);
	put_msg(&g, 5, &t);
	put_tensor_vi(&g, 11, "t0", 1, 8);
	char out[32];
	snprintf(out, sizeof out, "t%d", NODES);
	put_tensor_vi(&g, 12, out, 1, 8);
	put_msg(&b, 7, &g);
	return b;
}

/* in -> out the `plain` way (or the fast one), as `onnxshape infer` does it; returns
 * how many threads the library started meanwhile. */
static int infer_write(const char *in, const char *out, bool plain)
{
	setenv(PLAIN_IO_ENV, plain ? "1" : "0", 1);
	int before = atomic_load(&threads_started);
	osh_model *m = NULL;
	osh_error err = {0};
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = out};
	cr_assert_eq(osh_model_load_mapped(&m, in, &lo, NULL, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer_lint_later(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_not(osh_model_has_errors(m));
	cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_model_write(m, out, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	return atomic_load(&threads_started) - before;
}

Test(plain_io, starts_no_thread_and_writes_the_same_bytes, .timeout = 120)
{
	char *dir = make_tmpdir_for("plain_io");
	char *in = path_in(dir, "m.onnx"), *fast = path_in(dir, "fast.onnx"), *plain = path_in(dir, "plain.onnx");
	wbuf b = big_model();
	spit(in, b.p, b.n);
	free(b.p);
	int n_plain = infer_write(in, plain, true);
	int n_fast = infer_write(in, fast, false);
	cr_log_info("threads started: plain %d, fast %d", n_plain, n_fast);
	cr_expect_eq(n_plain, 0, "the plain path started %d threads", n_plain);
	cr_expect_geq(n_fast, 4, "the fast path started only %d threads: the model does not reach its devices",
		      n_fast);
	size_t na, nb;
	uint8_t *a = slurp(fast, &na), *p = slurp(plain, &nb);
	cr_expect(na == nb && !memcmp(a, p, na), "the plain output (%zu bytes) differs from the fast one (%zu)", nb,
		  na);
	free(a), free(p);
	expect_listing(dir, "fast.onnx m.onnx plain.onnx", "both written");
	free(in), free(fast), free(plain);
	remove_dir(dir);
}

/* The switch's values: 1 plain, 0 fast, anything else the build's default. */
Test(plain_io, the_switch)
{
	setenv(PLAIN_IO_ENV, "1", 1);
	cr_expect(plain_io_chosen());
	setenv(PLAIN_IO_ENV, "0", 1);
	cr_expect_not(plain_io_chosen());
	setenv(PLAIN_IO_ENV, "yes", 1);
	bool dflt = plain_io_chosen();
	unsetenv(PLAIN_IO_ENV);
	cr_expect_eq(plain_io_chosen(), dflt);
	/* A model remembers the answer it was loaded with. */
	static const uint8_t tiny[] = {0x08, 0x07};
	for (int plain = 0; plain < 2; plain++) {
		setenv(PLAIN_IO_ENV, plain ? "1" : "0", 1);
		osh_model *m = NULL;
		cr_assert_eq(osh_model_load_buffer(&m, tiny, sizeof tiny, "tiny", NULL, NULL), OSH_OK);
		setenv(PLAIN_IO_ENV, plain ? "0" : "1", 1);
		cr_expect_eq(m->plain_io, plain);
		osh_model_free(m);
	}
	/* osh_load_options.io decides whatever the environment says; OSH_IO_DEFAULT
	 * leaves it to the environment. */
	const struct {
		osh_io io;
		const char *env;
		bool plain;
	} io[] = {{OSH_IO_PLAIN, "0", true}, {OSH_IO_FAST, "1", false}, {OSH_IO_DEFAULT, "1", true},
		  {OSH_IO_DEFAULT, "0", false}};
	char path[] = "/tmp/osh-plain-io-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, tiny, sizeof tiny), (ssize_t)sizeof tiny);
	close(fd);
	for (size_t i = 0; i < sizeof io / sizeof *io; i++) {
		setenv(PLAIN_IO_ENV, io[i].env, 1);
		osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .io = io[i].io};
		osh_model *m = NULL, *b = NULL;
		cr_assert_eq(osh_model_load(&m, path, &lo, NULL), OSH_OK);
		cr_assert_eq(osh_model_load_buffer(&b, tiny, sizeof tiny, "tiny", &lo, NULL), OSH_OK);
		cr_expect_eq(m->plain_io, io[i].plain, "io %d, environment %s: file", (int)io[i].io, io[i].env);
		cr_expect_eq(b->plain_io, io[i].plain, "io %d, environment %s: buffer", (int)io[i].io, io[i].env);
		osh_model_free(m);
		osh_model_free(b);
	}
	unlink(path);
	unsetenv(PLAIN_IO_ENV);
}
