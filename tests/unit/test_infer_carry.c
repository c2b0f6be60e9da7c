/* test_infer_carry.c: the inference after an edit takes the types of the nodes the
 * edit left as they were from the inference before it (passes/infer/infer.c,
 * carried). What it takes must be what inferring them again finds: for every model
 * of tests/models, and for the real networks when they are unpacked (ctest
 * pipeline/carry-real), rewritten with --fold-shapes, --target-opset 13 and 21, the
 * type of every main-graph value after osh_rewrite is the one a second, complete
 * osh_infer of the same IR gives it, and that inference says nothing the rewrite's
 * did not (a node taken over whose inference would have warned). Made-up sizes
 * (unk__3): see check_rewrite.
 */
#define _GNU_SOURCE /* asprintf in test_files.h */
#include <criterion/criterion.h>
#include "test_files.h"

#include "core/model.h"
#include "core/tuning.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
	size_t models, rewritten, nodes, carried;
} tally;

/* Value v's type as osh_graph_value_at shows it, one line (malloc'd). */
static char *type_line(osh_model *m, size_t v)
{
	osh_value_info vi;
	cr_assert(osh_graph_value_at(m, 0, v, &vi));
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	cr_assert(f);
	fprintf(f, "%s: %s %d rank %d", vi.name, vi.type.kind, vi.type.elem_type, vi.type.rank);
	for (int32_t k = 0; k < vi.type.rank; k++) {
		const osh_dim *d = &vi.type.dims[k];
		if (d->kind == OSH_DIM_VALUE)
			fprintf(f, " %lld", (long long)d->value);
		else if (d->kind == OSH_DIM_SYMBOL)
			fprintf(f, " %s", d->symbol);
		else
			fprintf(f, " ?");
	}
	fclose(f);
	return s;
}

/* The names onnxshape made up, in the order a text first shows them: each inference
 * makes its own (unk__3 in one is unk__7 in the next), so two texts are compared with
 * each such name written as its rank in this order. */
typedef struct renames {
	char **names;
	size_t n;
	bool any; /* the last text canon read named one */
} renames;

static bool made_up_name(osh_model *m, const char *name)
{
	int32_t id = strmap_get(&m->syms.names, name);
	return id >= 0 && m->syms.v[id].fresh;
}

/* s with every made-up name written #k (malloc'd); s is freed. */
static char *canon(osh_model *m, renames *r, char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	cr_assert(f);
	r->any = false;
	for (const char *p = s; *p;) {
		if (!(isalpha((unsigned char)*p) || *p == '_')) {
			fputc(*p++, f);
			continue;
		}
		const char *q = p;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '.')
			q++;
		char *name = strndup(p, (size_t)(q - p));
		cr_assert(name);
		if (made_up_name(m, name)) {
			size_t k = 0;
			while (k < r->n && strcmp(r->names[k], name))
				k++;
			if (k == r->n) {
				r->names = realloc(r->names, (r->n + 1) * sizeof *r->names);
				cr_assert(r->names);
				r->names[r->n++] = strdup(name);
			}
			fprintf(f, "#%zu", k);
			r->any = true;
		} else {
			fputs(name, f);
		}
		free(name);
		p = q;
	}
	fclose(f);
	free(s);
	return out;
}

static void renames_free(renames *r)
{
	for (size_t k = 0; k < r->n; k++)
		free(r->names[k]);
	free(r->names);
	*r = (renames){0};
}

/* Whether one of diagnostics [0, upto) reads as message, each with its own names;
 * true of a message that names a made-up size (see check_rewrite). */
static bool said(osh_model *m, size_t upto, const char *message)
{
	renames r = {0};
	char *want = canon(m, &r, strdup(message));
	bool found = r.any;
	renames_free(&r);
	for (size_t i = 0; i < upto && !found; i++) {
		char *got = canon(m, &r, strdup(osh_model_diag_at(m, i)->message));
		renames_free(&r);
		found = !strcmp(got, want);
		free(got);
	}
	free(want);
	return found;
}

/* A size made up by one inference is made again by the next under another name,
 * and an expression over such names can come out unknown there (dimexpr.h's limit
 * on an expression's text, which a longer name passes): a value whose type names one
 * is left out of the comparison. No node whose output names one is taken over
 * (infer.c, made_up), so every value taken over is compared. */
