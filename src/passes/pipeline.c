/* pipeline.c: the public entry points that run passes, in order, in one place. */
#include "core/dtype.h"
#include "core/quiet_thread.h"
#include "core/tuning.h"
#include "core/error.h"
#include "emit/edit.h"
#include "loader/reindex.h"
#include "passes/pass.h"
#include "passes/rewrite/rewrite.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static osh_status apply_options(osh_model *m, const osh_infer_options *o, osh_error *err)
{
	for (size_t i = 0; i < o->n_assumptions; i++) {
		const osh_assumption *a = &o->assumptions[i];
		if (a->value < 0)
			return error_set(err, OSH_ERR_INVALID, "%s: --assume %s=%lld: a size cannot be negative", m->path,
				    a->symbol, (long long)a->value);
		int64_t id = sym_intern(&m->syms, a->symbol);
		if (id < 0)
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
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
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		for (int32_t k = 0; k < s->rank; k++) {
			if (s->dims[k].kind == OSH_DIM_VALUE && s->dims[k].value >= 0) {
				d[k] = dim_known(s->dims[k].value);
			} else if (s->dims[k].kind == OSH_DIM_SYMBOL && s->dims[k].symbol) {
				int64_t sid = sym_intern(&m->syms, s->dims[k].symbol);
				if (sid < 0)
					return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
				d[k] = dim_symbol(sid);
			} else {
				d[k] = dim_unknown();
			}
		}
		tinfo *t = arena_alloc(m->arena, sizeof *t);
		value_extra *x = value_extra_need(m->arena, v);
		if (!t || !x)
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		*t = value_declared(v);
		t->kind = TK_TENSOR;
		t->rank = s->rank;
		t->dims = d;
		x->declared = t;
		x->input_override = true;
	}
	return OSH_OK;
}

/* The passes, in order. Those from FIRST_LATER on build on inference's results
 * without changing them, and are what defer_lint leaves for later. */
static const struct {
	const char *name;
	pass_fn run;
} passes[] = {
	{"infer", pass_infer},
	{"lint", pass_lint},
	{"describe", pass_describe},
};
#define NPASSES (sizeof passes / sizeof passes[0])
#define FIRST_LATER 1

/* Runs passes [from, to); NULL, or the name of the pass that ran out of memory. */
static const char *run_passes(osh_model *m, const pass_options *po, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (!passes[i].run(m, po))
			return passes[i].name;
	return NULL;
}

/* What the passes left for later need, in the model's arena: the caller's options
 * may be gone by the time they run. */
struct lint_later {
	pass_options po;
	pass_state state;
	const char *failed; /* the pass that ran out of memory, or NULL */
	pthread_t thread;
	bool threaded;
};

/* The options with the assumptions copied into the arena; false when out of memory. */
static bool keep_options(osh_model *m, struct lint_later *l, const pass_options *po)
{
	l->po = *po;
	l->po.state = &l->state;
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
	l->po.assumed = a;
	return true;
}

static osh_status nomem_in(osh_model *m, const char *pass, osh_error *err)
{
	char what[64];
	snprintf(what, sizeof what, "the %s pass", pass);
	return arena_error(m->arena, err, m->path, what);
}

osh_status osh_lint(osh_model *m, osh_error *err)
{
	struct lint_later *l = m->lint_later;
	if (!l)
		return OSH_OK;
	m->lint_later = NULL;
	const char *failed = run_passes(m, &l->po, FIRST_LATER, NPASSES);
	return failed ? nomem_in(m, failed, err) : OSH_OK;
}

static void *run_later(void *arg)
{
	osh_model *m = arg;
	struct lint_later *l = m->lint_later;
	l->failed = run_passes(m, &l->po, FIRST_LATER, NPASSES);
	return NULL;
}

/* Below LINT_THREAD_MIN nodes (core/tuning.h), starting a thread for the lint costs
 * more than the lint it would take off the main thread. A model loaded the plain way
 * runs it here, before the write. */
static struct lint_later *lint_later_start(osh_model *m)
{
	struct lint_later *l = m->lint_later;
	if (!l)
		return NULL;
	l->threaded = !m->plain_io && osh_model_node_count(m) >= LINT_THREAD_MIN &&
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
	m->lint_later = NULL;
	return !l->failed;
}

