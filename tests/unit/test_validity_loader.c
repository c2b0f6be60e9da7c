/* test_validity_loader.c: what the loader refuses, warns about and lets through, as
 * ONNX Runtime decides it (the validity battery, tests/validity, asks ONNX Runtime
 * 1.30 about the same kinds of models).
 *
 * An error is what ONNX Runtime refuses to load; what only the spec forbids is a
 * not-in-spec warning, and the model is checked on (never malformed). Each model is
 * built here with protobuf-c, a few lines a case, packed, loaded and inferred.
 */
#include "core/arena.h"
#include "core/dtype.h"
#include "core/model.h"
#include "onnx-ml.pb-c.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small model builder ----------------------------------------------------- */

typedef struct tb {
	arena *a;
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
} tb;

/* tb_input and tb_output: a value declared without any type. */
#define NO_TYPE (-1)

static void *must(void *p)
{
	cr_assert_not_null(p, "out of memory");
	return p;
}

#define NEW(b, T) ((T *)must(arena_zalloc((b)->a, sizeof(T))))

/* Appends p to a repeated pointer field (a fresh array each time: models are tiny). */
#define PUSH(b, arr, n, p)                                                                    \
	do {                                                                                  \
		void **na_ = must(arena_array((b)->a, (n) + 1, sizeof(void *)));              \
		if (n)                                                                        \
			memcpy(na_, (arr), (n) * sizeof(void *));                             \
		na_[(n)] = (p);                                                               \
		(arr) = (void *)na_;                                                          \
		(n)++;                                                                        \
	} while (0)

static char *dup(tb *b, const char *s) { return must(arena_strdup(b->a, s)); }

/* Splits "a,b" into its fields; "" has none. */
static size_t split(tb *b, const char *s, char ***out)
{
	size_t n = *s ? 1 : 0;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	char **v = must(arena_array(b->a, n ? n : 1, sizeof *v));
	for (size_t i = 0; i < n; i++) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		v[i] = must(arena_strndup(b->a, s, len));
		s += len + (e != NULL);
	}
	*out = v;
	return n;
}

static tb *tb_new(int64_t ir)
{
	arena *a = must(arena_new(0));
	tb *b = must(arena_zalloc(a, sizeof *b));
	b->a = a;
	onnx__model_proto__init(&b->model);
	onnx__graph_proto__init(&b->graph);
	b->model.has_ir_version = 1;
	b->model.ir_version = ir;
	b->graph.name = "g";
	b->model.graph = &b->graph;
	return b;
}

static Onnx__OperatorSetIdProto *opset_id(tb *b, const char *domain, int64_t version)
{
	Onnx__OperatorSetIdProto *o = NEW(b, Onnx__OperatorSetIdProto);
	onnx__operator_set_id_proto__init(o);
	o->domain = dup(b, domain);
	o->has_version = 1;
	o->version = version;
	return o;
}

static void tb_opset(tb *b, const char *domain, int64_t version)
{
	PUSH(b, b->model.opset_import, b->model.n_opset_import, opset_id(b, domain, version));
}

/* A value of tensor type elem (NO_TYPE: no type at all; 0: element type 0 written
 * out) and dims "2,N" (NULL: no shape). */
static Onnx__ValueInfoProto *declare(tb *b, const char *name, int elem, const char *dims)
{
	Onnx__ValueInfoProto *vi = NEW(b, Onnx__ValueInfoProto);
	onnx__value_info_proto__init(vi);
	vi->name = dup(b, name);
	if (elem == NO_TYPE)
		return vi;
	Onnx__TypeProto *tp = NEW(b, Onnx__TypeProto);
	onnx__type_proto__init(tp);
	Onnx__TypeProto__Tensor *tt = NEW(b, Onnx__TypeProto__Tensor);
	onnx__type_proto__tensor__init(tt);
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	vi->type = tp;
	if (!dims)
		return vi;
	Onnx__TensorShapeProto *s = NEW(b, Onnx__TensorShapeProto);
	onnx__tensor_shape_proto__init(s);
	char **f;
	size_t n = split(b, dims, &f);
	for (size_t i = 0; i < n; i++) {
		Onnx__TensorShapeProto__Dimension *d = NEW(b, Onnx__TensorShapeProto__Dimension);
		onnx__tensor_shape_proto__dimension__init(d);
		if (f[i][0] >= '0' && f[i][0] <= '9') {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = atoll(f[i]);
		} else {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = f[i];
		}
		PUSH(b, s->dim, s->n_dim, d);
	}
	tt->shape = s;
	return vi;
}

static void tb_input(tb *b, const char *name, int elem, const char *dims)
{
	PUSH(b, b->graph.input, b->graph.n_input, declare(b, name, elem, dims));
}

static void tb_output(tb *b, const char *name, int elem, const char *dims)
{
	PUSH(b, b->graph.output, b->graph.n_output, declare(b, name, elem, dims));
}

/* A node of the default domain, unnamed; the caller sets domain and name. */
static Onnx__NodeProto *new_node(tb *b, const char *op, const char *ins, const char *outs)
{
	Onnx__NodeProto *n = NEW(b, Onnx__NodeProto);
	onnx__node_proto__init(n);
	n->op_type = dup(b, op);
	n->n_input = split(b, ins, &n->input);
	n->n_output = split(b, outs, &n->output);
	return n;
}

