/* test_decode_node.c: the main graph's nodes read from their wire bytes
 * (src/loader/decode_node.c) must give the IR protobuf-c's message gives.
 *
 * The reference for each node is protobuf-c's unpack of the same bytes, viewed by
 * view_attrs (the path every other node takes). Compared: name, op type, domain,
 * input and output names, and every attribute's view (type, scalars, arrays, strings,
 * reference). Two sources of nodes:
 *   - every model of tests/models, and the ONNX backend corpus when OSH_CORPUS_DIR
 *     is set (ctest's corpus/decode), loaded normally: the nodes the loader decoded
 *     are checked against their bytes, and a model with nodes must decode some;
 *   - hand-written wire bytes for what converters emit but protobuf-c's packer does
 *     not: packed ints and floats, types left out (IR version 1), fields repeated or
 *     unknown, and the nodes this reader must leave to protobuf-c.
 */
#define _GNU_SOURCE /* asprintf in test_files.h */
#include "core/model.h"
#include "core/tuning.h"
#include "loader/decode_node.h"
#include "loader/loader.h"
#include "onnx-ml.pb-c.h"
#include "wb.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- comparing one node ------------------------------------------------------ */

static const char *s0(const char *s) { return s ? s : "(null)"; }

static void expect_same_attr(const attr_view *a, const attr_view *b, const char *where)
{
	cr_expect_str_eq(a->name, b->name, "%s: attribute name", where);
	cr_expect_eq(a->type, b->type, "%s: attribute '%s' type %d vs %d", where, b->name, a->type, b->type);
	cr_expect_eq(a->i, b->i, "%s: '%s' i", where, b->name);
	cr_expect(a->f == b->f || (a->f != a->f && b->f != b->f), "%s: '%s' f", where, b->name);
	if (b->type == AT_STRING) /* s shares a union with the other payloads */
		cr_expect_str_eq(s0(a->s), s0(b->s), "%s: '%s' s", where, b->name);
	cr_expect_str_eq(s0(a->ref), s0(b->ref), "%s: '%s' ref", where, b->name);
	cr_expect_eq(a->n, b->n, "%s: '%s' has %d entries vs %d", where, b->name, a->n, b->n);
	for (int32_t k = 0; k < a->n && k < b->n; k++) {
		if (b->type == AT_INTS)
			cr_expect_eq(a->ints[k], b->ints[k], "%s: '%s' ints[%d]", where, b->name, k);
		if (b->type == AT_FLOATS)
			cr_expect_eq(a->floats[k], b->floats[k], "%s: '%s' floats[%d]", where, b->name, k);
		if (b->type == AT_STRINGS)
			cr_expect_str_eq(a->strings[k], b->strings[k], "%s: '%s' strings[%d]", where, b->name, k);
	}
}

/* Decodes [p, p + len) in m and compares with protobuf-c's message viewed by
 * view_attrs; returns the decoder's verdict. */
static decode_result check_bytes(osh_model *m, const uint8_t *p, size_t len, const char *where)
{
	node d = {0};
	decode_scratch s = {0};
	decode_result r = decode_node(m, &d, p, len, &s);
	cr_assert_neq(r, DECODE_NOMEM, "%s", where);
	Onnx__NodeProto *np = onnx__node_proto__unpack(NULL, len, p);
	cr_assert_not_null(np, "%s: protobuf-c refuses bytes the decoder was given", where);
	if (r == DECODE_OK) {
		node ref = {.proto = np};
		cr_assert(view_attrs(m, &ref));
		const char *dom = np->domain && strcmp(np->domain, "ai.onnx") ? np->domain : "";
		cr_expect_str_eq(d.name, np->name ? np->name : "", "%s: name", where);
		cr_expect_str_eq(d.op_type, np->op_type ? np->op_type : "", "%s: op_type", where);
		cr_expect_str_eq(d.domain, dom, "%s: domain", where);
		cr_expect_eq(d.ninputs, (int32_t)np->n_input, "%s: inputs", where);
		cr_expect_eq(d.noutputs, (int32_t)np->n_output, "%s: outputs", where);
		for (int32_t k = 0; k < d.noutputs && k < (int32_t)np->n_output; k++)
			cr_expect_str_eq(s.outs[k], np->output[k], "%s: output %d", where, k);
		size_t pos = 0;
		for (size_t k = 0; k < np->n_input; k++) {
			const char *name;
			size_t nl;
			cr_assert(decode_next_input(p, len, &pos, &name, &nl), "%s: input %zu missing", where, k);
			cr_expect(nl == strlen(np->input[k]) && !memcmp(name, np->input[k], nl), "%s: input %zu", where, k);
		}
		cr_expect_eq(d.nattrs, ref.nattrs, "%s: attributes", where);
		for (int32_t k = 0; k < d.nattrs && k < ref.nattrs; k++)
			expect_same_attr(&d.attrs[k], &ref.attrs[k], where);
	}
	onnx__node_proto__free_unpacked(np, NULL);
	decode_scratch_free(&s);
	return r;
}

