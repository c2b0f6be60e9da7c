/* test_write_ahead.c: osh_load_options.write_to.
 *
 * While a model is loaded and inferred, a thread copies its graph's nodes and
 * initializers to where they will most likely be in the output (emit/write_ahead.c).
 * The promise: the file written by osh_model_write to that path is byte for byte the
 * one it writes without, whether the guess of where they go was right (the copy is
 * used: write_model says how much of it) or wrong (a node whose subgraph inference
 * annotates moves them: the bytes produced overwrite the copy). A model freed
 * without the write leaves nothing, and so does a load that failed once the copy had
 * started; the write refuses what it refuses without, leaving nothing; a source
 * changed after the load is refused at the write, the destination untouched.
 *
 * A rewrite between the load and the write: an edit that moves the weights (the
 * fold drops a node before them) has them copied again to their new place while
 * the edited model is indexed and inferred, and the write uses that copy; one that
 * moves nothing (a model with nothing to rewrite, written back as it came) uses the
 * copy made while loading; freed without the write, the model leaves nothing.
 *
 * The device is the fast path's: these tests choose it whatever the environment
 * says, but for the last one, which checks that the plain path ignores the option.
 */
#define _GNU_SOURCE
#include "core/tuning.h"
#include "emit/write_ahead.h"
#include "emit/write_model.h"
#include "mb.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WEIGHTS = 300, FLOATS = 4096 }; /* 16 KB each: 4.9 MB of initializers */

/* Before any test: the fast path, even in the suite's plain run. */
__attribute__((constructor)) static void fast_path(void) { setenv(PLAIN_IO_ENV, "0", 1); }

/* A chain of Add nodes, each adding its own weight (values that differ per weight,
 * so a copy in the wrong place shows), after a node `head` of x (Relu, or Identity,
 * which the fold drops) or an If node whose branches inference annotates;
 * `weights` of them. Saved as dir/model.onnx; returns its path. */
static char *save_chain_headed(const char *dir, bool with_if, const char *head, int weights)
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
		mb_node(b, head, "x", "x0");
	}
	char in[32], w[32], out[32];
	for (int i = 0; i < weights; i++) {
		for (int j = 0; j < FLOATS; j++)
			vals[j] = (float)(i * FLOATS + j);
		snprintf(w, sizeof w, "w%d", i);
		mb_init_floats(b, w, "4096", vals);
		snprintf(in, sizeof in, "x%d,w%d", i, i);
		snprintf(out, sizeof out, "x%d", i + 1);
		mb_node(b, "Add", in, out);
	}
	snprintf(out, sizeof out, "x%d", weights);
	mb_output(b, out, 0, NULL);
	char *path = path_in(dir, "model.onnx");
	mb_save(b, path);
	return path;
}

static char *save_chain_of(const char *dir, bool with_if, int weights)
{
	return save_chain_headed(dir, with_if, "Relu", weights);
}

static char *save_chain(const char *dir, bool with_if) { return save_chain_of(dir, with_if, WEIGHTS); }

static osh_model *load(const char *path)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

/* Loads path for a write to dest, begun ahead. */
static osh_model *load_for(const char *path, const char *dest)
{
	osh_model *m = NULL;
	osh_error err = {0};
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = dest};
	cr_assert_eq(osh_model_load(&m, path, &lo, &err), OSH_OK, "%s", err.message);
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

/* model -> dest, begun ahead; returns the bytes the copy ahead saved. *guess, when
 * not NULL: where the job guessed the nodes go (UINT64_MAX: it copied nothing). */
