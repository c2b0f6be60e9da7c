/* validate.c: structural checks on the unpacked messages that do not need the index:
 * the model header and opset imports, data types, dims, and the agreement between a
 * tensor's dims and the data it carries.
 *
 * A finding is a malformed-model error when the rest cannot be read or indexed
 * without guessing. What ONNX Runtime refuses although the model can still be indexed
 * (an opset or IR version newer than any released, an element type of 0) is an error
 * of its own code, and what only the spec forbids (ONNX Runtime loads it) is a
 * not-in-spec warning; a declared shape with more elements than any tensor is a
 * shape-error (see validate_declared_dims). Nothing here stops the load, so a file
 * with several problems reports all of them.
 */
#include "core/dtype.h"
#include "core/schema/schema.h"
#include "loader/loader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Multiplies the dims, refusing negatives and int64 overflow. */
static bool element_count(const int64_t *dims, size_t n, int64_t *count, size_t *bad)
{
	int64_t c = 1;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0) {
			*bad = i;
			return false;
		}
		if (__builtin_mul_overflow(c, dims[i], &c)) {
			*bad = n;
			return false;
		}
	}
	*count = c;
	return true;
}

/* How many entries of a typed field n elements of type t occupy, and which field. */
static size_t typed_count(const Onnx__TensorProto *t, int64_t dt, int64_t n, int64_t *want)
{
	*want = n;
	switch (dt) {
	case DT_FLOAT:
		return t->n_float_data;
	case DT_COMPLEX64:
		*want = n > INT64_MAX / 2 ? INT64_MAX : n * 2; /* no real tensor gets there */
		return t->n_float_data;
	case DT_DOUBLE:
		return t->n_double_data;
	case DT_COMPLEX128:
		*want = n > INT64_MAX / 2 ? INT64_MAX : n * 2;
		return t->n_double_data;
	case DT_INT64:
		return t->n_int64_data;
	case DT_UINT32:
	case DT_UINT64:
		return t->n_uint64_data;
	case DT_STRING:
		return t->n_string_data;
	case DT_UINT4:
	case DT_INT4:
	case DT_FLOAT4E2M1:
		*want = n / 2 + n % 2; /* two 4-bit values per int32 entry */
		return t->n_int32_data;
	case DT_UINT2:
	case DT_INT2:
		*want = n / 4 + (n % 4 != 0);
		return t->n_int32_data;
	default: /* the remaining small types are widened into int32_data */
		return t->n_int32_data;
	}
}

static size_t typed_total(const Onnx__TensorProto *t)
{
	return t->n_float_data + t->n_int32_data + t->n_string_data + t->n_int64_data +
	       t->n_double_data + t->n_uint64_data;
}

/* W: how messages name t (tensor_what), written only when there is a message. */
#define W tensor_what(label, t, buf)

/* A finding about a tensor's data alone (its size against the dims, the field it is
 * in): reported as malformed, or written into `why` (cap bytes) for the caller to
 * report once it knows whether anything reads the tensor. */
static void data_finding(osh_model *m, const graph *g, int32_t ni, const char *name, char *why, size_t cap,
			 const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;

static void data_finding(osh_model *m, const graph *g, int32_t ni, const char *name, char *why, size_t cap,
			 const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why ? why : buf, why ? cap : sizeof buf, fmt, ap);
	va_end(ap);
	if (!why)
		malformed(m, g, ni, name, "%s", buf);
}

