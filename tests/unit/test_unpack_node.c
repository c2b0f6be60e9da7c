/* test_unpack_node.c: NodeProto messages built from wire bytes without protobuf-c
 * (src/loader/unpack_node.c) must be the ones protobuf-c unpacks.
 *
 * Compared: protobuf-c's packing of both messages (every field, its presence and
 * order), and what packing does not show: empty bytes as a NULL pointer. Two
 * sources of bytes: every main-graph node of tests/models as the loader left it in
 * wire bytes, and bytes written by hand for what protobuf-c's packer never writes
 * (singular fields twice, repeated ones interleaved, long varints), and for the
 * nodes this reader must leave to protobuf-c.
 */
#define _GNU_SOURCE /* asprintf in test_files.h */
#include "core/model.h"
#include "core/tuning.h"
#include "loader/unpack_node.h"
#include "onnx-ml.pb-c.h"
#include "wb.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t packed(const Onnx__NodeProto *n, uint8_t **out)
{
	size_t len = protobuf_c_message_get_packed_size(&n->base);
	*out = malloc(len ? len : 1);
	cr_assert(*out);
	cr_assert_eq(protobuf_c_message_pack(&n->base, *out), len);
	return len;
}

static void expect_same_bytes_fields(const Onnx__NodeProto *a, const Onnx__NodeProto *b, const char *where)
{
	cr_assert_eq(a->n_attribute, b->n_attribute, "%s", where);
	for (size_t i = 0; i < a->n_attribute; i++) {
		const Onnx__AttributeProto *x = a->attribute[i], *y = b->attribute[i];
		cr_expect_eq(x->s.data == NULL, y->s.data == NULL, "%s: attribute %zu s", where, i);
		cr_assert_eq(x->n_strings, y->n_strings, "%s", where);
		for (size_t k = 0; k < x->n_strings; k++)
			cr_expect_eq(x->strings[k].data == NULL, y->strings[k].data == NULL, "%s: strings[%zu]", where, k);
	}
}

/* Builds [p, p + len) both ways; returns whether this reader took it. */
static bool check_bytes(arena *a, const uint8_t *p, size_t len, const char *where)
{
	bool plain;
	Onnx__NodeProto *got = unpack_node_plain(a, p, len, &plain);
	Onnx__NodeProto *ref = onnx__node_proto__unpack(NULL, len, p);
	cr_assert_not_null(ref, "%s: protobuf-c refuses the bytes", where);
	if (plain) {
		cr_assert_not_null(got, "%s", where);
		uint8_t *g, *r;
		size_t ng = packed(got, &g), nr = packed(ref, &r);
		cr_expect(ng == nr && !memcmp(g, r, nr), "%s: the message packs otherwise than protobuf-c's", where);
		expect_same_bytes_fields(got, ref, where);
		free(g), free(r);
	} else {
		cr_expect_null(got, "%s", where);
	}
	/* unpack_node gives the same message either way. */
	Onnx__NodeProto *any = unpack_node(a, p, len);
	cr_assert_not_null(any, "%s", where);
	uint8_t *g, *r;
	size_t ng = packed(any, &g), nr = packed(ref, &r);
	cr_expect(ng == nr && !memcmp(g, r, nr), "%s: unpack_node differs from protobuf-c", where);
	free(g), free(r);
	onnx__node_proto__free_unpacked(ref, NULL);
	return plain;
}

typedef struct tally {
	int models, plain, other;
} tally;

