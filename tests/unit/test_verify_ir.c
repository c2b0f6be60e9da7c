/* test_verify_ir.c: the IR checker (src/passes/verify.c) and the pipeline that runs
 * it between stages (src/passes/pipeline.c).
 *
 * Each corruption test loads a fixture, breaks one invariant of core/model.h by hand
 * and expects ir_verify to name that problem; the pipeline test expects osh_infer
 * to report a broken IR as an internal error after the stage that left it. The
 * sweep runs the checker on every fixture of tests/models as loaded, inferred and
 * rewritten, with ONNXSHAPE_VERIFY_IR=1 so that every stage is checked too.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "onnxshape.h"
#include "passes/verify.h"

#include <criterion/criterion.h>
#include "test_files.h"

#define CHAIN OSH_MODELS_DIR "/examples/cnn_residual.onnx" /* conv -> bn -> relu -> add */
#define NESTED OSH_MODELS_DIR "/good/if_outer.onnx"        /* If reading x in both branches */

static osh_model *load(const char *path, bool infer)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	if (infer)
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

/* ir_verify's verdict on m, which must be a violation whose message holds want. */
static void expect_violation(osh_model *m, const char *want)
{
	char why[512];
	cr_expect_eq(ir_verify(m, why, sizeof why), OSH_ERR_INVALID, "no violation found; expected '%s'", want);
	cr_expect(strstr(why, want), "expected '%s' in: %s", want, why);
	osh_model_free(m);
}

static int32_t value_id(const graph *g, const char *name)
{
	int32_t id = strmap_get(&g->names, name);
	cr_assert(id >= 0, "no value '%s'", name);
	return id;
}

Test(verify_ir, intact_models_pass)
{
	const char *paths[] = {CHAIN, NESTED};
	for (size_t i = 0; i < 2; i++) {
		for (int infer = 0; infer < 2; infer++) {
			osh_model *m = load(paths[i], infer);
			char why[512];
			cr_expect_eq(ir_verify(m, why, sizeof why), OSH_OK, "%s: %s", paths[i], why);
			osh_model_free(m);
		}
	}
}

Test(verify_ir, consumer_that_does_not_read)
{
	osh_model *m = load(CHAIN, true);
	graph *g = m->main;
	value *bn = &g->values[value_id(g, "bn")]; /* read by relu, node 2 */
	bn->consumers[0] = 0;
	expect_violation(m, "value 8 ('bn') of graph '' lists node 0 as a consumer, but node 0 does not read it");
}

Test(verify_ir, consumer_left_out)
{
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "X")].nconsumers = 1; /* conv and the residual Add read it */
	expect_violation(m, "node 3 of graph '' reads value 0 ('X'), but the value's 1 consumers leave it out");
}

Test(verify_ir, consumer_listed_twice)
{
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	value *x = &g->values[value_id(g, "X")];
	x->consumers[1] = x->consumers[0];
	expect_violation(m, "value 0 ('X') of graph '' lists its consumers out of order: node 0 at 1, where node 3 reads it");
}

Test(verify_ir, outer_read_left_out)
{
	osh_model *m = load(NESTED, false);
	graph *g = m->main;
	g->values[value_id(g, "x")].nconsumers = 0; /* the If reads it from both branches */
	expect_violation(m, "node 0 of graph '' reads value 1 ('x'), but the value's 0 consumers leave it out");
}

Test(verify_ir, producer_disagrees)
{
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "relu")].producer = 1;
	expect_violation(m, "node 2 of graph '': output 0 is value 9 ('relu'), whose producer is node 1 output 0");
}

Test(verify_ir, producer_output_out_of_range)
{
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "relu")].producer_out = 3;
	expect_violation(m, "node 2 of graph '': output 0 is value 9 ('relu'), whose producer is node 2 output 3");
}

Test(verify_ir, order_not_a_permutation)
{
	osh_model *m = load(CHAIN, false);
	m->main->order[2] = m->main->order[1];
	expect_violation(m, "the order of graph '' is not a permutation of its 4 nodes: node 1 at 2");
}

Test(verify_ir, order_not_topological)
{
	osh_model *m = load(CHAIN, false);
	int32_t *o = m->main->order;
	int32_t t = o[1];
	o[1] = o[2], o[2] = t; /* relu before the bn it reads */
	expect_violation(m, "the order of graph '' puts node 2, which reads value 8 ('bn'), before node 1 that makes it");
}

Test(verify_ir, name_map_disagrees)
{
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "relu")].name = "bn";
	expect_violation(m, "graph '' maps the name 'bn' to value 8, not to value 9 that has it");
}

Test(verify_ir, node_input_out_of_range)
{
	osh_model *m = load(CHAIN, false);
	m->main->nodes[3].inputs[1] = m->main->nvalues;
	expect_violation(m, "node 3 of graph '': input 1 is value 11, of 11 values");
}

Test(verify_ir, graph_input_out_of_range)
{
	osh_model *m = load(CHAIN, false);
	m->main->inputs[0] = -4;
	expect_violation(m, "graph '': input 0 is value -4, of 11 values");
}

Test(verify_ir, output_not_marked)
{
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "Y")].is_output = false;
	expect_violation(m, "value 10 ('Y') of graph '' is among the graph's outputs, but marked otherwise");
}