/* ---- every model we have --------------------------------------------------- */

typedef struct tally {
	int models, decoded, unpacked;
} tally;

static void check_model_file(const char *path, tally *t)
{
	osh_model *m = NULL;
	osh_error err = {0};
	if (osh_model_load(&m, path, NULL, &err) != OSH_OK)
		return; /* the bad fixtures: refused before any node is read */
	t->models++;
	int decoded = 0;
	for (size_t i = 0; m->main && i < m->src.wire_nodes.n && (int64_t)i < m->main->nnodes; i++) {
		const node *n = &m->main->nodes[i];
		char where[1100];
		snprintf(where, sizeof where, "%s node %zu", path, i);
		const uint8_t *p = m->src.wire_nodes.bytes + m->src.wire_nodes.off[i];
		decode_result r = check_bytes(m, p, m->src.wire_nodes.len[i], where);
		/* The loader made the same call: decoded nodes have no message. */
		cr_expect_eq(n->proto == NULL, r == DECODE_OK, "%s: loader and decoder disagree", where);
		/* The IR's input ids name the inputs of the bytes. */
		if (!n->proto) {
			size_t pos = 0;
			for (int32_t k = 0; k < n->ninputs; k++) {
				const char *name;
				size_t nl;
				cr_assert(decode_next_input(p, m->src.wire_nodes.len[i], &pos, &name, &nl));
				const char *got = n->inputs[k] < 0 ? "" : m->main->values[n->inputs[k]].name;
				cr_expect(strlen(got) == nl && !memcmp(got, name, nl), "%s: input %d resolves to '%s'", where,
					  k, got);
			}
		}
		decoded += r == DECODE_OK;
		t->unpacked += r != DECODE_OK;
	}
	t->decoded += decoded;
	osh_model_free(m);
}

/* for_each_file's callback: the models among the files. */
static void on_file(const char *path, void *ctx)
{
	size_t n = strlen(path);
	if (n > 5 && !strcmp(path + n - 5, ".onnx"))
		check_model_file(path, ctx);
}

static void walk(const char *dir, tally *t) { for_each_file(dir, true, on_file, t); }

/* The fixtures and the corpus loaded the fast way, whatever the environment says:
 * the plain way has no node decoded from its bytes (protobuf-c unpacks them all). */
Test(decode, every_fixture_node_matches_protobuf_c)
{
	setenv(PLAIN_IO_ENV, "0", 1);
	tally t = {0};
	walk(OSH_MODELS_DIR, &t);
	cr_expect_gt(t.models, 200, "only %d fixtures loaded", t.models);
	cr_expect_gt(t.decoded, 300, "only %d nodes were decoded from their bytes", t.decoded);
	/* If/Loop/Scan bodies and Constant tensors are protobuf-c's. */
	cr_expect_gt(t.unpacked, 0);
	cr_log_info("%d models: %d nodes decoded, %d left to protobuf-c", t.models, t.decoded, t.unpacked);
}

Test(decode, corpus_nodes_match_protobuf_c)
{
	CORPUS_DIR_OR_SKIP(dir, "corpus/decode");
	setenv(PLAIN_IO_ENV, "0", 1);
	tally t = {0};
	walk(dir, &t);
	cr_expect_gt(t.models, 900, "only %d corpus models loaded", t.models);
	cr_expect_gt(t.decoded, 1500);
	printf("corpus: %d models, %d nodes decoded, %d left to protobuf-c\n", t.models, t.decoded, t.unpacked);
}

/* ---- hand-written bytes ------------------------------------------------------ */

/* A model to decode into: its arena and interned names. */
static osh_model *host(void)
{
	static const uint8_t empty_model[] = {0x08, 0x07}; /* ir_version 7 */
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, empty_model, sizeof empty_model, "host", NULL, &err), OSH_OK, "%s",
		     err.message);
	return m;
}

Test(decode, packed_and_unpacked_arrays)
{
	osh_model *m = host();
	wb perm = {0}, packed = {0}, scales = {0}, nb = {0};
	str(&perm, 1, "perm");
	/* ints 0, 2 packed; then 1 and -1 one by one: 4 entries in order */
	varint(&packed, 0), varint(&packed, 2);
	bytes(&perm, 8, packed.b, packed.n);
	vfield(&perm, 8, 1);
	vfield(&perm, 8, (uint64_t)-1);
	vfield(&perm, 20, AT_INTS);
	str(&scales, 1, "scales");
	float fl[2] = {0.5f, 2.0f};
	bytes(&scales, 7, fl, sizeof fl);
	f32(&scales, 7, 4.0f);
	vfield(&scales, 20, AT_FLOATS);
	str(&nb, 1, "x"), str(&nb, 1, ""), str(&nb, 2, "y"), str(&nb, 4, "Transpose");
	sub(&nb, 5, &perm), sub(&nb, 5, &scales);
	cr_assert_eq(check_bytes(m, nb.b, nb.n, "packed"), DECODE_OK);
	osh_model_free(m);
}

