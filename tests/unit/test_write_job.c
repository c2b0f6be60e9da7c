/* test_write_job.c: osh_write_start / osh_write_finish / osh_write_cancel.
 *
 * While infer runs, a thread copies a model's initializers to where they will be in
 * the output (emit/write_model.c, "Writing ahead"). The promise: the file written is
 * byte for byte the one osh_model_write writes, whether the guess of where the
 * initializers go was right (the copy is used: write_job_finish says how much of it)
 * or wrong (a node whose subgraph inference annotates moves them: the bytes produced
 * overwrite the copy). Cancelling leaves nothing; the start refuses what
 * osh_model_write refuses, creating nothing; a source changed after the start is
 * refused at the finish, the destination untouched.
 */
#define _GNU_SOURCE
#include "emit/write_job.h"
#include "mb.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WEIGHTS = 300, FLOATS = 4096 }; /* 16 KB each: 4.9 MB of initializers */

/* A chain of Add nodes, each adding its own weight (values that differ per weight,
 * so a copy in the wrong place shows), optionally with an If node whose branches
 * inference annotates. Saved as dir/model.onnx; returns its path. */
static char *save_chain(const char *dir, bool with_if)
{
	static float vals[FLOATS];
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,4096");
	if (with_if) {
		mb_input(b, "cond", DT_BOOL, "");
		mb_node(b, "If", "cond", "x0");
		mb *t = mb_new(13), *e = mb_new(13);
		mb_node(t, "Neg", "x", "t1");
		mb_output(t, "t1", 0, NULL);
		mb_node(e, "Abs", "x", "e1");
		mb_output(e, "e1", 0, NULL);
		mb_attr_graph(b, "then_branch", t);
		mb_attr_graph(b, "else_branch", e);
	} else {
		mb_node(b, "Relu", "x", "x0");
	}
	char in[32], w[32], out[32];
	for (int i = 0; i < WEIGHTS; i++) {
		for (int j = 0; j < FLOATS; j++)
			vals[j] = (float)(i * FLOATS + j);
		snprintf(w, sizeof w, "w%d", i);
		mb_init_floats(b, w, "4096", vals);
		snprintf(in, sizeof in, "x%d,w%d", i, i);
		snprintf(out, sizeof out, "x%d", i + 1);
		mb_node(b, "Add", in, out);
	}
	snprintf(out, sizeof out, "x%d", WEIGHTS);
	mb_output(b, out, 0, NULL);
	char *path = path_in(dir, "model.onnx");
	mb_save(b, path);
	return path;
}

static osh_model *load(const char *path)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

static void infer_annotate(osh_model *m)
{
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert(!osh_model_has_errors(m));
	cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
}

/* model -> dir/NAME by osh_model_write (the reference). */
static void write_plain(const char *model, const char *dest)
{
	osh_model *m = load(model);
	infer_annotate(m);
	osh_error err = {0};
	cr_assert_eq(osh_model_write(m, dest, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
}

/* model -> dest through a job; returns the bytes the copy ahead saved. */
static uint64_t write_ahead(const char *model, const char *dest)
{
	osh_model *m = load(model);
	osh_write_job *job = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_write_start(m, dest, NULL, &job, &err), OSH_OK, "%s", err.message);
	infer_annotate(m);
	uint64_t skipped = 0;
	cr_assert_eq(write_job_finish(job, &skipped, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	return skipped;
}

static bool same_file(const char *a, const char *b)
{
	size_t na, nb;
	uint8_t *pa = slurp(a, &na), *pb = slurp(b, &nb);
	bool same = pa && pb && na == nb && !memcmp(pa, pb, na);
	free(pa), free(pb);
	return same;
}

/* The chain written by osh_model_write and through a job: the same bytes, and
 * nothing else left in the directory. Returns what the copy ahead saved. */
static uint64_t ahead_vs_plain(bool with_if)
{
	char *dir = make_tmpdir_for("write_job");
	char *model = save_chain(dir, with_if);
	char *ref = path_in(dir, "ref.onnx"), *got = path_in(dir, "got.onnx");
	write_plain(model, ref);
	uint64_t skipped = write_ahead(model, got);
	cr_expect(same_file(ref, got), "with_if=%d: the output differs from osh_model_write's", with_if);
	expect_listing(dir, "got.onnx model.onnx ref.onnx", with_if ? "wrong guess" : "right guess");
	free(model), free(ref), free(got);
	remove_dir(dir);
	return skipped;
}

Test(write_job, right_guess_uses_the_copy)
{
	/* Each weight: 16,384 bytes of data, its dims, data type and name, key, length. */
	uint64_t skipped = ahead_vs_plain(false);
	cr_expect_geq(skipped, (uint64_t)WEIGHTS * FLOATS * 4, "only %llu bytes came from the copy ahead",
		      (unsigned long long)skipped);
}

Test(write_job, wrong_guess_is_overwritten)
{
	uint64_t skipped = ahead_vs_plain(true);
	cr_expect_eq(skipped, 0, "the initializers moved (the If node grew), yet %llu bytes were kept",
		     (unsigned long long)skipped);
}

/* A job started on a fresh copy of the chain, to dir/out.onnx. */
typedef struct started {
	char *dir, *model, *dest;
	osh_model *m;
	osh_write_job *job;
} started;

static started start(void)
{
	started s = {.dir = make_tmpdir_for("write_job")};
	s.model = save_chain(s.dir, false);
	s.dest = path_in(s.dir, "out.onnx");
	s.m = load(s.model);
	osh_error err = {0};
	cr_assert_eq(osh_write_start(s.m, s.dest, NULL, &s.job, &err), OSH_OK, "%s", err.message);
	return s;
}

/* After the job ended: only `want` is in the directory. */
static void end(started *s, const char *want, const char *ctx)
{
	osh_model_free(s->m);
	expect_listing(s->dir, want, ctx);
	free(s->model), free(s->dest);
	remove_dir(s->dir);
}

Test(write_job, cancel_leaves_nothing)
{
	started s = start();
	cr_expect_eq(access(s.dest, F_OK), -1, "the destination exists before the finish");
	osh_write_cancel(s.job);
	osh_write_cancel(NULL); /* as free(NULL) */
	end(&s, "model.onnx", "cancelled");
}

Test(write_job, start_refuses_what_write_refuses)
{
	char *dir = make_tmpdir_for("write_job");
	char *model = save_chain(dir, false);
	osh_model *m = load(model);
	osh_write_job *job = (osh_write_job *)&job; /* must come back NULL */
	osh_error err = {0};
	cr_expect_eq(osh_write_start(m, model, NULL, &job, &err), OSH_ERR_SAME_FILE);
	cr_expect_null(job);
	char *missing = path_in(dir, "no/such/dir/out.onnx");
	cr_expect_eq(osh_write_start(m, missing, NULL, &job, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "cannot create a temporary file"), "%s", err.message);
	cr_expect_null(job);
	osh_model_free(m);
	expect_listing(dir, "model.onnx", "refused");
	free(model), free(missing);
	remove_dir(dir);
}

Test(write_job, source_changed_after_start)
{
	started s = start();
	infer_annotate(s.m);
	FILE *f = fopen(s.model, "ab"); /* another program appends to the model meanwhile */
	cr_assert(f);
	fputs("appended", f);
	fclose(f);
	osh_error err = {0};
	cr_expect_eq(osh_write_finish(s.job, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "changed on disk"), "%s", err.message);
	end(&s, "model.onnx", "source changed");
}
