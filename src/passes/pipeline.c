/* pipeline.c: every stage the library runs after loading, in order, in one place:
 * one table per command (check_stages, rewrite_stages), each row a stage of one
 * signature, and the public entry points that run a part of them (pipeline_infer,
 * pipeline_lint, pipeline_annotate, osh_rewrite).
 *
 * Between two stages, when asked, the IR checker (verify.c) runs and the IR is
 * dumped (dump.c), as QBE checks and prints a function between passes: in debug
 * builds (or -DONNXSHAPE_VERIFY_IR=ON) the checker is on unless the environment
 * says ONNXSHAPE_VERIFY_IR=0, in others only with ONNXSHAPE_VERIFY_IR=1; the
 * variable is read once per pipeline run (pipeline_infer, osh_rewrite), and what it said
 * is kept with the model for the stages osh_lint and osh_annotate run after it.
 * Off, a run costs one look at the environment (verify_ir_chosen) and a comparison
 * per stage.
 */
#include "core/dtype.h"
#include "core/quiet_thread.h"
#include "core/tuning.h"
#include "core/error.h"
#include "emit/edit.h"
#include "emit/write_ahead.h"
#include "loader/reindex.h"
#include "passes/dump.h"
#include "emit/summary.h"
#include "passes/pipeline.h"
#include "passes/pass.h"
#include "passes/rewrite/rewrite.h"
#include "passes/verify.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the header promises of osh_infer_options, checked before anything of it is
 * applied: arrays present where their counts say so, names not NULL, ranks and sizes
 * not negative, dimensions of a kind osh_dim_kind has. A caller's mistake made
 * quietly into something else (a size of -7 an unknown one, a rank of -5 returned as
 * it came) would pass for the model's answer. */
static osh_status check_options(const osh_model *m, const osh_infer_options *o, osh_error *err)
{
	if (o->n_assumptions && !o->assumptions)
		return error_set(err, OSH_ERR_INVALID, "%s: osh_infer: assumptions is NULL with n_assumptions %zu",
			    m->path, o->n_assumptions);
	for (size_t i = 0; i < o->n_assumptions; i++)
		if (!o->assumptions[i].symbol || !o->assumptions[i].symbol[0])
			return error_set(err, OSH_ERR_INVALID, "%s: osh_infer: assumption #%zu has no symbol", m->path,
				    i);
	if (o->n_input_shapes && !o->input_shapes)
		return error_set(err, OSH_ERR_INVALID, "%s: osh_infer: input_shapes is NULL with n_input_shapes %zu",
			    m->path, o->n_input_shapes);
	for (size_t i = 0; i < o->n_input_shapes; i++) {
		const osh_input_shape *s = &o->input_shapes[i];
		if (!s->name)
			return error_set(err, OSH_ERR_INVALID, "%s: osh_infer: input shape #%zu has no name", m->path, i);
		if (s->rank < 0)
			return error_set(err, OSH_ERR_INVALID, "%s: --input-shape %s: the rank %d is negative", m->path,
				    s->name, (int)s->rank);
		if (s->rank > 0 && !s->dims)
			return error_set(err, OSH_ERR_INVALID, "%s: --input-shape %s: dims is NULL with rank %d", m->path,
				    s->name, (int)s->rank);
		for (int32_t k = 0; k < s->rank; k++) {
			const osh_dim *d = &s->dims[k];
			if (d->kind == OSH_DIM_VALUE && d->value < 0)
				return error_set(err, OSH_ERR_INVALID,
					    "%s: --input-shape %s: dimension %d is %lld: a size cannot be negative",
					    m->path, s->name, (int)k, (long long)d->value);
			if (d->kind == OSH_DIM_SYMBOL && (!d->symbol || !d->symbol[0]))
				return error_set(err, OSH_ERR_INVALID,
					    "%s: --input-shape %s: dimension %d is a symbol without a name", m->path,
					    s->name, (int)k);
			if (d->kind != OSH_DIM_VALUE && d->kind != OSH_DIM_SYMBOL && d->kind != OSH_DIM_UNKNOWN)
				return error_set(err, OSH_ERR_INVALID,
					    "%s: --input-shape %s: dimension %d has no kind osh_dim_kind names (%d)",
					    m->path, s->name, (int)k, (int)d->kind);
		}
	}
	return OSH_OK;
}