Test(verify_ir, subgraph_parent_disagrees)
{
	osh_model *m = load(NESTED, false);
	m->main->nodes[0].subgraphs[1]->parent_node = 1;
	expect_violation(m, "node 0 of graph '': subgraph 1 does not name the node as its parent");
}

Test(verify_ir, outer_reference_disagrees)
{
	osh_model *m = load(NESTED, false);
	graph *sg = m->main->nodes[0].subgraphs[0];
	sg->values[value_id(sg, "x")].x->outer_id = 0; /* 'c', not 'x' */
	expect_violation(m, "value 1 ('x') of graph 'If_0/else_branch' refers to value 0 of graph '', which is not it");
}

Test(verify_ir, negative_size_after_inference)
{
	osh_model *m = load(CHAIN, true);
	graph *g = m->main;
	value *v = &g->values[value_id(g, "relu")];
	dim *d = arena_array(m->arena, 4, sizeof *d);
	memcpy(d, v->ti.dims, 4 * sizeof *d);
	d[2] = dim_known(-3);
	v->ti.dims = d;
	expect_violation(m, "value 9 ('relu') of graph '': dim 2 is kind 1, value -3");
}

Test(verify_ir, rank_below_unknown)
{
	osh_model *m = load(CHAIN, true);
	graph *g = m->main;
	g->values[value_id(g, "conv")].ti.rank = -2;
	expect_violation(m, "value 7 ('conv') of graph '' has rank -2");
}

/* The pipeline names the stage after which it found the IR broken, and stops. */
Test(verify_ir, pipeline_reports_the_stage)
{
	cr_assert_eq(setenv("ONNXSHAPE_VERIFY_IR", "1", 1), 0);
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "bn")].consumers[0] = 0; /* inference reads no consumer list */
	osh_error err = {0};
	cr_expect_eq(osh_infer(m, NULL, &err), OSH_ERR_INVALID);
	/* Broken before the first inference: the load's row finds it. */
	cr_expect_str_eq(err.message,
			 OSH_MODELS_DIR "/examples/cnn_residual.onnx: internal error: after stage 'load': value 8 ('bn') of "
					"graph '' lists node 0 as a consumer, but node 0 does not read it");
	osh_model_free(m);
}

/* A second inference starts at infer: a model broken after the first is named there. */
Test(verify_ir, pipeline_reports_the_stage_of_a_second_run)
{
	cr_assert_eq(setenv("ONNXSHAPE_VERIFY_IR", "1", 1), 0);
	osh_model *m = load(CHAIN, false);
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	graph *g = m->main;
	g->values[value_id(g, "bn")].consumers[0] = 0;
	cr_expect_eq(osh_infer(m, NULL, &err), OSH_ERR_INVALID);
	cr_expect_str_eq(err.message,
			 OSH_MODELS_DIR "/examples/cnn_residual.onnx: internal error: after stage 'infer': value 8 ('bn') of "
					"graph '' lists node 0 as a consumer, but node 0 does not read it");
	osh_model_free(m);
}

/* Off (in a release build, by the environment), the same model goes through. */
Test(verify_ir, pipeline_without_the_checker)
{
	cr_assert_eq(setenv("ONNXSHAPE_VERIFY_IR", "0", 1), 0);
	osh_model *m = load(CHAIN, false);
	graph *g = m->main;
	g->values[value_id(g, "bn")].consumers[0] = 0;
	osh_error err = {0};
	cr_expect_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
}

typedef struct sweep {
	size_t models, inferred, rewritten;
} sweep;

static void verify_fixture(const char *path, void *ctx)
{
	sweep *s = ctx;
	size_t len = strlen(path);
	if (len < 5 || strcmp(path + len - 5, ".onnx"))
		return;
	osh_model *m = NULL;
	osh_error err = {0};
	if (osh_model_load(&m, path, NULL, &err) != OSH_OK)
		return; /* refused by the loader: no IR */
	char why[512];
	cr_expect_eq(ir_verify(m, why, sizeof why), OSH_OK, "%s as loaded: %s", path, why);
	s->models++;
	if (!osh_model_is_malformed(m)) {
		osh_status st = osh_infer(m, NULL, &err);
		cr_expect(st == OSH_OK || !strstr(err.message, "internal error"), "%s", err.message);
		if (st == OSH_OK) {
			s->inferred++;
			cr_expect_eq(ir_verify(m, why, sizeof why), OSH_OK, "%s inferred: %s", path, why);
			osh_rewrite_report rep;
			osh_rewrite_options ro = {.version = OSH_REWRITE_OPTIONS_VERSION, .explicit_broadcast = s->rewritten % 2 == 1};
			st = osh_rewrite(m, &ro, &rep, &err);
			cr_expect(st == OSH_OK || !strstr(err.message, "internal error"), "%s", err.message);
			s->rewritten += st == OSH_OK;
			cr_expect(st != OSH_OK || ir_verify(m, why, sizeof why) == OSH_OK, "%s rewritten: %s", path, why);
		}
	}
	osh_model_free(m);
}

Test(verify_ir, every_fixture, .timeout = 120)
{
	cr_assert_eq(setenv("ONNXSHAPE_VERIFY_IR", "1", 1), 0);
	sweep s = {0};
	for_each_file(OSH_MODELS_DIR, true, verify_fixture, &s);
	cr_expect_gt(s.models, 200, "only %zu fixtures loaded", s.models);
	cr_expect_gt(s.rewritten, 100, "only %zu fixtures rewritten", s.rewritten);
}
