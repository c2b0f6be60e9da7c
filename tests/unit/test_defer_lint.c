/* test_defer_lint.c: osh_infer_lint_later (api/devices.h). The lint left for later runs in
 * the write (beside the packing) or in osh_lint, and either way the model ends with
 * the diagnostics a plain osh_infer gives, in the same order and with their input
 * shapes; an error it finds keeps the write from committing anything; what it needs
 * of the caller's options is kept; severities cannot be overridden while it is
 * pending; all of this also for a model big enough for the lint to run on a thread
 * of its own. And `onnxshape infer`, which defers, prints what `check` prints. */
#define _GNU_SOURCE /* asprintf, mkdtemp, strdup: test_files.h */
#include <criterion/criterion.h>

#include "test_files.h"
#include "mb.h"
#include "api/devices.h"
#include "onnxshape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINT_DIR OSH_MODELS_DIR "/lint"

static osh_model *load(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", LINT_DIR, name);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

static osh_model *inferred(const char *name, const osh_infer_options *o)
{
	osh_model *m = load(name);
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, o, &err), OSH_OK, "%s: %s", name, err.message);
	return m;
}

/* The same, the lint left for later. */
static osh_model *inferred_later(const char *name, const osh_infer_options *o)
{
	osh_model *m = load(name);
	osh_error err = {0};
	cr_assert_eq(osh_infer_lint_later(m, o, &err), OSH_OK, "%s: %s", name, err.message);
	return m;
}

/* One line per diagnostic: everything a report shows of it, input shapes included. */
static char *diag_text(const osh_model *m)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	cr_assert(s);
	s[0] = '\0';
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		len += (size_t)snprintf(s + len, cap - len, "%d %s %lld %s |", (int)d->severity, d->code,
					(long long)d->node_index, d->message);
		for (size_t k = 0; k < d->n_inputs; k++) {
			const osh_type *t = &d->inputs[k].type;
			len += (size_t)snprintf(s + len, cap - len, " %s:%s/%d", d->inputs[k].name, t->kind, (int)t->rank);
			for (int32_t j = 0; j < t->rank; j++)
				len += (size_t)snprintf(s + len, cap - len, ",%lld%s", (long long)t->dims[j].value,
							t->dims[j].symbol ? t->dims[j].symbol : "");
		}
		len += (size_t)snprintf(s + len, cap - len, "\n");
		cr_assert(len < cap);
	}
	return s;
}

/* The fixtures that load without being malformed, and whether the lint adds to them. */
static const char *const fixtures[] = {
	"axis_broadcast_legacy.onnx", "axis_broadcast_paddle.onnx", "axis_broadcast_paddle_other_domain.onnx",
	"broadcast_mismatch.onnx",    "clean.onnx",                 "dynamic_shape.onnx",
	"legacy_broadcast_attr.onnx", "outer_broadcast.onnx",       "same_size_broadcast.onnx",
	"same_size_broadcast_symbolic.onnx", "shape_conflict.onnx", "symbol_constraint.onnx",
	"symbol_constraint_conflict.onnx", "symbol_constraint_must_be_one.onnx", "unknown_op.onnx",
};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

Test(defer_lint, osh_lint_gives_what_infer_gives)
{
	size_t added = 0;
	for (size_t i = 0; i < NFIXTURES; i++) {
		osh_model *plain = inferred(fixtures[i], NULL);
		osh_model *later = inferred_later(fixtures[i], NULL);
		size_t before = osh_model_diag_count(later);
		osh_error err = {0};
		cr_assert_eq(osh_lint(later, &err), OSH_OK, "%s", err.message);
		added += osh_model_diag_count(later) > before;
		char *want = diag_text(plain), *got = diag_text(later);
		cr_expect_str_eq(got, want, "%s", fixtures[i]);
		/* Nothing is pending any more: a second call adds nothing. */
		cr_assert_eq(osh_lint(later, &err), OSH_OK);
		cr_expect_eq(osh_model_diag_count(later), osh_model_diag_count(plain), "%s", fixtures[i]);
		free(want), free(got);
		osh_model_free(plain), osh_model_free(later);
	}
	/* The lint's own findings were left for later (not a test that passes because
	 * nothing was deferred). */
	cr_expect_geq(added, 8, "only %zu fixtures got diagnostics from the deferred lint", added);
}

