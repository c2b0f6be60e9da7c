/* test_loader.c: the loader against the fixtures of tests/models/bad and
 * tests/models/good (made by tests/models/bad/gen_bad.py).
 *
 * Table-driven: each bad fixture has one row saying how the load must end: either
 * osh_model_load fails with a status and a message naming the file and the problem,
 * or it succeeds with a malformed model and a malformed-model diagnostic carrying the
 * expected phrase (taken from src/loader), graph, node and value. The same bytes are
 * also loaded through osh_model_load_buffer and must give the same outcome. A guard
 * test keeps the table and the fixture directory in step.
 *
 * The good fixtures must load without a diagnostic, and each proves one property: an
 * If body resolves outer-scope names (VAL_OUTER), unknown fields survive packing
 * byte for byte, external data is checked without being read, a model-local function
 * is indexed, 32 nested subgraphs are accepted. A memory-budget sweep makes every
 * allocation of the loader fail in turn; validate_tensor is driven directly with a
 * table of data types and the fields their data lives in.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "loader/loader.h"
#include "loader/build_messages.h"
#include "loader/reindex.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BAD_DIR OSH_MODELS_DIR "/bad"
#define GOOD_DIR OSH_MODELS_DIR "/good"

/* ---- helpers ------------------------------------------------------------------- */

static bool contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* The whole file, from malloc; aborts the test when it cannot be read. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot open %s: %s", path, strerror(errno));
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		if (r == 0)
			break;
		len += r;
	}
	cr_assert(!ferror(f), "cannot read %s", path);
	fclose(f);
	*size = len;
	return buf;
}

