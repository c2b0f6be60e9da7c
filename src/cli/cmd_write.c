/* cmd_write.c: the subcommands that load a model, run passes and write it back:
 * `infer` and `rewrite`. They share option parsing and the write discipline: an
 * output path (-o) or an explicit --in-place, nothing written when the model is
 * malformed or has errors, and the write itself atomic (the library's job).
 */
#include "cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct write_cmd {
	const char *name;
	const char *help;
	bool infer; /* run inference and write its results into the model */
} write_cmd;

static const write_cmd infer_cmd = {
	"infer",
	"usage: onnxshape infer [options] MODEL -o OUT\n"
	"\n"
	"Infer the type and shape of every value and write them into the model's\n"
	"value_info (subgraphs too), filling in graph outputs' shapes. Unknown sizes\n"
	"get fresh dim_param names. Nothing is written when the model has errors.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT          where to write the model (required unless --in-place)\n"
	"      --in-place            write over MODEL itself (atomically)\n"
	"      --fsync               have the output on disk before exiting (fsync the\n"
	"                            file and its directory): it survives a power cut\n"
	"      --input-shape NAME:D,D,...\n"
	"                            override a graph input's shape; D is a size, a\n"
	"                            symbol, or ? (repeatable)\n"
	"      --assume SYMBOL=VALUE bind a symbolic dimension everywhere (repeatable)\n"
	"      --ignore-declared     ignore declared shapes of outputs and value_info:\n"
	"                            infer everything from the graph inputs\n"
	"      --input-data DIR      treat the inputs in DIR/input_N.pb (TensorProto files,\n"
	"                            the ONNX test-data layout) as constants\n"
	"      --input-value NAME=FILE.pb\n"
	"                            treat one input as a constant (repeatable)\n"
	"      --color=WHEN          colour diagnostics: auto (default), always, never\n"
	"      --timings             print how long each stage took (load, infer,\n"
	"                            annotate, write, free) to stderr\n"
	"      --memory-budget SIZE  most memory the model may take (512M, 4G...;\n"
	"                            default: from the file's size)\n"
	"  -h, --help                show this help\n",
	true,
};

static const write_cmd rewrite_cmd = {
	"rewrite",
	"usage: onnxshape rewrite [options] MODEL -o OUT\n"
	"\n"
	"Rewrite Paddle-style and legacy axis broadcasting into standard ONNX and write\n"
	"the model to OUT:\n"
	"  - Paddle elementwise_{add,sub,mul,div,pow,max,min,mod,floordiv} (any domain\n"
	"    but ai.onnx) become Add, Sub, Mul, Div, Pow, Max, Min, Mod, floor division;\n"
	"  - nodes of opset <= 6 with broadcast=1 are rewritten, the opset raised to 7\n"
	"    (or --target-opset) and every other node adapted to it;\n"
	"  - axis/broadcast attributes left on nodes of opset >= 7 are rewritten away.\n"
	"The operand placed at `axis` is reshaped where numpy alignment differs (Reshape,\n"
	"or Unsqueeze when its shape is symbolic). Where the shapes do not broadcast under\n"
	"the node's rule, the error is reported and nothing is written (exit 1). A model\n"
	"with nothing to rewrite is written back byte-identical.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT   where to write the model (required unless --in-place/--dry-run)\n"
	"      --in-place     write over MODEL itself (atomically)\n"
	"      --fsync        have the output on disk before exiting (fsync the file and\n"
	"                     its directory): it survives a power cut\n"
	"      --dry-run      list what would change (stdout), write nothing\n"
	"      --paddle-domain D\n"
	"                     rewrite Paddle operators of domain D only\n"
	"      --target-opset N\n"
	"                     raise the ai.onnx opset to N (7 to 17; default: the lowest\n"
	"                     the rewrite needs, or the model's own)\n"
	"      --explicit-broadcast\n"
	"                     then make every implicit broadcast explicit: each input of\n"
	"                     an elementwise node (Add, Where, Sum, PRelu's slope, Gemm's\n"
	"                     C...) without the result's shape gets an Expand to it (a\n"
	"                     constant shape, or computed from Shape with symbolic dims);\n"
	"                     raises the opset to 8 (Expand) when lower\n"
	"      --implicit-broadcast\n"
	"                     instead remove Expand (and Tile of size-1 dims) that only\n"
	"                     feed implicitly broadcasting inputs, when every consumer's\n"
	"                     shape stays the same, with the shape nodes only they used\n"
	"      --broadcast-domain D\n"
	"                     lower Broadcast-3 nodes (OpenVINO's Broadcast, mode numpy,\n"
	"                     explicit or bidirectional) of domain D only (default: any\n"
	"                     non-ONNX domain); they are always lowered to Expand\n"
	"      --color=WHEN   colour diagnostics: auto (default), always, never\n"
	"      --timings      print how long each stage took (load, infer, rewrite,\n"
	"                     write, free) to stderr\n"
	"      --memory-budget SIZE\n"
	"                     most memory the model may take (512M, 4G...; default:\n"
	"                     from the file's size, raised for each rewrite stage)\n"
	"  -h, --help         show this help\n",
	false,
};

