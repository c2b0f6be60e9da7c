/* test_dump_after.c: --dump-after=STAGE on check, infer and rewrite, as a user runs
 * the tool (OSH_CLI).
 *
 * The IR dumped after inference of transformer_block.onnx is compared whole with a
 * text checked by hand: MatMul, Add and Softmax keep (batch, seq, 8); Shape's content
 * is its input's sizes, Gather picks batch, Unsqueeze and Concat with the constant -1
 * make [batch, -1], and the Reshape to it gives (batch, 8*seq), seq*8 of the input's
 * elements per row. A stage that is not one, or help, is a usage error listing the
 * command's stages; asking for a dump changes nothing else the tool prints or writes.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"

#define EXAMPLES OSH_MODELS_DIR "/examples"
#define BLOCK EXAMPLES "/transformer_block.onnx"

static char *dir;

static void setup(void) { dir = make_tmpdir_for("dump_after"); }
static void teardown(void) { remove_dir(dir); }

TestSuite(dump_after, .init = setup, .fini = teardown);

#define MAX_ARGS 16

static cli_result run(const char *arg, ...)
{
	const char *argv[MAX_ARGS] = {OSH_CLI};
	va_list ap;
	va_start(ap, arg);
	cli_args(argv, 1, MAX_ARGS, arg, ap);
	va_end(ap);
	return cli_run(dir, 0, argv);
}

#define BLOCK_GRAPH                                                                                             \
	"; opsets: ai.onnx 13\n"                                                                                \
	"graph {\n"                                                                                             \
	"  input %X: FLOAT[batch,seq,8]\n"                                                                      \
	"  initializer %Wq: FLOAT[8,8]\n"                                                                       \
	"  initializer %bq: FLOAT[8]\n"                                                                         \
	"  initializer %zero: INT64[]\n"                                                                        \
	"  initializer %axes0: INT64[1]\n"                                                                      \
	"  initializer %minus_one: INT64[1]\n"                                                                  \
	"  %proj: FLOAT[batch,seq,8] = MatMul(%X, %Wq)  # node 0 \"proj\"\n"                                    \
	"  %biased: FLOAT[batch,seq,8] = Add(%proj, %bq)  # node 1 \"bias\"\n"                                  \
	"  %attn: FLOAT[batch,seq,8] = Softmax(%biased) {axis=-1}  # node 2 \"softmax\"\n"                      \
	"  %x_shape: INT64[3]{batch,seq,8} = Shape(%X)  # node 3 \"shape\"\n"                                   \
	"  %batch: INT64[]{batch} = Gather(%x_shape, %zero) {axis=0}  # node 4 \"gather\"\n"                    \
	"  %batch_1d: INT64[1]{batch} = Unsqueeze(%batch, %axes0)  # node 5 \"unsqueeze\"\n"                    \
	"  %target: INT64[2]{batch,-1} = Concat(%batch_1d, %minus_one) {axis=0}  # node 6 \"concat\"\n"         \
	"  %Y: FLOAT[batch,8*seq] = Reshape(%attn, %target)  # node 7 \"reshape\"\n"                            \
	"  output %Y: FLOAT[batch,8*seq]\n"                                                                     \
	"}\n"

Test(dump_after, check_after_infer)
{
	cli_result r = run("check", "--dump-after=infer", BLOCK, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "; the IR of " BLOCK " after stage 'infer'\n" BLOCK_GRAPH);
	cli_result plain = run("check", BLOCK, NULL);
	cr_expect_str_eq(r.out, plain.out, "the report is the same with a dump");
	cr_expect_str_eq(plain.err, "");
	cli_result_free(&r);
	cli_result_free(&plain);
}

/* After load: the IR as the loader built it, before any inference: the graph
 * inputs and initializers as declared, the node outputs not known yet. */
Test(dump_after, check_after_load)
{
	cli_result r = run("check", "--dump-after=load", BLOCK, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "; the IR of " BLOCK " after stage 'load' (not inferred: the types declared)\n"), "%s",
		  r.err);
	cr_expect(strstr(r.err, "  input %X: FLOAT[batch,seq,8]\n"), "%s", r.err);
	cr_expect(strstr(r.err, "  %proj: ? = MatMul(%X, %Wq)  # node 0 \"proj\"\n"), "%s", r.err);
	cr_expect(strstr(r.err, "  output %Y: FLOAT[batch,8*seq]\n") == NULL, "%s", r.err);
	cli_result_free(&r);
}

/* Lint and describe leave the IR as inference did; the option takes a separate word too. */
Test(dump_after, check_after_lint)
{
	cli_result r = run("check", "--dump-after", "describe", BLOCK, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "; the IR of " BLOCK " after stage 'describe'\n" BLOCK_GRAPH);
	cli_result_free(&r);
}