static void spit(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f, "cannot create %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

static char *make_tmpdir(void)
{
	char *dir = strdup("/tmp/osh_test_loader.XXXXXX");
	cr_assert(dir && mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	return dir;
}

static size_t count_errors(const osh_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		n += osh_model_diag_at(m, i)->severity == OSH_ERROR;
	return n;
}

static osh_model *load_ok(const char *path)
{
	osh_model *m = NULL;
	osh_error err = {0};
	osh_status s = osh_model_load(&m, path, NULL, &err);
	cr_assert_eq(s, OSH_OK, "%s: load failed (%d): %s", path, (int)s, err.message);
	cr_assert(m);
	return m;
}

static graph *find_graph(osh_model *m, const char *path)
{
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (!strcmp(m->graphs[i]->path, path))
			return m->graphs[i];
	return NULL;
}

static const value *find_value(graph *g, const char *name)
{
	int32_t id = strmap_get(&g->names, name);
	return id < 0 ? NULL : &g->values[id];
}

/* ---- bad fixtures -------------------------------------------------------------- */

typedef struct bad_case {
	const char *file;     /* under tests/models/bad */
	osh_status status;    /* OSH_OK: loads as a malformed model; else how the load fails */
	const char *phrase;   /* in err.message, or in a malformed-model diagnostic */
	size_t errors;        /* OSH_OK rows: how many error diagnostics in all */
	const char *graph;    /* the diagnostic's graph path ends with this */
	int64_t node_index;   /* the diagnostic's node, -1 for none */
	const char *node_name;
	const char *value;    /* the diagnostic's value, "" for none */
} bad_case;

/* X(name, status, phrase, errors, graph, node_index, node_name, value) */
#define BAD_CASES(X)                                                                                   \
	X(undefined_input, OSH_OK,                                                                     \
	  "input 'ghost' is not produced by any node, graph input, initializer or outer scope", 1, "", \
	  0, "add", "ghost")                                                                           \
	X(produced_twice, OSH_OK, "value 't' is produced twice: by node 0 'r0' (Relu) and by this node", \
	  1, "", 1, "r1", "t")                                                                         \
	X(cycle, OSH_OK, "the graph has a cycle: nodes 0 'A' <- 1 'B' <- 0", 1, "", 0, "A", "")        \
	X(no_opset_import, OSH_OK, "opset_import is missing", 1, "", -1, "", "")                       \
	X(init_unknown_dtype, OSH_OK, "initializer 'w' has an unknown data type 99", 1, "", -1, "", "w") \
	X(input_unknown_elem_type, OSH_OK, "'x' has an unknown element type 99", 1, "", -1, "", "x")  \
	X(value_info_unknown_elem_type, OSH_OK, "'t' has an unknown element type 99", 1, "", -1, "", "t") \
	X(init_negative_dim, OSH_OK, "initializer 'w' has a negative dimension -2 at axis 0", 1, "", -1, \
	  "", "w")                                                                                     \
	X(init_dims_overflow, OSH_OK, "initializer 'w' has dims whose element count overflows int64", 1, \
	  "", -1, "", "w")                                                                             \
	X(raw_data_length, OSH_OK, "initializer 'w': raw_data holds 20 bytes but 6 elements of FLOAT need 24", \
	  1, "", -1, "", "w")                                                                          \
	X(typed_count, OSH_OK, "initializer 'w': dims give 6 elements but the data holds 5", 1, "", -1, \
	  "", "w")                                                                                     \
	X(truncated, OSH_ERR_DECODE, "not an ONNX model: the protobuf data is truncated or corrupt", 0, \
	  "", -1, "", "")                                                                              \
	X(corrupt, OSH_ERR_DECODE, "not an ONNX model: the protobuf data is truncated or corrupt", 0,  \
	  "", -1, "", "")                                                                              \
	X(empty, OSH_ERR_DECODE, "not an ONNX model: the file is empty", 0, "", -1, "", "")            \
	X(no_ir_version, OSH_OK, "ir_version is missing", 1, "", -1, "", "")                           \
	X(no_graph, OSH_OK, "the model has no graph", 1, "", -1, "", "")                               \
	X(ext_absolute, OSH_OK, "initializer 'w': external data location '/etc/passwd' is an absolute path", \
	  1, "", -1, "", "w")                                                                          \
	X(ext_dotdot, OSH_OK,                                                                          \
	  "external data location '../good/external_ok.bin' contains a '..' component", 1, "", -1, "", \
	  "w")                                                                                         \
	X(ext_backslash, OSH_OK, "external data location 'ext\\w24.bin' contains a backslash", 1, "",  \
	  -1, "", "w")                                                                                 \
	X(ext_symlink, OSH_OK, "external data file 'ext/escape.bin' is or passes through a symbolic link", \
	  1, "", -1, "", "w")                                                                          \
	X(ext_missing, OSH_OK, "external data file 'ext/missing.bin' does not exist", 1, "", -1, "", "w") \
	X(ext_length, OSH_OK, "external data length 20 disagrees with 6 elements of FLOAT (24 bytes)", \
	  1, "", -1, "", "w")                                                                          \
	X(ext_offset, OSH_OK, "external data offset 100 is past the end of 'ext/w24.bin' (24 bytes)", \
	  1, "", -1, "", "w")                                                                          \
	X(subgraph_undefined, OSH_OK,                                                                  \
	  "input 'nope' is not produced by any node, graph input, initializer or outer scope", 1,      \
	  "If_0/then_branch", 0, "then_id", "nope")                                                    \
	X(nested_33, OSH_OK, "subgraphs are nested more than 32 levels deep", 1,                       \
	  "If_30/then_branch/If_31/then_branch", 0, "If_32", "")

#define ROW(name, st, phrase, nerr, g, ni, nn, val) {#name ".onnx", st, phrase, nerr, g, ni, nn, val},
static const bad_case bad_cases[] = {BAD_CASES(ROW)};
#undef ROW
#define NBAD (sizeof bad_cases / sizeof bad_cases[0])

static const bad_case *find_case(const char *file)
{
	for (size_t i = 0; i < NBAD; i++)
		if (!strcmp(bad_cases[i].file, file))
			return &bad_cases[i];
	return NULL;
}

/* The diagnostic that carries the row's phrase, checked field by field. */
static void check_diag(const bad_case *c, const char *path, const osh_model *m)
{
	const osh_diag *d = NULL;
	for (size_t i = 0; i < osh_model_diag_count(m) && !d; i++)
		if (contains(osh_model_diag_at(m, i)->message, c->phrase))
			d = osh_model_diag_at(m, i);
	if (!d) {
		for (size_t i = 0; i < osh_model_diag_count(m); i++)
			cr_log_error("%s: diag %zu: %s", path, i, osh_model_diag_at(m, i)->message);
		cr_assert_fail("%s: no diagnostic says \"%s\"", path, c->phrase);
	}
	cr_expect_str_eq(d->code, "malformed-model", "%s", path);
	cr_expect_eq(d->severity, OSH_ERROR, "%s", path);
	cr_expect(ends_with(d->graph, c->graph), "%s: graph '%s', want a path ending in '%s'", path,
		  d->graph, c->graph);
	if (!c->graph[0])
		cr_expect_str_eq(d->graph, "", "%s: the finding is in the main graph", path);
	cr_expect_eq(d->node_index, c->node_index, "%s: node %lld, want %lld", path,
		     (long long)d->node_index, (long long)c->node_index);
	cr_expect_str_eq(d->node_name, c->node_name, "%s", path);
	cr_expect_str_eq(d->value, c->value, "%s", path);
	cr_expect(strchr(d->message, '\n') == NULL, "%s: a message is one line", path);
	cr_expect_eq(count_errors(m), c->errors, "%s: %zu errors, want %zu", path, count_errors(m),
		     c->errors);
	cr_expect(osh_model_is_malformed(m), "%s", path);
	cr_expect(osh_model_has_errors(m), "%s", path);
}

/* A malformed model is never written or packed. */
static void check_not_writable(const char *path, osh_model *m)
{
	char *dir = make_tmpdir();
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/out.onnx", dir);
	osh_error err = {0};
	cr_expect_eq(osh_model_write(m, out, NULL, &err), OSH_ERR_INVALID, "%s", path);
	cr_expect(contains(err.message, "malformed"), "%s: %s", path, err.message);
	cr_expect_eq(access(out, F_OK), -1, "%s: written although malformed", path);
	cr_expect_eq(rmdir(dir), 0, "%s: something was left in %s", path, dir);
	free(dir);
	uint8_t *data = (uint8_t *)1;
	size_t size = 1;
	cr_expect_eq(osh_model_pack(m, &data, &size, &err), OSH_ERR_INVALID, "%s", path);
	cr_expect_null(data, "%s", path);
	cr_expect_eq(size, 0, "%s", path);
}

static void check_bad(const char *file)
{
	const bad_case *c = find_case(file);
	cr_assert(c, "%s has no row", file);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", BAD_DIR, c->file);

	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	osh_status s = osh_model_load(&m, path, NULL, &err);
	if (c->status != OSH_OK) {
		cr_assert_eq(s, c->status, "%s: status %d, want %d (%s)", path, (int)s, (int)c->status,
			     err.message);
		cr_expect_null(m, "%s: *out must be NULL on failure", path);
		cr_expect_eq(err.status, s, "%s", path);
		char prefix[PATH_MAX + 2];
		snprintf(prefix, sizeof prefix, "%s: ", path);
		cr_expect(!strncmp(err.message, prefix, strlen(prefix)), "%s: message does not name the file: %s",
			  path, err.message);
		cr_expect(contains(err.message, c->phrase), "%s: message \"%s\" lacks \"%s\"", path, err.message,
			  c->phrase);
	} else {
		cr_assert_eq(s, OSH_OK, "%s: load failed: %s", path, err.message);
		check_diag(c, path, m);
		check_not_writable(path, m);
	}

	/* The same bytes from memory, named after the file (so external data resolves the
	 * same way): the same outcome, the same findings. */
	size_t size;
	uint8_t *data = slurp(path, &size);
	osh_model *mb = (osh_model *)1;
	osh_error errb = {0};
	osh_status sb = osh_model_load_buffer(&mb, data, size, path, NULL, &errb);
	free(data);
	cr_assert_eq(sb, s, "%s: load_buffer status %d, load status %d", path, (int)sb, (int)s);
	if (s != OSH_OK) {
		cr_expect_null(mb, "%s", path);
		cr_expect_str_eq(errb.message, err.message, "%s", path);
	} else {
		cr_assert_eq(osh_model_diag_count(mb), osh_model_diag_count(m), "%s", path);
		for (size_t i = 0; i < osh_model_diag_count(m); i++)
			cr_expect_str_eq(osh_model_diag_at(mb, i)->message, osh_model_diag_at(m, i)->message,
					 "%s", path);
		osh_model_free(mb);
		osh_model_free(m);
	}
}

#define TEST_BAD(name, ...)                                                                    \
	Test(bad_fixture, name) { check_bad(#name ".onnx"); }
BAD_CASES(TEST_BAD)
#undef TEST_BAD

/* Every fixture on disk has a row and every row a fixture, so a new fixture cannot be
 * left untested and a renamed one cannot silently drop out. */
Test(bad_fixture, table_matches_directory)
{
	DIR *d = opendir(BAD_DIR);
	cr_assert(d, "%s: %s", BAD_DIR, strerror(errno));
	size_t seen = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".onnx"))
			continue;
		cr_expect(find_case(e->d_name), "%s/%s has no row in test_loader.c", BAD_DIR, e->d_name);
		seen++;
	}
	closedir(d);
	cr_expect_eq(seen, NBAD, "%zu fixtures on disk, %zu rows", seen, (size_t)NBAD);
}

/* ---- good fixtures ------------------------------------------------------------- */

static const char *const good_files[] = {
	"external_ok.onnx", "if_outer.onnx", "unknown_field.onnx", "local_function.onnx", "nested_32.onnx",
};

Test(good_fixture, load_without_diagnostics)
{
	for (size_t i = 0; i < sizeof good_files / sizeof good_files[0]; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", GOOD_DIR, good_files[i]);
		osh_model *m = load_ok(path);
		for (size_t k = 0; k < osh_model_diag_count(m); k++)
			cr_log_error("%s: %s", path, osh_model_diag_at(m, k)->message);
		cr_expect_eq(osh_model_diag_count(m), 0, "%s has diagnostics", path);
		cr_expect(!osh_model_is_malformed(m), "%s", path);
		cr_expect(!osh_model_has_errors(m), "%s", path);
		cr_expect_str_eq(osh_model_path(m), path);
		osh_model_free(m);
	}
}

/* Both branches read the main graph's input x: each body has a VAL_OUTER entry for it
 * that points at the main graph's value, and the If node counts as a consumer of x
 * there (so ordering sees the dependency). */
Test(good_fixture, if_branches_resolve_outer_scope)
{
	osh_model *m = load_ok(GOOD_DIR "/if_outer.onnx");
	graph *main = m->main;
	cr_assert(main);
	cr_assert_eq(m->ngraphs, 3);
	const value *x = find_value(main, "x");
	cr_assert(x);
	cr_expect_eq(x->origin, VAL_INPUT);
	cr_assert_eq(x->nconsumers, 1);
	cr_expect_eq(x->consumers[0], 0, "the If node uses x through its branches");
	/* onnx.helper writes attributes sorted by name: else_branch first (the
	 * subgraphs' order, checked against their paths below). */
	cr_assert_eq(main->nodes[0].nsubgraphs, 2);
	static const char *const bodies[] = {"If_0/else_branch", "If_0/then_branch"};
	for (size_t i = 0; i < 2; i++) {
		graph *g = find_graph(m, bodies[i]);
		cr_assert(g, "no graph %s", bodies[i]);
		cr_expect_eq(g->parent, main);
		cr_expect_eq(g->parent_node, 0);
		cr_expect_eq(g->depth, 1);
		cr_expect_eq(main->nodes[0].subgraphs[i], g);
		const value *v = find_value(g, "x");
		cr_assert(v, "%s: x not in its value table", bodies[i]);
		cr_expect_eq(v->origin, VAL_OUTER, "%s: x has origin %d", bodies[i], (int)v->origin);
		cr_expect_eq(value_outer(v), main, "%s", bodies[i]);
		cr_assert(value_outer_id(v) >= 0 && value_outer_id(v) < main->nvalues);
		cr_expect_eq(&main->values[value_outer_id(v)], x, "%s", bodies[i]);
		cr_expect_eq(v->producer, -1);
		cr_assert_eq(g->nnodes, 1);
		cr_expect_eq(g->nodes[0].inputs[0], (int32_t)(v - g->values), "%s: the node reads the outer x",
			     bodies[i]);
	}
	cr_expect_null(find_value(main, "t"), "a branch's own value does not leak into the main graph");
	osh_model_free(m);
}

/* unknown_field.onnx carries field 99 in a NodeProto and in the ModelProto. Packing
 * must give back the file byte for byte, through osh_model_pack and a forced repack
 * by osh_model_write. */
Test(good_fixture, unknown_fields_survive_pack)
{
	const char *path = GOOD_DIR "/unknown_field.onnx";
	size_t size;
	uint8_t *file = slurp(path, &size);
	static const uint8_t field99[] = {0x98, 0x06, 0x2a};
	cr_assert(size > 3 && !memcmp(file + size - 3, field99, 3), "the fixture lost its unknown field");
	cr_assert(memmem(file, size - 3, field99, 3), "the fixture lost the node's unknown field");

	osh_model *m = load_ok(path);
	uint8_t *data = NULL;
	size_t len = 0;
	osh_error err = {0};
	cr_assert_eq(osh_model_pack(m, &data, &len, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(len, size, "packed %zu bytes, the file has %zu", len, size);
	cr_expect(len == size && !memcmp(data, file, size), "packed bytes differ from the file");
	free(data);

	char *dir = make_tmpdir();
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/repacked.onnx", dir);
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .force_pack = true};
	cr_assert_eq(osh_model_write(m, out, &wo, &err), OSH_OK, "%s", err.message);
	size_t olen;
	uint8_t *odata = slurp(out, &olen);
	cr_expect(olen == size && !memcmp(odata, file, size), "repacked file differs");
	free(odata);
	unlink(out);
	cr_expect_eq(rmdir(dir), 0, "leftovers in %s", dir);
	free(dir);
	free(file);
	osh_model_free(m);
}

Test(good_fixture, external_data_summary)
{
	osh_model *m = load_ok(GOOD_DIR "/external_ok.onnx");
	const osh_summary *s = osh_model_summary(m);
	cr_assert(s);
	cr_expect_eq(s->n_initializers, 1);
	cr_expect_eq(s->n_external, 1);
	cr_expect_eq(s->external_bytes, 24);
	cr_expect_eq(s->initializer_bytes, 0);
	const value *w = find_value(m->main, "w");
	cr_assert(w);
	cr_expect_eq(w->origin, VAL_INITIALIZER);
	cr_expect(w->init_view && w->init_view->external, "the initializer is viewed, its data external");
	osh_model_free(m);
}

/* Hard links cannot be committed, so this case is built here: the weights file has a
 * second name (it might be a file from outside the model's directory). */
Test(good_fixture, external_hard_link_refused)
{
	char *dir = make_tmpdir();
	char model[PATH_MAX], bin[PATH_MAX], other[PATH_MAX];
	snprintf(model, sizeof model, "%s/external_ok.onnx", dir);
	snprintf(bin, sizeof bin, "%s/external_ok.bin", dir);
	snprintf(other, sizeof other, "%s/elsewhere.bin", dir);
	size_t n;
	uint8_t *data = slurp(GOOD_DIR "/external_ok.onnx", &n);
	spit(model, data, n);
	free(data);
	data = slurp(GOOD_DIR "/external_ok.bin", &n);
	spit(other, data, n);
	free(data);

	/* One name: accepted. */
	cr_assert_eq(rename(other, bin), 0);
	osh_model *m = load_ok(model);
	cr_expect_eq(osh_model_diag_count(m), 0);
	osh_model_free(m);

	/* Two names: refused. */
	cr_assert_eq(link(bin, other), 0, "link: %s", strerror(errno));
	m = load_ok(model);
	cr_expect(osh_model_is_malformed(m));
	cr_assert_eq(osh_model_diag_count(m), 1);
	cr_expect(contains(osh_model_diag_at(m, 0)->message, "external data file 'external_ok.bin' has 2 hard links"),
		  "%s", osh_model_diag_at(m, 0)->message);
	osh_model_free(m);

	/* A directory in its place: refused. */
	unlink(bin);
	unlink(other);
	cr_assert_eq(mkdir(bin, 0700), 0);
	m = load_ok(model);
	cr_expect(osh_model_is_malformed(m));
	cr_assert_eq(osh_model_diag_count(m), 1);
	cr_expect(contains(osh_model_diag_at(m, 0)->message, "'external_ok.bin' is not a regular file"), "%s",
		  osh_model_diag_at(m, 0)->message);
	osh_model_free(m);
	rmdir(bin);
	unlink(model);
	cr_expect_eq(rmdir(dir), 0);
	free(dir);
}

Test(good_fixture, local_function_indexed)
{
	osh_model *m = load_ok(GOOD_DIR "/local_function.onnx");
	cr_assert_eq(m->main->nnodes, 1);
	const node *call = &m->main->nodes[0];
	cr_expect_str_eq(call->domain, "local");
	cr_expect_str_eq(call->op_type, "AddRelu");
	cr_expect_eq(call->opset, 1);
	graph *f = find_graph(m, "function local.AddRelu");
	cr_assert(f, "the function body is not indexed");
	cr_expect(f->function);
	cr_expect_null(f->parent);
	cr_assert_eq(f->nnodes, 2);
	cr_expect_eq(f->nodes[0].opset, 13, "a body node resolves through the function's own imports");
	cr_expect_eq(f->ninputs, 2);
	cr_expect_eq(f->noutputs, 1);
	const value *s = find_value(f, "s");
	cr_assert(s);
	cr_expect_eq(s->origin, VAL_NODE);
	cr_expect_eq(s->producer, 0);
	const osh_summary *sum = osh_model_summary(m);
	cr_assert(sum);
	cr_expect_eq(sum->n_functions, 1);
	cr_expect_eq(sum->n_nodes, 1);
	cr_expect_eq(sum->n_nodes_total, 3);
	cr_expect_eq(osh_model_node_count(m), 3, "the function body's two nodes count");
	osh_model_free(m);
}

/* The operator counts when most node types have strings of their own (subgraph nodes
 * are unpacked by protobuf-c, not interned): 65 nodes, more distinct type pointers
 * than the counts' memo (core/type_memo.h) has room for. */
Test(good_fixture, op_counts_beyond_the_type_memo)
{
	osh_model *m = load_ok(GOOD_DIR "/nested_32.onnx");
	const osh_summary *s = osh_model_summary(m);
	cr_assert(s);
	cr_assert_eq(s->n_op_counts, 3);
	static const struct {
		const char *op;
		size_t count;
	} want[] = {{"If", 32}, {"Neg", 32}, {"Relu", 1}};
	for (size_t i = 0; i < 3; i++) {
		cr_expect_str_eq(s->op_counts[i].op_type, want[i].op);
		cr_expect_eq(s->op_counts[i].count, want[i].count, "%s: %zu", want[i].op, (size_t)s->op_counts[i].count);
	}
	osh_model_free(m);
}

Test(good_fixture, nested_32_is_the_limit)
{
	osh_model *m = load_ok(GOOD_DIR "/nested_32.onnx");
	int32_t deepest = 0;
	for (int32_t i = 0; i < m->ngraphs; i++)
		deepest = m->graphs[i]->depth > deepest ? m->graphs[i]->depth : deepest;
	cr_expect_eq(deepest, MAX_SUBGRAPH_DEPTH);
	cr_expect_eq(m->ngraphs, 1 + 2 * 32);
	/* The leaf reads x from 32 levels up: an outer entry in every graph between. */
	graph *leaf = NULL;
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (m->graphs[i]->depth == 32 && ends_with(m->graphs[i]->path, "then_branch"))
			leaf = m->graphs[i];
	cr_assert(leaf);
	for (graph *g = leaf; g->parent; g = g->parent) {
		const value *x = find_value(g, "x");
		cr_assert(x, "graph %s has no entry for x", g->path);
		cr_expect_eq(x->origin, VAL_OUTER, "%s", g->path);
		cr_expect_eq(value_outer(x), g->parent, "%s", g->path);
	}
	cr_expect_eq(find_value(m->main, "x")->origin, VAL_INPUT);
	osh_model_free(m);
}

/* ---- I/O failures and the memory budget ---------------------------------------- */

Test(load, missing_file)
{
	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, BAD_DIR "/no-such-file.onnx", NULL, &err), OSH_ERR_IO);
	cr_expect_null(m);
	cr_expect(contains(err.message, BAD_DIR "/no-such-file.onnx: cannot open: "), "%s", err.message);
	cr_expect(contains(err.message, strerror(ENOENT)), "%s", err.message);
}

