/* cmd_write.c: the subcommands that load a model, run passes and write it back:
 * `infer` and `rewrite`. They share option parsing and the write discipline: an
 * output path (-o) or an explicit --in-place, nothing written when the model is
 * malformed or has errors, and the write itself atomic (the library's job).
 *
 * MODEL may be a directory, walked as check walks one: each model is done as if it
 * were named alone, written over itself (--in-place) or to the same relative path
 * under -o DIR (the tree mirrored, folders made as needed); a model with errors is
 * not written and the others still are, the exit status the worst of them.
 */
#define _GNU_SOURCE /* isatty, asprintf */
#include "check.h"

#include "api/devices.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct write_cmd {
	const char *name;
	const char *help;
	bool infer; /* run inference and write its results into the model */
} write_cmd;

static const write_cmd infer_cmd = {
	"infer",
	"usage: onnxshape infer [options] MODEL -o OUT\n"
	"       onnxshape infer [options] DIR -o OUTDIR | --in-place\n"
	"\n"
	"Infer the type and shape of every value and write them into the model's\n"
	"value_info (subgraphs too), filling in graph outputs' shapes. Unknown sizes\n"
	"get fresh dim_param names. Nothing is written when the model has errors.\n"
	"MODEL '-' reads standard input; OUT '-' writes standard output. A directory\n"
	"is searched for *.onnx as check searches it, each model written to the same\n"
	"relative path under OUTDIR (made as needed), or over itself with --in-place.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT          where to write the model (required unless --in-place)\n"
	"  -q, --quiet               print only errors (no notes, warnings or summaries)\n"
	"      --in-place            write over MODEL itself (atomically)\n"
	"      --fsync               have the output on disk before exiting (fsync the\n"
	"                            file and its directory): it survives a power cut\n"
	"      --input-shape NAME:D,D,...\n"
	"                            override a graph input's shape, and declare the\n"
	"                            input so in OUT; D is a size, a symbol, or ?\n"
	"                            (repeatable)\n"
	"      --assume SYMBOL=VALUE bind a symbolic dimension everywhere (repeatable)\n"
	"      --ignore-declared     ignore declared shapes of outputs and value_info:\n"
	"                            infer everything from the graph inputs (those\n"
	"                            downstream of an --input-shape always are)\n"
	"      --constant-initializers\n"
	"                            take initializers that are also graph inputs (IR 3\n"
	"                            lists them all so) as constants\n"
	"      --input-data DIR      treat the inputs in DIR/input_N.pb (TensorProto files,\n"
	"                            the ONNX test-data layout) as constants\n"
	"      --input-value NAME=FILE.pb\n"
	"                            treat one input as a constant (repeatable)\n"
	"      --error CODE          report CODE as an error (repeatable)\n"
	"      --warn CODE           report CODE as a warning (repeatable)\n"
	"      --ignore CODE         do not report CODE (repeatable)\n"
	"      --color=WHEN          colour diagnostics: auto (default), always, never\n"
	"      --timings             print how long each stage took (load, infer,\n"
	"                            annotate, write, free) to stderr\n"
	"      --dump-after STAGE    debugging: print the IR to stderr after STAGE\n"
	"                            (--dump-after=help lists the stages)\n"
	"      --memory-budget SIZE  most memory the model may take (512M, 4G...;\n"
	"                            default: from the file's size)\n"
	"  -h, --help                show this help\n",
	true,
};

