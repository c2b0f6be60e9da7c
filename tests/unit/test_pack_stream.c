/* test_pack_stream.c: osh_model_write packs a changed model in one pass, two levels
 * at a time (src/emit/pack_stream.c); the reference is protobuf-c's own
 * protobuf_c_message_pack, which osh_model_pack uses. Every model of tests/models
 * (good ones with unknown fields, subgraphs, functions, external data; examples; the
 * lint and rewrite fixtures) is loaded, inferred and annotated (value_info entries,
 * in subgraphs too), and written with force_pack. The main graph's nodes are then still the file's bytes
 * (loader/unpack_split.c) and are written as such, so the file is compared through
 * protobuf-c: reloaded and packed, it must give exactly the bytes osh_model_pack
 * gives for the model it was written from. A model whose nodes are messages (here,
 * after a first osh_model_pack) must be written exactly as protobuf-c packs it.
 * The two built models cover what the fixtures do not: an initializer bigger than
 * the scratch buffer (streamed through pack_to_buffer) and a model without a graph.
 */
#define _GNU_SOURCE
#include "api/devices.h"
#include "core/model.h"
#include "core/strmap.h"
#include "core/tuning.h"
#include "emit/edit.h"
#include "loader/reindex.h"
#include "mb.h"
#include "onnxshape.h"
#include "wb.h"

#include <criterion/criterion.h>
#include "wbuf.h" /* after Criterion: its assertions */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n ? (size_t)n : 1);
	cr_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return b;
}

static size_t slurp_size_of(const char *path)
{
	size_t n;
	free(slurp(path, &n));
	return n;
}

/* Loads path, infers, and compares osh_model_write (force_pack) with osh_model_pack.
 * Returns false when the model does not load (bad fixtures are not for this test). */
static bool same_pack(const char *path)
{
	osh_model *m = NULL;
	osh_error err = {0};
	if (osh_model_load(&m, path, NULL, &err) != OSH_OK)
		return false;
	/* Annotated: value_info entries in the graphs, subgraphs of nodes included. */
	if (osh_infer(m, NULL, &err) == OSH_OK)
		osh_annotate(m, &err);
	if (osh_model_is_malformed(m)) { /* nothing to write */
		osh_model_free(m);
		return false;
	}
	/* Written beside the model: external data must stay reachable. */
	char out[4096];
	const char *slash = strrchr(path, '/');
	snprintf(out, sizeof out, "/tmp/osh_pack_stream_%d.onnx", (int)getpid());
	bool ext = strstr(path, "external") != NULL;
	if (ext)
		snprintf(out, sizeof out, "%.*s/.osh_pack_stream_%d.onnx", (int)(slash - path), path, (int)getpid());
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .force_pack = true};
	/* First with the nodes as the file's bytes. */
	cr_assert_eq(osh_model_write(m, out, &wo, &err), OSH_OK, "%s: %s", path, err.message);
	osh_model *back = NULL;
	cr_assert_eq(osh_model_load(&back, out, NULL, &err), OSH_OK, "%s: the written model: %s", path, err.message);
	uint8_t *ref, *again;
	size_t nref, nagain;
	cr_assert_eq(osh_model_pack(m, &ref, &nref, &err), OSH_OK, "%s: %s", path, err.message);
	cr_assert_eq(osh_model_pack(back, &again, &nagain, &err), OSH_OK, "%s: %s", path, err.message);
	cr_assert(nagain == nref && !memcmp(again, ref, nref), "%s: the written model is not the model", path);
	osh_model_free(back);
	free(again);
	/* Then with every node a message: protobuf-c's bytes exactly. */
	cr_assert_eq(osh_model_write(m, out, &wo, &err), OSH_OK, "%s: %s", path, err.message);
	size_t n;
	uint8_t *got = slurp(out, &n);
	unlink(out);
	cr_assert_eq(n, nref, "%s: %zu bytes written, protobuf-c packs %zu", path, n, nref);
	cr_assert(!memcmp(got, ref, n), "%s: the streamed bytes differ from protobuf-c's", path);
	free(got);
	free(ref);
	osh_model_free(m);
	return true;
}