Test(load, directory_is_not_a_model)
{
	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, BAD_DIR, NULL, &err), OSH_ERR_IO);
	cr_expect_null(m);
	cr_expect(contains(err.message, "not a regular file"), "%s", err.message);
}

Test(load, null_error_is_fine)
{
	osh_model *m = (osh_model *)1;
	cr_expect_eq(osh_model_load(&m, BAD_DIR "/empty.onnx", NULL, NULL), OSH_ERR_DECODE);
	cr_expect_null(m);
	osh_model_free(NULL);
}

/* A FIFO is not a model; opening it must not wait for a writer (it used to block in
 * open() forever). */
Test(load, fifo_is_refused_without_blocking, .timeout = 10)
{
	char *dir = make_tmpdir();
	char fifo[PATH_MAX];
	snprintf(fifo, sizeof fifo, "%s/model.onnx", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	cr_expect_eq(osh_model_load(&m, fifo, NULL, &err), OSH_ERR_IO);
	cr_expect_null(m);
	cr_expect(contains(err.message, "not a regular file"), "%s", err.message);
	unlink(fifo);
	rmdir(dir);
	free(dir);
}

/* Every budget from 1 byte up: each allocation of unpacking, validation and indexing
 * fails in turn. The load must fail cleanly (a status, no model, a message naming the
 * file; ASan checks for leaks and stray accesses) until the budget suffices. */
static void sweep_budget(const char *path)
{
	osh_model *full = load_ok(path);
	uint64_t need = arena_used(full->arena);
	size_t ndiags = osh_model_diag_count(full);
	osh_model_free(full);
	uint64_t step = need / 400 > 16 ? need / 400 : 16;
	uint64_t budget;
	for (budget = 1; budget <= need + step; budget += step) {
		osh_model *m = (osh_model *)1;
		osh_error err = {0};
		osh_load_options opts = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = budget};
		osh_status s = osh_model_load(&m, path, &opts, &err);
		if (s == OSH_OK) {
			cr_expect_eq(osh_model_diag_count(m), ndiags, "%s, budget %llu: a finding lost to memory",
				     path, (unsigned long long)budget);
			cr_expect(!m->nomem);
			osh_model_free(m);
			break;
		}
		cr_expect(s == OSH_ERR_LIMIT || s == OSH_ERR_NOMEM, "%s, budget %llu: status %d", path,
			  (unsigned long long)budget, (int)s);
		cr_expect_null(m);
		cr_expect(!strncmp(err.message, path, strlen(path)), "%s", err.message);
	}
	cr_expect(budget <= need + step, "%s loads with an unlimited budget (%llu bytes) but not with %llu",
		  path, (unsigned long long)need, (unsigned long long)budget);
}