static uint64_t write_ahead(const char *model, const char *dest, uint64_t *guess)
{
	osh_error err = {0};
	osh_model *m = load_for(model, dest);
	if (guess)
		*guess = write_ahead_guess(m);
	infer_annotate(m);
	uint64_t skipped = 0;
	cr_assert_eq(write_model(m, dest, NULL, &skipped, &err), OSH_OK, "%s", err.message);
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

/* The chain written by osh_model_write without and with a write begun ahead: the same bytes, and
 * nothing else left in the directory. Returns what the copy ahead saved. */
static uint64_t ahead_vs_plain(bool with_if, int weights, uint64_t *guess)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain_of(dir, with_if, weights);
	char *ref = path_in(dir, "ref.onnx"), *got = path_in(dir, "got.onnx");
	write_plain(model, ref);
	uint64_t skipped = write_ahead(model, got, guess);
	cr_expect(same_file(ref, got), "with_if=%d: the output differs from osh_model_write's", with_if);
	/* The blocks allocated ahead for the output are given back past its end. */
	struct stat st;
	cr_assert_eq(stat(got, &st), 0);
	cr_expect_leq((uint64_t)st.st_blocks * 512, ((uint64_t)st.st_size + 4095) / 4096 * 4096 + 4096,
		      "with_if=%d: %llu bytes allocated for a file of %llu", with_if,
		      (unsigned long long)st.st_blocks * 512, (unsigned long long)st.st_size);
	expect_listing(dir, "got.onnx model.onnx ref.onnx", with_if ? "wrong guess" : "right guess");
	free(model), free(ref), free(got);
	remove_dir(dir);
	return skipped;
}

Test(write_ahead, right_guess_uses_the_copy)
{
	/* Each weight: 16,384 bytes of data, its dims, data type and name, key, length. */
	uint64_t guess;
	uint64_t skipped = ahead_vs_plain(false, WEIGHTS, &guess);
	cr_expect_neq(guess, UINT64_MAX, "4.9 MB of weights, yet nothing was copied ahead");
	cr_expect_geq(skipped, (uint64_t)WEIGHTS * FLOATS * 4, "only %llu bytes came from the copy ahead",
		      (unsigned long long)skipped);
}

/* model -> dest as `onnxshape rewrite` does it: loaded (for a write to dest begun
 * ahead, when `ahead`), inferred, rewritten with ro, written. Returns the bytes the
 * copy ahead saved; *moved, when ahead: whether the rewrite had the stretch copied
 * to another place (write_ahead_guess before and after it). */
static uint64_t rewrite_to(const char *model, const char *dest, bool ahead, const osh_rewrite_options *ro,
			   bool *moved)
{
	osh_error err = {0};
	osh_model *m = ahead ? load_for(model, dest) : load(model);
	uint64_t before = write_ahead_guess(m);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_rewrite_report rep;
	cr_assert_eq(osh_rewrite(m, ro, &rep, &err), OSH_OK, "%s", err.message);
	cr_assert(!osh_model_has_errors(m));
	if (moved)
		*moved = write_ahead_guess(m) != before;
	if (ahead)
		cr_assert_neq(write_ahead_guess(m), UINT64_MAX, "nothing is copied ahead after the rewrite");
	uint64_t skipped = 0;
	cr_assert_eq(write_model(m, dest, NULL, &skipped, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	return skipped;
}

Test(write_ahead, a_fold_that_moves_the_weights_copies_them_again)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain_headed(dir, false, "Identity", WEIGHTS);
	char *ref = path_in(dir, "ref.onnx"), *got = path_in(dir, "got.onnx");
	osh_rewrite_options ro = {.version = OSH_REWRITE_OPTIONS_VERSION, .fold_shapes = true};
	rewrite_to(model, ref, false, &ro, NULL);
	bool moved;
	uint64_t skipped = rewrite_to(model, got, true, &ro, &moved);
	cr_expect(moved, "the fold dropped the Identity before the weights, yet they are copied where they were");
	cr_expect_geq(skipped, (uint64_t)WEIGHTS * FLOATS * 4, "only %llu bytes came from the copy ahead",
		      (unsigned long long)skipped);
	cr_expect(same_file(ref, got), "the output differs from the rewrite's without the write begun ahead");
	expect_listing(dir, "got.onnx model.onnx ref.onnx", "folded");
	free(model), free(ref), free(got);
	remove_dir(dir);
}

Test(write_ahead, a_rewrite_with_nothing_to_do_uses_the_first_copy)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain(dir, false), *got = path_in(dir, "got.onnx");
	osh_rewrite_options ro = {.version = OSH_REWRITE_OPTIONS_VERSION};
	bool moved;
	uint64_t skipped = rewrite_to(model, got, true, &ro, &moved);
	cr_expect(!moved);
	cr_expect_geq(skipped, (uint64_t)WEIGHTS * FLOATS * 4, "only %llu bytes came from the copy ahead",
		      (unsigned long long)skipped);
	cr_expect(same_file(model, got), "a model with nothing to rewrite is written back as it came");
	free(model), free(got);
	remove_dir(dir);
}

