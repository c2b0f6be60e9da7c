/* test_scan_split.c: the pre-scan of a big file in two threads (loader/load.c, with
 * prescan_outline and prescan_graph_elements of loader/prescan.c).
 *
 * A file of a megabyte or more has its main graph's nodes and initializers scanned by
 * a second thread while the index reads them. Whatever that thread meets, the caller
 * must see what the one-thread scan decides: the same status and message for a
 * refused file (its first problem in file order, wherever either thread was), the
 * same model for an accepted one. osh_model_load_buffer always scans in one thread,
 * so every case here loads the same bytes both ways and compares.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "test_files.h"
#include "wbuf.h"

#include "onnxshape.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- bytes ---------------------------------------------------------------------- */

/* A megabyte of doc_string (ModelProto field 6) after `b`: the file is big enough
 * for the two-thread scan, and the bytes before it are as they were. */
static void pad_to_a_megabyte(wbuf *b)
{
	size_t n = (size_t)1 << 20;
	char *text = malloc(n);
	cr_assert(text);
	memset(text, 'd', n);
	put_bytes(b, 6, text, n);
	free(text);
}

/* ---- loading both ways ----------------------------------------------------------- */

typedef struct outcome {
	osh_status status;
	char message[sizeof ((osh_error *)0)->message];
	size_t diags;
	bool malformed;
	char first_diag[512];
} outcome;

static outcome outcome_of(osh_status s, osh_model *m, const osh_error *err)
{
	outcome o = {.status = s};
	if (s != OSH_OK) {
		snprintf(o.message, sizeof o.message, "%s", err->message);
		return o;
	}
	o.diags = osh_model_diag_count(m);
	o.malformed = osh_model_is_malformed(m);
	if (o.diags)
		snprintf(o.first_diag, sizeof o.first_diag, "%s", osh_model_diag_at(m, 0)->message);
	osh_model_free(m);
	return o;
}

/* Writes the bytes to `path`, loads the file (two threads: it is a megabyte or
 * more) and the bytes (one thread), both under the name `path`, and checks the two
 * agree. Returns the file's outcome. */