Test(load, budget_sweep_if_outer) { sweep_budget(GOOD_DIR "/if_outer.onnx"); }
Test(load, budget_sweep_local_function) { sweep_budget(GOOD_DIR "/local_function.onnx"); }
Test(load, budget_sweep_cycle) { sweep_budget(BAD_DIR "/cycle.onnx"); }
Test(load, budget_sweep_produced_twice) { sweep_budget(BAD_DIR "/produced_twice.onnx"); }

/* Running into the memory budget is OSH_ERR_LIMIT wherever it happens (creating the
 * model, decoding, validating, indexing), and the message quotes the budget in force. */
Test(load, budget_failures_are_limit)
{
	const char *path = GOOD_DIR "/if_outer.onnx";
	for (uint64_t budget = 1; budget < 100000; budget += budget < 64 ? budget : budget / 8) {
		osh_model *m = NULL;
		osh_error err = {0};
		osh_load_options opts = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = budget};
		osh_status s = osh_model_load(&m, path, &opts, &err);
		if (s == OSH_OK) {
			osh_model_free(m);
			return;
		}
		char num[32];
		snprintf(num, sizeof num, " %llu bytes", (unsigned long long)budget);
		cr_expect_eq(s, OSH_ERR_LIMIT, "budget %llu: status %d (%s)", (unsigned long long)budget, (int)s,
			     err.message);
		cr_expect(contains(err.message, num), "budget %llu: %s", (unsigned long long)budget, err.message);
	}
	cr_assert_fail("%s does not load with 100000 bytes", path);
}

