/* test_load_split.c: models with big inline weights are unpacked an initializer at a
 * time, the biggest weights pointing into the input instead of copied
 * (src/loader/unpack_split.c). The reference is protobuf-c's own one-call unpack and
 * pack: a model loaded from a file (the input a mapping, unmapped around the
 * weights) and from memory (an arena copy) must both pack back to its bytes.
 *
 * The models are written here on the wire by hand, so that the graph's initializers
 * can be interleaved with its other fields (nodes, name, inputs, outputs) and carry
 * distinct, non-zero contents: a piece put back in the wrong order or read from
 * released memory shows up as a difference. Models under its threshold must load
 * the same way too.
 */
#define _GNU_SOURCE
#include "onnx-ml.pb-c.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "wbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>


/* An initializer FLOAT [rows, 64], raw_data filled from seed. */
static void initializer(wbuf *graph, const char *name, int64_t rows, uint32_t seed)
{
	wbuf t = {0};
	put_vfield(&t, 1, (uint64_t)rows);
	put_vfield(&t, 1, 64);
	put_vfield(&t, 2, 1); /* FLOAT */
	put_str(&t, 8, name);
	size_t n = (size_t)rows * 64;
	float *f = malloc(n * sizeof *f);
	cr_assert(f);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		f[i] = (float)(seed >> 8) / 16777216.0f + 0.5f;
	}
	put_bytes(&t, 9, f, n * sizeof *f);
	free(f);
	put_msg(graph, 5, &t);
}

static void value_info(wbuf *graph, uint32_t field, const char *name)
{
	wbuf dim = {0}, shape = {0}, tt = {0}, type = {0}, vi = {0};
	put_str(&dim, 2, "N");
	put_msg(&shape, 1, &dim);
	put_vfield(&dim, 1, 64);
	put_msg(&shape, 1, &dim);
	put_vfield(&tt, 1, 1);
	put_msg(&tt, 2, &shape);
	put_msg(&type, 1, &tt);
	put_str(&vi, 1, name);
	put_msg(&vi, 2, &type);
	put_msg(graph, field, &vi);
}

static void node(wbuf *graph, const char *op, const char *a, const char *b, const char *out)
{
	wbuf n = {0};
	put_str(&n, 1, a);
	if (b)
		put_str(&n, 1, b);
	put_str(&n, 2, out);
	put_str(&n, 4, op);
	put_msg(graph, 1, &n);
}

/* A graph x -> Add w0 -> ... -> Add w(k-1) -> y, its fields interleaved: each node
 * follows its initializer, the name and inputs come in the middle. Initializers have
 * `rows` rows, odd-numbered ones `odd_rows`. */
static void graph_fields(wbuf *g, int k, int64_t rows, int64_t odd_rows)
{
	char in[16] = "x", out[16], w[16];
	for (int i = 0; i < k; i++) {
		snprintf(w, sizeof w, "w%d", i);
		initializer(g, w, i % 2 ? odd_rows : rows, (uint32_t)i + 1);
		snprintf(out, sizeof out, i == k - 1 ? "y" : "v%d", i);
		node(g, "Add", in, w, out);
		strcpy(in, out);
		if (i == k / 2) {
			put_str(g, 2, "split");
			value_info(g, 11, "x");
		}
	}
	value_info(g, 12, "y");
}

/* The same graph as onnx.save lays it out: every node first, then the initializers,
 * so the nodes' bytes are read in place from the input (unpack_split.c). */
static void graph_fields_stretch(wbuf *g, int k, int64_t rows)
{
	char in[16] = "x", out[16], w[16];
	for (int i = 0; i < k; i++) {
		snprintf(w, sizeof w, "w%d", i);
		snprintf(out, sizeof out, i == k - 1 ? "y" : "v%d", i);
		node(g, "Add", in, w, out);
		strcpy(in, out);
	}
	put_str(g, 2, "stretch");
	for (int i = 0; i < k; i++) {
		snprintf(w, sizeof w, "w%d", i);
		initializer(g, w, rows, (uint32_t)i + 1);
	}
	value_info(g, 11, "x");
	value_info(g, 12, "y");
}

static wbuf model_mixed(int k, int64_t rows, int64_t odd_rows);
static wbuf model(int k, int64_t rows) { return model_mixed(k, rows, rows); }

/* A model of IR 8 and opset 13 around the graph fields g (consumed). */
static wbuf model_of(wbuf *g)
{
	wbuf m = {0}, opset = {0};
	put_vfield(&m, 1, 8);
	put_vfield(&opset, 2, 13);
	put_msg(&m, 8, &opset);
	put_msg(&m, 7, g);
	put_str(&m, 2, "test_load_split");
	return m;
}

static wbuf model_mixed(int k, int64_t rows, int64_t odd_rows)
{
	wbuf g = {0};
	graph_fields(&g, k, rows, odd_rows);
	return model_of(&g);
}

/* Loads the bytes from a file and from memory; both must pack to what protobuf-c's
 * own unpack and pack make of them. */
