/* test_explicit.c: the explicit and implicit broadcasting at the library level: the Broadcast-3 rule on every
 * example of the spec's explicit, bidirectional and unidirectional sections (and with
 * symbols, and in a domain of its own), check's implicit-broadcast note under
 * require_explicit, and osh_rewrite's explicit and implicit stages (what they insert
 * and remove, sharing, and a clean --require-explicit afterwards). Expected shapes are
 * the spec's (../shared/spec/broadcasting.md); the numeric proof on ONNX Runtime is
 * tests/explicit/run_explicit_proof.py. */
#define _GNU_SOURCE /* mkdtemp */
#include <criterion/criterion.h>

#include "mb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define expect_has(msg, phrase) cr_expect(strstr((msg), (phrase)) != NULL, "'%s' not in: %s", (phrase), (msg))

/* ---- Broadcast-3: the spec's tables ------------------------------------------------- */

typedef struct b3_case {
	const char *mode;
	const char *data;    /* data shape, mb notation */
	int ntarget;
	int64_t target[8];
	int nmap;            /* -1: no axes_mapping input */
	int64_t map[8];
	const char *out;     /* expected type, or NULL for a refusal */
} b3_case;

static const b3_case b3_cases[] = {
	/* section 6, explicit */
	{"explicit", "16", 4, {1, 16, 50, 50}, 1, {1}, "FLOAT (1, 16, 50, 50)"},
	{"explicit", "50,50", 4, {1, 50, 50, 16}, 2, {1, 2}, "FLOAT (1, 50, 50, 16)"},
	{"explicit", "3", 4, {2, 3, 4, 5}, 1, {1}, "FLOAT (2, 3, 4, 5)"},
	{"explicit", "3", 3, {2, 3, 4}, 1, {2}, NULL},
	{"explicit", "2,3", 3, {2, 3, 4}, 2, {1, 0}, NULL},
	/* section 5, bidirectional */
	{"bidirectional", "5", 1, {1}, -1, {0}, "FLOAT (5)"},
	{"bidirectional", "2,3", 1, {3}, -1, {0}, "FLOAT (2, 3)"},
	{"bidirectional", "3,1", 2, {3, 4}, -1, {0}, "FLOAT (3, 4)"},
	{"bidirectional", "3,4", 0, {0}, -1, {0}, "FLOAT (3, 4)"},
	{"bidirectional", "3,1", 3, {2, 1, 6}, -1, {0}, "FLOAT (2, 3, 6)"},
	{"bidirectional", "16,1,1", 4, {1, 1, 50, 50}, -1, {0}, "FLOAT (1, 16, 50, 50)"},
	/* section 3, unidirectional: Broadcast's numpy mode (the target never grows) */
	{"numpy", "3,1,1", 4, {5, 3, 4, 1}, -1, {0}, "FLOAT (5, 3, 4, 1)"},
	{"numpy", "3,1,7", 3, {1, 3, 1}, -1, {0}, NULL},
};

static osh_model *b3_model(const b3_case *t, const char *domain)
{
	mb *b = mb_new(13);
	mb_opset(b, domain, 1);
	mb_input(b, "data", DT_FLOAT, t->data);
	char dims[16];
	snprintf(dims, sizeof dims, "%d", t->ntarget);
	mb_init_ints(b, "target", dims, t->target);
	if (t->nmap >= 0) {
		snprintf(dims, sizeof dims, "%d", t->nmap);
		mb_init_ints(b, "mapping", dims, t->map);
		mb_node(b, "Broadcast", "data,target,mapping", "y");
	} else {
		mb_node(b, "Broadcast", "data,target", "y");
	}
	mb_node_domain(b, domain);
	mb_attr_s(b, "mode", t->mode);
	return mb_infer(b);
}

Test(explicit, broadcast3_spec_tables)
{
	for (size_t i = 0; i < sizeof b3_cases / sizeof b3_cases[0]; i++) {
		const b3_case *t = &b3_cases[i];
		/* OpenVINO's domain has a row; any other non-ONNX domain uses the fallback. */
		for (int d = 0; d < 2; d++) {
			osh_model *m = b3_model(t, d ? "com.example.ov" : "org.openvinotoolkit");
			cr_assert_not_null(m);
			if (t->out) {
				cr_expect_str_eq(mb_type(m, "y"), t->out, "case %zu (%s)", i, t->mode);
				cr_expect_eq(mb_count(m, "broadcast-mismatch"), 0, "case %zu: %s", i,
					     mb_message(m, "broadcast-mismatch"));
			} else {
				cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1, "case %zu must be refused", i);
				cr_expect_str_eq(mb_type(m, "y"), "FLOAT (rank unknown)", "case %zu", i);
			}
			osh_model_free(m);
		}
	}
}

