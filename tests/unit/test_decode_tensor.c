/* test_decode_tensor.c: TensorProtos read from their wire bytes
 * (src/loader/decode_tensor.c) must be what protobuf-c's unpack makes of them.
 *
 * Compared, field by field: name, doc_string, dims, data_type, raw_data (its bytes,
 * and that it points into the input instead of a copy), data_location and every
 * external_data entry. Sources:
 *   - tensors packed by protobuf-c from messages built here (the common shapes:
 *     weights, scalars, external references);
 *   - hand-written bytes for what its packer never emits: packed dims, fields
 *     repeated or unknown, truncated integers, and the tensors this reader must
 *     leave to protobuf-c;
 *   - every TensorProto file of the ONNX backend corpus (input_N.pb, output_N.pb)
 *     when OSH_CORPUS_DIR is set (ctest's corpus/decode-tensor).
 */
#define _GNU_SOURCE /* DT_DIR; asprintf in test_files.h */
#include "loader/decode_tensor.h"
#include "onnx-ml.pb-c.h"
#include "wb.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *s0(const char *s) { return s ? s : "(null)"; }

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* Asserts that w->t, decoded from [p, p + n), equals protobuf-c's message. */
static void expect_same(const tensor_wire *w, const uint8_t *p, size_t n, const char *what)
{
	Onnx__TensorProto *r = onnx__tensor_proto__unpack(NULL, n, p);
	cr_assert(r, "%s: protobuf-c refuses the bytes", what);
	const Onnx__TensorProto *t = &w->t;
	cr_expect(same_str(t->name, r->name), "%s: name '%s', want '%s'", what, s0(t->name), s0(r->name));
	cr_expect(same_str(t->doc_string, r->doc_string), "%s: doc_string '%s', want '%s'", what,
		  s0(t->doc_string), s0(r->doc_string));
	cr_expect_eq(t->has_data_type, r->has_data_type, "%s: has_data_type", what);
	cr_expect_eq(t->data_type, r->data_type, "%s: data_type %d, want %d", what, t->data_type, r->data_type);
	cr_expect_eq(t->has_data_location, r->has_data_location, "%s: has_data_location", what);
	cr_expect_eq(t->data_location, r->data_location, "%s: data_location", what);
	cr_assert_eq(t->n_dims, r->n_dims, "%s: %zu dims, want %zu", what, t->n_dims, r->n_dims);
	for (size_t i = 0; i < t->n_dims; i++)
		cr_expect_eq(t->dims[i], r->dims[i], "%s: dim %zu is %lld, want %lld", what, i, (long long)t->dims[i],
			     (long long)r->dims[i]);
	cr_expect_eq(t->has_raw_data, r->has_raw_data, "%s: has_raw_data", what);
	cr_assert_eq(t->raw_data.len, r->raw_data.len, "%s: raw_data of %zu bytes, want %zu", what, t->raw_data.len,
		     r->raw_data.len);
	if (t->raw_data.len) {
		cr_expect(!memcmp(t->raw_data.data, r->raw_data.data, r->raw_data.len), "%s: raw_data differs", what);
		cr_expect(t->raw_data.data >= p && t->raw_data.data + t->raw_data.len <= p + n,
			  "%s: raw_data is not a pointer into the input", what);
	}
	cr_assert_eq(t->n_external_data, r->n_external_data, "%s: %zu external_data entries, want %zu", what,
		     t->n_external_data, r->n_external_data);
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *a = t->external_data[i], *b = r->external_data[i];
		cr_expect(same_str(a->key, b->key), "%s: entry %zu key '%s', want '%s'", what, i, s0(a->key), s0(b->key));
		cr_expect(same_str(a->value, b->value), "%s: entry %zu value '%s', want '%s'", what, i, s0(a->value),
			  s0(b->value));
	}
	/* What protobuf-c's message holds besides must be what this reader refuses. */
	cr_expect(!r->segment && !r->n_float_data && !r->n_int32_data && !r->n_string_data && !r->n_int64_data &&
		      !r->n_double_data && !r->n_uint64_data,
		  "%s: decoded a tensor with fields this reader does not read", what);
	onnx__tensor_proto__free_unpacked(r, NULL);
}

static void decodes_as_protobuf_c(const uint8_t *p, size_t n, const char *what)
{
	tensor_wire *w = malloc(sizeof *w);
	cr_assert(w);
	tensor_wire_init(w);
	cr_assert(decode_tensor(p, n, w), "%s: not decoded", what);
	expect_same(w, p, n, what);
	free(w);
}