/* same_pack for a model built here (the builder is consumed). */
static bool same_pack_built(mb *b, const char *tag)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/osh_pack_%s_%d.onnx", tag, (int)getpid());
	mb_save(b, path);
	bool ok = same_pack(path);
	unlink(path);
	return ok;
}

/* same_pack for bytes written here: they must load. */
static void same_pack_bytes(const uint8_t *bytes, size_t n, const char *tag)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/osh_pack_%s_%d.onnx", tag, (int)getpid());
	FILE *f = fopen(path, "wb");
	cr_assert(f && fwrite(bytes, 1, n, f) == n);
	fclose(f);
	cr_assert(same_pack(path), "%s: the model did not load", tag);
	unlink(path);
}

static int walk(const char *dir)
{
	int count = 0;
	DIR *d = opendir(dir);
	cr_assert(d, "%s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			count += walk(p);
		else if (strlen(p) > 5 && !strcmp(p + strlen(p) - 5, ".onnx"))
			count += same_pack(p);
	}
	closedir(d);
	return count;
}

Test(pack_stream, fixtures_pack_as_protobuf_c)
{
	int n = walk(OSH_MODELS_DIR "/good") + walk(OSH_MODELS_DIR "/examples") + walk(OSH_MODELS_DIR "/lint") +
		walk(OSH_MODELS_DIR "/rewrite");
	cr_assert_geq(n, 10, "only %d fixtures compared", n);
}

Test(pack_stream, big_initializer_streams)
{
	/* 600 x 600 floats: 1.4 MB, over the 1 MB scratch limit. */
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,600");
	mb_init(b, "w", DT_FLOAT, "600,600");
	mb_init(b, "bias", DT_FLOAT, "600");
	mb_node(b, "MatMul", "x,w", "y");
	mb_node(b, "Add", "y,bias", "z");
	mb_output(b, "z", 0, NULL);
	cr_assert(same_pack_built(b, "big"));
}

/* A model whose main graph holds an If; with `big`, also a weight of 1.4 MB, used
 * after it, so that the file is split and its nodes stay bytes read where they are. */
static mb *if_model(bool big)
{
	mb *b = mb_new(13);
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "x", DT_FLOAT, "N,3");
	if (big)
		mb_init(b, "w", DT_FLOAT, "3,120000");
	mb_node(b, "Relu", "x", "r");
	mb_node(b, "If", "cond", "y");
	mb *t = mb_new(13);
	mb_node(t, "Neg", "r", "t1");
	mb_node(t, "Abs", "t1", "t2");
	mb_output(t, "t2", 0, NULL);
	mb *e = mb_new(13);
	mb_node(e, "Sigmoid", "r", "e1");
	mb_node(e, "Abs", "e1", "e2");
	mb_output(e, "e2", 0, NULL);
	mb_attr_graph(b, "then_branch", t);
	mb_attr_graph(b, "else_branch", e);
	if (big) {
		mb_node(b, "MatMul", "y,w", "z");
		mb_output(b, "z", 0, NULL);
	} else {
		mb_output(b, "y", 0, NULL);
	}
	return b;
}

/* The main graph's If is a message (its branches are graphs), and annotating gives
 * its branches' inner values value_info entries: the streamed write must pack that
 * node from its message, not copy the bytes the file had (a fuzzer's finding). */
Test(pack_stream, annotated_branches_are_written)
{
	cr_assert(same_pack_built(if_model(false), "if"));
}

/* The same in a file of 1.4 MB, whose nodes stay bytes read where they are (one
 * stretch: the writer could copy them whole, but for the If). */
Test(pack_stream, annotated_branches_are_written_from_a_big_file)
{
	cr_assert(same_pack_built(if_model(true), "ifbig"));
}

/* A new value_info entry too big to be put together on the stack (a 1000-byte value
 * name): assembled in the scratch buffer, the same bytes. */