Test(explicit, broadcast3_refusals_say_why)
{
	osh_model *m = b3_model(&b3_cases[3], "org.openvinotoolkit");
	expect_has(mb_message(m, "broadcast-mismatch"), "(explicit rule)");
	expect_has(mb_message(m, "broadcast-mismatch"), "size of data (3)");
	osh_model_free(m);
	m = b3_model(&b3_cases[4], "org.openvinotoolkit");
	expect_has(mb_message(m, "broadcast-mismatch"), "ascending");
	osh_model_free(m);
	m = b3_model(&b3_cases[12], "org.openvinotoolkit");
	expect_has(mb_message(m, "broadcast-mismatch"), "(unidirectional rule)");
	osh_model_free(m);
}

/* The target read from a Shape keeps its symbols: (C,) mapped to axis 1 of (N, 3, H, W). */
Test(explicit, broadcast3_symbolic_target)
{
	mb *b = mb_new(13);
	mb_opset(b, "org.openvinotoolkit", 1);
	mb_input(b, "data", DT_FLOAT, "3");
	mb_input(b, "like", DT_FLOAT, "N,3,H,W");
	mb_init_ints(b, "mapping", "1", (int64_t[]){1});
	mb_node(b, "Shape", "like", "target");
	mb_node(b, "Broadcast", "data,target,mapping", "y");
	mb_node_domain(b, "org.openvinotoolkit");
	mb_attr_s(b, "mode", "explicit");
	osh_model *m = mb_infer(b);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 3, H, W)");
	osh_model_free(m);
}

/* ---- check --require-explicit ------------------------------------------------------- */

static osh_model *add_model(const char *a, const char *bshape, bool require)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, a);
	mb_input(b, "b", DT_FLOAT, bshape);
	mb_node(b, "Add", "a,b", "y");
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .require_explicit = require};
	return mb_infer_opts(b, &o);
}

Test(explicit, require_explicit_notes)
{
	osh_model *m = add_model("2,3", "3", true);
	cr_expect_eq(mb_count(m, "implicit-broadcast"), 1);
	expect_has(mb_message(m, "implicit-broadcast"), "'b' (3,) is broadcast implicitly to the result (2, 3)");
	osh_model_free(m);
	m = add_model("2,3", "3", false); /* only when asked */
	cr_expect_eq(mb_count(m, "implicit-broadcast"), 0);
	osh_model_free(m);
	m = add_model("N,3", "N,3", true); /* identical shapes: nothing */
	cr_expect_eq(mb_count(m, "implicit-broadcast"), 0);
	osh_model_free(m);
	m = add_model("N,1", "1,M", true); /* M and N may be 1: said as a possibility */
	cr_expect_eq(mb_count(m, "implicit-broadcast"), 1);
	expect_has(mb_message(m, "implicit-broadcast"), "may be broadcast");
	osh_model_free(m);
}

Test(explicit, require_explicit_unidirectional_and_variadic)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_input(b, "slope", DT_FLOAT, "3,1");
	mb_input(b, "s", DT_FLOAT, "4");
	mb_node(b, "PRelu", "x,slope", "p");
	mb_node(b, "Sum", "p,x,x", "q");      /* same shapes: fine */
	mb_node(b, "Max", "q,s", "r");        /* s broadcasts */
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .require_explicit = true};
	osh_model *m = mb_infer_opts(b, &o);
	cr_expect_eq(mb_count(m, "implicit-broadcast"), 2);
	expect_has(mb_message(m, "implicit-broadcast"), "(unidirectional rule)");
	osh_model_free(m);
}

/* ---- osh_rewrite: explicit, then implicit -------------------------------------------- */

static char *tmp_path(const char *name)
{
	static char dir[64];
	if (!dir[0]) {
		strcpy(dir, "/tmp/osh_test_explicit.XXXXXX");
		cr_assert_not_null(mkdtemp(dir));
	}
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Removes the files a test made and its directory (each test runs in its own
 * process, with its own directory). */
static void cleanup(char **paths, int n)
{
	char dir[64] = "";
	for (int k = 0; k < n; k++) {
		char *slash = strrchr(paths[k], '/');
		if (slash && (size_t)(slash - paths[k]) < sizeof dir)
			snprintf(dir, sizeof dir, "%.*s", (int)(slash - paths[k]), paths[k]);
		unlink(paths[k]);
		free(paths[k]);
	}
	if (dir[0])
		rmdir(dir);
}

/* Loads path, infers, rewrites with opts, writes to out; returns the report. */
static osh_rewrite_report rewrite_file(const char *path, const osh_rewrite_options *opts, const char *out)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_rewrite_report rep;
	cr_assert_eq(osh_rewrite(m, opts, &rep, &err), OSH_OK, "%s", err.message);
	cr_assert(!osh_model_has_errors(m));
	cr_assert_eq(osh_model_write(m, out, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	return rep;
}

static int notes_after(const char *path)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .require_explicit = true};
	cr_assert_eq(osh_infer(m, &o, &err), OSH_OK, "%s", err.message);
	int n = mb_count(m, "implicit-broadcast");
	osh_model_free(m);
	return n;
}

