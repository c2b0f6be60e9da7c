/* test_load_limits.c: the loader's limits on hostile input, and writes interrupted by
 * signals.
 *
 *  - fixtures: every file of tests/models/bad/hostile (gen_hostile.py), one row
 *    each: how the load ends (a status and a message naming the byte offset and the
 *    field path, or a malformed-model finding in a given graph and node), in bounded
 *    memory, measured in a child process (getrusage, the arena's use) so an
 *    unbounded regression fails here; the same through osh_model_load_buffer; the
 *    CLI exits 2 and writes nothing. Time is not asserted (timed tests are flaky on
 *    a loaded CI machine): test timeouts only keep a quadratic regression from
 *    hanging CI, and bench/ measures the times.
 *  - prescan: the wire pre-scan on hand-made bytes, table-driven: every class of
 *    malformed wire data with the offset and path it must name, the nesting limit
 *    exactly at 100, and what it must accept; its memory estimate checked against
 *    what protobuf-c really asks for, on every seed of the fuzz corpus.
 *  - budget: the default arena budget covers load + infer + annotate of a large
 *    graph and stays within a small factor of it; a caller's budget too small for
 *    the decoded messages is refused before decoding.
 *  - functions: the count limit, and many functions with many nodes.
 *  - write_signal: SIGINT/SIGTERM during write_atomic leaves the old file (or none)
 *    and no temporary file; previous handlers are restored, chained to, and an
 *    ignored signal stays ignored.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "io/atomic_file.h"
#include "loader/loader.h"
#include "loader/prescan.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include "wbuf.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOSTILE_DIR OSH_MODELS_DIR "/bad/hostile"
#define GOOD_DIR OSH_MODELS_DIR "/good"
#define FUZZ_CORPUS OSH_SOURCE_DIR "/tests/fuzz/corpus"

/* Generous: this guards against unbounded memory (protobuf-c alone asks for 185 MB
 * on million_nodes.onnx), not against a few megabytes; sanitizer builds use more. */
#define MAX_RSS_GROWTH_KB (64 * 1024)

/* ---- helpers ------------------------------------------------------------------- */

static bool contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* ModelProto: ir_version 8, opset_import { domain "" version 13 }. */
static void put_header(wbuf *b) { put_model_header(b, 13); }

/* ---- prescan: table-driven ------------------------------------------------------ */

typedef struct wire_case {
	const char *what;
	/* Writes the bytes into b; returns the byte offset the error must name. */
	size_t (*build)(wbuf *b);
	osh_status status; /* OSH_OK: accepted */
	const char *phrase;
	const char *path;
} wire_case;

static size_t key_cut(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put_byte(b, 0x80);
	return at;
}

static size_t varint_overflow(wbuf *b)
{
	put_header(b);
	put_key(b, 1, 0);
	size_t at = b->n;
	for (int i = 0; i < 9; i++)
		put_byte(b, 0xff);
	put_byte(b, 0x02);
	return at;
}

static size_t varint_cut(wbuf *b)
{
	put_header(b);
	put_key(b, 1, 0);
	size_t at = b->n;
	put_byte(b, 0x81);
	return at;
}

static size_t length_past_end(wbuf *b)
{
	put_header(b);
	put_key(b, 7, 2);
	size_t at = b->n;
	put_varint(b, 100);
	put(b, "abc", 3);
	return at;
}

static size_t length_too_long(wbuf *b)
{
	put_header(b);
	put_key(b, 2, 2);
	size_t at = b->n;
	put(b, "\x80\x80\x80\x80\x80\x00", 6);
	return at;
}

static size_t group(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put_key(b, 9, 3);
	return at;
}

static size_t wire7(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put_key(b, 9, 7);
	put_byte(b, 0);
	return at;
}

static size_t field_zero(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put(b, "\x80\x00\x01", 3); /* key 0 in two bytes (protobuf-c 1.4 accepts this one) */
	return at;
}

static size_t field_too_big(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put_vfield(b, (uint64_t)1 << 29, 1);
	return at;
}

static size_t key_too_long(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put(b, "\x88\x80\x80\x80\x80\x00\x01", 7); /* field 1 in a six-byte key */
	return at;
}

static size_t wire_mismatch(wbuf *b)
{
	put_header(b);
	size_t at = b->n;
	put_vfield(b, 7, 1); /* graph is a message */
	return at;
}

static size_t repeated_wire_mismatch(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, t = {0};
	put_key(&t, 1, 5); /* TensorProto.dims is int64: varint or packed */
	put(&t, "\0\0\0\0", 4);
	put_msg(&g, 5, &t);
	size_t at = put_msg(b, 7, &g) + 2; /* graph content, initializer's key and length */
	return at;
}

static size_t packed_float_len(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, t = {0};
	put_vfield(&t, 2, 1);
	put_bytes(&t, 4, "\0\0\0", 3); /* float_data, packed: 3 bytes */
	size_t at_t = t.n - 3;
	size_t at = put_msg(&g, 5, &t) + at_t;
	return put_msg(b, 7, &g) + at;
}

static size_t packed_varint_cut(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, t = {0};
	put_bytes(&t, 1, "\x02\x80", 2); /* dims, packed: 2, then a cut varint */
	size_t at_t = t.n - 1;
	size_t at = put_msg(&g, 5, &t) + at_t;
	return put_msg(b, 7, &g) + at;
}