static Onnx__NodeProto *tb_node(tb *b, const char *op, const char *ins, const char *outs)
{
	Onnx__NodeProto *n = new_node(b, op, ins, outs);
	PUSH(b, b->graph.node, b->graph.n_node, n);
	return n;
}

/* An initializer of element type elem (FLOAT or INT64), zeros of dims "2,3". */
static void tb_init(tb *b, const char *name, int elem, const char *dims)
{
	Onnx__TensorProto *t = NEW(b, Onnx__TensorProto);
	onnx__tensor_proto__init(t);
	t->name = dup(b, name);
	t->has_data_type = 1;
	t->data_type = elem;
	char **f;
	size_t n = split(b, dims, &f), count = 1;
	t->dims = must(arena_array(b->a, n ? n : 1, sizeof *t->dims));
	t->n_dims = n;
	for (size_t i = 0; i < n; i++)
		count *= (size_t)(t->dims[i] = atoll(f[i]));
	if (elem == DT_FLOAT) {
		t->float_data = must(arena_array(b->a, count ? count : 1, sizeof(float)));
		t->n_float_data = count;
	} else {
		t->int64_data = must(arena_array(b->a, count ? count : 1, sizeof(int64_t)));
		t->n_int64_data = count;
	}
	PUSH(b, b->graph.initializer, b->graph.n_initializer, t);
}

static Onnx__FunctionProto *tb_function(tb *b, const char *domain, const char *name, const char *ins,
					const char *outs)
{
	Onnx__FunctionProto *f = NEW(b, Onnx__FunctionProto);
	onnx__function_proto__init(f);
	f->domain = dup(b, domain);
	f->name = dup(b, name);
	f->n_input = split(b, ins, &f->input);
	f->n_output = split(b, outs, &f->output);
	PUSH(b, b->model.functions, b->model.n_functions, f);
	return f;
}

static void fn_opset(tb *b, Onnx__FunctionProto *f, const char *domain, int64_t version)
{
	PUSH(b, f->opset_import, f->n_opset_import, opset_id(b, domain, version));
}

static Onnx__NodeProto *fn_node(tb *b, Onnx__FunctionProto *f, const char *op, const char *ins,
				const char *outs)
{
	Onnx__NodeProto *n = new_node(b, op, ins, outs);
	PUSH(b, f->node, f->n_node, n);
	return n;
}

/* Packs, loads and (unless it is malformed) infers the model; frees the builder. */
static osh_model *tb_load(tb *b)
{
	size_t len = onnx__model_proto__get_packed_size(&b->model);
	uint8_t *buf = must(malloc(len ? len : 1));
	onnx__model_proto__pack(&b->model, buf);
	arena_free(b->a);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load_buffer(&m, buf, len, "model.onnx", NULL, &err), OSH_OK, "%s", err.message);
	free(buf);
	if (!osh_model_is_malformed(m))
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

/* The model of most cases: X (2, 3) float → Relu → Y, opset_import left to the case. */
static tb *relu_model(int64_t ir)
{
	tb *b = tb_new(ir);
	tb_input(b, "X", DT_FLOAT, "2,3");
	tb_node(b, "Relu", "X", "Y");
	tb_output(b, "Y", DT_FLOAT, "2,3");
	return b;
}

/* ---- reading the findings -------------------------------------------------------- */

static int count_code(const osh_model *m, const char *code)
{
	int n = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		n += !strcmp(osh_model_diag_at(m, i)->code, code);
	return n;
}

static int count_errors(const osh_model *m)
{
	int n = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		n += osh_model_diag_at(m, i)->severity == OSH_ERROR;
	return n;
}

/* The first diagnostic of code `code`; fails the test when there is none. */
static const osh_diag *first(const osh_model *m, const char *code)
{
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		if (!strcmp(osh_model_diag_at(m, i)->code, code))
			return osh_model_diag_at(m, i);
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		cr_log_error("diag %zu: [%s] %s", i, osh_model_diag_at(m, i)->code, osh_model_diag_at(m, i)->message);
	cr_assert_fail("no %s diagnostic", code);
	return NULL;
}

/* Exactly one diagnostic of `code`, of severity sev, saying `message`; and no error
 * beside it unless it is one. */
static void expect_only(const osh_model *m, const char *code, osh_severity sev, const char *message)
{
	const osh_diag *d = first(m, code);
	cr_expect_eq(count_code(m, code), 1, "%s: %d of them", code, count_code(m, code));
	cr_expect_eq(d->severity, sev, "%s", code);
	cr_expect_str_eq(d->message, message);
	cr_expect_eq(count_errors(m), sev == OSH_ERROR, "%d errors", count_errors(m));
	cr_expect_not(osh_model_is_malformed(m));
}

static int64_t node_opset(const osh_model *m, int32_t ni) { return m->main->nodes[ni].opset; }

/* ---- opset_import ------------------------------------------------------------------ */

/* IR.md: every model imports the default domain implicitly; ONNX Runtime resolves its
 * nodes at its newest opset. The spec still wants the import written out. */
