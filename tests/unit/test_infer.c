/* test_infer.c: the inference pass as a whole (not one operator): declared shapes
 * against inferred ones, --input-shape and --assume, symbols learned by broadcasting,
 * and osh_annotate writing results back (fresh names that never clash); the shared
 * dims cache (passes/dims_share.c), whose arrays set_out passes on by address. */
#include <criterion/criterion.h>

#include "core/model.h"
#include "passes/rule_api/dims_share.h"
#include "mb.h"

#include <stdlib.h>
#include <string.h>

/* Packs m (after annotate) and loads it again, to read back what was written. */
static osh_model *reload(osh_model *m)
{
	uint8_t *buf;
	size_t len;
	osh_error err = {0};
	cr_assert_eq(osh_model_pack(m, &buf, &len, &err), OSH_OK, "%s", err.message);
	osh_model *r = NULL;
	cr_assert_eq(osh_model_load_buffer(&r, buf, len, "reloaded.onnx", NULL, &err), OSH_OK, "%s", err.message);
	free(buf);
	cr_assert_not(osh_model_is_malformed(r));
	return r;
}

/* The declared type of a main-graph value in a reloaded model, as mb_type prints it. */
static const char *declared(osh_model *r, const char *name)
{
	cr_assert_eq(osh_infer(r, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .ignore_declared = false}, NULL), OSH_OK);
	int32_t id = strmap_get(&r->main->names, name);
	cr_assert(id >= 0, "no value %s", name);
	cr_assert(value_decl(&r->main->values[id]) != NULL, "%s has no value_info", name);
	return mb_type(r, name);
}

Test(infer, declared_value_info_fills_what_an_unknown_op_leaves)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_node(b, "NoSuchOp", "x", "y");
	mb_node_domain(b, "custom");
	mb_opset(b, "custom", 1);
	mb_value_info(b, "y", DT_FLOAT, "N,3");
	mb_node(b, "Relu", "y", "z");
	mb_output(b, "z", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "unknown-op"), 1);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (N, 3)");
	osh_model_free(m);
}

Test(infer, conflicting_declaration_is_reported_and_the_inferred_sizes_kept)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_node(b, "Relu", "x", "y");
	mb_value_info(b, "y", DT_FLOAT, "2,4");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "shape-conflict"), 1);
	cr_expect(strstr(mb_message(m, "shape-conflict"), "dimension 1 is 3, declared 4") != NULL, "%s",
		  mb_message(m, "shape-conflict"));
	/* ONNX Runtime runs the sizes it computes, whatever value_info says. */
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2, 3)");
	osh_model_free(m);
}

Test(infer, declared_symbol_is_bound_by_inference)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_node(b, "Relu", "x", "y");
	mb_value_info(b, "y", DT_FLOAT, "2,M");
	mb_node(b, "Relu", "y", "z");
	mb_output(b, "z", DT_FLOAT, "2,M");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "shape-conflict"), 0);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (2, 3)");
	osh_model_free(m);
}

Test(infer, ignore_declared_infers_from_inputs_only)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_node(b, "NoSuchOp", "x", "y");
	mb_node_domain(b, "custom");
	mb_opset(b, "custom", 1);
	mb_output(b, "y", DT_FLOAT, "2,3");
	osh_model *m = mb_infer_opts(b, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .ignore_declared = true});
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "unknown");
	osh_model_free(m);
}

Test(infer, input_shape_override_and_assume)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "y", DT_FLOAT, "M,3");
	mb_node(b, "Add", "x,y", "z");
	mb_output(b, "z", 0, NULL);
	osh_dim dims[] = {{OSH_DIM_VALUE, 8, NULL}, {OSH_DIM_VALUE, 3, NULL}};
	osh_input_shape shapes[] = {{"x", 2, dims}};
	osh_assumption assume[] = {{"M", 8}};
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1, .input_shapes = shapes, .n_assumptions = 1, .assumptions = assume};
	osh_model *m = mb_infer_opts(b, &o);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "x"), "FLOAT (8, 3)");
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (8, 3)");
	osh_model_free(m);
}

Test(infer, unknown_input_name_is_refused)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2");
	mb_node(b, "Relu", "x", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = NULL;
	uint8_t *buf;
	size_t len;
	(void)buf, (void)len;
	osh_input_shape shapes[] = {{"nope", 0, NULL}};
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1, .input_shapes = shapes};
	m = mb_infer_opts(b, &o); /* mb prints the failure and returns NULL */
	cr_expect_null(m);
}