/* The NUL is in node 12's name: the path counts the nodes before it. */
static size_t nul_in_name(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, n = {0};
	for (int i = 0; i < 12; i++) {
		put_str(&n, 4, "Relu");
		put_msg(&g, 1, &n);
	}
	put_str(&n, 4, "Relu");
	put_bytes(&n, 3, "a\0b", 3);
	size_t at_n = n.n - 2;
	size_t at = put_msg(&g, 1, &n) + at_n;
	return put_msg(b, 7, &g) + at;
}

/* The third external-data entry of an initializer, with a NUL in its value. The
 * pre-scan reads such entries (leaf messages) whole, without a frame, from the second
 * one of the file on: the NUL sends it back the usual way, which names the entry. */
static size_t nul_in_leaf(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, t = {0}, e = {0};
	put_str(&t, 8, "w");
	put_str(&e, 1, "location");
	put_str(&e, 2, "w.bin");
	put_msg(&t, 13, &e);
	put_str(&e, 1, "offset");
	put_str(&e, 2, "0");
	put_msg(&t, 13, &e);
	put_str(&e, 1, "length");
	put_bytes(&e, 2, "4\0", 2);
	size_t at_e = e.n - 1;
	size_t at = put_msg(&t, 13, &e) + at_e;
	at = put_msg(&g, 5, &t) + at;
	return put_msg(b, 7, &g) + at;
}

static size_t nul_in_repeated(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, n = {0};
	put_str(&n, 1, "x");
	put_bytes(&n, 1, "y\0", 2);
	size_t at_n = n.n - 1;
	size_t at = put_msg(&g, 1, &n) + at_n;
	return put_msg(b, 7, &g) + at;
}

static size_t repeated_singular_nested(wbuf *b)
{
	put_header(b);
	wbuf g = {0}, n = {0}, a = {0}, t = {0};
	put_msg(&g, 1, &n);
	put_msg(&g, 1, &n);
	put_str(&a, 1, "value");
	put_msg(&a, 5, &t);
	size_t at_a = a.n;
	put_msg(&a, 5, &t);
	put_str(&n, 4, "Constant");
	size_t at_n = put_msg(&n, 5, &a) + at_a;
	size_t at_g = put_msg(&g, 1, &n) + at_n;
	return put_msg(b, 7, &g) + at_g;
}

/* A TypeProto chain in graph.input[0].type whose innermost TypeProto.Tensor is
 * `tensor_depth` messages deep (the ModelProto is 0), with a shape one deeper when
 * `with_shape`. Returns the offset of the key of the deepest message. */
static size_t nested_types(wbuf *b, int tensor_depth, bool with_shape)
{
	/* model 0, graph 1, value_info 2, type 3, then sequence/type pairs. */
	int levels = (tensor_depth - 2) / 2;
	cr_assert_eq(2 * levels + 2, tensor_depth, "tensor_depth must be even");
	/* `deepest`: the offset of the deepest message's key in the buffer being built. */
	wbuf tp = {0}, tensor = {0};
	put_vfield(&tensor, 1, 1);
	size_t deepest;
	if (with_shape) {
		wbuf s = {0};
		deepest = tensor.n;
		put_msg(&tensor, 2, &s);
		deepest += put_msg(&tp, 1, &tensor);
	} else {
		deepest = tp.n;
		put_msg(&tp, 1, &tensor);
	}
	for (int i = 1; i < levels; i++) {
		wbuf seq = {0}, outer = {0};
		deepest += put_msg(&seq, 1, &tp);
		deepest += put_msg(&outer, 4, &seq);
		tp = outer;
	}
	wbuf vi = {0}, g = {0};
	put_str(&vi, 1, "x");
	size_t at_vi = put_msg(&vi, 2, &tp) + deepest;
	size_t at_g = put_msg(&g, 11, &vi) + at_vi;
	put_header(b);
	return put_msg(b, 7, &g) + at_g;
}

static size_t depth_100(wbuf *b) { return nested_types(b, 100, false); }
static size_t depth_101(wbuf *b) { return nested_types(b, 100, true); }

static size_t accepted_unknown_and_repeats(wbuf *b)
{
	put_header(b);
	put_str(b, 2, "first");
	put_str(b, 2, "second"); /* a singular string twice: the last wins */
	put_vfield(b, 99, 42);   /* unknown fields are kept */
	put_vfield(b, ((uint64_t)1 << 29) - 1, 1);
	wbuf g = {0}, vi = {0}, tp = {0}, inner = {0}, tensor = {0};
	put_vfield(&tensor, 1, 1);
	put_msg(&tp, 1, &tensor); /* tensor_type, then sequence_type: another member of */
	put_msg(&tp, 4, &inner);  /* the oneof, which replaces it: not a merge */
	put_str(&vi, 1, "x");
	put_msg(&vi, 2, &tp);
	put_msg(&g, 11, &vi);
	put_msg(b, 7, &g);
	return 0;
}

