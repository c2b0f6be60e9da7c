/* check_schema.c: a node against its operator's schema (schema/schema.h).
 *
 * Run by the inference pass on each node, before its shape rule, with the types
 * inference has for its inputs: in a subgraph with the types its parent gave it, in
 * a function body with the types of each call. What it checks is what ONNX Runtime
 * checks when it loads a model, so that a clean check means a model it loads:
 *   - arity: inputs and outputs within the schema's counts, no omitted input where
 *     the schema has no optional one (arity-error);
 *   - attributes: unknown, given twice, of the wrong type, required and missing, and
 *     the few strings whose values the spec enumerates (attribute-error);
 *   - types: each input's type allowed by its formal parameter, and the inputs bound
 *     to one type variable of one type, unless the variadic is heterogeneous
 *     (type-error).
 * Only inputs are checked against the constraints: outputs are what our own rules
 * made of them.
 */
#include "core/dtype.h"
#include "passes/infer/check_schema.h"
#include "core/schema/schema_ids.h"
#include "passes/infer/rule_table.h"

#include <stdio.h>
#include <string.h>

/* ---- types --------------------------------------------------------------------- */

/* Whether the set allows t; true when t says too little to tell. */
static bool allows(const sch_types *s, const tinfo *t)
{
	uint64_t bit = t->elem > 0 && t->elem < 64 ? UINT64_C(1) << t->elem : 0;
	switch (t->kind) {
	case TK_TENSOR:
		return !bit || (s->tensor & bit);
	case TK_SPARSE:
		return !bit || (s->sparse & bit);
	case TK_SEQUENCE:
		if (t->inner == TK_MAP)
			return s->seq_map;
		return bit ? (s->seq & bit) != 0 : (s->seq || s->seq_map);
	case TK_OPTIONAL:
		if (t->inner == TK_SEQUENCE)
			return bit ? (s->opt_seq & bit) != 0 : s->opt_seq != 0;
		return bit ? (s->opt_tensor & bit) != 0 : (s->opt_tensor || s->opt_seq);
	case TK_MAP:
		return s->map;
	default:
		return true;
	}
}

/* Whether a and b are known to be different types. */
static bool differ(const tinfo *a, const tinfo *b)
{
	if (a->kind == TK_UNKNOWN || b->kind == TK_UNKNOWN)
		return false;
	if (a->kind != b->kind)
		return true;
	if (a->kind == TK_SEQUENCE || a->kind == TK_OPTIONAL)
		if (a->inner != TK_UNKNOWN && b->inner != TK_UNKNOWN && a->inner != b->inner)
			return true;
	return a->elem && b->elem && a->elem != b->elem;
}

/* "tensor(float)", "seq(tensor(int64))": t's type as the ONNX documentation writes it. */
static void type_text(char *buf, size_t cap, const tinfo *t)
{
	char el[48] = "?";
	const char *dn = dtype_name(t->elem);
	if (dn) {
		size_t k = 0;
		for (; dn[k] && k + 1 < sizeof el; k++)
			el[k] = (char)(dn[k] >= 'A' && dn[k] <= 'Z' ? dn[k] - 'A' + 'a' : dn[k]);
		el[k] = '\0';
	}
	switch (t->kind) {
	case TK_TENSOR: snprintf(buf, cap, "tensor(%s)", el); break;
	case TK_SPARSE: snprintf(buf, cap, "sparse_tensor(%s)", el); break;
	case TK_SEQUENCE:
		snprintf(buf, cap, t->inner == TK_MAP ? "seq(map(...))" : "seq(tensor(%s))", el);
		break;
	case TK_OPTIONAL:
		snprintf(buf, cap, t->inner == TK_SEQUENCE ? "optional(seq(tensor(%s)))" : "optional(tensor(%s))", el);
		break;
	case TK_MAP: snprintf(buf, cap, "map(...)"); break;
	default: snprintf(buf, cap, "(unknown)"); break;
	}
}

/* The tensor element types of s, as "float, double, ..." (at most cap bytes). */
static void allowed_text(char *buf, size_t cap, const sch_types *s)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 1; k < DT_COUNT && len + 1 < cap; k++) {
		if (!(s->tensor & (UINT64_C(1) << k)))
			continue;
		const char *dn = dtype_name(k);
		int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", dn ? dn : "?");
		if (w < 0 || (size_t)w >= cap - len)
			break;
		len += (size_t)w;
	}
	/* The other kinds, named without their element types: rare, and long. */
	const struct {
		bool on;
		const char *name;
	} kinds[] = {{s->sparse != 0, "sparse_tensor(...)"}, {s->seq != 0, "seq(tensor(...))"},
		     {s->opt_tensor != 0, "optional(tensor(...))"}, {s->opt_seq != 0, "optional(seq(tensor(...)))"},
		     {s->map, "map(...)"}, {s->seq_map, "seq(map(...))"}};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && len + 1 < cap; k++) {
		if (!kinds[k].on)
			continue;
		int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", kinds[k].name);
		if (w < 0 || (size_t)w >= cap - len)
			break;
		len += (size_t)w;
	}
}

static const sch_param *formal_of(const sch_row *r, const sch_param *list, int32_t nlist, int32_t k)
{
	(void)r;
	if (k < nlist)
		return &list[k];
	if (nlist && list[nlist - 1].option == SCH_VARIADIC)
		return &list[nlist - 1];
	return NULL;
}

static const char *row_domain(const sch_row *r) { return r->domain[0] ? r->domain : "ai.onnx"; }

static void check_types(infer_ctx *c, const sch_row *r)
{
	/* Per type variable (an operator has a handful; beyond VARS none is bound):
	 * set up for the row's own count only, as this runs on every node. */
	enum { VARS = 8 };
	const tinfo *bound[VARS], *refused[VARS];
	int32_t bound_by[VARS];
	for (int32_t v = 0; v < r->nconstraints && v < VARS; v++)
		bound[v] = refused[v] = NULL;
	for (int32_t k = 0; k < c->n->ninputs; k++) {
		const sch_param *f = formal_of(r, r->inputs, r->ninputs, k);
		const tinfo *t = in(c, k);
		if (!f || !t || t->kind == TK_UNKNOWN)
			continue;
		const sch_types *allowed = f->constraint >= 0 ? &r->constraints[f->constraint].allowed : &f->types;
		char got[64], want[512];
		if (!allows(allowed, t)) {
			int8_t rv = f->constraint;
			if (rv >= 0 && rv < VARS && refused[rv] && !differ(refused[rv], t))
				continue; /* said for an earlier input of that type */
			if (rv >= 0 && rv < VARS)
				refused[rv] = t;
			type_text(got, sizeof got, t);
			allowed_text(want, sizeof want, allowed);
			if (f->constraint >= 0)
				infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR,
					   "input %d '%s' (%s) is %s, which %s-%d does not take: %s of %s is one of %s", k,
					   in_name(c, k), f->name, got, r->op_type, r->since,
					   r->constraints[f->constraint].var, r->op_type, want);
			else
				infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR, "input %d '%s' (%s) is %s; %s-%d takes %s", k,
					   in_name(c, k), f->name, got, r->op_type, r->since, want);
			continue;
		}
		int8_t v = f->constraint;
		if (v < 0 || v >= VARS || f->heterogeneous)
			continue;
		if (!bound[v]) {
			bound[v] = t, bound_by[v] = k;
		} else if (differ(bound[v], t)) {
			char first[64];
			type_text(first, sizeof first, bound[v]);
			type_text(got, sizeof got, t);
			infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR,
				   "input %d '%s' is %s but input %d '%s' is %s: %s takes one type %s for both",
				   bound_by[v], in_name(c, bound_by[v]), first, k, in_name(c, k), got, r->op_type,
				   r->constraints[v].var);
		}
	}
}

