/* test_resolve.c: node inputs found on two threads (src/loader/resolve.c, index.c's
 * resolve_inputs). A graph of more than RESOLVE_THREAD_MIN nodes has the later part
 * of its inputs looked up by a second thread; the names its map does not hold are
 * settled afterwards, in node order, and every value's consumers are noted in node
 * order. The result must be what one pass over the nodes makes: the same value for
 * every use of a name, undefined names reported once each at their first use, in
 * node order, a use of a later node's output seen as a backward edge.
 *
 * The model is written on the wire here: a chain of 40,000 nodes (both parts of the
 * split are big), over 1 MB so that a load from a file takes the split pre-scan and
 * decodes the nodes from their bytes, while a load from memory goes through
 * protobuf-c's messages: both are checked.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "core/tuning.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "wbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODES 40000

/* The input each node adds to the chain, for the nodes that add one. */
static const struct {
	int node;
	const char *input;
} extra[] = {
	{5, "ghost2"},  {50, "w"},	      {100, "ghost"},	 {25000, "w"},
	{30000, "ghost"}, {35000, "ghost2"}, {38000, "y39000"}, /* produced later: a backward edge */
};

static const char *extra_of(int i)
{
	for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++)
		if (extra[k].node == i)
			return extra[k].input;
	return NULL;
}

static void model_bytes(wbuf *out)
{
	wbuf g = {0};
	char in[16] = "x", y[16], name[32];
	for (int i = 0; i < NODES; i++) {
		wbuf n = {0};
		const char *b = extra_of(i);
		snprintf(y, sizeof y, "y%d", i);
		snprintf(name, sizeof name, "node_number_%d", i);
		put_str(&n, 1, in);
		if (b)
			put_str(&n, 1, b);
		put_str(&n, 2, y);
		put_str(&n, 3, name);
		put_str(&n, 4, b ? "Add" : "Relu");
		put_msg(&g, 1, &n);
		strcpy(in, y);
	}
	put_str(&g, 2, "g");
	wbuf t = {0};
	put_vfield(&t, 2, 1); /* FLOAT, a scalar */
	put_str(&t, 8, "w");
	float one = 1;
	put_bytes(&t, 9, &one, sizeof one);
	put_msg(&g, 5, &t);
	const char *ends[2][2] = {{"x", NULL}, {in, NULL}};
	for (int io = 0; io < 2; io++) {
		wbuf d = {0}, sh = {0}, tt = {0}, type = {0}, vi = {0};
		put_vfield(&d, 1, 4);
		put_msg(&sh, 1, &d);
		put_vfield(&tt, 1, 1);
		put_msg(&tt, 2, &sh);
		put_msg(&type, 1, &tt);
		put_str(&vi, 1, ends[io][0]);
		put_msg(&vi, 2, &type);
		put_msg(&g, io ? 12 : 11, &vi);
	}
	*out = (wbuf){0};
	put_vfield(out, 1, 8); /* ir_version */
	put_msg(out, 7, &g);
	wbuf op = {0};
	put_str(&op, 1, "");
	put_vfield(&op, 2, 17);
	put_msg(out, 8, &op);
}

static int32_t input_of(const graph *g, int ni, int k)
{
	cr_assert_lt(k, g->nodes[ni].ninputs);
	return g->nodes[ni].inputs[k];
}

static void expect_consumers(const graph *g, int32_t id, const int *nodes, int n, const char *what)
{
	const value *v = &g->values[id];
	cr_assert_eq(v->nconsumers, n, "%s: %d consumers, want %d", what, v->nconsumers, n);
	for (int i = 0; i < n; i++)
		cr_expect_eq(v->consumers[i], nodes[i], "%s: consumer %d is node %d, want %d", what, i, v->consumers[i],
			     nodes[i]);
}

static void check_model(osh_model *m, const char *how)
{
	const graph *g = m->main;
	cr_assert_eq(g->nnodes, NODES, "%s", how);
	/* The chain: each node reads the one before, the first the graph's input. */
	for (int i = 1; i < NODES; i++)
		if (input_of(g, i, 0) != g->nodes[i - 1].outputs[0])
			cr_assert_fail("%s: node %d does not read node %d's output", how, i, i - 1);
	cr_expect_eq(g->values[input_of(g, 0, 0)].origin, VAL_INPUT, "%s", how);
	/* Every use of a name is the same value, looked up by either thread. */
	int32_t ghost = input_of(g, 100, 1), ghost2 = input_of(g, 5, 1), w = input_of(g, 50, 1);
	cr_expect_eq(input_of(g, 30000, 1), ghost, "%s: the later 'ghost' is another value", how);
	cr_expect_eq(input_of(g, 35000, 1), ghost2, "%s: the later 'ghost2' is another value", how);
	cr_expect_eq(input_of(g, 25000, 1), w, "%s: the later 'w' is another value", how);
	cr_expect_eq(g->values[ghost].origin, VAL_UNDEFINED, "%s", how);
	cr_expect_eq(g->values[ghost2].origin, VAL_UNDEFINED, "%s", how);
	cr_expect_eq(g->values[w].origin, VAL_INITIALIZER, "%s", how);
	cr_expect_eq(input_of(g, 38000, 1), g->nodes[39000].outputs[0], "%s: node 38000 reads y39000", how);
	cr_expect(g->backward, "%s: the use of a later node's output was not seen", how);
	/* Consumers in node order, from both parts. */
	expect_consumers(g, ghost, (const int[]){100, 30000}, 2, "ghost");
	expect_consumers(g, ghost2, (const int[]){5, 35000}, 2, "ghost2");
	expect_consumers(g, w, (const int[]){50, 25000}, 2, "w");
	expect_consumers(g, g->nodes[39000].outputs[0], (const int[]){38000, 39001}, 2, "y39000");
	/* Each undefined name reported once, at its first use, in node order. */
	const char *names[2] = {"ghost2", "ghost"};
	const int64_t at[2] = {5, 100};
	int found = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		if (!strstr(d->message, "is not produced by any node"))
			continue;
		cr_assert_lt(found, 2, "%s: a third undefined-input report: %s", how, d->message);
		cr_expect_str_eq(d->value, names[found], "%s", how);
		cr_expect_eq(d->node_index, at[found], "%s: '%s' reported at node %lld", how, names[found],
			     (long long)d->node_index);
		found++;
	}
	cr_expect_eq(found, 2, "%s: %d undefined-input reports, want 2", how, found);
}

Test(resolve, two_threads_same_as_one_pass)
{
	setenv(PLAIN_IO_ENV, "0", 1); /* the fast path's device, whatever the environment says */
	wbuf b;
	model_bytes(&b);
	cr_assert_gt(b.n, (size_t)1 << 20, "the model must take the split pre-scan: %zu bytes", b.n);
	char path[] = "/tmp/osh_resolve_XXXXXX";
	wbuf_to_temp(&b, path);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	unlink(path);
	cr_assert(m->src.wire_nodes.n == NODES, "from a file, the nodes are decoded from their bytes");
	check_model(m, "from a file");
	osh_model_free(m);
	cr_assert_eq(osh_model_load_buffer(&m, b.p, b.n, "mem", NULL, &err), OSH_OK, "%s", err.message);
	check_model(m, "from memory");
	osh_model_free(m);
	free(b.p);
}
