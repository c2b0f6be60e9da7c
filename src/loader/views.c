/* views.c: protobuf-free views of the messages the passes need: tensors, attributes
 * and declared types.
 *
 * The passes never include the generated protobuf-c header; the loader translates
 * once. Views point into the unpacked messages (no copy of tensor data), and every
 * dim_param met in a declared type is interned into the model's symbol table here
 * (a name, or an expression when its text is one: core/dimexpr.h), before inference
 * makes up fresh names, so a fresh name never clashes.
 */
#include "core/dtype.h"
#include "loader/loader.h"

#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(tensor_bytes) == sizeof(ProtobufCBinaryData) &&
		       offsetof(tensor_bytes, len) == offsetof(ProtobufCBinaryData, len) &&
		       offsetof(tensor_bytes, data) == offsetof(ProtobufCBinaryData, data),
	       "tensor_bytes must match ProtobufCBinaryData: views point at string_data");

/* Fills v, all of it, from t: the view points into t. m learns whether any view is
 * of external data (osh_model.src.viewed_external). */
static void view_fill(osh_model *m, tensor_view *v, const Onnx__TensorProto *t)
{
	*v = (tensor_view){0};
	v->name = t->name ? t->name : "";
	v->dtype = t->has_data_type ? t->data_type : 0;
	v->rank = (int32_t)(t->n_dims < INT32_MAX ? t->n_dims : INT32_MAX);
	v->dims = t->dims;
	v->external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	m->src.viewed_external |= v->external;
	int64_t count = 1;
	bool ok = dtype_valid(v->dtype) && !t->segment;
	for (size_t i = 0; i < t->n_dims && ok; i++)
		ok = t->dims[i] >= 0 && !__builtin_mul_overflow(count, t->dims[i], &count);
	v->count = ok ? count : -1;
	v->valid = ok;
	if (t->has_raw_data) {
		v->raw = t->raw_data.data;
		v->raw_len = t->raw_data.len;
		uint64_t need;
		v->valid = ok && dtype_raw_bytes(v->dtype, count, &need) && need == t->raw_data.len;
		return;
	}
	switch (v->dtype) {
	case DT_FLOAT:
	case DT_COMPLEX64:
		v->f32 = t->float_data;
		v->ntyped = t->n_float_data;
		break;
	case DT_DOUBLE:
	case DT_COMPLEX128:
		v->f64 = t->double_data;
		v->ntyped = t->n_double_data;
		break;
	case DT_INT64:
		v->i64 = t->int64_data;
		v->ntyped = t->n_int64_data;
		break;
	case DT_UINT32:
	case DT_UINT64:
		v->u64 = t->uint64_data;
		v->ntyped = t->n_uint64_data;
		break;
	case DT_STRING:
		v->str = (const tensor_bytes *)t->string_data;
		v->ntyped = t->n_string_data;
		break;
	default:
		v->i32 = t->int32_data;
		v->ntyped = t->n_int32_data;
		break;
	}
}

const tensor_view *view_tensor(osh_model *m, const Onnx__TensorProto *t)
{
	tensor_view *v = arena_alloc(m->arena, sizeof *v);
	if (v)
		view_fill(m, v, t);
	return v;
}

/* A copy of `n` bytes at p in the arena (NULL stays NULL). */
static const void *keep(osh_model *m, const void *p, size_t n)
{
	if (!p || !n)
		return p;
	void *c = arena_alloc(m->arena, n);
	if (c)
		memcpy(c, p, n);
	return c;
}

const tensor_view *view_tensor_copy(osh_model *m, const Onnx__TensorProto *t, bool raw_aliased)
{
	/* The view, its dims and its name in one block: one of each per initializer of
	 * the main graph, hundreds of thousands on a big CNN. */
	const char *name = t->name ? t->name : "";
	size_t name_len = strlen(name);
	size_t dims_bytes = t->n_dims * sizeof *t->dims; /* dims are in memory: no overflow */
	if (name_len > SIZE_MAX - sizeof(tensor_view) - dims_bytes - 1)
		return NULL;
	unsigned char *block = arena_alloc(m->arena, sizeof(tensor_view) + dims_bytes + name_len + 1);
	if (!block)
		return NULL;
	tensor_view *c = (tensor_view *)block;
	view_fill(m, c, t);
	int64_t *dims = (int64_t *)(block + sizeof *c);
	char *copy = (char *)(block + sizeof *c + dims_bytes);
	memcpy(copy, name, name_len + 1);
	c->name = copy;
	if (t->n_dims) {
		memcpy(dims, t->dims, dims_bytes);
		c->dims = dims;
	}
	const uint8_t *raw = c->raw;
	if (raw && !raw_aliased)
		c->raw = keep(m, raw, c->raw_len);
	if (!raw && c->dtype == DT_STRING) {
		/* The message is freed after this: copy the entries and their bytes. */
		if (c->ntyped) {
			tensor_bytes *e = arena_array(m->arena, c->ntyped, sizeof *e);
			if (!e)
				return NULL;
			for (size_t i = 0; i < c->ntyped; i++) {
				e[i].len = t->string_data[i].len;
				e[i].data = keep(m, t->string_data[i].data, e[i].len);
				if (e[i].len && !e[i].data)
					return NULL;
			}
			c->str = e;
		}
		return c;
	}
	const void *typed = c->typed;
	/* The entry width of whichever field view_fill chose for the dtype. */
	bool wide = typed && (typed == t->double_data || typed == t->int64_data || typed == t->uint64_data);
	size_t w = wide ? 8 : 4;
	if (typed && c->ntyped)
		c->typed = keep(m, typed, c->ntyped * w);
	bool lost = (raw && c->raw_len && !c->raw) || (typed && c->ntyped && !c->typed);
	return lost ? NULL : c;
}