/* ---- rewrite ------------------------------------------------------------------------ */

typedef struct rewrite_args {
	osh_rewrite_options opts;
	bool dry_run;
} rewrite_args;

/* "rewrote K nodes (paddle: a, legacy: b, stray: c); inserted R Reshape, U Unsqueeze;
 * opset 6 → 7", with Squeeze, other inserted nodes and adapted nodes when there are. */
static void print_rewrite_summary(FILE *f, const osh_rewrite_report *r)
{
	/* Only the explicit/implicit stages changed something: say just that. */
	bool axis = r->n_paddle + r->n_legacy + r->n_stray + r->n_adapted || r->opset_after != r->opset_before;
	if (!axis && (r->n_explicit || r->n_lowered || r->n_removed)) {
		if (r->n_explicit || r->n_lowered)
			fprintf(f, "explicit: %zu node%s, %zu Expand, %zu shape node%s, %zu Broadcast lowered", r->n_explicit,
				r->n_explicit == 1 ? "" : "s", r->n_expand, r->n_target_nodes, r->n_target_nodes == 1 ? "" : "s",
				r->n_lowered);
		if (r->n_reshape || r->n_unsqueeze)
			fprintf(f, " (with %zu Reshape, %zu Unsqueeze)", r->n_reshape, r->n_unsqueeze);
		if (!(r->n_explicit || r->n_lowered))
			fprintf(f, "implicit: removed %zu Expand/Tile and %zu node%s feeding only them", r->n_removed,
				r->n_dead_removed, r->n_dead_removed == 1 ? "" : "s");
		fprintf(f, "; opset %lld unchanged\n", (long long)r->opset_after);
		return;
	}
	fprintf(f, "rewrote %zu node%s (paddle: %zu, legacy: %zu, stray: %zu); inserted %zu Reshape, %zu Unsqueeze",
		r->n_paddle + r->n_legacy + r->n_stray, r->n_paddle + r->n_legacy + r->n_stray == 1 ? "" : "s",
		r->n_paddle, r->n_legacy, r->n_stray, r->n_reshape, r->n_unsqueeze);
	if (r->n_squeeze)
		fprintf(f, ", %zu Squeeze", r->n_squeeze);
	if (r->n_other_inserted)
		fprintf(f, ", %zu other node%s", r->n_other_inserted, r->n_other_inserted == 1 ? "" : "s");
	if (r->opset_after != r->opset_before) {
		if (r->opset_before < 0)
			fprintf(f, "; opset (none) \xe2\x86\x92 %lld", (long long)r->opset_after);
		else
			fprintf(f, "; opset %lld \xe2\x86\x92 %lld", (long long)r->opset_before, (long long)r->opset_after);
		if (r->n_adapted)
			fprintf(f, " (%zu other node%s adapted)", r->n_adapted, r->n_adapted == 1 ? "" : "s");
	} else {
		fprintf(f, "; opset %lld unchanged", (long long)r->opset_after);
	}
	if (r->n_explicit || r->n_lowered)
		fprintf(f, "; explicit: %zu node%s, %zu Expand, %zu shape node%s, %zu Broadcast lowered", r->n_explicit,
			r->n_explicit == 1 ? "" : "s", r->n_expand, r->n_target_nodes, r->n_target_nodes == 1 ? "" : "s",
			r->n_lowered);
	if (r->n_removed)
		fprintf(f, "; implicit: removed %zu Expand/Tile and %zu node%s feeding only them", r->n_removed,
			r->n_dead_removed, r->n_dead_removed == 1 ? "" : "s");
	fputc('\n', f);
}

