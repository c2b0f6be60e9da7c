/* edit.c: the editing API of edit.h, over the protobuf-c messages.
 *
 * New messages are built the way protobuf-c's unpacker would have built them (each
 * initialised with its __init, strings and arrays in the model's arena), so packing
 * treats them like the loaded ones. Queued nodes and initializers are spliced in by
 * edit_commit, one pass per graph, so a pass inserting k nodes into an n-node graph
 * costs O(n + k), not O(n * k).
 *
 * The main graph of a split load keeps its nodes and initializers as wire bytes
 * (m->src.wire_nodes, wire_inits): an edit makes messages only of the nodes it
 * changes (edit_node), and the commit and removals reorder the lists themselves,
 * new and changed elements as messages among the bytes of the others
 * (wire_list.msg), which the re-index decodes and the writer copies as they are.
 *
 * Invariant: until edit_commit, the node list of every GraphProto (or the main
 * graph's wire list) is exactly the one the IR was built from, so IR node indices
 * are positions in it.
 */
#include "emit/edit.h"
#include "emit/type_proto.h"

#include "core/dtype.h"
#include "core/grow.h"
#include "loader/build_messages.h"
#include "loader/unpack_split.h"
#include "loader/wire.h"
#include "onnx-ml.pb-c.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct pending_node {
	graph *g;
	int32_t before;
	Onnx__NodeProto *np;
} pending_node;

typedef struct pending_init {
	graph *g;
	Onnx__TensorProto *t;
} pending_init;

struct edit {
	osh_model *m;
	strmap used; /* every name in the model, and every fresh one handed out */
	bool indexed; /* used holds the model's names (built at the first fresh name) */
	/* used leaves out the value names, which the graphs' own maps hold: with few
	 * graphs, asking each map costs less than copying every name into one. */
	bool values_in_graphs;
	/* used leaves out the node names too, but for Constants': each graph's
	 * node_names holds the others (loader/index.c keeps the map its check of node
	 * names built). */
	bool nodes_in_graphs;
	pending_node *nodes;
	size_t nnodes, cap_nodes;
	pending_init *inits;
	size_t ninits, cap_inits;
	/* The main graph's nodes edit_drop removes while they are wire bytes, by IR
	 * index: applied by the commit, so that edit_node still finds a node by its
	 * index until then; NULL: none. */
	bool *drop_wire;
	bool failed;
};

static bool oom(edit *e)
{
	e->failed = true;
	e->m->nomem = true;
	return false;
}

static char *dup(edit *e, const char *s)
{
	char *d = arena_strdup(e->m->arena, s ? s : "");
	if (!d)
		oom(e);
	return d;
}

static bool reserve(edit *e, const char *name)
{
	if (!name || !name[0])
		return true;
	return strmap_put(&e->used, name, 0) != -2 || oom(e);
}

static bool reserve_graph(edit *e, const graph *g)
{
	for (int32_t v = 0; v < g->nvalues && !e->values_in_graphs; v++)
		if (!reserve(e, g->values[v].name))
			return false;
	/* With the graphs' node_names asked, only the Constants they leave out. */
	for (int32_t n = 0; n < g->nnodes; n++) {
		const char *op = g->nodes[n].op_type;
		if (e->nodes_in_graphs && (op[0] != 'C' || strcmp(op, "Constant")))
			continue;
		if (!reserve(e, g->nodes[n].name))
			return false;
	}
	return true;
}

/* Up to this many graphs (the main graph, its subgraphs, function bodies), a fresh
 * name is looked up in each graph's value map rather than in a copy of them all. */
#define EDIT_GRAPH_MAPS_MAX 8

/* Indexes every name the model uses, once, in a table sized at once. Not in
 * edit_begin: a rewrite with nothing to insert asks for no fresh name, and a big
 * model has millions of names (values and nodes): in a table doubled as it filled,
 * their index was most of the rewrite stage. The IR does not change before the commit (edits go to
 * the messages), so the names are the same then as at edit_begin. */
static bool index_names(edit *e)
{
	if (e->indexed)
		return true;
	size_t n = 0;
	e->values_in_graphs = e->m->ngraphs <= EDIT_GRAPH_MAPS_MAX;
	e->nodes_in_graphs = e->values_in_graphs;
	for (int32_t i = 0; i < e->m->ngraphs; i++)
		e->nodes_in_graphs &= e->m->graphs[i]->node_names_checked;
	for (int32_t i = 0; i < e->m->ngraphs; i++)
		n += (e->values_in_graphs ? 0 : (size_t)e->m->graphs[i]->nvalues) +
		     (e->nodes_in_graphs ? 0 : (size_t)e->m->graphs[i]->nnodes);
	/* The IR holds every graph, subgraph and function body with all their names
	 * (initializers and graph inputs are values too). */
	if (!strmap_reserve(&e->used, n + 64))
		return oom(e);
	for (int32_t i = 0; i < e->m->ngraphs; i++)
		if (!reserve_graph(e, e->m->graphs[i]))
			return false;
	e->indexed = true;
	return true;
}

edit *edit_begin(osh_model *m)
{
	edit *e = arena_zalloc(m->arena, sizeof *e);
	if (!e) {
		m->nomem = true;
		return NULL;
	}
	e->m = m;
	strmap_init(&e->used, m->arena);
	return e;
}

/* Whether a name is the model's or was handed out. */
static bool taken(const edit *e, const char *s)
{
	if (strmap_get(&e->used, s) >= 0)
		return true;
	for (int32_t i = 0; e->values_in_graphs && i < e->m->ngraphs; i++) {
		const graph *g = e->m->graphs[i];
		if (strmap_get(&g->names, s) >= 0 || (e->nodes_in_graphs && g->node_names && strmap_get(g->node_names, s) >= 0))
			return true;
	}
	return false;
}

/* base, when nothing holds it yet: reserved, in the arena; NULL when it is taken or
 * memory ran out (e->failed then). The name is hashed once for every map asked. */