Test(decode, types_left_out_go_by_the_field_set)
{
	osh_model *m = host();
	wb a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, nb = {0};
	str(&a1, 1, "axis"), vfield(&a1, 3, (uint64_t)-3); /* INT */
	str(&a2, 1, "alpha"), f32(&a2, 2, 0.25f);          /* FLOAT */
	str(&a3, 1, "mode"), bytes(&a3, 4, "edge", 4);     /* STRING */
	str(&a4, 1, "axes"), vfield(&a4, 8, 5);            /* INTS */
	str(&a5, 1, "names"), str(&a5, 9, "a"), str(&a5, 9, "bc"); /* STRINGS */
	str(&nb, 1, "x"), str(&nb, 2, "y"), str(&nb, 4, "Op"), str(&nb, 7, "ai.onnx");
	sub(&nb, 5, &a1), sub(&nb, 5, &a2), sub(&nb, 5, &a3), sub(&nb, 5, &a4), sub(&nb, 5, &a5);
	cr_assert_eq(check_bytes(m, nb.b, nb.n, "untyped"), DECODE_OK);
	/* UNDEFINED written out: the same guess */
	wb a6 = {0}, nb2 = {0};
	str(&a6, 1, "k"), vfield(&a6, 20, 0), vfield(&a6, 3, 7);
	str(&nb2, 4, "Op"), sub(&nb2, 5, &a6);
	cr_assert_eq(check_bytes(m, nb2.b, nb2.n, "undefined type"), DECODE_OK);
	osh_model_free(m);
}

Test(decode, repeated_singular_fields_keep_the_last_and_unknown_ones_are_skipped)
{
	osh_model *m = host();
	wb a = {0}, nb = {0};
	str(&a, 1, "first"), str(&a, 1, "axis"), vfield(&a, 3, 1), vfield(&a, 3, 2), vfield(&a, 20, AT_INT);
	vfield(&a, 99, 5);             /* unknown varint */
	str(&a, 13, "doc");            /* doc_string */
	str(&a, 21, "outer_axis");     /* ref_attr_name */
	str(&nb, 3, "n1"), str(&nb, 3, "n2"), str(&nb, 4, "Softmax"), str(&nb, 4, "LogSoftmax");
	str(&nb, 6, "doc"), bytes(&nb, 42, "xyz", 3), str(&nb, 7, "com.example");
	str(&nb, 2, ""), str(&nb, 2, "out");
	sub(&nb, 5, &a);
	cr_assert_eq(check_bytes(m, nb.b, nb.n, "repeated"), DECODE_OK);
	osh_model_free(m);
}

/* A tensor, a gb or an unknown attribute type: protobuf-c's message, and the
 * index's checks of it, as before. */
Test(decode, nodes_left_to_protobuf_c)
{
	osh_model *m = host();
	wb t = {0}, at = {0}, nb = {0};
	vfield(&t, 1, 1), vfield(&t, 2, 1); /* dims [1], FLOAT */
	str(&at, 1, "value"), sub(&at, 5, &t), vfield(&at, 20, AT_TENSOR);
	str(&nb, 2, "c"), str(&nb, 4, "Constant"), sub(&nb, 5, &at);
	cr_expect_eq(check_bytes(m, nb.b, nb.n, "tensor"), DECODE_UNPACK);

	wb bad = {0}, nb2 = {0};
	str(&bad, 1, "axis"), vfield(&bad, 3, 1), vfield(&bad, 20, 99);
	str(&nb2, 4, "Softmax"), sub(&nb2, 5, &bad);
	cr_expect_eq(check_bytes(m, nb2.b, nb2.n, "type 99"), DECODE_UNPACK);

	wb g = {0}, ag = {0}, nb3 = {0};
	str(&g, 2, "body");
	str(&ag, 1, "then_branch"), sub(&ag, 6, &g), vfield(&ag, 20, AT_GRAPH);
	str(&nb3, 4, "If"), sub(&nb3, 5, &ag);
	cr_expect_eq(check_bytes(m, nb3.b, nb3.n, "gb"), DECODE_UNPACK);

	/* A message type without its message: view_attrs makes its payload (a
	 * TYPE_PROTO's tp is never NULL); a stray s must not stand in for a t. */
	wb tp = {0}, nb4 = {0}, ts = {0}, nb5 = {0};
	str(&tp, 1, "type"), vfield(&tp, 20, AT_TYPE_PROTO);
	str(&nb4, 2, "o"), str(&nb4, 4, "Optional"), sub(&nb4, 5, &tp);
	cr_expect_eq(check_bytes(m, nb4.b, nb4.n, "type proto without tp"), DECODE_UNPACK);
	str(&ts, 1, "value"), bytes(&ts, 4, "zz", 2), vfield(&ts, 20, AT_TENSOR);
	str(&nb5, 2, "c"), str(&nb5, 4, "Constant"), sub(&nb5, 5, &ts);
	cr_expect_eq(check_bytes(m, nb5.b, nb5.n, "tensor without t"), DECODE_UNPACK);
	osh_model_free(m);
}