/* infer dumps after annotate, and writes the same bytes as without a dump. */
Test(dump_after, infer_writes_the_same)
{
	char *with = path_in(dir, "with.onnx"), *without = path_in(dir, "without.onnx");
	cli_result r = run("infer", "--dump-after=annotate", BLOCK, "-o", with, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "; the IR of " BLOCK " after stage 'annotate'\n" BLOCK_GRAPH);
	cli_result plain = run("infer", BLOCK, "-o", without, NULL);
	cr_expect_eq(plain.status, 0, "%s", plain.err);
	size_t na, nb;
	uint8_t *a = slurp(with, &na), *b = slurp(without, &nb);
	cr_expect(na == nb && !memcmp(a, b, na), "infer wrote other bytes with --dump-after");
	free(a), free(b);
	unlink(with), unlink(without);
	free(with), free(without);
	cli_result_free(&r);
	cli_result_free(&plain);
}

/* rewrite: after the re-index the IR is the edited model's, its types the declared
 * ones until inference runs again; "infer" runs twice and is dumped twice. */
Test(dump_after, rewrite_reindex_and_infer)
{
	char *out = path_in(dir, "out.onnx");
	cli_result r = run("rewrite", "--dump-after=reindex", EXAMPLES "/legacy_add_broadcast.onnx", "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err,
			 "; the IR of " EXAMPLES "/legacy_add_broadcast.onnx after stage 'reindex' (not inferred: the types declared)\n"
			 "; opsets: ai.onnx 7\n"
			 "graph {\n"
			 "  input %A: FLOAT[2,3,4,5]\n"
			 "  input %B: FLOAT[3]\n"
			 "  initializer %add_axis1/B_shape: INT64[3]\n"
			 "  %add_axis1/B_reshaped: ? = Reshape(%B, %add_axis1/B_shape)  # node 0 \"add_axis1/B_reshaped\"\n"
			 "  %C: FLOAT[2,3,4,5] = Add(%A, %add_axis1/B_reshaped)  # node 1 \"add_axis1\"\n"
			 "  output %C: FLOAT[2,3,4,5]\n"
			 "}\n"
			 "rewrote 1 node (paddle: 0, legacy: 1, stray: 0); inserted 1 Reshape, 0 Unsqueeze; opset 6 \xe2\x86\x92 7\n");
	cli_result_free(&r);
	r = run("rewrite", "--dump-after=infer", EXAMPLES "/legacy_add_broadcast.onnx", "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	const char *second = strstr(r.err, "after stage 'infer'\n; opsets: ai.onnx 7\n");
	cr_expect(strstr(r.err, "after stage 'infer'\n; opsets: ai.onnx 6\n") && second, "%s", r.err);
	cr_expect(second && strstr(second, "%add_axis1/B_reshaped: FLOAT[3,1,1] = Reshape("), "%s", r.err);
	unlink(out);
	free(out);
	cli_result_free(&r);
}

Test(dump_after, unknown_stage_lists_the_stages)
{
	static const struct {
		const char *cmd, *stage, *err;
	} cases[] = {
		{"check", "lnt",
		 "onnxshape check: error: 'lnt' is not a stage of check; did you mean 'lint'? The stages, in order: load, infer, lint, "
		 "describe\ntry 'onnxshape check --help'\n"},
		{"check", "annotate",
		 "onnxshape check: error: 'annotate' is not a stage of check; the stages, in order: load, infer, lint, describe\n"
		 "try 'onnxshape check --help'\n"},
		{"infer", "help",
		 "onnxshape infer: error: --dump-after=help: the stages of infer, in order: load, infer, lint, describe, annotate\n"
		 "try 'onnxshape infer --help'\n"},
		{"rewrite", "help",
		 "onnxshape rewrite: error: --dump-after=help: the stages of rewrite, in order: load, infer, lint, describe, "
		 "declare-inputs, axis, reindex, infer, lint, describe, value-info, explicit, reindex, infer, lint, "
		 "describe, value-info, implicit, reindex, "
		 "infer, lint, describe, fold, reindex, infer, lint, describe\n"
		 "try 'onnxshape rewrite --help'\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *opt = NULL;
		cr_assert(asprintf(&opt, "--dump-after=%s", cases[i].stage) > 0);
		cli_result r = run(cases[i].cmd, opt, BLOCK, "-o", "/nonexistent/out.onnx", NULL);
		cr_expect_eq(r.status, 2, "%s %s: exit %d", cases[i].cmd, opt, r.status);
		cr_expect_str_eq(r.err, cases[i].err);
		cr_expect_str_eq(r.out, "");
		free(opt);
		cli_result_free(&r);
	}
}