static bool check_tensor(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t, const char *label,
			 char *why, size_t cap)
{
	if (why)
		why[0] = '\0';
	char buf[TENSOR_WHAT_CAP];
	const char *name = t->name ? t->name : "";
	int64_t dt = t->has_data_type ? t->data_type : 0;
	if (!dtype_valid(dt)) {
		malformed(m, g, ni, name, "%s has %s data type %lld", W,
			  dt == 0 ? "no (UNDEFINED)" : "an unknown", (long long)dt);
		return false;
	}
	int64_t n;
	size_t bad;
	if (!element_count(t->dims, t->n_dims, &n, &bad)) {
		if (bad < t->n_dims)
			malformed(m, g, ni, name, "%s has a negative dimension %lld at axis %zu", W,
				  (long long)t->dims[bad], bad);
		else
			malformed(m, g, ni, name, "%s has dims whose element count overflows int64",
				  W);
		return false;
	}
	if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		validate_external(m, g, ni, t, label);
		return false;
	}
	if (t->has_data_location && t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT) {
		malformed(m, g, ni, name, "%s has an unknown data_location %d", W,
			  (int)t->data_location);
		return false;
	}
	if (t->segment)
		return false; /* a segment of a larger tensor: its data is a slice we cannot size */
	if (t->has_raw_data) {
		uint64_t want;
		if (dt == DT_STRING) {
			malformed(m, g, ni, name, "%s is a STRING tensor with raw_data (strings must use string_data)",
				  W);
		} else if (!dtype_raw_bytes(dt, n, &want) || want != (uint64_t)t->raw_data.len) {
			data_finding(m, g, ni, name, why, cap, "%s: raw_data holds %zu bytes but %lld elements of %s need %llu",
				     W, t->raw_data.len, (long long)n, dtype_name(dt), (unsigned long long)want);
		} else if (typed_total(t)) {
			/* ONNX Runtime reads raw_data where it takes the tensor as it is (the main
			 * graph's initializers and Constants); everywhere else ONNX's checker
			 * refuses a tensor of two value fields. */
			bool as_is = g && g == m->main &&
				     (ni < 0 || (!g->nodes[ni].domain[0] && !strcmp(g->nodes[ni].op_type, "Constant")));
			if (as_is)
				model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, name,
					   "%s has both raw_data and typed data fields: the spec wants one; ONNX Runtime reads "
					   "raw_data",
					   W);
			else
				model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, ni, name,
					   "%s has both raw_data and typed data fields: ONNX Runtime refuses a tensor of two "
					   "value fields there",
					   W);
		}
		return why && why[0];
	}
	int64_t want;
	size_t have = typed_count(t, dt, n, &want);
	size_t total = typed_total(t);
	if (total != have)
		data_finding(m, g, ni, name, why, cap, "%s of type %s stores its data in the wrong field", W,
			     dtype_name(dt));
	else if ((uint64_t)have != (uint64_t)want)
		data_finding(m, g, ni, name, why, cap, "%s: dims give %lld elements but the data holds %zu%s", W,
			     (long long)n, have, want != n ? " entries" : "");
	return why && why[0];
}

void validate_tensor(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
		     const char *label)
{
	check_tensor(m, g, ni, t, label, NULL, 0);
}

bool validate_tensor_data_later(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
				const char *label, char *why, size_t cap)
{
	return check_tensor(m, g, ni, t, label, why, cap);
}

#undef W

/* Entry k of an integer tensor whose data was validated (raw_data little-endian, or
 * the typed field of its type); false for a type that cannot index. */
static bool int_entry(const Onnx__TensorProto *t, size_t k, int64_t *out)
{
	int64_t dt = t->data_type;
	size_t w = dt == DT_INT64 ? 8 : dt == DT_INT32 ? 4 : dt == DT_INT16 ? 2 : dt == DT_INT8 ? 1 : 0;
	if (!w)
		return false;
	if (t->has_raw_data) {
		if ((k + 1) * w > t->raw_data.len)
			return false;
		uint64_t u = 0;
		for (size_t b = 0; b < w; b++)
			u |= (uint64_t)t->raw_data.data[k * w + b] << (8 * b);
		if (w < 8 && (u >> (8 * w - 1)) & 1)
			u |= ~UINT64_C(0) << (8 * w); /* sign-extend */
		*out = (int64_t)u;
		return true;
	}
	if (dt == DT_INT64) {
		if (k >= t->n_int64_data)
			return false;
		*out = t->int64_data[k];
		return true;
	}
	if (k >= t->n_int32_data)
		return false;
	*out = t->int32_data[k];
	return true;
}