Test(write_ahead, a_fold_freed_without_the_write_leaves_nothing)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain_headed(dir, false, "Identity", WEIGHTS), *dest = path_in(dir, "out.onnx");
	osh_model *m = load_for(model, dest);
	uint64_t before = write_ahead_guess(m);
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_rewrite_options ro = {.version = OSH_REWRITE_OPTIONS_VERSION, .fold_shapes = true};
	osh_rewrite_report rep;
	cr_assert_eq(osh_rewrite(m, &ro, &rep, &err), OSH_OK, "%s", err.message);
	cr_expect_neq(write_ahead_guess(m), before, "the copy was not begun again");
	osh_model_free(m);
	expect_listing(dir, "model.onnx", "folded, freed without the write");
	free(model), free(dest);
	remove_dir(dir);
}

Test(write_ahead, wrong_guess_is_overwritten)
{
	uint64_t guess;
	uint64_t skipped = ahead_vs_plain(true, WEIGHTS, &guess);
	cr_expect_neq(guess, UINT64_MAX);
	cr_expect_eq(skipped, 0, "the nodes moved (the If node grew), yet %llu bytes were kept",
		     (unsigned long long)skipped);
}

static uint64_t varint_at(const uint8_t *b, size_t *pos)
{
	uint64_t v = 0;
	for (int sh = 0;; sh += 7) {
		uint8_t c = b[(*pos)++];
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return v;
	}
}

/* The model's top-level fields reordered: every field but the graph first, then the
 * graph (some writers put opset_import, field 8, before it). */
static void graph_last(const char *path)
{
	size_t n;
	uint8_t *b = slurp(path, &n), *out = malloc(n);
	cr_assert(out);
	size_t w = 0, graph_at = 0, graph_len = 0;
	for (size_t pos = 0; pos < n;) {
		size_t start = pos;
		uint64_t key = varint_at(b, &pos);
		if ((key & 7) == 0)
			varint_at(b, &pos);
		else if ((key & 7) == 2)
			pos += varint_at(b, &pos);
		else
			cr_assert_fail("unexpected wire type %d at the top level", (int)(key & 7));
		if (key >> 3 == 7)
			graph_at = start, graph_len = pos - start;
		else
			memcpy(out + w, b + start, pos - start), w += pos - start;
	}
	cr_assert(graph_len, "no graph");
	memcpy(out + w, b + graph_at, graph_len), w += graph_len;
	cr_assert_eq(w, n);
	spit(path, out, n);
	free(b), free(out);
}

Test(write_ahead, fields_before_the_graph_are_placed_as_packed)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain(dir, false);
	graph_last(model);
	char *ref = path_in(dir, "ref.onnx"), *got = path_in(dir, "got.onnx");
	write_plain(model, ref);
	uint64_t guess;
	uint64_t skipped = write_ahead(model, got, &guess);
	cr_expect(same_file(ref, got), "the output differs from osh_model_write's");
	cr_expect_neq(guess, UINT64_MAX);
	cr_expect_geq(skipped, (uint64_t)WEIGHTS * FLOATS * 4, "only %llu bytes came from the copy ahead",
		      (unsigned long long)skipped);
	free(model), free(ref), free(got);
	remove_dir(dir);
}