static void check_model_file(const char *path, tally *t)
{
	osh_model *m = NULL;
	osh_error err = {0};
	if (osh_model_load(&m, path, NULL, &err) != OSH_OK)
		return;
	t->models++;
	const wire_list *w = &m->src.wire_nodes;
	for (size_t i = 0; i < w->n; i++) {
		char where[1100];
		snprintf(where, sizeof where, "%s node %zu", path, i);
		if (check_bytes(m->arena, w->bytes + w->off[i], w->len[i], where))
			t->plain++;
		else
			t->other++;
	}
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

/* The wire bytes the loader keeps are those of the split load, whatever the
 * environment says. */
Test(unpack_node, every_fixture_node_matches_protobuf_c)
{
	setenv(PLAIN_IO_ENV, "0", 1);
	tally t = {0};
	walk(OSH_MODELS_DIR, &t);
	cr_expect_gt(t.models, 200, "only %d fixtures loaded", t.models);
	cr_expect_gt(t.plain, 300, "only %d nodes were built here", t.plain);
	cr_expect_gt(t.other, 0, "no node was left to protobuf-c");
}

static arena *scratch(void)
{
	arena *a = arena_new(0);
	cr_assert(a);
	return a;
}

Test(unpack_node, fields_twice_interleaved_and_long_varints)
{
	arena *a = scratch();
	wb at = {0}, n = {0};
	str(&at, 1, "first");
	vfield(&at, 3, (uint64_t)INT64_MIN);
	vfield(&at, 8, (uint64_t)-5);
	f32(&at, 7, -1.5f);
	vfield(&at, 8, 7);
	str(&at, 1, "axes"); /* the last name counts */
	bytes(&at, 4, "", 0); /* empty bytes: no data */
	bytes(&at, 9, "", 0);
	str(&at, 9, "two");
	f32(&at, 7, __builtin_nanf(""));
	vfield(&at, 20, (uint64_t)-1); /* an enum of ten bytes: its low 32 bits */
	str(&at, 13, "doc");
	str(&at, 21, "ref");
	str(&n, 1, "x");
	str(&n, 2, "y");
	str(&n, 1, "");
	str(&n, 4, "Relu");
	str(&n, 4, "Abs"); /* the last op_type counts */
	sub(&n, 5, &at);
	str(&n, 6, "");
	str(&n, 2, "z");
	str(&n, 7, "ai.onnx");
	sub(&n, 5, &at);
	cr_expect(check_bytes(a, n.b, n.n, "hand-written node"));
	wb empty = {0};
	cr_expect(check_bytes(a, empty.b, 0, "empty node"));
	arena_free(a);
}

Test(unpack_node, nodes_left_to_protobuf_c)
{
	arena *a = scratch();
	/* An unknown node field, kept by protobuf-c. */
	wb n1 = {0};
	str(&n1, 1, "x");
	str(&n1, 30, "unknown");
	cr_expect_not(check_bytes(a, n1.b, n1.n, "unknown node field"));
	/* Packed ints. */
	wb at = {0}, n2 = {0}, ints = {0};
	varint(&ints, 1), varint(&ints, 2);
	str(&at, 1, "axes");
	sub(&at, 8, &ints);
	sub(&n2, 5, &at);
	cr_expect_not(check_bytes(a, n2.b, n2.n, "packed ints"));
	/* A tensor attribute. */
	wb t = {0}, at3 = {0}, n3 = {0};
	vfield(&t, 2, 1);
	str(&at3, 1, "value");
	sub(&at3, 5, &t);
	sub(&n3, 5, &at3);
	cr_expect_not(check_bytes(a, n3.b, n3.n, "tensor attribute"));
	/* An unknown attribute field. */
	wb at4 = {0}, n4 = {0};
	str(&at4, 1, "alpha");
	vfield(&at4, 40, 1);
	sub(&n4, 5, &at4);
	cr_expect_not(check_bytes(a, n4.b, n4.n, "unknown attribute field"));
	/* A name given as a varint: a wire type the schema does not give it, which
	 * protobuf-c refuses too. */
	wb n5 = {0};
	vfield(&n5, 3, 1);
	bool plain = true;
	cr_expect_null(unpack_node_plain(a, n5.b, n5.n, &plain));
	cr_expect_not(plain);
	cr_expect_null(unpack_node(a, n5.b, n5.n));
	arena_free(a);
}
