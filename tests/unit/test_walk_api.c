/* test_walk_api.c: the public walk of a model (osh_model_graph_count,
 * osh_graph_value_at, osh_graph_node_at): graphs with their paths, values with their
 * origin and type (declared before inference, inferred after, as osh_value_type has
 * it), nodes with their names and subgraphs. Public header only.
 */
#include "onnxshape.h"

#include <criterion/criterion.h>
#include <string.h>

static osh_model *load(const char *file)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, file, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_not(osh_model_is_malformed(m), "%s is malformed", file);
	return m;
}

/* The index of the value named `name` in graph g, or -1. */
static long value_index(osh_model *m, size_t g, const char *name)
{
	for (size_t i = 0; i < osh_graph_value_count(m, g); i++) {
		osh_value_info v;
		cr_assert(osh_graph_value_at(m, g, i, &v));
		if (!strcmp(v.name, name))
			return (long)i;
	}
	return -1;
}

static osh_value_info value_named(osh_model *m, size_t g, const char *name)
{
	long i = value_index(m, g, name);
	cr_assert_geq(i, 0, "no value %s in graph %zu", name, g);
	osh_value_info v;
	cr_assert(osh_graph_value_at(m, g, (size_t)i, &v));
	return v;
}

static void expect_dim_symbol(const osh_type *t, int k, const char *symbol)
{
	cr_expect_eq(t->dims[k].kind, OSH_DIM_SYMBOL, "dim %d", k);
	if (t->dims[k].kind == OSH_DIM_SYMBOL)
		cr_expect_str_eq(t->dims[k].symbol, symbol);
}

static void expect_same_type(const osh_type *a, const osh_type *b, const char *name)
{
	cr_expect_str_eq(a->kind, b->kind, "%s", name);
	cr_expect_eq(a->elem_type, b->elem_type, "%s", name);
	cr_assert_eq(a->rank, b->rank, "%s", name);
	for (int32_t k = 0; k < a->rank; k++) {
		cr_expect_eq(a->dims[k].kind, b->dims[k].kind, "%s dim %d", name, k);
		cr_expect_eq(a->dims[k].value, b->dims[k].value, "%s dim %d", name, k);
		if (a->dims[k].kind == OSH_DIM_SYMBOL)
			cr_expect_str_eq(a->dims[k].symbol, b->dims[k].symbol, "%s dim %d", name, k);
	}
}

/* Before inference a value's type is its declaration: X (batch, seq, 8), the output
 * Y as the file declares it, and nothing for an intermediate value. */
Test(walk_api, declared_types_before_inference)
{
	osh_model *m = load(OSH_MODELS_DIR "/examples/transformer_block.onnx");
	cr_assert_eq(osh_model_graph_count(m), 1);
	cr_expect_str_eq(osh_graph_path(m, 0), "");
	osh_value_info x = value_named(m, 0, "X");
	cr_expect_eq(x.origin, OSH_VALUE_INPUT);
	cr_expect_eq(x.producer, -1);
	cr_expect_str_eq(x.type.kind, "tensor");
	cr_expect_eq(x.type.elem_type, 1); /* FLOAT */
	cr_assert_eq(x.type.rank, 3);
	expect_dim_symbol(&x.type, 0, "batch");
	expect_dim_symbol(&x.type, 1, "seq");
	cr_expect_eq(x.type.dims[2].kind, OSH_DIM_VALUE);
	cr_expect_eq(x.type.dims[2].value, 8);
	osh_value_info wq = value_named(m, 0, "Wq");
	cr_expect_eq(wq.origin, OSH_VALUE_INITIALIZER);
	osh_value_info proj = value_named(m, 0, "proj");
	cr_expect_str_eq(proj.type.kind, "");
	cr_expect_eq(proj.type.rank, -1);
	osh_value_info y = value_named(m, 0, "Y");
	cr_expect(y.is_graph_output);
	cr_expect_str_eq(y.type.kind, "tensor");
	osh_model_free(m);
}

/* After inference every value's type is osh_value_type's, and the values of node
 * outputs name their producer. */
Test(walk_api, inferred_types_and_producers)
{
	osh_model *m = load(OSH_MODELS_DIR "/examples/transformer_block.onnx");
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	size_t nv = osh_graph_value_count(m, 0);
	cr_assert_geq(nv, 14); /* 1 input, 5 initializers, 8 node outputs */
	for (size_t i = 0; i < nv; i++) {
		osh_value_info v;
		osh_type t;
		cr_assert(osh_graph_value_at(m, 0, i, &v));
		cr_assert(osh_value_type(m, v.name, &t), "%s", v.name);
		expect_same_type(&v.type, &t, v.name);
		if (v.origin != OSH_VALUE_NODE)
			continue;
		osh_node_info n;
		cr_assert(osh_graph_node_at(m, 0, (size_t)v.producer, &n));
		cr_assert_lt((size_t)v.producer_output, n.n_outputs);
		cr_expect_str_eq(n.outputs[v.producer_output], v.name);
	}
	/* MatMul (batch, seq, 8) x (8, 8): (batch, seq, 8). */
	osh_value_info proj = value_named(m, 0, "proj");
	cr_assert_eq(proj.type.rank, 3);
	expect_dim_symbol(&proj.type, 0, "batch");
	expect_dim_symbol(&proj.type, 1, "seq");
	cr_expect_eq(proj.type.dims[2].value, 8);
	osh_model_free(m);
}

