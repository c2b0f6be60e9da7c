/* test_rewrite.c: osh_rewrite and `onnxshape rewrite` beyond what the ONNX Runtime
 * proof (tests/rewrite, ctest rewrite/proof) checks case by case: --paddle-domain
 * picks the domain, a dry run changes nothing, --target-opset values the rewrite
 * refuses, a Paddle node inside a subgraph, an operand of unknown rank (an error,
 * never a guessed placement), the value_info of new values, and the CLI's exit
 * statuses, summary line and "nothing written" for those. Also: a diagnostic matched
 * to its candidate in the second of two subgraphs of one path, and a memory budget
 * that fits loading and inference fitting the rewrite of 3,000 legacy nodes, and
 * nodes of one operator each judged by its own types when the opset is lowered.
 *
 * Expected summaries follow the format ("rewrote K nodes (paddle: a, legacy:
 * b, stray: c); inserted R Reshape, U Unsqueeze; opset 6 → 7"), with the counts the
 * models call for: e.g. one Reshape per operand placed at an axis other than the
 * right-aligned one.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include "core/model.h"
#include "mb.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RW_DIR OSH_MODELS_DIR "/rewrite"

/* ---- helpers ------------------------------------------------------------------ */

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

/* The node of g named `name`, or NULL. */
static const node *find_node(const graph *g, const char *name)
{
	for (int32_t i = 0; i < g->nnodes; i++)
		if (!strcmp(g->nodes[i].name, name))
			return &g->nodes[i];
	return NULL;
}

/* The graph whose path is `path` ("" for the main graph), or NULL. */
static const graph *find_graph(const osh_model *m, const char *path)
{
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (!strcmp(m->graphs[i]->path, path))
			return m->graphs[i];
	return NULL;
}

/* X (2, 3, 4) with Y (3,) at axis 1 in `domain`, as node elementwise_<op>_<index>. */
static void paddle_node(mb *b, const char *op, const char *domain, const char *x, const char *y, const char *out)
{
	char full[64], in[128];
	snprintf(full, sizeof full, "elementwise_%s", op);
	snprintf(in, sizeof in, "%s,%s", x, y);
	mb_node(b, full, in, out);
	mb_node_domain(b, domain);
	mb_attr_i(b, "axis", 1);
}

/* An If node of b making `out` from input "cond": then-branch t (consumed), and an
 * else-branch that passes input "x" through. */
static void if_node(mb *b, const char *out, mb *t)
{
	mb_node(b, "If", "cond", out);
	mb *e = mb_new(13);
	mb_node(e, "Identity", "x", "ea");
	mb_output(e, "ea", 0, NULL);
	mb_attr_graph(b, "then_branch", t);
	mb_attr_graph(b, "else_branch", e);
}

static osh_rewrite_report rewrite(osh_model *m, const osh_rewrite_options *o, osh_status want)
{
	osh_rewrite_report rep;
	osh_error err = {0};
	osh_status s = osh_rewrite(m, o, &rep, &err);
	cr_assert_eq(s, want, "osh_rewrite: status %d, expected %d: %s", s, want, err.message);
	return rep;
}

/* ---- the library ---------------------------------------------------------------- */