static const char *claim(edit *e, const char *base)
{
	size_t len = strlen(base);
	uint32_t h = strmap_hashn(base, len);
	for (int32_t i = 0; e->values_in_graphs && i < e->m->ngraphs; i++) {
		const graph *g = e->m->graphs[i];
		if (strmap_getn_hashed(&g->names, base, len, h, NULL) >= 0 ||
		    (e->nodes_in_graphs && g->node_names && strmap_getn_hashed(g->node_names, base, len, h, NULL) >= 0))
			return NULL;
	}
	if (strmap_getn_hashed(&e->used, base, len, h, NULL) >= 0)
		return NULL;
	char *s = dup(e, base);
	bool found;
	int32_t *slot = s ? strmap_entry_hashed(&e->used, s, h, &found) : NULL;
	if (!slot) {
		oom(e);
		return NULL;
	}
	*slot = 0;
	return s;
}

const char *edit_fresh_name(edit *e, const char *base)
{
	if (!index_names(e))
		return NULL;
	const char *s = claim(e, base);
	if (s || e->failed)
		return s;
	for (unsigned long k = 1;; k++) {
		char *c = arena_printf(e->m->arena, "%s_%lu", base, k);
		if (!c) {
			oom(e);
			return NULL;
		}
		if (!taken(e, c))
			return reserve(e, c) ? c : NULL;
	}
}

bool edit_reserve_name(edit *e, const char *name) { return index_names(e) && reserve(e, name); }

/* ---- nodes -------------------------------------------------------------------------- */

/* Whether g's nodes (or initializers) are the split load's wire list (build_messages.h). */
static bool wire_nodes_of(const osh_model *m, const graph *g)
{
	return g == m->main && m->src.wire_nodes.n && g->proto && !g->proto->n_node;
}

static bool wire_inits_of(const osh_model *m, const graph *g)
{
	return g == m->main && m->src.wire_inits.n && g->proto && !g->proto->n_initializer;
}

struct Onnx__NodeProto *edit_node(edit *e, graph *g, int32_t ni)
{
	if (!wire_nodes_of(e->m, g))
		return g->nodes[ni].proto;
	Onnx__NodeProto *np = loader_node_message(e->m, ni);
	if (!np)
		oom(e);
	return np;
}

/* An edited list's arrays: off, len, msg, and view where the list had views (an
 * initializer list the index went through: wire_list.view). */
typedef struct wire_cols {
	uint32_t *off, *len;
	ProtobufCMessage **msg;
	const tensor_view **view;
} wire_cols;

/* Replaces w's arrays (n elements) with c's, from the arena: the old ones are freed if
 * w owned them. The bytes stay where they are. */
static void wire_replace(wire_list *w, const wire_cols *c, size_t n)
{
	const uint8_t *bytes = w->bytes;
	bool shortest = w->shortest_heads; /* which a tight list's are */
	wire_list_clear(w);
	*w = (wire_list){.bytes = bytes, .off = c->off, .len = c->len, .n = n, .msg = c->msg, .view = c->view,
			 .shortest_heads = shortest};
}

/* Arrays for an edited list of n elements made from w; false when memory ran out. */
static bool wire_arrays(edit *e, const wire_list *w, size_t n, wire_cols *c)
{
	size_t k = n ? n : 1;
	c->off = arena_array(e->m->arena, k, sizeof *c->off);
	c->len = arena_array(e->m->arena, k, sizeof *c->len);
	c->msg = arena_array(e->m->arena, k, sizeof *c->msg);
	c->view = w->view ? arena_array(e->m->arena, k, sizeof *c->view) : NULL;
	return (c->off && c->len && c->msg && (c->view || !w->view)) || oom(e);
}

/* Element k of w into position o of the new arrays. */
static void wire_move(const wire_list *w, size_t k, wire_cols *c, size_t o)
{
	c->off[o] = w->off[k];
	c->len[o] = w->len[k];
	c->msg[o] = w->msg ? w->msg[k] : NULL;
	if (c->view)
		c->view[o] = w->view[k];
}

/* Position o of the new arrays holds message `msg`, made by the edit. */
static void wire_made(wire_cols *c, size_t o, ProtobufCMessage *msg)
{
	c->off[o] = c->len[o] = 0;
	c->msg[o] = msg;
	if (c->view)
		c->view[o] = NULL;
}

/* Element k's message (the list's, or the IR node's while the list has none). */
static ProtobufCMessage *wire_node_msg(const osh_model *m, size_t k)
{
	const wire_list *w = &m->src.wire_nodes;
	if (w->msg)
		return w->msg[k];
	const graph *g = m->main;
	return (int64_t)k < g->nnodes && g->nodes[k].proto ? &g->nodes[k].proto->base : NULL;
}

/* The array of n names for a message: the strings copied, or, with `keep`, the
 * caller's own (which outlive the model). */
static char **dup_names(edit *e, int32_t n, const char *const *names, bool keep)
{
	/* Not zeroed: every entry is written below. */
	size_t bytes;
	char **v = __builtin_mul_overflow(n > 0 ? (size_t)n : 1, sizeof *v, &bytes) ? NULL
										    : arena_alloc(e->m->arena, bytes);
	if (!v) {
		oom(e);
		return NULL;
	}
	for (int32_t i = 0; i < n; i++)
		if (!(v[i] = keep ? (char *)(names[i] ? names[i] : "") : dup(e, names[i])))
			return NULL;
	return v;
}

static Onnx__NodeProto *node_new(edit *e, graph *g, int32_t before, const char *op_type, const char *domain,
				 const char *name, int32_t nin, const char *const *inputs, int32_t nout,
				 const char *const *outputs, bool keep)
{
	Onnx__NodeProto *np = arena_alloc(e->m->arena, sizeof *np);
	if (!np) {
		oom(e);
		return NULL;
	}
	onnx__node_proto__init(np);
	np->op_type = keep ? (char *)op_type : dup(e, op_type);
	np->domain = domain && domain[0] ? keep ? (char *)domain : dup(e, domain) : NULL;
	np->name = name ? keep ? (char *)name : dup(e, name) : NULL;
	np->input = dup_names(e, nin, inputs, keep);
	np->output = dup_names(e, nout, outputs, keep);
	if (!np->op_type || (domain && domain[0] && !np->domain) || (name && !np->name) || !np->input ||
	    !np->output)
		return NULL;
	np->n_input = (size_t)nin;
	np->n_output = (size_t)nout;
	if (e->nnodes == e->cap_nodes) {
		pending_node *p = grow_arena(e->m->arena, e->nodes, &e->cap_nodes, 16, sizeof *p);
		if (!p) {
			oom(e);
			return NULL;
		}
		e->nodes = p;
	}
	e->nodes[e->nnodes++] = (pending_node){g, before, np};
	return np;
}