Test(walk_api, nodes_in_file_order)
{
	osh_model *m = load(OSH_MODELS_DIR "/examples/transformer_block.onnx");
	static const char *const ops[] = {"MatMul", "Add", "Softmax", "Shape", "Gather", "Unsqueeze", "Concat", "Reshape"};
	cr_assert_eq(osh_graph_node_count(m, 0), 8);
	for (size_t i = 0; i < 8; i++) {
		osh_node_info n;
		cr_assert(osh_graph_node_at(m, 0, i, &n));
		cr_expect_str_eq(n.op_type, ops[i]);
		cr_expect_str_eq(n.domain, "");
		cr_expect_eq(n.n_subgraphs, 0);
	}
	osh_node_info mm;
	cr_assert(osh_graph_node_at(m, 0, 0, &mm));
	cr_assert_eq(mm.n_inputs, 2);
	cr_expect_str_eq(mm.inputs[0], "X");
	cr_expect_str_eq(mm.inputs[1], "Wq");
	cr_assert_eq(mm.n_outputs, 1);
	cr_expect_str_eq(mm.outputs[0], "proj");
	osh_model_free(m);
}

/* An If's branches are graphs of their own, named by path, found from the node; a
 * branch's use of the main graph's x is an outer-scope value. */
Test(walk_api, subgraphs)
{
	osh_model *m = load(OSH_MODELS_DIR "/good/if_outer.onnx");
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_model_graph_count(m), 3);
	osh_node_info n;
	cr_assert(osh_graph_node_at(m, 0, 0, &n));
	cr_expect_str_eq(n.op_type, "If");
	cr_assert_eq(n.n_subgraphs, 2);
	const char *branches[2] = {"", ""};
	for (size_t k = 0; k < 2; k++) {
		size_t g = n.subgraphs[k];
		cr_assert(g > 0 && g < 3);
		branches[k] = osh_graph_path(m, g);
		osh_value_info x = value_named(m, g, "x");
		cr_expect_eq(x.origin, OSH_VALUE_OUTER);
		cr_expect_eq(x.type.rank, 1);
		cr_assert_eq(osh_graph_node_count(m, g), 1);
		osh_node_info b;
		cr_assert(osh_graph_node_at(m, g, 0, &b));
		cr_expect_str_eq(b.op_type, strstr(branches[k], "then") ? "Relu" : "Neg");
		cr_expect_str_eq(b.inputs[0], "x");
		osh_value_info out = value_named(m, g, b.outputs[0]);
		cr_expect(out.is_graph_output);
		cr_expect_eq(out.type.rank, 1);
		cr_expect_eq(out.type.dims[0].value, 2);
	}
	/* Attribute order in the file: else_branch, then then_branch. */
	cr_expect(strstr(branches[0], "/else_branch") && strstr(branches[1], "/then_branch"), "%s %s", branches[0],
		  branches[1]);
	osh_model_free(m);
}

Test(walk_api, function_bodies)
{
	osh_model *m = load(OSH_MODELS_DIR "/good/local_function.onnx");
	cr_assert_eq(osh_model_graph_count(m), 2);
	cr_expect_str_eq(osh_graph_path(m, 1), "function local.AddRelu");
	cr_assert_eq(osh_graph_node_count(m, 1), 2);
	osh_node_info n;
	cr_assert(osh_graph_node_at(m, 1, 1, &n));
	cr_expect_str_eq(n.op_type, "Relu");
	cr_assert(osh_graph_node_at(m, 0, 0, &n));
	cr_expect_str_eq(n.op_type, "AddRelu");
	cr_expect_str_eq(n.domain, "local");
	osh_model_free(m);
}

/* An omitted optional input is "": unet_skip's Resize has no roi. */
Test(walk_api, omitted_inputs_are_empty_names)
{
	osh_model *m = load(OSH_MODELS_DIR "/examples/unet_skip.onnx");
	osh_node_info n;
	cr_assert(osh_graph_node_at(m, 0, 2, &n));
	cr_expect_str_eq(n.op_type, "Resize");
	cr_assert_eq(n.n_inputs, 3);
	cr_expect_str_eq(n.inputs[0], "down2");
	cr_expect_str_eq(n.inputs[1], "");
	cr_expect_str_eq(n.inputs[2], "scales");
	cr_assert_eq(n.n_outputs, 1);
	cr_expect_str_eq(n.outputs[0], "up");
	osh_model_free(m);
}