static const wire_case wire_cases[] = {
	{"key cut off", key_cut, OSH_ERR_DECODE, "truncated or corrupt: a field key is cut off", "ModelProto"},
	{"varint over 64 bits", varint_overflow, OSH_ERR_DECODE, "a varint overflows 64 bits", "ModelProto"},
	{"varint cut off", varint_cut, OSH_ERR_DECODE, "a varint is cut off", "ModelProto"},
	{"length past the end", length_past_end, OSH_ERR_DECODE,
	 "a length of 100 bytes runs past the end of its message (3 bytes left)", "ModelProto"},
	{"length in 6 bytes", length_too_long, OSH_ERR_DECODE, "a length is too long", "ModelProto"},
	{"group", group, OSH_ERR_DECODE, "field 9 has wire type start-group", "ModelProto"},
	{"wire type 7", wire7, OSH_ERR_DECODE, "field 9 has wire type 7 (invalid)", "ModelProto"},
	{"field number 0", field_zero, OSH_ERR_DECODE, "field number 0 is out of range", "ModelProto"},
	{"field number 2^29", field_too_big, OSH_ERR_DECODE, "field number 536870912 is out of range", "ModelProto"},
	{"key in 6 bytes", key_too_long, OSH_ERR_DECODE, "a field key is too long", "ModelProto"},
	{"message as varint", wire_mismatch, OSH_ERR_DECODE, "field 'graph' (message) has wire type varint", "graph"},
	{"int64 as 32-bit", repeated_wire_mismatch, OSH_ERR_DECODE, "field 'dims' (int64) has wire type 32-bit",
	 "graph.initializer[0].dims"},
	{"packed floats, 3 bytes", packed_float_len, OSH_ERR_DECODE,
	 "a packed float field holds 3 bytes, not a multiple of 4", "graph.initializer[0].float_data"},
	{"packed varint cut off", packed_varint_cut, OSH_ERR_DECODE, "a packed varint is cut off",
	 "graph.initializer[0].dims"},
	{"NUL in node 12's name", nul_in_name, OSH_ERR_DECODE, "string field 'name' holds a NUL byte",
	 "graph.node[12].name"},
	{"NUL in an input name", nul_in_repeated, OSH_ERR_DECODE, "string field 'input' holds a NUL byte",
	 "graph.node[0].input[1]"},
	{"NUL in an external-data entry", nul_in_leaf, OSH_ERR_DECODE, "string field 'value' holds a NUL byte",
	 "graph.initializer[0].external_data[2].value"},
	{"attribute tensor twice", repeated_singular_nested, OSH_ERR_DECODE,
	 "singular message field 't' occurs more than once", "graph.node[2].attribute[0].t"},
	{"nesting 100 deep", depth_100, OSH_OK, NULL, NULL},
	{"nesting 101 deep", depth_101, OSH_ERR_LIMIT, "messages are nested more than 100 levels deep",
	 ".sequence_type.elem_type.tensor_type.shape"},
	{"repeats, unknowns, oneof", accepted_unknown_and_repeats, OSH_OK, NULL, NULL},
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

Test(prescan, wire_cases)
{
	for (size_t i = 0; i < sizeof wire_cases / sizeof wire_cases[0]; i++) {
		const wire_case *c = &wire_cases[i];
		wbuf b = {0};
		size_t at = c->build(&b);
		prescan_stats ps;
		osh_error err = {0};
		osh_status s = prescan_message(&onnx__model_proto__descriptor, b.p, b.n, "x.onnx", &ps, &err);
		cr_expect_eq(s, c->status, "%s: status %d, want %d (%s)", c->what, (int)s, (int)c->status, err.message);
		/* Whatever the pre-scan accepts, protobuf-c unpacks; what it refuses as
		 * corrupt, protobuf-c refuses too or reads differently than it was written. */
		Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, b.n, b.p);
		if (c->status == OSH_OK)
			cr_expect(mp, "%s: accepted by the pre-scan, refused by protobuf-c", c->what);
		if (mp)
			onnx__model_proto__free_unpacked(mp, NULL);
		if (c->status != OSH_OK && s != OSH_OK) {
			cr_expect_eq(err.status, s, "%s", c->what);
			cr_expect(!strncmp(err.message, "x.onnx: not an ONNX model: ", 27), "%s: %s", c->what, err.message);
			cr_expect(contains(err.message, c->phrase), "%s: \"%s\" lacks \"%s\"", c->what, err.message, c->phrase);
			char where[64];
			snprintf(where, sizeof where, " at byte offset %zu (", at);
			cr_expect(contains(err.message, where), "%s: \"%s\" lacks \"%s\"", c->what, err.message, where);
			const char *open = strstr(err.message, where);
			if (open) {
				char path[600];
				snprintf(path, sizeof path, "%s", open + strlen(where));
				path[strlen(path) - 1] = '\0'; /* the closing parenthesis */
				cr_expect(c->path[0] == '.' ? ends_with(path, c->path) : !strcmp(path, c->path),
					  "%s: path '%s', want '%s'", c->what, path, c->path);
			}
		}
		free(b.p);
	}
}

Test(prescan, nesting_depth_is_counted_like_protobuf)
{
	wbuf b = {0};
	nested_types(&b, 100, false);
	prescan_stats ps;
	cr_assert_eq(prescan_message(&onnx__model_proto__descriptor, b.p, b.n, "x", &ps, NULL), OSH_OK);
	cr_expect_eq(ps.max_depth, 100);
	free(b.p);
}

/* protobuf-c's allocations, rounded as the arena rounds them. */
static uint64_t counted;
static void *count_alloc(void *d, size_t n)
{
	(void)d;
	counted += n ? (n + 15) / 16 * 16 : 16;
	return malloc(n ? n : 1);
}
static void count_free(void *d, void *p) { (void)d, free(p); }

/* The estimate is what unpacking really asks for, never less (the budget must
 * hold), and not much more (the budget is meant to be tight). */