static const write_cmd rewrite_cmd = {
	"rewrite",
	"usage: onnxshape rewrite [options] MODEL -o OUT\n"
	"       onnxshape rewrite [options] DIR -o OUTDIR | --in-place | --dry-run\n"
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
	"with nothing to rewrite is written back byte-identical. MODEL '-' reads\n"
	"standard input; OUT '-' writes standard output. A directory is searched for\n"
	"*.onnx as check searches it, each model written to the same relative path\n"
	"under OUTDIR (made as needed), or over itself with --in-place.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT   where to write the model (required unless --in-place/--dry-run)\n"
	"  -q, --quiet        print only errors: no notes, summaries or --dry-run listing\n"
	"      --in-place     write over MODEL itself (atomically)\n"
	"      --fsync        have the output on disk before exiting (fsync the file and\n"
	"                     its directory): it survives a power cut\n"
	"      --dry-run      list what would change (stdout), write nothing\n"
	"      --paddle-domain D\n"
	"                     rewrite Paddle operators of domain D only\n"
	"      --target-opset N\n"
	"                     convert to ai.onnx opset N, up or down (1 to 26; default:\n"
	"                     the lowest the rewrite needs, or the model's own); a node\n"
	"                     with no exact adapter is an error naming it\n"
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
	"      --drop-initializer-inputs\n"
	"                     remove the initializers from the graph inputs (IR 3 lists\n"
	"                     them all there, which lets a caller replace them): they\n"
	"                     become constants; the IR version is raised to 4 if lower\n"
	"      --fold-shapes  last, fold what inference knows: values it knows exactly\n"
	"                     (shapes, sizes, indices) become initializers, Reshape,\n"
	"                     Expand and Slice inputs over symbols exact constants (0,\n"
	"                     -1, 1, to the end), Constant nodes initializers; Identity\n"
	"                     and no-op Expand/Tile/Slice/Reshape/Cast/Dropout go, with\n"
	"                     what nothing reads; inputs, outputs and their dynamic dims\n"
	"                     stay (with --input-shape the model becomes static)\n"
	"      --broadcast-domain D\n"
	"                     lower Broadcast-3 nodes (OpenVINO's Broadcast, mode numpy,\n"
	"                     explicit or bidirectional) of domain D only (default: any\n"
	"                     non-ONNX domain); they are always lowered to Expand\n"
	"      --input-shape NAME:D,D,...\n"
	"                     override a graph input's shape, and declare the input\n"
	"                     so in OUT; D is a size, a symbol, or ? (repeatable)\n"
	"      --assume SYMBOL=SIZE\n"
	"                     bind a symbolic dimension everywhere (repeatable)\n"
	"      --error CODE, --warn CODE, --ignore CODE\n"
	"                     change a code's severity, or drop it (repeatable)\n"
	"      --color=WHEN   colour diagnostics: auto (default), always, never\n"
	"      --timings      print how long each stage took (load, infer, rewrite,\n"
	"                     write, free) to stderr\n"
	"      --dump-after STAGE\n"
	"                     debugging: print the IR to stderr after each run of\n"
	"                     STAGE (--dump-after=help lists the stages)\n"
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

/* "fold-shapes: N nodes -> M (values: a, Constant: b, Identity: c, no-ops: d,
 * shared: s, absorbed: t, dead: e; constant forms: f; initializers +g -h)". */
static void print_fold_summary(FILE *f, const osh_rewrite_report *r)
{
	fprintf(f, "fold-shapes: %zu nodes \xe2\x86\x92 %zu (values: %zu, Constant: %zu, Identity: %zu, no-ops: %zu, shared: %zu, absorbed: %zu, dead: %zu; "
		   "constant forms: %zu; initializers +%zu -%zu)",
		r->fold_nodes_before, r->fold_nodes_after, r->n_fold_values, r->n_fold_constants, r->n_fold_identity,
		r->n_fold_noops, r->n_fold_shared, r->n_fold_absorbed, r->n_fold_dead, r->n_fold_forms, r->n_fold_inits, r->n_fold_inits_dropped);
}

/* ": Resize 2, Split 1": the adapted nodes counted per operator, in the order of their
 * first change line. */
static void print_adapted_by_op(FILE *f, const osh_rewrite_report *r)
{
	/* Few operators, many nodes: a short list searched per line. */
	enum { MAX_OPS = 64 };
	const char *ops[MAX_OPS];
	size_t counts[MAX_OPS], nops = 0, other = 0;
	for (size_t i = 0; i < r->n_changes; i++) {
		const osh_rewrite_change *c = &r->changes[i];
		if (strcmp(c->kind, "opset"))
			continue;
		size_t k = 0;
		while (k < nops && strcmp(ops[k], c->op_type))
			k++;
		if (k == nops && nops == MAX_OPS) {
			other++;
			continue;
		}
		if (k == nops) {
			ops[nops] = c->op_type;
			counts[nops++] = 0;
		}
		counts[k]++;
	}
	for (size_t k = 0; k < nops; k++) {
		fputs(k ? ", " : ": ", f);
		put_text(f, ops[k]);
		fprintf(f, " %zu", counts[k]);
	}
	if (other)
		fprintf(f, ", other %zu", other);
}

/* "rewrote K nodes (paddle: a, legacy: b, stray: c); inserted R Reshape, U Unsqueeze;
 * opset 6 → 7", with Squeeze, other inserted nodes and adapted nodes when there are. */
static void print_rewrite_summary_axis(FILE *f, const osh_rewrite_report *r);

/* The axis and broadcast summary, then what --drop-initializer-inputs did, alone
 * on its line when it is all that changed. */
static void print_rewrite_summary(FILE *f, const osh_rewrite_report *r)
{
	bool others = r->n_paddle + r->n_legacy + r->n_stray + r->n_adapted + r->n_explicit + r->n_lowered +
			      r->n_removed ||
		      r->opset_after != r->opset_before || r->fold_nodes_before != r->fold_nodes_after ||
		      r->n_fold_forms || r->n_fold_inits_dropped;
	if (others || !r->n_initializer_inputs_dropped)
		print_rewrite_summary_axis(f, r);
	if (!r->n_initializer_inputs_dropped)
		return;
	fprintf(f, "dropped %zu initializer%s from the graph inputs", r->n_initializer_inputs_dropped,
		r->n_initializer_inputs_dropped == 1 ? "" : "s");
	if (r->ir_version_after != r->ir_version_before)
		fprintf(f, "; IR version %lld \xe2\x86\x92 %lld (initializers need not be inputs from IR 4)",
			(long long)r->ir_version_before, (long long)r->ir_version_after);
	fputc('\n', f);
}

static void print_rewrite_summary_axis(FILE *f, const osh_rewrite_report *r)
{
	/* Only the explicit/implicit stages changed something: say just that. */
	bool axis = r->n_paddle + r->n_legacy + r->n_stray + r->n_adapted || r->opset_after != r->opset_before;
	bool fold = r->fold_nodes_before != r->fold_nodes_after || r->n_fold_forms || r->n_fold_inits_dropped;
	if (!axis && fold && !(r->n_explicit || r->n_lowered || r->n_removed)) {
		print_fold_summary(f, r);
		fprintf(f, "; opset %lld unchanged\n", (long long)r->opset_after);
		return;
	}
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
		if (fold) {
			fputs("; ", f);
			print_fold_summary(f, r);
		}
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
		if (r->n_adapted) {
			fprintf(f, " (%zu other node%s adapted", r->n_adapted, r->n_adapted == 1 ? "" : "s");
			print_adapted_by_op(f, r);
			fputc(')', f);
		}
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
	if (fold) {
		fputs("; ", f);
		print_fold_summary(f, r);
	}
	fputc('\n', f);
}

/* One line per change, located like a diagnostic. */
static void print_rewrite_changes(FILE *f, const char *path, const osh_rewrite_report *r)
{
	for (size_t i = 0; i < r->n_changes; i++) {
		const osh_rewrite_change *c = &r->changes[i];
		put_text(f, path);
		fputc(':', f);
		if (c->graph[0]) {
			fputs(" graph '", f);
			put_text(f, c->graph);
			fputs("':", f);
		}
		fprintf(f, " node %lld ", (long long)c->node_index);
		if (c->node_name[0]) {
			fputc('\'', f);
			put_text(f, c->node_name);
			fputs("' ", f);
		}
		fputc('(', f);
		put_text(f, c->op_type);
		fprintf(f, "): %s: ", c->kind);
		put_text(f, c->what);
		fputc('\n', f);
	}
}
/* What infer and rewrite were asked, beyond the command itself. */
typedef struct write_args {
	const char *in, *out;
	bool to_stdout;      /* out is standard output (stdio_model.c) */
	osh_write_options wo;
	input_values iv;
	bool ignore_declared;
	rewrite_args ra;
	bool timed;
	uint64_t budget;
	style st;
	infer_args *ia;
	severities sev;
	const char *dump_after; /* --dump-after, or NULL */
	bool quiet;             /* -q */
	bool dir;               /* MODEL is a directory (out: the tree to mirror it in, or NULL) */
	bool walked;            /* this model was met in the walk (input_shapes_for) */
} write_args;

/* The codes' severities as asked (--error/--warn/--ignore). False (after printing
 * why) when the library refuses them. */
static bool override(osh_model *m, const write_args *wa)
{
	osh_error err = {0};
	if (!wa->sev.n || osh_model_override_severities(m, wa->sev.v, wa->sev.n, &err) == OSH_OK)
		return true;
	print_error(stderr, &wa->st, &err);
	return false;
}

/* Infers, rewrites, and reports. Returns the exit status; *write says whether to
 * write the model. Diagnostics printed are the errors that block (warnings and notes
 * are check's business); loading found none, or this would not run. */
static int rewrite_model(osh_model *m, const write_args *wa, bool *write, timings *tm)
{
	const char *in = shown_path(wa->in);
	const style *st = &wa->st;
	const rewrite_args *ra = &wa->ra;
	osh_error err = {0};
	osh_rewrite_report rep;
	*write = false;
	osh_infer_options io = {.version = OSH_INFER_OPTIONS_VERSION, .dump_after = wa->dump_after, .dump_to = stderr};
	infer_args_apply(wa->ia, &io);
	osh_input_shape *kept = NULL;
	if (wa->walked && !input_shapes_for(m, in, &io, &kept)) {
		fprintf(stderr, "%s: error: out of memory\n", in);
		return EXIT_TROUBLE;
	}
	osh_status inferred = osh_infer(m, &io, &err);
	free(kept);
	if (inferred != OSH_OK) {
		print_error(stderr, st, &err);
		return EXIT_TROUBLE;
	}
	if (!override(m, wa))
		return EXIT_TROUBLE;
	timings_lap(tm, "infer");
	osh_rewrite_options o = ra->opts;
	o.dry_run = ra->dry_run;
	o.dump_after = wa->dump_after;
	o.dump_to = stderr;
	osh_status s = osh_rewrite(m, &o, &rep, &err);
	timings_lap(tm, "rewrite");
	if (s != OSH_OK) {
		print_error(stderr, st, &err);
		return EXIT_TROUBLE;
	}
	/* A changed model's diagnostics were rebuilt from scratch. */
	if (rep.changed && !ra->dry_run && !override(m, wa))
		return EXIT_TROUBLE;
	print_diag_span(stderr, st, in, m, 0, true);
	if (ra->dry_run && wa->quiet)
		return osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
	if (ra->dry_run) {
		print_rewrite_changes(stdout, in, &rep);
		if (wa->walked) { /* which of the walk's models the summary is of */
			put_text(stdout, in);
			fputs(": ", stdout);
		}
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
	if (rep.changed && !wa->quiet)
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

/* Reads the options into wa. Returns -1 to go on, else the exit status. */
static int parse_args(const write_cmd *cmd, int argc, char **argv, write_args *wa)
{
	enum { OPT_IN_PLACE = 256, OPT_FSYNC, OPT_COLOR, OPT_REPACK, OPT_INPUT_SHAPE, OPT_ASSUME, OPT_IGNORE_DECLARED,
	       OPT_INPUT_DATA, OPT_INPUT_VALUE, OPT_DRY_RUN, OPT_PADDLE_DOMAIN, OPT_TARGET_OPSET,
	       OPT_EXPLICIT, OPT_IMPLICIT, OPT_BROADCAST_DOMAIN, OPT_TIMINGS, OPT_MEMORY_BUDGET,
	       OPT_ERROR, OPT_WARN, OPT_IGNORE, OPT_DUMP_AFTER, OPT_CONSTANT_INITIALIZERS, OPT_DROP_INIT_INPUTS,
	       OPT_FOLD_SHAPES };
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
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
		{"fold-shapes", no_argument, NULL, OPT_FOLD_SHAPES},
		{"input-data", required_argument, NULL, OPT_INPUT_DATA},
		{"input-value", required_argument, NULL, OPT_INPUT_VALUE},
		{"timings", no_argument, NULL, OPT_TIMINGS},
		{"memory-budget", required_argument, NULL, OPT_MEMORY_BUDGET},
		{"error", required_argument, NULL, OPT_ERROR},
		{"warn", required_argument, NULL, OPT_WARN},
		{"ignore", required_argument, NULL, OPT_IGNORE},
		{"dump-after", required_argument, NULL, OPT_DUMP_AFTER},
		{"constant-initializers", no_argument, NULL, OPT_CONSTANT_INITIALIZERS},
		{"drop-initializer-inputs", no_argument, NULL, OPT_DROP_INIT_INPUTS},
		/* Undocumented, for tests: serialize even an unchanged model. */
		{"repack", no_argument, NULL, OPT_REPACK},
		{0},
	};
	const char *color = NULL, *name = cmd->name;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:q", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(cmd->help, stdout);
			return EXIT_CLEAN;
		case 'o': wa->out = optarg; break;
		case 'q': wa->quiet = wa->st.quiet = true; break;
		case OPT_IN_PLACE: wa->wo.in_place = true; break;
		case OPT_FSYNC: wa->wo.durable = true; break;
		case OPT_COLOR: color = optarg; break;
		case OPT_REPACK: wa->wo.force_pack = true; break;
		case OPT_TIMINGS: wa->timed = true; break;
		case OPT_DUMP_AFTER:
			if (!dump_after_valid(name, optarg))
				return EXIT_TROUBLE;
			wa->dump_after = optarg;
			break;
		case OPT_ERROR:
		case OPT_WARN:
		case OPT_IGNORE:
			if (!severities_add(&wa->sev, name, optarg, c == OPT_IGNORE,
					    c == OPT_ERROR ? OSH_ERROR : c == OPT_WARN ? OSH_WARNING : OSH_NOTE))
				return EXIT_TROUBLE;
			break;
		case OPT_MEMORY_BUDGET:
			if (!parse_bytes(optarg, &wa->budget))
				return usage_error(name, "bad --memory-budget '%s' (expected bytes, or 512M, 4G...)", optarg);
			break;
		case OPT_INPUT_DATA:
		case OPT_INPUT_VALUE:
		case OPT_IGNORE_DECLARED:
		case OPT_CONSTANT_INITIALIZERS:
			if (!cmd->infer)
				return usage_error(name, "%s is an option of infer", argv[optind - 1]);
			if (c == OPT_CONSTANT_INITIALIZERS)
				wa->ia->constant_initializers = true;
			else if (c == OPT_IGNORE_DECLARED)
				wa->ignore_declared = true;
			else if (c == OPT_INPUT_DATA)
				wa->iv.data_dir = optarg;
			else if (!parse_input_value(optarg, &wa->iv))
				return usage_error(name, "bad --input-value '%s' (expected NAME=FILE.pb)", optarg);
			break;
		case OPT_INPUT_SHAPE:
		case OPT_ASSUME:
			if (c == OPT_ASSUME ? !infer_args_add_assume(wa->ia, optarg) : !infer_args_add_shape(wa->ia, optarg))
				return usage_error(name, "bad %s value '%s' (expected %s)",
						   c == OPT_ASSUME ? "--assume" : "--input-shape", optarg,
						   c == OPT_ASSUME ? "SYMBOL=SIZE" : "NAME:D,D,... with sizes, symbols or ?");
			break;
		case OPT_DRY_RUN:
		case OPT_PADDLE_DOMAIN:
		case OPT_TARGET_OPSET:
		case OPT_EXPLICIT:
		case OPT_IMPLICIT:
		case OPT_BROADCAST_DOMAIN:
		case OPT_DROP_INIT_INPUTS:
		case OPT_FOLD_SHAPES:
			if (cmd->infer)
				return usage_error(name, "%s is an option of rewrite", argv[optind - 1]);
			if (c == OPT_DROP_INIT_INPUTS) {
				wa->ra.opts.drop_initializer_inputs = true;
			} else if (c == OPT_EXPLICIT || c == OPT_IMPLICIT) {
				wa->ra.opts.explicit_broadcast |= c == OPT_EXPLICIT;
				wa->ra.opts.implicit_broadcast |= c == OPT_IMPLICIT;
				if (wa->ra.opts.explicit_broadcast && wa->ra.opts.implicit_broadcast)
					return usage_error(name, "--explicit-broadcast and --implicit-broadcast exclude each other");
			} else if (c == OPT_FOLD_SHAPES) {
				wa->ra.opts.fold_shapes = true;
			} else if (c == OPT_BROADCAST_DOMAIN) {
				wa->ra.opts.broadcast_domain = optarg;
			} else if (c == OPT_DRY_RUN) {
				wa->ra.dry_run = true;
			} else if (c == OPT_PADDLE_DOMAIN) {
				wa->ra.opts.paddle_domain = optarg;
			} else if (!parse_opset(optarg, &wa->ra.opts.target_opset)) {
				return usage_error(name, "bad --target-opset value '%s' (expected a positive integer)", optarg);
			}
			break;
		default:
			return bad_option(name, c, argv, longs);
		}
	}
	if (!parse_color(color, 2, &wa->st))
		return usage_error(name, "--color must be auto, always or never");
	if (optind != argc - 1)
		return usage_error(name, "expected exactly one MODEL ('-' reads standard input)");
	wa->in = argv[optind];
	struct stat sb, so;
	wa->dir = !is_stdin_path(wa->in) && stat(wa->in, &sb) == 0 && S_ISDIR(sb.st_mode);
	if (wa->dir) {
		if (!wa->out && !wa->wo.in_place && !wa->ra.dry_run)
			return usage_error(name, "%s is a directory: say where to write its models: -o OUTDIR (the tree "
						 "mirrored there), or --in-place", wa->in);
		if (wa->out && wa->wo.in_place)
			return usage_error(name, "-o and --in-place exclude each other");
		if (wa->out && is_stdout_path(wa->out))
			return usage_error(name, "%s is a directory: its models cannot all go to standard output; "
						 "give -o OUTDIR", wa->in);
		if (wa->out && stat(wa->out, &so) == 0 && !S_ISDIR(so.st_mode))
			return usage_error(name, "%s is a directory: -o %s must be a directory too", wa->in, wa->out);
		if (wa->out && stat(wa->out, &so) == 0 && so.st_dev == sb.st_dev && so.st_ino == sb.st_ino)
			return usage_error(name, "-o %s is the directory itself: use --in-place", wa->out);
		return -1;
	}
	if (!wa->out && !wa->wo.in_place && !wa->ra.dry_run)
		return usage_error(name, "say where to write: -o OUT, or --in-place (-o - writes standard output)");
	if (wa->wo.in_place && is_stdin_path(wa->in))
		return usage_error(name, "--in-place needs a file: the model comes from standard input");
	if (!wa->out)
		wa->out = wa->in;
	wa->to_stdout = !wa->ra.dry_run && is_stdout_path(wa->out);
	if (wa->to_stdout && isatty(1))
		return usage_error(name, "standard output is a terminal: a model is binary; redirect it, or give -o FILE");
	return -1;
}