Test(rewrite, paddle_domain_restricts_the_rewrite)
{
	mb *b = mb_new(13);
	mb_opset(b, "paddle", 1);
	mb_opset(b, "pd", 1);
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_input(b, "y", DT_FLOAT, "3");
	paddle_node(b, "add", "paddle", "x", "y", "s");  /* elementwise_add_0 */
	paddle_node(b, "mul", "pd", "x", "y", "p");      /* elementwise_mul_1 */
	mb_output(b, "s", 0, NULL);
	mb_output(b, "p", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	osh_rewrite_report rep = rewrite(m, &(osh_rewrite_options){.version = OSH_REWRITE_OPTIONS_VERSION, .paddle_domain = "pd"}, OSH_OK);
	cr_expect_eq(rep.n_paddle, 1);
	cr_expect_eq(rep.n_reshape, 1);
	osh_model *r = reload(m);
	const node *add = find_node(r->main, "elementwise_add_0"), *mul = find_node(r->main, "elementwise_mul_1");
	cr_assert(add && mul);
	cr_expect_str_eq(add->op_type, "elementwise_add");
	cr_expect_str_eq(add->domain, "paddle");
	cr_expect_str_eq(mul->op_type, "Mul");
	cr_expect_str_eq(mul->domain, "");
	/* The domain left without a node is no longer imported; the other one stays. */
	cr_expect_eq(model_opset(r, "pd"), -1);
	cr_expect_eq(model_opset(r, "paddle"), 1);
	osh_model_free(r);
	osh_model_free(m);
}

Test(rewrite, dry_run_changes_nothing)
{
	char dir[] = "/tmp/osh_test_rewrite.XXXXXX";
	cr_assert(mkdtemp(dir));
	char in[256], out[256];
	snprintf(in, sizeof in, "%s/in.onnx", dir);
	snprintf(out, sizeof out, "%s/out.onnx", dir);
	mb *b = mb_new(6);
	mb_input(b, "a", DT_FLOAT, "2,3,4");
	mb_input(b, "b", DT_FLOAT, "3");
	mb_node(b, "Add", "a,b", "c");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	mb_output(b, "c", 0, NULL);
	mb_save(b, in);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, in, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_rewrite_report rep = rewrite(m, &(osh_rewrite_options){.version = OSH_REWRITE_OPTIONS_VERSION, .dry_run = true}, OSH_OK);
	/* The report says what would change... */
	cr_expect(rep.changed);
	cr_expect_eq(rep.n_legacy, 1);
	cr_expect_eq(rep.n_reshape, 1);
	cr_expect_eq(rep.opset_before, 6);
	cr_expect_eq(rep.opset_after, 7);
	cr_expect_eq(rep.n_changes, 1);
	/* ...and the model is as loaded: written back byte for byte. */
	cr_assert_eq(osh_model_write(m, out, NULL, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	FILE *f1 = fopen(in, "rb"), *f2 = fopen(out, "rb");
	cr_assert(f1 && f2);
	int c1, c2;
	do {
		c1 = fgetc(f1);
		c2 = fgetc(f2);
	} while (c1 == c2 && c1 != EOF);
	cr_expect_eq(c1, c2, "the dry run changed the model");
	fclose(f1);
	fclose(f2);
	unlink(in);
	unlink(out);
	rmdir(dir);
}

Test(rewrite, target_opset_refusals)
{
	/* Each refused before anything changes: OSH_ERR_INVALID, the model untouched. */
	static const struct {
		int64_t model, target;
		const char *op, *phrase;
	} rows[] = {
		{13, 11, "add", "below the model's opset 13"},
		{13, 27, "add", "opsets 1 to 26"},
		{7, 6, "add", "too low: the rewritten operators need opset 7"},
		{7, 9, "mod", "too low: the rewritten operators need opset 10"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		mb *b = mb_new(rows[i].model);
		mb_opset(b, "paddle", 1);
		mb_input(b, "x", DT_INT32, "2,3,4");
		mb_input(b, "y", DT_INT32, "3");
		paddle_node(b, rows[i].op, "paddle", "x", "y", "z");
		mb_output(b, "z", 0, NULL);
		osh_model *m = mb_infer(b);
		cr_assert_not_null(m);
		osh_rewrite_report rep;
		osh_error err = {0};
		osh_status s = osh_rewrite(m, &(osh_rewrite_options){.version = OSH_REWRITE_OPTIONS_VERSION, .target_opset = rows[i].target}, &rep, &err);
		cr_expect_eq(s, OSH_ERR_INVALID, "row %zu: status %d", i, s);
		cr_expect(strstr(err.message, rows[i].phrase), "row %zu: '%s'", i, err.message);
		char name[64], op[64];
		snprintf(name, sizeof name, "elementwise_%s_0", rows[i].op);
		snprintf(op, sizeof op, "elementwise_%s", rows[i].op);
		const node *n = find_node(m->main, name);
		cr_assert_not_null(n);
		cr_expect_str_eq(n->op_type, op);
		cr_expect_eq(model_opset(m, ""), rows[i].model);
		osh_model_free(m);
	}
}

Test(rewrite, paddle_node_in_a_subgraph)
{
	/* then_branch reads x and y from the outer graph; its node is rewritten in place,
	 * the Reshape inserted in the branch before it. */
	mb *b = mb_new(13);
	mb_opset(b, "paddle", 1);
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_input(b, "y", DT_FLOAT, "3");
	mb *t = mb_new(13);
	paddle_node(t, "add", "paddle", "x", "y", "ta");
	mb_output(t, "ta", 0, NULL);
	if_node(b, "r", t);
	mb_output(b, "r", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect_eq(rep.n_paddle, 1);
	cr_expect_eq(rep.n_reshape, 1);
	osh_model *r = reload(m);
	const graph *g = find_graph(r, "If_0/then_branch");
	cr_assert_not_null(g);
	cr_assert_eq(g->nnodes, 2);
	cr_expect_str_eq(g->nodes[0].op_type, "Reshape");
	cr_expect_str_eq(g->nodes[1].op_type, "Add");
	cr_expect_str_eq(g->nodes[1].name, "elementwise_add_0");
	cr_expect_eq(model_opset(r, "paddle"), -1);
	cr_expect_not(osh_model_has_errors(r));
	osh_model_free(r);
	osh_model_free(m);
}

Test(rewrite, unknown_rank_is_an_error_not_a_guess)
{
	/* Where Y goes at axis 1 depends on X's rank: unknown, so nothing is rewritten. */
	mb *b = mb_new(13);
	mb_opset(b, "paddle", 1);
	mb_input(b, "x", DT_FLOAT, NULL);
	mb_input(b, "y", DT_FLOAT, "3");
	paddle_node(b, "sub", "paddle", "x", "y", "z");
	mb_output(b, "z", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect_eq(rep.n_errors, 1);
	cr_expect_not(rep.changed);
	cr_expect_eq(mb_count(m, "rewrite-unsupported"), 1);
	cr_expect(strstr(mb_message(m, "rewrite-unsupported"), "rank of 'x' is unknown"), "%s",
		  mb_message(m, "rewrite-unsupported"));
	cr_expect_str_eq(find_node(m->main, "elementwise_sub_0")->op_type, "elementwise_sub");
	osh_model_free(m);
}

Test(rewrite, new_values_get_value_info)
{
	/* A Reshape for the known operand, an Unsqueeze for the symbolic one: both new
	 * values are described, with the shapes the placement gives. */
	mb *b = mb_new(13);
	mb_opset(b, "paddle", 1);
	mb_input(b, "x", DT_FLOAT, "N,3,4");
	mb_input(b, "y", DT_FLOAT, "3");
	mb_input(b, "u", DT_FLOAT, "N,C,4");
	mb_input(b, "v", DT_FLOAT, "C");
	paddle_node(b, "add", "paddle", "x", "y", "s");
	paddle_node(b, "mul", "paddle", "u", "v", "p");
	mb_output(b, "s", 0, NULL);
	mb_output(b, "p", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect_eq(rep.n_reshape, 1);
	cr_expect_eq(rep.n_unsqueeze, 1);
	osh_model *r = reload(m);
	cr_assert_eq(osh_infer(r, NULL, NULL), OSH_OK);
	static const char *const made[][2] = {
		{"elementwise_add_0/Y_reshaped", "FLOAT (3, 1)"},
		{"elementwise_mul_1/Y_reshaped", "FLOAT (C, 1)"},
	};
	for (size_t i = 0; i < 2; i++) {
		int32_t id = strmap_get(&r->main->names, made[i][0]);
		cr_assert(id >= 0, "no value %s", made[i][0]);
		cr_expect_not_null(value_decl(&r->main->values[id]), "%s has no value_info", made[i][0]);
		cr_expect_str_eq(mb_type(r, made[i][0]), made[i][1]);
	}
	cr_expect_str_eq(mb_type(r, "s"), "FLOAT (N, 3, 4)");
	cr_expect_str_eq(mb_type(r, "p"), "FLOAT (N, C, 4)");
	osh_model_free(r);
	osh_model_free(m);
}

/* ---- the command ----------------------------------------------------------------- */

typedef struct cli {
	int status;
	char out[8192], err[8192];
} cli;

/* Runs OSH_CLI rewrite with the arguments (no shell quoting needed: fixture paths). */
static cli run_rewrite(const char *args)
{
	static cli r;
	char dir[] = "/tmp/osh_test_rewrite_cli.XXXXXX";
	cr_assert(mkdtemp(dir));
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s rewrite --color=never %s >%s/out 2>%s/err </dev/null", OSH_CLI, args, dir, dir);
	int st = system(cmd);
	cr_assert(WIFEXITED(st), "%s", cmd);
	r.status = WEXITSTATUS(st);
	static const char *const names[] = {"out", "err"};
	for (int i = 0; i < 2; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "rb");
		cr_assert(f);
		char *buf = i ? r.err : r.out;
		size_t n = fread(buf, 1, sizeof r.out - 1, f);
		buf[n] = '\0';
		fclose(f);
		unlink(path);
	}
	rmdir(dir);
	return r;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

Test(rewrite_cli, dry_run_lists_and_writes_nothing)
{
	const char *out = "/tmp/osh_test_rewrite_dry.onnx";
	unlink(out);
	cli r = run_rewrite("--dry-run " RW_DIR "/paddle_block.onnx -o /tmp/osh_test_rewrite_dry.onnx");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not(exists(out), "--dry-run wrote %s", out);
	/* One line per rewritten node, then the summary: 4 Paddle nodes, 3 placed at
	 * axis 1 (Reshape), floor division's Div inserted, the opset as it was. */
	int lines = 0;
	for (const char *p = r.out; (p = strstr(p, ": paddle: ")); p++)
		lines++;
	cr_expect_eq(lines, 4, "%s", r.out);
	cr_expect(strstr(r.out, "node 3 (elementwise_max)"), "the unnamed node: %s", r.out);
	cr_expect(strstr(r.out, "\nrewrote 4 nodes (paddle: 4, legacy: 0, stray: 0); inserted 3 Reshape, 0 Unsqueeze, "
				"1 other node; opset 13 unchanged\n"),
		  "%s", r.out);
}

Test(rewrite_cli, legacy_summary_names_the_opsets)
{
	const char *out = "/tmp/osh_test_rewrite_legacy.onnx";
	unlink(out);
	cli r = run_rewrite(RW_DIR "/legacy_mixed6.onnx -o /tmp/osh_test_rewrite_legacy.onnx");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(exists(out));
	/* bias_add places B (3,) at axis 1 (Reshape), gain_mul is right-aligned;
	 * BatchNormalization and Dropout lose is_test. */
	cr_expect(strstr(r.err, "rewrote 2 nodes (paddle: 0, legacy: 2, stray: 0); inserted 1 Reshape, 0 Unsqueeze; "
				"opset 6 \xe2\x86\x92 7 (2 other nodes adapted: BatchNormalization 1, Dropout 1)\n"),
		  "%s", r.err);
	unlink(out);
}

Test(rewrite_cli, paddle_domain_option)
{
	const char *out = "/tmp/osh_test_rewrite_domain.onnx";
	unlink(out);
	/* Another domain: nothing of the model's is rewritten; written back as it was. */
	cli r = run_rewrite("--paddle-domain pd " RW_DIR "/paddle_block.onnx -o /tmp/osh_test_rewrite_domain.onnx");
	cr_expect_eq(r.status, 0, "%s", r.err);
	osh_model *m = NULL;
	cr_assert_eq(osh_model_load(&m, out, NULL, NULL), OSH_OK);
	cr_expect_str_eq(find_node(m->main, "bn_mul")->op_type, "elementwise_mul");
	osh_model_free(m);
	/* Its own domain: every node rewritten. */
	r = run_rewrite("--paddle-domain paddle " RW_DIR "/paddle_block.onnx -o /tmp/osh_test_rewrite_domain.onnx");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "rewrote 4 nodes (paddle: 4,"), "%s", r.err);
	cr_assert_eq(osh_model_load(&m, out, NULL, NULL), OSH_OK);
	cr_expect_str_eq(find_node(m->main, "bn_mul")->op_type, "Mul");
	cr_expect_eq(model_opset(m, "paddle"), -1);
	osh_model_free(m);
	unlink(out);
}

Test(rewrite_cli, refusals_write_nothing)
{
	static const struct {
		const char *args;
		int status;
		const char *phrase;
	} rows[] = {
		/* the paddle rule refuses: exit 1, the diagnostic, nothing written */
		{RW_DIR "/paddle01.onnx", 1, "do not broadcast (paddle rule)"},
		{"--dry-run " RW_DIR "/pdpd10_legacy.onnx", 1, "do not broadcast (pdpd rule)"},
		/* option values the rewrite cannot honour: exit 2 */
		{"--target-opset 11 " RW_DIR "/paddle_block.onnx", 2, "below the model's opset 13"},
		{"--target-opset 9 " RW_DIR "/paddle_mod_int32.onnx", 2, "need opset 10"},
		{"--target-opset seven " RW_DIR "/paddle_block.onnx", 2, "bad --target-opset value 'seven'"},
	};
	const char *out = "/tmp/osh_test_rewrite_refused.onnx";
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		unlink(out);
		char args[512];
		snprintf(args, sizeof args, "%s -o %s", rows[i].args, out);
		cli r = run_rewrite(args);
		cr_expect_eq(r.status, rows[i].status, "%s: exit %d: %s", rows[i].args, r.status, r.err);
		cr_expect(strstr(r.err, rows[i].phrase), "%s: %s", rows[i].args, r.err);
		cr_expect_not(exists(out), "%s: wrote %s", rows[i].args, out);
		if (!strncmp(rows[i].args, "--dry-run", 9))
			cr_expect_str_eq(r.out, "rewrite blocked by 1 error; nothing would change\n");
	}
}

Test(rewrite, prelu_slope_without_a_meaning_is_refused)
{
	/* Raising the opset for the legacy Add: PRelu-6's slope of shape (3, 4) on X of
	 * rank 4 was neither shared, elementwise nor per channel. */
	mb *b = mb_new(6);
	mb_input(b, "x", DT_FLOAT, "2,3,4,4");
	mb_input(b, "bias", DT_FLOAT, "3");
	mb_input(b, "slope", DT_FLOAT, "3,4");
	mb_node(b, "Add", "x,bias", "t");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	mb_node(b, "PRelu", "t,slope", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect_eq(rep.n_errors, 1);
	cr_expect_not(rep.changed);
	cr_expect(strstr(mb_message(m, "rewrite-unsupported"), "slope of rank 2 on X of rank 4"), "%s",
		  mb_message(m, "rewrite-unsupported"));
	cr_expect_eq(model_opset(m, ""), 6);
	osh_model_free(m);
}

Test(rewrite, errors_elsewhere_block_the_rewrite)
{
	/* The legacy Add could be rewritten, but the Sub (opset 6, no broadcast=1) has
	 * operands of different shapes: an error under the none rule that raising the
	 * opset would silently turn into numpy broadcasting. Nothing changes. */
	mb *b = mb_new(6);
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_input(b, "bias", DT_FLOAT, "3");
	mb_input(b, "row", DT_FLOAT, "4");
	mb_node(b, "Add", "x,bias", "t");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	mb_node(b, "Sub", "t,row", "y");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_assert_eq(mb_count(m, "broadcast-mismatch"), 1);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect_eq(rep.n_errors, 1);
	cr_expect_not(rep.changed);
	cr_expect(osh_model_has_errors(m));
	cr_expect_eq(model_opset(m, ""), 6);
	cr_expect_str_eq(find_node(m->main, "Add_0")->op_type, "Add");
	osh_model_free(m);
}

Test(rewrite, training_mode_is_refused)
{
	/* is_test=0 stated on BatchNormalization-6 and Dropout-6: training mode, which
	 * opset 7 cannot say; is_test=1 is fine. */
	static const char *const ops[] = {"BatchNormalization", "Dropout"};
	for (int test = 0; test <= 1; test++)
		for (size_t i = 0; i < 2; i++) {
			mb *b = mb_new(6);
			mb_input(b, "x", DT_FLOAT, "2,3,4");
			mb_input(b, "bias", DT_FLOAT, "3");
			mb_init(b, "scale", DT_FLOAT, "3");
			mb_node(b, "Add", "x,bias", "t");
			mb_attr_i(b, "broadcast", 1);
			mb_attr_i(b, "axis", 1);
			mb_node(b, ops[i], i ? "t" : "t,scale,scale,scale,scale", "y");
			mb_attr_i(b, "is_test", test);
			mb_output(b, "y", 0, NULL);
			osh_model *m = mb_infer(b);
			cr_assert_not_null(m);
			osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
			cr_expect_eq(rep.n_errors, test ? 0 : 1, "%s is_test=%d", ops[i], test);
			cr_expect_eq(rep.changed, test == 1, "%s is_test=%d", ops[i], test);
			if (!test)
				cr_expect(strstr(mb_message(m, "rewrite-unsupported"), "is_test=0 asks for training mode"),
					  "%s", mb_message(m, "rewrite-unsupported"));
			osh_model_free(m);
		}
}

/* Two If nodes of the same name: ONNX Runtime refuses the model (graph-error), so the
 * rewrite, which refuses a model with errors, leaves it as it is, even though each
 * branch alone is something it rewrites (the second one's legacy Add). */
Test(rewrite, two_nodes_of_one_name_block_the_rewrite)
{
	mb *b = mb_new(13);
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "x", DT_FLOAT, "2,3,4");
	mb_input(b, "y", DT_FLOAT, "3");
	for (int k = 0; k < 2; k++) {
		mb *t = mb_new(13);
		if (k) {
			mb_node(t, "Add", "x,y", "ta");
			mb_attr_i(t, "broadcast", 1);
			mb_attr_i(t, "axis", 1);
		} else {
			mb_node(t, "Identity", "x", "ta");
		}
		mb_output(t, "ta", 0, NULL);
		if_node(b, k ? "r1" : "r0", t);
		mb_node_name(b, "same");
	}
	mb_output(b, "r0", 0, NULL);
	mb_output(b, "r1", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_assert_eq(mb_count(m, "graph-error"), 1);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect_geq(rep.n_errors, 1);
	cr_expect_not(rep.changed);
	osh_model_free(m);
}

/* Loads `path` under `budget` bytes of arena and infers: whether both fit. */
static bool fits(const char *path, uint64_t budget)
{
	osh_model *m = NULL;
	osh_error err = {0};
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = budget};
	bool ok = osh_model_load(&m, path, &lo, &err) == OSH_OK && osh_infer(m, NULL, &err) == OSH_OK &&
		  !osh_model_has_errors(m);
	osh_model_free(m);
	return ok;
}

Test(rewrite, a_budget_that_fits_inference_fits_the_rewrite)
{
	/* The budget is the guard against files built to exhaust memory; a rewrite is our
	 * own growth, proportional to the model: a Reshape and its shape per legacy node,
	 * a second IR and a second inference. So the least budget under which the model
	 * loads and infers must carry its rewrite too (a 200k-node legacy model once ran
	 * out of it re-indexing). */
	char dir[] = "/tmp/osh_test_rewrite.XXXXXX";
	cr_assert(mkdtemp(dir));
	char in[256];
	snprintf(in, sizeof in, "%s/legacy.onnx", dir);
	enum { NODES = 3000 };
	mb *b = mb_new(6);
	mb_input(b, "x0", DT_FLOAT, "N,8,4,4");
	for (int i = 0; i < NODES; i++) {
		char bias[32], io[64], out[32];
		snprintf(bias, sizeof bias, "b%d", i);
		snprintf(io, sizeof io, "x%d,b%d", i, i);
		snprintf(out, sizeof out, "x%d", i + 1);
		mb_init(b, bias, DT_FLOAT, "8");
		mb_node(b, i % 2 ? "Mul" : "Add", io, out);
		mb_attr_i(b, "broadcast", 1);
		mb_attr_i(b, "axis", 1);
	}
	char last[32];
	snprintf(last, sizeof last, "x%d", NODES);
	mb_output(b, last, 0, NULL);
	mb_save(b, in);
	/* The least budget that fits, to within 1%. */
	uint64_t lo = 1 << 20, hi = (uint64_t)1 << 30;
	cr_assert(fits(in, hi));
	cr_assert_not(fits(in, lo));
	while (hi - lo > hi / 100) {
		uint64_t mid = lo + (hi - lo) / 2;
		*(fits(in, mid) ? &hi : &lo) = mid;
	}
	osh_model *m = NULL;
	osh_error err = {0};
	osh_load_options opts = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = hi};
	cr_assert_eq(osh_model_load(&m, in, &opts, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_rewrite_report rep = rewrite(m, NULL, OSH_OK);
	cr_expect(rep.changed);
	cr_expect_eq(rep.n_legacy, NODES);
	cr_expect_eq(rep.n_reshape, NODES);
	uint8_t *buf;
	size_t len;
	cr_expect_eq(osh_model_pack(m, &buf, &len, &err), OSH_OK, "%s", err.message);
	free(buf);
	osh_model_free(m);
	unlink(in);
	rmdir(dir);
}

/* Equal-1 takes no float (bool and integers only), nor does Equal-7: a type-error
 * that raising the opset does not cure (it cures Add-1 on int64). The rewrite runs,
 * the rewritten model still has the error, and `rewrite` writes nothing (exit 1)
 * rather than an opset 7 model ONNX Runtime refuses just the same. */
static mb *legacy_equal_on_floats(void)
{
	mb *b = mb_new(6);
	mb_input(b, "a", DT_FLOAT, "2,3,4");
	mb_input(b, "c", DT_FLOAT, "3");
	mb_node(b, "Equal", "a,c", "eq");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	mb_output(b, "eq", 0, NULL);
	return b;
}

Test(rewrite, a_type_error_the_rewrite_does_not_cure_writes_nothing)
{
	osh_model *m = mb_infer(legacy_equal_on_floats());
	cr_assert_not_null(m);
	cr_assert_eq(mb_count(m, "type-error"), 1);
	osh_rewrite_options o = {.version = OSH_REWRITE_OPTIONS_VERSION, .target_opset = 7};
	rewrite(m, &o, OSH_OK);
	cr_expect(osh_model_has_errors(m), "the rewritten model lost its type-error");
	cr_expect_eq(mb_count(m, "type-error"), 1);
	osh_model_free(m);

	char dir[] = "/tmp/osh_test_rw_eq.XXXXXX";
	cr_assert(mkdtemp(dir));
	char in[PATH_MAX], out[PATH_MAX];
	snprintf(in, sizeof in, "%s/eq6.onnx", dir);
	snprintf(out, sizeof out, "%s/eq7.onnx", dir);
	mb_save(legacy_equal_on_floats(), in);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "%s rewrite --target-opset 7 %s -o %s >/dev/null 2>&1", OSH_CLI, in, out);
	int st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "rewrite exit %d", WEXITSTATUS(st));
	cr_expect(access(out, F_OK) != 0, "rewrite wrote a model with a type-error");
	unlink(in);
	rmdir(dir);
}

Test(rewrite, nodes_of_one_operator_are_judged_each_by_its_types)
{
	/* Lowering to opset 13: Relu-13 takes floating types only (integers came with
	 * Relu-14). The float Relu takes the target as it is; the int32 Relu after it,
	 * the same operator with the same attributes, is refused: what the planning run
	 * found of the first must not stand for the second. */
	mb *b = mb_new(17);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_input(b, "n", DT_INT32, "2,3");
	mb_node(b, "Relu", "x", "y");
	mb_node_name(b, "relu_float");
	mb_node(b, "Relu", "n", "z");
	mb_node_name(b, "relu_int");
	mb_node(b, "Relu", "x", "w");
	mb_node_name(b, "relu_float_again");
	mb_output(b, "y", 0, NULL);
	mb_output(b, "z", 0, NULL);
	mb_output(b, "w", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	osh_rewrite_options o = {.version = OSH_REWRITE_OPTIONS_VERSION, .target_opset = 13};
	osh_rewrite_report rep = rewrite(m, &o, OSH_OK);
	cr_expect_eq(rep.n_errors, 1);
	cr_expect_not(rep.changed);
	const char *why = mb_message(m, "rewrite-unsupported");
	cr_expect(why && strstr(why, "INT32"), "%s", why ? why : "(none)");
	size_t on_int = 0;
	for (size_t i = 0; i < m->ndiags; i++)
		on_int += !strcmp(m->diags[i].code, "rewrite-unsupported") && m->diags[i].node_index == 1;
	cr_expect_eq(on_int, 1);
	cr_expect_eq(model_opset(m, ""), 17);
	osh_model_free(m);
}

/* The re-index after a rewrite takes the views of the weights it had already read
 * (loader/index.c's view_before) instead of decoding them again: the IR it builds
 * must view every initializer as a load of the written model does. Loaded from a
 * file, so that the initializers stay the file's bytes. */
Test(rewrite, reindexed_initializer_views_match_a_fresh_load)
{
	/* Raw data (mb_init) for most, the typed field (mb_init_floats) for one, which
	 * is decoded again; shapes that differ, so that a view taken for another
	 * initializer shows. */
	mb *b = mb_new(17);
	mb_input(b, "x", DT_FLOAT, "2,4");
	const float shift[4] = {1.5f, -2, 0.25f, 3};
	mb_init(b, "scale", DT_FLOAT, "4");
	mb_init(b, "bias", DT_FLOAT, "1,4");
	mb_init(b, "w", DT_FLOAT, "4,3");
	mb_init_floats(b, "shift", "4", shift);
	mb_init(b, "w2", DT_FLOAT, "3,5");
	mb_node(b, "LayerNormalization", "x,scale,bias", "y");
	mb_attr_i(b, "axis", -1);
	mb_node(b, "Add", "y,shift", "s");
	mb_node(b, "MatMul", "s,w", "z");
	mb_node(b, "MatMul", "z,w2", "out");
	mb_output(b, "out", 0, NULL);
	char path[64];
	snprintf(path, sizeof path, "/tmp/osh_reindex_views_%d.onnx", (int)getpid());
	mb_save(b, path);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert(m->plain_io || m->src.wire_inits.n > 0);
	osh_rewrite_options o = {.version = OSH_REWRITE_OPTIONS_VERSION, .target_opset = 13};
	osh_rewrite_report rep = rewrite(m, &o, OSH_OK);
	cr_assert(rep.changed);
	osh_model *fresh = reload(m);
	int compared = 0;
	for (int32_t i = 0; i < fresh->main->nvalues; i++) {
		const tensor_view *want = fresh->main->values[i].init_view;
		if (!want)
			continue;
		int32_t id = strmap_get(&m->main->names, fresh->main->values[i].name);
		cr_assert_geq(id, 0, "%s", want->name);
		const tensor_view *got = m->main->values[id].init_view;
		cr_assert_not_null(got, "%s", want->name);
		cr_expect_str_eq(got->name, want->name);
		cr_expect_eq(got->dtype, want->dtype, "%s", want->name);
		cr_expect_eq(got->rank, want->rank, "%s", want->name);
		for (int32_t k = 0; k < got->rank && k < want->rank; k++)
			cr_expect_eq(got->dims[k], want->dims[k], "%s dim %d", want->name, k);
		cr_expect_eq(got->count, want->count, "%s", want->name);
		cr_expect_eq(got->valid, want->valid, "%s", want->name);
		cr_expect_eq(got->external, want->external, "%s", want->name);
		cr_expect_eq(got->ntyped, want->ntyped, "%s", want->name);
		cr_expect_eq(got->raw_len, want->raw_len, "%s", want->name);
		cr_expect((!got->raw && !want->raw) ||
			  (got->raw && want->raw && got->raw_len == want->raw_len && !memcmp(got->raw, want->raw, got->raw_len)),
			  "%s: raw data", want->name);
		compared++;
	}
	cr_expect_geq(compared, 6, "only %d initializers compared", compared); /* the five and the epsilon */
	osh_model_free(fresh);
	osh_model_free(m);
	unlink(path);
}