Onnx__NodeProto *edit_node_new(edit *e, graph *g, int32_t before, const char *op_type, const char *domain,
			       const char *name, int32_t nin, const char *const *inputs, int32_t nout,
			       const char *const *outputs)
{
	return node_new(e, g, before, op_type, domain, name, nin, inputs, nout, outputs, false);
}

Onnx__NodeProto *edit_node_new_kept(edit *e, graph *g, int32_t before, const char *op_type, const char *domain,
				    const char *name, int32_t nin, const char *const *inputs, int32_t nout,
				    const char *const *outputs)
{
	return node_new(e, g, before, op_type, domain, name, nin, inputs, nout, outputs, true);
}

bool edit_node_set_op(edit *e, Onnx__NodeProto *np, const char *op_type, const char *domain)
{
	if (!np) /* edit_node ran out of memory */
		return false;
	char *op = dup(e, op_type);
	char *dom = domain && domain[0] ? dup(e, domain) : NULL;
	if (!op || (domain && domain[0] && !dom))
		return false;
	np->op_type = op;
	np->domain = dom;
	return true;
}

bool edit_node_set_input(edit *e, Onnx__NodeProto *np, int32_t k, const char *name)
{
	char *s = np ? dup(e, name) : NULL;
	if (!s || k < 0)
		return false;
	if ((size_t)k >= np->n_input) {
		char **in = arena_array(e->m->arena, (size_t)k + 1, sizeof *in);
		if (!in)
			return oom(e);
		for (size_t i = 0; i < (size_t)k; i++)
			in[i] = i < np->n_input ? np->input[i] : "";
		np->input = in;
		np->n_input = (size_t)k + 1;
	}
	np->input[k] = s;
	return true;
}

bool edit_node_set_output(edit *e, Onnx__NodeProto *np, int32_t k, const char *name)
{
	char *s = np ? dup(e, name) : NULL;
	if (!s || k < 0 || (size_t)k >= np->n_output)
		return false;
	np->output[k] = s;
	return true;
}

void edit_node_keep_inputs(Onnx__NodeProto *np, int32_t n)
{
	if (np && n >= 0 && (size_t)n < np->n_input)
		np->n_input = (size_t)n;
}

void edit_node_keep_outputs(Onnx__NodeProto *np, int32_t n)
{
	if (np && n >= 0 && (size_t)n < np->n_output)
		np->n_output = (size_t)n;
}

void edit_node_remove_attr(Onnx__NodeProto *np, const char *name)
{
	/* Compacted in place: the array stays the arena block it was. */
	size_t out = 0;
	if (!np)
		return;
	for (size_t i = 0; i < np->n_attribute; i++)
		if (!np->attribute[i]->name || strcmp(np->attribute[i]->name, name))
			np->attribute[out++] = np->attribute[i];
	np->n_attribute = out;
}

void edit_node_clear_attrs(Onnx__NodeProto *np)
{
	if (np)
		np->n_attribute = 0;
}

/* A fresh attribute `name` of `type` on np, replacing any of that name. */
static Onnx__AttributeProto *new_attr(edit *e, Onnx__NodeProto *np, const char *name,
				      Onnx__AttributeProto__AttributeType type)
{
	if (!np)
		return NULL;
	edit_node_remove_attr(np, name);
	Onnx__AttributeProto *a = arena_alloc(e->m->arena, sizeof *a);
	Onnx__AttributeProto **v = arena_array(e->m->arena, np->n_attribute + 1, sizeof *v);
	if (!a || !v) {
		oom(e);
		return NULL;
	}
	onnx__attribute_proto__init(a);
	if (!(a->name = dup(e, name)))
		return NULL;
	a->has_type = 1;
	a->type = type;
	if (np->n_attribute)
		memcpy(v, np->attribute, np->n_attribute * sizeof *v);
	v[np->n_attribute] = a;
	np->attribute = v;
	np->n_attribute++;
	return a;
}

