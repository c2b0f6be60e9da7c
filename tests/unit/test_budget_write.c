/* test_budget_write.c: the work after the load refuses as the load does when the
 * memory budget runs out: OSH_ERR_LIMIT, a message naming the budget and how to
 * raise it (--memory-budget from the tool, osh_load_options.memory_budget from the
 * library), never a bare "out of memory" (which Python raises as
 * MemoryError).
 *
 *  - concat: `infer -o` of a Concat of 300k uses of one input of symbolic size (2.7
 *    MB: its result's size is a 300k-term sum) passes check but is over the default
 *    budget when the value_info is written: exit 2, the budget named, nothing
 *    written; with the budget raised it is written.
 *  - sweep: load, infer, annotate and pack a small model, and write it to a file,
 *    under budgets from too small to load up to enough, both ways (as built and
 *    ONNXSHAPE_PLAIN_IO=1): whatever stage a budget stops, it is OSH_ERR_LIMIT
 *    with the hint.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include "wbuf.h"

#define HINT "--memory-budget"
#define LIBRARY_HINT "(raise it with osh_load_options.memory_budget)"

static bool contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* A graph input `name`, FLOAT (sym). */
static void put_sym_input(wbuf *g, const char *name, const char *sym)
{
	wbuf vi = {0}, tp = {0}, tensor = {0}, shp = {0}, dm = {0};
	put_vfield(&tensor, 1, 1);
	put_str(&dm, 2, sym);
	put_msg(&shp, 1, &dm);
	put_msg(&tensor, 2, &shp);
	put_msg(&tp, 1, &tensor);
	put_str(&vi, 1, name);
	put_msg(&vi, 2, &tp);
	put_msg(g, 11, &vi);
}

static wbuf finish_model(wbuf *g)
{
	wbuf b = {0};
	put_model_header(&b, 13);
	put_msg(&b, 7, g);
	return b;
}

/* y = Concat(input_0 x n, axis 0), input_0 FLOAT (n). */
static wbuf concat_of(int n)
{
	wbuf g = {0}, nd = {0}, at = {0};
	for (int i = 0; i < n; i++)
		put_str(&nd, 1, "input_0");
	put_str(&nd, 2, "y");
	put_str(&nd, 4, "Concat");
	put_str(&at, 1, "axis");
	put_vfield(&at, 3, 0);
	put_vfield(&at, 20, 2); /* INT */
	put_msg(&nd, 5, &at);
	put_msg(&g, 1, &nd);
	put_str(&g, 2, "g");
	put_sym_input(&g, "input_0", "n");
	wbuf out = {0};
	put_str(&out, 1, "y");
	put_msg(&g, 12, &out);
	return finish_model(&g);
}

Test(budget_write, concat_over_the_default_budget_names_it, .timeout = 120)
{
	char *dir = make_tmpdir_for("budget");
	char *model = path_in(dir, "concat.onnx"), *out = path_in(dir, "out.onnx");
	wbuf b = concat_of(300000);
	spit(model, b.p, b.n);
	free(b.p);

	const char *check[] = {"onnxshape", "check", model, NULL};
	cli_result r = cli_run(dir, 0, check);
	cr_expect_eq(r.status, 0, "check: exit %d\n%s%s", r.status, r.out, r.err);
	cli_result_free(&r);

	const char *infer[] = {"onnxshape", "infer", model, "-o", out, NULL};
	r = cli_run(dir, 0, infer);
	cr_expect_eq(r.status, 2, "infer: exit %d\n%s%s", r.status, r.out, r.err);
	cr_expect(contains(r.err, "writing value_info needs more than the memory budget of"), "%s", r.err);
	cr_expect(contains(r.err, HINT), "%s", r.err);
	cr_expect_not(contains(r.err, "out of memory"), "%s", r.err);
	cr_expect_neq(access(out, F_OK), 0, "infer wrote %s", out);
	cli_result_free(&r);

	const char *raised[] = {"onnxshape", "infer", "--memory-budget", "2G", model, "-o", out, NULL};
	r = cli_run(dir, 0, raised);
	cr_expect_eq(r.status, 0, "infer --memory-budget 2G: exit %d\n%s%s", r.status, r.out, r.err);
	cr_expect_eq(access(out, F_OK), 0, "infer --memory-budget 2G wrote nothing");
	cli_result_free(&r);
	unlink(out);
	unlink(model);
	free(model), free(out);
	remove_dir(dir);
}

