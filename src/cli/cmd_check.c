/* cmd_check.c: `onnxshape check [options] PATH...`: validate models, lint them,
 * report, and gate CI with the exit status.
 *
 * Files (directories are searched recursively for *.onnx, in sorted order) are
 * checked by -j worker threads, one model per thread at a time: the library has no
 * global state, so models never meet. Each worker renders its file's part of the
 * report into memory (check.h); the main thread prints the parts in input order as
 * they complete, so the output is the same whatever -j is. Files that cannot be read
 * are reported and the others still checked; the exit status is the worst outcome:
 * 2 when a file could not be read or checked (or a usage error), else 1 when a model
 * has errors (or warnings, with --werror), else 0.
 */
#define _GNU_SOURCE
#include "check.h"

#include "api/devices.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
	"usage: onnxshape check [options] PATH...\n"
	"\n"
	"Load and validate each model (directories are searched recursively for *.onnx,\n"
	"any case, links to files followed, hidden folders skipped; '-' reads standard\n"
	"input), infer the shape of every value, lint broadcasting, and report what is\n"
	"wrong, one finding per line, then a summary.\n"
	"\n"
	"options:\n"
	"  -j, --jobs N              check N files in parallel (default: the number of\n"
	"                            cores); results are reported in input order\n"
	"      --format FORMAT       text (default), json, sarif (SARIF 2.1.0) or html\n"
	"                            (one self-contained page: each finding with a\n"
	"                            drawing of the graph around it)\n"
	"  -o, --output FILE         write the report to FILE (atomically: replaced once\n"
	"                            whole; left as it was on a usage or write error)\n"
	"  -q, --quiet               text: print only errors (findings of severity error\n"
	"                            and files that could not be checked), no summary;\n"
	"                            no progress line\n"
	"      --color=WHEN          colour text: auto (default; not with NO_COLOR set\n"
	"                            or TERM=dumb), always, never\n"
	"      --error CODE          report CODE as an error (repeatable)\n"
	"      --warn CODE           report CODE as a warning (repeatable)\n"
	"      --ignore CODE         do not report CODE (repeatable)\n"
	"      --werror              warnings fail the check too (exit status 1)\n"
	"      --static              every value whose shape is not fully known is an\n"
	"                            error (dynamic-shape): for deployment targets\n"
	"      --constant-initializers\n"
	"                            take initializers that are also graph inputs (IR 3\n"
	"                            lists them all so) as constants, not as defaults a\n"
	"                            caller may replace\n"
	"      --require-explicit    note every node that still broadcasts implicitly\n"
	"                            (implicit-broadcast): for targets without implicit\n"
	"                            broadcasting (see rewrite --explicit-broadcast)\n"
	"      --runtime RUNTIME     what a clean check promises: ort-cpu (default: ONNX\n"
	"                            Runtime's CPU provider loads and runs it: no-kernel,\n"
	"                            runtime-version) or spec (the ONNX specification)\n"
	"      --custom-op DOMAIN[::OP]\n"
	"                            a custom-op library the deployment registers\n"
	"                            provides this domain or operator (repeatable)\n"
	"      --input-shape NAME:D,D,...\n"
	"                            override a graph input's shape; D is a size, a\n"
	"                            symbol, or ? (repeatable); a model found in a\n"
	"                            directory without input NAME gets a note on stderr\n"
	"                            and is checked as it is (a model named on the\n"
	"                            command line without it: exit 2)\n"
	"      --assume SYMBOL=SIZE  bind a symbolic dimension everywhere (repeatable)\n"
	"      --input-data DIR      known input values: DIR/input_0.pb, input_1.pb, ...\n"
	"      --input-value NAME=FILE.pb\n"
	"                            a known value for one graph input (repeatable)\n"
	"      --exclude PATTERN     skip what PATTERN matches in a directory walk: a\n"
	"                            name, or with a '/' a path relative to the\n"
	"                            directory; 'PATTERN/' folders only (repeatable)\n"
	"      --list-rules          list the diagnostic codes and exit\n"
	"      --timings             print how long each stage of each file took (load,\n"
	"                            infer, lint, report, free) to stderr\n"
	"      --dump-after STAGE    debugging: print the IR to stderr after each run of\n"
	"                            STAGE (--dump-after=help lists the stages)\n"
	"      --memory-budget SIZE  most memory a model may take (512M, 4G...;\n"
	"                            default: from the file's size)\n"
	"  -h, --help                show this help\n"
	"\n"
	"exit status: 0 no errors; 1 at least one model has errors (or warnings, with\n"
	"--werror); 2 a file could not be read or is malformed, a directory holds no\n"
	"model, or a usage error (the other files are still checked and reported).\n"
	"A run of 16 files or more shows its progress on stderr when that is a terminal.\n";