Test(infer, broadcasting_binds_a_symbol_everywhere)
{
	/* PRelu is unidirectional: slope (N,) into X (4,): N must be 1 or 4. Expand-like
	 * certainty comes from the none rule of Sum-6: N must be 4. */
	mb *b = mb_new(6);
	mb_input(b, "x", DT_FLOAT, "4");
	mb_input(b, "y", DT_FLOAT, "N");
	mb_node(b, "Sum", "x,y", "s");
	mb_node(b, "Relu", "y", "r");
	mb_output(b, "s", 0, NULL);
	mb_output(b, "r", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (4)");
	osh_model_free(m);
}

Test(infer, annotate_writes_value_info_with_fresh_names_that_do_not_clash)
{
	mb *b = mb_new(13);
	/* The model already uses the name a fresh symbol would get. */
	mb_input(b, "x", DT_FLOAT, "unk__0,3");
	mb_node(b, "NonZero", "x", "nz");
	mb_node(b, "Relu", "x", "r");
	mb_output(b, "nz", 0, NULL);
	mb_output(b, "r", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_assert_eq(osh_annotate(m, NULL), OSH_OK);
	osh_model *r = reload(m);
	cr_expect_str_eq(declared(r, "r"), "FLOAT (unk__0, 3)");
	const char *nz = declared(r, "nz");
	/* NonZero: (rank, count): if its rule is known, the count is a fresh name */
	if (strcmp(nz, "unknown"))
		cr_expect(strstr(nz, "unk__0)") == NULL, "fresh name clashes: %s", nz);
	osh_model_free(r);
	osh_model_free(m);
}

Test(infer, malformed_model_is_refused)
{
	mb *b = mb_new(13);
	mb_node(b, "Relu", "missing", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_expect_null(m);
}

#include "onnx-ml.pb-c.h"

/* A serialized INT64 TensorProto of one dimension. */
static uint8_t *int_tensor_bytes(const char *name, const int64_t *vals, size_t n, size_t *len)
{
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	int64_t dims[1] = {(int64_t)n};
	t.name = (char *)name;
	t.has_data_type = 1;
	t.data_type = DT_INT64;
	t.n_dims = 1;
	t.dims = dims;
	t.n_int64_data = n;
	t.int64_data = (int64_t *)vals;
	*len = protobuf_c_message_get_packed_size(&t.base);
	uint8_t *buf = malloc(*len);
	protobuf_c_message_pack(&t.base, buf);
	return buf;
}

Test(infer, input_values_make_runtime_shapes_exact)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_input(b, "shape", DT_INT64, "2");
	mb_node(b, "Reshape", "x,shape", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	const char *before = mb_type(m, "y");
	cr_expect(strstr(before, "FLOAT (") == before && strcmp(before, "FLOAT (6, 4)"), "%s", before);
	osh_model_free(m);

	/* The same model with the shape supplied, by name and by position. */
	for (int by_name = 0; by_name < 2; by_name++) {
		b = mb_new(13);
		mb_input(b, "x", DT_FLOAT, "2,3,4");
		mb_input(b, "shape", DT_INT64, "2");
		mb_node(b, "Reshape", "x,shape", "y");
		mb_output(b, "y", 0, NULL);
		m = mb_infer_opts(b, &(osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .ignore_declared = true});
		cr_assert_not_null(m);
		size_t len;
		uint8_t *bytes = int_tensor_bytes(by_name ? "" : "stale-name", (int64_t[]){6, -1}, 2, &len);
		osh_error err = {0};
		cr_assert_eq(osh_model_set_input_value(m, by_name ? "shape" : NULL, 1, bytes, len, &err), OSH_OK,
			     "%s", err.message);
		free(bytes);
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
		cr_expect_str_eq(mb_type(m, "y"), "FLOAT (6, 4)");
		osh_model_free(m);
	}
}

Test(infer, input_value_for_no_such_input_is_refused)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2");
	mb_node(b, "Relu", "x", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	size_t len;
	uint8_t *bytes = int_tensor_bytes("", (int64_t[]){1}, 1, &len);
	osh_error err = {0};
	cr_expect_eq(osh_model_set_input_value(m, "nope", -1, bytes, len, &err), OSH_ERR_INVALID);
	cr_expect(strstr(err.message, "no graph input named 'nope'") != NULL, "%s", err.message);
	free(bytes);
	osh_model_free(m);
}

/* Equal arrays come back as one, which the cache then owns; a copy of the caller's, a
 * scalar's NULL dims and an empty cache own nothing (a NULL owned once made set_out
 * drop every scalar output). */
Test(dims_share, owns_what_it_hands_out)
{
	arena *a = arena_new(0);
	cr_assert(a);
	dims_share *s = dims_share_new(a, 0);
	cr_assert(s);
	cr_expect(!dims_share_owns(s, NULL, 0));
	cr_expect(!dims_share_owns(NULL, NULL, 0));
	dim d[3] = {dim_known(2), dim_symbol(0), dim_unknown()};
	cr_expect(!dims_share_owns(s, d, 3));
	const dim *p = dims_share_get(s, a, d, 3), *q = dims_share_get(s, a, d, 3);
	cr_assert(p && p != d);
	cr_expect_eq(p, q);
	cr_expect(dims_share_owns(s, p, 3));
	cr_expect(!dims_share_owns(s, p, 2), "owned as 3 dims, not as a prefix");
	cr_expect(!dims_share_owns(s, d, 3));
	const dim *e = dims_share_get(s, a, NULL, 0);
	cr_assert(e);
	cr_expect(dims_share_owns(s, e, 0));
	arena_free(a);
}

/* The cache has a slot for every few values of the model, 256 to 4096; however small,
 * what it hands out equals what was asked (a lossy cache only shares less). */
Test(dims_share, sized_by_the_model)
{
	arena *a = arena_new(0);
	cr_assert(a);
	static const struct {
		size_t values;
		int32_t slots;
	} sizes[] = {{0, 256}, {1000, 256}, {2700, 1024}, {10000, 4096}, {3000000, 4096}};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		dims_share *s = dims_share_new(a, sizes[i].values);
		cr_assert(s);
		cr_expect_eq(s->nslots, sizes[i].slots, "%zu values: %d slots", sizes[i].values, s->nslots);
	}
	dims_share *s = dims_share_new(a, 0);
	int shared = 0;
	for (int round = 0; round < 2; round++) {
		for (int64_t k = 0; k < 2000; k++) {
			dim d[2] = {dim_known(k), dim_known(k % 7)};
			const dim *p = dims_share_get(s, a, d, 2);
			cr_assert(p);
			cr_expect(dims_share_same(p, d, 2), "shape %lld came back as another", (long long)k);
			shared += round == 1 && dims_share_owns(s, p, 2);
		}
	}
	cr_expect_gt(shared, 0, "nothing shared");
	arena_free(a);
}
