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
				infer_diag(c, OSH_ERROR, "type-error",
					   "input %d '%s' (%s) is %s, which %s-%d does not take: %s of %s is one of %s", k,
					   in_name(c, k), f->name, got, r->op_type, r->since,
					   r->constraints[f->constraint].var, r->op_type, want);
			else
				infer_diag(c, OSH_ERROR, "type-error", "input %d '%s' (%s) is %s; %s-%d takes %s", k,
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
			infer_diag(c, OSH_ERROR, "type-error",
				   "input %d '%s' is %s but input %d '%s' is %s: %s takes one type %s for both",
				   bound_by[v], in_name(c, bound_by[v]), first, k, in_name(c, k), got, r->op_type,
				   r->constraints[v].var);
		}
	}
}

/* ---- arity ----------------------------------------------------------------------- */

static bool check_arity(infer_ctx *c, const sch_row *r)
{
	const node *n = c->n;
	if (n->ninputs < r->min_inputs || n->ninputs > r->max_inputs) {
		if (r->min_inputs == r->max_inputs)
			infer_diag(c, OSH_ERROR, "arity-error", "%s-%d takes %d input%s, the node has %d", r->op_type,
				   r->since, r->min_inputs, r->min_inputs == 1 ? "" : "s", n->ninputs);
		else if (r->max_inputs == INT32_MAX)
			infer_diag(c, OSH_ERROR, "arity-error", "%s-%d takes at least %d input%s, the node has %d",
				   r->op_type, r->since, r->min_inputs, r->min_inputs == 1 ? "" : "s", n->ninputs);
		else
			infer_diag(c, OSH_ERROR, "arity-error", "%s-%d takes %d to %d inputs, the node has %d", r->op_type,
				   r->since, r->min_inputs, r->max_inputs, n->ninputs);
		return false;
	}
	for (int32_t k = 0; k < n->ninputs; k++) {
		const sch_param *f = formal_of(r, r->inputs, r->ninputs, k);
		if (n->inputs[k] < 0 && f && f->option == SCH_SINGLE) {
			infer_diag(c, OSH_ERROR, "arity-error", "input %d (%s) of %s-%d is required, the node leaves it empty",
				   k, f->name, r->op_type, r->since);
			return false;
		}
	}
	if (n->noutputs < r->min_outputs || n->noutputs > r->max_outputs) {
		if (r->min_outputs == r->max_outputs)
			infer_diag(c, OSH_ERROR, "arity-error", "%s-%d has %d output%s, the node lists %d", r->op_type,
				   r->since, r->min_outputs, r->min_outputs == 1 ? "" : "s", n->noutputs);
		else
			infer_diag(c, OSH_ERROR, "arity-error", "%s-%d has %d to %d outputs, the node lists %d", r->op_type,
				   r->since, r->min_outputs, r->max_outputs, n->noutputs);
		return false;
	}
	return true;
}

/* ---- attributes ------------------------------------------------------------------ */

static const char *attr_type_name(int t)
{
	static const char *const names[] = {"undefined", "float", "int", "string", "tensor", "graph",
					    "floats", "ints", "strings", "tensors", "graphs", "sparse_tensor",
					    "sparse_tensors", "type_proto", "type_protos"};
	return t >= 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* The values the spec allows for a string attribute, where it enumerates them: one
 * string per (attribute, operators) pair, "" matching any operator. */
static const struct {
	const char *attr;
	const char *ops; /* space-separated, "" for any */
	const char *values; /* space-separated */
} string_enums[] = {
	{"auto_pad", "", "NOTSET SAME_UPPER SAME_LOWER VALID"},
	{"mode", "Pad", "constant reflect edge wrap"},
	{"mode", "Resize Upsample", "nearest linear cubic bilinear trilinear"},
	{"coordinate_transformation_mode", "Resize",
	 "half_pixel half_pixel_symmetric pytorch_half_pixel align_corners asymmetric tf_half_pixel_for_nn "
	 "tf_crop_and_resize"},
	{"nearest_mode", "Resize", "round_prefer_floor round_prefer_ceil floor ceil"},
	{"keep_aspect_ratio_policy", "Resize", "stretch not_larger not_smaller"},
	{"reduction", "ScatterElements ScatterND", "none add mul max min"},
	{"direction", "RNN GRU LSTM", "forward reverse bidirectional"},
	{"padding_mode", "GridSample", "zeros border reflection"},
};

static bool word_in(const char *word, size_t n, const char *list)
{
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && !memcmp(p, word, n))
			return true;
		p += k + (p[k] == ' ');
	}
	return false;
}