/* ---- arity ----------------------------------------------------------------------- */

/* The function input a value of a body stands for (followed out of the body's
 * subgraphs), or -1 when it is not one. */
static int32_t function_input_of(const graph *g, int32_t id)
{
	for (int32_t hops = 0; id >= 0 && hops < 64; hops++) {
		const value *v = &g->values[id];
		if (v->origin == VAL_OUTER) {
			id = value_outer_id(v);
			g = value_outer(v);
			if (!g)
				return -1;
			continue;
		}
		if (v->origin != VAL_INPUT || g->parent || !g->function)
			return -1;
		for (int32_t k = 0; k < g->ninputs; k++)
			if (g->inputs[k] == id)
				return k;
		return -1;
	}
	return -1;
}

/* Whether input k of a node in a model-local function's body is one the call left
 * out: ONNX Runtime inlines the body, and the input is then "" there. */
static bool omitted_by_call(const infer_ctx *c, int32_t k)
{
	if (!c->caller || c->n->inputs[k] < 0)
		return false;
	int32_t f = function_input_of(c->g, c->n->inputs[k]);
	const node *call = c->caller->n;
	return f >= 0 && (f >= call->ninputs || call->inputs[f] < 0);
}

/* Whether inputs k and after of the node are all empty, in a branch of an If whose
 * condition the file fixes: ONNX Runtime's constant folding inlines the branch into
 * the enclosing graph, and the inlined node keeps no trailing empty input. */
static bool trailing_in_fixed_branch(const infer_ctx *c, int32_t k)
{
	if (k == 0)
		return false; /* ONNX's inference refuses a first input without a type */
	for (int32_t j = k; j < c->n->ninputs; j++)
		if (c->n->inputs[j] >= 0)
			return false;
	const graph *p = c->g->parent;
	if (!p || c->g->parent_node < 0 || c->g->parent_node >= p->nnodes)
		return false;
	const node *branch_of = &p->nodes[c->g->parent_node];
	if (strcmp(branch_of->op_type, "If") || branch_of->domain[0] || branch_of->ninputs < 1 ||
	    branch_of->inputs[0] < 0)
		return false;
	const tinfo *t = &p->values[branch_of->inputs[0]].ti;
	return t->nval == 1 && t->val && t->val[0].kind == DIM_KNOWN;
}

/* "" names an omitted optional parameter only: ONNX Runtime refuses it for a single
 * one ("marked single but has an empty string") and fails on it, or crashes, for an
 * argument of a variadic one (Concat, Sum, Split's outputs, Loop's). */
static bool check_empty_names(infer_ctx *c, const sch_row *r)
{
	const node *n = c->n;
	/* Most nodes have no empty name and are not in a function body: one pass over
	 * the ids says so. */
	bool empty = false;
	for (int32_t k = 0; k < n->ninputs; k++)
		empty |= n->inputs[k] < 0;
	for (int32_t k = 0; k < n->noutputs; k++)
		empty |= n->outputs[k] < 0;
	if (!empty && !c->caller)
		return true;
	for (int32_t k = 0; k < n->ninputs; k++) {
		const sch_param *f = formal_of(r, r->inputs, r->ninputs, k);
		if (!f || f->option == SCH_OPTIONAL)
			continue;
		bool call = omitted_by_call(c, k);
		if (n->inputs[k] >= 0 && !call)
			continue;
		if (call)
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR,
				   "input %d (%s) of %s-%d is '%s', an input of function '%s' that the call at node '%s' "
				   "leaves out: ONNX Runtime inlines the body and refuses the empty input",
				   k, f->name, r->op_type, r->since, in_name(c, k), c->caller->n->op_type,
				   c->caller->n->name);
		else if (f->option == SCH_SINGLE)
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR, "input %d (%s) of %s-%d is required, the node leaves it empty",
				   k, f->name, r->op_type, r->since);
		else if (trailing_in_fixed_branch(c, k)) {
			infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
				   "input %d of %s-%d, an argument of the variadic '%s', is left empty: the spec wants "
				   "each one given; ONNX Runtime inlines this branch of an If of a fixed condition and "
				   "drops the trailing empty inputs",
				   k, r->op_type, r->since, f->name);
			break;
		} else
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR,
				   "input %d of %s-%d is an argument of the variadic '%s' and cannot be left empty", k,
				   r->op_type, r->since, f->name);
		return false;
	}
	for (int32_t k = 0; k < n->noutputs; k++) {
		if (n->outputs[k] >= 0)
			continue;
		const sch_param *f = formal_of(r, r->outputs, r->noutputs, k);
		if (!f || f->option == SCH_OPTIONAL)
			continue;
		if (f->option == SCH_SINGLE)
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR,
				   "output %d (%s) of %s-%d is required, the node leaves it empty", k, f->name, r->op_type,
				   r->since);
		else
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR,
				   "output %d of %s-%d is an argument of the variadic '%s' and cannot be left empty", k,
				   r->op_type, r->since, f->name);
		return false;
	}
	return true;
}

static bool check_arity(infer_ctx *c, const sch_row *r)
{
	const node *n = c->n;
	if (n->ninputs < r->min_inputs || n->ninputs > r->max_inputs) {
		if (r->min_inputs == r->max_inputs)
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR, "%s-%d takes %d input%s, the node has %d", r->op_type,
				   r->since, r->min_inputs, r->min_inputs == 1 ? "" : "s", n->ninputs);
		else if (r->max_inputs == INT32_MAX)
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR, "%s-%d takes at least %d input%s, the node has %d",
				   r->op_type, r->since, r->min_inputs, r->min_inputs == 1 ? "" : "s", n->ninputs);
		else
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR, "%s-%d takes %d to %d inputs, the node has %d", r->op_type,
				   r->since, r->min_inputs, r->max_inputs, n->ninputs);
		return false;
	}
	if (n->noutputs < r->min_outputs || n->noutputs > r->max_outputs) {
		if (r->min_outputs == r->max_outputs)
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR, "%s-%d has %d output%s, the node lists %d", r->op_type,
				   r->since, r->min_outputs, r->min_outputs == 1 ? "" : "s", n->noutputs);
		else
			infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR, "%s-%d has %d to %d outputs, the node lists %d", r->op_type,
				   r->since, r->min_outputs, r->max_outputs, n->noutputs);
		return false;
	}
	return check_empty_names(c, r);
}