/* ---- options ----------------------------------------------------------------------- */

typedef struct check_opts {
	check_format format;
	style st;
	bool werror;
	uint64_t memory_budget; /* --memory-budget; 0: the loader's choice */
	osh_infer_options infer;
	infer_args args; /* backing storage for infer's shapes and assumptions */
	severities sev;
	walk_opts walk;
	input_values values;
	bool has_values;
	bool timings;
	bool quiet;
	bool one_file; /* the only file: its model is left to the exit (model_done) */
	const char **custom_ops; /* --custom-op, for infer.custom_ops */
	size_t cap_custom_ops;
} check_opts;

static void opts_free(check_opts *o)
{
	infer_args_free(&o->args);
	severities_free(&o->sev);
	free(o->walk.exclude);
	free(o->custom_ops);
}

static void list_rules(check_format format)
{
	static const char *const sev[] = {"note", "warning", "error"};
	size_t n;
	const osh_rule *r = osh_rules(&n);
	if (format == FORMAT_TEXT) {
		for (size_t i = 0; i < n; i++)
			printf("%-26s %-8s %s\n", r[i].code, sev[r[i].severity], r[i].summary);
		return;
	}
	fputs("[", stdout);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n {\"code\": " : "{\"code\": ", stdout);
		json_string(stdout, r[i].code);
		printf(", \"severity\": \"%s\", \"summary\": ", sev[r[i].severity]);
		json_string(stdout, r[i].summary);
		fputs(", \"description\": ", stdout);
		json_string(stdout, r[i].description);
		fputs(", \"example\": ", stdout);
		json_string(stdout, r[i].example);
		fputs("}", stdout);
	}
	fputs("]\n", stdout);
}

/* ---- checking one file --------------------------------------------------------------- */

/* Renders what is known about r into its parts, in the chosen format. */
static void render(const check_opts *o, file_result *r, osh_model *m, const osh_error *library_error)
{
	osh_error cli_error;
	const osh_error *error = library_error ? (cli_error = *library_error, error_in_cli_terms(&cli_error), &cli_error)
					       : NULL;
	if (o->format == FORMAT_SARIF) {
		sarif_file(r, m, error);
		return;
	}
	if (o->format == FORMAT_HTML) {
		html_file(r, m, error, o->one_file);
		return;
	}
	FILE *f = open_memstream(&r->out, &r->out_len);
	if (!f)
		return;
	if (o->format == FORMAT_JSON)
		json_file(f, r, m, error ? error->message : NULL);
	else
		text_file(f, &o->st, r->path, m, error, o->quiet);
	fclose(f);
}

/* Loads, infers, lints and renders one file. Touches only *r and the model. */
static void check_one(const check_opts *o, file_result *r)
{
	osh_model *m = NULL;
	osh_error err = {0};
	const char *source = r->path;
	r->path = shown_path(source); /* "-" is reported as "<stdin>" */
	timings_start(&r->time, o->timings);
	r->time.path = r->path;
	cli_load lo = {.lo = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = o->memory_budget}};
	int guard = input_guard_claim(r->path, &lo);
	osh_status loaded = load_model_from(&m, source, &lo, &err);
	timings_lap(&r->time, "load");
	if (loaded != OSH_OK) {
		input_guard_release(guard);
		r->unreadable = r->trouble = true;
		r->errors = 1;
		render(o, r, NULL, &err);
		timings_lap(&r->time, "report");
		return;
	}
	r->nodes = r->time.nodes = osh_model_node_count(m);
	bool refused = false;
	/* The lint after inference rather than inside it: the same work, timed apart. */
	osh_infer_options io = o->infer;
	osh_input_shape *kept = NULL;
	/* A malformed model has no reliable graph to infer over: its loader diagnostics
	 * are the report. */
	if (osh_model_is_malformed(m)) {
		r->trouble = true;
	} else if (o->has_values && !apply_input_values(m, &o->values, &o->st)) {
		snprintf(err.message, sizeof err.message, "%s: the input values could not be used (see above)",
			 r->path);
		refused = true;
	} else if (r->walked && !input_shapes_for(m, r->path, &io, &kept)) {
		snprintf(err.message, sizeof err.message, "%s: out of memory", r->path);
		refused = true;
	} else if (osh_infer_lint_later(m, &io, &err) != OSH_OK) {
		refused = true;
	} else {
		timings_lap(&r->time, "infer");
		refused = osh_lint(m, &err) != OSH_OK;
		timings_lap(&r->time, "lint");
	}
	free(kept);
	if (refused)
		r->trouble = true;
	/* The codes were checked when parsing the options. */
	osh_model_override_severities(m, o->sev.v, o->sev.n, NULL);
	for (size_t k = 0; k < osh_model_diag_count(m); k++) {
		osh_severity s = osh_model_diag_at(m, k)->severity;
		r->errors += s == OSH_ERROR;
		r->warnings += s == OSH_WARNING;
		r->notes += s == OSH_NOTE;
	}
	r->errors += refused;
	r->failed = osh_model_has_errors(m) || refused || (o->werror && r->warnings);
	render(o, r, m, refused ? &err : NULL);
	timings_lap(&r->time, "report");
	model_done(m, o->one_file);
	input_guard_release(guard);
	timings_lap(&r->time, "free");
}