/* The write runs it: the diagnostics after osh_model_write are the plain ones. */
Test(defer_lint, the_write_runs_it)
{
	char *dir = make_tmpdir_for("defer");
	char *out = path_in(dir, "out.onnx");
	for (size_t i = 0; i < NFIXTURES; i++) {
		osh_model *plain = inferred(fixtures[i], NULL);
		if (osh_model_has_errors(plain)) {
			osh_model_free(plain);
			continue;
		}
		osh_model *later = inferred_later(fixtures[i], NULL);
		osh_error err = {0};
		cr_assert_eq(osh_annotate(later, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_model_write(later, out, NULL, &err), OSH_OK, "%s: %s", fixtures[i], err.message);
		char *want = diag_text(plain), *got = diag_text(later);
		cr_expect_str_eq(got, want, "%s", fixtures[i]);
		free(want), free(got);
		/* The same bytes as written after a plain inference. */
		char *again = path_in(dir, "plain.onnx");
		cr_assert_eq(osh_annotate(plain, &err), OSH_OK);
		cr_assert_eq(osh_model_write(plain, again, NULL, &err), OSH_OK, "%s", err.message);
		size_t na, nb;
		uint8_t *a = slurp(out, &na), *b = slurp(again, &nb);
		cr_expect(na == nb && !memcmp(a, b, na), "%s: other bytes", fixtures[i]);
		free(a), free(b);
		remove(again), remove(out);
		free(again);
		osh_model_free(plain), osh_model_free(later);
	}
	expect_listing(dir, "", "written files removed");
	free(out);
	remove_dir(dir);
}

/* An error only the lint finds ('N' must be 1 or 8, and is 5): nothing is written,
 * neither the output nor a temporary file, whether the write was begun ahead
 * (write_to) or not. */
Test(defer_lint, an_error_it_finds_blocks_the_write)
{
	char *dir = make_tmpdir_for("defer");
	char *out = path_in(dir, "out.onnx");
	char in[512];
	snprintf(in, sizeof in, "%s/symbol_constraint_conflict.onnx", LINT_DIR);
	for (int via_job = 0; via_job < 2; via_job++) {
		osh_error err = {0};
		osh_model *m = NULL;
		osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = out};
		cr_assert_eq(osh_model_load(&m, in, via_job ? &lo : NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_infer_lint_later(m, NULL, &err), OSH_OK);
		cr_expect_not(osh_model_has_errors(m), "inference alone finds no error here");
		cr_assert_eq(osh_annotate(m, &err), OSH_OK);
		osh_status s = osh_model_write(m, out, NULL, &err);
		cr_expect_eq(s, OSH_ERR_FINDINGS, "job %d: %d %s", via_job, s, err.message);
		cr_expect(strstr(err.message, "the model has errors; nothing written"), "%s", err.message);
		cr_expect(osh_model_has_errors(m));
		expect_listing(dir, "", "nothing written");
		osh_model_free(m);
	}
	/* Without deferring, the library writes a model with errors when told to (the
	 * CLI does not ask): the refusal belongs to the deferred lint. */
	osh_model *m = inferred("symbol_constraint_conflict.onnx", NULL);
	osh_error err = {0};
	cr_expect(osh_model_has_errors(m));
	cr_expect_eq(osh_model_write(m, out, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	remove(out);
	free(out);
	remove_dir(dir);
}

/* The assumptions are the caller's memory, gone by the time the lint runs: a fact an
 * --assume settles stays unreported. */
Test(defer_lint, keeps_the_assumptions)
{
	char *sym = strdup("N"), *other = strdup("M");
	osh_assumption a[2] = {{sym, 8}, {other, 2}};
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_assumptions = 2, .assumptions = a};
	osh_model *plain = inferred("symbol_constraint.onnx", &o);
	osh_model *later = inferred_later("symbol_constraint.onnx", &o);
	memset(a, 0, sizeof a);
	sym[0] = 'X', other[0] = 'Y';
	free(sym), free(other);
	osh_error err = {0};
	cr_assert_eq(osh_lint(later, &err), OSH_OK, "%s", err.message);
	char *want = diag_text(plain), *got = diag_text(later);
	cr_expect_str_eq(got, want);
	/* And the assumption mattered: without it the fact is a note. */
	osh_model *bare = inferred("symbol_constraint.onnx", NULL);
	char *open = diag_text(bare);
	cr_expect_str_neq(open, want, "N=8 settles the fact: its note goes");
	free(want), free(got), free(open);
	osh_model_free(plain), osh_model_free(later), osh_model_free(bare);
}

Test(defer_lint, no_overrides_while_pending_and_pack_runs_it)
{
	osh_model *m = inferred_later("outer_broadcast.onnx", NULL);
	osh_error err = {0};
	osh_severity_override o = {.code = "outer-broadcast", .severity = OSH_ERROR};
	cr_expect_eq(osh_model_override_severities(m, &o, 1, &err), OSH_ERR_INVALID);
	cr_expect(strstr(err.message, "osh_lint"), "%s", err.message);
	size_t before = osh_model_diag_count(m);
	uint8_t *data = NULL;
	size_t size = 0;
	cr_assert_eq(osh_model_pack(m, &data, &size, &err), OSH_OK, "%s", err.message);
	free(data);
	cr_expect_eq(osh_model_diag_count(m), before + 1, "the outer-broadcast warning");
	cr_expect_eq(osh_model_override_severities(m, &o, 1, &err), OSH_OK, "%s", err.message);
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
}

/* ---- the CLI --------------------------------------------------------------------- */

/* Drops the lines that contain `what`. */
static void drop_lines(char *s, const char *what)
{
	char *w = s;
	for (char *line = s; *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
		char saved = line[len];
		line[len] = '\0';
		bool drop = strstr(line, what) != NULL;
		line[len] = saved;
		if (!drop)
			memmove(w, line, len), w += len;
		line += len;
	}
	*w = '\0';
}

/* `infer` defers its lint to the write: it prints the diagnostics `check` prints, and
 * writes the model exactly when check finds no error. */
Test(defer_lint, cli_infer_prints_what_check_prints)
{
	char *dir = make_tmpdir_for("defer_cli");
	char *out = path_in(dir, "out.onnx");
	for (size_t i = 0; i < NFIXTURES; i++) {
		char in[512];
		snprintf(in, sizeof in, "%s/%s", LINT_DIR, fixtures[i]);
		const char *check[] = {OSH_CLI, "check", "--runtime", "spec", "--color", "never", in, NULL};
		const char *infer[] = {OSH_CLI, "infer", "--color", "never", in, "-o", out, NULL};
		cli_result c = cli_run(dir, 0, check), f = cli_run(dir, 0, infer);
		cr_expect_eq(f.status, c.status, "%s: infer %d, check %d: %s", fixtures[i], f.status, c.status, f.err);
		drop_lines(c.out, " in 1 file (");
		drop_lines(f.err, "note: the model has errors; nothing written");
		cr_expect_str_eq(f.err, c.out, "%s", fixtures[i]);
		bool written = access(out, F_OK) == 0;
		cr_expect_eq(written, c.status == 0, "%s: written %d, check exit %d", fixtures[i], written, c.status);
		remove(out);
		cli_result_free(&c), cli_result_free(&f);
	}
	expect_listing(dir, "", "nothing left behind");
	free(out);
	remove_dir(dir);
}

/* A model of `nodes` nodes (a Relu chain, an outer product every 500 nodes: warnings
 * the lint finds) and, when `conflict`, the two nodes of symbol_constraint_conflict
 * at the end: an error only the lint finds. */
static void save_big(const char *path, int nodes, bool conflict)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "y", DT_FLOAT, "8,3");
	mb_input(b, "w", DT_FLOAT, "5,3");
	mb_input(b, "col", DT_FLOAT, "3,1");
	mb_input(b, "row", DT_FLOAT, "1,4");
	char in[32] = "x", out[32], outer[32];
	for (int i = 0; i < nodes; i++) {
		snprintf(out, sizeof out, "r%d", i);
		if (i % 500 == 499) {
			snprintf(outer, sizeof outer, "o%d", i);
			mb_node(b, "Mul", "col,row", outer);
			mb_output(b, outer, 0, NULL);
			continue;
		}
		mb_node(b, "Relu", in, out);
		snprintf(in, sizeof in, "%s", out);
	}
	mb_output(b, in, 0, NULL);
	if (conflict) {
		mb_node(b, "Add", "x,y", "s");
		mb_node(b, "PRelu", "x,w", "p");
		mb_output(b, "s", 0, NULL);
		mb_output(b, "p", 0, NULL);
	}
	mb_save(b, path);
}