static bool decodes(const uint8_t *p, size_t n)
{
	tensor_wire *w = malloc(sizeof *w);
	cr_assert(w);
	tensor_wire_init(w);
	bool ok = decode_tensor(p, n, w);
	free(w);
	return ok;
}

/* Packs t with protobuf-c and checks the decoding of the bytes. */
static void packed_decodes(const Onnx__TensorProto *t, const char *what)
{
	size_t n = onnx__tensor_proto__get_packed_size(t);
	uint8_t *b = malloc(n ? n : 1);
	cr_assert(b);
	cr_assert_eq(onnx__tensor_proto__pack(t, b), n);
	decodes_as_protobuf_c(b, n, what);
	free(b);
}

/* ---- messages packed by protobuf-c ------------------------------------------- */

Test(decode_tensor, weights_scalars_and_external_references)
{
	float weights[6] = {1, 2, 3, 4, 5, 6};
	int64_t dims[] = {2, 3};
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	t.name = "conv1.weight";
	t.has_data_type = 1, t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	t.n_dims = 2, t.dims = dims;
	t.has_raw_data = 1, t.raw_data.data = (uint8_t *)weights, t.raw_data.len = sizeof weights;
	packed_decodes(&t, "weight");

	Onnx__TensorProto scalar = ONNX__TENSOR_PROTO__INIT; /* no name, no dims, empty raw_data */
	scalar.has_data_type = 1, scalar.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
	scalar.has_raw_data = 1;
	packed_decodes(&scalar, "scalar");

	Onnx__TensorProto empty = ONNX__TENSOR_PROTO__INIT;
	packed_decodes(&empty, "empty message");

	Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT, off = loc, len = loc, nokey = loc;
	loc.key = "location", loc.value = "weights.bin";
	off.key = "offset", off.value = "4096";
	len.key = "length", len.value = "24";
	nokey.value = "a value without a key";
	Onnx__StringStringEntryProto *entries[] = {&loc, &off, &len, &nokey};
	int64_t big[] = {-1, 0, INT64_MAX, INT64_MIN};
	Onnx__TensorProto ext = ONNX__TENSOR_PROTO__INIT;
	ext.name = "fc.weight";
	ext.doc_string = "stored beside the model";
	ext.has_data_type = 1, ext.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
	ext.n_dims = 4, ext.dims = big;
	ext.has_data_location = 1, ext.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	ext.n_external_data = 4, ext.external_data = entries;
	packed_decodes(&ext, "external");

	Onnx__TensorProto odd = ONNX__TENSOR_PROTO__INIT; /* values no valid model has */
	odd.has_data_type = 1, odd.data_type = -5;
	odd.has_data_location = 1, odd.data_location = (Onnx__TensorProto__DataLocation)77;
	odd.name = "";
	packed_decodes(&odd, "negative type, unknown location");
}

/* ---- hand-written bytes ------------------------------------------------------ */

Test(decode_tensor, packed_dims_repeats_and_unknown_fields)
{
	wb w = {0}, dims = {0}, entry = {0};
	varint(&dims, 1), varint(&dims, 300), varint(&dims, (uint64_t)-7);
	bytes(&w, 1, dims.b, dims.n); /* packed */
	vfield(&w, 1, 9);             /* then one more, unpacked */
	str(&w, 8, "first name");
	vfield(&w, 2, 1);
	str(&w, 8, "the last name wins");
	vfield(&w, 2, 7);
	bytes(&w, 9, "\x01\x02", 2);
	bytes(&w, 9, "\x03\x04\x05\x06", 4); /* the last raw_data wins */
	vfield(&w, 1000, 5);                 /* unknown: varint, bytes, fixed */
	str(&w, 1001, "unknown");
	f32(&w, 1002, 1.5f);
	str(&entry, 1, "location");
	str(&entry, 3, "unknown in an entry");
	str(&entry, 2, "w.bin");
	str(&entry, 2, "w2.bin");
	sub(&w, 13, &entry);
	vfield(&w, 14, 1);
	decodes_as_protobuf_c(w.b, w.n, "hand-written");

	wb trunc = {0}; /* integers past their field's width are cut as protobuf-c cuts them */
	vfield(&trunc, 2, ((uint64_t)1 << 40) + 3);
	vfield(&trunc, 14, (uint64_t)-1);
	decodes_as_protobuf_c(trunc.b, trunc.n, "truncated integers");
}