Test(pack_stream, long_value_names_annotated)
{
	char name[1001];
	memset(name, 'v', 1000);
	name[1000] = '\0';
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_node(b, "Relu", "x", name);
	mb_node(b, "Neg", name, "y");
	mb_output(b, "y", 0, NULL);
	cr_assert(same_pack_built(b, "longname"));
}

/* The main graph's new value_info entries stay names and types until messages are
 * needed (m->pending.value_info): annotating twice writes each entry once, and the
 * bytes of one annotation, written streamed or packed by protobuf-c after the entries
 * became messages, are the same. */
Test(pack_stream, annotations_kept_as_names_and_types)
{
	const char *path = OSH_MODELS_DIR "/examples/transformer_block.onnx";
	char once[256], twice[256];
	snprintf(once, sizeof once, "/tmp/osh_annot_once_%d.onnx", (int)getpid());
	snprintf(twice, sizeof twice, "/tmp/osh_annot_twice_%d.onnx", (int)getpid());
	uint8_t *packed = NULL;
	size_t npacked = 0;
	for (int k = 1; k <= 2; k++) {
		osh_model *m = NULL;
		osh_error err = {0};
		cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
		for (int i = 0; i < k; i++)
			cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_model_write(m, k == 1 ? once : twice, NULL, &err), OSH_OK, "%s", err.message);
		if (k == 1)
			cr_assert_eq(osh_model_pack(m, &packed, &npacked, &err), OSH_OK, "%s", err.message);
		osh_model_free(m);
	}
	size_t n1, n2;
	uint8_t *a = slurp(once, &n1), *b = slurp(twice, &n2);
	cr_expect(n1 == n2 && !memcmp(a, b, n1), "annotated twice: %zu bytes, once: %zu", n2, n1);
	/* The written file holds value_info entries (the fixture has none of its own). */
	cr_expect_gt(n1, slurp_size_of(path), "no entries written");
	osh_model *back = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&back, once, NULL, &err), OSH_OK, "%s", err.message);
	uint8_t *again;
	size_t nagain;
	cr_assert_eq(osh_model_pack(back, &again, &nagain, &err), OSH_OK, "%s", err.message);
	cr_expect(nagain == npacked && !memcmp(again, packed, npacked), "streamed and packed annotations differ");
	osh_model_free(back);
	free(a), free(b), free(again), free(packed);
	remove(once), remove(twice);
}

/* ValueInfoProto entries whose type is packed once and merged in after their other
 * fields: entries with a doc_string and an unknown field beside the type (both after
 * it in protobuf-c's order), an empty type (no bytes: a fuzzer's finding under
 * UBSan), and the shared types annotate writes. */
Test(pack_stream, value_info_types_merged_among_other_fields)
{
	wb dim_n = {0}, dim_3 = {0}, shp = {0}, tensor = {0}, type = {0};
	str(&dim_n, 2, "N");
	vfield(&dim_3, 1, 3);
	sub(&shp, 1, &dim_n), sub(&shp, 1, &dim_3);
	vfield(&tensor, 1, 1), sub(&tensor, 2, &shp);
	sub(&type, 1, &tensor);
	wb in = {0}, out = {0}, vi = {0}, n1 = {0}, n2 = {0}, n3 = {0}, gr = {0}, opset = {0}, model = {0};
	str(&in, 1, "x"), sub(&in, 2, &type), str(&in, 3, "the input"), vfield(&in, 100, 7);
	str(&out, 1, "y");
	str(&vi, 1, "z"), str(&vi, 3, "declared"), sub(&vi, 2, &type);
	wb empty_type = {0}, vi_w = {0}; /* a type that packs to no bytes at all */
	str(&vi_w, 1, "w"), sub(&vi_w, 2, &empty_type);
	str(&n1, 1, "x"), str(&n1, 2, "z"), str(&n1, 4, "Relu");
	str(&n2, 1, "z"), str(&n2, 2, "w"), str(&n2, 4, "Relu");
	str(&n3, 1, "w"), str(&n3, 2, "y"), str(&n3, 4, "Relu");
	sub(&gr, 1, &n1), sub(&gr, 1, &n2), sub(&gr, 1, &n3), str(&gr, 2, "g");
	sub(&gr, 11, &in), sub(&gr, 12, &out), sub(&gr, 13, &vi), sub(&gr, 13, &vi_w);
	str(&opset, 1, ""), vfield(&opset, 2, 13);
	vfield(&model, 1, 8), sub(&model, 7, &gr), sub(&model, 8, &opset);
	same_pack_bytes(model.b, model.n, "vi");
}