static osh_status apply_options(osh_model *m, const osh_infer_options *o, osh_error *err)
{
	for (size_t i = 0; i < o->n_assumptions; i++) {
		const osh_assumption *a = &o->assumptions[i];
		if (a->value < 0)
			return error_set(err, OSH_ERR_INVALID, "%s: --assume %s=%lld: a size cannot be negative", m->path,
				    a->symbol, (long long)a->value);
		int64_t id = sym_intern(&m->syms, a->symbol);
		if (id < 0)
			return arena_error(m->arena, err, m->path, "inference");
		if (!sym_bind(&m->syms, id, a->value))
			return error_set(err, OSH_ERR_INVALID, "%s: --assume %s=%lld contradicts an earlier --assume",
				    m->path, a->symbol, (long long)a->value);
	}
	for (size_t i = 0; i < o->n_input_shapes; i++) {
		const osh_input_shape *s = &o->input_shapes[i];
		int32_t id = m->main ? strmap_get(&m->main->names, s->name) : -1;
		if (id < 0 || m->main->values[id].origin != VAL_INPUT)
			return error_set(err, OSH_ERR_INVALID, "%s: --input-shape: the model has no graph input named '%s'",
				    m->path, s->name);
		value *v = &m->main->values[id];
		dim *d = arena_array(m->arena, s->rank > 0 ? (size_t)s->rank : 1, sizeof *d);
		if (!d)
			return arena_error(m->arena, err, m->path, "inference");
		for (int32_t k = 0; k < s->rank; k++) { /* check_options refused the rest */
			if (s->dims[k].kind == OSH_DIM_VALUE) {
				d[k] = dim_known(s->dims[k].value);
			} else if (s->dims[k].kind == OSH_DIM_SYMBOL) {
				int64_t sid = sym_intern(&m->syms, s->dims[k].symbol);
				if (sid < 0)
					return arena_error(m->arena, err, m->path, "inference");
				d[k] = dim_symbol(sid);
			} else {
				d[k] = dim_unknown();
			}
		}
		tinfo *t = arena_alloc(m->arena, sizeof *t);
		value_extra *x = value_extra_need(m->arena, v);
		if (!t || !x)
			return arena_error(m->arena, err, m->path, "inference");
		*t = value_declared(v);
		t->kind = TK_TENSOR;
		t->rank = s->rank;
		t->dims = d;
		x->declared = t;
		x->input_override = true;
	}
	return OSH_OK;
}

/* What osh_infer_options asked of the stages for debugging, kept with the model
 * (osh_model.pending.debug) for those that later calls run. */
typedef struct stage_debug {
	const char *dump_after; /* the stage after which to dump the IR; NULL: none */
	FILE *dump_to;          /* where; NULL: no dump */
	bool verify;            /* the IR checker after every stage */
} stage_debug;

/* One run of a pipeline: what its stages are given and leave for the next. */
typedef struct stage_run {
	pass_options po;  /* infer, lint and describe read them */
	pass_state state; /* what infer leaves for lint, where po.state points unless
			   * a lint_later keeps it */
	stage_debug debug;
	/* osh_rewrite's: */
	const osh_rewrite_options *rw;
	osh_rewrite_report *report;
	/* What the last editing stage (axis, explicit, implicit, fold) left
	 * for the rows after it: */
	strmap made; /* the values it made: value-info declares them */
	bool edited; /* it changed the messages: the rows marked after_edit rebuild
		      * the IR from them and infer it again */
	/* How reindex words a failure on the messages it left, in that stage's own
	 * terms: "out of memory <nomem_doing>", "internal error: <malformed_why>: ...". */
	const char *nomem_doing, *malformed_why;
	bool stop; /* a stage left nothing for the rest to do (a blocked rewrite) */
} stage_run;

/* Every stage: it reads and changes the model, reports findings about the model as
 * diagnostics, and returns something other than OSH_OK, with err set, only when it
 * could not do its job. */
typedef osh_status (*stage_fn)(osh_model *m, stage_run *r, osh_error *err);