static void check_estimate(const char *path)
{
	size_t n;
	uint8_t *data = slurp(path, &n);
	prescan_stats ps;
	osh_error err;
	if (!n || prescan_message(&onnx__model_proto__descriptor, data, n, path, &ps, &err) != OSH_OK) {
		free(data);
		return;
	}
	ProtobufCAllocator al = {count_alloc, count_free, NULL};
	counted = 0;
	Onnx__ModelProto *mp = onnx__model_proto__unpack(&al, n, data);
	cr_expect(mp, "%s: accepted by the pre-scan, refused by protobuf-c", path);
	if (mp) {
		cr_expect_geq(ps.unpack_bytes, counted, "%s: estimate %llu < %llu allocated", path,
			      (unsigned long long)ps.unpack_bytes, (unsigned long long)counted);
		cr_expect_leq(ps.unpack_bytes, counted + counted / 4 + 1024, "%s: estimate %llu, allocated %llu", path,
			      (unsigned long long)ps.unpack_bytes, (unsigned long long)counted);
		onnx__model_proto__free_unpacked(mp, &al);
	}
	free(data);
}

static void check_estimate_of(const char *path, void *ctx)
{
	(void)ctx;
	check_estimate(path);
}

static size_t check_estimates_in(const char *dir) { return for_each_file(dir, false, check_estimate_of, NULL); }

Test(prescan, estimate_bounds_protobuf_c)
{
	cr_expect_gt(check_estimates_in(FUZZ_CORPUS), 100, "the fuzz seed corpus is missing");
	check_estimates_in(GOOD_DIR);
	check_estimates_in(HOSTILE_DIR);
	/* A message past 16 fields (protobuf-c's scratch slabs) and unknown fields. */
	wbuf b = {0}, g = {0}, n = {0};
	put_header(&b);
	for (int i = 0; i < 5000; i++) {
		put_str(&n, 4, "Relu");
		put_vfield(&n, 77, (uint64_t)i);
		put_msg(&g, 1, &n);
	}
	put_msg(&b, 7, &g);
	char *dir = make_tmpdir_for("hostile"), *p = path_in(dir, "slabs.onnx");
	FILE *f = fopen(p, "wb");
	cr_assert(f);
	fwrite(b.p, 1, b.n, f);
	fclose(f);
	check_estimate(p);
	/* Leaf messages past 16 fields: 400 external-data entries whose key occurs 20
	 * times (protobuf-c keeps the last, after a scratch slab for the rest), which the
	 * pre-scan's whole-message reading of leaves must leave to the usual way. */
	b = (wbuf){0};
	put_header(&b);
	wbuf t = {0}, e = {0};
	for (int i = 0; i < 400; i++) {
		for (int k = 0; k < 20; k++)
			put_str(&e, 1, "location");
		put_str(&e, 2, "w.bin");
		put_msg(&t, 13, &e);
	}
	put_str(&t, 8, "w");
	put_msg(&g, 5, &t);
	put_msg(&b, 7, &g);
	f = fopen(p, "wb");
	cr_assert(f);
	fwrite(b.p, 1, b.n, f);
	fclose(f);
	check_estimate(p);
	free(p);
	free(b.p);
	remove_dir(dir);
}

/* ---- fixtures ------------------------------------------------------------------ */

typedef struct hostile_case {
	const char *file;
	osh_status status;    /* OSH_OK: loads (malformed unless phrase is NULL) */
	const char *phrase;   /* in the message or in a malformed-model diagnostic */
	const char *where;    /* load failures: " at byte offset N (PATH" when the error has one */
	const char *graph;    /* OSH_OK rows: the diagnostic's graph */
	int64_t node_index;
} hostile_case;

static const hostile_case hostile_cases[] = {
	{"deep_nesting.onnx", OSH_ERR_LIMIT, "messages are nested more than 100 levels deep",
	 " at byte offset 414 (graph.input[0].type.sequence_type.elem_type.sequence_type.<89 more>.", NULL, -1},
	{"million_nodes.onnx", OSH_ERR_LIMIT,
	 "refused: its 1000003 messages would take 153553832 bytes in memory, 76 times the file's 2000012 bytes "
	 "(the limit is 32 times)",
	 NULL, NULL, -1},
	{"repeated_graph.onnx", OSH_ERR_DECODE, "singular message field 'graph' occurs more than once",
	 " at byte offset 12 (graph)", NULL, -1},
	{"nul_in_string.onnx", OSH_ERR_DECODE, "string field 'name' holds a NUL byte",
	 " at byte offset 18 (graph.node[0].name)", NULL, -1},
	{"enum_attr_type.onnx", OSH_OK, "attribute 'alpha' has an unknown type 99", NULL, "", 0},
	{"enum_data_location.onnx", OSH_OK, "initializer 'w' has an unknown data_location 7", NULL, "", -1},
	{"dtype_huge.onnx", OSH_OK, "attribute 'value' has an unknown data type 2147483647", NULL, "", 0},
	{"func_self.onnx", OSH_OK, "function 'local.F' calls itself: local.F -> local.F", NULL, "function local.F", 0},
	{"func_mutual.onnx", OSH_OK,
	 "function 'local.F' calls itself through other functions: local.F -> local.G -> local.F", NULL,
	 "function local.G", 0},
	{"func_if.onnx", OSH_OK, "function 'local.F' calls itself: local.F -> local.F", NULL,
	 "function local.F/node1/then_branch", 0},
	{"func_depth.onnx", OSH_OK,
	 "function calls are nested 40 deep, more than 32: local.F0 -> local.F1 -> local.F2 -> local.F3 -> "
	 "...(33 more) -> local.F36 -> local.F37 -> local.F38 -> local.F39",
	 NULL, "function local.F0", 0},
	{"func_depth_32.onnx", OSH_OK, NULL, NULL, NULL, -1},
};
#define NHOSTILE (sizeof hostile_cases / sizeof hostile_cases[0])