Test(pack_stream, model_without_graph)
{
	/* ir_version 8, one opset import, no graph: packed by protobuf-c as a whole. */
	static const uint8_t bytes[] = {0x08, 0x08, 0x42, 0x02, 0x10, 0x0d};
	char path[64];
	snprintf(path, sizeof path, "/tmp/osh_pack_nograph_%d.onnx", (int)getpid());
	FILE *f = fopen(path, "wb");
	cr_assert(f && fwrite(bytes, 1, sizeof bytes, f) == sizeof bytes);
	fclose(f);
	same_pack(path); /* may be refused as malformed; must not crash either way */
	unlink(path);
}

/* ---- initializers copied in runs --------------------------------------------------
 * The initializers a split load kept as bytes are copied from the input a run at a
 * time (one write from 1 MB on). A run must stop where the input's bytes are not the
 * output's: a node between two weights, a length written with a padded varint. */


/* A model of 600 weights of 4 KB (2.4 MB, several runs), with one weight's length
 * written as a padded varint (when `padded`) and a node between two of them (when
 * `node_between`); with neither, the weights are one stretch as protobuf-c writes
 * them, which the writer copies without reading (pack_stream.c, put_tight). */
static wbuf runs_model_of(bool padded, bool node_between)
{
	enum { WEIGHTS = 600, FLOATS = 1024 };
	static float raw[FLOATS];
	for (int i = 0; i < FLOATS; i++)
		raw[i] = (float)i;
	wbuf g = {0};
	wb relu = {0};
	str(&relu, 1, "x"), str(&relu, 2, "y"), str(&relu, 4, "Relu");
	put_bytes(&g, 1, relu.b, relu.n);
	for (int i = 0; i < WEIGHTS; i++) {
		wb t = {0};
		char name[16];
		snprintf(name, sizeof name, "w%d", i);
		vfield(&t, 1, FLOATS), vfield(&t, 2, 1), str(&t, 8, name);
		/* raw_data (9) by hand: 4 KB does not fit a wb. */
		wbuf tensor = {0};
		put(&tensor, t.b, t.n);
		put_bytes(&tensor, 9, raw, sizeof raw);
		if (padded && i == 450) {
			/* The weight's length as a padded varint: three bytes, not two. */
			put_varint(&g, 5 << 3 | 2);
			uint8_t len[3] = {(uint8_t)(tensor.n & 0x7f) | 0x80, (uint8_t)((tensor.n >> 7) & 0x7f) | 0x80, 0};
			cr_assert_lt(tensor.n, (size_t)1 << 14);
			put(&g, len, sizeof len);
			put(&g, tensor.p, tensor.n);
		} else {
			put_bytes(&g, 5, tensor.p, tensor.n);
		}
		free(tensor.p);
		if (node_between && i == 300) { /* a node between two weights */
			wb mid = {0};
			str(&mid, 1, "y"), str(&mid, 2, "z"), str(&mid, 4, "Relu");
			put_bytes(&g, 1, mid.b, mid.n);
		}
	}
	wb in = {0}, out = {0};
	str(&in, 1, "x"), str(&out, 1, node_between ? "z" : "y");
	put_bytes(&g, 11, in.b, in.n), put_bytes(&g, 12, out.b, out.n);
	wbuf model = {0};
	wb head = {0}, opset = {0};
	vfield(&head, 1, 8);
	put(&model, head.b, head.n);
	put_bytes(&model, 7, g.p, g.n);
	str(&opset, 1, ""), vfield(&opset, 2, 13);
	put_bytes(&model, 8, opset.b, opset.n);
	free(g.p);
	return model;
}