/* Each --input-shape's input as the file declares it, "FLOAT (batch, seq, 8)", to
 * say what changed once it is written (before inference: the override is what the
 * model declares afterwards). NULL entries where the model has no such input. */
static char **declared_inputs(osh_model *m, const infer_args *ia)
{
	char **was = ia->nshapes ? calloc(ia->nshapes, sizeof *was) : NULL;
	const osh_summary *s = was ? osh_model_summary(m) : NULL;
	for (size_t i = 0; s && i < ia->nshapes; i++)
		for (size_t k = 0; k < s->n_inputs; k++)
			if (!strcmp(s->inputs[k].name, ia->shapes[i].name) && (was[i] = malloc(256)))
				format_type_shape(was[i], 256, &s->inputs[k].type);
	return was;
}

/* "MODEL: note: graph input 'X' rewritten: FLOAT (batch, seq, 8) → FLOAT (1, 16, 8)",
 * for each --input-shape when the model was written (`say`); frees was. */
static void report_inputs(osh_model *m, const write_args *wa, char **was, bool say)
{
	for (size_t i = 0; was && i < wa->ia->nshapes; i++) {
		osh_type t;
		char now[256];
		if (say && was[i] && osh_value_type(m, wa->ia->shapes[i].name, &t)) {
			format_type_shape(now, sizeof now, &t);
			char *name = text_dup(wa->ia->shapes[i].name), *before = text_dup(was[i]), *after = text_dup(now);
			if (name && before && after)
				fprintf(stderr,
					"%s: note: graph input '%s' rewritten: %s \xe2\x86\x92 %s; the shapes declared "
					"downstream of it are inferred anew\n",
					shown_path(wa->in), name, before, after);
			free(name), free(before), free(after);
		}
		free(was[i]);
	}
	free(was);
}

