/* test_loop_nest.c: the cost of inferring nested Loops whose carried value grows.
 *
 * A Loop infers its body a second time when a loop-carried value comes out of the
 * first run with another shape, so a nest of n such Loops was 2^n runs of the
 * innermost body (depth 24: 12 s and 528 MB). The pass bounds what bodies may cost
 * (infer_subgraph_may_repeat): past it, a body is inferred once, for carried values
 * of any shape. The promises: a nest of 24 is inferred in well under a second; a
 * shallow nest is as precise as before (each carried value keeps its rank, its size
 * unknown); and what the bound gives is unknown, never a size only the first
 * iteration has: no value of the nest, at any depth, is given the input's (2).
 */
#include "mb.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Level d of the nest: carried x doubles (Concat of x with itself), then, above the
 * innermost level, a Loop of the same trip count and condition carries it on. */
static mb *level(int d, int depth)
{
	char x[16], g[16], c[16], co[16], y[16], ins[64];
	snprintf(x, sizeof x, "x%d", d), snprintf(g, sizeof g, "g%d", d), snprintf(c, sizeof c, "c%d", d);
	snprintf(co, sizeof co, "co%d", d), snprintf(y, sizeof y, "y%d", d);
	mb *b = mb_new(17);
	char i[16];
	snprintf(i, sizeof i, "i%d", d);
	mb_input(b, i, DT_INT64, "");
	mb_input(b, c, DT_BOOL, "");
	mb_input(b, x, DT_FLOAT, NULL);
	snprintf(ins, sizeof ins, "%s,%s", x, x);
	mb_node(b, "Concat", ins, g);
	mb_attr_i(b, "axis", 0);
	mb_node(b, "Identity", c, co);
	if (d < depth) {
		snprintf(ins, sizeof ins, "M,%s,%s", c, g);
		mb_node(b, "Loop", ins, y);
		mb_attr_graph(b, "body", level(d + 1, depth));
	} else {
		mb_node(b, "Identity", g, y);
	}
	mb_output(b, co, DT_BOOL, "");
	mb_output(b, y, DT_FLOAT, NULL);
	return b;
}

static osh_model *nest(int depth, double *seconds)
{
	mb *b = mb_new(17);
	mb_input(b, "M", DT_INT64, "");
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "v", DT_FLOAT, "2");
	mb_node(b, "Loop", "M,cond,v", "vf");
	mb_attr_graph(b, "body", level(1, depth));
	mb_output(b, "vf", 0, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	osh_model *m = mb_infer(b);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_not_null(m);
	return m;
}

/* Every value of every graph: none is the FLOAT (2) only the first iteration holds
 * but v itself; the number of graphs (the nest's depth + 1). */
static size_t expect_no_first_iteration_size(osh_model *m)
{
	size_t graphs = osh_model_graph_count(m);
	for (size_t g = 0; g < graphs; g++) {
		for (size_t k = 0; k < osh_graph_value_count(m, g); k++) {
			osh_value_info v;
			cr_assert(osh_graph_value_at(m, g, k, &v));
			if (!strcmp(v.type.kind, "tensor") && v.type.elem_type == 1 && strcmp(v.name, "v")) {
				bool two = v.type.rank == 1 && v.type.dims[0].kind == OSH_DIM_VALUE && v.type.dims[0].value == 2;
				cr_expect(!two, "%s/%s is FLOAT (2): the size of the first iteration only",
					  osh_graph_path(m, g), v.name);
			}
		}
	}
	return graphs;
}

Test(loop_nest, depth_24_in_well_under_a_second, .timeout = 30)
{
	double s;
	osh_model *m = nest(24, &s);
	cr_expect_lt(s, 0.5, "a nest of 24 Loops took %.3f s to infer", s);
	cr_expect_eq(osh_model_diag_count(m), 0);
	const char *vf = mb_type(m, "vf");
	cr_expect(!strcmp(vf, "FLOAT (rank unknown)") || !strcmp(vf, "FLOAT (?)"), "vf is %s", vf);
	cr_expect_eq(expect_no_first_iteration_size(m), 25);
	osh_model_free(m);
}

Test(loop_nest, a_shallow_nest_keeps_its_ranks)
{
	double s;
	osh_model *m = nest(4, &s);
	cr_expect_str_eq(mb_type(m, "vf"), "FLOAT (?)");
	size_t graphs = expect_no_first_iteration_size(m);
	cr_expect_eq(graphs, 5);
	/* Below the bound every carried value keeps rank 1. */
	for (size_t g = 1; g < graphs; g++) {
		for (size_t k = 0; k < osh_graph_value_count(m, g); k++) {
			osh_value_info v;
			cr_assert(osh_graph_value_at(m, g, k, &v));
			if (v.name[0] == 'x' || v.name[0] == 'g' || v.name[0] == 'y')
				cr_expect_eq(v.type.rank, 1, "%s/%s has rank %d", osh_graph_path(m, g), v.name,
					     (int)v.type.rank);
		}
	}
	osh_model_free(m);
}