/* With enough nodes the write runs the lint on a thread of its own: the same
 * diagnostics as a plain inference, in the same order, the same bytes written, and
 * an error it finds still blocks the write. */
Test(defer_lint, on_a_thread_for_a_big_model)
{
	char *dir = make_tmpdir_for("defer");
	char *in = path_in(dir, "big.onnx"), *out = path_in(dir, "out.onnx"), *again = path_in(dir, "plain.onnx");
	for (int conflict = 0; conflict < 2; conflict++) {
		save_big(in, 6000, conflict);
		osh_model *plain = NULL, *later = NULL;
		osh_error err = {0};
		cr_assert_eq(osh_model_load(&plain, in, NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_model_load(&later, in, NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_geq(osh_model_node_count(later), 4096, "too few nodes for the lint's thread");
		cr_assert_eq(osh_infer(plain, NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_infer_lint_later(later, NULL, &err), OSH_OK, "%s", err.message);
		cr_expect_lt(osh_model_diag_count(later), osh_model_diag_count(plain), "the lint's findings are pending");
		cr_assert_eq(osh_annotate(later, &err), OSH_OK, "%s", err.message);
		osh_status s = osh_model_write(later, out, NULL, &err);
		char *want = diag_text(plain), *got = diag_text(later);
		cr_expect_str_eq(got, want, "conflict %d", conflict);
		cr_expect(strstr(want, "outer-broadcast"), "the lint's warnings are there");
		if (conflict) {
			cr_expect_eq(s, OSH_ERR_FINDINGS, "%d %s", s, err.message);
			cr_expect(strstr(err.message, "the model has errors; nothing written"), "%s", err.message);
			cr_expect(strstr(want, "symbol-constraint"), "%s", want);
		} else {
			cr_expect_eq(s, OSH_OK, "%s", err.message);
			cr_assert_eq(osh_annotate(plain, &err), OSH_OK);
			cr_assert_eq(osh_model_write(plain, again, NULL, &err), OSH_OK, "%s", err.message);
			size_t na, nb;
			uint8_t *a = slurp(out, &na), *b = slurp(again, &nb);
			cr_expect(na == nb && !memcmp(a, b, na), "other bytes");
			free(a), free(b);
			remove(out), remove(again);
		}
		free(want), free(got);
		osh_model_free(plain), osh_model_free(later);
	}
	remove(in);
	expect_listing(dir, "", "nothing left");
	free(in), free(out), free(again);
	remove_dir(dir);
}
