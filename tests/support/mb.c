/* mb.c: see mb.h. Test support only: failures abort the test loudly. */
#include "mb.h"

#include "core/arena.h"
#include "onnx-ml.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mb {
	arena *a;
	mb *adopted; /* subgraph builders whose arenas we keep until the end */
	mb *next_adopted;
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__NodeProto *last;
};

#define NEW(b, T) ((T *)must(arena_zalloc((b)->a, sizeof(T))))

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "mb: out of memory\n");
		abort();
	}
	return p;
}

/* Appends p to a protobuf-c repeated pointer field. Arrays only grow through here,
 * so their capacity is implicit: the next power of two, reallocated (in the arena)
 * when n reaches one, which keeps building a 100k-node graph linear. */
#define PUSH(b, arr, n, p)                                                                  \
	do {                                                                                \
		if (((n) & ((n) - 1)) == 0) {                                               \
			void **na_ = must(arena_array((b)->a, (n) ? 2 * (n) : 1, sizeof(void *))); \
			if (n)                                                              \
				memcpy(na_, (arr), (n) * sizeof(void *));                   \
			(arr) = (void *)na_;                                                \
		}                                                                           \
		((void **)(arr))[(n)] = (p);                                                \
		(n)++;                                                                      \
	} while (0)

static char *dup(mb *b, const char *s) { return must(arena_strdup(b->a, s)); }

mb *mb_new(int64_t opset)
{
	arena *a = must(arena_new(0));
	mb *b = must(arena_zalloc(a, sizeof *b));
	b->a = a;
	onnx__model_proto__init(&b->model);
	onnx__graph_proto__init(&b->graph);
	b->model.has_ir_version = 1;
	b->model.ir_version = 8;
	b->model.producer_name = "mb";
	b->graph.name = "g";
	b->model.graph = &b->graph;
	mb_opset(b, "", opset);
	return b;
}

void mb_opset(mb *b, const char *domain, int64_t version)
{
	Onnx__OperatorSetIdProto *o = NEW(b, Onnx__OperatorSetIdProto);
	onnx__operator_set_id_proto__init(o);
	o->domain = dup(b, domain);
	o->has_version = 1;
	o->version = version;
	PUSH(b, b->model.opset_import, b->model.n_opset_import, o);
}

/* Splits "a,b,,c" into fields (empty fields kept). */
static int split(mb *b, const char *s, char ***out)
{
	int n = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	char **v = must(arena_array(b->a, (size_t)n, sizeof *v));
	const char *p = s;
	for (int i = 0; i < n; i++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		v[i] = must(arena_strndup(b->a, p, len));
		p = e ? e + 1 : p + len;
	}
	*out = v;
	return n;
}

static Onnx__TypeProto *tensor_type(mb *b, int32_t elem, const char *shape)
{
	Onnx__TypeProto *tp = NEW(b, Onnx__TypeProto);
	onnx__type_proto__init(tp);
	Onnx__TypeProto__Tensor *tt = NEW(b, Onnx__TypeProto__Tensor);
	onnx__type_proto__tensor__init(tt);
	tt->has_elem_type = elem != 0;
	tt->elem_type = elem;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	if (!shape)
		return tp;
	Onnx__TensorShapeProto *s = NEW(b, Onnx__TensorShapeProto);
	onnx__tensor_shape_proto__init(s);
	tt->shape = s;
	if (!*shape)
		return tp;
	char **f;
	int n = split(b, shape, &f);
	for (int i = 0; i < n; i++) {
		Onnx__TensorShapeProto__Dimension *d = NEW(b, Onnx__TensorShapeProto__Dimension);
		onnx__tensor_shape_proto__dimension__init(d);
		if (f[i][0] == '-' || (f[i][0] >= '0' && f[i][0] <= '9')) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = strtoll(f[i], NULL, 10);
		} else if (strcmp(f[i], "?")) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = f[i];
		}
		PUSH(b, s->dim, s->n_dim, d);
	}
	return tp;
}