/* A pass that runs into the budget says so, with the budget and how to raise it: not
 * "out of memory" while memory is free. Searched for: the least budgets under which
 * a model loads, and the infer pass does not. */
Test(load, budget_overrun_in_a_pass_names_the_budget)
{
	const char *path = GOOD_DIR "/if_outer.onnx";
	bool seen = false;
	for (uint64_t budget = 4096; budget < ((uint64_t)64 << 20) && !seen; budget += budget / 16) {
		osh_model *m = NULL;
		osh_error err = {0};
		osh_load_options opts = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = budget};
		if (osh_model_load(&m, path, &opts, &err) != OSH_OK)
			continue;
		osh_status s = osh_infer(m, NULL, &err);
		if (s != OSH_OK) {
			seen = true;
			char num[64];
			snprintf(num, sizeof num, "the memory budget of %llu bytes", (unsigned long long)budget);
			cr_expect_eq(s, OSH_ERR_LIMIT, "budget %llu: status %d (%s)", (unsigned long long)budget, (int)s,
				     err.message);
			cr_expect(contains(err.message, num), "%s", err.message);
			cr_expect(contains(err.message, "osh_load_options.memory_budget"), "%s", err.message);
			cr_expect(!contains(err.message, "--memory-budget"), "the library names no flag: %s", err.message);
			cr_expect(!contains(err.message, "out of memory"), "%s", err.message);
		}
		osh_model_free(m);
		if (s == OSH_OK)
			break; /* loads and infers: no budget in between */
	}
	cr_expect(seen, "no budget loads %s but is too small for its inference", path);
}