/* Infers (infer) what the model is written with. Returns the exit status; *printed
 * how many diagnostics were there before (-1: none to print). The lint runs while
 * the model is written (osh_infer_lint_later) unless severities are to change or the output
 * is a stream: an error it finds keeps the output from being committed. */
static int infer_model(osh_model *m, const write_args *wa, ptrdiff_t *printed, timings *tm)
{
	osh_error err = {0};
	int status;
	*printed = (ptrdiff_t)osh_model_diag_count(m);
	bool defer = !wa->sev.n && !wa->to_stdout;
	osh_infer_options io = {.version = OSH_INFER_OPTIONS_VERSION, .ignore_declared = wa->ignore_declared,
				.dump_after = wa->dump_after, .dump_to = stderr};
	infer_args_apply(wa->ia, &io);
	osh_input_shape *kept = NULL;
	if (wa->walked && !input_shapes_for(m, shown_path(wa->in), &io, &kept)) {
		*printed = -1;
		fprintf(stderr, "%s: error: out of memory\n", shown_path(wa->in));
		return EXIT_TROUBLE;
	}
	osh_status inferred = defer ? osh_infer_lint_later(m, &io, &err) : osh_infer(m, &io, &err);
	free(kept);
	if (inferred != OSH_OK) {
		*printed = -1; /* the error alone */
		print_error(stderr, &wa->st, &err);
		return EXIT_TROUBLE;
	}
	if (wa->sev.n) {
		if (!override(m, wa))
			return EXIT_TROUBLE;
		*printed = 0; /* the overrides may have dropped some of the loader's */
	}
	status = osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
	/* Nothing will be written: the lint now, for its findings. */
	if (status == EXIT_FINDINGS && osh_lint(m, &err) != OSH_OK) {
		print_error(stderr, &wa->st, &err);
		return EXIT_TROUBLE;
	}
	timings_lap(tm, "infer");
	if (status == EXIT_CLEAN && osh_annotate(m, &err) != OSH_OK) {
		print_error(stderr, &wa->st, &err);
		status = EXIT_TROUBLE;
	}
	timings_lap(tm, "annotate");
	return status;
}