Test(opsets, default_domain_left_out_resolves_at_the_newest)
{
	tb *b = tb_new(8);
	tb_opset(b, "com.microsoft", 1);
	tb_input(b, "X", DT_FLOAT, "2,3");
	tb_node(b, "Relu", "X", "T");
	tb_node(b, "Neg", "T", "Y");
	tb_output(b, "Y", DT_FLOAT, "2,3");
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "operator domain 'ai.onnx' is not in the model's opset_import: resolved at its newest version, 28 "
		    "(ONNX Runtime takes its own newest)");
	cr_expect_eq(first(m, "not-in-spec")->node_index, 0, "reported once, at the first node");
	cr_expect_eq(node_opset(m, 0), 28);
	cr_expect_eq(node_opset(m, 1), 28);
	osh_model_free(m);
}

/* ONNX Runtime fills in its own domains too (com.microsoft at 1). */
Test(opsets, runtime_domain_left_out_resolves_at_its_newest)
{
	tb *b = relu_model(8);
	tb_opset(b, "", 13);
	b->graph.node[0]->op_type = "Gelu";
	b->graph.node[0]->domain = "com.microsoft";
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "operator domain 'com.microsoft' is not in the model's opset_import: resolved at its newest "
		    "version, 1 (ONNX Runtime takes its own newest)");
	cr_expect_eq(node_opset(m, 0), 1);
	osh_model_free(m);
}

/* A custom domain nobody imports: ONNX Runtime has "No opset import for domain". */
Test(opsets, custom_domain_left_out_is_an_error)
{
	tb *b = relu_model(8);
	tb_opset(b, "", 13);
	b->graph.node[0]->op_type = "Frob";
	b->graph.node[0]->domain = "com.example";
	osh_model *m = tb_load(b);
	const osh_diag *d = first(m, "opset-error");
	cr_expect_eq(d->severity, OSH_ERROR);
	cr_expect_str_eq(d->message, "operator domain 'com.example' is not in the model's opset_import");
	cr_expect_eq(d->node_index, 0);
	cr_expect_not(osh_model_is_malformed(m), "the rest is still checked");
	osh_model_free(m);
}

Test(opsets, default_domain_twice_at_one_version_is_a_warning)
{
	tb *b = relu_model(8);
	tb_opset(b, "", 13);
	tb_opset(b, "ai.onnx", 13);
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING, "opset_import lists domain 'ai.onnx' twice (versions 13 and 13)");
	cr_expect_eq(node_opset(m, 0), 13);
	osh_model_free(m);
}

/* ONNX Runtime keeps the last entry: ReduceSum's axes attribute, gone in opset 13,
 * loads after [13, 11] and not after [11, 13]. */
Test(opsets, default_domain_twice_resolves_at_the_last)
{
	static const int64_t order[2][2] = {{13, 11}, {11, 13}};
	for (int k = 0; k < 2; k++) {
		tb *b = relu_model(8);
		tb_opset(b, "", order[k][0]);
		tb_opset(b, "", order[k][1]);
		osh_model *m = tb_load(b);
		const osh_diag *d = first(m, "not-in-spec");
		cr_expect_eq(d->severity, OSH_WARNING);
		cr_expect(strstr(d->message, "resolved at") != NULL, "%s", d->message);
		cr_expect_eq(node_opset(m, 0), order[k][1]);
		cr_expect_eq(count_errors(m), 0);
		osh_model_free(m);
	}
}

Test(opsets, newer_than_any_release_is_an_error)
{
	static const struct {
		const char *domain;
		int64_t version;
		const char *message; /* NULL: accepted */
	} cases[] = {
		{"", 99, "opset_import asks for ai.onnx version 99, newer than any released (the newest is 28)"},
		{"", 28, NULL},
		{"ai.onnx.ml", 6, "opset_import asks for ai.onnx.ml version 6, newer than any released (the newest is 5)"},
		{"ai.onnx.ml", 5, NULL},
		{"com.microsoft", 99, "opset_import asks for com.microsoft version 99, newer than any released (the newest is 1)"},
		{"com.microsoft", 1, NULL},
		{"com.example", 99, NULL}, /* a custom domain: any version */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb *b = relu_model(10);
		if (cases[i].domain[0])
			tb_opset(b, "", 13);
		tb_opset(b, cases[i].domain, cases[i].version);
		osh_model *m = tb_load(b);
		if (cases[i].message)
			expect_only(m, "opset-error", OSH_ERROR, cases[i].message);
		else
			cr_expect_eq(osh_model_diag_count(m), 0, "%s %lld", cases[i].domain, (long long)cases[i].version);
		osh_model_free(m);
	}
}

/* IR 14 is the newest ONNX 1.23.1's own test models use. */
Test(opsets, ir_version_newer_than_any_release_is_an_error)
{
	tb *b = relu_model(15);
	tb_opset(b, "", 13);
	osh_model *m = tb_load(b);
	expect_only(m, "opset-error", OSH_ERROR, "ir_version 15 is newer than any released (the newest is 14)");
	osh_model_free(m);
	b = relu_model(14);
	tb_opset(b, "", 13);
	m = tb_load(b);
	cr_expect_eq(osh_model_diag_count(m), 0);
	osh_model_free(m);
}