static bool check_string_value(infer_ctx *c, const attr_view *a, const sch_attr *s)
{
	/* The documented default is a valid value, even spelled as GRU-1's "foward". */
	if (s->default_text && !strcmp(a->s, s->default_text))
		return true;
	size_t oplen = strlen(c->n->op_type);
	for (size_t i = 0; i < sizeof string_enums / sizeof string_enums[0]; i++) {
		if (strcmp(string_enums[i].attr, a->name) != 0)
			continue;
		if (string_enums[i].ops[0] && !word_in(c->n->op_type, oplen, string_enums[i].ops))
			continue;
		if (!word_in(a->s, strlen(a->s), string_enums[i].values)) {
			infer_diag(c, OSH_ERROR, "attribute-error", "%s '%s' is not one of: %s", a->name, a->s,
				   string_enums[i].values);
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
			infer_diag(c, OSH_ERROR, "attribute-error", "attribute '%s' is given twice", a->name);
			ok = false;
		}
		if (a->graph_index == ATTR_UNTYPED) {
			infer_diag(c, OSH_ERROR, "attribute-error", "attribute '%s' has no type (AttributeProto.type)",
				   a->name);
			ok = false;
		}
		const sch_attr *s = attr_schema(r, a->name);
		if (!s) {
			infer_diag(c, OSH_ERROR, "attribute-error", "'%s' is not an attribute of %s-%d (%s)", a->name,
				   r->op_type, r->since, row_domain(r));
			continue;
		}
		/* AT_UNDEFINED: files of old converters leave the type out; the loader
		 * took it from the field that is set. */
		if (a->type != AT_UNDEFINED && a->type != (attr_type)s->type) {
			infer_diag(c, OSH_ERROR, "attribute-error", "attribute '%s' of %s-%d is %s, given as %s", a->name,
				   r->op_type, r->since, attr_type_name(s->type), attr_type_name(a->type));
			ok = false;
			continue;
		}
		if (a->type == AT_STRING && !a->ref && a->s && !check_string_value(c, a, s))
			ok = false;
	}
	for (int32_t k = 0; k < r->nattrs; k++) {
		if (!r->attrs[k].required)
			continue;
		bool present = false;
		for (int32_t i = 0; i < n->nattrs && !present; i++)
			present = !strcmp(n->attrs[i].name, r->attrs[k].name);
		if (!present) {
			infer_diag(c, OSH_ERROR, "attribute-error", "%s-%d requires the attribute '%s' (%s)", r->op_type,
				   r->since, r->attrs[k].name, attr_type_name(r->attrs[k].type));
			ok = false;
		}
	}
	return ok;
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
			infer_diag(c, OSH_WARNING, "deprecated",
				   "%s-%d is deprecated (%s-%d replaces it): its signature is not checked", r->op_type,
				   r->since, newest->op_type, newest->since);
			return true;
		}
		infer_diag(c, OSH_ERROR, "op-not-in-opset",
			   "%s was deprecated in opset %d of %s: ONNX Runtime refuses it from then on", r->op_type,
			   r->deprecated, row_domain(r));
		return false;
	}
	if (!check_arity(c, r))
		return false;
	bool attrs_ok = check_attrs(c, r);
	check_types(c, r);
	return attrs_ok;
}

bool check_schema_missing(infer_ctx *c)
{
	const node *n = c->n;
	if (n->opset < 0)
		return true;
	const char *dom = n->domain[0] ? n->domain : "ai.onnx";
	/* ONNX Runtime registers kernels of its own in ai.onnx where ONNX has none
	 * (ops_ms.def's ORT_EXTRA rows: LayerNormalization before opset 17,
	 * SimplifiedLayerNormalization) and runs them: the spec's complaint only. */
	if (rule_ort_extra(n->domain, n->op_type)) {
		infer_diag(c, OSH_WARNING, "not-in-spec",
			   "%s is not defined in opset %lld of %s; ONNX Runtime runs its own kernel of that name",
			   n->op_type, (long long)n->opset, dom);
		return true;
	}
	const sch_row *later = schema_lookup(n->domain, n->op_type, INT32_MAX);
	if (!later && model_function(c->m, n->domain, n->op_type)) {
		infer_diag(c, OSH_ERROR, "op-not-in-opset",
			   "%s is a model-local function of %s, a domain of ONNX's own operators: ONNX Runtime "
			   "looks it up there and refuses the call (give the function a domain of its own)",
			   n->op_type, dom);
		return false;
	}
	if (!later) {
		infer_diag(c, OSH_ERROR, "op-not-in-opset", "%s is not an operator of %s", n->op_type, dom);
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
	infer_diag(c, OSH_ERROR, "op-not-in-opset", "%s is not defined in opset %lld of %s: it came in opset %d",
		   n->op_type, (long long)n->opset, dom, first);
	return false;
}