static const hostile_case *find_hostile(const char *file)
{
	for (size_t i = 0; i < NHOSTILE; i++)
		if (!strcmp(hostile_cases[i].file, file))
			return &hostile_cases[i];
	return NULL;
}

Test(hostile_fixture, table_matches_directory)
{
	DIR *d = opendir(HOSTILE_DIR);
	cr_assert(d, "%s: %s", HOSTILE_DIR, strerror(errno));
	size_t seen = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!ends_with(e->d_name, ".onnx"))
			continue;
		cr_expect(find_hostile(e->d_name), "%s/%s has no row in test_load_limits.c", HOSTILE_DIR, e->d_name);
		seen++;
	}
	closedir(d);
	cr_expect_eq(seen, NHOSTILE);
}

/* What a load in a child process measured. */
typedef struct measured {
	osh_status status;
	long rss_growth_kb;
	uint64_t arena_used;
} measured;

/* Loads path (from the file, or its bytes from memory) in a child process: its time
 * and how much its resident set grew. */
static measured measure_load(const char *path, bool from_memory)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	size_t size = 0;
	uint8_t *data = from_memory ? slurp(path, &size) : NULL;
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		struct rusage r0, r1;
		getrusage(RUSAGE_SELF, &r0);
		osh_model *m = NULL;
		osh_error err;
		measured out = {0};
		out.status = from_memory ? osh_model_load_buffer(&m, data, size, path, NULL, &err)
					 : osh_model_load(&m, path, NULL, &err);
		getrusage(RUSAGE_SELF, &r1);
		out.rss_growth_kb = r1.ru_maxrss - r0.ru_maxrss;
		out.arena_used = m ? arena_used(m->arena) : 0;
		osh_model_free(m);
		_exit(write(fds[1], &out, sizeof out) == (ssize_t)sizeof out ? 0 : 1);
	}
	close(fds[1]);
	measured out = {0};
	cr_assert_eq(read(fds[0], &out, sizeof out), (ssize_t)sizeof out, "%s: the child died", path);
	close(fds[0]);
	int ws;
	waitpid(pid, &ws, 0);
	cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "%s: the child failed", path);
	free(data);
	return out;
}

static void check_hostile(const hostile_case *c)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", HOSTILE_DIR, c->file);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));

	for (int mem = 0; mem < 2; mem++) {
		measured t = measure_load(path, mem);
		cr_expect_eq(t.status, c->status, "%s (%s): status %d", c->file, mem ? "buffer" : "file", (int)t.status);
		long bound = MAX_RSS_GROWTH_KB + 4 * (long)(st.st_size / 1024);
		cr_expect_lt(t.rss_growth_kb, bound, "%s: the resident set grew by %ld KB", c->file, t.rss_growth_kb);
		if (t.status == OSH_OK)
			cr_expect_lt(t.arena_used, (uint64_t)1 << 20, "%s: %llu bytes of arena", c->file,
				     (unsigned long long)t.arena_used);
	}

	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	osh_status s = osh_model_load(&m, path, NULL, &err);
	cr_assert_eq(s, c->status, "%s: status %d: %s", c->file, (int)s, err.message);
	if (s != OSH_OK) {
		cr_expect_null(m);
		char prefix[PATH_MAX + 2];
		snprintf(prefix, sizeof prefix, "%s: ", path);
		cr_expect(!strncmp(err.message, prefix, strlen(prefix)), "%s: %s", c->file, err.message);
		cr_expect(contains(err.message, c->phrase), "%s: \"%s\" lacks \"%s\"", c->file, err.message, c->phrase);
		if (c->where)
			cr_expect(contains(err.message, c->where), "%s: \"%s\" lacks \"%s\"", c->file, err.message, c->where);
		/* The same bytes from memory: the same message. */
		size_t n;
		uint8_t *data = slurp(path, &n);
		osh_error errb = {0};
		osh_model *mb = (osh_model *)1;
		cr_expect_eq(osh_model_load_buffer(&mb, data, n, path, NULL, &errb), s);
		cr_expect_null(mb);
		cr_expect_str_eq(errb.message, err.message);
		free(data);
		return;
	}
	if (!c->phrase) {
		cr_expect(!osh_model_is_malformed(m), "%s is refused", c->file);
		for (size_t i = 0; i < osh_model_diag_count(m); i++)
			cr_expect_neq(osh_model_diag_at(m, i)->severity, OSH_ERROR, "%s: %s", c->file,
				      osh_model_diag_at(m, i)->message);
		osh_model_free(m);
		return;
	}
	cr_expect(osh_model_is_malformed(m), "%s", c->file);
	const osh_diag *d = NULL;
	size_t errors = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		errors += osh_model_diag_at(m, i)->severity == OSH_ERROR;
		if (contains(osh_model_diag_at(m, i)->message, c->phrase))
			d = osh_model_diag_at(m, i);
	}
	if (!d) {
		for (size_t i = 0; i < osh_model_diag_count(m); i++)
			cr_log_error("%s: %s", c->file, osh_model_diag_at(m, i)->message);
		cr_assert_fail("%s: no diagnostic says \"%s\"", c->file, c->phrase);
	}
	cr_expect_eq(errors, 1, "%s: %zu errors", c->file, errors);
	cr_expect_str_eq(d->code, "malformed-model");
	cr_expect_str_eq(d->graph, c->graph, "%s: graph '%s'", c->file, d->graph);
	cr_expect_eq(d->node_index, c->node_index, "%s: node %lld", c->file, (long long)d->node_index);
	osh_model_free(m);
}