/* ---- validate_tensor: data types and the fields their data lives in ----------- */

typedef struct tensor_case {
	const char *what;
	int32_t data_type;
	int64_t dims[2];
	size_t ndims;
	size_t n_float, n_int32, n_int64, n_double, n_uint64, n_string;
	int raw;          /* bytes of raw_data, -1 for none */
	const char *want; /* phrase of the expected finding, NULL for none */
} tensor_case;

static void check_tensor(osh_model *m, const tensor_case *c)
{
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	static float f[16];
	static int32_t i32[16];
	static int64_t i64[16], dims[2];
	static double d[16];
	static uint64_t u64[16];
	static ProtobufCBinaryData strs[16];
	static uint8_t raw[64];
	memcpy(dims, c->dims, sizeof dims);
	t.name = (char *)"t";
	t.has_data_type = true;
	t.data_type = c->data_type;
	t.n_dims = c->ndims, t.dims = dims;
	t.n_float_data = c->n_float, t.float_data = f;
	t.n_int32_data = c->n_int32, t.int32_data = i32;
	t.n_int64_data = c->n_int64, t.int64_data = i64;
	t.n_double_data = c->n_double, t.double_data = d;
	t.n_uint64_data = c->n_uint64, t.uint64_data = u64;
	t.n_string_data = c->n_string, t.string_data = strs;
	if (c->raw >= 0)
		t.has_raw_data = true, t.raw_data.len = (size_t)c->raw, t.raw_data.data = raw;
	size_t before = osh_model_diag_count(m);
	validate_tensor(m, m->main, -1, &t, "tensor 't'");
	size_t added = osh_model_diag_count(m) - before;
	if (!c->want) {
		cr_expect_eq(added, 0, "%s: unexpected finding: %s", c->what,
			     added ? osh_model_diag_at(m, before)->message : "");
	} else {
		cr_expect_eq(added, 1, "%s: %zu findings, want one", c->what, added);
		if (added)
			cr_expect(contains(osh_model_diag_at(m, before)->message, c->want), "%s: \"%s\" lacks \"%s\"",
				  c->what, osh_model_diag_at(m, before)->message, c->want);
	}
}