typedef struct stage {
	const char *name; /* as dump_after and the checker's messages name it */
	stage_fn run;
	bool after_edit; /* runs only when the last editing stage before it edited the model */
	/* An editing stage: when it edited, the write begun ahead (osh_load_options.
	 * write_to) is told where the edit moved the initializers, to copy them there
	 * while the rows after it run. */
	bool edits;
} stage;

static osh_status nomem_in(osh_model *m, const char *pass, osh_error *err)
{
	char what[64];
	snprintf(what, sizeof what, "the %s pass", pass);
	return arena_error(m->arena, err, m->path, what);
}

/* ---- the stages ------------------------------------------------------------------ */

/* osh_model_load did this one (pre-scan, unpack, validate, index: the loader) before
 * any table runs; its row is where what it built is checked and can be dumped, the
 * IR as the file declares it, before the first inference. */
static osh_status stage_load(osh_model *m, stage_run *r, osh_error *err)
{
	(void)m, (void)r, (void)err;
	return OSH_OK;
}

static osh_status stage_infer(osh_model *m, stage_run *r, osh_error *err)
{
	/* Each inference's lint list starts empty, as a fresh osh_infer's would: what an
	 * earlier one of the run listed names nodes of an IR since rebuilt. (What the
	 * nodes an edit left alone were found to be, pass_infer takes over itself.) */
	if (r->po.state)
		*r->po.state = (pass_state){0};
	return pass_infer(m, &r->po) ? OSH_OK : nomem_in(m, "infer", err);
}

static osh_status stage_lint(osh_model *m, stage_run *r, osh_error *err)
{
	return pass_lint(m, &r->po) && note_initializer_inputs(m, &r->po) ? OSH_OK : nomem_in(m, "lint", err);
}

static osh_status stage_describe(osh_model *m, stage_run *r, osh_error *err)
{
	return pass_describe(m, &r->po) ? OSH_OK : nomem_in(m, "describe", err);
}

static osh_status stage_annotate(osh_model *m, stage_run *r, osh_error *err)
{
	(void)r;
	return annotate_model(m, err);
}

/* Before the edits: the re-indexing after them reads the inputs' shapes from the
 * messages, and a model with nothing else to rewrite still gets them. */
static osh_status stage_declare_inputs(osh_model *m, stage_run *r, osh_error *err)
{
	if (!r->rw->dry_run && !annotate_overridden_inputs(m))
		return arena_error(m->arena, err, m->path, "declaring the overridden inputs");
	return OSH_OK;
}

/* What an editing stage leaves for the rows after it besides r->edited (which the
 * stage sets itself): the words reindex uses if what it left cannot be indexed (a
 * bug of ours). An edit that something blocks ends the run (rep->n_errors: it
 * reports why as diagnostics). */
static void edit_done(stage_run *r, const char *nomem_doing, const char *malformed_why)
{
	r->nomem_doing = nomem_doing;
	r->malformed_why = malformed_why;
	r->stop = r->report->n_errors > 0;
}

/* Plans the axis rewrite and, unless something blocks it or this is a dry run,
 * edits the messages (rewrite.c; the opset upgrade is part of it). */
static osh_status stage_axis(osh_model *m, stage_run *r, osh_error *err)
{
	osh_status s = rewrite_apply(m, r->rw, r->report, &r->made, err);
	if (s != OSH_OK)
		return s;
	edit_done(r, "re-indexing the rewritten model", "the rewritten model is malformed");
	r->edited = !r->stop && r->report->changed && !r->rw->dry_run;
	return OSH_OK;
}

/* The IR is derived from the messages: rebuilt from them after an edit. */
static osh_status stage_reindex(osh_model *m, stage_run *r, osh_error *err)
{
	if (!model_reindex(m))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory %s", m->path, r->nomem_doing);
	if (m->malformed) /* a bug of ours: say so rather than write it */
		return error_set(err, OSH_ERR_INVALID, "%s: internal error: %s: %s", m->path, r->malformed_why,
			    m->ndiags ? m->diags[0].message : "?");
	return OSH_OK;
}

static osh_status stage_value_info(osh_model *m, stage_run *r, osh_error *err)
{
	if (!edit_value_info(m, &r->made))
		return arena_error(m->arena, err, m->path, "writing value_info");
	return OSH_OK;
}