Test(decode_tensor, leaves_other_tensors_to_protobuf_c)
{
	struct {
		const char *what;
		wb w;
	} cases[12] = {{.what = "float_data"},	     {.what = "int32_data"},
		       {.what = "string_data"},	     {.what = "int64_data"},
		       {.what = "double_data"},	     {.what = "uint64_data"},
		       {.what = "segment"},	     {.what = "name as a varint"},
		       {.what = "33 dims"},	     {.what = "9 entries"},
		       {.what = "a name over the text room"}, {.what = "truncated"}};
	f32(&cases[0].w, 4, 1.0f);
	vfield(&cases[1].w, 5, 3);
	str(&cases[2].w, 6, "s");
	vfield(&cases[3].w, 7, 3);
	key(&cases[4].w, 10, 1), memset(cases[4].w.b + cases[4].w.n, 0, 8), cases[4].w.n += 8;
	vfield(&cases[5].w, 11, 3);
	wb seg = {0};
	vfield(&seg, 1, 0);
	sub(&cases[6].w, 3, &seg);
	vfield(&cases[7].w, 8, 1);
	for (int i = 0; i < 33; i++)
		vfield(&cases[8].w, 1, 2);
	wb e = {0};
	str(&e, 1, "k"), str(&e, 2, "v");
	for (int i = 0; i < 9; i++)
		sub(&cases[9].w, 13, &e);
	char longname[TENSOR_WIRE_TEXT + 1];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	str(&cases[10].w, 8, longname);
	str(&cases[11].w, 8, "cut short");
	cases[11].w.n -= 3;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect(!decodes(cases[i].w.b, cases[i].w.n), "%s: decoded", cases[i].what);

	/* The limits themselves still decode: 32 dims, 8 entries. */
	wb at = {0};
	for (int i = 0; i < 32; i++)
		vfield(&at, 1, 2);
	for (int i = 0; i < 8; i++)
		sub(&at, 13, &e);
	decodes_as_protobuf_c(at.b, at.n, "32 dims and 8 entries");
}

Test(decode_tensor, scratch_is_reused)
{
	/* A tensor decoded after a bigger one keeps nothing of it. */
	tensor_wire *w = malloc(sizeof *w);
	cr_assert(w);
	tensor_wire_init(w);
	wb big = {0}, small = {0}, e = {0};
	str(&e, 1, "location"), str(&e, 2, "a.bin");
	for (int i = 0; i < 5; i++)
		vfield(&big, 1, 4);
	sub(&big, 13, &e);
	str(&big, 8, "big");
	str(&big, 12, "doc");
	vfield(&small, 2, 1);
	cr_assert(decode_tensor(big.b, big.n, w));
	cr_assert(decode_tensor(small.b, small.n, w));
	expect_same(w, small.b, small.n, "after a bigger one");
	cr_expect_null(w->t.dims);
	cr_expect_null(w->t.external_data);
	free(w);
}

/* ---- the backend corpus's tensors -------------------------------------------- */

typedef struct tally {
	int files, decoded;
} tally;

/* One file of the corpus: an input or output tensor (input_N.pb, output_N.pb). */
static void check_corpus_file(const char *path, void *ctx)
{
	tally *t = ctx;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(name);
	if (len < 4 || strcmp(name + len - 3, ".pb") != 0 ||
	    (strncmp(name, "input_", 6) != 0 && strncmp(name, "output_", 7) != 0))
		return;
	size_t n = 0;
	uint8_t *b = slurp(path, &n);
	Onnx__TensorProto *r = onnx__tensor_proto__unpack(NULL, n, b);
	if (r) { /* sequences and optionals are other messages */
		onnx__tensor_proto__free_unpacked(r, NULL);
		t->files++;
		if (decodes(b, n)) {
			decodes_as_protobuf_c(b, n, path);
			t->decoded++;
		}
	}
	free(b);
}

Test(decode_tensor, corpus_tensors_match_protobuf_c)
{
	CORPUS_DIR_OR_SKIP(dir, "corpus/decode-tensor");
	tally t = {0};
	for_each_file(dir, true, check_corpus_file, &t);
	cr_expect_gt(t.files, 1500, "only %d corpus tensors read", t.files);
	cr_expect_gt(t.decoded, 1000, "only %d of %d corpus tensors decoded", t.decoded, t.files);
	printf("corpus: %d tensors, %d decoded, %d left to protobuf-c\n", t.files, t.decoded, t.files - t.decoded);
}