static outcome load_both_ways(const char *path, const uint8_t *p, size_t n)
{
	cr_assert_geq(n, (size_t)1 << 20, "the file must be big enough for the two-thread scan");
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(p, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	osh_model *m = NULL;
	osh_error err = {0};
	osh_status s = osh_model_load(&m, path, NULL, &err);
	outcome file = outcome_of(s, m, &err);
	m = NULL;
	memset(&err, 0, sizeof err);
	s = osh_model_load_buffer(&m, p, n, path, NULL, &err);
	outcome mem = outcome_of(s, m, &err);
	cr_assert_eq(file.status, mem.status, "%s: status %d from the file, %d from memory (%s | %s)", path,
		     file.status, mem.status, file.message, mem.message);
	cr_assert_str_eq(file.message, mem.message, "%s", path);
	cr_assert_eq(file.diags, mem.diags, "%s", path);
	cr_assert_eq(file.malformed, mem.malformed, "%s", path);
	cr_assert_str_eq(file.first_diag, mem.first_diag, "%s", path);
	return file;
}

typedef struct model_list {
	char **paths;
	size_t n;
} model_list;

/* Keeps path when it names a .onnx file. */
static void add_model(const char *path, void *ctx)
{
	model_list *l = ctx;
	size_t len = strlen(path);
	if (len <= 5 || strcmp(path + len - 5, ".onnx"))
		return;
	l->paths = realloc(l->paths, (l->n + 1) * sizeof *l->paths);
	cr_assert(l->paths && (l->paths[l->n] = strdup(path)));
	l->n++;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ---- the cases ------------------------------------------------------------------- */

/* Every model of tests/models, padded to a megabyte, as it is and with a few bytes
 * changed among its own (not the padding's): refused in the outline, in an
 * initializer, in a node, or accepted, the two scans agree. */
Test(split_scan, fixtures_and_their_mutations_agree_with_one_thread, .timeout = 240)
{
	model_list l = {0};
	for_each_file(OSH_MODELS_DIR, true, add_model, &l);
	char **models = l.paths;
	size_t count = l.n;
	cr_assert_gt(count, 100, "found %zu models", count);
	qsort(models, count, sizeof *models, by_name); /* the same mutations every run */
	char *dir = make_tmpdir_for("split_scan");
	char *path = path_in(dir, "model.onnx");
	uint64_t rng = 0x9e3779b97f4a7c15u;
	size_t refused = 0, accepted = 0;
	for (size_t i = 0; i < count; i++) {
		size_t n;
		uint8_t *orig = slurp(models[i], &n);
		for (int k = 0; k < 9; k++) {
			wbuf b = {0};
			put(&b, orig, n);
			for (int e = 0; k && n && e < 1 + k % 3; e++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				b.p[rng % n] = (uint8_t)(rng >> 32);
			}
			pad_to_a_megabyte(&b);
			outcome o = load_both_ways(path, b.p, b.n);
			if (o.status == OSH_OK)
				accepted++;
			else
				refused++;
			free(b.p);
		}
		free(orig);
		free(models[i]);
	}
	free(models);
	/* Both kinds are met many times (a test that only ever saw one proves little). */
	cr_expect_gt(refused, 300, "%zu refused", refused);
	cr_expect_gt(accepted, 300, "%zu accepted", accepted);
	unlink(path);
	free(path);
	remove_dir(dir);
}

/* One node: Relu from `in` to `out`. */
static void relu(wbuf *graph, const char *in, const char *out)
{
	wbuf nd = {0};
	put_str(&nd, 1, in);
	put_str(&nd, 2, out);
	put_str(&nd, 4, "Relu");
	put_msg(graph, 1, &nd);
}

/* A float initializer `name` of shape [4] (raw data). */
static void initializer(wbuf *graph, const char *name)
{
	wbuf t = {0};
	put_vfield(&t, 1, 4); /* dims */
	put_vfield(&t, 2, 1); /* FLOAT */
	put_str(&t, 8, name);
	put_bytes(&t, 9, "\0\0\x80?\0\0\x80?\0\0\x80?\0\0\x80?", 16);
	put_msg(graph, 5, &t);
}

/* The graph of a model of `nodes` Relu nodes in a chain and as many initializers,
 * with the graph's input and output declared; `last_node` and `last_init`, when
 * not NULL, replace the last node and the last initializer. */
static wbuf long_model(int nodes, const wbuf *last_node, const wbuf *last_init)
{
	wbuf g = {0}, model = {0};
	char in[32], out[32];
	for (int i = 0; i < nodes; i++) {
		snprintf(in, sizeof in, "t%d", i);
		snprintf(out, sizeof out, "t%d", i + 1);
		if (i == nodes - 1 && last_node)
			put_bytes(&g, 1, last_node->p, last_node->n);
		else
			relu(&g, in, out);
	}
	for (int i = 0; i < nodes; i++) {
		snprintf(in, sizeof in, "w%d", i);
		if (i == nodes - 1 && last_init)
			put_bytes(&g, 5, last_init->p, last_init->n);
		else
			initializer(&g, in);
	}
	for (int k = 0; k < 2; k++) {
		wbuf vi = {0}, tp = {0}, tensor = {0};
		put_vfield(&tensor, 1, 1);
		put_msg(&tp, 1, &tensor);
		snprintf(in, sizeof in, "t%d", k ? nodes : 0);
		put_str(&vi, 1, in);
		put_msg(&vi, 2, &tp);
		put_msg(&g, k ? 12 : 11, &vi);
	}
	put_vfield(&model, 1, 8); /* ir_version */
	wbuf opset = {0};
	put_vfield(&opset, 2, 17);
	put_msg(&model, 8, &opset);
	put_msg(&model, 7, &g);
	return model;
}

/* Writing from the end of a buffer backwards: each message is its content, already
 * in place, with its key and length put before it. */
typedef struct rbuf {
	uint8_t *p;
	size_t pos, cap; /* the bytes are [pos, cap) */
} rbuf;

static void rput(rbuf *r, const void *d, size_t n)
{
	cr_assert_leq(n, r->pos);
	r->pos -= n;
	memcpy(r->p + r->pos, d, n);
}

static void rput_varint(rbuf *r, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	rput(r, tmp, n);
}

/* Makes everything written so far (since `start`, the content's end) field `field`
 * of the message around it. */
static void rwrap(rbuf *r, uint32_t field, size_t start)
{
	rput_varint(r, start - r->pos);
	rput_varint(r, (uint64_t)field << 3 | 2);
}

static void rput_str(rbuf *r, uint32_t field, const char *s)
{
	size_t end = r->pos;
	rput(r, s, strlen(s));
	rwrap(r, field, end);
}

/* A node nested `depth` graphs deep (node → attribute g → graph → node ...), built
 * from the inside out. protobuf-c unpacks such a node by recursion, a C frame per
 * message: only the pre-scan's verdict, given before the index reads the node, keeps
 * it from the decoder. */
static wbuf nested_node(int depth)
{
	rbuf r = {.cap = (size_t)depth * 40 + 64};
	r.p = malloc(r.cap);
	cr_assert(r.p);
	r.pos = r.cap;
	rput_str(&r, 4, "Identity");
	for (int i = 0; i < depth; i++) {
		rwrap(&r, 1, r.cap);     /* the graph's node */
		rwrap(&r, 6, r.cap);     /* the attribute's graph */
		rput_varint(&r, 5);      /* type GRAPH */
		rput_varint(&r, 20 << 3); /* key of the attribute's type */
		rput_str(&r, 1, "body"); /* its name */
		rwrap(&r, 5, r.cap);     /* the node's attribute */
		rput_str(&r, 4, "Loop");
	}
	wbuf b = {0};
	put(&b, r.p + r.pos, r.cap - r.pos);
	free(r.p);
	return b;
}

static void check_long(const char *tag, const wbuf *last_node, const wbuf *last_init, osh_status want,
		       const char *want_text)
{
	wbuf model = long_model(30000, last_node, last_init);
	if (model.n < ((size_t)1 << 20))
		pad_to_a_megabyte(&model);
	char *dir = make_tmpdir_for(tag);
	char *path = path_in(dir, "long.onnx");
	outcome o = load_both_ways(path, model.p, model.n);
	cr_expect_eq(o.status, want, "%s: status %d: %s", tag, o.status, o.message);
	if (want_text)
		cr_expect(strstr(o.message, want_text), "%s: %s", tag, o.message);
	free(model.p);
	unlink(path);
	free(path);
	remove_dir(dir);
}

/* 30,000 nodes and initializers: accepted, and a problem in the very last node or
 * initializer, met by the second thread long after the index started. */
Test(split_scan, a_long_graph_accepted, .timeout = 60)
{
	check_long("split_ok", NULL, NULL, OSH_OK, NULL);
}

Test(split_scan, the_last_node_refused, .timeout = 60)
{
	wbuf nd = {0};
	put_str(&nd, 1, "t29999");
	put_str(&nd, 2, "t30000");
	put_bytes(&nd, 4, "Re\0lu", 5);
	check_long("split_node", &nd, NULL, OSH_ERR_DECODE, "graph.node[29999].op_type");
	free(nd.p);
}

Test(split_scan, the_last_initializer_refused, .timeout = 60)
{
	wbuf t = {0};
	put_vfield(&t, 1, 4);
	put_str(&t, 2, "FLOAT"); /* data_type is a varint */
	check_long("split_init", NULL, &t, OSH_ERR_DECODE, "graph.initializer[29999]");
	free(t.p);
}

Test(split_scan, a_node_nested_too_deep_never_reaches_the_decoder, .timeout = 60)
{
	wbuf nd = nested_node(100000);
	check_long("split_deep", &nd, NULL, OSH_ERR_LIMIT, "nested more than 100 levels deep");
	free(nd.p);
}
