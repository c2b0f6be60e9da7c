/* test_scaling.c: what a file can make big costs time in proportion, not squared.
 *
 *  - outputs: infer and annotate a graph of 100k outputs, listed in another order
 *    than their values and one of them twice: each output gets its own value's type
 *    (read back from the packed model), in well under the bound. The annotation once
 *    compared every output with every other by name: 41 s.
 *  - attributes: check a node with 100k attributes, two of them given twice: every
 *    unknown one reported, each repeat once, in well under the bound (the check once
 *    compared each name with every earlier one: 12 s); the same findings on a node
 *    with a few attributes, whose names are compared pairwise.
 *
 * The bound is generous (the work takes a few hundred milliseconds on a loaded
 * machine) and still far below what the quadratic versions took.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "wbuf.h"
#include <time.h>

#define MANY 100000
/* A sanitizer build at -O0, each arena allocation a malloc (make test-asan), takes
 * some twenty times longer: the bound follows, still below what the quadratic
 * versions took in an optimised build (30 to 50 s on a loaded machine). */
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define BOUND_S 40.0
#else
#define BOUND_S 3.0
#endif

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A graph input x, FLOAT (2, 3). */
static void put_input_x(wbuf *g)
{
	wbuf vi = {0}, tp = {0}, tensor = {0}, shp = {0};
	put_vfield(&tensor, 1, 1);
	for (int k = 0; k < 2; k++) {
		wbuf dm = {0};
		put_vfield(&dm, 1, (uint64_t)(2 + k));
		put_msg(&shp, 1, &dm);
	}
	put_msg(&tensor, 2, &shp);
	put_msg(&tp, 1, &tensor);
	put_str(&vi, 1, "x");
	put_msg(&vi, 2, &tp);
	put_msg(g, 11, &vi);
}

static wbuf finish_model(wbuf *g)
{
	wbuf b = {0};
	put_model_header(&b, 13);
	put_msg(&b, 7, g);
	return b;
}

static osh_model *load_bytes(const wbuf *b)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, b->p, b->n, "scaling.onnx", NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_not(osh_model_is_malformed(m), "%s", osh_model_diag_count(m) ? osh_model_diag_at(m, 0)->message : "");
	return m;
}

/* ---- outputs ------------------------------------------------------------------- */

/* y_i = Relu(x) for i < MANY; the outputs y_{MANY-1} ... y_0, then y_0 again, with
 * no types: annotation gives them theirs. */
static wbuf many_outputs(void)
{
	wbuf g = {0};
	char name[32];
	for (int i = 0; i < MANY; i++) {
		wbuf nd = {0};
		snprintf(name, sizeof name, "y%d", i);
		put_str(&nd, 1, "x");
		put_str(&nd, 2, name);
		put_str(&nd, 4, "Relu");
		put_msg(&g, 1, &nd);
	}
	put_str(&g, 2, "g");
	put_input_x(&g);
	for (int i = MANY - 1; i >= -1; i--) {
		wbuf vi = {0};
		snprintf(name, sizeof name, "y%d", i < 0 ? 0 : i);
		put_str(&vi, 1, name);
		put_msg(&g, 12, &vi);
	}
	return finish_model(&g);
}