/* ---- the graph --------------------------------------------------------------------- */

/* ONNX Runtime sorts the nodes itself; so does the index, and inference goes on. */
Test(graph, nodes_out_of_order_are_a_warning)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2,3");
	Onnx__NodeProto *neg = tb_node(b, "Neg", "T", "Y");
	tb_node(b, "Relu", "X", "T");
	neg->name = "second";
	tb_output(b, "Y", DT_FLOAT, NULL);
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "nodes are not in topological order: this node uses 'T', which node 1 '' (Relu) produces later");
	cr_expect_str_eq(first(m, "not-in-spec")->node_name, "second");
	osh_type t;
	cr_assert(osh_value_type(m, "Y", &t));
	cr_expect_eq(t.rank, 2, "inferred in the sorted order");
	osh_model_free(m);
}

Test(graph, input_without_a_type_is_an_error)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", NO_TYPE, NULL);
	tb_node(b, "Relu", "X", "Y");
	tb_output(b, "Y", DT_FLOAT, NULL);
	osh_model *m = tb_load(b);
	expect_only(m, "graph-error", OSH_ERROR, "graph input 'X' has no type (and no initializer to give it one)");
	cr_expect_str_eq(first(m, "graph-error")->value, "X");
	osh_model_free(m);
}

/* An initializer gives its input a type: ONNX Runtime loads that. */
Test(graph, input_without_a_type_but_an_initializer_is_fine)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2");
	tb_input(b, "W", NO_TYPE, NULL);
	tb_init(b, "W", DT_FLOAT, "2");
	tb_node(b, "Add", "X,W", "Y");
	tb_output(b, "Y", DT_FLOAT, "2");
	osh_model *m = tb_load(b);
	cr_expect_eq(osh_model_diag_count(m), 0);
	osh_model_free(m);
}

/* ONNX Runtime: "Invalid tensor data type 0", for inputs and outputs alike. */
Test(graph, element_type_0_is_an_error)
{
	for (int out = 0; out < 2; out++) {
		tb *b = tb_new(8);
		tb_opset(b, "", 13);
		tb_input(b, "X", out ? DT_FLOAT : 0, "2,3");
		tb_node(b, "Relu", "X", "Y");
		tb_output(b, "Y", out ? 0 : DT_FLOAT, "2,3");
		osh_model *m = tb_load(b);
		const osh_diag *d = first(m, "graph-error");
		cr_expect_eq(d->severity, OSH_ERROR);
		char want[128];
		snprintf(want, sizeof want,
			 "'%s' is declared a tensor of element type 0 (UNDEFINED): ONNX Runtime refuses it", out ? "Y" : "X");
		cr_expect_str_eq(d->message, want);
		cr_expect_eq(count_code(m, "graph-error"), 1);
		osh_model_free(m);
	}
}

Test(graph, two_nodes_of_one_name_are_an_error)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2,3");
	tb_node(b, "Relu", "X", "T")->name = "n";
	tb_node(b, "Neg", "T", "U")->name = "n";
	tb_node(b, "Abs", "U", "V");
	tb_node(b, "Abs", "V", "Y"); /* unnamed nodes never clash */
	tb_output(b, "Y", DT_FLOAT, "2,3");
	osh_model *m = tb_load(b);
	expect_only(m, "graph-error", OSH_ERROR,
		    "node name 'n' is taken by node 0 (Relu): ONNX Runtime refuses two nodes of one name");
	cr_expect_eq(first(m, "graph-error")->node_index, 1);
	osh_model_free(m);
}

/* ONNX Runtime: "Data in initializer 'W' has element type tensor(int64) but usage of
 * initializer in graph expects tensor(float)". */
Test(graph, initializer_of_another_type_than_its_input_is_an_error)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2");
	tb_input(b, "W", DT_FLOAT, "2");
	tb_init(b, "W", DT_INT64, "2");
	tb_node(b, "Add", "X,W", "Y");
	tb_output(b, "Y", DT_FLOAT, NULL);
	osh_model *m = tb_load(b);
	const osh_diag *d = first(m, "type-error");
	cr_expect_eq(d->severity, OSH_ERROR);
	cr_expect_str_eq(d->message, "initializer 'W' is INT64 but graph input 'W' is declared FLOAT");
	cr_expect_str_eq(d->value, "W");
	osh_model_free(m);
}

/* ONNX Runtime: "Shape of initializer W does not match. {1,2} != {2}"; a symbol takes
 * any size. */