bool edit_node_set_attr_i(edit *e, Onnx__NodeProto *np, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = new_attr(e, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	if (!a)
		return false;
	a->has_i = 1;
	a->i = v;
	return true;
}

bool edit_node_set_attr_f(edit *e, Onnx__NodeProto *np, const char *name, float v)
{
	Onnx__AttributeProto *a = new_attr(e, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	if (!a)
		return false;
	a->has_f = 1;
	a->f = v;
	return true;
}

bool edit_node_set_attr_s(edit *e, Onnx__NodeProto *np, const char *name, const char *v)
{
	Onnx__AttributeProto *a = new_attr(e, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	char *s = a ? dup(e, v) : NULL;
	if (!s)
		return false;
	a->has_s = 1;
	a->s.data = (uint8_t *)s;
	a->s.len = strlen(s);
	return true;
}

bool edit_node_set_attr_ints(edit *e, Onnx__NodeProto *np, const char *name, const int64_t *v, int32_t n)
{
	Onnx__AttributeProto *a = new_attr(e, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	int64_t *c = a ? arena_array(e->m->arena, n > 0 ? (size_t)n : 1, sizeof *c) : NULL;
	if (!c)
		return a ? oom(e) : false;
	if (n > 0)
		memcpy(c, v, (size_t)n * sizeof *c);
	a->ints = c;
	a->n_ints = (size_t)n;
	return true;
}

bool edit_node_set_attr_floats(edit *e, Onnx__NodeProto *np, const char *name, const float *v, int32_t n)
{
	Onnx__AttributeProto *a = new_attr(e, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	float *c = a ? arena_array(e->m->arena, n > 0 ? (size_t)n : 1, sizeof *c) : NULL;
	if (!c)
		return a ? oom(e) : false;
	if (n > 0)
		memcpy(c, v, (size_t)n * sizeof *c);
	a->floats = c;
	a->n_floats = (size_t)n;
	return true;
}

/* ---- initializers ------------------------------------------------------------------- */

/* IEEE 754 binary16 bits of x, rounded to nearest even (FLOAT16 has no typed field of
 * its own: the bits go into int32_data). */
static uint16_t half_bits(double x)
{
	uint16_t sign = signbit(x) ? 0x8000 : 0;
	double a = fabs(x);
	if (isnan(x))
		return 0x7e00;
	if (a >= 65520.0) /* rounds past the largest finite half */
		return sign | 0x7c00;
	if (a < 0x1p-24 / 2)
		return sign;
	int ex;
	double mant = frexp(a, &ex); /* a = mant * 2^ex, mant in [0.5, 1) */
	if (ex < -13) {
		/* Subnormal: units of 2^-24. */
		double units = nearbyint(a * 0x1p24);
		return sign | (uint16_t)units;
	}
	double frac = nearbyint((mant * 2.0 - 1.0) * 1024.0); /* 10 fraction bits */
	int e16 = ex - 1 + 15;
	if (frac >= 1024.0) {
		frac = 0;
		e16++;
	}
	if (e16 >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)(e16 << 10) | (uint16_t)frac;
}

bool edit_dtype_encodable(int32_t dtype, bool *is_float)
{
	switch (dtype) {
	case DT_FLOAT:
	case DT_DOUBLE:
	case DT_FLOAT16:
		*is_float = true;
		return true;
	case DT_INT64:
	case DT_INT32:
	case DT_INT16:
	case DT_INT8:
	case DT_UINT8:
	case DT_UINT16:
	case DT_UINT32:
	case DT_UINT64:
	case DT_BOOL:
		*is_float = false;
		return true;
	default:
		return false;
	}
}

static bool fill_tensor(edit *e, Onnx__TensorProto *t, int32_t dtype, int64_t count, const int64_t *iv,
			const double *fv)
{
	arena *a = e->m->arena;
	size_t n = (size_t)count, cap = n ? n : 1;
	switch (dtype) {
	case DT_FLOAT: {
		float *d = arena_array(a, cap, sizeof *d);
		if (!d)
			return oom(e);
		for (size_t i = 0; i < n; i++)
			d[i] = (float)fv[i];
		t->float_data = d;
		t->n_float_data = n;
		return true;
	}
	case DT_DOUBLE: {
		double *d = arena_array(a, cap, sizeof *d);
		if (!d)
			return oom(e);
		if (n)
			memcpy(d, fv, n * sizeof *d);
		t->double_data = d;
		t->n_double_data = n;
		return true;
	}
	case DT_INT64: {
		int64_t *d = arena_array(a, cap, sizeof *d);
		if (!d)
			return oom(e);
		if (n)
			memcpy(d, iv, n * sizeof *d);
		t->int64_data = d;
		t->n_int64_data = n;
		return true;
	}
	case DT_UINT32:
	case DT_UINT64: {
		uint64_t *d = arena_array(a, cap, sizeof *d);
		if (!d)
			return oom(e);
		for (size_t i = 0; i < n; i++)
			d[i] = (uint64_t)iv[i];
		t->uint64_data = d;
		t->n_uint64_data = n;
		return true;
	}
	default: { /* the narrow types, widened into int32_data */
		int32_t *d = arena_array(a, cap, sizeof *d);
		if (!d)
			return oom(e);
		for (size_t i = 0; i < n; i++)
			d[i] = dtype == DT_FLOAT16 ? (int32_t)half_bits(fv[i]) : (int32_t)iv[i];
		t->int32_data = d;
		t->n_int32_data = n;
		return true;
	}
	}
}

bool edit_add_initializer(edit *e, graph *g, const char *name, int32_t dtype, const int64_t *dims, int32_t rank,
			  const int64_t *ivals, const double *fvals)
{
	bool is_float;
	if (!edit_dtype_encodable(dtype, &is_float) || is_float != (fvals != NULL) || rank < 0)
		return false;
	int64_t count = 1;
	for (int32_t k = 0; k < rank; k++)
		if (dims[k] < 0 || __builtin_mul_overflow(count, dims[k], &count))
			return false;
	Onnx__TensorProto *t = arena_alloc(e->m->arena, sizeof *t);
	int64_t *d = arena_array(e->m->arena, rank ? (size_t)rank : 1, sizeof *d);
	if (!t || !d)
		return oom(e);
	onnx__tensor_proto__init(t);
	if (!(t->name = dup(e, name)))
		return false;
	t->has_data_type = 1;
	t->data_type = dtype;
	if (rank)
		memcpy(d, dims, (size_t)rank * sizeof *d);
	t->dims = d;
	t->n_dims = (size_t)rank;
	if (!fill_tensor(e, t, dtype, count, ivals, fvals))
		return false;
	if (e->ninits == e->cap_inits) {
		pending_init *p = grow_arena(e->m->arena, e->inits, &e->cap_inits, 16, sizeof *p);
		if (!p)
			return oom(e);
		e->inits = p;
	}
	e->inits[e->ninits++] = (pending_init){g, t};
	return true;
}

static bool queue_init(edit *e, graph *g, Onnx__TensorProto *t)
{
	if (e->ninits == e->cap_inits) {
		pending_init *p = grow_arena(e->m->arena, e->inits, &e->cap_inits, 16, sizeof *p);
		if (!p)
			return oom(e);
		e->inits = p;
	}
	e->inits[e->ninits++] = (pending_init){g, t};
	return true;
}

bool edit_constant_initializer(edit *e, graph *g, Onnx__NodeProto *np, const char *name)
{
	Onnx__TensorProto *src = NULL;
	for (size_t i = 0; np && i < np->n_attribute && !src; i++) {
		const Onnx__AttributeProto *a = np->attribute[i];
		if (a->name && !strcmp(a->name, "value") && a->t)
			src = a->t;
	}
	if (!src)
		return false;
	/* A shallow copy: the data stays where the attribute had it, only the name is
	 * the initializer's own. */
	Onnx__TensorProto *t = arena_alloc(e->m->arena, sizeof *t);
	if (!t)
		return oom(e);
	*t = *src;
	if (!(t->name = dup(e, name)))
		return false;
	return queue_init(e, g, t);
}

bool edit_view_copyable(const tensor_view *src)
{
	return src && src->valid && !src->external && src->dtype != DT_STRING && dtype_bits(src->dtype) >= 8;
}

/* The bytes of one entry of the typed field a tensor of dtype keeps its data in
 * without raw_data (model.h's tensor_view), and the field set to d (n entries). */
static size_t typed_width(int32_t dtype)
{
	switch (dtype) {
	case DT_FLOAT:
	case DT_COMPLEX64: return sizeof(float);
	case DT_INT64: return sizeof(int64_t);
	case DT_DOUBLE:
	case DT_COMPLEX128: return sizeof(double);
	case DT_UINT32:
	case DT_UINT64: return sizeof(uint64_t);
	default: return sizeof(int32_t);
	}
}

static void set_typed_field(Onnx__TensorProto *t, int32_t dtype, void *d, size_t n)
{
	switch (dtype) {
	case DT_FLOAT:
	case DT_COMPLEX64: t->float_data = d, t->n_float_data = n; break;
	case DT_INT64: t->int64_data = d, t->n_int64_data = n; break;
	case DT_DOUBLE:
	case DT_COMPLEX128: t->double_data = d, t->n_double_data = n; break;
	case DT_UINT32:
	case DT_UINT64: t->uint64_data = d, t->n_uint64_data = n; break;
	default: t->int32_data = d, t->n_int32_data = n; break;
	}
}

/* Copies `count` elements of `width` bytes from `from`, laid out with dims in[],
 * into `to` in the order of their transpose by perm (out dim k is in dim perm[k]). */
static void transpose_elements(uint8_t *to, const uint8_t *from, size_t width, const int64_t *in,
			       const int64_t *perm, int32_t rank, int64_t count)
{
	int64_t stride[EDIT_MAX_PERM], idx[EDIT_MAX_PERM] = {0}, out[EDIT_MAX_PERM];
	int64_t st = 1;
	for (int32_t k = rank - 1; k >= 0; k--) {
		stride[k] = st;
		st *= in[k];
	}
	for (int32_t k = 0; k < rank; k++)
		out[k] = in[perm[k]];
	int64_t off = 0;
	for (int64_t n = 0; n < count; n++) {
		memcpy(to + (size_t)n * width, from + (size_t)off * width, width);
		/* The next output index, row-major, and its input offset with it. */
		for (int32_t k = rank - 1; k >= 0; k--) {
			off += stride[perm[k]];
			if (++idx[k] < out[k])
				break;
			off -= stride[perm[k]] * out[k];
			idx[k] = 0;
		}
	}
}

const tensor_view *edit_view_transposed(arena *a, const tensor_view *src, const int64_t *dims, const int64_t *perm,
					int32_t rank, const int64_t *out_dims, int32_t out_rank)
{
	if (!edit_view_copyable(src) || rank < 0 || rank > EDIT_MAX_PERM || (out_dims && out_rank < 0))
		return NULL;
	int64_t count = 1, oc = 1;
	for (int32_t k = 0; k < rank; k++)
		if (dims[k] < 0 || perm[k] < 0 || perm[k] >= rank || __builtin_mul_overflow(count, dims[k], &count))
			return NULL;
	int32_t nd = out_dims ? out_rank : rank;
	tensor_view *v = arena_alloc(a, sizeof *v);
	int64_t *d = arena_array(a, nd ? (size_t)nd : 1, sizeof *d);
	if (count != src->count || !v || !d)
		return NULL;
	for (int32_t k = 0; k < nd; k++) {
		d[k] = out_dims ? out_dims[k] : dims[perm[k]];
		if (d[k] < 0 || __builtin_mul_overflow(oc, d[k], &oc))
			return NULL;
	}
	if (oc != count)
		return NULL;
	*v = *src;
	v->dims = d;
	v->rank = nd;
	/* Complex numbers are two entries an element. */
	size_t per = src->dtype == DT_COMPLEX64 || src->dtype == DT_COMPLEX128 ? 2 : 1, width, len;
	const uint8_t *from;
	if (src->raw) {
		width = (size_t)dtype_bits(src->dtype) / 8;
		len = src->raw_len;
		from = src->raw;
	} else {
		width = typed_width(src->dtype) * per;
		len = src->ntyped * typed_width(src->dtype);
		from = src->typed;
		if (src->ntyped != (size_t)count * per)
			return NULL;
	}
	if (len != (size_t)count * width)
		return NULL;
	uint8_t *to = arena_alloc(a, len ? len : 1);
	if (!to)
		return NULL;
	if (count)
		transpose_elements(to, from, width, dims, perm, rank, count);
	if (src->raw)
		v->raw = to;
	else
		v->typed = to;
	return v;
}

bool edit_transposed_initializer(edit *e, graph *g, const char *name, const tensor_view *src, const int64_t *dims,
				 const int64_t *perm, int32_t rank, const int64_t *out_dims, int32_t out_rank)
{
	/* A copy of the data, not a pointer to it: its order changes, and the source
	 * may be dropped by the same edit (nothing else reads it). */
	arena *a = e->m->arena;
	const tensor_view *v = edit_view_transposed(a, src, dims, perm, rank, out_dims, out_rank);
	Onnx__TensorProto *t = arena_alloc(a, sizeof *t);
	int64_t *d = v ? arena_array(a, v->rank ? (size_t)v->rank : 1, sizeof *d) : NULL;
	if (!v || !t || !d)
		return oom(e);
	onnx__tensor_proto__init(t);
	if (!(t->name = dup(e, name)))
		return false;
	t->has_data_type = 1;
	t->data_type = v->dtype;
	if (v->rank)
		memcpy(d, v->dims, (size_t)v->rank * sizeof *d);
	t->dims = d;
	t->n_dims = (size_t)v->rank;
	/* The view's data is the arena's copy just made: the message may point at it. */
	if (v->raw) {
		t->has_raw_data = 1;
		t->raw_data.len = v->raw_len;
		t->raw_data.data = (uint8_t *)(uintptr_t)v->raw;
	} else {
		set_typed_field(t, v->dtype, (void *)(uintptr_t)v->typed, v->ntyped);
	}
	return queue_init(e, g, t);
}

/* ---- model header ------------------------------------------------------------------- */

static bool is_domain(const Onnx__OperatorSetIdProto *o, const char *domain)
{
	const char *d = o->domain ? o->domain : "";
	if (!strcmp(d, "ai.onnx"))
		d = "";
	return !strcmp(d, !strcmp(domain, "ai.onnx") ? "" : domain);
}

bool edit_set_opset(edit *e, const char *domain, int64_t version)
{
	Onnx__ModelProto *mp = e->m->proto;
	for (size_t i = 0; i < mp->n_opset_import; i++) {
		if (is_domain(mp->opset_import[i], domain)) {
			mp->opset_import[i]->has_version = 1;
			mp->opset_import[i]->version = version;
			return true;
		}
	}
	Onnx__OperatorSetIdProto *o = arena_alloc(e->m->arena, sizeof *o);
	Onnx__OperatorSetIdProto **v = arena_array(e->m->arena, mp->n_opset_import + 1, sizeof *v);
	if (!o || !v)
		return oom(e);
	onnx__operator_set_id_proto__init(o);
	if (!(o->domain = dup(e, !strcmp(domain, "ai.onnx") ? "" : domain)))
		return false;
	o->has_version = 1;
	o->version = version;
	if (mp->n_opset_import)
		memcpy(v, mp->opset_import, mp->n_opset_import * sizeof *v);
	v[mp->n_opset_import++] = o;
	mp->opset_import = v;
	return true;
}

void edit_remove_opset(edit *e, const char *domain)
{
	Onnx__ModelProto *mp = e->m->proto;
	size_t out = 0;
	for (size_t i = 0; i < mp->n_opset_import; i++)
		if (!is_domain(mp->opset_import[i], domain))
			mp->opset_import[out++] = mp->opset_import[i];
	mp->n_opset_import = out;
}

void edit_raise_ir_version(edit *e, int64_t v)
{
	Onnx__ModelProto *mp = e->m->proto;
	if (!mp->has_ir_version || mp->ir_version < v) {
		mp->has_ir_version = 1;
		mp->ir_version = v;
	}
}

void edit_drop_initializer_inputs(osh_model *m)
{
	graph *g = m->main;
	Onnx__GraphProto *gp = g ? g->proto : NULL;
	if (!gp)
		return;
	size_t count = (size_t)g->ninputs < gp->n_input ? (size_t)g->ninputs : gp->n_input, kept = 0;
	for (size_t k = 0; k < count; k++)
		if (!g->values[g->inputs[k]].init_view)
			gp->input[kept++] = gp->input[k];
	for (size_t k = count; k < gp->n_input; k++)
		gp->input[kept++] = gp->input[k];
	m->modified |= kept != gp->n_input;
	gp->n_input = kept;
}

int64_t edit_ir_version(const osh_model *m)
{
	const Onnx__ModelProto *mp = m->proto;
	return mp && mp->has_ir_version ? mp->ir_version : 0;
}

/* ---- commit ------------------------------------------------------------------------- */

/* Splices the pending nodes of graph g (those with p->g == g) into its node list. */
static bool splice_nodes(edit *e, graph *g)
{
	Onnx__GraphProto *gp = g->proto;
	size_t add = 0;
	for (size_t i = 0; i < e->nnodes; i++)
		add += e->nodes[i].g == g;
	if (!add && !(g == e->m->main && e->drop_wire))
		return true;
	bool wire = wire_nodes_of(e->m, g);
	size_t n = wire ? e->m->src.wire_nodes.n : gp->n_node;
	const bool *drop = wire ? e->drop_wire : NULL;
	/* Bucket the pending nodes by insertion point, stable: first[k] lists, in queue
	 * order, the nodes to place before original node k (k == n: at the end). */
	size_t *count = arena_array(e->m->arena, n + 2, sizeof *count);
	Onnx__NodeProto **sorted = arena_array(e->m->arena, add ? add : 1, sizeof *sorted);
	Onnx__NodeProto **out = wire ? NULL : arena_array(e->m->arena, n + add, sizeof *out);
	if (!count || !sorted || (!wire && !out))
		return oom(e);
	for (size_t i = 0; i < e->nnodes; i++) {
		if (e->nodes[i].g != g)
			continue;
		int32_t b = e->nodes[i].before;
		count[(b < 0 || (size_t)b > n ? n : (size_t)b) + 1]++;
	}
	for (size_t k = 1; k < n + 2; k++)
		count[k] += count[k - 1];
	/* count[k] is now where bucket k starts in `sorted`. */
	size_t *fill = arena_array(e->m->arena, n + 1, sizeof *fill);
	if (!fill)
		return oom(e);
	memcpy(fill, count, (n + 1) * sizeof *fill);
	for (size_t i = 0; i < e->nnodes; i++) {
		if (e->nodes[i].g != g)
			continue;
		int32_t b = e->nodes[i].before;
		size_t k = b < 0 || (size_t)b > n ? n : (size_t)b;
		sorted[fill[k]++] = e->nodes[i].np;
	}
	size_t o = 0;
	if (wire) {
		wire_list *w = &e->m->src.wire_nodes;
		wire_cols c;
		if (!wire_arrays(e, w, n + add, &c))
			return false;
		/* Where each element was, for the re-index to take what the IR decoded. */
		int32_t *from = arena_array(e->m->arena, n + add, sizeof *from);
		if (!from)
			return oom(e);
		for (size_t k = 0; k <= n; k++) {
			for (size_t j = count[k]; j < count[k + 1]; j++) {
				from[o] = -1;
				wire_made(&c, o++, &sorted[j]->base);
			}
			if (k < n && !(drop && drop[k])) {
				from[o] = w->from ? w->from[k] : (int32_t)k;
				wire_move(w, k, &c, o);
				c.msg[o++] = wire_node_msg(e->m, k);
			}
		}
		wire_replace(w, &c, o);
		w->from = from;
		return true;
	}
	for (size_t k = 0; k <= n; k++) {
		for (size_t j = count[k]; j < count[k + 1]; j++)
			out[o++] = sorted[j];
		if (k < n)
			out[o++] = gp->node[k];
	}
	gp->node = out;
	gp->n_node = o;
	return true;
}

static bool append_inits(edit *e, graph *g)
{
	Onnx__GraphProto *gp = g->proto;
	size_t add = 0;
	for (size_t i = 0; i < e->ninits; i++)
		add += e->inits[i].g == g;
	if (!add)
		return true;
	if (wire_inits_of(e->m, g)) {
		wire_list *w = &e->m->src.wire_inits;
		wire_cols c;
		if (!wire_arrays(e, w, w->n + add, &c))
			return false;
		size_t o = 0;
		for (; o < w->n; o++)
			wire_move(w, o, &c, o);
		for (size_t i = 0; i < e->ninits; i++)
			if (e->inits[i].g == g)
				wire_made(&c, o++, &e->inits[i].t->base);
		wire_replace(w, &c, o);
		return true;
	}
	Onnx__TensorProto **v = arena_array(e->m->arena, gp->n_initializer + add, sizeof *v);
	if (!v)
		return oom(e);
	if (gp->n_initializer)
		memcpy(v, gp->initializer, gp->n_initializer * sizeof *v);
	size_t o = gp->n_initializer;
	for (size_t i = 0; i < e->ninits; i++)
		if (e->inits[i].g == g)
			v[o++] = e->inits[i].t;
	gp->initializer = v;
	gp->n_initializer = o;
	return true;
}

bool edit_commit(edit *e)
{
	if (e->failed)
		return false;
	osh_model *m = e->m;
	/* Edits of subgraphs changed messages inside main-graph nodes: those must be
	 * what the list holds from now on, not their bytes. */
	if (m->src.wire_nodes.n && !loader_keep_node_messages(m))
		return oom(e);
	for (int32_t i = 0; i < m->ngraphs; i++) {
		graph *g = m->graphs[i];
		if (!g->proto)
			continue;
		if (!splice_nodes(e, g) || !append_inits(e, g))
			return false;
	}
	e->nnodes = e->ninits = 0;
	e->drop_wire = NULL;
	m->modified = true;
	return true;
}

/* ---- value_info --------------------------------------------------------------------- */

/* The TypeProtos edit_value_info has made, by the type they say: a decomposition
 * makes thousands of values of a few shapes, and one message per shape, shared by
 * their entries, is built once and packed once by the writer (which memoizes a
 * type's bytes by message). Only tensor types are made here, so the key is the
 * element type and the dims as written: known sizes and symbols as they resolve,
 * any other dim empty. */
typedef struct type_share {
	uint64_t *hash; /* 0: empty slot */
	const tinfo **key;
	Onnx__TypeProto **tp;
	size_t cap, len; /* cap: a power of two, or 0 */
} type_share;

static dim written_dim(osh_model *m, dim d)
{
	dim x = dim_resolve(&m->syms, d);
	return x.kind == DIM_KNOWN || x.kind == DIM_SYMBOL ? x : dim_unknown();
}

static uint64_t type_hash(osh_model *m, const tinfo *t)
{
	uint64_t h = 1469598103934665603u;
	h = (h ^ (uint64_t)(uint32_t)t->elem) * 1099511628211u;
	h = (h ^ (uint64_t)(uint32_t)t->rank) * 1099511628211u;
	for (int32_t k = 0; k < t->rank; k++) {
		dim x = written_dim(m, t->dims[k]);
		h = (h ^ (uint64_t)x.kind) * 1099511628211u;
		h = (h ^ (uint64_t)x.v) * 1099511628211u;
	}
	return h ? h : 1;
}

static bool same_type(osh_model *m, const tinfo *a, const tinfo *b)
{
	if (a->elem != b->elem || a->rank != b->rank)
		return false;
	for (int32_t k = 0; k < a->rank; k++) {
		dim x = written_dim(m, a->dims[k]), y = written_dim(m, b->dims[k]);
		if (x.kind != y.kind || x.v != y.v)
			return false;
	}
	return true;
}

static bool share_grow(osh_model *m, type_share *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *hash = arena_zalloc(m->arena, cap * sizeof *hash);
	const tinfo **key = arena_array(m->arena, cap, sizeof *key);
	Onnx__TypeProto **tp = arena_array(m->arena, cap, sizeof *tp);
	if (!hash || !key || !tp)
		return false;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->hash[i])
			continue;
		size_t j = (size_t)s->hash[i] & (cap - 1);
		while (hash[j])
			j = (j + 1) & (cap - 1);
		hash[j] = s->hash[i], key[j] = s->key[i], tp[j] = s->tp[i];
	}
	*s = (type_share){.hash = hash, .key = key, .tp = tp, .cap = cap, .len = s->len};
	return true;
}

/* The TypeProto for tensor type t: the one made for an equal type, else a new one.
 * NULL with *skip as emit_type_proto says; NULL without it when memory ran out. */
static Onnx__TypeProto *shared_type(osh_model *m, type_share *s, const tinfo *t, bool *skip)
{
	*skip = false;
	if ((s->len + 1) * 4 > s->cap * 3 && !share_grow(m, s))
		return NULL;
	uint64_t h = type_hash(m, t);
	size_t j = (size_t)h & (s->cap - 1);
	for (; s->hash[j]; j = (j + 1) & (s->cap - 1))
		if (s->hash[j] == h && same_type(m, s->key[j], t))
			return s->tp[j];
	Onnx__TypeProto *tp = emit_type_proto(m, t, false, skip);
	if (!tp)
		return NULL;
	s->hash[j] = h, s->key[j] = t, s->tp[j] = tp;
	s->len++;
	return tp;
}

/* Marks in `mark` the values of g whose names are in `names`: one look-up per name
 * rather than one per value of the graph. The count of those marked. */
static size_t mark_named(const graph *g, const strmap *names, uint8_t *mark)
{
	size_t n = 0;
	for (size_t i = 0; i < names->cap; i++) {
		/* Both maps hash names alike: the slot's hash serves for the look-up. */
		const char *name = names->slots[i].key;
		int32_t v = name ? strmap_getn_hashed(&g->names, name, strlen(name), names->slots[i].hash, NULL) : -1;
		if (v >= 0 && !mark[v]) {
			mark[v] = 1;
			n++;
		}
	}
	return n;
}

static bool value_info_graph(osh_model *m, graph *g, const strmap *names, type_share *share)
{
	Onnx__GraphProto *gp = g->proto;
	if (!names->len || !g->nvalues)
		return true;
	uint8_t *mark = arena_zalloc(m->arena, (size_t)g->nvalues);
	if (!mark)
		return false;
	size_t add = mark_named(g, names, mark);
	if (!add)
		return true;
	strmap existing;
	strmap_init(&existing, m->arena);
	for (size_t i = 0; i < gp->n_value_info; i++)
		if (gp->value_info[i]->name && strmap_put(&existing, gp->value_info[i]->name, (int32_t)i) == -2)
			return false;
	Onnx__ValueInfoProto **vis = arena_array(m->arena, gp->n_value_info + add, sizeof *vis);
	if (!vis)
		return false;
	if (gp->n_value_info)
		memcpy(vis, gp->value_info, gp->n_value_info * sizeof *vis);
	size_t n = gp->n_value_info;
	for (int32_t i = 0; i < g->nvalues; i++) {
		const value *v = &g->values[i];
		if (!mark[i] || v->origin != VAL_NODE || v->is_output)
			continue;
		if (v->ti.kind != TK_TENSOR || (!v->ti.elem && v->ti.rank < 0))
			continue;
		bool skip;
		Onnx__TypeProto *tp = shared_type(m, share, &v->ti, &skip);
		if (!tp) {
			if (skip)
				continue;
			return false;
		}
		int32_t at = existing.len ? strmap_get(&existing, v->name) : -1;
		if (at >= 0) {
			vis[at]->type = tp;
			continue;
		}
		Onnx__ValueInfoProto *vi = arena_alloc(m->arena, sizeof *vi);
		if (!vi)
			return false;
		onnx__value_info_proto__init(vi);
		vi->name = (char *)v->name;
		vi->type = tp;
		vis[n++] = vi;
	}
	gp->value_info = vis;
	gp->n_value_info = n;
	return true;
}

bool edit_value_info(osh_model *m, const strmap *names)
{
	type_share share = {0};
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (m->graphs[i]->proto && !value_info_graph(m, m->graphs[i], names, &share)) {
			m->nomem = true;
			return false;
		}
	m->modified = true;
	return true;
}

/* ---- removal (rewrite_implicit.c) ---------------------------------------------------- */

/* The name of wire initializer k of the main graph, in *name and *len (not
 * terminated); false when it has none. */
static bool wire_init_name(edit *e, size_t k, const char **name, size_t *len)
{
	const wire_list *w = &e->m->src.wire_inits;
	const Onnx__TensorProto *t = w->msg ? (const Onnx__TensorProto *)w->msg[k] : NULL;
	/* The index's view has it without a look at the input, whose pages are spread
	 * a weight apart and mostly given back by now. */
	const tensor_view *tv = t || !w->view ? NULL : w->view[k];
	if (tv) {
		*name = tv->name;
		*len = strlen(tv->name);
		return true;
	}
	wire_field f;
	if (!t && wire_find_one(w->bytes + w->off[k], 0, w->len[k], 8, &f)) {
		*name = (const char *)w->bytes + w->off[k] + f.payload;
		*len = f.len;
		return true;
	}
	/* Its name given twice, or never (rare): protobuf-c says which counts. */
	if (!t)
		t = onnx__tensor_proto__unpack(arena_protobuf_allocator(e->m->arena), w->len[k], w->bytes + w->off[k]);
	if (!t || !t->name)
		return false;
	*name = t->name;
	*len = strlen(t->name);
	return true;
}

/* edit_drop's initializers of the main graph while they are wire bytes. */
static bool drop_wire_inits(edit *e, const strmap *names)
{
	wire_list *w = &e->m->src.wire_inits;
	wire_cols c;
	if (!wire_arrays(e, w, w->n, &c))
		return false;
	size_t o = 0;
	for (size_t k = 0; k < w->n; k++) {
		const char *name;
		size_t n;
		if (wire_init_name(e, k, &name, &n) && strmap_getn(names, name, n, NULL) >= 0)
			continue;
		wire_move(w, k, &c, o++);
	}
	if (o < w->n)
		wire_replace(w, &c, o);
	return true;
}

void edit_drop(edit *e, graph *g, const bool *drop, const strmap *names)
{
	Onnx__GraphProto *gp = g->proto;
	if (!gp)
		return;
	size_t o = 0;
	if (wire_nodes_of(e->m, g)) {
		if (!e->drop_wire && !(e->drop_wire = arena_array(e->m->arena, (size_t)g->nnodes, sizeof *drop))) {
			oom(e);
			return;
		}
		for (int32_t k = 0; k < g->nnodes; k++)
			e->drop_wire[k] |= drop[k];
	}
	for (size_t k = 0; k < gp->n_node; k++)
		if (!(k < (size_t)g->nnodes && drop[k]))
			gp->node[o++] = gp->node[k];
	gp->n_node = o;
	if (names && wire_inits_of(e->m, g) && !drop_wire_inits(e, names))
		return;
	if (names) {
		o = 0;
		for (size_t k = 0; k < gp->n_initializer; k++)
			if (!gp->initializer[k]->name || strmap_get(names, gp->initializer[k]->name) < 0)
				gp->initializer[o++] = gp->initializer[k];
		gp->n_initializer = o;
		o = 0;
		for (size_t k = 0; k < gp->n_value_info; k++)
			if (!gp->value_info[k]->name || strmap_get(names, gp->value_info[k]->name) < 0)
				gp->value_info[o++] = gp->value_info[k];
		gp->n_value_info = o;
	}
	e->m->modified = true;
}