Test(validate_tensor, data_fields)
{
	static const tensor_case cases[] = {
		{"float [2,3]", 1, {2, 3}, 2, 6, 0, 0, 0, 0, 0, -1, NULL},
		{"float scalar", 1, {0}, 0, 1, 0, 0, 0, 0, 0, -1, NULL},
		{"float [0]", 1, {0}, 1, 0, 0, 0, 0, 0, 0, -1, NULL},
		{"float in int32_data", 1, {2, 3}, 2, 0, 6, 0, 0, 0, 0, -1, "stores its data in the wrong field"},
		{"float short", 1, {2, 3}, 2, 5, 0, 0, 0, 0, 0, -1, "dims give 6 elements but the data holds 5"},
		{"complex64 [2]", 14, {2}, 1, 4, 0, 0, 0, 0, 0, -1, NULL},
		{"complex64 short", 14, {2}, 1, 2, 0, 0, 0, 0, 0, -1, "dims give 2 elements but the data holds 2 entries"},
		{"complex128 [3]", 15, {3}, 1, 0, 0, 0, 6, 0, 0, -1, NULL},
		{"double [3]", 11, {3}, 1, 0, 0, 0, 3, 0, 0, -1, NULL},
		{"int64 [4]", 7, {4}, 1, 0, 0, 4, 0, 0, 0, -1, NULL},
		{"uint32 [2]", 12, {2}, 1, 0, 0, 0, 0, 2, 0, -1, NULL},
		{"uint64 [2]", 13, {2}, 1, 0, 0, 0, 0, 2, 0, -1, NULL},
		{"float16 [3]", 10, {3}, 1, 0, 3, 0, 0, 0, 0, -1, NULL},
		{"bool [3]", 9, {3}, 1, 0, 3, 0, 0, 0, 0, -1, NULL},
		{"int4 [3] packs two per entry", 22, {3}, 1, 0, 2, 0, 0, 0, 0, -1, NULL},
		{"int4 [3] unpacked", 22, {3}, 1, 0, 3, 0, 0, 0, 0, -1, "dims give 3 elements but the data holds 3 entries"},
		{"uint2 [5] packs four per entry", 25, {5}, 1, 0, 2, 0, 0, 0, 0, -1, NULL},
		{"string [2]", 8, {2}, 1, 0, 0, 0, 0, 0, 2, -1, NULL},
		{"raw float [2,3]", 1, {2, 3}, 2, 0, 0, 0, 0, 0, 0, 24, NULL},
		{"raw int4 [3]", 22, {3}, 1, 0, 0, 0, 0, 0, 0, 2, NULL},
		{"raw bool [3]", 9, {3}, 1, 0, 0, 0, 0, 0, 0, 3, NULL},
		{"raw too long", 1, {2}, 1, 0, 0, 0, 0, 0, 0, 9, "raw_data holds 9 bytes but 2 elements of FLOAT need 8"},
		{"raw and typed", 1, {2}, 1, 2, 0, 0, 0, 0, 0, 8, "has both raw_data and typed data fields"},
		{"raw string", 8, {1}, 1, 0, 0, 0, 0, 0, 0, 4, "STRING tensor with raw_data"},
		{"undefined type", 0, {1}, 1, 1, 0, 0, 0, 0, 0, -1, "has no (UNDEFINED) data type 0"},
		{"type 27", 27, {1}, 1, 1, 0, 0, 0, 0, 0, -1, "has an unknown data type 27"},
		{"negative type", -1, {1}, 1, 1, 0, 0, 0, 0, 0, -1, "has an unknown data type -1"},
		{"negative dim", 1, {3, -1}, 2, 0, 0, 0, 0, 0, 0, -1, "negative dimension -1 at axis 1"},
		{"INT64_MAX * 2", 1, {INT64_MAX, 2}, 2, 0, 0, 0, 0, 0, 0, -1, "element count overflows int64"},
		{"zero times huge", 1, {0, INT64_MAX}, 2, 0, 0, 0, 0, 0, 0, -1, NULL},
	};
	osh_model *m = load_ok(GOOD_DIR "/if_outer.onnx");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_tensor(m, &cases[i]);
	osh_model_free(m);
}