/* ---- attributes ------------------------------------------------------------------ */

static const char *attr_type_name(int t)
{
	static const char *const names[] = {"undefined", "float", "int", "string", "tensor", "graph",
					    "floats", "ints", "strings", "tensors", "graphs", "sparse_tensor",
					    "sparse_tensors", "type_proto", "type_protos"};
	return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* The values Operators.md enumerates for a string attribute, as ONNX Runtime's
 * kernels test them: exactly, or ignoring case where the kernel lowers the string
 * first (GRU's and LSTM's activations, RoiAlign's mode). A row covers the operators
 * it names ("" for any) at the versions (since) from `from` to `to` (0: no bound).
 * Attributes whose documented values ONNX Runtime does not test are left out: it
 * runs ScatterElements' and ScatterND's reduction, the losses' reduction and
 * RoiAlign's coordinate_transformation_mode whatever they say. */
#define ACTIVATIONS "Relu Tanh Sigmoid Affine LeakyRelu ThresholdedRelu ScaledTanh HardSigmoid Elu Softsign Softplus"
#define ML_TRANSFORMS "NONE SOFTMAX LOGISTIC SOFTMAX_ZERO PROBIT"
static const struct string_enum {
	const char *attr;
	const char *ops; /* space-separated, "" for any */
	int16_t from, to;
	bool nocase;
	const char *values; /* space-separated */
} string_enums[] = {
	{"auto_pad", "", 0, 0, false, "NOTSET SAME_UPPER SAME_LOWER VALID"}, /* and "", as NOTSET */
	{"mode", "Pad", 0, 0, false, "constant reflect edge wrap"},
	{"mode", "Resize Upsample", 0, 0, false, "nearest linear cubic"},
	{"coordinate_transformation_mode", "Resize", 0, 0, false,
	 "half_pixel half_pixel_symmetric pytorch_half_pixel align_corners asymmetric tf_half_pixel_for_nn "
	 "tf_crop_and_resize"},
	{"nearest_mode", "Resize", 0, 0, false, "round_prefer_floor round_prefer_ceil floor ceil"},
	{"keep_aspect_ratio_policy", "Resize", 0, 0, false, "stretch not_larger not_smaller"},
	{"direction", "RNN GRU LSTM", 0, 0, false, "forward reverse bidirectional"},
	{"activations", "RNN", 0, 0, false, ACTIVATIONS},
	{"activations", "GRU LSTM", 0, 0, true, ACTIVATIONS},
	{"direction", "BitShift", 0, 0, false, "LEFT RIGHT"},
	{"approximate", "Gelu", 0, 0, false, "none tanh"},
	{"mode", "GridSample", 16, 19, false, "bilinear nearest bicubic"},
	{"mode", "GridSample", 20, 0, false, "linear nearest cubic"},
	{"padding_mode", "GridSample", 0, 0, false, "zeros border reflection"},
	{"mode", "DepthToSpace", 0, 0, false, "DCR CRD"},
	{"mode", "RoiAlign", 0, 0, true, "avg max"},
	{"mode", "TfIdfVectorizer", 0, 0, false, "TF IDF TFIDF"},
	{"case_change_action", "StringNormalizer", 0, 0, false, "LOWER UPPER NONE"},
	{"mode", "TensorScatter", 0, 0, false, "linear circular"},
	{"pixel_format", "ImageDecoder", 0, 0, false, "RGB BGR Grayscale"},
	{"round_mode", "Cast CastLike", 0, 0, false, "up down nearest"},
	{"mode", "Momentum", 0, 0, false, "nesterov standard"},
	{"norm", "Normalizer", 0, 0, false, "MAX L1 L2"},
	{"post_transform",
	 "LinearClassifier LinearRegressor SVMClassifier SVMRegressor TreeEnsembleClassifier TreeEnsembleRegressor", 0,
	 0, false, ML_TRANSFORMS},
	{"kernel_type", "SVMClassifier SVMRegressor", 0, 0, false, "LINEAR POLY RBF SIGMOID"},
	{"aggregate_function", "TreeEnsembleRegressor", 0, 0, false, "AVERAGE SUM MIN MAX"},
	{"nodes_modes", "TreeEnsembleClassifier TreeEnsembleRegressor", 0, 0, false,
	 "BRANCH_LEQ BRANCH_LT BRANCH_GTE BRANCH_GT BRANCH_EQ BRANCH_NEQ LEAF"},
	{"cast_to", "CastMap", 0, 0, false, "TO_FLOAT TO_STRING TO_INT64"},
	{"map_form", "CastMap", 0, 0, false, "DENSE SPARSE"},
};

static bool same_word(const char *a, const char *b, size_t n, bool nocase)
{
	if (!nocase)
		return !memcmp(a, b, n);
	for (size_t k = 0; k < n; k++) {
		unsigned char x = (unsigned char)a[k], y = (unsigned char)b[k];
		if ((x >= 'A' && x <= 'Z' ? x + 32 : x) != (y >= 'A' && y <= 'Z' ? y + 32 : y))
			return false;
	}
	return true;
}

static bool word_in(const char *word, size_t n, const char *list, bool nocase)
{
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && same_word(p, word, n, nocase))
			return true;
		p += k + (p[k] == ' ');
	}
	return false;
}

/* The row of string_enums for attribute a of the node (of row r), or NULL. */
static const struct string_enum *string_enum_of(const infer_ctx *c, const sch_row *r, const char *attr_name)
{
	size_t oplen = strlen(c->n->op_type);
	for (size_t i = 0; i < sizeof string_enums / sizeof string_enums[0]; i++) {
		const struct string_enum *e = &string_enums[i];
		if (strcmp(e->attr, attr_name) != 0 || (e->from && r->since < e->from) || (e->to && r->since > e->to))
			continue;
		if (e->ops[0] && !word_in(c->n->op_type, oplen, e->ops, false))
			continue;
		return e;
	}
	return NULL;
}

/* a: the attribute named `name` of the node, or the call's attribute it refers to. */
static bool check_string_value(infer_ctx *c, const sch_row *r, const char *name, const attr_view *a,
			       const sch_attr *s)
{
	const struct string_enum *e = string_enum_of(c, r, name);
	if (!e)
		return true;
	int32_t n = a->type == AT_STRINGS ? a->n : 1;
	for (int32_t k = 0; k < n; k++) {
		const char *v = a->type == AT_STRINGS ? a->strings[k] : a->s;
		/* The documented default is a valid value, even spelled as GRU-1's "foward";
		 * ONNX Runtime reads an empty auto_pad as NOTSET. */
		if (a->type == AT_STRING && s->default_text && !strcmp(v, s->default_text))
			continue;
		if (!v[0] && !strcmp(name, "auto_pad"))
			continue;
		if (!word_in(v, strlen(v), e->values, e->nocase)) {
			if (a->type == AT_STRINGS)
				infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "%s[%d] '%s' is not one of: %s%s", name, k, v,
					   e->values, e->nocase ? " (in any case)" : "");
			else
				infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "%s '%s' is not one of: %s%s", name, v,
					   e->values, e->nocase ? " (in any case)" : "");
			return false;
		}
	}
	return true;
}