Test(graph, initializer_of_another_shape_than_its_input_is_an_error)
{
	static const struct {
		const char *declared, *message;
	} cases[] = {
		{"1,2", "initializer 'W' has shape (2,) but graph input 'W' is declared (1, 2)"},
		{"3", "initializer 'W' has shape (2,) but graph input 'W' is declared (3,)"},
		{"N", NULL},
		{"2", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb *b = tb_new(8);
		tb_opset(b, "", 13);
		tb_input(b, "X", DT_FLOAT, "2");
		tb_input(b, "W", DT_FLOAT, cases[i].declared);
		tb_init(b, "W", DT_FLOAT, "2");
		tb_node(b, "Add", "X,W", "Y");
		tb_output(b, "Y", DT_FLOAT, NULL);
		osh_model *m = tb_load(b);
		if (cases[i].message)
			cr_expect_str_eq(first(m, "graph-error")->message, cases[i].message);
		else
			cr_expect_eq(count_errors(m), 0, "declared (%s)", cases[i].declared);
		osh_model_free(m);
	}
}

/* ---- model-local functions ------------------------------------------------------- */

#define LOCAL "local.fn"

/* X → local.fn.Foo(x) = Relu(x) → Y; the function imports ai.onnx 13 and the model
 * ai.onnx 13 and local.fn 1 unless the case changes that. */
static tb *fn_model(Onnx__FunctionProto **foo)
{
	tb *b = relu_model(8);
	tb_opset(b, "", 13);
	b->graph.node[0]->op_type = "Foo";
	b->graph.node[0]->domain = LOCAL;
	Onnx__FunctionProto *f = tb_function(b, LOCAL, "Foo", "x", "y");
	fn_opset(b, f, "", 13);
	fn_node(b, f, "Relu", "x", "y");
	*foo = f;
	return b;
}

Test(functions, a_well_formed_call_is_clean)
{
	Onnx__FunctionProto *f;
	tb *b = fn_model(&f);
	tb_opset(b, LOCAL, 1);
	osh_model *m = tb_load(b);
	cr_expect_eq(osh_model_diag_count(m), 0);
	osh_type t;
	cr_assert(osh_value_type(m, "Y", &t));
	cr_expect_eq(t.rank, 2);
	osh_model_free(m);
}

/* ONNX Runtime: "No opset registered for domain in function opset imports", though
 * the model imports it. */
Test(functions, body_domain_not_in_the_function_imports_is_an_error)
{
	Onnx__FunctionProto *f;
	tb *b = fn_model(&f);
	tb_opset(b, LOCAL, 1);
	f->opset_import[0]->domain = "com.example";
	fn_node(b, f, "Neg", "y", "z"); /* the same domain again: reported once */
	osh_model *m = tb_load(b);
	expect_only(m, "function-error", OSH_ERROR,
		    "domain 'ai.onnx' is not in the function's own opset_import: ONNX Runtime refuses the function");
	cr_expect_str_eq(first(m, "function-error")->graph, "function local.fn.Foo");
	osh_model_free(m);
}

/* ONNX Runtime: "Number of actual parameters cannot exceed number of formal
 * parameters"; fewer are optional ones left out. */
Test(functions, a_call_with_more_inputs_or_outputs_is_an_error)
{
	for (int k = 0; k < 3; k++) {
		Onnx__FunctionProto *f;
		tb *b = fn_model(&f);
		tb_opset(b, LOCAL, 1);
		Onnx__NodeProto *call = b->graph.node[0];
		if (k == 0) {
			tb_input(b, "X2", DT_FLOAT, "2,3");
			call->n_input = split(b, "X,X2", &call->input);
		} else if (k == 1) {
			call->n_output = split(b, "Y,Z", &call->output);
			tb_output(b, "Z", DT_FLOAT, NULL);
		} else {
			f->n_input = split(b, "x,unused", &f->input);
		}
		osh_model *m = tb_load(b);
		if (k == 2) {
			cr_expect_eq(count_errors(m), 0);
		} else {
			const osh_diag *d = first(m, "function-error");
			cr_expect_str_eq(d->message, k == 0 ? "calls function 'Foo' with 2 inputs: it declares 1"
							  : "calls function 'Foo' with 2 outputs: it declares 1");
			cr_expect_eq(d->node_index, 0);
		}
		osh_model_free(m);
	}
}

/* ONNX Runtime: "No opset import for domain 'local.fn'". */
Test(functions, a_call_to_a_domain_not_imported_is_an_error)
{
	Onnx__FunctionProto *f;
	tb *b = fn_model(&f);
	osh_model *m = tb_load(b);
	expect_only(m, "function-error", OSH_ERROR,
		    "calls function 'Foo' of domain 'local.fn', which the model's opset_import does not list");
	osh_model_free(m);
}

/* ONNX Runtime: "local.fn:Bar(-1) is not a registered function/op". */
Test(functions, a_name_no_function_of_its_domain_has_is_an_error)
{
	Onnx__FunctionProto *f;
	tb *b = fn_model(&f);
	tb_opset(b, LOCAL, 1);
	b->graph.node[0]->op_type = "Bar";
	osh_model *m = tb_load(b);
	const osh_diag *d = first(m, "function-error");
	cr_expect_str_eq(d->message, "no function 'Bar' in domain 'local.fn': the model's functions there do not include it");
	cr_expect_eq(count_code(m, "function-error"), 1);
	cr_expect_eq(count_errors(m), 1);
	osh_model_free(m);
}

/* ONNX Runtime refuses an attribute whose type the file leaves out; the value is still
 * read from the field that is set. */
Test(graph, attribute_without_a_type_is_an_error)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2,3");
	Onnx__NodeProto *n = tb_node(b, "Concat", "X,X", "Y");
	Onnx__AttributeProto *a = NEW(b, Onnx__AttributeProto);
	onnx__attribute_proto__init(a);
	a->name = dup(b, "axis");
	a->has_i = true;
	a->i = 0; /* no type */
	PUSH(b, n->attribute, n->n_attribute, a);
	tb_output(b, "Y", DT_FLOAT, "4,3");
	osh_model *m = tb_load(b);
	expect_only(m, "attribute-error", OSH_ERROR, "attribute 'axis' has no type (AttributeProto.type)");
	osh_model_free(m);
}