void validate_sparse(osh_model *m, const graph *g, int32_t ni, const Onnx__SparseTensorProto *st, const char *what)
{
	const Onnx__TensorProto *vals = st->values, *idx = st->indices;
	if (!vals || !idx || (idx->has_data_location && idx->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL))
		return;
	int64_t numel, nnz, nidx;
	size_t bad;
	if (!element_count(st->dims, st->n_dims, &numel, &bad) || !element_count(vals->dims, vals->n_dims, &nnz, &bad) ||
	    !element_count(idx->dims, idx->n_dims, &nidx, &bad))
		return; /* said by validate_tensor, or below for dims */
	size_t rank = st->n_dims;
	bool linear = idx->n_dims == 1;
	if (!(linear && idx->dims[0] == nnz) && !(idx->n_dims == 2 && idx->dims[0] == nnz && (size_t)idx->dims[1] == rank)) {
		model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, ni, NULL,
			   "%s has %lld values but indices of shape %s%lld%s: ONNX Runtime wants (%lld,) or (%lld, %zu)",
			   what, (long long)nnz, idx->n_dims ? "(" : "()", idx->n_dims ? (long long)idx->dims[0] : 0LL,
			   idx->n_dims == 1 ? ",)" : idx->n_dims ? ", ...)" : "", (long long)nnz, (long long)nnz, rank);
		return;
	}
	for (int64_t e = 0; e < nidx; e++) {
		int64_t v;
		if (!int_entry(idx, (size_t)e, &v))
			return; /* not an index type, or data validate_tensor refused */
		int64_t limit = linear ? numel : st->dims[e % (int64_t)rank];
		if (v < 0 || v >= limit) {
			/* A dense tensor of no element has nowhere to put a value: ONNX
			 * Runtime makes it without reading the indices. */
			if (numel == 0)
				model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, NULL,
					   "%s has index %lld (entry %lld of its indices), outside its dims, which hold no "
					   "element: ONNX Runtime ignores its values",
					   what, (long long)v, (long long)e);
			else
				model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, ni, NULL,
					   "%s has index %lld (entry %lld of its indices), outside its dims: ONNX Runtime "
					   "refuses it",
					   what, (long long)v, (long long)e);
			return;
		}
	}
}

/* The version function f's own opset_import gives `domain`, or -1. */
static int64_t function_import(const Onnx__FunctionProto *f, const char *domain)
{
	for (size_t k = 0; k < f->n_opset_import; k++) {
		const char *d = f->opset_import[k]->domain ? f->opset_import[k]->domain : "";
		if (!strcmp(d, "ai.onnx"))
			d = "";
		if (!strcmp(d, domain))
			return f->opset_import[k]->version;
	}
	return -1;
}

static void body_counts(osh_model *m, const graph *g, const Onnx__FunctionProto *f, bool called)
{
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *n = &g->nodes[ni];
		for (int32_t s = 0; s < n->nsubgraphs; s++)
			body_counts(m, n->subgraphs[s], f, called);
		int64_t own = function_import(f, n->domain);
		if (own < 0)
			own = n->opset;
		/* A called body is inferred at n->opset, where its counts are checked. */
		if (own < 0 || (called && own == n->opset))
			continue;
		const sch_row *r = schema_lookup(n->domain, n->op_type, own);
		if (!r || r->deprecated)
			continue;
		/* ONNX Runtime pairs each input and output with its operator's parameter
		 * (a variadic last one takes the rest): too few is nothing to it. */
		bool ins = n->ninputs > r->max_inputs;
		if (ins || n->noutputs > r->max_outputs)
			model_diag(m, OSH_ERROR, DIAG_ARITY_ERROR, g, ni, NULL,
				   "%s-%d (at the function's opset %lld) has %d %s%s, the node %d: ONNX Runtime makes the "
				   "function a schema from its body and refuses a node with more than its operator takes",
				   r->op_type, r->since, (long long)own, ins ? r->max_inputs : r->max_outputs,
				   ins ? "input" : "output", (ins ? r->max_inputs : r->max_outputs) == 1 ? "" : "s",
				   ins ? n->ninputs : n->noutputs);
	}
}

void validate_function_counts(osh_model *m, const graph *g)
{
	if (g->function)
		body_counts(m, g, g->function, g->called);
}

/* A declared shape: no negative dim (malformed), and known dims whose product fits in
 * int64. No tensor of more than INT64_MAX elements exists, so no run could feed or
 * produce the value; but unlike a negative dim the shape is well formed, and the graph
 * is still worth inferring over: a shape-error, as for a Reshape to such a shape.
 * Symbols and unknown dims are left out of the product (any size), and a known 0
 * empties the tensor whatever the rest. */