static const sch_attr *attr_schema(const sch_row *r, const char *name)
{
	for (int32_t i = 0; i < r->nattrs; i++)
		if (!strcmp(r->attrs[i].name, name))
			return &r->attrs[i];
	return NULL;
}

/* Up to this many attributes a node's names are compared pairwise; above, each is
 * looked up among the earlier ones in a map: a file may give a node 100k of them. */
#define ATTRS_PAIRWISE_MAX 16

/* Whether attribute i has the name of an earlier one; earlier: the map of them, NULL
 * for a node with few. -1 when memory ran out. */
static int given_before(const node *n, int32_t i, strmap *earlier)
{
	if (earlier) {
		int32_t at = strmap_put(earlier, n->attrs[i].name, i);
		return at == -2 ? -1 : at != i;
	}
	for (int32_t j = 0; j < i; j++)
		if (!strcmp(n->attrs[j].name, n->attrs[i].name))
			return 1;
	return 0;
}

/* Operators whose schema in ONNX Runtime takes attributes it does not list: its own
 * LayerNormalization replaces ONNX's. */
static bool takes_any_attribute(const sch_row *r) { return !r->domain[0] && !strcmp(r->op_type, "LayerNormalization"); }

/* In a function body, a required attribute given as a reference the call leaves
 * unbound is missing once ONNX Runtime inlines the body, unless the function gives
 * its attributes defaults (which are then not known here). */
static bool check_bound_refs(infer_ctx *c, const sch_row *r)
{
	if (!c->caller)
		return true;
	const graph *root = c->g;
	while (root->parent)
		root = root->parent;
	if (root->attr_defaults)
		return true;
	bool ok = true;
	for (int32_t k = 0; k < r->nattrs; k++) {
		if (!r->attrs[k].required)
			continue;
		const attr_view *a = node_attr(c->n, r->attrs[k].name);
		if (!a || !a->ref || attr(c, r->attrs[k].name))
			continue;
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "%s-%d requires the attribute '%s', which refers to the function's '%s': the call does not give "
			   "it",
			   r->op_type, r->since, r->attrs[k].name, a->ref);
		ok = false;
	}
	return ok;
}

/* In a function body, attribute a refers to the call's attribute a->ref: ONNX
 * Runtime inlines the body with the call's value in its place, and holds it to the
 * schema there (its type, a string's documented values). */
static bool check_given_ref(infer_ctx *c, const sch_row *r, const attr_view *a, const sch_attr *s)
{
	const attr_view *given = c->caller ? attr(c, a->name) : NULL;
	if (!given || given == a)
		return true;
	if (given->type != AT_UNDEFINED && given->type != (attr_type)s->type) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "attribute '%s' of %s-%d is %s; the call gives it as %s ('%s')", a->name, r->op_type,
			   r->since, attr_type_name(s->type), attr_type_name(given->type), a->ref);
		return false;
	}
	if ((given->type == AT_STRING && given->s) || given->type == AT_STRINGS)
		return check_string_value(c, r, a->name, given, s);
	return true;
}

/* False when an attribute the node's rule reads is wrong (given twice, of another
 * type, a value outside the spec's, required and missing). An attribute the schema
 * does not have is reported too, but rules do not read it. */
static bool check_attrs(infer_ctx *c, const sch_row *r)
{
	const node *n = c->n;
	bool ok = true;
	strmap names, *earlier = NULL;
	if (n->nattrs > ATTRS_PAIRWISE_MAX) {
		strmap_init(&names, c->a);
		if (!strmap_reserve(&names, (size_t)n->nattrs)) {
			c->m->nomem = true;
			return false;
		}
		earlier = &names;
	}
	for (int32_t i = 0; i < n->nattrs; i++) {
		const attr_view *a = &n->attrs[i];
		int twice = given_before(n, i, earlier);
		if (twice < 0) {
			c->m->nomem = true;
			return false;
		}
		if (twice) {
			infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "attribute '%s' is given twice", a->name);
			ok = false;
		}
		if (a->graph_index == ATTR_UNTYPED) {
			infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "attribute '%s' has no type (AttributeProto.type)",
				   a->name);
			ok = false;
		}
		const sch_attr *s = attr_schema(r, a->name);
		if (!s) {
			if (takes_any_attribute(r))
				infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
					   "'%s' is not an attribute of %s-%d (%s); ONNX Runtime's schema of it takes any",
					   a->name, r->op_type, r->since, row_domain(r));
			else
				infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "'%s' is not an attribute of %s-%d (%s)", a->name,
					   r->op_type, r->since, row_domain(r));
			continue;
		}
		/* AT_UNDEFINED: files of old converters leave the type out; the loader
		 * took it from the field that is set. */
		if (a->type != AT_UNDEFINED && a->type != (attr_type)s->type) {
			infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "attribute '%s' of %s-%d is %s, given as %s", a->name,
				   r->op_type, r->since, attr_type_name(s->type), attr_type_name(a->type));
			ok = false;
			continue;
		}
		if (a->ref) {
			if (!check_given_ref(c, r, a, s))
				ok = false;
			continue;
		}
		if (((a->type == AT_STRING && a->s) || a->type == AT_STRINGS) && !check_string_value(c, r, a->name, a, s))
			ok = false;
	}
	for (int32_t k = 0; k < r->nattrs; k++) {
		if (!r->attrs[k].required)
			continue;
		bool present = false;
		for (int32_t i = 0; i < n->nattrs && !present; i++)
			present = !strcmp(n->attrs[i].name, r->attrs[k].name);
		if (!present) {
			infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "%s-%d requires the attribute '%s' (%s)", r->op_type,
				   r->since, r->attrs[k].name, attr_type_name(r->attrs[k].type));
			ok = false;
		}
	}
	return ok;
}

/* ---- values the file fixes that the kernel cannot run -------------------------- */

/* The node of ai.onnx that produces value *id of *g, followed out of subgraphs into
 * the graph that holds it (*g and *id move there), or NULL. */
static const node *producer_of(const graph **g, int32_t *id)
{
	for (int32_t hops = 0; *id >= 0 && hops < 64; hops++) {
		const value *v = &(*g)->values[*id];
		if (v->origin == VAL_OUTER) {
			*id = value_outer_id(v);
			if (!(*g = value_outer(v)))
				return NULL;
			continue;
		}
		if (v->origin != VAL_NODE)
			return NULL;
		const node *p = &(*g)->nodes[v->producer];
		return p->domain[0] ? NULL : p;
	}
	return NULL;
}

static bool known_dim(const infer_ctx *c, const tinfo *t, int32_t axis, int64_t *out)
{
	if (!t || !tinfo_has_rank(t) || axis < 0 || axis >= t->rank)
		return false;
	dim d = dim_resolve(c->syms, t->dims[axis]);
	if (d.kind != DIM_KNOWN)
		return false;
	*out = d.v;
	return true;
}

