/* test_api_contract.c: the public API called outside its contract (onnxshape.h's
 * "NULL:" lines and the fields' comments). Public header only.
 *
 *  - options: osh_infer refuses an input_shapes size of -7, a rank of -5, dims or a
 *    name or a symbol NULL, a dimension kind osh_dim_kind does not name, a count
 *    without its array, with OSH_ERR_INVALID, and applies nothing of them (the
 *    input keeps its declared shape); a size of "?" (OSH_DIM_UNKNOWN) is fine.
 *  - NULL where a status is promised: every such function refuses a NULL it does
 *    not allow with OSH_ERR_INVALID (err filled, or NULL itself), never a crash.
 *  - NULL where a value is returned: NULL, 0 or false; indices past the counts too.
 *  - versions: every options struct with a version the library does not know (0,
 *    as a struct never initialised has, or one past it) is refused with
 *    OSH_ERR_INVALID naming the struct and the version, before anything is done;
 *    _INIT and the _init functions give the defaults NULL gives.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODEL OSH_MODELS_DIR "/lint/dynamic_shape.onnx" /* x FLOAT (N, 3) -> y */

static osh_model *load(void)
{
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, MODEL, NULL, &err), OSH_OK, "%s", err.message);
	return m;
}

/* osh_infer with one input_shapes entry for x must be refused, the message
 * containing `says`; the model then infers as if never asked: x is (N, 3). */
static void refused_shape(osh_input_shape s, const char *says)
{
	osh_model *m = load();
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1, .input_shapes = &s};
	osh_error err = {0};
	cr_expect_eq(osh_infer(m, &o, &err), OSH_ERR_INVALID, "%s: status %d: %s", says, err.status, err.message);
	cr_expect(strstr(err.message, says), "want '%s' in: %s", says, err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	osh_type t;
	cr_assert(osh_value_type(m, "x", &t));
	cr_expect_eq(t.rank, 2, "%s: x has rank %d", says, (int)t.rank);
	if (t.rank == 2) {
		cr_expect(t.dims[0].kind == OSH_DIM_SYMBOL && !strcmp(t.dims[0].symbol, "N"), "%s", says);
		cr_expect(t.dims[1].kind == OSH_DIM_VALUE && t.dims[1].value == 3, "%s", says);
	}
	osh_model_free(m);
}

Test(api_contract, negative_size_refused)
{
	osh_dim d[] = {{OSH_DIM_VALUE, -7, NULL}, {OSH_DIM_VALUE, 3, NULL}};
	refused_shape((osh_input_shape){"x", 2, d}, "dimension 0 is -7");
}

Test(api_contract, negative_rank_refused)
{
	osh_dim d[] = {{OSH_DIM_VALUE, 2, NULL}};
	refused_shape((osh_input_shape){"x", -5, d}, "the rank -5 is negative");
}

Test(api_contract, dims_name_symbol_kind_refused)
{
	refused_shape((osh_input_shape){"x", 2, NULL}, "dims is NULL with rank 2");
	osh_dim d[] = {{OSH_DIM_VALUE, 2, NULL}, {OSH_DIM_VALUE, 3, NULL}};
	refused_shape((osh_input_shape){NULL, 2, d}, "input shape #0 has no name");
	osh_dim sym[] = {{OSH_DIM_SYMBOL, 0, NULL}, {OSH_DIM_VALUE, 3, NULL}};
	refused_shape((osh_input_shape){"x", 2, sym}, "dimension 0 is a symbol without a name");
	osh_dim empty[] = {{OSH_DIM_SYMBOL, 0, ""}, {OSH_DIM_VALUE, 3, NULL}};
	refused_shape((osh_input_shape){"x", 2, empty}, "dimension 0 is a symbol without a name");
	osh_dim kind[] = {{OSH_DIM_VALUE, 2, NULL}, {(osh_dim_kind)7, 3, NULL}};
	refused_shape((osh_input_shape){"x", 2, kind}, "dimension 1 has no kind");
}

Test(api_contract, counts_without_arrays_refused)
{
	osh_model *m = load();
	osh_error err = {0};
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1};
	cr_expect_eq(osh_infer(m, &o, &err), OSH_ERR_INVALID, "%s", err.message);
	cr_expect(strstr(err.message, "input_shapes is NULL"), "%s", err.message);
	o = (osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .n_assumptions = 2};
	cr_expect_eq(osh_infer(m, &o, &err), OSH_ERR_INVALID, "%s", err.message);
	cr_expect(strstr(err.message, "assumptions is NULL"), "%s", err.message);
	osh_assumption a = {NULL, 4};
	o = (osh_infer_options){.version = OSH_INFER_OPTIONS_VERSION, .n_assumptions = 1, .assumptions = &a};
	cr_expect_eq(osh_infer(m, &o, &err), OSH_ERR_INVALID, "%s", err.message);
	cr_expect(strstr(err.message, "assumption #0 has no symbol"), "%s", err.message);
	osh_model_free(m);
}