static Onnx__ValueInfoProto *vinfo(mb *b, const char *name, int32_t elem, const char *shape)
{
	Onnx__ValueInfoProto *vi = NEW(b, Onnx__ValueInfoProto);
	onnx__value_info_proto__init(vi);
	vi->name = dup(b, name);
	if (elem || shape)
		vi->type = tensor_type(b, elem, shape);
	return vi;
}

void mb_input(mb *b, const char *name, int32_t elem, const char *shape)
{
	PUSH(b, b->graph.input, b->graph.n_input, vinfo(b, name, elem, shape));
}

void mb_output(mb *b, const char *name, int32_t elem, const char *shape)
{
	PUSH(b, b->graph.output, b->graph.n_output, vinfo(b, name, elem, shape));
}

void mb_value_info(mb *b, const char *name, int32_t elem, const char *shape)
{
	PUSH(b, b->graph.value_info, b->graph.n_value_info, vinfo(b, name, elem, shape));
}

static Onnx__TensorProto *tensor(mb *b, const char *name, int32_t elem, const char *dims)
{
	Onnx__TensorProto *t = NEW(b, Onnx__TensorProto);
	onnx__tensor_proto__init(t);
	t->name = dup(b, name);
	t->has_data_type = 1;
	t->data_type = elem;
	int64_t count = 1;
	if (*dims) {
		char **f;
		int n = split(b, dims, &f);
		t->dims = must(arena_array(b->a, (size_t)n, sizeof *t->dims));
		for (int i = 0; i < n; i++) {
			t->dims[i] = strtoll(f[i], NULL, 10);
			count *= t->dims[i];
		}
		t->n_dims = (size_t)n;
	}
	(void)count;
	return t;
}

static int64_t count_of(const Onnx__TensorProto *t)
{
	int64_t c = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		c *= t->dims[i];
	return c;
}

static Onnx__TensorProto *int_tensor(mb *b, const char *name, const char *dims, const int64_t *vals)
{
	Onnx__TensorProto *t = tensor(b, name, DT_INT64, dims);
	size_t n = (size_t)count_of(t);
	t->int64_data = must(arena_array(b->a, n ? n : 1, sizeof(int64_t)));
	if (n)
		memcpy(t->int64_data, vals, n * sizeof(int64_t));
	t->n_int64_data = n;
	return t;
}

static Onnx__TensorProto *float_tensor(mb *b, const char *name, const char *dims, const float *vals)
{
	Onnx__TensorProto *t = tensor(b, name, DT_FLOAT, dims);
	size_t n = (size_t)count_of(t);
	t->float_data = must(arena_array(b->a, n ? n : 1, sizeof(float)));
	if (n && vals)
		memcpy(t->float_data, vals, n * sizeof(float));
	t->n_float_data = n;
	return t;
}

void mb_init_ints(mb *b, const char *name, const char *dims, const int64_t *vals)
{
	PUSH(b, b->graph.initializer, b->graph.n_initializer, int_tensor(b, name, dims, vals));
}

void mb_init_floats(mb *b, const char *name, const char *dims, const float *vals)
{
	PUSH(b, b->graph.initializer, b->graph.n_initializer, float_tensor(b, name, dims, vals));
}

void mb_init(mb *b, const char *name, int32_t elem, const char *dims)
{
	Onnx__TensorProto *t = tensor(b, name, elem, dims);
	uint64_t bytes = 0;
	if (!dtype_raw_bytes(elem, count_of(t), &bytes))
		abort();
	t->has_raw_data = 1;
	t->raw_data.len = bytes;
	t->raw_data.data = must(arena_zalloc(b->a, bytes ? bytes : 1));
	PUSH(b, b->graph.initializer, b->graph.n_initializer, t);
}

void mb_node(mb *b, const char *op, const char *inputs, const char *outputs)
{
	Onnx__NodeProto *n = NEW(b, Onnx__NodeProto);
	onnx__node_proto__init(n);
	n->op_type = dup(b, op);
	n->name = must(arena_printf(b->a, "%s_%zu", op, b->graph.n_node));
	if (*inputs)
		n->n_input = (size_t)split(b, inputs, &n->input);
	if (*outputs)
		n->n_output = (size_t)split(b, outputs, &n->output);
	PUSH(b, b->graph.node, b->graph.n_node, n);
	b->last = n;
}