/* Broadcast-3 lowered and, with explicit_broadcast, every implicit broadcast
 * expanded (rewrite_explicit.c); nothing under implicit_broadcast. */
static osh_status stage_explicit(osh_model *m, stage_run *r, osh_error *err)
{
	osh_status s = rewrite_explicit_stage(m, r->rw, r->report, &r->made, &r->edited, err);
	if (s == OSH_OK)
		edit_done(r, "rewriting", "the explicit rewrite made a malformed model");
	return s;
}

/* Redundant Expand and Tile removed (rewrite_implicit.c); only under
 * implicit_broadcast. */
static osh_status stage_implicit(osh_model *m, stage_run *r, osh_error *err)
{
	osh_status s = rewrite_implicit_stage(m, r->rw, r->report, &r->edited, err);
	if (s == OSH_OK)
		edit_done(r, "rewriting", "the implicit rewrite made a malformed model");
	return s;
}

/* What inference knows folded into initializers and constant forms
 * (fold_shapes.c); only under fold_shapes. */
static osh_status stage_fold(osh_model *m, stage_run *r, osh_error *err)
{
	osh_status s = rewrite_fold_stage(m, r->rw, r->report, &r->edited, err);
	if (s == OSH_OK)
		edit_done(r, "folding", "the fold made a malformed model");
	return s;
}

/* ---- the pipelines --------------------------------------------------------------- */

/* `check` and `infer`: load (osh_model_load's, already done), infer, lint, describe,
 * annotate. osh_infer runs infer, lint and describe, after load's row the first time;
 * with lint_later only infer, leaving lint and describe to osh_lint or to the next
 * write, which runs them beside it (after annotate, then). osh_annotate runs annotate
 * (`infer` only). Lint and describe build on inference's results without changing
 * the IR. */
static const stage check_stages[] = {
	{"load", stage_load, false, false},
	{"infer", stage_infer, false, false},
	{"lint", stage_lint, false, false},
	{"describe", stage_describe, false, false},
	{"annotate", stage_annotate, false, false},
};
#define NCHECK (sizeof check_stages / sizeof check_stages[0])

/* `rewrite`: check's infer, lint and describe (osh_infer), then these (osh_rewrite).
 * Four stages edit the messages: axis, explicit, implicit and fold. After
 * each, the rows marked after_edit rebuild the IR from the messages and infer it
 * again with default options, taking over what the inference before found of the
 * nodes the edit left alone (passes/infer/infer.c) (the --assume bindings live on in
 * the symbols, the --input-shape overrides in the graph inputs' messages:
 * declare-inputs), then declare the values the edit made; they are skipped when
 * that stage edited nothing (no option for it, nothing to do, a dry run).
 * A blocked edit ends the run. explicit runs once: every input it expands gets the
 * result's shape, so a second round could only expand again what inference still
 * cannot size (an Expand of its own output to the same target), which computes the
 * same and proves nothing more. */
static const stage rewrite_stages[] = {
	{"declare-inputs", stage_declare_inputs, false, false},
	{"axis", stage_axis, false, true},
	{"reindex", stage_reindex, true, false},
	{"infer", stage_infer, true, false},
	{"lint", stage_lint, true, false},
	{"describe", stage_describe, true, false},
	{"value-info", stage_value_info, true, false},
	{"explicit", stage_explicit, false, true},
	{"reindex", stage_reindex, true, false},
	{"infer", stage_infer, true, false},
	{"lint", stage_lint, true, false},
	{"describe", stage_describe, true, false},
	{"value-info", stage_value_info, true, false},
	{"implicit", stage_implicit, false, true},
	{"reindex", stage_reindex, true, false},
	{"infer", stage_infer, true, false},
	{"lint", stage_lint, true, false},
	{"describe", stage_describe, true, false},
	{"fold", stage_fold, false, true},
	{"reindex", stage_reindex, true, false},
	{"infer", stage_infer, true, false},
	{"lint", stage_lint, true, false},
	{"describe", stage_describe, true, false},
};
#define NREWRITE (sizeof rewrite_stages / sizeof rewrite_stages[0])

/* Where check's stage `name` is; NCHECK when it is none. */
static size_t check_at(const char *name)
{
	size_t i = 0;
	while (i < NCHECK && strcmp(check_stages[i].name, name))
		i++;
	return i;
}