Test(explicit, rewrite_shares_expand_and_round_trips)
{
	char *in = tmp_path("shared.onnx"), *x = tmp_path("shared.x.onnx"), *i = tmp_path("shared.i.onnx");
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_init(b, "bias", DT_FLOAT, "3,1");
	mb_node(b, "Add", "x,bias", "a");
	mb_node(b, "Relu", "x", "r");
	mb_node(b, "Add", "r,bias", "c");
	mb_node(b, "Mul", "a,c", "y");
	mb_output(b, "y", DT_FLOAT, "2,3,4");
	mb_save(b, in);
	cr_expect_eq(notes_after(in), 2);
	osh_rewrite_options eo = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = true};
	osh_rewrite_report rep = rewrite_file(in, &eo, x);
	cr_expect_eq(rep.n_explicit, 2);
	cr_expect_eq(rep.n_expand, 1, "one Expand for both consumers of 'bias'");
	cr_expect_eq(rep.n_target_nodes, 0, "a known result shape is a constant");
	cr_expect_eq(notes_after(x), 0);
	osh_rewrite_options io = {.version = OSH_REWRITE_OPTIONS_VERSION, .implicit_broadcast = true};
	rep = rewrite_file(x, &io, i);
	cr_expect_eq(rep.n_removed, 1);
	cr_expect_eq(notes_after(i), 2);
	cleanup((char *[]){in, x, i}, 3);
}

Test(explicit, rewrite_symbolic_target_in_graph)
{
	char *in = tmp_path("sym.onnx"), *x = tmp_path("sym.x.onnx"), *i = tmp_path("sym.i.onnx");
	mb *b = mb_new(13);
	mb_input(b, "p", DT_FLOAT, "N,1");
	mb_input(b, "q", DT_FLOAT, "1,M");
	mb_node(b, "Add", "p,q", "y");
	mb_output(b, "y", DT_FLOAT, "N,M");
	mb_save(b, in);
	osh_rewrite_options eo = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = true};
	osh_rewrite_report rep = rewrite_file(in, &eo, x);
	cr_expect_eq(rep.n_expand, 2);
	/* Shape(p), Shape(q), Concat, Gather: N from p, M from q */
	cr_expect_eq(rep.n_target_nodes, 4);
	cr_expect_eq(notes_after(x), 0);
	osh_rewrite_options io = {.version = OSH_REWRITE_OPTIONS_VERSION, .implicit_broadcast = true};
	rep = rewrite_file(x, &io, i);
	cr_expect_eq(rep.n_removed, 2);
	cr_expect_eq(rep.n_dead_removed, 4, "the shape computation goes with the Expands");
	cleanup((char *[]){in, x, i}, 3);
}

Test(explicit, rewrite_raises_opset_for_expand)
{
	char *in = tmp_path("op7.onnx"), *x = tmp_path("op7.x.onnx");
	mb *b = mb_new(7);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_input(b, "b", DT_FLOAT, "3");
	mb_node(b, "Add", "x,b", "y");
	mb_output(b, "y", DT_FLOAT, "2,3");
	mb_save(b, in);
	osh_rewrite_options eo = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = true};
	osh_rewrite_report rep = rewrite_file(in, &eo, x);
	cr_expect_eq(rep.opset_before, 7);
	cr_expect_eq(rep.opset_after, 8);
	cr_expect_eq(rep.n_expand, 1);
	cleanup((char *[]){in, x}, 2);
}

Test(explicit, explicit_and_implicit_exclude_each_other)
{
	osh_model *m = add_model("2,3", "3", false);
	osh_rewrite_options o = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = true, .implicit_broadcast = true};
	osh_rewrite_report rep;
	osh_error err = {0};
	cr_expect_eq(osh_rewrite(m, &o, &rep, &err), OSH_ERR_INVALID);
	osh_model_free(m);
}

/* Results of the same symbolic shape share one target computed in the graph. */
Test(explicit, rewrite_shares_symbolic_target)
{
	char *in = tmp_path("symshare.onnx"), *x = tmp_path("symshare.x.onnx");
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_init(b, "b1", DT_FLOAT, "3");
	mb_init(b, "b2", DT_FLOAT, "1,3");
	mb_node(b, "Add", "x,b1", "a");
	mb_node(b, "Relu", "a", "r");
	mb_node(b, "Mul", "r,b2", "y");
	mb_output(b, "y", DT_FLOAT, "N,3");
	mb_save(b, in);
	osh_rewrite_options eo = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = true};
	osh_rewrite_report rep = rewrite_file(in, &eo, x);
	cr_expect_eq(rep.n_explicit, 2);
	cr_expect_eq(rep.n_expand, 2);
	cr_expect_eq(rep.n_target_nodes, 1, "Shape(x) serves both nodes");
	cr_expect_eq(notes_after(x), 0);
	cleanup((char *[]){in, x}, 2);
}