void mb_node_domain(mb *b, const char *domain) { b->last->domain = dup(b, domain); }

void mb_node_name(mb *b, const char *name) { b->last->name = dup(b, name); }

static Onnx__AttributeProto *attr(mb *b, const char *name, Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = NEW(b, Onnx__AttributeProto);
	onnx__attribute_proto__init(a);
	a->name = dup(b, name);
	a->has_type = 1;
	a->type = type;
	PUSH(b, b->last->attribute, b->last->n_attribute, a);
	return a;
}

void mb_attr_i(mb *b, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	a->has_i = 1;
	a->i = v;
}

void mb_attr_f(mb *b, const char *name, float v)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	a->has_f = 1;
	a->f = v;
}

void mb_attr_s(mb *b, const char *name, const char *v)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	a->has_s = 1;
	a->s.data = (uint8_t *)dup(b, v);
	a->s.len = strlen(v);
}

void mb_attr_ints(mb *b, const char *name, int n, const int64_t *v)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	a->ints = must(arena_array(b->a, n ? (size_t)n : 1, sizeof *v));
	if (n)
		memcpy(a->ints, v, (size_t)n * sizeof *v);
	a->n_ints = (size_t)n;
}

void mb_attr_floats(mb *b, const char *name, int n, const float *v)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	a->floats = must(arena_array(b->a, n ? (size_t)n : 1, sizeof *v));
	if (n)
		memcpy(a->floats, v, (size_t)n * sizeof *v);
	a->n_floats = (size_t)n;
}

void mb_attr_tensor_ints(mb *b, const char *name, const char *dims, const int64_t *vals)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	a->t = int_tensor(b, "", dims, vals);
}

void mb_attr_tensor_floats(mb *b, const char *name, const char *dims, const float *vals)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	a->t = float_tensor(b, "", dims, vals);
}

void mb_attr_graph(mb *b, const char *name, mb *sub)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	a->g = &sub->graph;
	sub->next_adopted = b->adopted;
	b->adopted = sub;
}

static void mb_free(mb *b)
{
	for (mb *s = b->adopted, *next; s; s = next) {
		next = s->next_adopted;
		mb_free(s);
	}
	arena_free(b->a);
}

static uint8_t *pack(mb *b, size_t *len)
{
	/* A graph without outputs is one ONNX Runtime cannot run (a graph-error): a test
	 * that declares none gets the last node's outputs, without a type. */
	if (!b->graph.n_output && b->graph.n_node) {
		const Onnx__NodeProto *last = b->graph.node[b->graph.n_node - 1];
		for (size_t k = 0; k < last->n_output; k++)
			if (last->output[k][0])
				mb_output(b, last->output[k], 0, NULL);
	}
	*len = protobuf_c_message_get_packed_size(&b->model.base);
	uint8_t *buf = must(malloc(*len ? *len : 1));
	protobuf_c_message_pack(&b->model.base, buf);
	return buf;
}

void mb_save(mb *b, const char *path)
{
	size_t len;
	uint8_t *buf = pack(b, &len);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		abort();
	free(buf);
	mb_free(b);
}

osh_model *mb_infer_opts(mb *b, const osh_infer_options *opts)
{
	size_t len;
	uint8_t *buf = pack(b, &len);
	mb_free(b);
	osh_model *m = NULL;
	osh_error err = {0};
	osh_status s = osh_model_load_buffer(&m, buf, len, "test.onnx", NULL, &err);
	free(buf);
	if (s != OSH_OK) {
		fprintf(stderr, "mb: load failed: %s\n", err.message);
		return NULL;
	}
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		if (osh_model_diag_at(m, i)->severity == OSH_ERROR)
			fprintf(stderr, "mb: loader: %s\n", osh_model_diag_at(m, i)->message);
	if (osh_infer(m, opts, &err) != OSH_OK) {
		fprintf(stderr, "mb: infer failed: %s\n", err.message);
		osh_model_free(m);
		return NULL;
	}
	return m;
}

osh_model *mb_infer(mb *b) { return mb_infer_opts(b, NULL); }