Test(validate_tensor, data_location)
{
	osh_model *m = load_ok(GOOD_DIR "/if_outer.onnx");
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	int64_t dims[] = {2};
	t.name = (char *)"t";
	t.has_data_type = true, t.data_type = 1;
	t.n_dims = 1, t.dims = dims;
	t.has_data_location = true, t.data_location = 7;
	validate_tensor(m, m->main, -1, &t, "tensor 't'");
	cr_assert_eq(osh_model_diag_count(m), 1);
	cr_expect(contains(osh_model_diag_at(m, 0)->message, "has an unknown data_location 7"));
	/* A segment's data is a slice of a larger tensor: not sized. */
	Onnx__TensorProto__Segment seg = ONNX__TENSOR_PROTO__SEGMENT__INIT;
	t.has_data_location = false;
	t.segment = &seg;
	validate_tensor(m, m->main, -1, &t, "tensor 't'");
	cr_expect_eq(osh_model_diag_count(m), 1);
	osh_model_free(m);
}

/* Entry counts computed from an element count near INT64_MAX: COMPLEX doubles it and
 * the 4- and 2-bit types round it up; none of it may overflow (UBSan would abort). */
Test(validate_tensor, entry_count_overflow)
{
	static const tensor_case cases[] = {
		{"complex64 [2^62]", 14, {INT64_C(1) << 62}, 1, 1, 0, 0, 0, 0, 0, -1, "the data holds 1"},
		{"complex128 [2^62]", 15, {INT64_C(1) << 62}, 1, 0, 0, 0, 1, 0, 0, -1, "the data holds 1"},
		{"int4 [INT64_MAX]", 22, {INT64_MAX}, 1, 0, 1, 0, 0, 0, 0, -1, "the data holds 1"},
		{"uint2 [INT64_MAX]", 25, {INT64_MAX}, 1, 0, 1, 0, 0, 0, 0, -1, "the data holds 1"},
	};
	osh_model *m = load_ok(GOOD_DIR "/if_outer.onnx");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_tensor(m, &cases[i]);
	osh_model_free(m);
}

/* The summary after the messages are built from the input's bytes (as a rewrite
 * builds them) and the IR is rebuilt: the initializers the loader counted while they
 * were still bytes are counted once, not again as messages. */
Test(good_fixture, summary_after_building_messages)
{
	osh_model *m = load_ok(OSH_MODELS_DIR "/examples/cnn_residual.onnx");
	/* Loaded the fast way, the initializers stay in the input until needed; the plain
	 * way (ONNXSHAPE_PLAIN_IO=1) they are messages at once, and the counts the same. */
	cr_assert(m->plain_io || m->src.wire_inits.n > 0);
	const osh_summary *s = osh_model_summary(m);
	cr_assert(s);
	size_t n = s->n_initializers;
	uint64_t bytes = s->initializer_bytes;
	cr_assert(n > 0);
	cr_assert(loader_build_messages(m));
	cr_assert(model_reindex(m));
	s = osh_model_summary(m);
	cr_assert(s);
	cr_expect_eq(s->n_initializers, n, "%zu initializers, %zu before", (size_t)s->n_initializers, n);
	cr_expect_eq(s->initializer_bytes, bytes);
	osh_model_free(m);
}