#define HOSTILE_TEST(name)                                                                     \
	Test(hostile_fixture, name, .timeout = 60) { check_hostile(find_hostile(#name ".onnx")); }
HOSTILE_TEST(deep_nesting)
HOSTILE_TEST(million_nodes)
HOSTILE_TEST(repeated_graph)
HOSTILE_TEST(nul_in_string)
HOSTILE_TEST(enum_attr_type)
HOSTILE_TEST(enum_data_location)
HOSTILE_TEST(dtype_huge)
HOSTILE_TEST(func_self)
HOSTILE_TEST(func_mutual)
HOSTILE_TEST(func_if)
HOSTILE_TEST(func_depth)
HOSTILE_TEST(func_depth_32)

/* ---- the CLI on the fixtures: exit 2, nothing written --------------------------- */

/* cli_run with args after the tool's name. */
static cli_result run_cli(const char *dir, const char *const *args)
{
	const char *argv[16] = {OSH_CLI};
	int argc = 1;
	for (; args[argc - 1]; argc++)
		argv[argc] = args[argc - 1];
	argv[argc] = NULL;
	return cli_run(dir, 0, argv);
}

Test(hostile_cli, check_rewrite_infer_exit_2_and_write_nothing, .timeout = 120)
{
	char *dir = make_tmpdir_for("hostile");
	char *outp = path_in(dir, "out.onnx");
	for (size_t i = 0; i < NHOSTILE; i++) {
		const hostile_case *c = &hostile_cases[i];
		if (!c->phrase)
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", HOSTILE_DIR, c->file);
		cli_result r = run_cli(dir, (const char *[]){"check", "--color=never", path, NULL});
		cr_expect_eq(r.status, 2, "check %s: exit %d", c->file, r.status);
		cr_expect(contains(r.out, c->phrase) || contains(r.err, c->phrase), "check %s does not say \"%s\":\n%s%s",
			  c->file, c->phrase, r.out, r.err);
		cli_result_free(&r);
		static const char *const cmds[] = {"rewrite", "infer"};
		for (int k = 0; k < 2; k++) {
			r = run_cli(dir, (const char *[]){cmds[k], path, "-o", outp, NULL});
			cr_expect_eq(r.status, 2, "%s %s: exit %d", cmds[k], c->file, r.status);
			cr_expect(contains(r.err, c->phrase), "%s %s: stderr lacks \"%s\":\n%s", cmds[k], c->file, c->phrase,
				  r.err);
			cr_expect_str_eq(r.out, "", "%s %s", cmds[k], c->file);
			cli_result_free(&r);
			expect_listing(dir, "", c->file);
		}
	}
	free(outp);
	remove_dir(dir);
}

/* ---- the memory budget --------------------------------------------------------- */

/* A chain of n Relu nodes t0 -> t1 -> ... with typed graph input and output. */
static wbuf relu_chain(int n)
{
	wbuf b = {0}, g = {0};
	put_header(&b);
	char out[32];
	put_relu_chain(&g, n, false);
	put_tensor_vi(&g, 11, "t0", 1, 8);
	snprintf(out, sizeof out, "t%d", n);
	put_tensor_vi(&g, 12, out, 1, 8);
	put_msg(&b, 7, &g);
	return b;
}

/* Load, infer and annotate a 50,000-node graph within the default budget, and the
 * budget within a small factor of what they take. */
Test(budget, default_fits_and_is_tight, .timeout = 60)
{
	wbuf b = relu_chain(50000);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, b.p, b.n, "chain.onnx", NULL, &err), OSH_OK, "%s", err.message);
	cr_assert(!osh_model_is_malformed(m));
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
	/* The heaviest use: packing builds every message a rewrite would edit
	 * (loader/build_messages.c), which load, infer and annotate alone never do. */
	uint8_t *packed = NULL;
	size_t npacked = 0;
	cr_assert_eq(osh_model_pack(m, &packed, &npacked, &err), OSH_OK, "%s", err.message);
	free(packed);
	uint64_t used = arena_used(m->arena);
	cr_expect_leq(used, m->budget);
	uint64_t margin = (uint64_t)64 << 20;
	cr_expect_leq(m->budget, 3 * used + margin, "budget %llu for %llu bytes used", (unsigned long long)m->budget,
		      (unsigned long long)used);
	osh_model_free(m);
	free(b.p);
}

/* A caller's budget below what the messages need is refused before decoding. */
Test(budget, callers_budget_checked_before_decoding)
{
	wbuf b = relu_chain(1000);
	osh_model *m = (osh_model *)1;
	osh_error err = {0};
	osh_load_options opts = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = 50000};
	cr_assert_eq(osh_model_load_buffer(&m, b.p, b.n, "chain.onnx", &opts, &err), OSH_ERR_LIMIT);
	cr_expect_null(m);
	cr_expect(contains(err.message, "chain.onnx: decoding needs "), "%s", err.message);
	cr_expect(contains(err.message, "more than the memory budget of 50000 bytes"), "%s", err.message);
	free(b.p);
}

/* ---- model-local functions ------------------------------------------------------ */

/* n functions local.F0..; the main graph has `calls` nodes of domain `call_domain`
 * (not imported) named F0.. in turn. */