/* A model-local function in the default domain: ONNX Runtime looks its name up among
 * ONNX's operators and refuses the call ("MyFn is not a registered function/op"). */
Test(functions, a_function_in_the_default_domain_is_an_error)
{
	Onnx__FunctionProto *f;
	tb *b = fn_model(&f);
	b->graph.node[0]->domain = "";
	f->domain = "";
	osh_model *m = tb_load(b);
	expect_only(m, "op-not-in-opset", OSH_ERROR,
		    "Foo is a model-local function of ai.onnx, a domain of ONNX's own operators: ONNX Runtime looks "
		    "it up there and refuses the call (give the function a domain of its own)");
	osh_model_free(m);
}

/* ---- what ONNX Runtime runs although the spec forbids it --------------------------- */

/* A raw-data INT64 tensor of dims (n,) holding vals, in the arena. */
static Onnx__TensorProto *raw_ints(tb *b, const char *name, const int64_t *vals, size_t n)
{
	Onnx__TensorProto *t = NEW(b, Onnx__TensorProto);
	onnx__tensor_proto__init(t);
	t->name = dup(b, name);
	t->has_data_type = 1;
	t->data_type = DT_INT64;
	t->dims = must(arena_array(b->a, 1, sizeof *t->dims));
	t->dims[0] = (int64_t)n;
	t->n_dims = 1;
	uint8_t *raw = must(arena_array(b->a, n ? n : 1, 8));
	memcpy(raw, vals, n * 8); /* little-endian hosts only, as everything here */
	t->has_raw_data = 1;
	t->raw_data.data = raw;
	t->raw_data.len = n * 8;
	return t;
}

/* X (2, 3) → Reshape(X, shape) → Y, the shape given by the case. */
static tb *reshape_model(void)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2,3");
	tb_node(b, "Reshape", "X,shape", "Y");
	tb_output(b, "Y", DT_FLOAT, NULL);
	return b;
}

static void expect_shape(osh_model *m, const char *name, int32_t rank, const int64_t *dims)
{
	osh_type t;
	cr_assert(osh_value_type(m, name, &t), "%s has no type", name);
	cr_assert_eq(t.rank, rank, "%s: rank %d", name, t.rank);
	for (int32_t k = 0; k < rank; k++)
		cr_expect(t.dims[k].kind == OSH_DIM_VALUE && t.dims[k].value == dims[k], "%s: dim %d", name, k);
}

/* ONNX Runtime reads raw_data where a main-graph initializer has both. */
Test(tolerated, raw_and_typed_data_read_raw)
{
	tb *b = reshape_model();
	Onnx__TensorProto *t = raw_ints(b, "shape", (int64_t[]){3, 2}, 2);
	t->int64_data = must(arena_array(b->a, 2, sizeof(int64_t)));
	t->int64_data[0] = 6, t->int64_data[1] = 1;
	t->n_int64_data = 2;
	PUSH(b, b->graph.initializer, b->graph.n_initializer, t);
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "initializer 'shape' has both raw_data and typed data fields: the spec wants one; ONNX Runtime reads "
		    "raw_data");
	expect_shape(m, "Y", 2, (int64_t[]){3, 2});
	osh_model_free(m);
}

/* Two initializers of one name: ONNX Runtime keeps the last one's data. */
Test(tolerated, initializer_twice_takes_the_last)
{
	tb *b = reshape_model();
	PUSH(b, b->graph.initializer, b->graph.n_initializer, raw_ints(b, "shape", (int64_t[]){6, 1}, 2));
	PUSH(b, b->graph.initializer, b->graph.n_initializer, raw_ints(b, "shape", (int64_t[]){3, 2}, 2));
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "initializer 'shape' is defined twice: the spec wants each name once; ONNX Runtime takes the last");
	expect_shape(m, "Y", 2, (int64_t[]){3, 2});
	osh_model_free(m);
}

/* ... but types the value by the first, and refuses data of another shape. */
Test(tolerated, initializer_twice_of_another_shape_is_an_error)
{
	tb *b = reshape_model();
	PUSH(b, b->graph.initializer, b->graph.n_initializer, raw_ints(b, "shape", (int64_t[]){6}, 1));
	PUSH(b, b->graph.initializer, b->graph.n_initializer, raw_ints(b, "shape", (int64_t[]){3, 2}, 2));
	osh_model *m = tb_load(b);
	cr_expect_str_eq(first(m, "graph-error")->message,
			 "initializer 'shape' is defined again with shape (2,), the first one has (1,): ONNX Runtime "
			 "shapes the value by the first and refuses the data of the last");
	osh_model_free(m);
}

