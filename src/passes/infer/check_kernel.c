/* check_kernel.c: does the runtime the model is deployed to run it? ONNX Runtime's
 * CPU provider, by the table the runtime itself answered (core/schema/kernels.h):
 * no-kernel for a node whose operator, version and types it has no kernel for (or
 * whose domain no table covers and the user did not declare), runtime-version for
 * an opset or IR version past the runtime's.
 *
 * Only certainty is reported: a type inference does not know leaves its variable
 * free (a kernel for any of its types will do), a type the table was not probed
 * with, or a probe that told nothing, says nothing. Runs once per node, beside its
 * schema check: a few look-ups in constant tables, no allocation but the message's.
 */
#include "passes/infer/check_kernel.h"

#include "core/dtype.h"
#include "core/schema/kernels.h"
#include "core/schema/schema_ids.h"
#include "emit/edit.h"
#include "passes/pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The domains a kernel table covers: the schema rows' and ONNX Runtime's own. */
static bool covered_domain(const char *d)
{
	return !d[0] || !strcmp(d, "ai.onnx") || !strcmp(d, "ai.onnx.ml") || !strcmp(d, "ai.onnx.preview") ||
	       !strcmp(d, "ai.onnx.preview.training") || !strcmp(d, "com.microsoft") ||
	       !strcmp(d, "com.microsoft.nchwc");
}

static const char *shown_domain(const char *d) { return d[0] ? d : "ai.onnx"; }

void check_runtime_versions(osh_model *m)
{
	int32_t nd;
	const kernel_domain *kd = kernel_domains(&nd);
	for (int32_t i = 0; i < m->nopsets; i++) {
		const opset_entry *o = &m->opsets[i];
		const char *d = o->domain && strcmp(o->domain, "ai.onnx") ? o->domain : "";
		for (int32_t k = 0; k < nd; k++)
			if (!strcmp(kd[k].domain, d) && o->version > kd[k].newest)
				model_diag(m, OSH_ERROR, DIAG_RUNTIME_VERSION, NULL, -1, NULL,
					   "opset_import asks for %s version %lld; %s runs it up to version %d",
					   shown_domain(d), (long long)o->version, kernel_runtime, kd[k].newest);
	}
	int64_t ir = edit_ir_version(m);
	if (ir > kernel_ir_newest)
		model_diag(m, OSH_ERROR, DIAG_RUNTIME_VERSION, NULL, -1, NULL,
			   "ir_version is %lld; %s loads models up to IR version %d", (long long)ir, kernel_runtime,
			   kernel_ir_newest);
}

static bool declared(const pass_options *po, const char *domain, const char *op)
{
	size_t dl = strlen(domain);
	for (size_t i = 0; i < po->n_custom_ops; i++) {
		const char *s = po->custom_ops[i];
		if (!s || strncmp(s, domain, dl))
			continue;
		if (!s[dl] || (s[dl] == ':' && s[dl + 1] == ':' && !strcmp(s + dl + 2, op)))
			return true;
	}
	return false;
}

bool check_kernel_domain(infer_ctx *c)
{
	const char *d = c->n->domain ? c->n->domain : "";
	if (covered_domain(d) || declared(c->opts, d, c->n->op_type))
		return false;
	infer_diag(c, OSH_ERROR, DIAG_NO_KERNEL,
		   "no kernel table covers domain %s: %s refuses %s::%s unless a custom-op library registers it "
		   "(declare one with --custom-op %s or --custom-op %s::%s); its outputs are unknown",
		   d, kernel_runtime, d, c->n->op_type, d, d, c->n->op_type);
	return true;
}

/* ---- types as the table codes them ------------------------------------------------ */