static void same_both_ways(wbuf *m)
{
	char path[] = "/tmp/osh_split_XXXXXX";
	wbuf_to_temp(m, path);
	osh_model *a = NULL, *b = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&a, path, NULL, &err), OSH_OK, "%s", err.message);
	unlink(path);
	cr_assert_eq(osh_model_load_buffer(&b, m->p, m->n, "mem", NULL, &err), OSH_OK, "%s", err.message);
	Onnx__ModelProto *ref = onnx__model_proto__unpack(NULL, m->n, m->p);
	cr_assert(ref);
	size_t nref = protobuf_c_message_get_packed_size(&ref->base);
	uint8_t *pref = malloc(nref);
	cr_assert(pref);
	protobuf_c_message_pack(&ref->base, pref);
	onnx__model_proto__free_unpacked(ref, NULL);
	uint8_t *pa, *pb;
	size_t na, nb;
	cr_assert_eq(osh_model_pack(a, &pa, &na, &err), OSH_OK);
	cr_assert_eq(osh_model_pack(b, &pb, &nb, &err), OSH_OK);
	cr_assert_eq(na, nref);
	cr_assert_eq(nb, nref);
	cr_assert(!memcmp(pa, pref, na), "loaded from a file, the model packs differently from protobuf-c's");
	cr_assert(!memcmp(pb, pref, nb), "loaded from memory, the model packs differently from protobuf-c's");
	/* Everything the file holds is in the packed model (packing only reorders). */
	cr_assert_eq(na, m->n);
	free(pa);
	free(pb);
	free(pref);
	osh_model_free(a);
	osh_model_free(b);
	free(m->p);
}

Test(load_split, interleaved_big_initializers)
{
	/* 6 x 1024 x 64 floats: 1.5 MB of weights, over the 1 MB threshold; 256 KB
	 * each, pointed to in the input. */
	wbuf m = model(6, 1024);
	same_both_ways(&m);
}

Test(load_split, nodes_in_one_stretch)
{
	/* 40 nodes read where they are, before 40 x 256 KB of weights: 10 MB, so the
	 * pages behind the index are dropped in steps and the nodes' pages are read
	 * again from the page cache when the model is packed. */
	wbuf g = {0};
	graph_fields_stretch(&g, 40, 1024);
	wbuf m = model_of(&g);
	same_both_ways(&m);
}

/* A chain of n Add nodes named from `fmt` and no initializer, over 1 MB so the file
 * is mapped: the model must keep the mapping for the nodes' bytes alone. */
static void chain_without_initializers(int n, const char *fmt)
{
	wbuf g = {0};
	char in[32] = "x", out[32];
	for (int i = 0; i < n; i++) {
		if (i == n - 1)
			strcpy(out, "y");
		else
			snprintf(out, sizeof out, fmt, i);
		node(&g, "Add", in, in, out);
		strcpy(in, out);
	}
	value_info(&g, 11, "x");
	value_info(&g, 12, "y");
	wbuf m = model_of(&g);
	cr_assert_gt(m.n, (size_t)1 << 20);
	same_both_ways(&m);
}

Test(load_split, nodes_without_initializers)
{
	/* 24 bytes a node: too small for the outline to record (prescan.c,
	 * SPANS_MIN_ELEMENT), so unpack_split finds them itself. */
	chain_without_initializers(60000, "v%d");
}

Test(load_split, long_named_nodes_without_initializers)
{
	/* 48 bytes a node: the outline's record of them is used. */
	chain_without_initializers(30000, "value_number_%06d");
}

Test(load_split, unaligned_sizes)
{
	/* 9 initializers of 1,001 rows: slices end in the middle of pages. */
	wbuf m = model(9, 1001);
	same_both_ways(&m);
}

Test(load_split, copied_and_aliased_mixed)
{
	/* 60 initializers, 256 KB (pointed to) and 51 KB (copied, under the 64 KB
	 * threshold) in turn: 9 MB, so the copied stretches are unmapped in steps too. */
	wbuf m = model_mixed(60, 1024, 200);
	same_both_ways(&m);
}

Test(load_split, small_model_unchanged)
{
	wbuf m = model(3, 8);
	same_both_ways(&m);
}

Test(load_split, changed_source_not_written)
{
	/* Mapped weights are read when the model is written: a source file that changed
	 * since loading must not be mixed into the output. */
	wbuf m = model(6, 1024);
	char path[] = "/tmp/osh_split_stale_XXXXXX";
	wbuf_to_temp(&m, path);
	osh_model *a = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&a, path, NULL, &err), OSH_OK, "%s", err.message);
	/* Same size, other bytes, another time stamp. */
	m.p[m.n - 1] ^= 1;
	int fd = open(path, O_WRONLY);
	cr_assert(fd >= 0 && pwrite(fd, m.p, m.n, 0) == (ssize_t)m.n);
	struct timespec ts[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	cr_assert(futimens(fd, ts) == 0);
	close(fd);
	char out[64];
	snprintf(out, sizeof out, "/tmp/osh_split_stale_out_%d.onnx", (int)getpid());
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .force_pack = true};
	cr_assert_neq(osh_model_write(a, out, &wo, &err), OSH_OK);
	cr_assert(strstr(err.message, "changed on disk"), "%s", err.message);
	cr_assert(access(out, F_OK) != 0, "nothing may be written");
	osh_model_free(a);
	unlink(path);
	free(m.p);
}