/* An unnamed initializer: ONNX Runtime loads it, unless a node omits an input. */
Test(tolerated, unnamed_initializer)
{
	for (int omitted = 0; omitted < 2; omitted++) {
		tb *b = relu_model(8);
		tb_opset(b, "", 13);
		tb_init(b, "", DT_FLOAT, "1");
		if (omitted) {
			b->graph.node[0]->op_type = "Clip";
			b->graph.node[0]->n_input = split(b, "X,,hi", &b->graph.node[0]->input);
			tb_init(b, "hi", DT_FLOAT, "");
		}
		osh_model *m = tb_load(b);
		cr_expect_eq(count_code(m, "not-in-spec"), 1);
		cr_expect_eq(count_errors(m), omitted);
		if (omitted)
			cr_expect_str_eq(first(m, "graph-error")->message,
					 "input 1 is omitted (''), and the graph has an initializer without a name: ONNX "
					 "Runtime reads it there and fails to run the model");
		cr_expect_not(osh_model_is_malformed(m));
		osh_model_free(m);
	}
}

/* A declared -1: exporters mean "any size", and ONNX Runtime reads it so. */
Test(tolerated, negative_declared_dim_is_unknown)
{
	tb *b = relu_model(8);
	tb_opset(b, "", 13);
	b->graph.input[0]->type->tensor_type->shape->dim[0]->dim_value = -1;
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "'X' is declared with dimension -1 at axis 0: the spec wants a size of 0 or more (dim_param or no "
		    "value for an unknown one); ONNX Runtime reads it as unknown");
	osh_type t;
	cr_assert(osh_value_type(m, "X", &t));
	cr_expect_eq(t.rank, 2);
	cr_expect_neq(t.dims[0].kind, OSH_DIM_VALUE);
	osh_model_free(m);
}

static Onnx__AttributeProto *int_attr(tb *b, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = NEW(b, Onnx__AttributeProto);
	onnx__attribute_proto__init(a);
	a->name = dup(b, name);
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
	return a;
}

/* A ref_attr_name outside a function body: ONNX Runtime reads the attribute's own
 * value (axis 1 here: (2, 6)). */
Test(tolerated, ref_attr_outside_a_function_reads_the_value)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2,3");
	Onnx__NodeProto *n = tb_node(b, "Concat", "X,X", "Y");
	Onnx__AttributeProto *a = int_attr(b, "axis", 1);
	a->ref_attr_name = dup(b, "axis");
	PUSH(b, n->attribute, n->n_attribute, a);
	tb_output(b, "Y", DT_FLOAT, NULL);
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "attribute 'axis' refers to 'axis' (ref_attr_name) outside a function body: ONNX Runtime reads it "
		    "as its own value");
	expect_shape(m, "Y", 2, (int64_t[]){2, 6});
	osh_model_free(m);
}

/* A function defined twice: ONNX Runtime takes the last definition. */
Test(tolerated, function_twice_takes_the_last)
{
	Onnx__FunctionProto *f;
	tb *b = fn_model(&f);
	tb_opset(b, LOCAL, 1);
	Onnx__FunctionProto *g = tb_function(b, LOCAL, "Foo", "x", "y");
	fn_opset(b, g, "", 13);
	fn_node(b, g, "Transpose", "x", "y");
	b->graph.output[0]->type->tensor_type->shape = NULL;
	osh_model *m = tb_load(b);
	expect_only(m, "not-in-spec", OSH_WARNING,
		    "function 'Foo' of domain 'local.fn' is defined again later: the spec wants each function once; ONNX "
		    "Runtime takes the last definition");
	expect_shape(m, "Y", 2, (int64_t[]){3, 2});
	osh_model_free(m);
}

/* ONNX Runtime inlines a body into the calling graph: a name the body does not define
 * is the caller's value, and an error only where the caller has none. */
Test(functions, a_body_reads_the_callers_values)
{
	for (int defined = 0; defined < 2; defined++) {
		Onnx__FunctionProto *f;
		tb *b = fn_model(&f);
		tb_opset(b, LOCAL, 1);
		f->node[0]->op_type = "Add";
		f->node[0]->n_input = split(b, "x,T", &f->node[0]->input);
		if (defined)
			tb_input(b, "T", DT_FLOAT, "2,3");
		osh_model *m = tb_load(b);
		cr_expect_not(osh_model_is_malformed(m));
		if (defined)
			cr_expect_eq(count_errors(m), 0);
		else
			expect_only(m, "function-error", OSH_ERROR,
				    "function 'Foo' reads 'T', which neither its body nor this graph defines: ONNX Runtime "
				    "inlines the body here and refuses it");
		osh_model_free(m);
	}
}

/* ---- subgraphs: ONNX's checker, which ONNX Runtime runs on each ------------------------ */

/* A subgraph with outputs outs (untyped) and the nodes the case adds. */
static Onnx__GraphProto *sub_graph(tb *b, const char *outs)
{
	Onnx__GraphProto *g = NEW(b, Onnx__GraphProto);
	onnx__graph_proto__init(g);
	g->name = dup(b, "branch");
	char **f;
	size_t n = split(b, outs, &f);
	for (size_t i = 0; i < n; i++)
		PUSH(b, g->output, g->n_output, declare(b, f[i], NO_TYPE, NULL));
	return g;
}