/* t's code (kernels.h), or -1 when inference does not know it whole. */
static int32_t code_of(const tinfo *t)
{
	if (!t || t->elem <= 0 || t->elem >= 32)
		return -1;
	switch (t->kind) {
	case TK_TENSOR: return KERNEL_TYPE(KK_TENSOR, t->elem, 0);
	case TK_SPARSE: return KERNEL_TYPE(KK_SPARSE, t->elem, 0);
	case TK_SEQUENCE:
		if (t->inner == TK_MAP)
			return t->key > 0 && t->key < 32 ? KERNEL_TYPE(KK_SEQ_MAP, t->elem, t->key) : -1;
		return t->inner == TK_TENSOR ? KERNEL_TYPE(KK_SEQ, t->elem, 0) : -1;
	case TK_OPTIONAL:
		if (t->inner == TK_SEQUENCE)
			return KERNEL_TYPE(KK_OPT_SEQ, t->elem, 0);
		return t->inner == TK_TENSOR ? KERNEL_TYPE(KK_OPT, t->elem, 0) : -1;
	case TK_MAP: return t->key > 0 && t->key < 32 ? KERNEL_TYPE(KK_MAP, t->elem, t->key) : -1;
	default: return -1;
	}
}

/* "float", "seq(tensor(int64))", "map(string, float)". */
static void code_text(char *buf, size_t cap, uint16_t code)
{
	char el[32] = "?", key[32] = "?";
	for (int w = 0; w < 2; w++) {
		const char *dn = dtype_name(w ? (code >> 5) & 31 : code & 31);
		char *out = w ? key : el;
		size_t k = 0;
		for (; dn && dn[k] && k + 1 < sizeof el; k++)
			out[k] = (char)(dn[k] >= 'A' && dn[k] <= 'Z' ? dn[k] - 'A' + 'a' : dn[k]);
		if (dn)
			out[k] = '\0';
	}
	static const char *const forms[] = {"%s", "sparse_tensor(%s)", "seq(tensor(%s))", "optional(tensor(%s))",
					    "optional(seq(tensor(%s)))"};
	int kind = code >> 10;
	if (kind == KK_MAP || kind == KK_SEQ_MAP)
		snprintf(buf, cap, kind == KK_MAP ? "map(%s, %s)" : "seq(map(%s, %s))", key, el);
	else if (kind < KK_MAP)
		snprintf(buf, cap, forms[kind], el);
	else
		snprintf(buf, cap, "?");
}

/* ---- one node ------------------------------------------------------------------ */

enum { KVARS = 8 }; /* type variables an operator has at most (the table's rows: 4) */

typedef struct binding {
	const kernel_row *kr;
	const char *const *vars;      /* the variables' names */
	const uint16_t *types[KVARS]; /* variable v's types in the table */
	int32_t idx[KVARS];           /* the node's type of v, as an index into them; -1 free */
	int32_t stride[KVARS];        /* of v in the row-major states */
} binding;

/* The verdict of every binding that agrees with b on its bound variables: KV_KERNEL
 * when one runs (or one told nothing: no finding then either), else the refusal of
 * the first. Free variables range over their types: the runtime skips a variable
 * none of the node's arguments bind, and a kernel for one of them runs it. */
static char verdict_over(const binding *b, int32_t v, int32_t offset)
{
	if (v == b->kr->nvars) {
		char s = b->kr->states[offset];
		return s == KV_UNTOLD || s == KV_OPSET ? KV_KERNEL : s;
	}
	if (b->idx[v] >= 0)
		return verdict_over(b, v + 1, offset + b->idx[v] * b->stride[v]);
	char first = 0;
	for (int32_t k = 0; k < b->kr->ntypes[v]; k++) {
		char s = verdict_over(b, v + 1, offset + k * b->stride[v]);
		if (s == KV_KERNEL)
			return s;
		if (!first)
			first = s;
	}
	return first ? first : KV_KERNEL;
}

/* Binds variable v from argument type t; false when t is outside the table's types
 * for v (a type-error the schema check reports, or a table of another schema). */
static bool bind_arg(binding *b, int32_t v, const tinfo *t)
{
	if (b->idx[v] >= 0)
		return true;
	int32_t code = code_of(t);
	if (code < 0)
		return true;
	for (int32_t k = 0; k < b->kr->ntypes[v]; k++)
		if (b->types[v][k] == code) {
			b->idx[v] = k;
			return true;
		}
	return false;
}