/* One model: wa->in to wa->out. Returns the exit status. */
static int run_one(const write_cmd *cmd, write_args *wa, timings *tm)
{
	int status;
	const char *in = shown_path(wa->in), *out = wa->to_stdout ? "<stdout>" : wa->out;
	osh_error err = {0};
	timings_start(tm, wa->timed);
	tm->path = in;
	/* The weights are written back as they are: they are copied into the output
	 * while the model is loaded and inferred (osh_load_options.write_to), and a
	 * rewrite's edit has them copied again where it moved them. A stream has no
	 * place to copy them ahead to, and a dry run writes nothing. */
	const char *ahead = !wa->to_stdout && !wa->ra.dry_run ? wa->out : NULL;
	cli_load lo = {.lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = ahead, .memory_budget = wa->budget}};
	int guard = input_guard_claim(in, &lo);
	osh_model *m = load_or_report(wa->in, &lo, &wa->st, &status);
	timings_lap(tm, "load");
	if (!m) {
		input_guard_release(guard);
		return status;
	}
	tm->nodes = osh_model_node_count(m);
	char **was = status == EXIT_CLEAN && !wa->quiet ? declared_inputs(m, wa->ia) : NULL;
	if (status == EXIT_CLEAN && !cmd->infer) {
		bool write;
		status = rewrite_model(m, wa, &write, tm);
		if (!write) {
			if (status == EXIT_FINDINGS && !wa->ra.dry_run && !wa->quiet)
				fprintf(stderr, "%s: note: the model has errors; nothing written to '%s'\n", in, out);
			report_inputs(m, wa, was, false);
			osh_model_free(m);
			input_guard_release(guard);
			timings_lap(tm, "free");
			return status;
		}
	}
	if (status == EXIT_CLEAN && cmd->infer && !apply_input_values(m, &wa->iv, &wa->st)) {
		report_inputs(m, wa, was, false);
		osh_model_free(m);
		input_guard_release(guard);
		return EXIT_TROUBLE;
	}
	/* infer's diagnostics, printed once the lint has run: inference's and the lint's
	 * (-1: none to print). */
	ptrdiff_t printed = -1;
	if (status == EXIT_CLEAN && cmd->infer)
		status = infer_model(m, wa, &printed, tm);
	bool write_failed = false;
	if (status == EXIT_CLEAN && wa->to_stdout) {
		status = write_stdout(m, &wa->st) ? EXIT_CLEAN : EXIT_TROUBLE;
	} else if (status == EXIT_CLEAN) {
		osh_status s = osh_model_write(m, wa->out, &wa->wo, &err);
		write_failed = s != OSH_OK;
		if (write_failed)
			status = s == OSH_ERR_FINDINGS ? EXIT_FINDINGS : EXIT_TROUBLE;
	}
	/* infer's lint ran on another thread meanwhile (osh_infer_lint_later). */
	timings_lap(tm, "write");
	if (printed >= 0)
		print_diag_span(stderr, &wa->st, in, m, (size_t)printed, wa->quiet);
	if (write_failed && status == EXIT_TROUBLE)
		print_error(stderr, &wa->st, &err);
	if (status == EXIT_FINDINGS && !wa->quiet)
		fprintf(stderr, "%s: note: the model has errors; nothing written to '%s'\n", in, out);
	report_inputs(m, wa, was, status == EXIT_CLEAN);
	/* run_with's caller returns to main, which exits; but a write begun ahead and
	 * not made has its temporary file removed by the free. */
	model_done(m, !wa->dir && (!ahead || status == EXIT_CLEAN));
	input_guard_release(guard);
	timings_lap(tm, "free");
	return status;
}