/* How many tensors the sequence value id of g holds when the graph builds it from
 * what the file fixes (SequenceEmpty, SequenceConstruct, then SequenceInsert and
 * SequenceErase, SplitToSequence of a known split, Identity), or -1. Each node's
 * inputs are inferred before it: the shapes SplitToSequence splits are known here. */
static int64_t sequence_length(const infer_ctx *c, const graph *g, int32_t id)
{
	int64_t added = 0;
	for (int32_t hops = 0; hops < 64; hops++) {
		const node *p = producer_of(&g, &id);
		if (!p)
			return -1;
		if (!strcmp(p->op_type, "SequenceEmpty"))
			return added;
		if (!strcmp(p->op_type, "SequenceConstruct"))
			return added + p->ninputs;
		if (!strcmp(p->op_type, "Identity") || !strcmp(p->op_type, "SequenceInsert") ||
		    !strcmp(p->op_type, "SequenceErase")) {
			added += p->op_type[8] == 'I' ? 1 : p->op_type[8] == 'E' ? -1 : 0;
			id = p->ninputs ? p->inputs[0] : -1;
			continue;
		}
		if (strcmp(p->op_type, "SplitToSequence") || !p->ninputs || p->inputs[0] < 0)
			return -1;
		const tinfo *x = &g->values[p->inputs[0]].ti;
		int64_t axis = node_attr_i(p, "axis", 0), len;
		if (tinfo_has_rank(x) && axis < 0)
			axis += x->rank;
		if (axis < 0 || axis > INT32_MAX)
			return -1;
		const tinfo *split = p->ninputs > 1 && p->inputs[1] >= 0 ? &g->values[p->inputs[1]].ti : NULL;
		if (!split)
			return known_dim(c, x, (int32_t)axis, &len) ? added + len : -1;
		if (split->kind != TK_TENSOR || split->rank < 0)
			return -1;
		if (split->rank == 1)
			return known_dim(c, split, 0, &len) ? added + len : -1;
		dim each = split->rank == 0 && split->nval == 1 ? dim_resolve(c->syms, split->val[0]) : dim_unknown();
		if (each.kind != DIM_KNOWN || each.v <= 0 || !known_dim(c, x, (int32_t)axis, &len))
			return -1;
		return added + len / each.v + (len % each.v != 0);
	}
	return -1;
}

/* SequenceAt, SequenceErase and SequenceInsert at a position the file fixes, out of
 * the range of a sequence whose length it fixes: "Invalid sequence index". */
static void check_sequence_position(infer_ctx *c, const sch_row *r)
{
	bool insert = !strcmp(r->op_type, "SequenceInsert");
	int32_t at = insert ? 2 : 1;
	dim pos;
	if (!in(c, at) || !in_int1(c, at, &pos) || pos.kind != DIM_KNOWN || !in(c, 0))
		return;
	int64_t len = sequence_length(c, c->g, c->n->inputs[0]);
	if (len < 0)
		return;
	/* Insert may append (position len); the others need an element there. */
	if (pos.v < -len || pos.v > len || (pos.v == len && !insert))
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "position %lld is out of range of '%s', a sequence of %lld tensor%s: ONNX Runtime fails to run it",
			   (long long)pos.v, in_name(c, 0), (long long)len, len == 1 ? "" : "s");
}

/* OptionalGetElement of an optional built empty (Optional without its input),
 * through Identity: "Trying to use OptionalGetElement on an optional type OrtValue
 * which contains no data". */
static void check_optional_get(infer_ctx *c, const sch_row *r)
{
	(void)r;
	const graph *g = c->g;
	int32_t id = c->n->ninputs ? c->n->inputs[0] : -1;
	for (int32_t hops = 0; hops < 64; hops++) {
		const node *p = producer_of(&g, &id);
		if (!p)
			return;
		if (!strcmp(p->op_type, "Identity")) {
			id = p->ninputs ? p->inputs[0] : -1;
			continue;
		}
		if (!strcmp(p->op_type, "Optional") && (!p->ninputs || p->inputs[0] < 0))
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' is an optional built empty (Optional without an input): OptionalGetElement on it "
				   "fails at run time",
				   in_name(c, 0));
		return;
	}
}

static bool is_float8(int64_t t)
{
	return t == DT_FLOAT8E4M3FN || t == DT_FLOAT8E4M3FNUZ || t == DT_FLOAT8E5M2 || t == DT_FLOAT8E5M2FNUZ ||
	       t == DT_FLOAT8E8M0;
}

/* Cast's and CastLike's saturate and round_mode: ONNX Runtime's kernel refuses a
 * saturate of 0 for a cast to anything but a float8 type, and a round_mode other
 * than 'up' for a cast to anything but float8e8m0. */
static void check_cast(infer_ctx *c, const sch_row *r)
{
	bool like = !strcmp(r->op_type, "CastLike");
	int64_t to = like ? in_elem(c, 1) : attr_i(c, "to", 0);
	if (!to)
		return;
	const char *tn = dtype_name((int32_t)to);
	const attr_view *sat = attr(c, "saturate");
	if (sat && sat->type == AT_INT && sat->i == 0 && !is_float8(to))
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "saturate is 0 for a cast to %s: it applies to float8 targets only, and ONNX Runtime refuses "
			   "it for any other",
			   tn ? tn : "?");
	const char *round = attr_s(c, "round_mode", "up");
	if (strcmp(round, "up") && to != DT_FLOAT8E8M0)
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "round_mode is '%s' for a cast to %s: it applies to float8e8m0 only, and ONNX Runtime refuses "
			   "another mode for any other target",
			   round, tn ? tn : "?");
}

/* Scan (from version 9) over a scan input whose length is a known 0: ONNX Runtime
 * cannot slice it (Scan-8, with its batch axis, runs it). */
static void check_scan_length(infer_ctx *c, const sch_row *r)
{
	(void)r;
	int64_t nscan = attr_i(c, "num_scan_inputs", 0);
	if (nscan <= 0 || nscan > c->n->ninputs)
		return;
	const int64_t *axes = NULL;
	int32_t naxes = 0;
	attr_ints(c, "scan_input_axes", &axes, &naxes);
	for (int32_t k = 0; k < (int32_t)nscan; k++) {
		int32_t i = c->n->ninputs - (int32_t)nscan + k;
		const tinfo *t = in_ranked(c, i);
		int64_t axis = k < naxes ? axes[k] : 0, len;
		if (t && axis < 0)
			axis += t->rank;
		if (t && axis >= 0 && axis < t->rank && known_dim(c, t, (int32_t)axis, &len) && len == 0)
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "scan input %d '%s' has length 0 along its scan axis %lld: ONNX Runtime fails to run a "
				   "Scan of no iteration",
				   k, in_name(c, i), (long long)axis);
	}
}

/* An If branch takes no inputs: ONNX Runtime refuses one that declares any without
 * an initializer to give it (a model of IR version 3 lists its initializers so). */