static void validate_declared_dims(osh_model *m, const graph *g, const char *name,
				   const Onnx__TensorShapeProto *shp)
{
	int64_t count = 1;
	bool overflow = false, empty = false, negative = false;
	for (size_t i = 0; i < shp->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = shp->dim[i];
		if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			continue;
		if (d->dim_value < 0) {
			/* Exporters write -1 for "any size"; ONNX Runtime reads it so. */
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, -1, name,
				   "'%s' is declared with dimension %lld at axis %zu: the spec wants a size of 0 or more "
				   "(dim_param or no value for an unknown one); ONNX Runtime reads it as unknown",
				   name, (long long)d->dim_value, i);
			negative = true;
			continue;
		}
		empty |= d->dim_value == 0;
		overflow |= __builtin_mul_overflow(count, d->dim_value, &count);
	}
	/* A negative dim is unknown: the count says nothing then. */
	if (overflow && !empty && !negative)
		model_diag(m, OSH_ERROR, DIAG_SHAPE_ERROR, g, -1, name,
			   "'%s' is declared with dims whose element count overflows int64: no tensor has that shape",
			   name);
}

/* A TypeProto, recursively through sequence/map/optional. Protobuf-c has already
 * bounded the nesting by the stack it survived; `depth` keeps our own walk bounded.
 * `declared`: the type a graph declares for one of its values (input, output,
 * value_info), where ONNX Runtime refuses a tensor of element type 0; an attribute's
 * type may leave it open. */
static void validate_type(osh_model *m, const graph *g, const char *name, const Onnx__TypeProto *tp,
			  int depth, bool declared)
{
	if (!tp)
		return;
	if (depth > 64) {
		malformed(m, g, -1, name, "the type of '%s' is nested more than 64 levels deep", name);
		return;
	}
	const Onnx__TensorShapeProto *shp = NULL;
	int64_t et = 0;
	bool has_et = false;
	switch (tp->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		if (!tp->tensor_type)
			return;
		has_et = tp->tensor_type->has_elem_type;
		et = tp->tensor_type->elem_type;
		shp = tp->tensor_type->shape;
		break;
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		if (!tp->sparse_tensor_type)
			return;
		has_et = tp->sparse_tensor_type->has_elem_type;
		et = tp->sparse_tensor_type->elem_type;
		shp = tp->sparse_tensor_type->shape;
		break;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		if (tp->sequence_type)
			validate_type(m, g, name, tp->sequence_type->elem_type, depth + 1, declared);
		return;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		if (tp->optional_type)
			validate_type(m, g, name, tp->optional_type->elem_type, depth + 1, declared);
		return;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		if (!tp->map_type)
			return;
		if (tp->map_type->has_key_type && !dtype_valid(tp->map_type->key_type))
			malformed(m, g, -1, name, "'%s' is a map with an unknown key type %d", name,
				  (int)tp->map_type->key_type);
		validate_type(m, g, name, tp->map_type->value_type, depth + 1, declared);
		return;
	default:
		return;
	}
	/* ONNX Runtime refuses element type 0 (UNDEFINED) wherever a graph declares it
	 * ("Invalid tensor data type 0"). A tensor type that leaves the field out reads
	 * the same to it, but is taken here as what the writer meant, an element type
	 * not known yet (onnxshape's own tests build such declarations). */
	if (declared && has_et && et == 0)
		model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, -1, name,
			   "'%s' is declared a tensor of element type 0 (UNDEFINED): ONNX Runtime refuses it", name);
	else if (has_et && et != 0 && !dtype_valid(et))
		malformed(m, g, -1, name, "'%s' has an unknown element type %lld", name, (long long)et);
	if (shp)
		validate_declared_dims(m, g, name, shp);
}

void validate_value_info(osh_model *m, const graph *g, const Onnx__ValueInfoProto *vi)
{
	validate_type(m, g, vi->name ? vi->name : "", vi->type, 0, true);
}