/* ---- the workers ---------------------------------------------------------------------- */

typedef struct pool {
	const check_opts *o;
	file_result *files;
	bool *done;
	size_t n, next;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} pool;

static void *worker(void *arg)
{
	pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next;
		while (i < p->n && p->done[i]) /* pre-filled results (unreadable directories) */
			i++;
		p->next = i + 1;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			return NULL;
		check_one(p->o, &p->files[i]);
		pthread_mutex_lock(&p->mu);
		p->done[i] = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* Adds r to the totals; prints its part now unless the format waits for the end. */
static void emit(const check_opts *o, file_result *r, check_totals *t, bool *first, progress *pg)
{
	progress_clear(pg);
	t->files++;
	t->nodes += r->nodes;
	t->errors += r->errors;
	t->warnings += r->warnings;
	t->notes += r->notes;
	t->unreadable += r->unreadable;
	if (r->trouble)
		t->status = EXIT_TROUBLE;
	else if (r->failed && t->status < EXIT_FINDINGS)
		t->status = EXIT_FINDINGS;
	timings_print(stderr, &r->time);
	if (o->format == FORMAT_SARIF || o->format == FORMAT_HTML) {
		progress_step(pg, r->path);
		return;
	}
	if (o->format == FORMAT_JSON && !*first)
		fputs(",\n", stdout);
	if (r->out)
		fwrite(r->out, 1, r->out_len, stdout);
	fflush(stdout);
	*first = false;
	free(r->out);
	r->out = NULL;
	progress_step(pg, r->path);
}

int cmd_check(int argc, char **argv)
{
	enum { OPT_COLOR = 256, OPT_FORMAT, OPT_ERROR, OPT_WARN, OPT_IGNORE, OPT_WERROR, OPT_STATIC,
	       OPT_INPUT_SHAPE, OPT_ASSUME, OPT_INPUT_DATA, OPT_INPUT_VALUE, OPT_LIST_RULES,
	       OPT_REQUIRE_EXPLICIT, OPT_CONSTANT_INITIALIZERS, OPT_TIMINGS, OPT_MEMORY_BUDGET, OPT_EXCLUDE, OPT_DUMP_AFTER,
	       OPT_RUNTIME, OPT_CUSTOM_OP };
	/* -o and -q are short options too. */
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"jobs", required_argument, NULL, 'j'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"color", required_argument, NULL, OPT_COLOR},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"error", required_argument, NULL, OPT_ERROR},
		{"warn", required_argument, NULL, OPT_WARN},
		{"ignore", required_argument, NULL, OPT_IGNORE},
		{"werror", no_argument, NULL, OPT_WERROR},
		{"static", no_argument, NULL, OPT_STATIC},
		{"require-explicit", no_argument, NULL, OPT_REQUIRE_EXPLICIT},
		{"constant-initializers", no_argument, NULL, OPT_CONSTANT_INITIALIZERS},
		{"input-shape", required_argument, NULL, OPT_INPUT_SHAPE},
		{"assume", required_argument, NULL, OPT_ASSUME},
		{"input-data", required_argument, NULL, OPT_INPUT_DATA},
		{"input-value", required_argument, NULL, OPT_INPUT_VALUE},
		{"list-rules", no_argument, NULL, OPT_LIST_RULES},
		{"timings", no_argument, NULL, OPT_TIMINGS},
		{"memory-budget", required_argument, NULL, OPT_MEMORY_BUDGET},
		{"exclude", required_argument, NULL, OPT_EXCLUDE},
		{"dump-after", required_argument, NULL, OPT_DUMP_AFTER},
		{"runtime", required_argument, NULL, OPT_RUNTIME},
		{"custom-op", required_argument, NULL, OPT_CUSTOM_OP},
		{0},
	};
	check_opts o = {.format = FORMAT_TEXT, .infer = {.version = OSH_INFER_OPTIONS_VERSION, .runtime = "ort-cpu"}};
	const char *color = NULL, *output = NULL;
	int jobs = 0, c;
	bool usage = false, rules = false;
	while (!usage && (c = getopt_long(argc, argv, ":hj:o:q", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			opts_free(&o);
			return EXIT_CLEAN;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 0 || v > 1024) {
				usage_error("check", "-j needs a number of jobs from 1 to 1024 (0: one per core)");
				usage = true;
			}
			jobs = (int)v;
			break;
		}
		case OPT_COLOR: color = optarg; break;
		case 'o': output = optarg; break;
		case 'q': o.quiet = true; break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o.format = FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				o.format = FORMAT_JSON;
			else if (!strcmp(optarg, "sarif"))
				o.format = FORMAT_SARIF;
			else if (!strcmp(optarg, "html"))
				o.format = FORMAT_HTML;
			else {
				usage_error("check", "--format must be text, json, sarif or html");
				usage = true;
			}
			break;
		case OPT_ERROR: usage = !severities_add(&o.sev, "check", optarg, false, OSH_ERROR); break;
		case OPT_WARN: usage = !severities_add(&o.sev, "check", optarg, false, OSH_WARNING); break;
		case OPT_IGNORE: usage = !severities_add(&o.sev, "check", optarg, true, OSH_NOTE); break;
		case OPT_EXCLUDE:
			if (!grow_array(&o.walk.exclude, o.walk.n_exclude, &o.walk.cap_exclude, sizeof *o.walk.exclude)) {
				fprintf(stderr, "onnxshape check: error: out of memory\n");
				usage = true;
				break;
			}
			o.walk.exclude[o.walk.n_exclude++] = optarg;
			break;
		case OPT_WERROR: o.werror = true; break;
		case OPT_MEMORY_BUDGET:
			if (!parse_bytes(optarg, &o.memory_budget)) {
				usage_error("check", "--memory-budget wants a size: bytes, or 512M, 4G...");
				usage = true;
			}
			break;
		case OPT_STATIC: o.infer.require_static = true; break;
		case OPT_RUNTIME:
			o.infer.runtime = optarg;
			if (strcmp(optarg, "ort-cpu") && strcmp(optarg, "spec")) {
				usage_error("check", "--runtime must be ort-cpu or spec");
				usage = true;
			}
			break;
		case OPT_CUSTOM_OP:
			if (!optarg[0] || !strncmp(optarg, "::", 2)) {
				usage_error("check", "--custom-op wants DOMAIN or DOMAIN::OP");
				usage = true;
			} else if (!grow_array(&o.custom_ops, o.infer.n_custom_ops, &o.cap_custom_ops, sizeof *o.custom_ops)) {
				fprintf(stderr, "onnxshape check: error: out of memory\n");
				usage = true;
			} else {
				o.custom_ops[o.infer.n_custom_ops++] = optarg;
				o.infer.custom_ops = o.custom_ops;
			}
			break;
		case OPT_REQUIRE_EXPLICIT: o.infer.require_explicit = true; break;
		case OPT_CONSTANT_INITIALIZERS: o.args.constant_initializers = true; break;
		case OPT_INPUT_SHAPE:
			if (!infer_args_add_shape(&o.args, optarg)) {
				usage_error("check", "--input-shape wants NAME:D,D,... (D a size, a symbol or ?)");
				usage = true;
			}
			break;
		case OPT_ASSUME:
			if (!infer_args_add_assume(&o.args, optarg)) {
				usage_error("check", "--assume wants SYMBOL=SIZE with SIZE >= 0");
				usage = true;
			}
			break;
		case OPT_INPUT_DATA:
			o.values.data_dir = optarg;
			o.has_values = true;
			break;
		case OPT_INPUT_VALUE:
			if (!parse_input_value(optarg, &o.values)) {
				usage_error("check", "--input-value wants NAME=FILE.pb");
				usage = true;
			}
			o.has_values = true;
			break;
		case OPT_LIST_RULES: rules = true; break;
		case OPT_TIMINGS: o.timings = true; break;
		case OPT_DUMP_AFTER:
			usage = !dump_after_valid("check", optarg);
			o.infer.dump_after = optarg;
			o.infer.dump_to = stderr;
			break;
		default:
			bad_option("check", c, argv, longs);
			usage = true;
			break;
		}
	}
	infer_args_apply(&o.args, &o.infer);
	/* A report into a file is never coloured unless asked. */
	if (!usage && !parse_color(color, output && !is_stdout_path(output) ? -1 : 1, &o.st)) {
		usage_error("check", "--color must be auto, always or never");
		usage = true;
	}
	if (!usage && rules) {
		report_out out;
		int status = EXIT_TROUBLE;
		if (report_out_open(&out, "check", output)) {
			list_rules(o.format);
			status = report_out_close(&out, "check", EXIT_CLEAN, true);
		}
		opts_free(&o);
		return status;
	}
	if (!usage && optind >= argc)
		usage_error("check", "no model to check: give a file or a directory ('-' reads standard input)");
	if (usage || optind >= argc) {
		opts_free(&o);
		return EXIT_TROUBLE;
	}

	/* The files, in input order; a directory that cannot be read is a result too. */
	path_list files = {0};
	bool nomem = !collect_models(&o.walk, argv + optind, argc - optind, &files);
	file_result *res = calloc(files.n ? files.n : 1, sizeof *res);
	bool *done = calloc(files.n ? files.n : 1, sizeof *done);
	if (nomem || !res || !done) {
		fprintf(stderr, "onnxshape check: error: out of memory\n");
		path_list_free(&files);
		free(res), free(done);
		opts_free(&o);
		return EXIT_TROUBLE;
	}
	report_out out;
	if (report_out_is_input(output, &files)) {
		usage_error("check", "-o %s would replace a model being checked", output);
		path_list_free(&files);
		free(res), free(done);
		opts_free(&o);
		return EXIT_TROUBLE;
	}
	if (!report_out_open(&out, "check", output)) {
		path_list_free(&files);
		free(res), free(done);
		opts_free(&o);
		return EXIT_TROUBLE;
	}
	for (size_t i = 0; i < files.n; i++) {
		file_result *r = &res[i];
		r->path = files.v[i];
		r->index = i;
		r->walked = files.rel[i] >= 0;
		if (!files.err[i])
			continue;
		osh_error err = {.status = OSH_ERR_IO};
		if (files.err[i] == WALK_EMPTY)
			snprintf(err.message, sizeof err.message, "%s: no model (*.onnx) found under this directory",
				 r->path);
		else
			snprintf(err.message, sizeof err.message, "%s: cannot read the directory: %s", r->path,
				 strerror(files.err[i]));
		r->unreadable = r->trouble = true;
		r->errors = 1;
		render(&o, r, NULL, &err);
		done[i] = true;
	}

	o.one_file = files.n == 1;
	pool p = {.o = &o, .files = res, .done = done, .n = files.n};
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	if (jobs == 0)
		jobs = default_jobs();
	if ((size_t)jobs > files.n)
		jobs = files.n ? (int)files.n : 1;
	pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
	int started = 0;
	/* With one job there is no point in a thread: the main thread does the work. */
	for (int i = 0; jobs > 1 && threads && i < jobs; i++)
		if (pthread_create(&threads[started], NULL, worker, &p) == 0)
			started++;

	check_totals totals = {.status = EXIT_CLEAN};
	bool first = true;
	progress pg;
	progress_start(&pg, files.n, o.quiet);
	if (o.format == FORMAT_JSON)
		json_begin(stdout);
	for (size_t i = 0; i < files.n; i++) {
		if (!started && !done[i]) {
			check_one(&o, &res[i]);
			done[i] = true;
		}
		pthread_mutex_lock(&p.mu);
		while (!done[i])
			pthread_cond_wait(&p.cv, &p.mu);
		pthread_mutex_unlock(&p.mu);
		emit(&o, &res[i], &totals, &first, &pg);
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);

	if (o.format == FORMAT_JSON)
		json_end(stdout, &totals);
	else if (o.format == FORMAT_SARIF)
		sarif_document(stdout, res, files.n, &totals);
	else if (o.format == FORMAT_HTML)
		html_document(stdout, res, files.n, &totals);
	else if (!o.quiet)
		text_summary(stdout, &totals);
	progress_clear(&pg);
	fflush(stdout);

	for (size_t i = 0; i < files.n; i++) {
		free(res[i].out);
		free(res[i].aux);
	}
	path_list_free(&files);
	free(res), free(done);
	opts_free(&o);
	return report_out_close(&out, "check", totals.status, true);
}