/* runs_model_of(padded, false) written to path and loaded mapped, as the tool loads
 * (the split load, whatever the environment says): the model, its bytes in *model. */
static osh_model *runs_model_mapped(bool padded, const char *path, wbuf *model)
{
	setenv(PLAIN_IO_ENV, "0", 1);
	*model = runs_model_of(padded, false);
	FILE *f = fopen(path, "wb");
	cr_assert(f && fwrite(model->p, 1, model->n, f) == model->n);
	fclose(f);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_mapped(&m, path, NULL, NULL, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

Test(pack_stream, initializer_runs_stop_where_the_bytes_differ)
{
	struct {
		bool padded, node_between;
	} cases[] = {{true, true}, {true, false}, {false, true}, {false, false}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wbuf model = runs_model_of(cases[i].padded, cases[i].node_between);
		char tag[16];
		snprintf(tag, sizeof tag, "runs%zu", i);
		same_pack_bytes(model.p, model.n, tag);
		free(model.p);
	}
}

/* An edit of the weights kept as bytes (two dropped, one added): the list is then
 * the input's elements in a new order, which the writer copies in runs knowing
 * their keys and lengths without reading them where the input's were the shortest
 * encoding (wire_list.shortest_heads), and reading them where not (the padded
 * length). The re-index takes each weight's view over from the index before it
 * (wire_list.view) without decoding it again: the same values, the dropped ones
 * gone, the added one there. The written file is the edited model. */
Test(pack_stream, edited_initializer_runs_are_the_edited_model)
{
	for (int padded = 0; padded < 2; padded++) {
		char path[64], out[64];
		snprintf(path, sizeof path, "/tmp/osh_pack_edit_%d.onnx", (int)getpid());
		snprintf(out, sizeof out, "/tmp/osh_pack_edit_%d.out.onnx", (int)getpid());
		wbuf model;
		osh_model *m = runs_model_mapped(padded, path, &model);
		osh_error err = {0};
		cr_assert_eq(m->src.wire_inits.n, 600u, "the weights are the input's bytes");
		cr_assert_eq(m->src.wire_inits.shortest_heads, !padded);
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
		edit *e = edit_begin(m);
		cr_assert(e);
		strmap gone;
		strmap_init(&gone, m->arena);
		cr_assert(strmap_put(&gone, "w10", 0) >= 0 && strmap_put(&gone, "w451", 0) >= 0);
		bool drop[1] = {false};
		edit_drop(e, m->main, drop, &gone);
		int64_t dims[1] = {2}, vals[2] = {7, -7};
		cr_assert(edit_add_initializer(e, m->main, "added", 7 /* INT64 */, dims, 1, vals, NULL));
		cr_assert(edit_commit(e));
		cr_assert(model_reindex(m));
		graph *g = m->main;
		cr_expect_lt(strmap_get(&g->names, "w10"), 0);
		cr_expect_lt(strmap_get(&g->names, "w451"), 0);
		int32_t added = strmap_get(&g->names, "added"), kept = strmap_get(&g->names, "w452");
		cr_assert(added >= 0 && kept >= 0);
		const tensor_view *tv = g->values[kept].init_view;
		cr_assert(tv && tv->valid && tv->count == 1024 && tv->raw_len == 4096);
		float third;
		memcpy(&third, tv->raw + 3 * sizeof third, sizeof third);
		cr_expect_eq(third, 3.0f);
		cr_expect_eq(g->values[added].init_view->count, 2);
		uint8_t *ref, *again;
		size_t nref, nagain;
		cr_assert_eq(osh_model_write(m, out, NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_model_pack(m, &ref, &nref, &err), OSH_OK, "%s", err.message);
		osh_model *back = NULL;
		cr_assert_eq(osh_model_load(&back, out, NULL, &err), OSH_OK, "the written model: %s", err.message);
		cr_assert_eq(osh_model_summary(back)->n_initializers, 599u);
		cr_assert_eq(osh_model_pack(back, &again, &nagain, &err), OSH_OK, "%s", err.message);
		cr_assert(nagain == nref && !memcmp(again, ref, nref), "padded %d: the written model is not the edited one",
			  padded);
		free(ref), free(again);
		osh_model_free(back);
		osh_model_free(m);
		unlink(path), unlink(out);
		free(model.p);
	}
}

/* Kilobytes of the file at path resident in this process's mappings of it;
 * *mapped: whether there is one. */
static size_t resident_kb(const char *path, bool *mapped)
{
	*mapped = false;
	FILE *f = fopen("/proc/self/smaps", "r");
	cr_assert(f);
	char line[4096];
	bool in = false;
	size_t kb = 0, v;
	while (fgets(line, sizeof line, f)) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (strchr(line, '-') && strchr(line, ' ') && strchr(line, '-') < strchr(line, ' '))
			*mapped |= in = n >= strlen(path) && !strcmp(line + n - strlen(path), path);
		else if (in && sscanf(line, "Rss: %zu kB", &v) == 1)
			kb += v;
	}
	fclose(f);
	return kb;
}

/* Writing reads every run's headers in the input's mapping: the pages go back as it
 * goes, whether the kernel copied the bytes or not, or writing a model would cost
 * the whole file in memory again. */
Test(pack_stream, written_runs_give_the_input_back)
{
	char path[64], out[64];
	snprintf(path, sizeof path, "/tmp/osh_pack_back_%d.onnx", (int)getpid());
	snprintf(out, sizeof out, "/tmp/osh_pack_back_%d.out.onnx", (int)getpid());
	wbuf model;
	osh_model *m = runs_model_mapped(false, path, &model); /* mapped: pages to give back */
	osh_error err = {0};
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .force_pack = true};
	cr_assert_eq(osh_model_write(m, out, &wo, &err), OSH_OK, "%s", err.message);
	bool mapped;
	size_t left = resident_kb(path, &mapped), all = model.n / 1024;
	cr_assert(mapped, "a file of 1 MB or more stays mapped while its model lives");
	cr_expect_leq(left, all / 10, "%zu of %zu KB of the input still mapped after the write", left, all);
	osh_model_free(m);
	unlink(path), unlink(out);
	free(model.p);
}

/* Nodes packed without protobuf-c's walk (src/emit/pack_node.c) against protobuf-c:
 * attributes of every plain kind, with values whose encodings differ in length
 * (negative ints as ten bytes, a NaN, an empty string) and names and lists long
 * enough to need lengths of two bytes. */
Test(pack_stream, plain_nodes_pack_as_protobuf_c)
{
	char long_name[300];
	memset(long_name, 'n', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	int64_t ints[40];
	float floats[40];
	for (int i = 0; i < 40; i++) {
		ints[i] = i % 3 == 0 ? -(int64_t)i * 1000003 : i % 3 == 1 ? INT64_MAX - i : i;
		floats[i] = i == 7 ? __builtin_nanf("") : (float)i * -0.37f;
	}
	const char *strs[3] = {"", "two", long_name};
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_node(b, "Relu", "x", long_name);
	mb_node_name(b, long_name);
	mb_attr_i(b, "negative", -1);
	mb_attr_i(b, "min", INT64_MIN);
	mb_attr_f(b, "nan", __builtin_nanf(""));
	mb_attr_f(b, "negative_zero", -0.0f);
	mb_attr_s(b, "empty", "");
	mb_attr_s(b, long_name, long_name);
	mb_attr_ints(b, "ints", 40, ints);
	mb_attr_floats(b, "floats", 40, floats);
	mb_attr_strings(b, "strings", 3, strs);
	mb_node(b, "Identity", long_name, "y");
	mb_node_domain(b, "");
	mb_output(b, "y", 0, NULL);
	cr_assert(same_pack_built(b, "plain_nodes"));
}