static bool stage_named(const char *name)
{
	for (size_t i = 0; i < NREWRITE; i++)
		if (!strcmp(rewrite_stages[i].name, name))
			return true;
	return check_at(name) < NCHECK;
}

size_t pipeline_stages(const char *command, const char **names, size_t cap)
{
	if (!command)
		return 0;
	if (!names)
		cap = 0;
	bool infer = !strcmp(command, "infer"), rewrite = !strcmp(command, "rewrite");
	if (!infer && !rewrite && strcmp(command, "check"))
		return 0;
	size_t n = 0, upto = infer ? NCHECK : check_at("annotate");
	for (size_t i = 0; i < upto; i++, n++)
		if (n < cap)
			names[n] = check_stages[i].name;
	for (size_t i = 0; rewrite && i < NREWRITE; i++, n++)
		if (n < cap)
			names[n] = rewrite_stages[i].name;
	return n;
}

/* ---- running them ------------------------------------------------------------------ */


/* The debugging a run was asked for: the dump, and the checker (the environment
 * read now, once for the run). */
static stage_debug debug_asked(const char *dump_after, FILE *dump_to)
{
	return (stage_debug){
		.dump_after = dump_to ? dump_after : NULL,
		.dump_to = dump_to,
		.verify = verify_ir_chosen(),
	};
}

static osh_status verify_after(osh_model *m, const char *after, osh_error *err)
{
	char why[512];
	osh_status s = ir_verify(m, why, sizeof why);
	if (s == OSH_ERR_NOMEM)
		return error_set(err, s, "%s: out of memory checking the IR after stage '%s'", m->path, after);
	if (s != OSH_OK)
		return error_set(err, s, "%s: internal error: after stage '%s': %s", m->path, after, why);
	return OSH_OK;
}

/* Runs stages [from, to) of a pipeline, in order, each followed by the checker and
 * the dump when asked. A write error on the dump's stream is the caller's to see
 * (ferror): the model is not the worse for it. */
static osh_status run_stages(osh_model *m, stage_run *r, const stage *stages, size_t from, size_t to,
			     osh_error *err)
{
	for (size_t i = from; i < to && !r->stop; i++) {
		const stage *st = &stages[i];
		if (st->after_edit && !r->edited)
			continue;
		osh_status s = st->run(m, r, err);
		if (s == OSH_OK && r->debug.verify)
			s = verify_after(m, st->name, err);
		if (s != OSH_OK)
			return s;
		if (st->edits && r->edited)
			write_ahead_relayout(m);
		if (r->debug.dump_after && !strcmp(r->debug.dump_after, st->name))
			ir_dump(m, st->name, r->debug.dump_to);
	}
	return OSH_OK;
}

/* What check's later stages (lint, describe) need when they run after osh_infer
 * returns (lint_later), in the model's arena: the caller's options may be gone by
 * then. The debugging asked for is the model's (osh_model.pending.debug). Kept as
 * small as the passes' own state: it is allocated before inference, and what comes
 * after it in the arena moves with its size. */
struct lint_later {
	pass_options po; /* po.state points at state */
	pass_state state;
	osh_status status; /* theirs, beside a write; OSH_OK until they fail */
	pthread_t thread;
	bool threaded;
};

/* The options with the assumptions copied into the arena; false when out of memory. */
static bool keep_options(osh_model *m, pass_options *po)
{
	if (!po->n_assumed)
		return true;
	osh_assumption *a = arena_array(m->arena, po->n_assumed, sizeof *a);
	if (!a)
		return false;
	for (size_t i = 0; i < po->n_assumed; i++) {
		a[i] = po->assumed[i];
		if (a[i].symbol && !(a[i].symbol = arena_strdup(m->arena, a[i].symbol)))
			return false;
	}
	po->assumed = a;
	return true;
}

/* Keeps d with the model for pipeline_lint, osh_annotate and the write (d's name copied
 * into the arena), or nothing when d asks for nothing. False when out of memory. */