static void check_if_branches(infer_ctx *c, const sch_row *r)
{
	(void)r;
	for (int32_t k = 0; k < c->n->nsubgraphs; k++) {
		const graph *sg = c->n->subgraphs[k];
		for (int32_t i = 0; i < sg->ninputs; i++) {
			const value *v = &sg->values[sg->inputs[i]];
			if (v->init_view)
				continue;
			infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
				   "%s declares the input '%s': an If branch takes none, and ONNX Runtime refuses it", sg->path,
				   v->name);
			break;
		}
	}
}

/* ONNX Runtime's RNN, GRU and LSTM kernels need hidden_size, which the schemas leave
 * optional. */
static void check_hidden_size(infer_ctx *c, const sch_row *r)
{
	if (!attr(c, "hidden_size"))
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "%s has no hidden_size: the schema leaves it optional, ONNX Runtime's kernel requires it",
			   r->op_type);
}

/* An integer attribute the documentation gives the values 0 and 1 (a flag), which
 * ONNX Runtime's kernel refuses outside them. Flags its kernels read as "not 0" are
 * left alone (Gemm's transA, TopK's largest...). */
static void check_flag(infer_ctx *c, const char *name)
{
	const attr_view *a = attr(c, name);
	if (a && a->type == AT_INT && a->i != 0 && a->i != 1)
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "%s is %lld: it must be 0 or 1", name, (long long)a->i);
}

static void check_cumsum(infer_ctx *c, const sch_row *r)
{
	(void)r;
	check_flag(c, "exclusive");
	check_flag(c, "reverse");
}

static void check_storage_order(infer_ctx *c, const sch_row *r)
{
	(void)r;
	check_flag(c, "storage_order");
}

static void check_fmod(infer_ctx *c, const sch_row *r)
{
	(void)r;
	check_flag(c, "fmod");
}

static void check_center_point_box(infer_ctx *c, const sch_row *r)
{
	(void)r;
	check_flag(c, "center_point_box");
}

/* Attention's qk_matmul_output_mode picks what its fourth output holds: ONNX Runtime
 * refuses a mode it does not know when that output is wanted. */
static void check_attention(infer_ctx *c, const sch_row *r)
{
	(void)r;
	int64_t mode = attr_i(c, "qk_matmul_output_mode", 0);
	if (out_present(c, 3) && (mode < -1 || mode > 3))
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "qk_matmul_output_mode is %lld: it must be 0, 1, 2 or 3 for output 3 ('qk_matmul_output')",
			   (long long)mode);
}

/* Inputs first to last of the node, when their rank is known: ONNX Runtime's kernel
 * wants them 1-D, or (lowest 0) scalars too, and fails to run on another rank. */
static void check_input_ranks(infer_ctx *c, const sch_row *r, int32_t first, int32_t last, int32_t lowest)
{
	for (int32_t i = first; i <= last && i < c->n->ninputs; i++) {
		const tinfo *t = in_ranked(c, i);
		if (t && (t->rank > 1 || t->rank < lowest)) {
			const sch_param *f = formal_of(r, r->inputs, r->ninputs, i);
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "%s '%s' has rank %d: ONNX Runtime's %s kernel wants a 1-D tensor%s", f ? f->name : "input",
				   in_name(c, i), t->rank, r->op_type, lowest ? "" : " or a scalar");
		}
	}
}

/* Squeeze with its optional axes listed as '': ONNX Runtime's kernel takes a second
 * input as axes given, and fails on the empty one ("Axes input is null"); left off,
 * the axes are every dimension of 1 (as in a branch ONNX Runtime inlines, which drops
 * trailing empty inputs). */
static void check_squeeze_axes(infer_ctx *c, const sch_row *r)
{
	if (c->n->ninputs >= 2 && c->n->inputs[1] < 0 && !trailing_in_fixed_branch(c, 1))
		infer_diag(c, OSH_ERROR, DIAG_ARITY_ERROR,
			   "%s-%d's axes is listed as '': ONNX Runtime's kernel then looks for the axes and fails to run "
			   "(leave the input off to squeeze every dimension of 1)",
			   r->op_type, r->since);
	check_input_ranks(c, r, 1, 1, 1);
}

static void check_unsqueeze_axes(infer_ctx *c, const sch_row *r) { check_input_ranks(c, r, 1, 1, 0); }

/* Slice's starts, ends, axes and steps: ONNX Runtime's kernel wants each 1-D. */
static void check_slice_inputs(infer_ctx *c, const sch_row *r) { check_input_ranks(c, r, 1, 4, 1); }

/* Split with num_outputs and a split input listed as '': ONNX Runtime's kernel counts
 * it as given and refuses the pair (a split given is the rule's to report). */
static void check_split_count(infer_ctx *c, const sch_row *r)
{
	if (attr(c, "num_outputs") && c->n->ninputs >= 2 && c->n->inputs[1] < 0 && !trailing_in_fixed_branch(c, 1))
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "%s-%d has num_outputs and lists its split input as '': ONNX Runtime counts it as given "
			   "and refuses the two together",
			   r->op_type, r->since);
}

/* RegexFullMatch's pattern, optional in the schema, is one ONNX Runtime's kernel
 * cannot do without. */
static void check_regex_pattern(infer_ctx *c, const sch_row *r)
{
	if (!attr(c, "pattern"))
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "%s has no pattern: the schema leaves it optional, ONNX Runtime's kernel requires it",
			   r->op_type);
}

/* Whether input i of the node is a value ONNX's inference, as ONNX Runtime runs it
 * when it loads the model, has no content of: a graph input without an initializer or
 * an output of a node other than a Constant (an outer value may be an initializer). */
static bool content_unseen_at_load(const infer_ctx *c, int32_t i)
{
	int32_t id = i < c->n->ninputs ? c->n->inputs[i] : -1;
	if (id < 0)
		return false;
	const value *v = &c->g->values[id];
	if (v->origin == VAL_INPUT)
		return !v->init_view;
	return v->origin == VAL_NODE && v->producer >= 0 && strcmp(c->g->nodes[v->producer].op_type, "Constant");
}

/* Resize's and Upsample's scales and sizes inputs where the file fixes their shapes
 * but not their content: ONNX's inference refuses sizes of a rank other than 1 ("shape
 * input must be 1D tensor"), and ONNX Runtime's kernel scales of a count other than
 * X's rank when no axes are given. */
static void check_resize_inputs(infer_ctx *c, const sch_row *r)
{
	bool resize11 = !strcmp(r->op_type, "Resize") && r->since >= 11;
	int32_t si = resize11 ? 2 : 1;
	const tinfo *sizes = resize11 ? in_ranked(c, 3) : NULL;
	if (sizes && sizes->rank != 1 && content_unseen_at_load(c, 3))
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "sizes '%s' has rank %d: ONNX's inference, which ONNX Runtime runs on loading, wants a 1-D "
			   "sizes when the file does not fix its content",
			   in_name(c, 3), sizes->rank);
	const tinfo *x = in_ranked(c, 0), *scales = in_ranked(c, si);
	if (!x || !scales || scales->nfval >= 0 || scales->nval >= 0 || attr(c, "axes"))
		return;
	int64_t count = 1, len;
	for (int32_t k = 0; k < scales->rank; k++) {
		if (!known_dim(c, scales, k, &len))
			return;
		count *= len;
	}
	if (count > 0 && count != x->rank)
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "scales '%s' holds %lld values for '%s' of rank %d: ONNX Runtime's kernel wants one per "
			   "dimension",
			   in_name(c, si), (long long)count, in_name(c, 0), x->rank);
}