/* One line per change, located like a diagnostic. */
static void print_rewrite_changes(FILE *f, const char *path, const osh_rewrite_report *r)
{
	for (size_t i = 0; i < r->n_changes; i++) {
		const osh_rewrite_change *c = &r->changes[i];
		fprintf(f, "%s:", path);
		if (c->graph[0])
			fprintf(f, " graph '%s':", c->graph);
		if (c->node_name[0])
			fprintf(f, " node %lld '%s' (%s):", (long long)c->node_index, c->node_name, c->op_type);
		else
			fprintf(f, " node %lld (%s):", (long long)c->node_index, c->op_type);
		fprintf(f, " %s: %s\n", c->kind, c->what);
	}
}

/* Infers, rewrites, and reports. Returns the exit status; *write says whether to
 * write the model. Diagnostics printed are the errors that block (warnings and notes
 * are check's business); `from` is how many diagnostics loading already printed. */
static int rewrite_model(osh_model *m, const char *in, const style *st, const rewrite_args *ra, size_t from,
			 bool *write, timings *tm)
{
	osh_error err = {0};
	osh_rewrite_report rep;
	*write = false;
	if (osh_infer(m, NULL, &err) != OSH_OK) {
		print_error(stderr, st, &err);
		return EXIT_TROUBLE;
	}
	timings_lap(tm, "infer");
	osh_rewrite_options o = ra->opts;
	o.dry_run = ra->dry_run;
	osh_status s = osh_rewrite(m, &o, &rep, &err);
	timings_lap(tm, "rewrite");
	if (s != OSH_OK) {
		print_error(stderr, st, &err);
		return EXIT_TROUBLE;
	}
	/* A changed model's diagnostics were rebuilt from scratch. */
	if (rep.changed && !ra->dry_run)
		from = 0;
	print_diag_span(stderr, st, in, m, from, true);
	if (ra->dry_run) {
		print_rewrite_changes(stdout, in, &rep);
		/* Blocked: a count of zero rewritten nodes would read as "nothing to do". */
		if (rep.n_errors)
			printf("rewrite blocked by %zu error%s; nothing would change\n", rep.n_errors,
			       rep.n_errors == 1 ? "" : "s");
		else
			print_rewrite_summary(stdout, &rep);
		return osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
	}
	if (osh_model_has_errors(m))
		return EXIT_FINDINGS;
	if (rep.changed)
		print_rewrite_summary(stderr, &rep);
	*write = true;
	return EXIT_CLEAN;
}

static bool parse_opset(const char *arg, int64_t *out)
{
	char *end;
	long long v = strtoll(arg, &end, 10);
	if (!*arg || *end || v < 1)
		return false;
	*out = v;
	return true;
}