static void *start_beside(osh_model *m) { return lint_later_start(m); }
static bool join_beside(osh_model *m, void *handle) { return lint_later_join(m, handle); }
static const beside_write lint_beside = {start_beside, join_beside};

osh_status osh_infer(osh_model *m, const osh_infer_options *opts, osh_error *err)
{
	static const osh_infer_options none = {0};
	if (!opts)
		opts = &none;
	if (m->malformed)
		return error_set(err, OSH_ERR_INVALID, "%s: the model is malformed; cannot infer shapes", m->path);
	/* A lint still pending belongs to the inference before: its findings first. */
	osh_status s = osh_lint(m, err);
	if (s != OSH_OK)
		return s;
	s = apply_options(m, opts, err);
	if (s != OSH_OK)
		return s;
	pass_state state = {0};
	pass_options po = {
		.state = &state,
		.ignore_declared = opts->ignore_declared,
		.require_static = opts->require_static,
		.require_explicit = opts->require_explicit,
		.n_assumed = opts->n_assumptions,
		.assumed = opts->assumptions,
	};
	struct lint_later *later = NULL;
	if (opts->defer_lint) {
		later = arena_zalloc(m->arena, sizeof *later);
		if (!later || !keep_options(m, later, &po))
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		po = later->po; /* the state inference leaves for lint is kept with them */
	}
	const char *failed = run_passes(m, &po, 0, later ? FIRST_LATER : NPASSES);
	if (failed)
		return nomem_in(m, failed, err);
	m->lint_later = later;
	m->beside = &lint_beside;
	return OSH_OK;
}

bool osh_value_type(osh_model *m, const char *name, osh_type *out)
{
	if (!m->inferred || !m->main)
		return false;
	int32_t id = strmap_get(&m->main->names, name);
	if (id < 0)
		return false;
	return type_of(m, &m->main->values[id].ti, out);
}

/* The rewrite, in order: plan and edit the messages (rewrite.c), rebuild the IR from
 * them (loader/reindex.c), run the inference pipeline again, and describe the values
 * the rewrite made in value_info (emit/edit.c). */
osh_status osh_rewrite(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *report, osh_error *err)
{
	static const osh_rewrite_options none = {0};
	if (!opts)
		opts = &none;
	*report = (osh_rewrite_report){.opset_before = -1, .opset_after = -1};
	if (m->malformed)
		return error_set(err, OSH_ERR_INVALID, "%s: the model is malformed; cannot rewrite it", m->path);
	if (!m->inferred)
		return error_set(err, OSH_ERR_INVALID, "%s: run inference before rewriting (placements need shapes)", m->path);
	osh_status s = osh_lint(m, err); /* a rewrite is blocked by lint's errors as by inference's */
	if (s != OSH_OK)
		return s;
	/* Issue 7's stages need Expand (opset 8): the axis stage raises the opset. */
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
	opts = &axis_opts;
	/* Before the edits: the re-indexing after them reads the inputs' shapes from the
	 * messages, and a model with nothing else to rewrite still gets them. */
	if (!opts->dry_run && !annotate_overridden_inputs(m))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory declaring the overridden inputs", m->path);
	strmap made;
	strmap_init(&made, m->arena);
	s = rewrite_apply(m, opts, report, &made, err);
	if (s != OSH_OK || report->n_errors)
		return s;
	if (!report->changed || opts->dry_run)
		return opts->implicit_broadcast ? rewrite_implicit_stage(m, opts, report, err)
						: rewrite_explicit_stage(m, opts, report, err);
	if (!model_reindex(m))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory re-indexing the rewritten model", m->path);
	if (m->malformed) /* a bug of ours: say so rather than write it */
		return error_set(err, OSH_ERR_INVALID, "%s: internal error: the rewritten model is malformed: %s", m->path,
			    m->ndiags ? m->diags[0].message : "?");
	s = osh_infer(m, NULL, err);
	if (s != OSH_OK)
		return s;
	if (!edit_value_info(m, &made))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory writing value_info", m->path);
	return opts->implicit_broadcast ? rewrite_implicit_stage(m, opts, report, err)
					: rewrite_explicit_stage(m, opts, report, err);
}