static const sch_param *formal(const sch_param *list, int32_t n, int32_t k)
{
	if (k < n)
		return &list[k];
	return n && list[n - 1].option == SCH_VARIADIC ? &list[n - 1] : NULL;
}

static bool bind_node(infer_ctx *c, const sch_row *r, binding *b)
{
	/* Once every variable is bound the other arguments tell nothing more: one of
	 * another type is the schema check's type-error, and the node is quiet then. */
	int32_t unbound = b->kr->nvars;
	for (int32_t side = 0; side < 2 && unbound > 0; side++) {
		const sch_param *list = side ? r->outputs : r->inputs;
		int32_t nlist = side ? r->noutputs : r->ninputs, n = side ? c->n->noutputs : c->n->ninputs;
		for (int32_t k = 0; k < n; k++) {
			const sch_param *f = formal(list, nlist, k);
			int32_t id = side ? c->n->outputs[k] : c->n->inputs[k];
			if (!f || f->constraint < 0 || f->heterogeneous || id < 0 || b->idx[f->constraint] >= 0)
				continue;
			if (!bind_arg(b, f->constraint, &c->g->values[id].ti))
				return false;
			if (b->idx[f->constraint] >= 0 && --unbound == 0)
				break;
		}
	}
	return true;
}

/* "T=float, T2=int64": the bound variables of b but `except`, at cap bytes. */
static void binding_text(char *buf, size_t cap, const binding *b, int32_t except)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int32_t v = 0; v < b->kr->nvars && len + 1 < cap; v++) {
		if (b->idx[v] < 0 || v == except)
			continue;
		char ty[48];
		code_text(ty, sizeof ty, b->types[v][b->idx[v]]);
		int w = snprintf(buf + len, cap - len, "%s%s=%s", len ? ", " : "", b->vars[v], ty);
		if (w < 0 || (size_t)w >= cap - len)
			break;
		len += (size_t)w;
	}
}

/* Whether some binding that agrees with b on its bound variables was seen to run. */
static bool ran_over(const binding *b, int32_t v, int32_t offset)
{
	if (v == b->kr->nvars)
		return b->kr->states[offset] == KV_KERNEL;
	if (b->idx[v] >= 0)
		return ran_over(b, v + 1, offset + b->idx[v] * b->stride[v]);
	for (int32_t k = 0; k < b->kr->ntypes[v]; k++)
		if (ran_over(b, v + 1, offset + k * b->stride[v]))
			return true;
	return false;
}

/* The types of variable v seen to run with the other variables as b binds them, as
 * "float, double, int8" (at cap bytes); how many. */