Test(scaling, many_graph_outputs_annotated, .timeout = 120)
{
	wbuf b = many_outputs();
	double t0 = now();
	osh_model *m = load_bytes(&b);
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
	uint8_t *data;
	size_t size;
	cr_assert_eq(osh_model_pack(m, &data, &size, &err), OSH_OK, "%s", err.message);
	double took = now() - t0;
	osh_model_free(m);
	free(b.p);
	cr_expect_lt(took, BOUND_S, "load, infer, annotate and pack of %d outputs took %.2f s", MANY, took);

	/* What the file now declares: every output FLOAT (2, 3), in the order given. */
	osh_error e2 = {0};
	osh_model *back = NULL;
	cr_assert_eq(osh_model_load_buffer(&back, data, size, "annotated.onnx", NULL, &e2), OSH_OK, "%s", e2.message);
	free(data);
	const osh_summary *s = osh_model_summary(back);
	cr_assert(s);
	cr_assert_eq(s->n_outputs, (size_t)MANY + 1);
	char want[32];
	for (size_t k = 0; k < s->n_outputs; k++) {
		const osh_value_summary *o = &s->outputs[k];
		snprintf(want, sizeof want, "y%zu", k == MANY ? (size_t)0 : (size_t)MANY - 1 - k);
		cr_assert_str_eq(o->name, want);
		cr_assert_str_eq(o->type.kind, "tensor", "output %zu '%s' has no type", k, o->name);
		cr_assert_eq(o->type.elem_type, 1, "output %zu", k);
		cr_assert_eq(o->type.rank, 2, "output %zu", k);
		cr_assert(o->type.dims[0].kind == OSH_DIM_VALUE && o->type.dims[0].value == 2, "output %zu", k);
		cr_assert(o->type.dims[1].kind == OSH_DIM_VALUE && o->type.dims[1].value == 3, "output %zu", k);
	}
	osh_model_free(back);
}

/* ---- attributes ---------------------------------------------------------------- */

/* An INT attribute `name` = v of node nd. */
static void put_int_attr(wbuf *nd, const char *name, int64_t v)
{
	wbuf a = {0};
	put_str(&a, 1, name);
	put_vfield(&a, 3, (uint64_t)v);
	put_vfield(&a, 20, 2); /* AttributeProto.INT */
	put_msg(nd, 5, &a);
}

/* y = Relu(x) with attributes a0 .. a{n-1}, then a5 and a7 again. */
static wbuf relu_with_attrs(int n)
{
	wbuf g = {0}, nd = {0};
	char name[32];
	put_str(&nd, 1, "x");
	put_str(&nd, 2, "y");
	put_str(&nd, 4, "Relu");
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "a%d", i);
		put_int_attr(&nd, name, i);
	}
	put_int_attr(&nd, "a5", 5);
	put_int_attr(&nd, "a7", 7);
	put_msg(&g, 1, &nd);
	put_str(&g, 2, "g");
	put_input_x(&g);
	wbuf vi = {0};
	put_str(&vi, 1, "y");
	put_msg(&g, 12, &vi);
	return finish_model(&g);
}

/* Checks a node of n + 2 attributes: n + 2 unknown ones, a5 and a7 given twice. */
static double check_attrs_of(int n)
{
	wbuf b = relu_with_attrs(n);
	double t0 = now();
	osh_model *m = load_bytes(&b);
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	double took = now() - t0;
	free(b.p);
	size_t unknown = 0, twice = 0;
	char seen[2][64] = {"", ""};
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		if (strcmp(d->code, "attribute-error"))
			continue;
		if (strstr(d->message, "is not an attribute of Relu"))
			unknown++;
		else if (strstr(d->message, "is given twice") && twice < 2)
			snprintf(seen[twice++], sizeof seen[0], "%s", d->message);
		else if (strstr(d->message, "is given twice"))
			twice++;
	}
	cr_expect_eq(unknown, (size_t)n + 2, "%d attributes: %zu reported unknown", n + 2, unknown);
	cr_expect_eq(twice, 2, "%d attributes: %zu reported given twice", n + 2, twice);
	cr_expect_str_eq(seen[0], "attribute 'a5' is given twice");
	cr_expect_str_eq(seen[1], "attribute 'a7' is given twice");
	osh_model_free(m);
	return took;
}

Test(scaling, many_attributes_checked, .timeout = 120)
{
	double took = check_attrs_of(MANY);
	cr_expect_lt(took, BOUND_S, "load and check of a node of %d attributes took %.2f s", MANY + 2, took);
}

Test(scaling, few_attributes_checked_alike)
{
	check_attrs_of(8); /* 10 attributes: compared pairwise */
}