Test(api_contract, unknown_size_and_rank_zero_accepted)
{
	osh_model *m = load();
	osh_error err = {0};
	osh_dim d[] = {{OSH_DIM_UNKNOWN, 0, NULL}, {OSH_DIM_VALUE, 3, NULL}};
	osh_input_shape s = {"x", 2, d};
	osh_infer_options o = {.version = OSH_INFER_OPTIONS_VERSION, .n_input_shapes = 1, .input_shapes = &s};
	cr_assert_eq(osh_infer(m, &o, &err), OSH_OK, "%s", err.message);
	osh_type t;
	cr_assert(osh_value_type(m, "x", &t));
	cr_expect(t.rank == 2 && t.dims[0].kind == OSH_DIM_UNKNOWN && t.dims[1].value == 3);
	osh_model_free(m);
}

/* ---- NULL where a status is promised --------------------------------------------- */

/* s must be OSH_ERR_INVALID with err saying so. */
static void invalid(osh_status s, const osh_error *err, const char *call)
{
	cr_expect_eq(s, OSH_ERR_INVALID, "%s: status %d", call, (int)s);
	cr_expect_eq(err->status, OSH_ERR_INVALID, "%s: err.status %d", call, (int)err->status);
	cr_expect(err->message[0], "%s: no message", call);
}

Test(api_contract, null_model_refused)
{
	osh_error err;
	osh_rewrite_report rep;
	uint8_t *data = (uint8_t *)&err;
	size_t size = 1;
	osh_severity_override ov = {"unknown-op", false, OSH_ERROR};
#define CALL(expr) (memset(&err, 0, sizeof err), invalid((expr), &err, #expr))
	CALL(osh_infer(NULL, NULL, &err));
	CALL(osh_lint(NULL, &err));
	CALL(osh_annotate(NULL, &err));
	CALL(osh_rewrite(NULL, NULL, &rep, &err));
	CALL(osh_model_write(NULL, "/tmp/never-written.onnx", NULL, &err));
	CALL(osh_model_pack(NULL, &data, &size, &err));
	CALL(osh_model_override_severities(NULL, &ov, 1, &err));
	CALL(osh_model_set_input_value(NULL, "x", 0, "", 0, &err));
#undef CALL
	/* err may be NULL too. */
	cr_expect_eq(osh_infer(NULL, NULL, NULL), OSH_ERR_INVALID);
	cr_expect_eq(osh_model_pack(NULL, NULL, NULL, NULL), OSH_ERR_INVALID);
}