void tensor_stats_add_raw(tensor_stats *s, size_t raw_len)
{
	s->n++;
	s->inline_bytes += raw_len;
}

void tensor_stats_add(tensor_stats *s, const Onnx__TensorProto *t)
{
	s->n++;
	if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		int64_t n = 1;
		for (size_t i = 0; i < t->n_dims; i++)
			if (__builtin_mul_overflow(n, t->dims[i], &n))
				return;
		uint64_t b = 0;
		s->n_external++;
		if (dtype_raw_bytes(t->data_type, n, &b))
			s->external_bytes += b;
		return;
	}
	if (t->has_raw_data) {
		s->inline_bytes += t->raw_data.len;
		return;
	}
	s->inline_bytes += t->n_float_data * sizeof(float) + t->n_int32_data * sizeof(int32_t) +
			   t->n_int64_data * sizeof(int64_t) + t->n_double_data * sizeof(double) +
			   t->n_uint64_data * sizeof(uint64_t);
	for (size_t i = 0; i < t->n_string_data; i++)
		s->inline_bytes += t->string_data[i].len;
}

static tinfo tensor_type(osh_model *m, int32_t elem, const Onnx__TensorShapeProto *shp, tkind kind)
{
	tinfo ti = tinfo_unknown();
	ti.kind = kind;
	ti.elem = dtype_valid(elem) ? elem : 0;
	if (!shp)
		return ti;
	dim *dims = arena_array(m->arena, shp->n_dim ? shp->n_dim : 1, sizeof *dims);
	if (!dims) {
		m->nomem = true;
		return ti;
	}
	for (size_t i = 0; i < shp->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = shp->dim[i];
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0) {
			dims[i] = dim_known(d->dim_value);
		} else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
			   d->dim_param[0]) {
			/* A dim_param may be an expression a tool wrote (`batch*seq`): it is
			 * read as one when its text is one's (dx_parse), so that it meets the
			 * same size computed here; any other text is a name. How often each
			 * name is declared decides how inference takes a claim (infer.c). */
			dims[i] = dx_parse(&m->syms, d->dim_param);
			if (dims[i].kind == DIM_UNKNOWN)
				m->nomem = true;
			else
				dx_note_declared(&m->syms, dims[i]);
		} else {
			dims[i] = dim_unknown();
		}
	}
	ti.rank = (int32_t)shp->n_dim;
	ti.dims = dims;
	return ti;
}

tinfo view_type(osh_model *m, const Onnx__TypeProto *tp)
{
	tinfo outer = tinfo_unknown();
	for (int depth = 0; tp && depth < 64; depth++) {
		switch (tp->value_case) {
		case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: {
			const Onnx__TypeProto__Tensor *t = tp->tensor_type;
			tinfo ti = tensor_type(m, t && t->has_elem_type ? t->elem_type : 0, t ? t->shape : NULL, TK_TENSOR);
			if (outer.kind == TK_UNKNOWN)
				return ti;
			ti.inner = TK_TENSOR;
			ti.kind = outer.kind;
			return ti;
		}
		case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: {
			const Onnx__TypeProto__SparseTensor *t = tp->sparse_tensor_type;
			tinfo ti = tensor_type(m, t && t->has_elem_type ? t->elem_type : 0, t ? t->shape : NULL, TK_SPARSE);
			if (outer.kind == TK_UNKNOWN)
				return ti;
			ti.inner = TK_SPARSE;
			ti.kind = outer.kind;
			return ti;
		}
		case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: {
			bool seq = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
			if (outer.kind != TK_UNKNOWN) {
				/* A sequence of sequences (or optional of sequence): we describe one
				 * level of element only. */
				outer.inner = seq ? TK_SEQUENCE : TK_OPTIONAL;
				return outer;
			}
			outer.kind = seq ? TK_SEQUENCE : TK_OPTIONAL;
			tp = seq ? (tp->sequence_type ? tp->sequence_type->elem_type : NULL)
				 : (tp->optional_type ? tp->optional_type->elem_type : NULL);
			break;
		}
		case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: {
			/* A map is described by its key type and, when its value is a
			 * tensor, the value's element type (the ai.onnx.ml rules need both). */
			const Onnx__TypeProto__Map *mt = tp->map_type;
			const Onnx__TypeProto *vt = mt ? mt->value_type : NULL;
			if (mt && mt->has_key_type && dtype_valid(mt->key_type))
				outer.key = mt->key_type;
			if (vt && vt->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vt->tensor_type &&
			    vt->tensor_type->has_elem_type && dtype_valid(vt->tensor_type->elem_type))
				outer.elem = vt->tensor_type->elem_type;
			if (outer.kind != TK_UNKNOWN) {
				outer.inner = TK_MAP;
				return outer;
			}
			outer.kind = TK_MAP;
			outer.inner = vt && vt->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? TK_TENSOR : TK_UNKNOWN;
			return outer;
		}
		default:
			return outer;
		}
	}
	return outer;
}