static int run_with(const write_cmd *cmd, int argc, char **argv, infer_args *ia, timings *tm)
{
	enum { OPT_IN_PLACE = 256, OPT_FSYNC, OPT_COLOR, OPT_REPACK, OPT_INPUT_SHAPE, OPT_ASSUME, OPT_IGNORE_DECLARED,
	       OPT_INPUT_DATA, OPT_INPUT_VALUE, OPT_DRY_RUN, OPT_PADDLE_DOMAIN, OPT_TARGET_OPSET,
	       OPT_EXPLICIT, OPT_IMPLICIT, OPT_BROADCAST_DOMAIN, OPT_TIMINGS, OPT_MEMORY_BUDGET };
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"output", required_argument, NULL, 'o'},
		{"in-place", no_argument, NULL, OPT_IN_PLACE},
		{"fsync", no_argument, NULL, OPT_FSYNC},
		{"color", required_argument, NULL, OPT_COLOR},
		{"input-shape", required_argument, NULL, OPT_INPUT_SHAPE},
		{"assume", required_argument, NULL, OPT_ASSUME},
		{"ignore-declared", no_argument, NULL, OPT_IGNORE_DECLARED},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"paddle-domain", required_argument, NULL, OPT_PADDLE_DOMAIN},
		{"target-opset", required_argument, NULL, OPT_TARGET_OPSET},
		{"explicit-broadcast", no_argument, NULL, OPT_EXPLICIT},
		{"implicit-broadcast", no_argument, NULL, OPT_IMPLICIT},
		{"broadcast-domain", required_argument, NULL, OPT_BROADCAST_DOMAIN},
		{"input-data", required_argument, NULL, OPT_INPUT_DATA},
		{"input-value", required_argument, NULL, OPT_INPUT_VALUE},
		{"timings", no_argument, NULL, OPT_TIMINGS},
		{"memory-budget", required_argument, NULL, OPT_MEMORY_BUDGET},
		/* Undocumented, for tests: serialize even an unchanged model. */
		{"repack", no_argument, NULL, OPT_REPACK},
		{0},
	};
	const char *out = NULL, *color = NULL;
	osh_write_options wo = {0};
	input_values iv = {0};
	bool ignore_declared = false;
	rewrite_args ra = {0};
	bool timed = false;
	uint64_t budget = 0;
	int c;
	while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(cmd->help, stdout);
			return EXIT_CLEAN;
		case 'o':
			out = optarg;
			break;
		case OPT_IN_PLACE:
			wo.in_place = true;
			break;
		case OPT_FSYNC:
			wo.durable = true;
			break;
		case OPT_COLOR:
			color = optarg;
			break;
		case OPT_REPACK:
			wo.force_pack = true;
			break;
		case OPT_TIMINGS:
			timed = true;
			break;
		case OPT_MEMORY_BUDGET:
			if (!parse_bytes(optarg, &budget)) {
				fprintf(stderr, "onnxshape %s: error: bad --memory-budget '%s' (expected bytes, or 512M, 4G...)\n",
					cmd->name, optarg);
				return EXIT_TROUBLE;
			}
			break;
		case OPT_INPUT_DATA:
		case OPT_INPUT_VALUE:
			if (!cmd->infer) {
				fprintf(stderr, "onnxshape %s: error: %s is an option of infer\n", cmd->name, argv[optind - 1]);
				return EXIT_TROUBLE;
			}
			if (c == OPT_INPUT_DATA) {
				iv.data_dir = optarg;
			} else if (!parse_input_value(optarg, &iv)) {
				fprintf(stderr, "onnxshape %s: error: bad --input-value '%s' (expected NAME=FILE.pb)\n",
					cmd->name, optarg);
				return EXIT_TROUBLE;
			}
			break;
		case OPT_INPUT_SHAPE:
		case OPT_ASSUME:
		case OPT_IGNORE_DECLARED:
			if (!cmd->infer) {
				fprintf(stderr, "onnxshape %s: error: %s is an option of infer\n", cmd->name, argv[optind - 1]);
				return EXIT_TROUBLE;
			}
			if (c == OPT_IGNORE_DECLARED) {
				ignore_declared = true;
			} else if (c == OPT_ASSUME ? !infer_args_add_assume(ia, optarg) : !infer_args_add_shape(ia, optarg)) {
				fprintf(stderr, "onnxshape %s: error: bad %s value '%s' (expected %s)\n", cmd->name,
					c == OPT_ASSUME ? "--assume" : "--input-shape", optarg,
					c == OPT_ASSUME ? "SYMBOL=SIZE" : "NAME:D,D,... with sizes, symbols or ?");
				return EXIT_TROUBLE;
			}
			break;
		case OPT_DRY_RUN:
		case OPT_PADDLE_DOMAIN:
		case OPT_TARGET_OPSET:
		case OPT_EXPLICIT:
		case OPT_IMPLICIT:
		case OPT_BROADCAST_DOMAIN:
			if (cmd->infer) {
				fprintf(stderr, "onnxshape %s: error: %s is an option of rewrite\n", cmd->name, argv[optind - 1]);
				return EXIT_TROUBLE;
			}
			if (c == OPT_EXPLICIT || c == OPT_IMPLICIT) {
				ra.opts.explicit_broadcast |= c == OPT_EXPLICIT;
				ra.opts.implicit_broadcast |= c == OPT_IMPLICIT;
				if (ra.opts.explicit_broadcast && ra.opts.implicit_broadcast) {
					fprintf(stderr, "onnxshape %s: error: --explicit-broadcast and --implicit-broadcast exclude each other\n",
						cmd->name);
					return EXIT_TROUBLE;
				}
			} else if (c == OPT_BROADCAST_DOMAIN) {
				ra.opts.broadcast_domain = optarg;
			} else if (c == OPT_DRY_RUN) {
				ra.dry_run = true;
			} else if (c == OPT_PADDLE_DOMAIN) {
				ra.opts.paddle_domain = optarg;
			} else if (!parse_opset(optarg, &ra.opts.target_opset)) {
				fprintf(stderr, "onnxshape %s: error: bad --target-opset value '%s' (expected a positive integer)\n",
					cmd->name, optarg);
				return EXIT_TROUBLE;
			}
			break;
		default:
			fputs(cmd->help, stderr);
			return EXIT_TROUBLE;
		}
	}
	style st = {0};
	if (!parse_color(color, 2, &st)) {
		fprintf(stderr, "onnxshape %s: error: --color must be auto, always or never\n", cmd->name);
		return EXIT_TROUBLE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "onnxshape %s: error: expected exactly one MODEL\n", cmd->name);
		fputs(cmd->help, stderr);
		return EXIT_TROUBLE;
	}
	const char *in = argv[optind];
	if (!out && !wo.in_place && !ra.dry_run) {
		fprintf(stderr, "onnxshape %s: error: say where to write: -o OUT, or --in-place\n", cmd->name);
		return EXIT_TROUBLE;
	}
	if (!out)
		out = in;
	int status;
	osh_error err = {0};
	/* infer writes the weights back as they are: they are copied into the output
	 * while the model is loaded and inferred (emit/write_ahead.c). */
	osh_write_job *job = NULL;
	timings_start(tm, timed);
	tm->path = in;
	if (cmd->infer && osh_write_begin(out, &wo, &job, &err) != OSH_OK) {
		print_error(stderr, &st, &err);
		return EXIT_TROUBLE;
	}
	osh_load_options lo = {.on_layout = job ? osh_write_ahead_layout : NULL, .layout_ctx = job,
			       .memory_budget = budget};
	int guard = input_guard_claim(in, &lo);
	osh_model *m = load_or_report(in, &lo, &st, &status);
	timings_lap(tm, "load");
	if (!m) {
		osh_write_cancel(job);
		input_guard_release(guard);
		return status;
	}
	tm->nodes = osh_model_node_count(m);
	if (status == EXIT_CLEAN && !cmd->infer) {
		bool write;
		status = rewrite_model(m, in, &st, &ra, osh_model_diag_count(m), &write, tm);
		if (!write) {
			if (status == EXIT_FINDINGS && !ra.dry_run)
				fprintf(stderr, "%s: note: the model has errors; nothing written to '%s'\n", in, out);
			osh_model_free(m);
			input_guard_release(guard);
			timings_lap(tm, "free");
			return status;
		}
	}
	if (status == EXIT_CLEAN && cmd->infer && !apply_input_values(m, &iv, &st)) {
		osh_write_cancel(job);
		osh_model_free(m);
		input_guard_release(guard);
		return EXIT_TROUBLE;
	}
	/* infer's diagnostics, printed once the lint has run: inference's and the lint's
	 * (-1: none to print). The lint runs while the model is written (defer_lint): an
	 * error it finds keeps the output from being committed. */
	ptrdiff_t printed = -1;
	if (status == EXIT_CLEAN && cmd->infer) {
		printed = (ptrdiff_t)osh_model_diag_count(m);
		osh_infer_options io = {.ignore_declared = ignore_declared, .defer_lint = true};
		infer_args_apply(ia, &io);
		if (osh_infer(m, &io, &err) != OSH_OK)
			printed = -1, status = EXIT_TROUBLE; /* the error alone */
		else
			status = osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
		/* Nothing will be written: the lint now, for its findings. */
		if (status == EXIT_FINDINGS && osh_lint(m, &err) != OSH_OK)
			status = EXIT_TROUBLE;
		timings_lap(tm, "infer");
		if (status == EXIT_CLEAN && osh_annotate(m, &err) != OSH_OK)
			status = EXIT_TROUBLE;
		timings_lap(tm, "annotate");
	}
	if (status == EXIT_CLEAN &&
	    (job ? osh_write_finish(job, m, &err) : osh_model_write(m, out, &wo, &err)) != OSH_OK) {
		job = NULL; /* freed by osh_write_finish */
		status = osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_TROUBLE;
	}
	/* infer's lint ran on another thread meanwhile (defer_lint). */
	timings_lap(tm, "write");
	if (printed >= 0)
		print_diag_span(stderr, &st, in, m, (size_t)printed, false);
	if (status == EXIT_TROUBLE)
		print_error(stderr, &st, &err);
	if (status == EXIT_FINDINGS)
		fprintf(stderr, "%s: note: the model has errors; nothing written to '%s'\n", in, out);
	if (status != EXIT_CLEAN)
		osh_write_cancel(job);
	model_done(m, true); /* run_with's caller returns to main, which exits */
	input_guard_release(guard);
	timings_lap(tm, "free");
	return status;
}

/* run_with, with the arrays of the inference options freed whatever it returns, and
 * --timings printed. */
static int run(const write_cmd *cmd, int argc, char **argv)
{
	infer_args ia = {0};
	timings tm = {0};
	int status = run_with(cmd, argc, argv, &ia, &tm);
	infer_args_free(&ia);
	timings_print(stderr, &tm);
	return status;
}

int cmd_infer(int argc, char **argv) { return run(&infer_cmd, argc, argv); }
int cmd_rewrite(int argc, char **argv) { return run(&rewrite_cmd, argc, argv); }