const char *mb_type(osh_model *m, const char *name)
{
	static char ring[8][512];
	static int at;
	char *buf = ring[at++ % 8];
	osh_type t;
	if (!m || !osh_value_type(m, name, &t))
		return "missing";
	if (!t.kind[0])
		return "unknown";
	size_t len = 0;
	const char *et = osh_elem_type_name(t.elem_type);
	len += (size_t)snprintf(buf + len, 512 - len, "%s%s%s", strcmp(t.kind, "tensor") ? t.kind : "",
				strcmp(t.kind, "tensor") ? " " : "", et ? et : "?");
	if (t.rank < 0) {
		snprintf(buf + len, 512 - len, " (rank unknown)");
		return buf;
	}
	len += (size_t)snprintf(buf + len, 512 - len, " (");
	for (int32_t i = 0; i < t.rank && len < 500; i++) {
		const osh_dim *d = &t.dims[i];
		if (d->kind == OSH_DIM_VALUE)
			len += (size_t)snprintf(buf + len, 512 - len, "%s%lld", i ? ", " : "", (long long)d->value);
		else if (d->kind == OSH_DIM_SYMBOL)
			len += (size_t)snprintf(buf + len, 512 - len, "%s%s", i ? ", " : "", d->symbol);
		else
			len += (size_t)snprintf(buf + len, 512 - len, "%s?", i ? ", " : "");
	}
	snprintf(buf + len, 512 - len, ")");
	return buf;
}

int mb_count(osh_model *m, const char *code)
{
	int n = 0;
	for (size_t i = 0; m && i < osh_model_diag_count(m); i++)
		n += !strcmp(osh_model_diag_at(m, i)->code, code);
	return n;
}

const char *mb_message(osh_model *m, const char *code)
{
	for (size_t i = 0; m && i < osh_model_diag_count(m); i++)
		if (!strcmp(osh_model_diag_at(m, i)->code, code))
			return osh_model_diag_at(m, i)->message;
	return "";
}

/* ---- for the ai.onnx.ml and string rule tests ---- */

void mb_attr_strings(mb *b, const char *name, int n, const char *const *v)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
	a->strings = must(arena_array(b->a, n ? (size_t)n : 1, sizeof *a->strings));
	for (int i = 0; i < n; i++) {
		a->strings[i].data = (uint8_t *)dup(b, v[i]);
		a->strings[i].len = strlen(v[i]);
	}
	a->n_strings = (size_t)n;
}

void mb_attr_tensor_zeros(mb *b, const char *name, int32_t elem, const char *dims)
{
	Onnx__AttributeProto *a = attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	Onnx__TensorProto *t = tensor(b, "", elem, dims);
	size_t n = (size_t)count_of(t);
	if (elem == DT_STRING) {
		t->string_data = must(arena_array(b->a, n ? n : 1, sizeof *t->string_data));
		for (size_t i = 0; i < n; i++)
			t->string_data[i] = (ProtobufCBinaryData){0, (uint8_t *)dup(b, "")};
		t->n_string_data = n;
	} else {
		uint64_t bytes = 0;
		if (!dtype_raw_bytes(elem, (int64_t)n, &bytes))
			abort();
		t->has_raw_data = 1;
		t->raw_data.len = bytes;
		t->raw_data.data = must(arena_zalloc(b->a, bytes ? bytes : 1));
	}
	a->t = t;
}

void mb_input_map(mb *b, const char *name, int32_t key, int32_t value)
{
	Onnx__ValueInfoProto *vi = vinfo(b, name, 0, NULL);
	Onnx__TypeProto *tp = NEW(b, Onnx__TypeProto);
	onnx__type_proto__init(tp);
	Onnx__TypeProto__Map *mt = NEW(b, Onnx__TypeProto__Map);
	onnx__type_proto__map__init(mt);
	mt->has_key_type = 1;
	mt->key_type = key;
	mt->value_type = tensor_type(b, value, NULL);
	tp->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
	tp->map_type = mt;
	vi->type = tp;
	PUSH(b, b->graph.input, b->graph.n_input, vi);
}