Test(write_ahead, a_megabyte_is_copied_ahead)
{
	/* 70 weights: 1.15 MB with the nodes, over the 1 MB the thread is started for. */
	uint64_t guess;
	uint64_t skipped = ahead_vs_plain(false, 70, &guess);
	cr_expect_neq(guess, UINT64_MAX, "1.15 MB of nodes and weights, yet nothing was copied ahead");
	cr_expect_geq(skipped, (uint64_t)70 * FLOATS * 4, "only %llu bytes came from the copy ahead",
		      (unsigned long long)skipped);
}

Test(write_ahead, small_weights_are_not_copied_ahead)
{
	/* 50 weights: 820 KB with the nodes, under the 1 MB the thread is started for. */
	uint64_t guess;
	uint64_t skipped = ahead_vs_plain(false, 50, &guess);
	cr_expect_eq(guess, UINT64_MAX);
	cr_expect_eq(skipped, 0);
}

/* A fresh copy of the chain loaded for a write to dir/out.onnx, begun ahead. */
typedef struct started {
	char *dir, *model, *dest;
	osh_model *m;
} started;

static started start(void)
{
	started s = {.dir = make_tmpdir_for("write_ahead")};
	s.model = save_chain(s.dir, false);
	s.dest = path_in(s.dir, "out.onnx");
	s.m = load_for(s.model, s.dest);
	cr_assert_neq(write_ahead_guess(s.m), UINT64_MAX, "nothing is being copied ahead");
	return s;
}

/* After the model is freed: only `want` is in the directory. */
static void end(started *s, const char *want, const char *ctx)
{
	osh_model_free(s->m);
	expect_listing(s->dir, want, ctx);
	free(s->model), free(s->dest);
	remove_dir(s->dir);
}

Test(write_ahead, a_model_freed_without_the_write_leaves_nothing)
{
	started s = start();
	cr_expect_eq(access(s.dest, F_OK), -1, "the destination exists before the write");
	end(&s, "model.onnx", "freed without the write");
}

/* A write to another path leaves the one begun ahead alone (the free removes it),
 * and writes what it writes without. */
Test(write_ahead, a_write_elsewhere_is_a_write_of_its_own)
{
	started s = start();
	infer_annotate(s.m);
	char *other = path_in(s.dir, "other.onnx"), *ref = path_in(s.dir, "ref.onnx");
	uint64_t skipped = 1;
	osh_error err = {0};
	cr_assert_eq(write_model(s.m, other, NULL, &skipped, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(skipped, 0);
	cr_expect_neq(write_ahead_guess(s.m), UINT64_MAX, "the write to another path took the job");
	write_plain(s.model, ref);
	cr_expect(same_file(ref, other), "the output differs from osh_model_write's");
	free(other), free(ref);
	end(&s, "model.onnx other.onnx ref.onnx", "written elsewhere");
}

Test(write_ahead, a_load_that_fails_after_the_layout_leaves_nothing)
{
	/* The first node's op_type holds a NUL byte: the outline frames the node (its
	 * content is read later, by the pre-scan of the elements), so the layout is
	 * reported and the copy starts before the load fails. */
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain(dir, false);
	size_t n;
	uint8_t *bytes = slurp(model, &n);
	uint8_t *relu = memmem(bytes, n, "Relu", 4);
	cr_assert(relu);
	*relu = 0;
	spit(model, bytes, n);
	free(bytes);
	char *dest = path_in(dir, "out.onnx");
	osh_error err = {0};
	osh_model *m = NULL;
	/* The job, as osh_model_load makes it, to see that the copy had started. */
	write_job *job = write_ahead_new(dest);
	cr_assert(job);
	load_how how = {.on_layout = write_ahead_layout, .layout_ctx = job};
	cr_expect_eq(loader_load_file(&m, model, NULL, &how, &err), OSH_ERR_DECODE);
	cr_expect(strstr(err.message, "NUL"), "%s", err.message);
	cr_expect(access(dest, F_OK) != 0);
	DIR *d = opendir(dir);
	cr_assert(d);
	int temps = 0;
	for (struct dirent *e; (e = readdir(d));)
		temps += strstr(e->d_name, ".osh-") != NULL;
	closedir(d);
	cr_expect_eq(temps, 1, "the copy did not start: the test tests nothing");
	write_ahead_cancel(job);
	expect_listing(dir, "model.onnx", "failed load");
	/* And the public way: the failed load removes what it began. */
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = dest};
	cr_expect_eq(osh_model_load(&m, model, &lo, &err), OSH_ERR_DECODE);
	expect_listing(dir, "model.onnx", "failed load, public");
	free(model), free(dest);
	remove_dir(dir);
}

Test(write_ahead, finish_refuses_what_write_refuses)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain(dir, false);
	char *missing = path_in(dir, "no/such/dir/out.onnx");
	struct {
		const char *dest;
		osh_status want;
		const char *says;
	} cases[] = {{model, OSH_ERR_SAME_FILE, "is the input model"}, {missing, OSH_ERR_IO, "cannot create a temporary file"}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		osh_error err = {0};
		osh_model *m = load_for(model, cases[i].dest);
		infer_annotate(m);
		cr_expect_eq(osh_model_write(m, cases[i].dest, NULL, &err), cases[i].want, "case %zu: %s", i, err.message);
		cr_expect(strstr(err.message, cases[i].says), "case %zu: %s", i, err.message);
		osh_model_free(m);
		expect_listing(dir, "model.onnx", "refused");
	}
	free(model), free(missing);
	remove_dir(dir);
}