Test(api_contract, null_arguments_refused)
{
	osh_model *m = load();
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	uint8_t *data = NULL;
	size_t size = 0;
#define CALL(expr) (memset(&err, 0, sizeof err), invalid((expr), &err, #expr))
	CALL(osh_model_pack(m, NULL, &size, &err));
	CALL(osh_model_pack(m, &data, NULL, &err));
	CALL(osh_model_write(m, NULL, NULL, &err));
	CALL(osh_rewrite(m, NULL, NULL, &err));
	CALL(osh_model_override_severities(m, NULL, 2, &err));
	osh_severity_override bad = {"unknown-op", false, (osh_severity)9};
	CALL(osh_model_override_severities(m, &bad, 1, &err));
	osh_severity_override nocode = {NULL, true, OSH_NOTE};
	CALL(osh_model_override_severities(m, &nocode, 1, &err));
	CALL(osh_model_set_input_value(m, "x", 0, NULL, 16, &err));
#undef CALL
	/* What the header allows. */
	cr_expect_eq(osh_model_override_severities(m, NULL, 0, &err), OSH_OK, "%s", err.message);
	osh_severity_override ignored = {"unknown-op", true, (osh_severity)9}; /* ignored: no severity */
	cr_expect_eq(osh_model_override_severities(m, &ignored, 1, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(osh_model_pack(m, &data, &size, NULL), OSH_OK);
	free(data);
	osh_model_free(m);

	osh_model *out = (osh_model *)&err;
	memset(&err, 0, sizeof err);
	invalid(osh_model_load(NULL, MODEL, NULL, &err), &err, "osh_model_load(NULL, ...)");
	memset(&err, 0, sizeof err);
	invalid(osh_model_load(&out, NULL, NULL, &err), &err, "osh_model_load(&out, NULL, ...)");
	cr_expect_null(out);
	out = (osh_model *)&err;
	memset(&err, 0, sizeof err);
	invalid(osh_model_load_buffer(NULL, "x", 1, "b", NULL, &err), &err, "osh_model_load_buffer(NULL, ...)");
	memset(&err, 0, sizeof err);
	invalid(osh_model_load_buffer(&out, NULL, 16, "b", NULL, &err), &err, "osh_model_load_buffer(&out, NULL, 16, ...)");
	cr_expect_null(out);
	/* NULL data with size 0 is an empty model, refused as such. */
	cr_expect_eq(osh_model_load_buffer(&out, NULL, 0, NULL, NULL, &err), OSH_ERR_DECODE, "%s", err.message);
	osh_model_free(NULL);
}

/* ---- NULL where a value is returned ---------------------------------------------- */

Test(api_contract, null_model_answers_nothing)
{
	cr_expect_null(osh_model_path(NULL));
	cr_expect_eq(osh_model_diag_count(NULL), 0);
	cr_expect_null(osh_model_diag_at(NULL, 0));
	cr_expect_not(osh_model_has_errors(NULL));
	cr_expect_not(osh_model_is_malformed(NULL));
	cr_expect_null(osh_model_summary(NULL));
	cr_expect_eq(osh_model_node_count(NULL), 0);
	cr_expect_eq(osh_model_graph_count(NULL), 0);
	cr_expect_null(osh_graph_path(NULL, 0));
	cr_expect_eq(osh_graph_value_count(NULL, 0), 0);
	cr_expect_eq(osh_graph_node_count(NULL, 0), 0);
	osh_value_info v;
	osh_node_info n;
	osh_type t;
	cr_expect_not(osh_graph_value_at(NULL, 0, 0, &v));
	cr_expect_not(osh_graph_node_at(NULL, 0, 0, &n));
	cr_expect_not(osh_value_type(NULL, "x", &t));
	cr_expect_null(osh_rule_find(NULL));
	cr_expect(osh_rules(NULL));
	cr_expect_eq(osh_pipeline_stages(NULL, NULL, 0), 0);
	const char *names[64];
	size_t all = osh_pipeline_stages("infer", names, 64);
	cr_expect_gt(all, 0);
	cr_expect_eq(osh_pipeline_stages("infer", NULL, 64), all, "names NULL: the count alone");
}

Test(api_contract, past_the_counts_and_null_out)
{
	osh_model *m = load();
	osh_error err = {0};
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	size_t graphs = osh_model_graph_count(m);
	cr_assert_eq(graphs, 1);
	cr_expect_null(osh_graph_path(m, graphs));
	cr_expect_eq(osh_graph_value_count(m, graphs), 0);
	cr_expect_eq(osh_graph_node_count(m, graphs), 0);
	osh_value_info v;
	osh_node_info n;
	osh_type t;
	cr_expect_not(osh_graph_value_at(m, 0, osh_graph_value_count(m, 0), &v));
	cr_expect_not(osh_graph_node_at(m, 0, osh_graph_node_count(m, 0), &n));
	cr_expect_not(osh_graph_value_at(m, graphs, 0, &v));
	cr_expect_not(osh_graph_value_at(m, 0, 0, NULL));
	cr_expect_not(osh_graph_node_at(m, 0, 0, NULL));
	cr_expect_not(osh_value_type(m, NULL, &t));
	cr_expect_not(osh_value_type(m, "x", NULL));
	cr_expect_null(osh_model_diag_at(m, osh_model_diag_count(m)));
	/* And what is in range still answers. */
	cr_expect(osh_graph_value_at(m, 0, 0, &v));
	cr_expect(osh_graph_node_at(m, 0, 0, &n));
	cr_expect(osh_value_type(m, "x", &t));
	osh_model_free(m);
}

/* err must name the struct and the version. */
static void names_version(const osh_error *err, const char *strct, unsigned v)
{
	char want[64];
	snprintf(want, sizeof want, "%s version %u", strct, v);
	cr_expect(strstr(err->message, want), "want '%s' in: %s", want, err->message);
}

Test(api_contract, unknown_versions_refused)
{
	const unsigned versions[] = {0, 2, 1000};
	for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
		unsigned v = versions[i];
		osh_error err = {0};
		osh_model *m = (osh_model *)&err; /* set to NULL by the refusal */
		cr_expect_eq(osh_model_load(&m, MODEL, &(osh_load_options){.version = v}, &err), OSH_ERR_INVALID);
		cr_expect_null(m);
		names_version(&err, "osh_load_options", v);
		uint8_t byte = 0;
		m = (osh_model *)&err;
		cr_expect_eq(osh_model_load_buffer(&m, &byte, 1, "b", &(osh_load_options){.version = v}, &err),
			     OSH_ERR_INVALID);
		cr_expect_null(m);
		names_version(&err, "osh_load_options", v);

		m = load();
		cr_expect_eq(osh_infer(m, &(osh_infer_options){.version = v}, &err), OSH_ERR_INVALID);
		names_version(&err, "osh_infer_options", v);
		cr_expect_eq(osh_value_type(m, "x", &(osh_type){0}), false, "refused, yet inferred");
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
		osh_rewrite_report rep;
		memset(&rep, 0x5a, sizeof rep);
		cr_expect_eq(osh_rewrite(m, &(osh_rewrite_options){.version = v}, &rep, &err), OSH_ERR_INVALID);
		names_version(&err, "osh_rewrite_options", v);
		cr_expect(!rep.changed && rep.n_changes == 0 && rep.opset_before == -1, "the report is filled");
		cr_expect_eq(osh_model_write(m, "/nonexistent/never", &(osh_write_options){.version = v}, &err),
			     OSH_ERR_INVALID);
		names_version(&err, "osh_write_options", v);
		osh_model_free(m);
	}
}

Test(api_contract, init_gives_the_defaults)
{
	osh_load_options lo = OSH_LOAD_OPTIONS_INIT, lo2;
	osh_infer_options io = OSH_INFER_OPTIONS_INIT, io2;
	osh_rewrite_options ro = OSH_REWRITE_OPTIONS_INIT, ro2;
	osh_write_options wo = OSH_WRITE_OPTIONS_INIT, wo2;
	memset(&lo2, 0x5a, sizeof lo2);
	memset(&io2, 0x5a, sizeof io2);
	memset(&ro2, 0x5a, sizeof ro2);
	memset(&wo2, 0x5a, sizeof wo2);
	cr_assert_eq(osh_load_options_init(&lo2, OSH_LOAD_OPTIONS_VERSION), OSH_OK);
	cr_assert_eq(osh_infer_options_init(&io2, OSH_INFER_OPTIONS_VERSION), OSH_OK);
	cr_assert_eq(osh_rewrite_options_init(&ro2, OSH_REWRITE_OPTIONS_VERSION), OSH_OK);
	cr_assert_eq(osh_write_options_init(&wo2, OSH_WRITE_OPTIONS_VERSION), OSH_OK);
	cr_expect(lo2.version == OSH_LOAD_OPTIONS_VERSION && lo2.memory_budget == 0);
	cr_expect(io2.version == OSH_INFER_OPTIONS_VERSION && io2.n_input_shapes == 0 && !io2.runtime &&
		  !io2.ignore_declared && !io2.dump_to);
	cr_expect(ro2.version == OSH_REWRITE_OPTIONS_VERSION && !ro2.paddle_domain && ro2.target_opset == 0 &&
		  !ro2.fold_shapes);
	cr_expect(wo2.version == OSH_WRITE_OPTIONS_VERSION && !wo2.in_place && !wo2.durable);
	cr_expect_eq(osh_load_options_init(&lo2, 2), OSH_ERR_INVALID);
	cr_expect_eq(osh_infer_options_init(&io2, 0), OSH_ERR_INVALID);
	cr_expect_eq(osh_rewrite_options_init(NULL, OSH_REWRITE_OPTIONS_VERSION), OSH_ERR_INVALID);
	cr_expect_eq(osh_write_options_init(&wo2, 7), OSH_ERR_INVALID);
	cr_expect(wo2.version == OSH_WRITE_OPTIONS_VERSION, "a refused init changes nothing");

	/* _INIT means what NULL means. */
	osh_error err = {0};
	osh_model *m = NULL;
	cr_assert_eq(osh_model_load(&m, MODEL, &lo, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, &io, &err), OSH_OK, "%s", err.message);
	osh_type t;
	cr_assert(osh_value_type(m, "x", &t));
	cr_expect_eq(t.rank, 2);
	osh_rewrite_report rep;
	cr_expect_eq(osh_rewrite(m, &ro, &rep, &err), OSH_OK, "%s", err.message);
	cr_expect(!rep.changed);
	uint8_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	cr_assert_eq(osh_model_pack(m, &a, &na, &err), OSH_OK, "%s", err.message);
	char path[] = "/tmp/osh-api-init-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	cr_expect_eq(osh_model_write(m, path, &wo, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_model_pack(m, &b, &nb, &err), OSH_OK, "%s", err.message);
	cr_expect(na == nb && !memcmp(a, b, na), "the model written with _INIT is what it packs");
	osh_model_free(m);
	unlink(path);
	free(a), free(b);
}