static bool keep_debug(osh_model *m, stage_debug *d)
{
	m->pending.debug = NULL;
	if (!d->verify && !d->dump_after)
		return true;
	if (d->dump_after && !(d->dump_after = arena_strdup(m->arena, d->dump_after)))
		return false;
	m->pending.debug = arena_alloc(m->arena, sizeof *m->pending.debug);
	if (!m->pending.debug)
		return false;
	*m->pending.debug = *d;
	return true;
}

/* Runs the later stages osh_infer left in l; `verify`: with the IR checker, if the
 * model's debugging asks for it. */
static osh_status run_later_stages(osh_model *m, struct lint_later *l, bool verify, osh_error *err)
{
	stage_run r = {.po = l->po};
	if (m->pending.debug)
		r.debug = *m->pending.debug;
	r.debug.verify &= verify;
	return run_stages(m, &r, check_stages, check_at("lint"), check_at("annotate"), err);
}

osh_status pipeline_lint(osh_model *m, osh_error *err)
{
	if (!m)
		return error_set(err, OSH_ERR_INVALID, "osh_lint: the model is NULL");
	struct lint_later *l = m->pending.lint;
	if (!l)
		return OSH_OK;
	m->pending.lint = NULL;
	return run_later_stages(m, l, true, err);
}

static void *run_later(void *arg)
{
	osh_model *m = arg;
	struct lint_later *l = m->pending.lint;
	/* Beside a write a failure can only be reported as memory running out
	 * (beside_write's join): the IR checker is left to pipeline_lint, where it can say
	 * what it found. Lint and describe do not change the IR. */
	l->status = run_later_stages(m, l, false, NULL);
	return NULL;
}

/* Below LINT_THREAD_MIN nodes (core/tuning.h), starting a thread for the lint costs
 * more than the lint it would take off the main thread. A model loaded the plain way
 * runs it here, before the write. */
static struct lint_later *lint_later_start(osh_model *m)
{
	struct lint_later *l = m->pending.lint;
	if (!l)
		return NULL;
	l->threaded = !m->plain_io && summary_node_count(m) >= LINT_THREAD_MIN &&
		      quiet_thread_start(&l->thread, run_later, m) == 0;
	if (!l->threaded)
		run_later(m);
	return l;
}

static bool lint_later_join(osh_model *m, struct lint_later *l)
{
	if (!l)
		return true;
	if (l->threaded)
		pthread_join(l->thread, NULL);
	m->pending.lint = NULL;
	return l->status == OSH_OK;
}

static void *start_beside(osh_model *m) { return lint_later_start(m); }
static bool join_beside(osh_model *m, void *handle) { return lint_later_join(m, handle); }
static const beside_write lint_beside = {start_beside, join_beside, pipeline_lint};

osh_status pipeline_infer(osh_model *m, const osh_infer_options *opts, bool lint_later, osh_error *err)
{
	static const osh_infer_options none = {0};
	if (!opts)
		opts = &none;
	if (!m)
		return error_set(err, OSH_ERR_INVALID, "osh_infer: the model is NULL");
	osh_status s = check_options(m, opts, err);
	if (s != OSH_OK)
		return s;
	if (m->malformed)
		return error_set(err, OSH_ERR_INVALID, "%s: the model is malformed; cannot infer shapes", m->path);
	if (opts->dump_after && !stage_named(opts->dump_after))
		return error_set(err, OSH_ERR_INVALID, "%s: dump_after: no stage is named '%s'", m->path, opts->dump_after);
	/* A lint still pending belongs to the inference before: its findings first. */
	s = pipeline_lint(m, err);
	if (s != OSH_OK)
		return s;
	s = apply_options(m, opts, err);
	if (s != OSH_OK)
		return s;
	bool ort = opts->runtime && !strcmp(opts->runtime, "ort-cpu");
	if (opts->runtime && !ort && strcmp(opts->runtime, "spec"))
		return error_set(err, OSH_ERR_INVALID, "%s: runtime '%s' is none of ort-cpu, spec", m->path, opts->runtime);
	for (size_t i = 0; i < opts->n_custom_ops; i++)
		if (!opts->custom_ops[i] || !opts->custom_ops[i][0] || !strncmp(opts->custom_ops[i], "::", 2))
			return error_set(err, OSH_ERR_INVALID, "%s: custom op '%s' is no DOMAIN or DOMAIN::OP", m->path,
				    opts->custom_ops[i] ? opts->custom_ops[i] : "(null)");
	stage_run r = {
		.po = {
			.state = &r.state,
			.ignore_declared = opts->ignore_declared,
			.require_static = opts->require_static,
			.require_explicit = opts->require_explicit,
			.n_assumed = opts->n_assumptions,
			.assumed = opts->assumptions,
			.runtime_ort = ort,
			.n_custom_ops = opts->n_custom_ops,
			.custom_ops = opts->custom_ops,
			.constant_initializers = opts->constant_initializers,
		},
		.debug = debug_asked(opts->dump_after, opts->dump_to),
	};
	struct lint_later *later = NULL;
	if (lint_later) {
		later = arena_zalloc(m->arena, sizeof *later);
		if (!later)
			return arena_error(m->arena, err, m->path, "inference");
		later->po = r.po;
		later->po.state = &later->state; /* what inference leaves for lint, kept with it */
		if (!keep_options(m, &later->po))
			return arena_error(m->arena, err, m->path, "inference");
		r.po = later->po;
	}
	if (!keep_debug(m, &r.debug))
		return arena_error(m->arena, err, m->path, "inference");
	s = run_stages(m, &r, check_stages, m->inferred ? check_at("infer") : 0, check_at(later ? "lint" : "annotate"),
		       err);
	if (s != OSH_OK)
		return s;
	m->pending.lint = later;
	m->pending.beside = &lint_beside;
	return OSH_OK;
}