/* ---- sweep --------------------------------------------------------------------- */

/* A Relu chain of `n` nodes on x FLOAT (N): inference gives every value a type,
 * annotation writes n value_info entries. */
static wbuf chain(int n)
{
	wbuf g = {0};
	put_relu_chain(&g, n, true);
	put_str(&g, 2, "g");
	put_sym_input(&g, "t0", "N");
	char last[32];
	snprintf(last, sizeof last, "t%d", n);
	wbuf out = {0};
	put_str(&out, 1, last);
	put_msg(&g, 12, &out);
	return finish_model(&g);
}

/* A failure under a budget: the budget's refusal. */
static void expect_budget(osh_status s, const osh_error *err, const char *stage, uint64_t budget)
{
	cr_expect_eq(s, OSH_ERR_LIMIT, "budget %llu, %s: status %d: %s", (unsigned long long)budget, stage, (int)s,
		     err->message);
	cr_expect(contains(err->message, "memory budget") && contains(err->message, LIBRARY_HINT), "budget %llu, %s: %s",
		  (unsigned long long)budget, stage, err->message);
}

/* What stage a budget stopped: 0 load, 1 infer, 2 annotate, 3 pack, 4 the write to
 * a file, 5 none. */
static int run_under(const wbuf *b, uint64_t budget, const char *out)
{
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = budget};
	osh_model *m = NULL;
	osh_error err = {0};
	osh_status s = osh_model_load_buffer(&m, b->p, b->n, "chain.onnx", &lo, &err);
	if (s != OSH_OK) {
		expect_budget(s, &err, "load", budget);
		return 0;
	}
	int stage = 1;
	if ((s = osh_infer(m, NULL, &err)) == OSH_OK && ++stage && (s = osh_annotate(m, &err)) == OSH_OK && ++stage) {
		uint8_t *data = NULL;
		size_t size = 0;
		s = osh_model_pack(m, &data, &size, &err);
		free(data);
		if (s == OSH_OK && ++stage && (s = osh_model_write(m, out, NULL, &err)) == OSH_OK)
			stage++;
	}
	if (s != OSH_OK) {
		static const char *const names[] = {"load", "infer", "annotate", "pack", "write"};
		expect_budget(s, &err, names[stage], budget);
	}
	osh_model_free(m);
	unlink(out);
	return stage;
}

static void sweep(const char *plain)
{
	cr_assert_eq(setenv("ONNXSHAPE_PLAIN_IO", plain, 1), 0);
	char *dir = make_tmpdir_for("budget");
	char *out = path_in(dir, "out.onnx");
	wbuf b = chain(2000);
	/* From a budget the load refuses up: each step a little more than the last, so
	 * that every stage's allocations meet the end of the budget somewhere. */
	int stopped[6] = {0}, last = 0;
	for (uint64_t budget = 64 << 10; budget < ((uint64_t)64 << 20); budget += budget / 64 + 1) {
		last = run_under(&b, budget, out);
		stopped[last]++;
		if (last == 5)
			break;
	}
	cr_expect_eq(last, 5, "ONNXSHAPE_PLAIN_IO=%s: no budget under 64 MB was enough", plain);
	cr_expect_gt(stopped[0], 0, "ONNXSHAPE_PLAIN_IO=%s: no budget was too small to load", plain);
	cr_expect_gt(stopped[1] + stopped[2] + stopped[3] + stopped[4], 0,
		     "ONNXSHAPE_PLAIN_IO=%s: no budget stopped the work after the load", plain);
	free(b.p);
	free(out);
	remove_dir(dir);
}

Test(budget_write, every_stage_refuses_with_the_budget, .timeout = 120) { sweep("0"); }

Test(budget_write, every_stage_refuses_with_the_budget_plain, .timeout = 120) { sweep("1"); }