/* The check of each row whose values are checked, by sch_id: one load per node (it
 * runs for every node). A designated initializer per row, as rule_table.c's. */
static void (*const value_checks[SCH_NROWS])(infer_ctx *c, const sch_row *r) = {
	[SCH_ai_onnx__Attention_23] = check_attention, [SCH_ai_onnx__Attention_24] = check_attention,
	[SCH_ai_onnx__Attention_25] = check_attention,
	[SCH_ai_onnx__Cast_19] = check_cast, [SCH_ai_onnx__Cast_21] = check_cast, [SCH_ai_onnx__Cast_23] = check_cast,
	[SCH_ai_onnx__Cast_24] = check_cast, [SCH_ai_onnx__Cast_25] = check_cast,
	[SCH_ai_onnx__CastLike_19] = check_cast, [SCH_ai_onnx__CastLike_21] = check_cast,
	[SCH_ai_onnx__CastLike_23] = check_cast, [SCH_ai_onnx__CastLike_24] = check_cast,
	[SCH_ai_onnx__CastLike_25] = check_cast,
	[SCH_ai_onnx__CumSum_11] = check_cumsum, [SCH_ai_onnx__CumSum_14] = check_cumsum,
	[SCH_ai_onnx__GRU_1] = check_hidden_size, [SCH_ai_onnx__GRU_3] = check_hidden_size,
	[SCH_ai_onnx__GRU_7] = check_hidden_size, [SCH_ai_onnx__GRU_14] = check_hidden_size,
	[SCH_ai_onnx__GRU_22] = check_hidden_size,
	[SCH_ai_onnx__If_1] = check_if_branches, [SCH_ai_onnx__If_11] = check_if_branches,
	[SCH_ai_onnx__If_13] = check_if_branches, [SCH_ai_onnx__If_16] = check_if_branches,
	[SCH_ai_onnx__If_19] = check_if_branches, [SCH_ai_onnx__If_21] = check_if_branches,
	[SCH_ai_onnx__If_23] = check_if_branches, [SCH_ai_onnx__If_24] = check_if_branches,
	[SCH_ai_onnx__If_25] = check_if_branches,
	[SCH_ai_onnx__LSTM_1] = check_hidden_size, [SCH_ai_onnx__LSTM_7] = check_hidden_size,
	[SCH_ai_onnx__LSTM_14] = check_hidden_size, [SCH_ai_onnx__LSTM_22] = check_hidden_size,
	[SCH_ai_onnx__MaxPool_8] = check_storage_order, [SCH_ai_onnx__MaxPool_10] = check_storage_order,
	[SCH_ai_onnx__MaxPool_11] = check_storage_order, [SCH_ai_onnx__MaxPool_12] = check_storage_order,
	[SCH_ai_onnx__MaxPool_22] = check_storage_order,
	[SCH_ai_onnx__Mod_10] = check_fmod, [SCH_ai_onnx__Mod_13] = check_fmod,
	[SCH_ai_onnx__NonMaxSuppression_10] = check_center_point_box,
	[SCH_ai_onnx__NonMaxSuppression_11] = check_center_point_box,
	[SCH_ai_onnx__OptionalGetElement_15] = check_optional_get,
	[SCH_ai_onnx__OptionalGetElement_18] = check_optional_get,
	[SCH_ai_onnx__RNN_1] = check_hidden_size, [SCH_ai_onnx__RNN_7] = check_hidden_size,
	[SCH_ai_onnx__RNN_14] = check_hidden_size, [SCH_ai_onnx__RNN_22] = check_hidden_size,
	[SCH_ai_onnx__Scan_9] = check_scan_length, [SCH_ai_onnx__Scan_11] = check_scan_length,
	[SCH_ai_onnx__Scan_16] = check_scan_length, [SCH_ai_onnx__Scan_19] = check_scan_length,
	[SCH_ai_onnx__Scan_21] = check_scan_length, [SCH_ai_onnx__Scan_23] = check_scan_length,
	[SCH_ai_onnx__Scan_24] = check_scan_length, [SCH_ai_onnx__Scan_25] = check_scan_length,
	[SCH_ai_onnx__RegexFullMatch_20] = check_regex_pattern,
	[SCH_ai_onnx__Resize_10] = check_resize_inputs, [SCH_ai_onnx__Resize_11] = check_resize_inputs,
	[SCH_ai_onnx__Resize_13] = check_resize_inputs, [SCH_ai_onnx__Resize_18] = check_resize_inputs,
	[SCH_ai_onnx__Resize_19] = check_resize_inputs,
	[SCH_ai_onnx__Split_18] = check_split_count,
	[SCH_ai_onnx__Slice_10] = check_slice_inputs, [SCH_ai_onnx__Slice_11] = check_slice_inputs,
	[SCH_ai_onnx__Slice_13] = check_slice_inputs,
	[SCH_ai_onnx__Unsqueeze_13] = check_unsqueeze_axes, [SCH_ai_onnx__Unsqueeze_21] = check_unsqueeze_axes,
	[SCH_ai_onnx__Unsqueeze_23] = check_unsqueeze_axes, [SCH_ai_onnx__Unsqueeze_24] = check_unsqueeze_axes,
	[SCH_ai_onnx__Unsqueeze_25] = check_unsqueeze_axes,
	[SCH_ai_onnx__Squeeze_13] = check_squeeze_axes, [SCH_ai_onnx__Squeeze_21] = check_squeeze_axes,
	[SCH_ai_onnx__Squeeze_23] = check_squeeze_axes, [SCH_ai_onnx__Squeeze_24] = check_squeeze_axes,
	[SCH_ai_onnx__Squeeze_25] = check_squeeze_axes,
	[SCH_ai_onnx__SequenceAt_11] = check_sequence_position,
	[SCH_ai_onnx__SequenceErase_11] = check_sequence_position,
	[SCH_ai_onnx__SequenceInsert_11] = check_sequence_position,
};

static void check_values(infer_ctx *c, const sch_row *r, int32_t id)
{
	if (value_checks[id])
		value_checks[id](c, r);
}

/* ---- Constant in the main graph -------------------------------------------------- */

/* ONNX Runtime turns every Constant of the main graph into an initializer before it
 * checks a node: it reads the first attribute by its type, whatever its name and
 * the opset, and looks at nothing else. Subgraphs and function bodies keep their
 * Constants as nodes, checked as any other. */
static bool is_main_constant(const infer_ctx *c, int32_t id)
{
	return id >= SCH_ai_onnx__Constant_1 && id <= SCH_ai_onnx__Constant_25 && c->g == c->m->main && !c->caller;
}