Test(write_ahead, source_changed_after_load)
{
	started s = start();
	infer_annotate(s.m);
	FILE *f = fopen(s.model, "ab"); /* another program appends to the model meanwhile */
	cr_assert(f);
	fputs("appended", f);
	fclose(f);
	osh_error err = {0};
	cr_expect_eq(osh_model_write(s.m, s.dest, NULL, &err), OSH_ERR_CHANGED);
	cr_expect(strstr(err.message, "changed on disk"), "%s", err.message);
	end(&s, "model.onnx", "source changed");
}

/* In place, the input is written over from the copy begun ahead. */
Test(write_ahead, in_place)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain(dir, false), *ref = path_in(dir, "ref.onnx");
	write_plain(model, ref);
	osh_model *m = load_for(model, model);
	cr_assert_neq(write_ahead_guess(m), UINT64_MAX, "nothing is being copied ahead");
	infer_annotate(m);
	uint64_t skipped = 0;
	osh_error err = {0};
	cr_assert_eq(write_model(m, model, &(osh_write_options){.version = OSH_WRITE_OPTIONS_VERSION, .in_place = true, .durable = true}, &skipped, &err),
		     OSH_OK, "%s", err.message);
	cr_expect_geq(skipped, (uint64_t)WEIGHTS * FLOATS * 4);
	osh_model_free(m);
	cr_expect(same_file(ref, model), "the output differs from osh_model_write's");
	expect_listing(dir, "model.onnx ref.onnx", "in place");
	free(model), free(ref);
	remove_dir(dir);
}

/* The plain path begins nothing ahead: the same bytes, no temporary file. */
Test(write_ahead, the_plain_path_ignores_it)
{
	char *dir = make_tmpdir_for("write_ahead");
	char *model = save_chain(dir, false);
	char *ref = path_in(dir, "ref.onnx"), *got = path_in(dir, "got.onnx");
	write_plain(model, ref);
	setenv(PLAIN_IO_ENV, "1", 1);
	osh_model *m = load_for(model, got);
	cr_expect_eq(write_ahead_guess(m), UINT64_MAX);
	expect_listing(dir, "model.onnx ref.onnx", "plain load");
	infer_annotate(m);
	osh_error err = {0};
	cr_assert_eq(osh_model_write(m, got, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	setenv(PLAIN_IO_ENV, "0", 1);
	cr_expect(same_file(ref, got), "the plain output differs from the fast one");
	expect_listing(dir, "got.onnx model.onnx ref.onnx", "plain write");
	free(model), free(ref), free(got);
	remove_dir(dir);
}