attr_type attr_type_of(const attr_presence *p)
{
	if (p->has_type && p->type != AT_UNDEFINED)
		return (attr_type)p->type;
	/* IR version < 2 files may leave the type out: go by the field that is set. */
	if (p->f)
		return AT_FLOAT;
	if (p->i)
		return AT_INT;
	if (p->s)
		return AT_STRING;
	if (p->t)
		return AT_TENSOR;
	if (p->g)
		return AT_GRAPH;
	if (p->floats)
		return AT_FLOATS;
	if (p->ints)
		return AT_INTS;
	if (p->strings)
		return AT_STRINGS;
	if (p->tensors)
		return AT_TENSORS;
	if (p->graphs)
		return AT_GRAPHS;
	return AT_UNDEFINED;
}

static attr_presence presence(const Onnx__AttributeProto *a)
{
	return (attr_presence){
		.has_type = a->has_type, .type = a->type, .f = a->has_f, .i = a->has_i, .s = a->has_s,
		.t = a->t != NULL, .g = a->g != NULL, .sparse = a->sparse_tensor != NULL, .tp = a->tp != NULL,
		.floats = a->n_floats, .ints = a->n_ints, .strings = a->n_strings, .tensors = a->n_tensors,
		.graphs = a->n_graphs, .sparses = a->n_sparse_tensors, .tps = a->n_type_protos,
	};
}

bool view_attrs(osh_model *m, node *n)
{
	const Onnx__NodeProto *np = n->proto;
	n->nattrs = (int32_t)np->n_attribute;
	/* No array for a node without attributes (attrs is NULL then). */
	n->attrs = np->n_attribute ? arena_array(m->arena, np->n_attribute, sizeof *n->attrs) : NULL;
	if (np->n_attribute && !n->attrs)
		return false;
	int32_t graphs = 0;
	for (size_t i = 0; i < np->n_attribute; i++) {
		const Onnx__AttributeProto *a = np->attribute[i];
		attr_view *v = &n->attrs[i];
		attr_presence p = presence(a);
		v->name = a->name ? a->name : "";
		v->type = attr_type_of(&p);
		v->ref = a->ref_attr_name;
		v->i = a->i;
		v->f = a->f;
		v->graph_index = graphs;
		if (v->type != AT_GRAPH && v->type != AT_GRAPHS) {
			if (!(a->has_type && a->type))
				v->graph_index = ATTR_UNTYPED;
			else if (attr_fields_mixed(&p))
				v->graph_index = ATTR_MIXED;
		}
		graphs += (a->g != NULL) + (int32_t)a->n_graphs;
		/* Only the type's payload: the pointers share a union (model.h), so a
		 * stray s on a TENSOR attribute without t would otherwise read as its t. */
		switch (v->type) {
		case AT_STRING:
			if (a->has_s) {
				char *s = arena_strndup(m->arena, (const char *)a->s.data, a->s.len);
				if (!s)
					return false;
				v->s = s;
			}
			break;
		case AT_INTS:
			v->ints = a->ints;
			v->n = (int32_t)a->n_ints;
			break;
		case AT_FLOATS:
			v->floats = a->floats;
			v->n = (int32_t)a->n_floats;
			break;
		case AT_STRINGS: {
			const char **ss = arena_array(m->arena, a->n_strings ? a->n_strings : 1, sizeof *ss);
			if (!ss)
				return false;
			for (size_t k = 0; k < a->n_strings; k++)
				if (!(ss[k] = arena_strndup(m->arena, (const char *)a->strings[k].data, a->strings[k].len)))
					return false;
			v->strings = ss;
			v->n = (int32_t)a->n_strings;
			break;
		}
		case AT_TENSOR:
			if (a->t && !(v->t = view_tensor(m, a->t)))
				return false;
			break;
		case AT_TENSORS: {
			tensor_view *ts = arena_array(m->arena, a->n_tensors ? a->n_tensors : 1, sizeof *ts);
			if (!ts)
				return false;
			for (size_t k = 0; k < a->n_tensors; k++) {
				const tensor_view *tv = view_tensor(m, a->tensors[k]);
				if (!tv)
					return false;
				ts[k] = *tv;
			}
			v->ts = ts;
			v->n = (int32_t)a->n_tensors;
			break;
		}
		case AT_GRAPHS:
			v->n = (int32_t)a->n_graphs;
			break;
		case AT_TYPE_PROTO: {
			tinfo *tp = arena_alloc(m->arena, sizeof *tp);
			if (!tp)
				return false;
			*tp = view_type(m, a->tp);
			v->tp = tp;
			break;
		}
		default:
			break;
		}
	}
	return true;
}