void validate_type_proto(osh_model *m, const graph *g, const char *what, const Onnx__TypeProto *tp)
{
	validate_type(m, g, what, tp, 0, false);
}

int64_t opset_newest_known(const char *domain)
{
	/* ONNX Runtime's contrib operators, and those its NCHWc layout transformer writes:
	 * one version each so far, and the runtime refuses a newer one. */
	if (!strcmp(domain, "com.microsoft") || !strcmp(domain, "com.microsoft.nchwc"))
		return 1;
	return schema_newest_opset(domain); /* "" and "ai.onnx" alike; 0 when unknown */
}

/* The newest IR version ONNX has released (the one its 1.23.1 test models use, with
 * opset 28). A newer one is a file from the future or a corrupt field, and ONNX
 * Runtime refuses it. */
#define IR_NEWEST 14

static bool opsets_from(osh_model *m, Onnx__OperatorSetIdProto **ops, size_t n)
{
	m->opsets = arena_array(m->arena, n ? n : 1, sizeof *m->opsets);
	if (!m->opsets)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *dom = ops[i]->domain ? ops[i]->domain : "";
		if (!strcmp(dom, "ai.onnx"))
			dom = "";
		if (!ops[i]->has_version || ops[i]->version < 1) {
			malformed(m, NULL, -1, NULL, "opset_import for domain '%s' has %s version", dom,
				  ops[i]->has_version ? "a non-positive" : "no");
			continue;
		}
		int64_t newest = opset_newest_known(dom);
		if (newest > 0 && ops[i]->version > newest)
			model_diag(m, OSH_ERROR, DIAG_OPSET_ERROR, NULL, -1, NULL,
				   "opset_import asks for %s version %lld, newer than any released (the newest is %lld)",
				   dom[0] ? dom : "ai.onnx", (long long)ops[i]->version, (long long)newest);
		int32_t at = strmap_put(&m->opset_index, dom, m->nopsets);
		if (at == -2)
			return false;
		if (at != m->nopsets) {
			/* The spec wants each domain once; ONNX Runtime keeps the last entry. */
			int64_t had = m->opsets[at].version;
			if (had == ops[i]->version)
				model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, NULL, -1, NULL,
					   "opset_import lists domain '%s' twice (versions %lld and %lld)",
					   dom[0] ? dom : "ai.onnx", (long long)had, (long long)ops[i]->version);
			else
				model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, NULL, -1, NULL,
					   "opset_import lists domain '%s' twice (versions %lld and %lld): "
					   "resolved at %lld, the last, as ONNX Runtime does",
					   dom[0] ? dom : "ai.onnx", (long long)had, (long long)ops[i]->version,
					   (long long)ops[i]->version);
			m->opsets[at].version = ops[i]->version;
			continue;
		}
		m->opsets[m->nopsets++] = (opset_entry){dom, ops[i]->version};
	}
	return true;
}

bool validate_model(osh_model *m)
{
	Onnx__ModelProto *mp = m->proto;
	if (!mp->has_ir_version)
		malformed(m, NULL, -1, NULL, "ir_version is missing");
	else if (mp->ir_version < 1)
		malformed(m, NULL, -1, NULL, "ir_version %lld is not a valid IR version",
			  (long long)mp->ir_version);
	else if (mp->ir_version > IR_NEWEST)
		model_diag(m, OSH_ERROR, DIAG_OPSET_ERROR, NULL, -1, NULL,
			   "ir_version %lld is newer than any released (the newest is %d)",
			   (long long)mp->ir_version, IR_NEWEST);
	if (!opsets_from(m, mp->opset_import, mp->n_opset_import))
		return false;
	/* IR version 3 introduced opset_import; earlier models imply ai.onnx version 1. */
	if (mp->n_opset_import == 0) {
		if (mp->has_ir_version && mp->ir_version < 3) {
			if (strmap_put(&m->opset_index, "", 0) == -2)
				return false;
			m->opsets[m->nopsets++] = (opset_entry){"", 1};
		} else {
			malformed(m, NULL, -1, NULL,
				  "opset_import is missing: the model does not say which operator set it uses");
		}
	}
	if (!mp->graph)
		malformed(m, NULL, -1, NULL, "the model has no graph");
	return !m->nomem;
}