osh_status pipeline_annotate(osh_model *m, osh_error *err)
{
	if (!m)
		return error_set(err, OSH_ERR_INVALID, "osh_annotate: the model is NULL");
	stage_run r = {0};
	if (m->pending.debug)
		r.debug = *m->pending.debug;
	return run_stages(m, &r, check_stages, check_at("annotate"), NCHECK, err);
}

bool pipeline_value_type(osh_model *m, const char *name, osh_type *out)
{
	if (!m || !name || !out || !m->inferred || !m->main)
		return false;
	int32_t id = strmap_get(&m->main->names, name);
	if (id < 0)
		return false;
	return type_of(m, &m->main->values[id].ti, out);
}

osh_status pipeline_rewrite(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *report, osh_error *err)
{
	static const osh_rewrite_options none = {0};
	if (!opts)
		opts = &none;
	if (!m || !report)
		return error_set(err, OSH_ERR_INVALID, "osh_rewrite: the %s is NULL", m ? "report" : "model");
	*report = (osh_rewrite_report){.opset_before = -1, .opset_after = -1};
	if (m->malformed)
		return error_set(err, OSH_ERR_INVALID, "%s: the model is malformed; cannot rewrite it", m->path);
	if (!m->inferred)
		return error_set(err, OSH_ERR_INVALID, "%s: run inference before rewriting (placements need shapes)", m->path);
	if (opts->dump_after && !stage_named(opts->dump_after))
		return error_set(err, OSH_ERR_INVALID, "%s: dump_after: no stage is named '%s'", m->path, opts->dump_after);
	osh_status s = pipeline_lint(m, err); /* a rewrite is blocked by lint's errors as by inference's */
	if (s != OSH_OK)
		return s;
	/* The explicit and implicit stages need Expand (opset 8): the axis stage raises the opset. */
	osh_rewrite_options axis_opts = *opts;
	int64_t need = rewrite_explicit_need(m, opts);
	if (opts->explicit_broadcast && opts->implicit_broadcast)
		return error_set(err, OSH_ERR_INVALID, "%s: --explicit-broadcast and --implicit-broadcast exclude each other",
			    m->path);
	if (need && opts->target_opset && opts->target_opset < need)
		return error_set(err, OSH_ERR_INVALID, "%s: --target-opset %lld is too low: Expand needs opset %lld", m->path,
			    (long long)opts->target_opset, (long long)need);
	if (need && !opts->target_opset)
		axis_opts.target_opset = need;
	/* The inference after each edit runs with default options (rewrite_stages). */
	stage_run r = {.rw = &axis_opts, .report = report, .debug = debug_asked(opts->dump_after, opts->dump_to)};
	r.po.state = &r.state;
	strmap_init(&r.made, m->arena);
	return run_stages(m, &r, rewrite_stages, 0, NREWRITE, err);
}