static Onnx__NodeProto *sub_node(tb *b, Onnx__GraphProto *g, const char *op, const char *ins, const char *outs)
{
	Onnx__NodeProto *n = new_node(b, op, ins, outs);
	PUSH(b, g->node, g->n_node, n);
	return n;
}

static void graph_attr(tb *b, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g)
{
	Onnx__AttributeProto *a = NEW(b, Onnx__AttributeProto);
	onnx__attribute_proto__init(a);
	a->name = dup(b, name);
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
	a->g = g;
	PUSH(b, n->attribute, n->n_attribute, a);
}

/* cond, X (2, 3) → [T = Relu(X)] → If(cond) → Y, the then branch given by the case,
 * the else branch Neg(X). */
static tb *if_model(Onnx__GraphProto **then_g, bool relu_before)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "cond", DT_BOOL, "");
	tb_input(b, "X", DT_FLOAT, "2,3");
	if (relu_before)
		tb_node(b, "Relu", "X", "T");
	Onnx__NodeProto *n = tb_node(b, "If", "cond", "Y");
	*then_g = sub_graph(b, "o");
	Onnx__GraphProto *else_g = sub_graph(b, "o");
	sub_node(b, else_g, "Neg", "X", "o");
	graph_attr(b, n, "then_branch", *then_g);
	graph_attr(b, n, "else_branch", else_g);
	tb_output(b, "Y", DT_FLOAT, NULL);
	return b;
}

Test(subgraphs, a_node_output_named_as_an_outer_value_is_an_error)
{
	Onnx__GraphProto *then_g;
	tb *b = if_model(&then_g, true);
	sub_node(b, then_g, "Relu", "X", "T");
	sub_node(b, then_g, "Neg", "T", "o");
	osh_model *m = tb_load(b);
	expect_only(m, "subgraph-error", OSH_ERROR,
		    "'T' is defined in an enclosing graph already: ONNX Runtime wants each name defined once across "
		    "nested graphs (SSA) and refuses the model");
	cr_expect_str_eq(first(m, "subgraph-error")->graph, "node1/then_branch");
	osh_model_free(m);
}

Test(subgraphs, an_outer_value_returned_as_it_is_is_an_error)
{
	Onnx__GraphProto *then_g;
	tb *b = if_model(&then_g, false);
	then_g->output[0]->name = "X";
	osh_model *m = tb_load(b);
	expect_only(m, "subgraph-error", OSH_ERROR,
		    "output 'X' is a value of an enclosing graph returned as it is: ONNX Runtime refuses it (an Identity "
		    "in the body gives it a value of its own)");
	osh_model_free(m);
}

/* ONNX Runtime sorts the main graph (a warning there), and refuses a subgraph out
 * of order. */
Test(subgraphs, nodes_out_of_order_are_an_error)
{
	Onnx__GraphProto *then_g;
	tb *b = if_model(&then_g, false);
	sub_node(b, then_g, "Neg", "t", "o");
	sub_node(b, then_g, "Relu", "X", "t");
	osh_model *m = tb_load(b);
	const osh_diag *d = first(m, "subgraph-error");
	cr_expect(strstr(d->message, "nodes are not in topological order") &&
			  strstr(d->message, "refuses a subgraph out of order"),
		  "%s", d->message);
	cr_expect_eq(count_code(m, "not-in-spec"), 0);
	osh_model_free(m);
}

/* ONNX's checker: "type field and data field mismatch", but not for a Constant of
 * the main graph, which ONNX Runtime makes an initializer before it checks a node. */
Test(graph, attribute_type_and_field_disagree)
{
	for (int constant = 0; constant < 2; constant++) {
		tb *b = tb_new(8);
		tb_opset(b, "", 13);
		tb_input(b, "X", DT_FLOAT, "2,3");
		Onnx__NodeProto *n = constant ? tb_node(b, "Constant", "", "Y") : tb_node(b, "Concat", "X,X", "Y");
		Onnx__AttributeProto *a = int_attr(b, constant ? "value_int" : "axis", 0);
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT; /* the value is in i */
		PUSH(b, n->attribute, n->n_attribute, a);
		tb_output(b, "Y", DT_FLOAT, NULL);
		osh_model *m = tb_load(b);
		if (constant) {
			cr_expect_eq(count_errors(m), 0);
		} else {
			cr_expect_str_eq(first(m, "attribute-error")->message,
					 "attribute 'axis' is typed float but holds its value in a field of another type, or "
					 "in several: ONNX Runtime refuses it");
		}
		osh_model_free(m);
	}
}

/* ONNX Runtime: "At least one output should be requested." */
Test(graph, a_graph_without_outputs_is_an_error)
{
	tb *b = tb_new(8);
	tb_opset(b, "", 13);
	tb_input(b, "X", DT_FLOAT, "2,3");
	tb_node(b, "Relu", "X", "Y");
	osh_model *m = tb_load(b);
	expect_only(m, "graph-error", OSH_ERROR, "the graph has no outputs: ONNX Runtime has nothing to run");
	osh_model_free(m);
}