static wbuf many_functions(int n, int calls, const char *call_domain)
{
	wbuf b = {0}, g = {0};
	put_header(&b);
	char name[32];
	for (int i = 0; i < calls; i++) {
		wbuf nd = {0};
		snprintf(name, sizeof name, "F%d", i % n);
		put_str(&nd, 4, name);
		put_str(&nd, 7, call_domain);
		put_msg(&g, 1, &nd);
	}
	put_msg(&b, 7, &g);
	for (int i = 0; i < n; i++) {
		wbuf f = {0};
		snprintf(name, sizeof name, "F%d", i);
		put_str(&f, 1, name);
		put_str(&f, 10, "local"); /* FunctionProto.domain */
		put_msg(&b, 25, &f);
	}
	return b;
}

Test(functions, count_limit)
{
	for (int n = MAX_FUNCTIONS; n <= MAX_FUNCTIONS + 1; n++) {
		wbuf b = many_functions(n, 0, "");
		osh_model *m = NULL;
		osh_error err = {0};
		cr_assert_eq(osh_model_load_buffer(&m, b.p, b.n, "f.onnx", NULL, &err), OSH_OK, "%s", err.message);
		char want[128];
		snprintf(want, sizeof want, "the model defines %d functions, more than the %d onnxshape accepts", n,
			 MAX_FUNCTIONS);
		bool found = false;
		for (size_t i = 0; i < osh_model_diag_count(m); i++)
			found |= contains(osh_model_diag_at(m, i)->message, want);
		cr_expect_eq(found, n > MAX_FUNCTIONS, "%d functions", n);
		cr_expect_eq(osh_model_is_malformed(m), n > MAX_FUNCTIONS, "%d functions", n);
		osh_model_free(m);
		free(b.p);
	}
}

/* Every node's domain is unknown, so each is looked up among the functions (a hash
 * lookup, not a scan of 4,096 functions per node: bench/ times it; the timeout here
 * only keeps a quadratic regression from hanging CI). */
Test(functions, many_functions_and_nodes, .timeout = 120)
{
	wbuf b = many_functions(MAX_FUNCTIONS, 100000, "nowhere");
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, b.p, b.n, "f.onnx", NULL, &err), OSH_OK, "%s", err.message);
	/* Each node's domain is imported by nobody: an opset-error each, not malformed. */
	cr_expect(osh_model_has_errors(m));
	osh_model_free(m);
	free(b.p);
}

/* ---- SIGINT and SIGTERM during write_atomic ------------------------------------ */

static const char old_bytes[] = "the old content, which must survive a signal\n";

static void put_file(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, n), (ssize_t)n);
	cr_assert_eq(close(fd), 0);
}

static bool file_is(const char *path, const void *data, size_t n)
{
	size_t got;
	uint8_t *buf = slurp(path, &got);
	bool same = got == n && !memcmp(buf, data, n);
	free(buf);
	return same;
}

typedef struct block_ctx {
	int ready_fd; /* a byte is written here once the temporary file holds data */
	int raise;    /* 0: block until killed; else raise this signal and go on */
} block_ctx;