static int32_t running_text(char *buf, size_t cap, binding *b, int32_t v)
{
	size_t len = 0;
	int32_t n = 0, was = b->idx[v];
	buf[0] = '\0';
	for (int32_t k = 0; k < b->kr->ntypes[v]; k++) {
		b->idx[v] = k;
		if (!ran_over(b, 0, 0))
			continue;
		n++;
		char ty[48];
		code_text(ty, sizeof ty, b->types[v][k]);
		if (len + strlen(ty) + 6 >= cap) {
			if (len + 4 < cap)
				len += (size_t)snprintf(buf + len, cap - len, "...");
			len = cap;
			continue;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", ty);
	}
	b->idx[v] = was;
	return n;
}

/* Sets b's views of kr (its variables free) and its strides. The generator writes
 * one verdict per binding (test_schema holds every row to it), so strides index
 * within the row's states. */
static void binding_init(binding *b, const kernel_row *kr, const char *const *vars)
{
	*b = (binding){.kr = kr, .vars = vars};
	int32_t off = 0;
	for (int32_t v = 0; v < kr->nvars; v++) {
		b->types[v] = kr->types + off;
		b->idx[v] = -1;
		off += kr->ntypes[v];
	}
	int32_t stride = 1;
	for (int32_t v = kr->nvars - 1; v >= 0; v--) {
		b->stride[v] = stride;
		stride *= kr->ntypes[v];
	}
}

/* The finding of a node of operator op_type-since bound as b, if any. */
static void report(infer_ctx *c, binding *b, const char *op_type, int32_t since, const char *domain)
{
	const kernel_row *kr = b->kr;
	char s = verdict_over(b, 0, 0);
	if (s == KV_KERNEL)
		return;
	char bound[256], runs[512], others[256];
	binding_text(bound, sizeof bound, b, -1);
	const char *dom = shown_domain(domain);
	/* A contrib operator's name alone may be an ai.onnx one's (QuantizeLinear). */
	char tag[48] = "";
	if (!strncmp(domain, "com.microsoft", 13))
		snprintf(tag, sizeof tag, " (%s)", domain);
	if (s == KV_UNKNOWN_OP) {
		infer_diag(c, OSH_ERROR, DIAG_NO_KERNEL, "%s does not know %s-%d (%s): it is not a registered function/op there",
			   kernel_runtime, op_type, since, dom);
		return;
	}
	/* What would run: the first variable (from the last) whose other types run with
	 * the rest as the node binds them. */
	int32_t v = kr->nvars - 1, n = 0;
	for (; v >= 0; v--)
		if (b->idx[v] >= 0 && (n = running_text(runs, sizeof runs, b, v)) > 0)
			break;
	const char *why = s == KV_NO_TYPE ? " (it has no values of that type)"
			  : s == KV_SCHEMA ? " (its own schema of the operator does not take that type)"
					   : "";
	if (v < 0) {
		infer_diag(c, OSH_ERROR, DIAG_NO_KERNEL, "%s-%d (%s) has no CPU kernel in %s for %s%s", op_type, since, dom,
			   kernel_runtime, bound[0] ? bound : "these types", why);
		return;
	}
	char not[64];
	code_text(not, sizeof not, b->types[v][b->idx[v]]);
	if (kr->nvars == 1) {
		infer_diag(c, OSH_ERROR, DIAG_NO_KERNEL, "%s-%d%s has CPU kernels for %s; not %s (%s)%s", op_type, since,
			   tag, runs, not, kernel_runtime, why);
		return;
	}
	binding_text(others, sizeof others, b, v);
	infer_diag(c, OSH_ERROR, DIAG_NO_KERNEL, "%s-%d%s has no CPU kernel for %s (%s)%s; with %s it has them for %s = %s",
		   op_type, since, tag, bound, kernel_runtime, why,
		   others[0] ? others : "the others free", b->vars[v], runs);
}

/* Whether the node's arguments bind every variable of kr, to a binding the runtime
 * was seen to run: the answer for nearly every node, found without the binding the
 * full path builds to explain a refusal or to range over a free variable. */
static bool runs_as_bound(const infer_ctx *c, const sch_row *r, const kernel_row *kr)
{
	int32_t idx[KVARS], unbound = kr->nvars;
	uint32_t bound = 0; /* bit v: idx[v] is set */
	for (int32_t side = 0; side < 2; side++) {
		const sch_param *list = side ? r->outputs : r->inputs;
		int32_t nlist = side ? r->noutputs : r->ninputs, n = side ? c->n->noutputs : c->n->ninputs;
		for (int32_t k = 0; k < n; k++) {
			const sch_param *f = formal(list, nlist, k);
			int32_t id = side ? c->n->outputs[k] : c->n->inputs[k];
			if (!f || f->constraint < 0 || f->heterogeneous || id < 0 || (bound >> f->constraint & 1))
				continue;
			int32_t v = f->constraint, code = code_of(&c->g->values[id].ti), j = 0;
			if (code < 0)
				return false;
			const uint16_t *types = kr->types;
			for (int32_t w = 0; w < v; w++)
				types += kr->ntypes[w];
			while (j < kr->ntypes[v] && types[j] != code)
				j++;
			if (j == kr->ntypes[v])
				return false;
			idx[v] = j;
			bound |= 1u << v;
			if (--unbound == 0) {
				int32_t offset = 0;
				for (int32_t w = 0; w < kr->nvars; w++)
					offset = offset * kr->ntypes[w] + idx[w];
				return kr->states[offset] == KV_KERNEL;
			}
		}
	}
	return false;
}

/* runtime-attribute: an attribute of the node the runtime refuses on this row (one
 * its schema does not know, or a value its kernel does not implement); true when
 * reported. */
static bool check_refused_attrs(infer_ctx *c, const sch_row *r, const char *const *refused)
{
	for (; *refused; refused++) {
		const char *eq = strchr(*refused, '=');
		size_t len = eq ? (size_t)(eq - *refused) : strlen(*refused);
		char name[64];
		if (len >= sizeof name)
			continue;
		memcpy(name, *refused, len);
		name[len] = '\0';
		const attr_view *a = attr(c, name);
		if (!a)
			continue;
		if (!eq) {
			infer_diag(c, OSH_ERROR, DIAG_RUNTIME_ATTRIBUTE,
				   "%s does not know attribute '%s' of %s-%d (%s): ONNX added it to that version after the "
				   "runtime took its schema, and the runtime refuses the model",
				   kernel_runtime, name, r->op_type, r->since, shown_domain(r->domain));
			return true;
		}
		long long v = strtoll(eq + 1, NULL, 10);
		if (a->type == AT_INT && a->i == v) {
			infer_diag(c, OSH_ERROR, DIAG_RUNTIME_ATTRIBUTE,
				   "%s-%d with %s=%lld: the CPU kernel of %s does not implement it, and the runtime refuses "
				   "the node when it loads the model",
				   r->op_type, r->since, name, v, kernel_runtime);
			return true;
		}
	}
	return false;
}

void check_kernel_node(infer_ctx *c, const sch_row *r)
{
	const kernel_row *kr = &kernel_rows()[schema_index(r)];
	if (kr->refused_attrs && check_refused_attrs(c, r, kr->refused_attrs))
		return;
	if (!kr->nvars || kr->nvars != r->nconstraints || kr->nvars > KVARS)
		return; /* deprecated (the schema check says what), or a table of another schema */
	if (runs_as_bound(c, r, kr))
		return;
	const char *vars[KVARS];
	for (int32_t v = 0; v < kr->nvars; v++)
		vars[v] = r->constraints[v].var;
	binding b;
	binding_init(&b, kr, vars);
	if (bind_node(c, r, &b))
		report(c, &b, r->op_type, r->since, r->domain);
}

/* A com.microsoft operator's row, or NULL when it was not probed. */
static const kernel_ms_row *ms_row(const char *domain, const char *op_type)
{
	int32_t n;
	const kernel_ms_row *rows = kernel_ms_rows(&n);
	for (int32_t i = 0; i < n; i++)
		if (!strcmp(rows[i].op_type, op_type) && !strcmp(rows[i].domain, domain))
			return &rows[i];
	return NULL;
}

void check_kernel_ms_node(infer_ctx *c)
{
	const char *d = c->n->domain ? c->n->domain : "";
	if (strncmp(d, "com.microsoft", 13) || (d[13] && strcmp(d + 13, ".nchwc")))
		return;
	const kernel_ms_row *mr = ms_row(d, c->n->op_type);
	if (!mr || mr->nvars > KVARS)
		return; /* not probed: no verdict either way */
	kernel_row kr = {.states = mr->states, .types = mr->types, .ntypes = mr->ntypes, .nvars = mr->nvars};
	binding b;
	binding_init(&b, &kr, mr->vars);
	/* Only the arguments the probes bound: an argument past them (a further optional
	 * input) and one of a type of its own judge nothing. */
	for (int32_t side = 0; side < 2; side++) {
		int32_t n = side ? c->n->noutputs : c->n->ninputs, np = side ? mr->nout : mr->nin;
		const int8_t *var = side ? mr->out_var : mr->in_var;
		for (int32_t k = 0; k < n && k < np; k++) {
			int32_t id = side ? c->n->outputs[k] : c->n->inputs[k];
			if (id < 0 || var[k] < 0)
				continue;
			if (!bind_arg(&b, var[k], &c->g->values[id].ti))
				return;
		}
	}
	report(c, &b, c->n->op_type, 1, d);
}