static void check_rewrite(const char *path, const osh_rewrite_options *ro, const char *how, tally *t)
{
	osh_model *m = NULL;
	osh_error err = {0};
	if (osh_model_load(&m, path, NULL, &err) != OSH_OK)
		return;
	osh_rewrite_report rep;
	if (osh_infer(m, NULL, &err) != OSH_OK || osh_model_has_errors(m) || osh_rewrite(m, ro, &rep, &err) != OSH_OK ||
	    rep.n_errors || !m->main || !m->main->before_node) {
		osh_model_free(m);
		return;
	}
	t->rewritten++;
	t->nodes += (size_t)m->main->nnodes;
	t->carried += m->carried;
	size_t nv = osh_graph_value_count(m, 0), nd = osh_model_diag_count(m);
	char **before = calloc(nv ? nv : 1, sizeof *before);
	cr_assert(before);
	renames r = {0};
	bool *made = calloc(nv ? nv : 1, sizeof *made);
	cr_assert(made);
	for (size_t v = 0; v < nv; v++) {
		before[v] = canon(m, &r, type_line(m, v));
		made[v] = r.any;
	}
	renames_free(&r);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s %s: %s", path, how, err.message);
	cr_assert_eq(m->carried, 0, "%s %s: the second inference took nodes over", path, how);
	for (size_t v = 0; v < nv; v++) {
		char *again = canon(m, &r, type_line(m, v));
		if (!made[v])
			cr_expect_str_eq(before[v], again, "%s %s: %s, inferred again %s", path, how, before[v], again);
		free(again);
		free(before[v]);
	}
	renames_free(&r);
	free(before);
	free(made);
	for (size_t i = nd; i < osh_model_diag_count(m); i++)
		cr_expect(said(m, nd, osh_model_diag_at(m, i)->message), "%s %s: inferred again, it says: %s", path, how,
			  osh_model_diag_at(m, i)->message);
	osh_model_free(m);
}

static void check_model(const char *path, void *ctx)
{
	size_t n = strlen(path);
	if (n < 5 || strcmp(path + n - 5, ".onnx"))
		return;
	tally *t = ctx;
	t->models++;
	osh_rewrite_options fold = OSH_REWRITE_OPTIONS_INIT, down = OSH_REWRITE_OPTIONS_INIT,
			    up = OSH_REWRITE_OPTIONS_INIT;
	fold.fold_shapes = true;
	down.target_opset = 13;
	up.target_opset = 21;
	check_rewrite(path, &fold, "--fold-shapes", t);
	check_rewrite(path, &down, "--target-opset 13", t);
	check_rewrite(path, &up, "--target-opset 21", t);
}

/* The split load, whatever the environment says: a model loaded the plain way has
 * every node as a protobuf-c message, which the re-index unpacks again, so nothing
 * is taken over there. */
Test(carry, fixtures)
{
	setenv(PLAIN_IO_ENV, "0", 1);
	tally t = {0};
	for_each_file(OSH_MODELS_DIR, true, check_model, &t);
	cr_log_info("%zu models, %zu rewrites re-indexed, %zu of %zu nodes taken over", t.models, t.rewritten, t.carried,
		    t.nodes);
	cr_expect_gt(t.rewritten, 50, "only %zu rewrites were re-indexed", t.rewritten);
	cr_expect_gt(t.carried, 0, "no node was taken over");
}

/* The real networks: run by ctest pipeline/carry-real, which unpacks them first
 * (OSH_REAL_DIR set there). */
Test(carry, real_networks)
{
	const char *dir = getenv("OSH_REAL_DIR");
	if (!dir)
		cr_skip_test("OSH_REAL_DIR is not set: ctest pipeline/carry-real runs this");
	setenv(PLAIN_IO_ENV, "0", 1);
	tally t = {0};
	for_each_file(dir, true, check_model, &t);
	printf("real networks: %zu models, %zu rewrites re-indexed, %zu of %zu nodes taken over\n", t.models,
	       t.rewritten, t.carried, t.nodes);
	cr_expect_gt(t.models, 50);
	cr_expect_gt(t.rewritten, 100, "only %zu rewrites were re-indexed", t.rewritten);
	cr_expect_gt(t.carried, 0, "no node was taken over");
}