/* Writes 1 MiB, then tells the parent and waits to be killed (or raises a signal). */
static int produce_then_wait(out_file *o, void *ctx)
{
	block_ctx *b = ctx;
	static uint8_t chunk[1 << 20];
	memset(chunk, 'x', sizeof chunk);
	out_write(o, chunk, sizeof chunk);
	out_flush(o);
	if (b->raise) {
		raise(b->raise);
	} else {
		if (write(b->ready_fd, "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	out_write(o, "end", 3);
	return o->err;
}

/* A child writes over an existing file (or a new one) and is killed by sig while
 * the temporary file holds data: it dies of the signal, and the directory holds
 * exactly what it held before. */
static void killed_mid_write(int sig, bool exists)
{
	char *dir = make_tmpdir_for("hostile");
	char *dest = path_in(dir, "model.onnx");
	if (exists)
		put_file(dest, old_bytes, sizeof old_bytes - 1);
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		/* The dispositions a process starts with (the test runner has its own). */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(fds[0]);
		block_ctx ctx = {fds[1], 0};
		atomic_opts ao = {0};
		osh_error err;
		write_atomic(dest, &ao, produce_then_wait, &ctx, &err);
		_exit(3); /* not reached: the signal ends the process */
	}
	close(fds[1]);
	char c;
	cr_assert_eq(read(fds[0], &c, 1), 1, "the child did not start writing");
	close(fds[0]);
	char *during = listing(dir);
	cr_expect(contains(during, ".model.onnx."), "no temporary file while writing: [%s]", during);
	free(during);
	cr_assert_eq(kill(pid, sig), 0);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_expect(WIFSIGNALED(ws) && WTERMSIG(ws) == sig, "signal %d: the child did not die of it (status %x)", sig, ws);
	if (exists) {
		cr_expect(file_is(dest, old_bytes, sizeof old_bytes - 1), "signal %d: the old file changed", sig);
		expect_listing(dir, "model.onnx", "killed over an old file");
	} else {
		expect_listing(dir, "", "killed writing a new file");
	}
	free(dest);
	remove_dir(dir);
}

Test(write_signal, sigint_and_sigterm_remove_the_temporary_file, .timeout = 30)
{
	killed_mid_write(SIGINT, true);
	killed_mid_write(SIGINT, false);
	killed_mid_write(SIGTERM, true);
	killed_mid_write(SIGTERM, false);
}

static volatile sig_atomic_t app_handler_ran;
static void app_handler(int sig) { app_handler_ran = sig; }

static bool same_action(const struct sigaction *a, const struct sigaction *b)
{
	return (a->sa_flags & SA_SIGINFO) == (b->sa_flags & SA_SIGINFO) &&
	       ((a->sa_flags & SA_SIGINFO) ? a->sa_sigaction == b->sa_sigaction : a->sa_handler == b->sa_handler);
}

/* The application's own handler: called after the temporary file is gone, and in
 * place again after the write. As the handler returns, the write goes on and then
 * fails cleanly (its temporary file was removed): the old file stays. */
Test(write_signal, previous_handler_is_chained_and_restored)
{
	struct sigaction app = {0}, before_int, before_term, after;
	app.sa_handler = app_handler;
	sigemptyset(&app.sa_mask);
	cr_assert_eq(sigaction(SIGTERM, &app, NULL), 0);
	cr_assert_eq(sigaction(SIGTERM, NULL, &before_term), 0);
	cr_assert_eq(sigaction(SIGINT, NULL, &before_int), 0);

	char *dir = make_tmpdir_for("hostile");
	char *dest = path_in(dir, "model.onnx");
	put_file(dest, old_bytes, sizeof old_bytes - 1);
	block_ctx ctx = {-1, SIGTERM};
	atomic_opts ao = {0};
	osh_error err = {0};
	app_handler_ran = 0;
	osh_status s = write_atomic(dest, &ao, produce_then_wait, &ctx, &err);
	cr_expect_eq(app_handler_ran, SIGTERM, "the application's handler did not run");
	cr_expect_eq(s, OSH_ERR_IO, "%s", err.message);
	cr_expect(contains(err.message, "the destination is unchanged"), "%s", err.message);
	cr_expect(file_is(dest, old_bytes, sizeof old_bytes - 1));
	expect_listing(dir, "model.onnx", "chained handler");

	cr_assert_eq(sigaction(SIGTERM, NULL, &after), 0);
	cr_expect(same_action(&after, &before_term), "the SIGTERM handler was not restored");
	cr_assert_eq(sigaction(SIGINT, NULL, &after), 0);
	cr_expect(same_action(&after, &before_int), "the SIGINT handler was not restored");
	free(dest);
	remove_dir(dir);
}

/* An ignored signal stays ignored: the write goes through. */
Test(write_signal, ignored_signal_stays_ignored)
{
	cr_assert_neq(signal(SIGINT, SIG_IGN), SIG_ERR);
	char *dir = make_tmpdir_for("hostile");
	char *dest = path_in(dir, "model.onnx");
	put_file(dest, old_bytes, sizeof old_bytes - 1);
	block_ctx ctx = {-1, SIGINT};
	atomic_opts ao = {0};
	osh_error err = {0};
	cr_assert_eq(write_atomic(dest, &ao, produce_then_wait, &ctx, &err), OSH_OK, "%s", err.message);
	struct stat st;
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_size, (1 << 20) + 3);
	expect_listing(dir, "model.onnx", "ignored SIGINT");
	struct sigaction now;
	cr_assert_eq(sigaction(SIGINT, NULL, &now), 0);
	cr_expect(!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN, "SIGINT is no longer ignored");
	free(dest);
	remove_dir(dir);
}

/* ---- nesting of subgraphs, as the README states it ------------------------------- */

/* A graph whose one node is an If nesting `depth` more levels of the same in its then
 * branch (its else branch an Identity), each graph's output typed FLOAT (1). */
static void nested_if_graph(wbuf *g, int depth, int tag)
{
	char out[32];
	snprintf(out, sizeof out, "y%d_%d", depth, tag);
	wbuf nd = {0};
	if (depth == 0) {
		put_str(&nd, 1, "x");
		put_str(&nd, 2, out);
		put_str(&nd, 4, "Identity");
	} else {
		put_str(&nd, 1, "c");
		put_str(&nd, 2, out);
		put_str(&nd, 4, "If");
		for (int k = 0; k < 2; k++) {
			wbuf at = {0}, sub = {0};
			put_str(&at, 1, k ? "else_branch" : "then_branch");
			nested_if_graph(&sub, k ? 0 : depth - 1, k);
			put_msg(&at, 6, &sub);
			put_vfield(&at, 20, 5); /* GRAPH */
			put_msg(&nd, 5, &at);
		}
	}
	put_msg(g, 1, &nd);
	put_str(g, 2, "g");
	put_tensor_vi(g, 12, out, 1, 1);
}

static osh_status load_nested(int depth, osh_error *err)
{
	wbuf b = {0}, g = {0};
	put_header(&b);
	nested_if_graph(&g, depth, 0);
	put_tensor_vi(&g, 11, "x", 1, -1);
	put_tensor_vi(&g, 11, "c", 9, -1);
	put_msg(&b, 7, &g);
	osh_model *m = NULL;
	osh_status s = osh_model_load_buffer(&m, b.p, b.n, "nested.onnx", NULL, err);
	if (s == OSH_OK && osh_model_is_malformed(m))
		s = OSH_ERR_INVALID;
	osh_model_free(m);
	free(b.p);
	return s;
}

/* README, "What the loader refuses": 31 nested If bodies with typed outputs load, 32
 * are refused by protobuf's nesting limit, with its message. */
Test(nesting, subgraph_depth_as_documented)
{
	osh_error err = {0};
	cr_expect_eq(load_nested(31, &err), OSH_OK, "31 levels: %s", err.message);
	cr_expect_eq(load_nested(32, &err), OSH_ERR_LIMIT, "32 levels loaded");
	cr_expect(strstr(err.message, "messages are nested more than 100 levels deep"), "%s", err.message);
}