/* Makes the folders above path (the mirrored tree under -o OUTDIR). False, after
 * saying why, when one cannot be made. */
static bool make_parents(const char *name, char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		bool ok = mkdir(path, 0777) == 0 || errno == EEXIST;
		int e = errno;
		*p = '/';
		if (!ok) {
			*p = '\0';
			fprintf(stderr, "onnxshape %s: error: cannot make the directory '%s': %s\n", name, path, strerror(e));
			*p = '/';
			return false;
		}
	}
	return true;
}

/* Each model under the directory wa->in, as run_one does one; the worst status. */
static int run_dir(const write_cmd *cmd, write_args *wa)
{
	const char *root = wa->in, *out_root = wa->out;
	path_list files = {0};
	if (!collect_models(&(walk_opts){0}, (char *const *)&root, 1, &files)) {
		path_list_free(&files);
		fprintf(stderr, "onnxshape %s: error: out of memory\n", cmd->name);
		return EXIT_TROUBLE;
	}
	int worst = EXIT_CLEAN;
	progress pg;
	progress_start(&pg, files.n, wa->quiet);
	for (size_t i = 0; i < files.n; i++) {
		int status = EXIT_TROUBLE;
		char *out = NULL;
		progress_clear(&pg);
		if (files.err[i]) {
			fprintf(stderr, "onnxshape %s: error: %s: %s\n", cmd->name, files.v[i],
				files.err[i] == WALK_EMPTY ? "no model (*.onnx) found under this directory"
							   : strerror(files.err[i]));
		} else if (out_root && asprintf(&out, "%s/%s", out_root, files.v[i] + files.rel[i]) < 0) {
			out = NULL;
			fprintf(stderr, "onnxshape %s: error: out of memory\n", cmd->name);
		} else if (!out || make_parents(cmd->name, out)) {
			timings tm = {0};
			wa->in = files.v[i];
			wa->out = out ? out : files.v[i];
			wa->walked = true;
			status = run_one(cmd, wa, &tm);
			timings_print(stderr, &tm);
		}
		free(out);
		worst = status > worst ? status : worst;
		progress_step(&pg, files.v[i]);
	}
	progress_clear(&pg);
	path_list_free(&files);
	wa->in = root;
	wa->out = out_root;
	return worst;
}

static int run_with(const write_cmd *cmd, int argc, char **argv, write_args *wa, timings *tm)
{
	int status = parse_args(cmd, argc, argv, wa);
	if (status >= 0)
		return status;
	return wa->dir ? run_dir(cmd, wa) : run_one(cmd, wa, tm);
}

/* run_with, with the arrays of the options freed whatever it returns, and
 * --timings printed. */
static int run(const write_cmd *cmd, int argc, char **argv)
{
	infer_args ia = {0};
	write_args wa = {.ia = &ia, .wo = OSH_WRITE_OPTIONS_INIT, .ra.opts = OSH_REWRITE_OPTIONS_INIT};
	timings tm = {0};
	int status = run_with(cmd, argc, argv, &wa, &tm);
	infer_args_free(&ia);
	severities_free(&wa.sev);
	timings_print(stderr, &tm);
	return status;
}

int cmd_infer(int argc, char **argv) { return run(&infer_cmd, argc, argv); }
int cmd_rewrite(int argc, char **argv) { return run(&rewrite_cmd, argc, argv); }