static bool check_main_constant(infer_ctx *c, const sch_row *r)
{
	const node *n = c->n;
	if (!n->nattrs) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "Constant has no attribute: ONNX Runtime refuses it");
		return false;
	}
	const attr_view *a = &n->attrs[0];
	switch (a->graph_index == ATTR_UNTYPED ? AT_UNDEFINED : a->type) {
	case AT_TENSOR:
	case AT_SPARSE_TENSOR:
	case AT_FLOAT:
	case AT_FLOATS:
	case AT_INT:
	case AT_INTS:
	case AT_STRING:
	case AT_STRINGS:
		break;
	default:
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "Constant's first attribute '%s' is of type %s, which ONNX Runtime cannot make a tensor of",
			   a->name, attr_type_name(a->type));
		return false;
	}
	if (a->type == AT_TENSOR && !a->t) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "Constant's first attribute '%s' is typed %s but holds none: ONNX Runtime refuses it", a->name,
			   attr_type_name(a->type));
		return false;
	}
	const sch_attr *s = attr_schema(r, a->name);
	if (n->nattrs != 1 || !s || (attr_type)s->type != a->type)
		infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
			   "Constant-%d takes one of its value attributes, the node has %d attribute%s, the first '%s' "
			   "(%s): ONNX Runtime makes a Constant of the main graph an initializer from its first attribute "
			   "and ignores the rest",
			   r->since, n->nattrs, n->nattrs == 1 ? "" : "s", a->name, attr_type_name(a->type));
	return check_arity(c, r);
}

/* ---- the node -------------------------------------------------------------------- */

bool check_schema_node(infer_ctx *c, const sch_row *r)
{
	/* A deprecated version has no signature: it marks the operator as gone from
	 * that opset on, and ONNX Runtime refuses it there (Upsample from 10, Scatter
	 * from 11), unless a later version brings it back (GroupNormalization-21):
	 * then it still runs the old one. */
	if (r->deprecated) {
		const sch_row *newest = schema_lookup(r->domain, r->op_type, INT32_MAX);
		if (newest != r) {
			infer_diag(c, OSH_WARNING, DIAG_DEPRECATED,
				   "%s-%d is deprecated (%s-%d replaces it): its signature is not checked", r->op_type,
				   r->since, newest->op_type, newest->since);
			return true;
		}
		infer_diag(c, OSH_ERROR, DIAG_OP_NOT_IN_OPSET,
			   "%s was deprecated in opset %d of %s: ONNX Runtime refuses it from then on", r->op_type,
			   r->deprecated, row_domain(r));
		return false;
	}
	int32_t id = schema_index(r);
	if (is_main_constant(c, id))
		return check_main_constant(c, r);
	if (!check_arity(c, r))
		return false;
	bool attrs_ok = check_attrs(c, r);
	if (c->caller)
		attrs_ok &= check_bound_refs(c, r);
	check_types(c, r);
	if (attrs_ok && !c->checks_only)
		check_values(c, r, id);
	return attrs_ok;
}

/* ONNX Runtime's own LayerNormalization (before opset 17) and
 * SimplifiedLayerNormalization: X of T, scale and B of V, both float16, float, double
 * or bfloat16, which it holds the node to as to any schema's. */
static bool check_ort_layernorm(infer_ctx *c)
{
	const node *n = c->n;
	int32_t v = 0, v_at = -1;
	for (int32_t k = 0; k < n->ninputs && k < 3; k++) {
		int32_t e = in(c, k) && in(c, k)->kind == TK_TENSOR ? in_elem(c, k) : 0;
		if (!e)
			continue;
		const char *en = dtype_name(e);
		if (e != DT_FLOAT && e != DT_DOUBLE && e != DT_FLOAT16 && e != DT_BFLOAT16) {
			infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR,
				   "input %d '%s' is %s: ONNX Runtime's %s takes FLOAT16, FLOAT, DOUBLE or BFLOAT16",
				   k, in_name(c, k), en ? en : "?", n->op_type);
			return false;
		}
		if (k == 0)
			continue;
		if (v && e != v) {
			const char *vn = dtype_name(v);
			infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR,
				   "input %d '%s' is %s but input %d '%s' is %s: ONNX Runtime's %s takes one type V "
				   "for its scale and bias",
				   v_at, in_name(c, v_at), vn ? vn : "?", k, in_name(c, k), en ? en : "?", n->op_type);
			return false;
		}
		v = e, v_at = k;
	}
	return true;
}

bool check_schema_missing(infer_ctx *c)
{
	const node *n = c->n;
	if (n->opset < 0)
		return true;
	const char *dom = n->domain[0] ? n->domain : "ai.onnx";
	/* ONNX Runtime registers kernels of its own in ai.onnx where ONNX has none
	 * (ops_ort_extra.def's ORT_EXTRA rows: LayerNormalization before opset 17,
	 * SimplifiedLayerNormalization, and up to opset 9 the experimental operators
	 * ONNX removed, Crop, ImageScaler...) and runs them: the spec's complaint only,
	 * but for the types their schemas take. */
	const ort_extra *extra = rule_ort_extra(n->domain, n->op_type, n->opset);
	if (extra) {
		infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
			   "%s is not defined in opset %lld of %s; ONNX Runtime runs its own kernel of that name",
			   n->op_type, (long long)n->opset, dom);
		if (strstr(n->op_type, "LayerNormalization"))
			return check_ort_layernorm(c);
		int32_t e = in_elem(c, 0);
		if (extra->floats_only && e && e != DT_FLOAT && e != DT_DOUBLE && e != DT_FLOAT16) {
			const char *en = dtype_name(e);
			infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR,
				   "input 0 '%s' is %s: ONNX Runtime's %s takes FLOAT16, FLOAT or DOUBLE", in_name(c, 0),
				   en ? en : "?", n->op_type);
			return false;
		}
		return true;
	}
	const sch_row *later = schema_lookup(n->domain, n->op_type, INT32_MAX);
	if (!later && model_function(c->m, n->domain, n->op_type)) {
		infer_diag(c, OSH_ERROR, DIAG_OP_NOT_IN_OPSET,
			   "%s is a model-local function of %s, a domain of ONNX's own operators: ONNX Runtime "
			   "looks it up there and refuses the call (give the function a domain of its own)",
			   n->op_type, dom);
		return false;
	}
	if (!later) {
		infer_diag(c, OSH_ERROR, DIAG_OP_NOT_IN_OPSET, "%s is not an operator of %s", n->op_type, dom);
		return false;
	}
	/* The first version: the rows of one operator are ordered by since. */
	int32_t first = later->since;
	for (int64_t v = later->since - 1; v >= 1; v--) {
		const sch_row *r = schema_lookup(n->domain, n->op_type, v);
		if (!r)
			break;
		first = r->since;
		v = r->since;
	}
	infer_diag(c, OSH_ERROR, DIAG_OP_NOT_IN_OPSET, "%s is not defined in opset %lld of %s: it came in opset %d",
		   n->op_type, (long long)n->opset, dom, first);
	return false;
}