/* The payload pointers share a union (model.h): a string on an attribute of
 * another type is not kept, so it cannot overwrite or pose as the real payload. */
Test(decode, stray_string_leaves_the_payload_alone)
{
	osh_model *m = host();
	wb a = {0}, b = {0}, nb = {0};
	str(&a, 1, "axes"), vfield(&a, 8, 5), bytes(&a, 4, "zz", 2), vfield(&a, 20, AT_INTS);
	str(&b, 1, "axis"), bytes(&b, 4, "zz", 2), vfield(&b, 3, 1), vfield(&b, 20, AT_INT);
	str(&nb, 1, "x"), str(&nb, 2, "y"), str(&nb, 4, "Op"), sub(&nb, 5, &a), sub(&nb, 5, &b);
	cr_assert_eq(check_bytes(m, nb.b, nb.n, "stray s"), DECODE_OK);
	node d = {0};
	decode_scratch sc = {0};
	cr_assert_eq(decode_node(m, &d, nb.b, nb.n, &sc), DECODE_OK);
	cr_assert_eq(d.nattrs, 2);
	cr_expect_eq(d.attrs[0].n, 1);
	cr_expect_eq(d.attrs[0].ints[0], 5);
	cr_expect_null(d.attrs[1].s);
	decode_scratch_free(&sc);
	osh_model_free(m);
}

/* A node without attributes has no attribute array. */
Test(decode, no_attributes_no_array)
{
	osh_model *m = host();
	wb nb = {0};
	str(&nb, 1, "x"), str(&nb, 2, "y"), str(&nb, 4, "Relu");
	node d = {0};
	decode_scratch sc = {0};
	cr_assert_eq(decode_node(m, &d, nb.b, nb.n, &sc), DECODE_OK);
	cr_expect_eq(d.nattrs, 0);
	cr_expect_null(d.attrs);
	decode_scratch_free(&sc);
	osh_model_free(m);
}

/* Optional with a TYPE_PROTO attribute that holds no TypeProto: inferred (the
 * type is unknown), not a crash on a NULL tp. */
Test(decode, type_proto_attribute_without_type)
{
	wb tp = {0}, nb = {0}, gb = {0}, opset = {0}, model = {0}, vi = {0};
	str(&tp, 1, "type"), vfield(&tp, 20, AT_TYPE_PROTO);
	str(&nb, 2, "o"), str(&nb, 4, "Optional"), sub(&nb, 5, &tp);
	str(&vi, 1, "o");
	sub(&gb, 1, &nb), str(&gb, 2, "g"), sub(&gb, 12, &vi);
	vfield(&opset, 2, 18);
	vfield(&model, 1, 8), sub(&model, 7, &gb), sub(&model, 8, &opset);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, model.b, model.n, "no-tp", NULL, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
}

/* The unknown attribute type still reaches the user, from a whole model. */
Test(decode, unknown_attribute_type_is_reported)
{
	wb bad = {0}, nb = {0}, gb = {0}, opset = {0}, model = {0}, vi = {0};
	str(&bad, 1, "axis"), vfield(&bad, 3, 1), vfield(&bad, 20, 99);
	str(&nb, 1, "x"), str(&nb, 2, "y"), str(&nb, 4, "Softmax"), sub(&nb, 5, &bad);
	str(&vi, 1, "x");
	sub(&gb, 1, &nb), str(&gb, 2, "g"), sub(&gb, 11, &vi);
	vfield(&opset, 2, 13);
	vfield(&model, 1, 7), sub(&model, 7, &gb), sub(&model, 8, &opset);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, model.b, model.n, "bad-type", NULL, &err), OSH_OK, "%s", err.message);
	cr_expect(osh_model_is_malformed(m));
	bool found = false;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		found |= strstr(osh_model_diag_at(m, i)->message, "unknown type 99") != NULL;
	cr_expect(found, "no diagnostic names the attribute's unknown type");
	osh_model_free(m);
}
