/* index.c: builds the IR of core/model.h over the unpacked messages.
 *
 * For the main graph, every subgraph held in a node attribute (If/Loop/Scan bodies,
 * recursively) and every model-local function body: the value table (graph inputs,
 * initializers, node outputs, outer-scope references), each value's producer and
 * consumers, and a topological order of the nodes. What leaves the IR without a
 * meaning is a malformed-model error: an input nothing defines, a value defined
 * twice, a cycle. What ONNX Runtime refuses but indexes fine has its own code: a
 * domain nobody imports (opset-error), two nodes of one name, a graph input without
 * a type or a name, a graph without outputs (graph-error), an initializer of another
 * type than its graph input (type-error), a call that does not fit its model-local
 * function or a body name its caller lacks (function-error), and the rules of ONNX's
 * checker that ONNX Runtime runs on each subgraph and called function body: SSA
 * across nested graphs, no outer value returned as it is, nodes in order
 * (subgraph-error). What only the spec forbids is a not-in-spec warning: main-graph
 * nodes out of order (the order is a sorted one then), a default or runtime domain
 * left out of opset_import, names defined twice where ONNX Runtime takes the last
 * (initializers, functions), an unnamed initializer, a ref_attr_name outside a
 * function. The index is complete in every case (the order covers every node), so
 * later passes can keep working and report more.
 *
 * Invariant: a subgraph's reference to a name of an enclosing graph creates a
 * VAL_OUTER entry in every graph between the two, so each node depends only on values
 * of its own graph, either directly or through the outer references of its subgraphs.
 */
#include "core/dtype.h"
#include "core/grow.h"
#include "core/tuning.h"
#include "loader/decode_node.h"
#include "loader/decode_tensor.h"
#include "loader/loader.h"
#include "loader/resolve.h"
#include "loader/scan_job.h"
#include "io/input.h"
#include "loader/unpack_tensor.h"
#include "loader/wire.h"
#include "loader/wire_short.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *str(const char *s) { return s ? s : ""; }

static graph *graph_new(osh_model *m, const char *path, graph *parent, int32_t parent_node, int32_t depth)
{
	graph *g = arena_zalloc(m->arena, sizeof *g);
	if (!g)
		return NULL;
	g->path = path;
	g->parent = parent;
	g->parent_node = parent_node;
	g->depth = depth;
	strmap_init(&g->names, m->arena);
	if (m->ngraphs == m->cap_graphs) {
		graph **gs = grow_arena_i32(m->arena, m->graphs, &m->cap_graphs, 8, sizeof *gs);
		if (!gs)
			return NULL;
		m->graphs = gs;
	}
	m->graphs[m->ngraphs++] = g;
	return g;
}

/* A big table the index fills row by row (values, nodes) is faulted in by the
 * prefault thread TABLE_AHEAD rows ahead of the row being written: left to the
 * index, its pages would be a good part of the loader's page faults, and made
 * resident whole at the start, they would add to the peak while the input's pages
 * are still in memory. */
#define TABLE_AHEAD 4096

/* At row `row` of a table of `cap` rows: the next TABLE_AHEAD rows after the ones
 * up to row + TABLE_AHEAD, which an earlier call asked for (the first asks for two
 * stretches). */
static void rows_ahead(osh_model *m, void *table, int32_t row, int32_t cap, size_t size)
{
	int64_t from = row ? (int64_t)row + TABLE_AHEAD : 0, to = (int64_t)row + 2 * TABLE_AHEAD;
	if (to > cap)
		to = cap;
	if (from < to)
		arena_will_write(m->arena, (char *)table + (size_t)from * size, (size_t)(to - from) * size);
}

/* Room for one more value in g's full table; false when memory ran out. */
static bool values_grow(arena *a, graph *g)
{
	value *v = grow_arena_i32(a, g->values, &g->cap_values, 16, sizeof *v);
	if (v)
		g->values = v;
	return v != NULL;
}

/* Appends a value; returns its id or -1 when memory ran out. The name is not
 * registered in the map: callers decide (a duplicate keeps the first definition). */
static int32_t value_new(osh_model *m, graph *g, const char *name, value_origin origin)
{
	if (g->nvalues == g->cap_values && !values_grow(m->arena, g))
		return -1;
	int32_t id = g->nvalues++;
	/* Unknown from the start, while its row is being written anyway: a pass over
	 * the whole table to say so would sweep it once more. */
	/* Field by field: as one compound literal (or a memset, or a copy of a blank
	 * row) the row was zeroed with `rep stos` first, whose start-up cost more than
	 * the row's own stores, at every value. */
	value *v = &g->values[id];
	v->name = name;
	v->consumers = NULL;
	v->init_view = NULL;
	v->x = NULL;
	v->ti = tinfo_unknown();
	v->producer = -1;
	v->producer_out = 0;
	v->nconsumers = 0;
	v->origin = (uint8_t)origin;
	v->is_output = false;
	g->nproduced += origin == VAL_NODE;
	if (id % TABLE_AHEAD == 0)
		rows_ahead(m, g->values, id, g->cap_values, sizeof *g->values);
	return id;
}

/* Defines name in g. Returns the new id, or -(existing id) - 2 when the name was
 * already defined (so callers can report both definitions), or -1 on OOM. */
static int32_t define_at(osh_model *m, graph *g, int32_t *entry, const char *name, value_origin origin)
{
	if (*entry >= 0 && g->values[*entry].origin != VAL_OUTER)
		return -*entry - 2;
	int32_t id = value_new(m, g, name, origin);
	if (id < 0)
		return -1; /* the entry stays as it was: -1 is absent */
	*entry = id;
	return id;
}

static int32_t define(osh_model *m, graph *g, const char *name, value_origin origin)
{
	bool found;
	int32_t *entry = strmap_entry(&g->names, name, &found);
	return entry ? define_at(m, g, entry, name, origin) : -1;
}

/* define, for a name whose hash a prefetch computed (h is strmap_hash(name)). */
static int32_t define_hashed(osh_model *m, graph *g, const char *name, uint32_t h, value_origin origin)
{
	bool found;
	int32_t *entry = strmap_entry_hashed(&g->names, name, h, &found);
	return entry ? define_at(m, g, entry, name, origin) : -1;
}

int32_t graph_lookup(graph *g, const char *name)
{
	int32_t id = strmap_get(&g->names, name);
	if (id >= 0 || !g->parent)
		return id;
	int32_t outer = graph_lookup(g->parent, name);
	if (outer < 0)
		return -1;
	/* Memory for the new entry comes from the parent's arena via the map's arena. */
	arena *a = g->names.a;
	if (g->nvalues == g->cap_values && !values_grow(a, g))
		return -1;
	/* Before the entry is counted: a VAL_OUTER value always knows its outer graph. */
	value_extra *x = value_extra_new(a);
	if (!x)
		return -1;
	x->outer = g->parent;
	x->outer_id = outer;
	id = g->nvalues++;
	g->values[id] = (value){
		.name = g->parent->values[outer].name, .x = x, .ti = tinfo_unknown(), .origin = VAL_OUTER, .producer = -1};
	if (!strmap_set(&g->names, g->values[id].name, id))
		return -1;
	return id;
}

/* Notes node ni of g as a consumer of v, and g as not in topological order when v
 * comes from ni or a later node. */
static bool add_consumer(osh_model *m, graph *g, value *v, int32_t ni)
{
	if (v->origin == VAL_NODE && v->producer >= ni)
		g->backward = true;
	if (v->nconsumers && v->consumers[v->nconsumers - 1] == ni)
		return true; /* a node counts once per distinct use site in order */
	/* Full at 0 and at every power of two from 2: the list starts with room for 2
	 * and doubles (value.consumers). */
	int32_t n = v->nconsumers;
	if (n == 0 || (n >= 2 && (n & (n - 1)) == 0)) {
		if (n > INT32_MAX / 2)
			return false;
		/* Most values have one or two consumers: a plain allocation and a short
		 * copy, not arena_grow's calls to memcpy and memset. The tail past
		 * nconsumers is never read, so it is not zeroed. */
		int32_t cap = n ? n * 2 : 2;
		int32_t *c = arena_alloc(m->arena, (size_t)cap * sizeof *c);
		if (!c)
			return false;
		for (int32_t k = 0; k < n; k++)
			c[k] = v->consumers[k];
		v->consumers = c;
	}
	v->consumers[v->nconsumers++] = ni;
	return true;
}

static const char *describe_def(osh_model *m, const graph *g, int32_t id)
{
	const value *v = &g->values[id];
	switch (v->origin) {
	case VAL_INPUT:
		return "a graph input";
	case VAL_INITIALIZER:
		return "an initializer";
	case VAL_NODE: {
		const node *n = &g->nodes[v->producer];
		return arena_printf(m->arena, "node %d '%s' (%s)", v->producer, n->name, n->op_type);
	}
	default:
		return "an earlier definition";
	}
}

/* Whether ONNX Runtime checks g as a graph: the main graph and its subgraphs, and the
 * body of a model-local function that is called (ONNX Runtime inlines it, and checks
 * it there); of an uncalled function it only makes a schema. */
static bool ort_checks(const graph *g)
{
	while (g->parent)
		g = g->parent;
	return !g->function || g->called;
}

static bool in_function(const graph *g)
{
	while (g->parent)
		g = g->parent;
	return g->function != NULL;
}

/* The opset version node ni of g resolves at for `domain`, -1 when nothing imports
 * it (check_node reports that).
 *
 * A function body, and every subgraph in it, uses the function's own opset_import:
 * ONNX Runtime refuses a body whose node's domain it leaves out (a function-error,
 * once per graph and domain: `reported` holds those), which then resolves at the
 * model's import, so that the rest is still checked. A domain the model leaves out
 * that ONNX Runtime fills in itself (the default domain, which IR.md imports
 * implicitly, and the others it publishes) resolves at the newest version, as ONNX
 * Runtime resolves it at its own newest: a not-in-spec warning, once per model. */
static int64_t node_opset(osh_model *m, graph *g, int32_t ni, const char *domain, strmap *reported)
{
	const graph *root = g;
	while (root->parent)
		root = root->parent;
	const Onnx__FunctionProto *f = root->function;
	int64_t own = -1; /* the function's own import of the domain */
	if (f) {
		for (size_t i = 0; i < f->n_opset_import && own < 0; i++) {
			const char *d = str(f->opset_import[i]->domain);
			if (!strcmp(d, "ai.onnx"))
				d = "";
			if (!strcmp(d, domain))
				own = f->opset_import[i]->version;
		}
		bool found;
		int32_t *seen = strmap_entry(reported, domain, &found);
		if (!seen) {
			m->nomem = true;
			return -1;
		}
		if (!found) {
			*seen = 0;
			if (own < 0)
				model_diag(m, OSH_ERROR, DIAG_FUNCTION_ERROR, g, ni, NULL,
					   "domain '%s' is not in the function's own opset_import: ONNX Runtime refuses the "
					   "function",
					   domain[0] ? domain : "ai.onnx");
			else if (model_opset(m, domain) >= 0 && model_opset(m, domain) != own)
				model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, NULL,
					   "the function imports %s version %lld, the model %lld: ONNX Runtime inlines the body "
					   "into the model and resolves its nodes at the model's version",
					   domain[0] ? domain : "ai.onnx", (long long)own, (long long)model_opset(m, domain));
		}
	}
	/* A function body is resolved at the model's import, as ONNX Runtime does once
	 * it has inlined it (the spec would take the function's own). */
	int64_t v = model_opset(m, domain);
	if (v >= 0)
		return v;
	if (own >= 0 && opset_newest_known(domain) <= 0)
		return own; /* a domain only the function knows: its import is all there is */
	int32_t implied = strmap_get(&m->implied_opsets, domain);
	if (implied >= 0)
		return implied;
	int64_t newest = opset_newest_known(domain);
	if (newest <= 0 || newest > INT32_MAX)
		return -1;
	if (strmap_put(&m->implied_opsets, domain, (int32_t)newest) == -2) {
		m->nomem = true;
		return -1;
	}
	/* Without any opset_import the model was refused already: nothing to add. */
	if (m->proto->n_opset_import)
		model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, NULL,
			   "operator domain '%s' is not in the model's opset_import: resolved at its newest version, %lld "
			   "(ONNX Runtime takes its own newest)",
			   domain[0] ? domain : "ai.onnx", (long long)newest);
	return newest;
}

/* The model-local function (domain, name) names, by index into proto->functions
 * (the last definition when there are several, as ONNX Runtime takes it), or -1. A hash lookup: a scan of
 * the functions for every node would be quadratic in a hostile file. */
static int32_t find_function(const osh_model *m, const char *domain, const char *name)
{
	/* "LEN:DOMAINNAME": unambiguous whatever the strings hold. */
	char buf[256];
	size_t dl = strlen(domain), nl = strlen(name);
	int w = snprintf(buf, sizeof buf, "%zu:%s%s", dl, domain, name);
	if (w >= 0 && (size_t)w < sizeof buf)
		return strmap_get(&m->functions, buf);
	char *key = malloc(dl + nl + 24);
	if (!key)
		return -1;
	snprintf(key, dl + nl + 24, "%zu:%s%s", dl, domain, name);
	int32_t id = strmap_get(&m->functions, key);
	free(key);
	return id;
}

graph *model_function(const osh_model *m, const char *domain, const char *name)
{
	int32_t f = m->function_graphs ? find_function(m, domain, name) : -1;
	return f >= 0 ? m->function_graphs[f] : NULL;
}

static bool build_graph(osh_model *m, graph *g);

/* Builds the subgraphs of node ni and records the outer values they use as extra
 * consumers, so that ordering sees the dependency. */
static bool build_subgraphs(osh_model *m, graph *g, int32_t ni)
{
	node *n = &g->nodes[ni];
	Onnx__NodeProto *np = n->proto;
	if (!np)
		return true; /* decoded from its bytes: it holds no graph (decode_node.c) */
	int32_t count = 0;
	for (size_t i = 0; i < np->n_attribute; i++) {
		const Onnx__AttributeProto *at = np->attribute[i];
		count += (at->g != NULL) + (int32_t)at->n_graphs;
	}
	if (!count)
		return true;
	if (g->depth + 1 > MAX_SUBGRAPH_DEPTH) {
		malformed(m, g, ni, NULL, "subgraphs are nested more than %d levels deep", MAX_SUBGRAPH_DEPTH);
		return true;
	}
	n->subgraphs = arena_array(m->arena, (size_t)count, sizeof *n->subgraphs);
	if (!n->subgraphs)
		return false;
	const char *owner = n->name[0] ? n->name : arena_printf(m->arena, "node%d", ni);
	for (size_t i = 0; i < np->n_attribute; i++) {
		const Onnx__AttributeProto *at = np->attribute[i];
		for (size_t k = 0; k < (at->g != NULL) + at->n_graphs; k++) {
			Onnx__GraphProto *gp = at->g && k == 0 ? at->g : at->graphs[k - (at->g != NULL)];
			const char *path = at->n_graphs
						   ? arena_printf(m->arena, "%s%s%s/%s[%zu]", g->path, g->path[0] ? "/" : "", owner, str(at->name), k)
						   : arena_printf(m->arena, "%s%s%s/%s", g->path, g->path[0] ? "/" : "", owner, str(at->name));
			graph *sg = path ? graph_new(m, path, g, ni, g->depth + 1) : NULL;
			if (!sg)
				return false;
			sg->proto = gp;
			n = &g->nodes[ni]; /* graph_new does not move nodes, but stay safe */
			n->subgraphs[n->nsubgraphs++] = sg;
			if (!build_graph(m, sg))
				return false;
			for (int32_t v = 0; v < sg->nvalues; v++) {
				if (sg->values[v].origin != VAL_OUTER || value_outer(&sg->values[v]) != g)
					continue;
				if (!add_consumer(m, g, &g->values[value_outer_id(&sg->values[v])], ni))
					return false;
			}
		}
	}
	return true;
}

/* A sparse tensor's values and indices are tensors like any other. */
static void check_sparse(osh_model *m, graph *g, int32_t ni, const Onnx__SparseTensorProto *st, const char *what)
{
	char part[340];
	if (st->values) {
		snprintf(part, sizeof part, "%s (values)", what);
		validate_tensor(m, g, ni, st->values, part);
	}
	if (st->indices) {
		snprintf(part, sizeof part, "%s (indices)", what);
		validate_tensor(m, g, ni, st->indices, part);
	}
	validate_sparse(m, g, ni, st, what);
}

/* What the protobuf-c enum and the data-type checks cover beyond tensors: the
 * attribute's type must be an AttributeType (protobuf-c passes any int32 through),
 * and sparse tensors and type protos it holds must use known data types. */
static void check_attribute(osh_model *m, graph *g, int32_t ni, const Onnx__AttributeProto *at)
{
	char what[300];
	if (at->has_type && !protobuf_c_enum_descriptor_get_value(&onnx__attribute_proto__attribute_type__descriptor,
								   (int)at->type))
		malformed(m, g, ni, NULL, "attribute '%.256s' has an unknown type %d", str(at->name), (int)at->type);
	if (at->sparse_tensor) {
		snprintf(what, sizeof what, "attribute '%.256s'", str(at->name));
		check_sparse(m, g, ni, at->sparse_tensor, what);
	}
	for (size_t k = 0; k < at->n_sparse_tensors; k++) {
		snprintf(what, sizeof what, "attribute '%.256s'[%zu]", str(at->name), k);
		check_sparse(m, g, ni, at->sparse_tensors[k], what);
	}
	if (at->tp) {
		snprintf(what, sizeof what, "attribute '%.256s'", str(at->name));
		validate_type_proto(m, g, what, at->tp);
	}
	for (size_t k = 0; k < at->n_type_protos; k++) {
		snprintf(what, sizeof what, "attribute '%.256s'[%zu]", str(at->name), k);
		validate_type_proto(m, g, what, at->type_protos[k]);
	}
}

/* What ONNX Runtime refuses in a call to model-local function f: a domain the model
 * does not import, more inputs or outputs than the function declares (fewer are
 * optional ones left out). */
static void check_call(osh_model *m, graph *g, int32_t ni, const Onnx__FunctionProto *f)
{
	const node *n = &g->nodes[ni];
	if (n->opset < 0)
		model_diag(m, OSH_ERROR, DIAG_FUNCTION_ERROR, g, ni, NULL,
			   "calls function '%s' of domain '%s', which the model's opset_import does not list",
			   n->op_type, n->domain);
	if ((size_t)n->ninputs > f->n_input)
		model_diag(m, OSH_ERROR, DIAG_FUNCTION_ERROR, g, ni, NULL,
			   "calls function '%s' with %d inputs: it declares %zu", n->op_type, n->ninputs, f->n_input);
	if ((size_t)n->noutputs > f->n_output)
		model_diag(m, OSH_ERROR, DIAG_FUNCTION_ERROR, g, ni, NULL,
			   "calls function '%s' with %d outputs: it declares %zu", n->op_type, n->noutputs,
			   f->n_output);
}

static const char *attr_type_text(attr_type t)
{
	static const char *const names[] = {"undefined", "float", "int", "string", "tensor", "graph",
					    "floats", "ints", "strings", "tensors", "graphs", "sparse_tensor",
					    "sparse_tensors", "type_proto", "type_protos"};
	return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

static bool is_main_constant(const osh_model *m, const graph *g, const node *n)
{
	return g == m->main && !n->domain[0] && !strcmp(n->op_type, "Constant");
}

/* Findings about the data of tensors (initializers, the values of the main graph's
 * Constants) held until the graph is indexed: ONNX Runtime drops what nothing reads
 * before it looks at the data. */
typedef struct data_later {
	struct data_finding {
		const char *name; /* the initializer's, or "" */
		int32_t node;     /* the Constant's, or -1 */
		const char *why;
	} *e;
	int32_t n, cap;
} data_later;

static bool defer_data(osh_model *m, data_later *l, const char *name, int32_t ni, const char *why)
{
	if (l->n == l->cap) {
		struct data_finding *e = grow_arena_i32(m->arena, l->e, &l->cap, 8, sizeof *e);
		if (!e)
			return false;
		l->e = e;
	}
	const char *n = arena_strdup(m->arena, name), *w = arena_strdup(m->arena, why);
	if (!n || !w)
		return false;
	l->e[l->n++] = (struct data_finding){n, ni, w};
	return true;
}

static void report_data_later(osh_model *m, graph *g, const data_later *l)
{
	for (int32_t i = 0; i < l->n; i++) {
		const struct data_finding *e = &l->e[i];
		int32_t id = e->node >= 0 ? (g->nodes[e->node].noutputs ? g->nodes[e->node].outputs[0] : -1)
					  : strmap_get(&g->names, e->name);
		const value *v = id >= 0 ? &g->values[id] : NULL;
		if (v && (v->nconsumers || v->is_output))
			malformed(m, g, e->node, e->name[0] ? e->name : NULL, "%s", e->why);
		else
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, e->node, e->name[0] ? e->name : NULL,
				   "%s; nothing reads it, and ONNX Runtime drops it unread", e->why);
	}
}

/* Checks the attributes that carry tensors, that the operator's domain is imported,
 * and calls to model-local functions. */
static void check_node(osh_model *m, graph *g, int32_t ni, data_later *later)
{
	node *n = &g->nodes[ni];
	if (!n->op_type[0])
		malformed(m, g, ni, NULL, "node has no op_type");
	/* Most models have no functions: no look-up per node for them. */
	int32_t fn = m->functions.len ? find_function(m, n->domain, n->op_type) : -1;
	if (fn >= 0)
		check_call(m, g, ni, m->proto->functions[fn]);
	else if (n->opset < 0)
		model_diag(m, OSH_ERROR, DIAG_OPSET_ERROR, g, ni, NULL,
			   "operator domain '%s' is not in the model's opset_import", n->domain[0] ? n->domain : "ai.onnx");
	/* A name in a domain of the model's functions that none of them has, where no
	 * runtime publishes operators: ONNX Runtime finds nothing to run. */
	if (fn < 0 && m->function_domains.len && strmap_get(&m->function_domains, n->domain) >= 0 &&
	    !opset_newest_known(n->domain))
		model_diag(m, OSH_ERROR, DIAG_FUNCTION_ERROR, g, ni, NULL,
			   "no function '%s' in domain '%s': the model's functions there do not include it", n->op_type,
			   n->domain);
	/* A node decoded from its bytes has no tensor, sparse tensor or type in its
	 * attributes, and decode_node.c checked their types. */
	for (size_t i = 0; n->proto && i < n->proto->n_attribute; i++) {
		const Onnx__AttributeProto *at = n->proto->attribute[i];
		char what[300];
		if (at->t) {
			snprintf(what, sizeof what, "attribute '%.256s'", str(at->name));
			char why[600];
			if (!is_main_constant(m, g, n))
				validate_tensor(m, g, ni, at->t, what);
			else if (validate_tensor_data_later(m, g, ni, at->t, what, why, sizeof why) &&
				 !defer_data(m, later, "", ni, why))
				m->nomem = true;
		}
		for (size_t k = 0; k < at->n_tensors; k++) {
			snprintf(what, sizeof what, "attribute '%.256s'[%zu]", str(at->name), k);
			validate_tensor(m, g, ni, at->tensors[k], what);
		}
		check_attribute(m, g, ni, at);
	}
}

/* The main graph of a split load keeps its nodes as wire bytes (m->src.wire_nodes). */
static bool holds_wire_nodes(const osh_model *m, const graph *g)
{
	return g == m->main && m->src.wire_nodes.n && g->proto && !g->proto->n_node;
}

/* The model's one copy of s (m->interned, which decode_node.c fills): the passes
 * memoize what they ask of a node type by these pointers (core/type_memo.h), so nodes
 * protobuf-c unpacked (subgraphs, an edited model built again) share them with the
 * decoded ones instead of each taking a slot of its own. NULL: out of memory. */
static const char *interned(osh_model *m, const char *s)
{
	const char *k;
	if (strmap_getn(&m->interned, s, strlen(s), &k) >= 0)
		return k;
	char *c = arena_strndup(m->arena, s, strlen(s));
	return c && strmap_set(&m->interned, c, 0) ? c : NULL;
}

/* interned's answers for the strings define_nodes met last, by address: the nodes
 * an edit inserted share their operators' strings (a rewrite's literals), and the
 * strings of messages never change. */
#define INTERN_SEEN 16 /* a power of two */

typedef struct intern_seen {
	const char *raw[INTERN_SEEN];
	const char *as[INTERN_SEEN];
} intern_seen;

static const char *interned_seen(osh_model *m, intern_seen *seen, const char *s)
{
	size_t k = ((uintptr_t)s >> 3) & (INTERN_SEEN - 1);
	if (seen->raw[k] == s)
		return seen->as[k];
	const char *c = interned(m, s);
	if (c)
		seen->raw[k] = s, seen->as[k] = c;
	return c;
}

/* Fills node ni from its NodeProto (view_attrs for the attributes). */
static bool from_proto(osh_model *m, graph *g, int32_t ni, Onnx__NodeProto *np, intern_seen *seen)
{
	node *n = &g->nodes[ni];
	*n = (node){0}; /* the node array is not zeroed (define_nodes) */
	n->proto = np;
	n->name = str(np->name);
	n->op_type = interned_seen(m, seen, str(np->op_type));
	n->domain = !strcmp(str(np->domain), "ai.onnx") ? "" : interned_seen(m, seen, str(np->domain));
	if (!n->op_type || !n->domain)
		return false;
	if (!view_attrs(m, n))
		return false;
	n->ninputs = (int32_t)np->n_input;
	n->noutputs = (int32_t)np->n_output;
	/* One block, outputs after inputs, as decode_node lays them out. */
	int32_t *io = np->n_input <= SIZE_MAX - np->n_output
			      ? arena_array(m->arena, np->n_input + np->n_output, sizeof *io)
			      : NULL;
	n->inputs = io;
	n->outputs = io ? io + np->n_input : NULL;
	return io != NULL;
}

/* Whether node n holds a graph in an attribute (built or not yet). */
static bool holds_graphs(const node *n)
{
	for (size_t i = 0; n->proto && i < n->proto->n_attribute; i++)
		if (n->proto->attribute[i]->g || n->proto->attribute[i]->n_graphs)
			return true;
	return n->nsubgraphs > 0;
}

/* Whether an input of node n of g is an output of another node of g than a Constant:
 * an edge of ONNX Runtime's graph. A node without one (and without subgraphs, whose
 * outer reads may be edges too) is one its order puts first, in the file's order. */
static bool fed_by_node(const graph *g, const node *n)
{
	for (int32_t k = 0; k < n->ninputs; k++) {
		int32_t id = n->inputs[k];
		if (id < 0 || g->values[id].origin != VAL_NODE || g->values[id].producer < 0)
			continue;
		if (strcmp(g->nodes[g->values[id].producer].op_type, "Constant"))
			return true;
	}
	return false;
}

/* The nodes of g that node ni reads from through its inputs, directly or not: 1 in
 * the returned array (of g->nnodes, malloc'd; NULL when out of memory). */
static uint8_t *ancestors_of(const graph *g, int32_t ni)
{
	uint8_t *seen = calloc((size_t)g->nnodes + 1, 1);
	int32_t *stack = malloc(((size_t)g->nnodes + 1) * sizeof *stack);
	if (!seen || !stack) {
		free(seen);
		free(stack);
		return NULL;
	}
	int32_t top = 0;
	stack[top++] = ni;
	while (top) {
		const node *n = &g->nodes[stack[--top]];
		for (int32_t k = 0; k < n->ninputs; k++) {
			int32_t id = n->inputs[k];
			int32_t p = id >= 0 && g->values[id].origin == VAL_NODE ? g->values[id].producer : -1;
			if (p >= 0 && p < g->nnodes && !seen[p]) {
				seen[p] = 1;
				stack[top++] = p;
			}
		}
	}
	free(stack);
	return seen;
}

/* Per enclosing graph of a subgraph being defined, the ancestors of the node that
 * holds the subgraph there, made on the first name that needs them. */
typedef struct outer_scopes {
	uint8_t *anc[MAX_SUBGRAPH_DEPTH + 1];
	bool nomem;
} outer_scopes;

/* Whether name is a value an enclosing graph of subgraph g has defined when g's node
 * is checked: SCOPE_BEFORE when a graph input or initializer there, or an output of a
 * node that ONNX Runtime's order puts before g's node whatever it is (one g's node
 * reads from, a Constant, or one with no input edge and no subgraph: ONNX Runtime
 * puts those first); SCOPE_ANYWHERE when defined there by another node. ONNX's
 * checker, which ONNX Runtime runs on every subgraph, wants a node's outputs new to
 * the names its topological order has defined so far (SSA across nested graphs); a
 * subgraph's own inputs and initializers may shadow. */
enum { SCOPE_NONE, SCOPE_BEFORE, SCOPE_ANYWHERE };
static int defined_outside(const graph *g, const char *name, outer_scopes *sc)
{
	for (const graph *child = g, *p = g->parent; p; child = p, p = p->parent) {
		int32_t id = strmap_get(&p->names, name);
		if (id < 0)
			continue;
		const value *v = &p->values[id];
		if (v->origin == VAL_INPUT || v->origin == VAL_INITIALIZER)
			return SCOPE_BEFORE;
		if (v->origin != VAL_NODE || v->producer < 0)
			continue;
		int32_t pi = v->producer, ni = child->parent_node;
		const node *prod = &p->nodes[pi];
		if (!p->parent && !p->function && !strcmp(prod->op_type, "Constant"))
			return SCOPE_BEFORE; /* made an initializer first */
		if (!fed_by_node(p, prod) && !holds_graphs(prod) && (pi < ni || fed_by_node(p, &p->nodes[ni])))
			return SCOPE_BEFORE;
		int32_t level = p->depth;
		if (level < 0 || level > MAX_SUBGRAPH_DEPTH)
			return SCOPE_ANYWHERE;
		if (!sc->anc[level] && !(sc->anc[level] = ancestors_of(p, ni))) {
			sc->nomem = true;
			return SCOPE_NONE;
		}
		return sc->anc[level][pi] ? SCOPE_BEFORE : SCOPE_ANYWHERE;
	}
	return SCOPE_NONE;
}

/* Defines node ni's outputs, named names[0 .. n->noutputs). first_hash, when not
 * NULL, is the hash of names[0]. */
static bool define_outputs_of(osh_model *m, graph *g, int32_t ni, char *const *names, const uint32_t *first_hash,
			      outer_scopes *sc)
{
	node *n = &g->nodes[ni];
	for (int32_t k = 0; k < n->noutputs; k++) {
		const char *name = str(names[k]);
		if (!name[0]) {
			n->outputs[k] = -1;
			continue;
		}
		int32_t id = k == 0 && first_hash ? define_hashed(m, g, name, *first_hash, VAL_NODE)
						  : define(m, g, name, VAL_NODE);
		if (id == -1)
			return false;
		if (id < -1) {
			int32_t old = -id - 2;
			malformed(m, g, ni, name, "value '%s' is produced twice: by %s and by this node", name,
				  describe_def(m, g, old));
			n->outputs[k] = old;
			continue;
		}
		g->values[id].producer = ni;
		g->values[id].producer_out = k;
		n->outputs[k] = id;
		int scope = g->parent && ort_checks(g) ? defined_outside(g, name, sc) : SCOPE_NONE;
		if (sc->nomem) {
			m->nomem = true;
			return false;
		}
		if (scope == SCOPE_BEFORE)
			model_diag(m, OSH_ERROR, DIAG_SUBGRAPH_ERROR, g, ni, name,
				   "'%s' is defined in an enclosing graph already: ONNX Runtime wants each name defined once "
				   "across nested graphs (SSA) and refuses the model",
				   name);
		else if (scope == SCOPE_ANYWHERE)
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, name,
				   "'%s' is defined in an enclosing graph too, by a node that need not run before this "
				   "subgraph's: the spec wants each name defined once across nested graphs (SSA); ONNX "
				   "Runtime refuses it only when its order puts that node first",
				   name);
	}
	return true;
}

/* Whether attribute i of n is typed GRAPH or GRAPHS but holds a value of another
 * field: its view keeps graph_index for graphs, so the message says. */
static bool graph_typed_mixed(const node *n, int32_t i)
{
	if ((n->attrs[i].type != AT_GRAPH && n->attrs[i].type != AT_GRAPHS) || !n->proto ||
	    (size_t)i >= n->proto->n_attribute)
		return false;
	const Onnx__AttributeProto *a = n->proto->attribute[i];
	attr_presence p = {
		.has_type = a->has_type, .type = a->type, .f = a->has_f, .i = a->has_i, .s = a->has_s,
		.t = a->t != NULL, .g = a->g != NULL, .sparse = a->sparse_tensor != NULL, .tp = a->tp != NULL,
		.floats = a->n_floats, .ints = a->n_ints, .strings = a->n_strings, .tensors = a->n_tensors,
		.graphs = a->n_graphs, .sparses = a->n_sparse_tensors, .tps = a->n_type_protos,
	};
	return attr_fields_mixed(&p);
}

/* One pass over node ni's attribute views. A ref_attr_name outside a function body
 * refers to nothing: ONNX Runtime reads the attribute as its own value (the fields it
 * holds, defaults when none). And ONNX's checker, which ONNX Runtime runs on every
 * node it checks but the main graph's Constants (it makes them initializers first),
 * refuses an attribute whose type field and value fields disagree. */
static void check_attr_views(osh_model *m, graph *g, int32_t ni, bool function_body)
{
	node *n = &g->nodes[ni];
	for (int32_t i = 0; i < n->nattrs; i++) {
		attr_view *a = &n->attrs[i];
		if (a->ref && !function_body) {
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, NULL,
				   "attribute '%s' refers to '%s' (ref_attr_name) outside a function body: ONNX Runtime "
				   "reads it as its own value",
				   a->name, a->ref);
			a->ref = NULL;
			g->refs_dropped = true;
		}
		if ((a->graph_index == ATTR_MIXED || graph_typed_mixed(n, i)) && ort_checks(g) &&
		    !(g == m->main && !strcmp(n->op_type, "Constant")))
			model_diag(m, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, g, ni, NULL,
				   "attribute '%s' is typed %s but holds its value in a field of another type, or in "
				   "several: ONNX Runtime refuses it",
				   a->name, attr_type_text(a->type));
	}
}

/* The value map's slot for the first output (field 2) of the node in [p, p + len),
 * fetched while the node before it is decoded and defined: the map is far bigger
 * than the cache on big graphs. True when there is one, with its hash in *h: the
 * name decode_node copies from those bytes has that hash too (strings hold no NUL:
 * the pre-scan refused them). */
static bool prefetch_first_output(const graph *g, const uint8_t *p, size_t len, uint32_t *h)
{
	for (size_t pos = 0; pos < len;) {
		size_t at, n;
		/* The key and length read as bytes, not through a wire_field: the compiler
		 * compared its number and type as one 8-byte load right after storing them
		 * as two 4-byte ones, which the store buffer cannot forward. */
		if (is_short_str(p, len, pos)) {
			bool out = p[pos] == (2 << 3 | 2);
			at = pos + 2, n = p[pos + 1];
			pos = at + n;
			if (!out)
				continue;
		} else {
			wire_field f;
			if (!wire_next(p, len, &pos, &f))
				return false;
			if (f.type != 2 || f.number != 2)
				continue;
			at = f.payload, n = f.len;
		}
		*h = strmap_prefetch(&g->names, (const char *)p + at, n);
		return true;
	}
	return false;
}

/* The node of the IR model_reindex replaces that element ni of the main graph's wire
 * list still is, decoded from the same bytes; NULL when there is none to take. A
 * Constant is decoded anew: define_nodes normalised its domain, and warns of it
 * again; so are all of a graph whose attribute references the index dropped. */
static const node *decoded_before(const osh_model *m, const wire_list *w, int32_t ni)
{
	const graph *old = m->src.reindex_from;
	if (!old || old->refs_dropped || (w->msg && w->msg[ni]))
		return NULL;
	int32_t k = w->from ? w->from[ni] : ni;
	if (k < 0 || k >= old->nnodes)
		return NULL;
	const node *o = &old->nodes[k];
	return o->proto || !o->op_type || !strcmp(o->op_type, "Constant") ? NULL : o;
}

/* Node n as o of the old graph was (its strings and attribute views are the
 * arena's, and nothing changes them), with arrays of its own for the value ids; its
 * output names in s->outs, as decode_node leaves them. False when memory ran out. */
static bool take_decoded(osh_model *m, node *n, const node *o, decode_scratch *s)
{
	const graph *old = m->src.reindex_from;
	*n = *o;
	size_t ids = (size_t)o->ninputs + (size_t)o->noutputs;
	int32_t *v = ids ? arena_alloc(m->arena, ids * sizeof *v) : NULL;
	const char **outs = grow_heap(s->outs, &s->cap, (size_t)o->noutputs, 8, sizeof *outs);
	if ((!v && ids) || (!outs && o->noutputs))
		return false;
	s->outs = outs;
	n->inputs = v;
	n->outputs = v ? v + o->ninputs : NULL;
	for (int32_t k = 0; k < o->noutputs; k++)
		outs[k] = o->outputs[k] >= 0 ? old->values[o->outputs[k]].name : "";
	return true;
}

/* define_nodes fetches the slot of a node's first output OUTPUT_AHEAD nodes ahead
 * (core/tuning.h). One node's decoding did not hide the miss: the look-up waited on
 * the slot. */

/* *was_of, when not NULL: made (malloc'd, for the caller to free) when a node is
 * taken from the IR model_reindex replaces, each node's old self or NULL. */
static bool define_nodes(osh_model *m, graph *g, Onnx__NodeProto **nps, size_t count, const node ***was_of)
{
	bool from_wire = holds_wire_nodes(m, g);
	if (from_wire)
		count = m->src.wire_nodes.n;
	if (count > INT32_MAX / 2) {
		malformed(m, g, -1, NULL, "the graph has %zu nodes, more than onnxshape supports", count);
		return true;
	}
	if (from_wire && !scan_job_wait_room(m, (uint64_t)count * sizeof *g->nodes))
		return false; /* refused: the loader says why */
	g->nnodes = (int32_t)count;
	g->first_produced = g->nvalues;
	/* Not zeroed: decode_node and from_proto write each node whole (count is at
	 * most INT32_MAX / 2: the size does not overflow). */
	g->nodes = arena_alloc(m->arena, count * sizeof *g->nodes);
	if (!g->nodes && count)
		return false;
	decode_scratch scratch = {0};
	intern_seen seen = {0};
	bool ok = true;
	/* The opset of the last node's domain: decoded nodes share interned domain
	 * strings, and a graph's nodes are nearly all of one domain. */
	const char *last_domain = NULL;
	int64_t last_opset = -1;
	strmap reported; /* node_opset's */
	strmap_init(&reported, m->arena);
	bool function_body = in_function(g);
	outer_scopes scopes = {0};
	/* The hashes of the first outputs of the nodes up to OUTPUT_AHEAD ahead, whose
	 * slots were fetched when the node OUTPUT_AHEAD before them was defined. */
	uint32_t ahead_hash[OUTPUT_AHEAD];
	bool ahead_ok[OUTPUT_AHEAD];
	uint32_t hash = 0;
	bool hashed = false;
	wire_list *w = &m->src.wire_nodes;
	for (int32_t k = 0; from_wire && k < OUTPUT_AHEAD; k++)
		ahead_ok[k] = k < g->nnodes && !(w->msg && w->msg[k]) &&
			      prefetch_first_output(g, w->bytes + w->off[k], w->len[k], &ahead_hash[k]);
	int32_t ni = 0;
	for (; ni < g->nnodes && ok; ni++) {
		node *n = &g->nodes[ni];
		if (ni % TABLE_AHEAD == 0)
			rows_ahead(m, g->nodes, ni, g->nnodes, sizeof *g->nodes);
		char *const *outs = NULL;
		const uint32_t *first_hash = NULL;
		/* A graph of messages, or an edit's message in an edited list (emit/edit.c). */
		Onnx__NodeProto *whole = from_wire ? NULL : nps[ni];
		if (from_wire) {
			if (!scan_job_wait_scanned(m, 1, (size_t)ni)) { /* refused: the loader says why */
				ok = false;
				break;
			}
			int32_t slot = ni % OUTPUT_AHEAD, later = ni + OUTPUT_AHEAD;
			hash = ahead_hash[slot], hashed = ahead_ok[slot];
			ahead_ok[slot] = later < g->nnodes && !(w->msg && w->msg[later]) &&
					 prefetch_first_output(g, w->bytes + w->off[later], w->len[later],
							       &ahead_hash[slot]);
			whole = w->msg ? (Onnx__NodeProto *)w->msg[ni] : NULL;
		}
		const node *was = from_wire && !whole && m->src.reindex_from ? decoded_before(m, w, ni) : NULL;
		if (was) {
			if (!take_decoded(m, n, was, &scratch)) {
				ok = false;
				break;
			}
			if (was_of && !*was_of && !(*was_of = calloc((size_t)g->nnodes, sizeof **was_of))) {
				ok = false;
				break;
			}
			if (was_of)
				(*was_of)[ni] = was;
			outs = (char *const *)scratch.outs;
			first_hash = hashed ? &hash : NULL;
		} else if (from_wire && !whole) {
			const uint8_t *p = w->bytes + w->off[ni];
			size_t len = w->len[ni];
			decode_result r = decode_node(m, n, p, len, &scratch);
			if (r == DECODE_NOMEM) {
				ok = false;
				break;
			}
			if (r == DECODE_OK) {
				outs = (char *const *)scratch.outs;
				first_hash = hashed ? &hash : NULL;
			} else {
				/* Attributes with tensors or graphs: protobuf-c's message, checked
				 * and viewed like any other. */
				Onnx__NodeProto *np =
					onnx__node_proto__unpack(arena_protobuf_allocator(m->arena), len, p);
				if (!np || !from_proto(m, g, ni, np, &seen)) {
					ok = false;
					break;
				}
				/* An edited list holds every message its nodes have
				 * (build_messages.c). */
				if (w->msg)
					w->msg[ni] = &np->base;
				outs = np->output;
			}
		} else if (whole) {
			if (!from_proto(m, g, ni, whole, &seen)) {
				ok = false;
				break;
			}
			outs = whole->output;
		}
		if (n->nattrs)
			check_attr_views(m, g, ni, function_body);
		/* ONNX Runtime makes every Constant of the main graph an initializer, of
		 * whatever domain, before it resolves a domain: one of ai.onnx here. */
		if (g == m->main && n->domain[0] && !strcmp(n->op_type, "Constant")) {
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, ni, NULL,
				   "Constant in domain '%s': ONNX Runtime makes every Constant of the main graph an "
				   "initializer, whatever its domain",
				   n->domain);
			n->domain = "";
		}
		if (n->domain != last_domain) {
			last_domain = n->domain;
			last_opset = node_opset(m, g, ni, n->domain, &reported);
		}
		n->opset = last_opset;
		ok = define_outputs_of(m, g, ni, outs, first_hash, &scopes);
	}
	for (size_t k = 0; k < sizeof scopes.anc / sizeof scopes.anc[0]; k++)
		free(scopes.anc[k]);
	/* Stopped early (out of memory, or the pre-scan refused the file): the nodes not
	 * filled are left as the zeroed array had them. */
	if (!ok && g->nodes)
		memset(&g->nodes[ni], 0, (size_t)(g->nnodes - ni) * sizeof *g->nodes);
	decode_scratch_free(&scratch);
	return ok;
}

/* The value of input name (len bytes, not terminated) of node ni, which g's map does
 * not hold (RESOLVE_LATER): an outer scope's, or, reported and defined as
 * VAL_UNDEFINED, nobody's. Looked up again first: an earlier input of the same name
 * defined it meanwhile. -2 when memory ran out. */
static int32_t input_elsewhere(osh_model *m, graph *g, int32_t ni, const char *name, size_t len)
{
	int32_t id = strmap_getn(&g->names, name, len, NULL);
	if (id >= 0)
		return id;
	/* A copy to name it (rare). */
	char *copy = arena_strndup(m->arena, name, len);
	if (!copy)
		return -2;
	id = graph_lookup(g, copy);
	if (id >= 0)
		return id;
	if (m->nomem || arena_exhausted(m->arena))
		return -2;
	/* A function body may read a value of the graph that calls it: ONNX Runtime
	 * inlines the body there (check_free_names sees that each call has it). */
	if (!in_function(g))
		malformed(m, g, ni, copy,
			  "input '%s' is not produced by any node, graph input, initializer or outer scope", copy);
	id = define(m, g, copy, VAL_UNDEFINED);
	return id < 0 ? -2 : id;
}

/* Where note_consumers stopped: node ni, its input k. */
typedef struct input_at {
	int32_t ni, k;
} input_at;

/* Notes the consumers of the inputs from *at up to node `end`, in node order;
 * `settle`: first settles the names g's map does not hold (input_elsewhere), else
 * stops at the first one, *at saying where. False when memory ran out. */
static bool note_consumers(osh_model *m, graph *g, input_at *at, int32_t end, bool settle)
{
	for (; at->ni < end; at->ni++, at->k = 0) {
		node *n = &g->nodes[at->ni];
		for (; at->k < n->ninputs; at->k++) {
			int32_t id = n->inputs[at->k];
			if (id == RESOLVE_LATER) {
				if (!settle)
					return true;
				const char *name;
				size_t len;
				if (!resolve_input_name(m, g, at->ni, at->k, &name, &len) ||
				    (id = input_elsewhere(m, g, at->ni, name, len)) < -1)
					return false;
				n->inputs[at->k] = id;
			}
			if (id >= 0 && !add_consumer(m, g, &g->values[id], at->ni))
				return false;
		}
	}
	return true;
}

/* Each node's input ids, and each value's consumers. The look-ups change nothing
 * (resolve_range); on a big graph a second thread takes stretches of nodes from the
 * back while this one takes them from the front and notes their consumers. Then this
 * thread goes on in node order: settling a name g's map does not hold may define a
 * value, so that waits until the other thread is done reading the map.
 *
 * Big is RESOLVE_THREAD_MIN nodes (core/tuning.h): there the look-ups are a real part
 * of the loader's thread, and starting a thread costs some tens of microseconds.
 * Never on the plain path: one thread there. */
/* The inputs of the nodes define_nodes took from the IR model_reindex replaces
 * (was[ni], or NULL), from that node's inputs there: an old value's id here is the
 * value its name looks up now (the map holds every name a look-up could find before
 * the names it does not hold are settled), found once per old value, and for an
 * output of a node taken so, without a look-up: the value that node defines again.
 * A node with an input the map does not hold is left to resolve_range, and so is
 * every node when memory runs out. done[ni] set: node ni's inputs are set. */
static void inputs_from_before(const osh_model *m, graph *g, const node *const *was, uint8_t *done)
{
	const graph *old = m->src.reindex_from;
	enum { XLAT_UNSEEN = -1, XLAT_NONE = -2 };
	int32_t *xlat = old->nvalues > 0 ? malloc((size_t)old->nvalues * sizeof *xlat) : NULL;
	if (!xlat)
		return;
	for (int32_t v = 0; v < old->nvalues; v++)
		xlat[v] = XLAT_UNSEEN;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *o = was[ni], *n = &g->nodes[ni];
		for (int32_t k = 0; o && k < o->noutputs && k < n->noutputs; k++) {
			int32_t id = n->outputs[k];
			if (o->outputs[k] >= 0 && id >= 0 && g->values[id].producer == ni && g->values[id].producer_out == k)
				xlat[o->outputs[k]] = id;
		}
	}
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *o = was[ni];
		node *n = &g->nodes[ni];
		if (!o || o->ninputs != n->ninputs)
			continue;
		bool all = true;
		for (int32_t k = 0; k < n->ninputs && all; k++) {
			int32_t v = o->inputs[k];
			if (v < 0) {
				n->inputs[k] = -1; /* omitted ("") */
				continue;
			}
			if (xlat[v] == XLAT_UNSEEN) {
				int32_t id = strmap_get(&g->names, old->values[v].name);
				xlat[v] = id >= 0 ? id : XLAT_NONE;
			}
			all = xlat[v] >= 0;
			n->inputs[k] = xlat[v];
		}
		done[ni] = all;
	}
	free(xlat);
}

/* g->before_node from define_nodes' was, for the inference after a re-index that
 * kept the IR it replaces (osh_model.before). False when memory ran out. */
static bool note_before(osh_model *m, graph *g, const node *const *was)
{
	const graph *old = m->src.reindex_from;
	if (g != m->main || !old || m->before.main != old)
		return true;
	g->before_node = arena_alloc(m->arena, (g->nnodes > 0 ? (size_t)g->nnodes : 1) * sizeof *g->before_node);
	if (!g->before_node)
		return false;
	for (int32_t ni = 0; ni < g->nnodes; ni++)
		g->before_node[ni] = was[ni] ? (int32_t)(was[ni] - old->nodes) : -1;
	return true;
}

static bool resolve_inputs(osh_model *m, graph *g, const node *const *was)
{
	/* A re-index takes most nodes from the IR it replaces (define_nodes): their
	 * inputs come from there, the rest are looked up by name. */
	uint8_t *done = was ? calloc(g->nnodes > 0 ? (size_t)g->nnodes : 1, 1) : NULL;
	if (done)
		inputs_from_before(m, g, was, done);
	resolve_job job;
	bool split = !m->plain_io && g->nnodes >= RESOLVE_THREAD_MIN && resolve_job_start(&job, m, g, done);
	input_at at = {0};
	bool ok = true;
	if (split) {
		/* This thread's stretches come in node order: their consumers are noted
		 * as they are looked up. */
		int32_t lo, hi;
		while (ok && resolve_job_take(&job, &lo, &hi))
			ok = resolve_range(m, g, done, lo, hi) && note_consumers(m, g, &at, hi, false);
		if (!resolve_job_join(&job))
			ok = false;
	} else {
		ok = resolve_range(m, g, done, 0, g->nnodes);
	}
	free(done);
	/* resolve_range fails only when a name cannot be read, which decode_node read
	 * before: it cannot happen. */
	return ok && note_consumers(m, g, &at, g->nnodes, true);
}

/* Dependencies of node ni: producers of its inputs and of the outer values its
 * subgraphs use (recorded as consumers by build_subgraphs). We walk consumers lists
 * instead, from the producer side, which covers both. */
static bool order_nodes(osh_model *m, graph *g)
{
	int32_t n = g->nnodes;
	g->order = arena_alloc(m->arena, (size_t)(n ? n : 1) * sizeof *g->order);
	if (!g->order)
		return false;
	/* Nearly every graph comes in topological order, which adding the consumers
	 * found out (g->backward) without walking every value's consumers again: they
	 * lie all over memory on a big graph. */
	if (!g->backward) {
		for (int32_t i = 0; i < n; i++)
			g->order[i] = i;
		return true;
	}
	int32_t *indeg = arena_array(m->arena, (size_t)n, sizeof *indeg);
	if (n && !indeg)
		return false;
	/* Count edges producer → consumer, and remember the first backward edge (there
	 * is one: g->backward) for the message. */
	int32_t bad_consumer = -1, bad_value = -1;
	for (int32_t v = 0; v < g->nvalues; v++) {
		const value *val = &g->values[v];
		if (val->origin != VAL_NODE)
			continue;
		for (int32_t c = 0; c < val->nconsumers; c++) {
			int32_t to = val->consumers[c];
			indeg[to]++;
			if (to <= val->producer && (bad_consumer < 0 || to < bad_consumer))
				bad_consumer = to, bad_value = v;
		}
	}
	assert(bad_consumer >= 0);
	/* Kahn's algorithm with a min-heap on the node index: the result stays as close to
	 * the file order as the dependencies allow. */
	int32_t *heap = arena_array(m->arena, (size_t)n, sizeof *heap);
	bool *done = arena_array(m->arena, (size_t)n, sizeof *done);
	if (!heap || !done)
		return false;
	int32_t hn = 0, out = 0;
#define HEAP_PUSH(x)                                                                   \
	do {                                                                           \
		int32_t i_ = hn++;                                                     \
		heap[i_] = (x);                                                        \
		while (i_ > 0 && heap[(i_ - 1) / 2] > heap[i_]) {                      \
			int32_t p_ = (i_ - 1) / 2, t_ = heap[p_];                      \
			heap[p_] = heap[i_], heap[i_] = t_, i_ = p_;                   \
		}                                                                      \
	} while (0)
	for (int32_t i = 0; i < n; i++)
		if (!indeg[i])
			HEAP_PUSH(i);
	while (hn) {
		int32_t top = heap[0];
		heap[0] = heap[--hn];
		for (int32_t i = 0;;) {
			int32_t l = 2 * i + 1, r = l + 1, s = i;
			if (l < hn && heap[l] < heap[s])
				s = l;
			if (r < hn && heap[r] < heap[s])
				s = r;
			if (s == i)
				break;
			int32_t t = heap[s];
			heap[s] = heap[i], heap[i] = t, i = s;
		}
		g->order[out++] = top;
		done[top] = true;
		const node *nd = &g->nodes[top];
		for (int32_t k = 0; k < nd->noutputs; k++) {
			int32_t v = nd->outputs[k];
			if (v < 0 || g->values[v].producer != top)
				continue;
			for (int32_t c = 0; c < g->values[v].nconsumers; c++)
				if (--indeg[g->values[v].consumers[c]] == 0)
					HEAP_PUSH(g->values[v].consumers[c]);
		}
	}
#undef HEAP_PUSH
	if (out == n) {
		/* The spec wants the file's order topological. ONNX Runtime sorts the main
		 * graph itself, and so does g->order; ONNX's checker, which it runs on the
		 * subgraphs and on the bodies of the functions it inlines, refuses them. */
		const value *v = &g->values[bad_value];
		const node *p = &g->nodes[v->producer];
		bool refused = g != m->main && ort_checks(g);
		model_diag(m, refused ? OSH_ERROR : OSH_WARNING, refused ? DIAG_SUBGRAPH_ERROR : DIAG_NOT_IN_SPEC, g,
			   bad_consumer, v->name,
			   "nodes are not in topological order: this node uses '%s', which node %d '%s' (%s) produces "
			   "%s%s",
			   v->name, v->producer, p->name, p->op_type, v->producer == bad_consumer ? "itself" : "later",
			   refused ? (g->parent ? ": ONNX Runtime sorts the main graph, and refuses a subgraph out of order"
					       : ": ONNX Runtime sorts the main graph, and refuses a called function's body "
						 "out of order")
				   : "");
		return true;
	}
	/* A cycle: walk backwards from a node left over, through producers that are left
	 * over too, until a node repeats; that loop is the cycle we report. */
	int32_t *seen = indeg; /* reuse: step at which each node was visited, 0 = never */
	memset(seen, 0, (size_t)(uint32_t)n * sizeof *seen);
	int32_t cur = -1;
	for (int32_t i = 0; i < n && cur < 0; i++)
		if (!done[i])
			cur = i;
	int32_t step = 1;
	while (!seen[cur]) {
		seen[cur] = step++;
		const node *nd = &g->nodes[cur];
		int32_t next = -1;
		for (int32_t k = 0; k < nd->ninputs && next < 0; k++) {
			int32_t v = nd->inputs[k];
			if (v >= 0 && g->values[v].origin == VAL_NODE && !done[g->values[v].producer])
				next = g->values[v].producer;
		}
		if (next < 0) { /* the dependency is through a subgraph's outer reference */
			for (int32_t v = 0; v < g->nvalues && next < 0; v++) {
				const value *val = &g->values[v];
				if (val->origin != VAL_NODE || done[val->producer])
					continue;
				for (int32_t c = 0; c < val->nconsumers; c++)
					if (val->consumers[c] == cur)
						next = val->producer;
			}
		}
		cur = next;
	}
	/* cur is on the cycle; print it forwards from cur. */
	char buf[1024];
	size_t len = 0;
	int32_t start = cur, hops = 0;
	do {
		const node *nd = &g->nodes[cur];
		int w = snprintf(buf + len, sizeof buf - len, "%s%d '%s'", hops ? " <- " : "", cur, nd->name);
		if (w > 0 && (size_t)w < sizeof buf - len)
			len += (size_t)w;
		int32_t next = -1;
		for (int32_t k = 0; k < nd->ninputs && next < 0; k++) {
			int32_t v = nd->inputs[k];
			if (v >= 0 && g->values[v].origin == VAL_NODE && seen[g->values[v].producer] &&
			    !done[g->values[v].producer])
				next = g->values[v].producer;
		}
		if (next < 0)
			break;
		cur = next;
		hops++;
	} while (cur != start && hops < n);
	malformed(m, g, start, NULL, "the graph has a cycle: nodes %s <- %d", buf, start);
	for (int32_t i = 0; i < n; i++)
		if (!done[i])
			g->order[out++] = i;
	return true;
}

/* Records vi as what the file declares for v (in v's extra block). False when
 * memory ran out. */
static bool set_decl(osh_model *m, value *v, Onnx__ValueInfoProto *vi)
{
	value_extra *x = value_extra_need(m->arena, v);
	if (x)
		x->decl = vi;
	return x != NULL;
}

static bool attach_decls(osh_model *m, graph *g)
{
	Onnx__GraphProto *gp = g->proto;
	if (!gp)
		return true;
	for (size_t i = 0; i < gp->n_value_info; i++) {
		Onnx__ValueInfoProto *vi = gp->value_info[i];
		validate_value_info(m, g, vi);
		int32_t id = strmap_get(&g->names, str(vi->name));
		const Onnx__ValueInfoProto *had = id >= 0 ? value_decl(&g->values[id]) : NULL;
		if (id >= 0 && (!had || !had->type) && !set_decl(m, &g->values[id], vi))
			return false;
	}
	return true;
}

static bool define_outputs(osh_model *m, graph *g, size_t count, Onnx__ValueInfoProto **vis, char **names)
{
	g->noutputs = (int32_t)count;
	g->outputs = arena_array(m->arena, count, sizeof *g->outputs);
	if (count && !g->outputs)
		return false;
	for (size_t i = 0; i < count; i++) {
		const char *name = vis ? str(vis[i]->name) : str(names[i]);
		if (vis)
			validate_value_info(m, g, vis[i]);
		int32_t id = graph_lookup(g, name);
		if (id < 0) {
			if (m->nomem || arena_exhausted(m->arena))
				return false;
			malformed(m, g, -1, name, "graph output '%s' is not produced by any node, input or initializer",
				  name);
			id = define(m, g, name, VAL_UNDEFINED);
			if (id < 0)
				return false;
		}
		if (g->parent && g->values[id].origin == VAL_OUTER && ort_checks(g))
			model_diag(m, OSH_ERROR, DIAG_SUBGRAPH_ERROR, g, -1, name,
				   "output '%s' is a value of an enclosing graph returned as it is: ONNX Runtime refuses it "
				   "(an Identity in the body gives it a value of its own)",
				   name);
		g->outputs[i] = id;
		g->values[id].is_output = true;
		/* A declaration with a type beats one without (an output may repeat a
		 * value_info entry, or leave its type to it). */
		const Onnx__ValueInfoProto *had = value_decl(&g->values[id]);
		if (vis && (!had || (!had->type && vis[i]->type)) && !set_decl(m, &g->values[id], vis[i]))
			return false;
	}
	return true;
}

static bool define_inputs(osh_model *m, graph *g, size_t count, Onnx__ValueInfoProto **vis, char **names)
{
	g->ninputs = (int32_t)count;
	g->inputs = arena_array(m->arena, count, sizeof *g->inputs);
	if (count && !g->inputs)
		return false;
	for (size_t i = 0; i < count; i++) {
		const char *name = vis ? str(vis[i]->name) : str(names[i]);
		if (vis)
			validate_value_info(m, g, vis[i]);
		if (!name[0] && ort_checks(g))
			model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, -1, NULL,
				   "graph input #%zu has no name: ONNX Runtime refuses it", i);
		int32_t id = define(m, g, name, VAL_INPUT);
		if (id == -1)
			return false;
		if (id < -1) {
			malformed(m, g, -1, name, "graph input '%s' is declared twice", name);
			id = -id - 2;
		}
		g->inputs[i] = id;
		if (vis && !set_decl(m, &g->values[id], vis[i]))
			return false;
	}
	return true;
}

/* The main graph's initializers still in the input have no message yet (t NULL): no
 * extra block for them, which is most values of a CNN. */
static bool set_initializer(osh_model *m, value *v, Onnx__TensorProto *t, const tensor_view *tv)
{
	v->init_view = tv;
	if (!t)
		return true;
	value_extra *x = value_extra_need(m->arena, v);
	if (!x)
		return false;
	x->init = t;
	return true;
}

/* "(2, N, ?)" for n dims into buf (cap bytes, cut short when long): the initializer's
 * when shp is NULL, else the declared ones. */
static const char *dims_text(char *buf, size_t cap, const int64_t *dims, size_t n, const Onnx__TensorShapeProto *shp)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t k = 0; k <= n && len < cap; k++) {
		const char *sep = k ? ", " : "(";
		int w;
		if (k == n)
			w = snprintf(buf + len, cap - len, "%s)", n == 0 ? "(" : n == 1 ? "," : "");
		else if (!shp)
			w = snprintf(buf + len, cap - len, "%s%lld", sep, (long long)dims[k]);
		else if (shp->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			w = snprintf(buf + len, cap - len, "%s%lld", sep, (long long)shp->dim[k]->dim_value);
		else if (shp->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
			w = snprintf(buf + len, cap - len, "%s%.40s", sep, str(shp->dim[k]->dim_param));
		else
			w = snprintf(buf + len, cap - len, "%s?", sep);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

/* An initializer that is graph input v's default must fit the type the input
 * declares: ONNX Runtime refuses another element type (type-error) or another shape
 * (graph-error; a symbolic or unknown dim takes any size). */
static void check_default(osh_model *m, graph *g, const value *v, const tensor_view *tv)
{
	const Onnx__ValueInfoProto *decl = value_decl(v);
	const Onnx__TypeProto *tp = decl ? decl->type : NULL;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
		return;
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	if (tt->has_elem_type && dtype_valid(tt->elem_type) && dtype_valid(tv->dtype) && tt->elem_type != tv->dtype) {
		model_diag(m, OSH_ERROR, DIAG_TYPE_ERROR, g, -1, v->name,
			   "initializer '%s' is %s but graph input '%s' is declared %s", v->name, dtype_name(tv->dtype),
			   v->name, dtype_name(tt->elem_type));
		return;
	}
	const Onnx__TensorShapeProto *shp = tt->shape;
	if (!shp || tv->count < 0)
		return;
	bool differs = shp->n_dim != (size_t)tv->rank;
	for (size_t k = 0; !differs && k < shp->n_dim; k++)
		differs = shp->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
			  shp->dim[k]->dim_value >= 0 && shp->dim[k]->dim_value != tv->dims[k];
	if (differs) {
		char have[128], want[128];
		model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, -1, v->name,
			   "initializer '%s' has shape %s but graph input '%s' is declared %s", v->name,
			   dims_text(have, sizeof have, tv->dims, (size_t)tv->rank, NULL), v->name,
			   dims_text(want, sizeof want, NULL, shp->n_dim, shp));
	}
}

static bool same_dims(const tensor_view *a, const tensor_view *b)
{
	if (a->rank != b->rank)
		return false;
	for (int32_t k = 0; k < a->rank; k++)
		if (a->dims[k] != b->dims[k])
			return false;
	return true;
}

/* A second initializer `now` of the name of value v (an initializer `had` or a graph
 * input's default): ONNX Runtime keeps the last one's data, and types the value by
 * its graph input's declaration, else by the first initializer, refusing data of
 * another type or shape. */
static void check_redefined(osh_model *m, graph *g, const value *v, const tensor_view *had, const tensor_view *now,
			    const char *what)
{
	char have[128], want[128];
	if (v->origin == VAL_INITIALIZER && had && dtype_valid(had->dtype) && dtype_valid(now->dtype) &&
	    had->dtype != now->dtype)
		model_diag(m, OSH_ERROR, DIAG_TYPE_ERROR, g, -1, v->name,
			   "%s '%s' is defined again as %s, the first one is %s: ONNX Runtime types the value by the first "
			   "and refuses the data of the last",
			   what, v->name, dtype_name(now->dtype), dtype_name(had->dtype));
	else if (v->origin == VAL_INITIALIZER && had && had->count >= 0 && now->count >= 0 && !same_dims(had, now))
		model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, -1, v->name,
			   "%s '%s' is defined again with shape %s, the first one has %s: ONNX Runtime shapes the value by "
			   "the first and refuses the data of the last",
			   what, v->name, dims_text(have, sizeof have, now->dims, (size_t)now->rank, NULL),
			   dims_text(want, sizeof want, had->dims, (size_t)had->rank, NULL));
	else
		model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, -1, v->name,
			   "%s '%s' is defined twice: the spec wants each name once; ONNX Runtime takes the last", what,
			   v->name);
}

/* Defines initializer #i: t (NULL while it is still in the input) viewed as tv.
 * hash, when not NULL, is the hash of its name. */
static bool define_initializer(osh_model *m, graph *g, size_t i, Onnx__TensorProto *t, const tensor_view *tv,
			       const uint32_t *hash, bool *unnamed)
{
	const char *name = tv->name;
	if (!name[0]) {
		/* ONNX Runtime skips one in the main graph: no node can name it. */
		if (g == m->main)
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, g, -1, NULL,
				   "initializer #%zu has no name: the spec wants one; ONNX Runtime loads it, and no node can "
				   "read it",
				   i);
		else
			malformed(m, g, -1, NULL, "initializer #%zu has no name", i);
		*unnamed = true;
		return true;
	}
	/* One probe for both questions: a graph input's default, or a new value? */
	bool found;
	int32_t *entry = hash ? strmap_entry_hashed(&g->names, name, *hash, &found)
			      : strmap_entry(&g->names, name, &found);
	if (!entry)
		return false;
	if (*entry >= 0 && g->values[*entry].origin == VAL_INPUT) {
		value *v = &g->values[*entry];
		if (v->init_view)
			check_redefined(m, g, v, v->init_view, tv, "initializer");
		return set_initializer(m, v, t, tv); /* check_defaults checks the last */
	}
	/* IR version 3 wanted every initializer listed among the graph inputs; ONNX's
	 * checker still does for a subgraph of such a model, and ONNX Runtime runs it. */
	if (g->parent && m->proto->has_ir_version && m->proto->ir_version <= 3 && ort_checks(g))
		model_diag(m, OSH_ERROR, DIAG_SUBGRAPH_ERROR, g, -1, name,
			   "initializer '%s' is not among the graph's inputs, which IR version %lld wants: ONNX Runtime "
			   "refuses the subgraph",
			   name, (long long)m->proto->ir_version);
	if (*entry >= 0 && g->values[*entry].origin == VAL_INITIALIZER) {
		value *v = &g->values[*entry];
		check_redefined(m, g, v, v->init_view, tv, "initializer");
		return set_initializer(m, v, t, tv);
	}
	int32_t id = define_at(m, g, entry, name, VAL_INITIALIZER);
	if (id == -1)
		return false;
	if (id < -1) {
		malformed(m, g, -1, name, "initializer '%s' is defined twice", name);
		return true;
	}
	return set_initializer(m, &g->values[id], t, tv);
}

/* The graph inputs' defaults, each the last initializer of its name, against the
 * inputs' declarations. */
static void check_defaults(osh_model *m, graph *g)
{
	for (int32_t i = 0; i < g->ninputs; i++) {
		const value *v = &g->values[g->inputs[i]];
		if (v->init_view && v->init_view->name[0])
			check_default(m, g, v, v->init_view);
	}
}

/* How many initializers ahead their headers are fetched: far enough for the misses
 * to overlap; the exact distance matters little. */
#define HEADER_AHEAD 16

/* The main graph's initializers still in the input (unpack_split.c): each is
 * unpacked into scratch memory, checked and viewed like a message of the model, and
 * freed; the view keeps copies of what it shows, and big weights point into the
 * input. */
/* Wire initializer i's view as the index before built it (wire_list.view), when it
 * still describes these bytes and was found valid: what decoding them again would
 * build, about which the validation would say nothing. NULL otherwise. Reads
 * nothing of the bytes. */
static const tensor_view *view_kept(const wire_list *w, size_t i)
{
	const tensor_view *tv = w->view && !(w->msg && w->msg[i]) ? w->view[i] : NULL;
	uintptr_t p = (uintptr_t)(w->bytes + w->off[i]);
	if (!tv || !tv->valid || tv->external || !tv->raw || (uintptr_t)tv->raw < p ||
	    (uintptr_t)tv->raw + tv->raw_len > p + w->len[i])
		return NULL;
	return tv;
}

static bool define_wire_initializers(osh_model *m, graph *g, bool *unnamed, data_later *later)
{
	wire_list *w = &m->src.wire_inits;
	tensor_scratch scratch = {0};
	tensor_wire *tw = w->n ? malloc(sizeof *tw) : NULL;
	/* The views this index builds, for the next one and the edits in between. */
	const tensor_view **views = w->n ? arena_array(m->arena, w->n, sizeof *views) : NULL;
	bool ok = !w->n || (tw && views);
	if (tw)
		tensor_wire_init(tw);
	uint32_t hash = 0, next_hash = 0;
	bool hashed = false, next_hashed = false;
	wire_field next = {0}; /* the name field of initializer i + 1 */
	const tensor_view *next_kept = ok && w->n ? view_kept(w, 0) : NULL;
	for (size_t i = 0; i < w->n && ok; i++) {
		if (!scan_job_wait_scanned(m, 0, i)) { /* refused: the loader says why */
			ok = false;
			break;
		}
		views[i] = NULL;
		/* The next initializer's name (field 8) is inserted into the value map soon:
		 * its slot is fetched while this one is unpacked and checked. Its hash is
		 * kept: the name decode_tensor reads from that one field has it too
		 * (strings hold no NUL: the pre-scan refused them). A view kept from the
		 * index before has the name without a look at the bytes. */
		hash = next_hash, hashed = next_hashed;
		const tensor_view *kept = next_kept;
		next_kept = i + 1 < w->n ? view_kept(w, i + 1) : NULL;
		if (next_kept) {
			next_hashed = true;
			next_hash = strmap_prefetch(&g->names, next_kept->name, strlen(next_kept->name));
		} else {
			next_hashed = i + 1 < w->n && !(w->msg && w->msg[i + 1]) &&
				      wire_find_one(w->bytes + w->off[i + 1], 0, w->len[i + 1], 8, &next);
			if (next_hashed)
				next_hash = strmap_prefetch(&g->names,
							    (const char *)w->bytes + w->off[i + 1] + next.payload, next.len);
		}
		/* An edit's message (emit/edit.c), defined as one of a graph of messages. */
		Onnx__TensorProto *made = w->msg ? (Onnx__TensorProto *)w->msg[i] : NULL;
		if (made) {
			char why[600];
			if (validate_tensor_data_later(m, g, -1, made, NULL, why, sizeof why) &&
			    !defer_data(m, later, made->name ? made->name : "", -1, why)) {
				ok = false;
				break;
			}
			tensor_stats_add(&m->src.wire_init_stats, made);
			const tensor_view *tv = view_tensor(m, made);
			ok = tv && define_initializer(m, g, i, made, tv, NULL, unnamed);
			continue;
		}
		/* Re-indexing: a weight's view is the one the index before built of the
		 * same bytes, not decoded again. */
		if (kept) {
			tensor_stats_add_raw(&m->src.wire_init_stats, kept->raw_len);
			ok = define_initializer(m, g, i, NULL, kept, hashed ? &hash : NULL, unnamed);
			views[i] = kept;
			input_passed(m->src.input, w->off[i] + w->len[i]);
			continue;
		}
		/* The initializers' headers lie a weight apart in a file far larger than the
		 * caches: each was a miss to memory, waited on when reading the next one's name
		 * above. Fetched ahead, the misses overlap. */
		if (i + HEADER_AHEAD < w->n && !(w->msg && w->msg[i + HEADER_AHEAD]) &&
		    !(w->view && w->view[i + HEADER_AHEAD])) {
			const uint8_t *h = w->bytes + w->off[i + HEADER_AHEAD];
			__builtin_prefetch(h);
			__builtin_prefetch(h + 64);
		}
		/* Most tensors are read by decode_tensor; the rest go through protobuf-c. */
		bool decoded = decode_tensor(w->bytes + w->off[i], w->len[i], tw), aliased = true;
		Onnx__TensorProto *t = decoded ? &tw->t
					       : unpack_tensor(NULL, w->bytes + w->off[i], w->len[i], &scratch, &aliased);
		if (!t) { /* the pre-scan accepted these bytes: only memory can fail */
			ok = false;
			break;
		}
		char why[600];
		if (validate_tensor_data_later(m, g, -1, t, NULL, why, sizeof why) &&
		    !defer_data(m, later, t->name ? t->name : "", -1, why)) {
			ok = false;
			break;
		}
		tensor_stats_add(&m->src.wire_init_stats, t);
		const tensor_view *tv = view_tensor_copy(m, t, aliased);
		ok = tv && define_initializer(m, g, i, NULL, tv, decoded && hashed ? &hash : NULL, unnamed);
		if (tv && decoded && tw->raw_only && tv->name[0])
			views[i] = tv;
		if (!decoded)
			free_tensor(t, aliased);
		input_passed(m->src.input, w->off[i] + w->len[i]);
	}
	tensor_scratch_free(&scratch);
	free(tw);
	if (ok)
		w->view = views;
	return ok;
}

/* A sparse initializer named as a dense one or a graph input: ONNX Runtime makes it
 * a dense one, after the others, so its data is the value's. */
static bool define_sparse(osh_model *m, graph *g, const Onnx__SparseTensorProto *st, const char *name, strmap *sparse)
{
	bool found;
	int32_t *seen = strmap_entry(sparse, name, &found);
	if (!seen)
		return false;
	if (found) {
		malformed(m, g, -1, name, "sparse initializer '%s' is defined twice", name);
		return true;
	}
	*seen = 0;
	/* A view of the sparse one's type and dims, without data (not valid: nothing
	 * reads its content): ONNX Runtime makes it a dense initializer of those. */
	tensor_view *tv = arena_zalloc(m->arena, sizeof *tv);
	if (!tv)
		return false;
	tv->name = name;
	tv->dtype = st->values && st->values->has_data_type ? st->values->data_type : 0;
	tv->rank = (int32_t)st->n_dims;
	tv->dims = st->dims;
	tv->count = 1;
	for (size_t k = 0; k < st->n_dims && tv->count >= 0; k++)
		if (st->dims[k] < 0 || __builtin_mul_overflow(tv->count, st->dims[k], &tv->count))
			tv->count = -1;
	int32_t id = strmap_get(&g->names, name);
	if (id < 0) {
		id = define(m, g, name, VAL_INITIALIZER);
		if (id == -1)
			return false;
		if (id >= 0 && tv->count >= 0)
			g->values[id].init_view = tv;
		return true;
	}
	value *v = &g->values[id];
	if (v->origin != VAL_INITIALIZER && v->origin != VAL_INPUT) {
		malformed(m, g, -1, name, "initializer '%s' is defined twice", name);
		return true;
	}
	/* The dense data it replaces is not the value's. */
	tv->name = v->name;
	if (v->init_view)
		check_redefined(m, g, v, v->init_view, tv, "initializer");
	v->init_view = NULL;
	if (v->x)
		v->x->init = NULL;
	return true;
}

static bool define_initializers(osh_model *m, graph *g, bool *unnamed, data_later *later)
{
	Onnx__GraphProto *gp = g->proto;
	if (g == m->main && m->src.wire_inits.n && !gp->n_initializer && !define_wire_initializers(m, g, unnamed, later))
		return false;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		Onnx__TensorProto *t = gp->initializer[i];
		char why[600];
		if (validate_tensor_data_later(m, g, -1, t, NULL, why, sizeof why) &&
		    !defer_data(m, later, t->name ? t->name : "", -1, why))
			return false;
		const tensor_view *tv = view_tensor(m, t);
		if (!tv || !define_initializer(m, g, i, t, tv, NULL, unnamed))
			return false;
	}
	strmap sparse;
	strmap_init(&sparse, m->arena);
	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		Onnx__SparseTensorProto *st = gp->sparse_initializer[i];
		const char *name = st->values ? str(st->values->name) : "";
		char what[300];
		snprintf(what, sizeof what, "sparse initializer '%.256s'", name);
		check_sparse(m, g, -1, st, what);
		if (!name[0]) {
			malformed(m, g, -1, NULL, "sparse initializer #%zu has no name", i);
			continue;
		}
		if (!define_sparse(m, g, st, name, &sparse))
			return false;
	}
	check_defaults(m, g);
	return !m->nomem;
}

/* ONNX Runtime keeps an unnamed initializer of the main graph as a value named "",
 * which an omitted input ("") of a node then reads: it fails to plan the run. */
static void check_unnamed_read(osh_model *m, graph *g)
{
	for (int32_t ni = 0; ni < g->nnodes; ni++)
		for (int32_t k = 0; k < g->nodes[ni].ninputs; k++)
			if (g->nodes[ni].inputs[k] < 0) {
				model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, ni, NULL,
					   "input %d is omitted (''), and the graph has an initializer without a name: ONNX "
					   "Runtime reads it there and fails to run the model",
					   k);
				return;
			}
}

/* Sizes g's value table and name map for `n` values up front: grown by doubling, each
 * step would leave the old array in the arena (together, as much again as the last). The
 * table is not zeroed: value_new and graph_lookup write each entry whole, and pages
 * that nothing wrote yet cost no memory while the input's pages, still mapped from
 * the pre-scan, are given back (zeroed up front, the whole table would be resident
 * at the peak). */
static bool reserve_values(osh_model *m, graph *g, size_t n)
{
	if (n > (size_t)INT32_MAX / 2 || (int32_t)n <= g->cap_values)
		return true; /* beyond that, growth reports the limit as before */
	if (n > SIZE_MAX / sizeof(value))
		return false;
	if (g == m->main && !scan_job_wait_room(m, (uint64_t)n * sizeof(value)))
		return false; /* refused: the loader says why */
	value *v = arena_alloc(m->arena, n * sizeof *v);
	if (!v)
		return false;
	if (g->nvalues)
		memcpy(v, g->values, (size_t)g->nvalues * sizeof *v);
	g->values = v;
	g->cap_values = (int32_t)n;
	return strmap_reserve(&g->names, n);
}

static size_t node_outputs(Onnx__NodeProto **nodes, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += nodes[i]->n_output;
	return k;
}

/* The same for nodes still in wire bytes: their output (2) fields. */
static size_t wire_outputs(const wire_list *w)
{
	size_t k = 0;
	for (size_t i = 0; i < w->n; i++) {
		if (w->msg && w->msg[i]) {
			k += ((const Onnx__NodeProto *)w->msg[i])->n_output;
			continue;
		}
		const uint8_t *p = w->bytes + w->off[i];
		for (size_t pos = 0, len = w->len[i]; pos < len;) {
			/* wire_next_str's fast path without filling a wire_field:
			 * counting needs only the key byte (this walk reads every node). */
			if (is_short_str(p, len, pos)) {
				k += p[pos] == (2 << 3 | 2);
				pos += 2 + (size_t)p[pos + 1];
				continue;
			}
			wire_field f;
			if (!wire_next(p, len, &pos, &f))
				break;
			k += f.number == 2;
		}
	}
	return k;
}

static int cmp_id(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* The values a declaration can be attached to (graph inputs and outputs, value_info
 * entries), in ascending order and each once, as a walk over every value would meet
 * them; NULL when they are too many for a list to be cheaper than that walk (a model
 * that comes with value_info for every value), or when memory ran out. */
static int32_t *declared_ids(graph *g, int32_t *n)
{
	size_t nvi = g->proto ? g->proto->n_value_info : 0;
	size_t cap = (size_t)g->ninputs + (size_t)g->noutputs + nvi;
	int32_t *ids = cap <= (size_t)g->nvalues / 8 ? malloc((cap ? cap : 1) * sizeof *ids) : NULL;
	if (!ids)
		return NULL;
	size_t k = 0;
	for (int32_t i = 0; i < g->ninputs; i++)
		ids[k++] = g->inputs[i];
	for (int32_t i = 0; i < g->noutputs; i++)
		ids[k++] = g->outputs[i];
	for (size_t i = 0; i < nvi; i++) {
		int32_t id = strmap_get(&g->names, str(g->proto->value_info[i]->name));
		if (id >= 0)
			ids[k++] = id;
	}
	qsort(ids, k, sizeof *ids, cmp_id);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	*n = (int32_t)u;
	return ids;
}

/* How many nodes ahead check_node_names hashes a name and fetches its slot: one
 * node's work did not hide the miss on the slot of a big graph's map. */
#define NAME_AHEAD 8

/* The hash of node ni's name, its slot in `seen` on its way to the cache; 0 for an
 * unnamed node or one past the end. */
static uint32_t name_ahead(const graph *g, const strmap *seen, int32_t ni)
{
	const char *name = ni < g->nnodes ? g->nodes[ni].name : "";
	return name[0] ? strmap_prefetch(seen, name, strlen(name)) : 0;
}

/* ONNX Runtime refuses two nodes of one name in a graph (a function body's too: it
 * inlines them under one prefix). Unnamed nodes never clash, and some exports leave
 * every node unnamed: no map for them. False when memory ran out. */
static bool check_node_names(osh_model *m, graph *g)
{
	bool constants_kept = in_function(g);
	int32_t ni = 0;
	while (ni < g->nnodes && !g->nodes[ni].name[0])
		ni++;
	if (ni == g->nnodes) {
		g->node_names_checked = true;
		return true;
	}
	/* Kept as the graph's node_names, which the editor's fresh names avoid. */
	strmap *seen = arena_alloc(m->arena, sizeof *seen);
	if (!seen)
		return false;
	strmap_init(seen, m->arena);
	/* Room for every name up front: a rehash would move the slots fetched ahead. */
	if (!strmap_reserve(seen, (size_t)(g->nnodes - ni)))
		return false;
	uint32_t ahead[NAME_AHEAD];
	for (int32_t k = 0; k < NAME_AHEAD; k++)
		ahead[(ni + k) % NAME_AHEAD] = name_ahead(g, seen, ni + k);
	for (; ni < g->nnodes; ni++) {
		uint32_t h = ahead[ni % NAME_AHEAD];
		ahead[ni % NAME_AHEAD] = name_ahead(g, seen, ni + NAME_AHEAD);
		const char *name = g->nodes[ni].name;
		/* Constants are initializers to ONNX Runtime by then (of every graph but a
		 * function body, which it inlines later). */
		const char *op = g->nodes[ni].op_type;
		if (!name[0] || (!constants_kept && op[0] == 'C' && !strcmp(op, "Constant")))
			continue;
		bool found;
		int32_t *first = strmap_entry_hashed(seen, name, h, &found);
		if (!first)
			return false;
		if (!found)
			*first = ni;
		else
			model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, ni, NULL,
				   "node name '%s' is taken by node %d (%s): ONNX Runtime refuses two nodes of one name",
				   name, *first, g->nodes[*first].op_type);
	}
	g->node_names = seen;
	g->node_names_checked = true;
	return !m->nomem;
}

/* The main graph's inputs need a type, but for those an initializer gives one:
 * ONNX Runtime refuses the model otherwise. A subgraph's inputs may leave theirs to
 * the node that runs it. */
static bool check_inputs_typed(osh_model *m, graph *g)
{
	if (g != m->main)
		return true;
	for (int32_t i = 0; i < g->ninputs; i++) {
		const value *v = &g->values[g->inputs[i]];
		const Onnx__ValueInfoProto *decl = value_decl(v);
		bool typed = decl && decl->type && decl->type->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET;
		if (!typed && !v->init_view)
			model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, -1, v->name,
				   "graph input '%s' has no type (and no initializer to give it one)", v->name);
	}
	return !m->nomem;
}

static bool build_graph(osh_model *m, graph *g)
{
	size_t expect = g->proto ? g->proto->n_input + g->proto->n_initializer + g->proto->n_output +
					   (g == m->main ? m->src.wire_inits.n : 0) +
					   (holds_wire_nodes(m, g) ? wire_outputs(&m->src.wire_nodes)
							  : node_outputs(g->proto->node, g->proto->n_node))
				 : g->function->n_input + g->function->n_output +
					   node_outputs(g->function->node, g->function->n_node);
	if (!reserve_values(m, g, expect + 16))
		return false;
	bool unnamed = false; /* an initializer without a name */
	data_later later = {0};
	const node **was = NULL; /* define_nodes' */
	if (g->proto) {
		Onnx__GraphProto *gp = g->proto;
		if (!define_inputs(m, g, gp->n_input, gp->input, NULL) || !define_initializers(m, g, &unnamed, &later) ||
		    !define_nodes(m, g, gp->node, gp->n_node, &was)) {
			free(was);
			return false;
		}
	} else {
		Onnx__FunctionProto *f = g->function;
		if (!define_inputs(m, g, f->n_input, NULL, f->input) || !define_nodes(m, g, f->node, f->n_node, NULL))
			return false;
	}
	bool resolved = resolve_inputs(m, g, was) && (!was || note_before(m, g, was));
	free(was);
	if (!resolved || !check_node_names(m, g) || !check_inputs_typed(m, g))
		return false;
	if (unnamed)
		check_unnamed_read(m, g);
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		check_node(m, g, ni, &later);
		if (!build_subgraphs(m, g, ni))
			return false;
	}
	bool ok = g->proto ? define_outputs(m, g, g->proto->n_output, g->proto->output, NULL)
			   : define_outputs(m, g, g->function->n_output, NULL, g->function->output);
	if (!ok || !attach_decls(m, g))
		return false;
	report_data_later(m, g, &later);
	int32_t nlisted;
	int32_t *listed = declared_ids(g, &nlisted);
	for (int32_t k = 0; k < (listed ? nlisted : g->nvalues); k++) {
		value *val = &g->values[listed ? listed[k] : k];
		const Onnx__ValueInfoProto *decl = value_decl(val);
		tinfo d = decl ? view_type(m, decl->type) : tinfo_unknown();
		if (d.kind != TK_UNKNOWN) {
			tinfo *t = arena_alloc(m->arena, sizeof *t);
			if (!t) {
				free(listed);
				return false;
			}
			*t = d;
			val->x->declared = t; /* x exists: it holds decl */
		}
	}
	free(listed);
	return !m->nomem && order_nodes(m, g);
}

/* ---- model-local functions: how many, who calls whom ------------------------ */

/* Fills m->functions with the first `n` functions of the model, and
 * m->function_domains with their domains. */
static bool index_functions(osh_model *m, size_t n)
{
	strmap_init(&m->functions, m->arena);
	strmap_init(&m->function_domains, m->arena);
	for (size_t i = 0; i < n; i++) {
		const Onnx__FunctionProto *f = m->proto->functions[i];
		const char *dom = str(f->domain), *name = str(f->name);
		const char *key = arena_printf(m->arena, "%zu:%s%s", strlen(dom), dom, name);
		/* A later definition replaces an earlier one, as in ONNX Runtime. */
		if (!key || !strmap_set(&m->functions, key, (int32_t)i) || strmap_put(&m->function_domains, dom, 0) == -2)
			return false;
	}
	return true;
}

/* A call from a node of function `caller`'s body (or of a subgraph inside it). */
typedef struct call_edge {
	int32_t callee;
	graph *g; /* where the calling node is */
	int32_t node;
} call_edge;

static const char *function_label(const osh_model *m, int32_t f)
{
	const Onnx__FunctionProto *fp = m->proto->functions[f];
	return arena_printf(m->arena, "%s%s%s", str(fp->domain), fp->domain && fp->domain[0] ? "." : "", str(fp->name));
}

/* "a -> b -> c" for the functions chain[0..n), the middle left out when long. */
static const char *call_chain(osh_model *m, const int32_t *chain, int32_t n)
{
	char buf[768];
	size_t len = 0;
	buf[0] = '\0';
	for (int32_t i = 0; i < n; i++) {
		if (n > 8 && i == 4) {
			int w = snprintf(buf + len, sizeof buf - len, " -> ...(%d more)", n - 7);
			if (w > 0 && (size_t)w < sizeof buf - len)
				len += (size_t)w;
			i = n - 4;
		}
		const char *label = function_label(m, chain[i]);
		int w = snprintf(buf + len, sizeof buf - len, "%s%.120s", i ? " -> " : "", label ? label : "?");
		if (w > 0 && (size_t)w < sizeof buf - len)
			len += (size_t)w;
	}
	return arena_strdup(m->arena, buf);
}

/* Model-local functions may not call themselves, directly, through other functions
 * or from inside a subgraph of their body (expanding them would never end), and
 * chains of calls are limited to MAX_FUNCTION_DEPTH functions. Finds every cycle
 * (one finding per call that closes one) and the longest chain, with an iterative
 * depth-first search: linear in the calls, whatever the file holds. */
static bool check_calls(osh_model *m)
{
	int32_t nf = (int32_t)m->proto->n_functions;
	if (nf == 0 || nf > MAX_FUNCTIONS)
		return true;
	/* The calls, grouped by caller. Graphs were created in order: the main graph and
	 * its subgraphs, then each function body followed by its subgraphs. */
	int32_t *first = arena_array(m->arena, (size_t)nf + 1, sizeof *first);
	int32_t *owner = arena_array(m->arena, (size_t)m->ngraphs, sizeof *owner);
	if (!first || !owner)
		return false;
	int32_t nedges = 0;
	for (int32_t gi = 0, cur = -1; gi < m->ngraphs; gi++) {
		graph *g = m->graphs[gi];
		if (g->function)
			cur++;
		else if (!g->parent)
			cur = -1;
		owner[gi] = cur;
		if (cur < 0 || cur >= nf)
			continue;
		for (int32_t ni = 0; ni < g->nnodes; ni++)
			if (find_function(m, g->nodes[ni].domain, g->nodes[ni].op_type) >= 0)
				first[cur + 1]++, nedges++;
	}
	for (int32_t f = 0; f < nf; f++)
		first[f + 1] += first[f];
	call_edge *edges = arena_array(m->arena, (size_t)nedges + 1, sizeof *edges);
	int32_t *fill = arena_array(m->arena, (size_t)nf, sizeof *fill);
	if (!edges || !fill)
		return false;
	memcpy(fill, first, (size_t)nf * sizeof *fill);
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		graph *g = m->graphs[gi];
		int32_t cur = owner[gi];
		if (cur < 0 || cur >= nf)
			continue;
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			int32_t callee = find_function(m, g->nodes[ni].domain, g->nodes[ni].op_type);
			if (callee >= 0)
				edges[fill[cur]++] = (call_edge){callee, g, ni};
		}
	}

	/* Depth-first search. state: 0 unseen, 1 on the stack, 2 done. depth[f]: the
	 * longest chain of calls starting at f (f included), through calls that close
	 * no cycle; next[f]: the call that chain takes. */
	int8_t *state = arena_array(m->arena, (size_t)nf, sizeof *state);
	int32_t *depth = arena_array(m->arena, (size_t)nf, sizeof *depth);
	int32_t *next = arena_array(m->arena, (size_t)nf, sizeof *next);
	int32_t *stack = arena_array(m->arena, (size_t)nf, sizeof *stack);
	int32_t *edge_at = arena_array(m->arena, (size_t)nf, sizeof *edge_at);
	int32_t *pos = arena_array(m->arena, (size_t)nf, sizeof *pos);
	int32_t *chain = arena_array(m->arena, (size_t)nf + 1, sizeof *chain);
	if (!state || !depth || !next || !stack || !edge_at || !pos || !chain)
		return false;
	for (int32_t root = 0; root < nf; root++) {
		if (state[root])
			continue;
		int32_t top = 0;
		stack[0] = root, edge_at[root] = first[root], pos[root] = 0, state[root] = 1;
		while (top >= 0) {
			int32_t u = stack[top];
			if (edge_at[u] == first[u + 1]) {
				/* All of u's calls are explored: its chain is known. */
				depth[u] = 1, next[u] = -1;
				for (int32_t e = first[u]; e < first[u + 1]; e++) {
					int32_t v = edges[e].callee;
					if (state[v] == 2 && depth[v] + 1 > depth[u])
						depth[u] = depth[v] + 1, next[u] = e;
				}
				state[u] = 2;
				top--;
				continue;
			}
			const call_edge *e = &edges[edge_at[u]++];
			int32_t v = e->callee;
			if (state[v] == 0) {
				stack[++top] = v, edge_at[v] = first[v], pos[v] = top, state[v] = 1;
			} else if (state[v] == 1) {
				/* A cycle: v, the functions the stack holds above it, and back. */
				int32_t n = 0;
				for (int32_t i = pos[v]; i <= top; i++)
					chain[n++] = stack[i];
				chain[n++] = v;
				const char *label = function_label(m, v);
				const char *path = call_chain(m, chain, n);
				if (!label || !path)
					return false;
				malformed(m, e->g, e->node, NULL, "function '%s' calls itself%s: %s", label,
					  n == 2 ? "" : " through other functions", path);
			}
		}
	}
	int32_t deepest = 0;
	for (int32_t f = 1; f < nf; f++)
		if (depth[f] > depth[deepest])
			deepest = f;
	if (depth[deepest] > MAX_FUNCTION_DEPTH) {
		int32_t n = 0;
		for (int32_t f = deepest; f >= 0 && n < nf;)
			chain[n++] = f, f = next[f] >= 0 ? edges[next[f]].callee : -1;
		const call_edge *e = &edges[next[deepest]];
		const char *path = call_chain(m, chain, n);
		if (!path)
			return false;
		malformed(m, e->g, e->node, NULL, "function calls are nested %d deep, more than %d: %s", depth[deepest],
			  MAX_FUNCTION_DEPTH, path);
	}
	return !m->nomem;
}

/* ---- what ONNX Runtime checks of the functions: those called -------------------- */

static void mark_call(osh_model *m, const char *domain, const char *op_type, bool *called, int32_t *work,
		      int32_t *nwork)
{
	if (!strcmp(domain, "ai.onnx"))
		domain = "";
	int32_t f = find_function(m, domain, op_type);
	if (f >= 0 && !called[f]) {
		called[f] = true;
		work[(*nwork)++] = f;
	}
}

/* The calls of nodes (and of the subgraphs their attributes hold) still messages. */
static void mark_calls_in(osh_model *m, Onnx__NodeProto **nodes, size_t n, int depth, bool *called, int32_t *work,
			  int32_t *nwork)
{
	if (depth > MAX_SUBGRAPH_DEPTH)
		return; /* reported when the body is indexed */
	for (size_t i = 0; i < n; i++) {
		const Onnx__NodeProto *np = nodes[i];
		mark_call(m, str(np->domain), str(np->op_type), called, work, nwork);
		for (size_t a = 0; a < np->n_attribute; a++) {
			const Onnx__AttributeProto *at = np->attribute[a];
			if (at->g)
				mark_calls_in(m, at->g->node, at->g->n_node, depth + 1, called, work, nwork);
			for (size_t k = 0; k < at->n_graphs; k++)
				mark_calls_in(m, at->graphs[k]->node, at->graphs[k]->n_node, depth + 1, called, work, nwork);
		}
	}
}

/* called[f]: a graph of the model calls function f, directly or through others. The
 * main graph and its subgraphs are indexed; the bodies are still messages. */
static bool mark_called(osh_model *m, bool *called)
{
	size_t nf = m->proto->n_functions;
	int32_t *work = arena_array(m->arena, nf ? nf : 1, sizeof *work);
	if (!work)
		return false;
	int32_t nwork = 0;
	for (int32_t gi = 0; gi < m->ngraphs; gi++)
		for (int32_t ni = 0; ni < m->graphs[gi]->nnodes; ni++)
			mark_call(m, m->graphs[gi]->nodes[ni].domain, m->graphs[gi]->nodes[ni].op_type, called, work,
				  &nwork);
	while (nwork) {
		const Onnx__FunctionProto *f = m->proto->functions[work[--nwork]];
		mark_calls_in(m, f->node, f->n_node, 0, called, work, &nwork);
	}
	return true;
}

/* The names the body of function f reads that it does not define (its graphs'
 * VAL_UNDEFINED values), with those of the functions it calls: ONNX Runtime inlines
 * the body into the calling graph, where they must be values. first[f] is f's first
 * graph in m->graphs (a body, then its subgraphs). */
typedef struct free_names {
	const char **names;
	int32_t n;
	int8_t state; /* 0 not yet, 1 being collected, 2 done */
} free_names;

static bool collect_free(osh_model *m, int32_t f, const int32_t *first, free_names *fn)
{
	free_names *me = &fn[f];
	if (me->state)
		return true; /* done, or a cycle (reported by check_calls) */
	me->state = 1;
	int32_t nf = (int32_t)m->proto->n_functions;
	int32_t cap = 0;
	for (int32_t gi = first[f]; gi < first[f + 1]; gi++) {
		graph *g = m->graphs[gi];
		for (int32_t v = 0; v < g->nvalues; v++)
			cap += g->values[v].origin == VAL_UNDEFINED;
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			int32_t h = find_function(m, g->nodes[ni].domain, g->nodes[ni].op_type);
			if (h >= 0 && h < nf && h != f) {
				if (!collect_free(m, h, first, fn))
					return false;
				cap += fn[h].n;
			}
		}
	}
	me->names = arena_array(m->arena, cap ? (size_t)cap : 1, sizeof *me->names);
	if (!me->names)
		return false;
	for (int32_t gi = first[f]; gi < first[f + 1]; gi++) {
		graph *g = m->graphs[gi];
		for (int32_t v = 0; v < g->nvalues && me->n < cap; v++)
			if (g->values[v].origin == VAL_UNDEFINED)
				me->names[me->n++] = g->values[v].name;
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			int32_t h = find_function(m, g->nodes[ni].domain, g->nodes[ni].op_type);
			for (int32_t k = 0; h >= 0 && h < nf && h != f && fn[h].state == 2 && k < fn[h].n && me->n < cap; k++)
				me->names[me->n++] = fn[h].names[k];
		}
	}
	me->state = 2;
	return true;
}

static bool visible_from(const graph *g, const char *name)
{
	for (; g; g = g->parent) {
		int32_t id = strmap_get(&g->names, name);
		if (id >= 0 && g->values[id].origin != VAL_UNDEFINED)
			return true;
	}
	return false;
}

/* Each call, in the main graph or its subgraphs, against the names its function reads
 * from the caller. */
static bool check_free_names(osh_model *m)
{
	int32_t nf = (int32_t)m->proto->n_functions;
	if (!nf || nf > MAX_FUNCTIONS || m->malformed)
		return true;
	int32_t *first = arena_array(m->arena, (size_t)nf + 1, sizeof *first);
	free_names *fn = arena_array(m->arena, (size_t)nf, sizeof *fn);
	if (!first || !fn)
		return false;
	int32_t cur = -1;
	for (int32_t gi = 0; gi < m->ngraphs; gi++)
		if (m->graphs[gi]->function && cur + 1 < nf)
			first[++cur] = gi;
	if (cur != nf - 1)
		return true; /* not every body was indexed */
	first[nf] = m->ngraphs;
	for (int32_t gi = 0; gi < first[0]; gi++) {
		graph *g = m->graphs[gi];
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			int32_t f = find_function(m, g->nodes[ni].domain, g->nodes[ni].op_type);
			if (f < 0 || f >= nf)
				continue;
			if (!collect_free(m, f, first, fn))
				return false;
			for (int32_t k = 0; k < fn[f].n; k++) {
				if (visible_from(g, fn[f].names[k]))
					continue;
				model_diag(m, OSH_ERROR, DIAG_FUNCTION_ERROR, g, ni, fn[f].names[k],
					   "function '%s' reads '%s', which neither its body nor this graph defines: ONNX "
					   "Runtime inlines the body here and refuses it",
					   g->nodes[ni].op_type, fn[f].names[k]);
				break;
			}
		}
	}
	return !m->nomem;
}

/* IR version 3 lists every initializer among the graph inputs. ONNX Runtime loads one
 * that is not only when a node of the main graph reads it: it makes the values of a
 * graph from its nodes' inputs and the graph inputs. */
static bool check_ir3_initializers(osh_model *m, graph *g)
{
	bool *read = arena_array(m->arena, (size_t)(g->nvalues ? g->nvalues : 1), sizeof *read);
	if (!read)
		return false;
	for (int32_t ni = 0; ni < g->nnodes; ni++)
		for (int32_t k = 0; k < g->nodes[ni].ninputs; k++)
			if (g->nodes[ni].inputs[k] >= 0)
				read[g->nodes[ni].inputs[k]] = true;
	for (int32_t v = 0; v < g->nvalues; v++)
		if (g->values[v].origin == VAL_INITIALIZER && !read[v])
			model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, g, -1, g->values[v].name,
				   "initializer '%s' is not among the graph inputs, which IR version %lld wants, and no node "
				   "of the graph reads it: ONNX Runtime refuses it",
				   g->values[v].name, (long long)m->proto->ir_version);
	return true;
}

bool index_model(osh_model *m)
{
	Onnx__ModelProto *mp = m->proto;
	bool too_many_functions = mp->n_functions > MAX_FUNCTIONS;
	if (too_many_functions)
		malformed(m, NULL, -1, NULL, "the model defines %zu functions, more than the %d onnxshape accepts",
			  mp->n_functions, MAX_FUNCTIONS);
	strmap_init(&m->implied_opsets, m->arena);
	if (!index_functions(m, too_many_functions ? 0 : mp->n_functions))
		return false;
	if (mp->graph) {
		m->main = graph_new(m, "", NULL, -1, 0);
		if (!m->main)
			return false;
		m->main->proto = mp->graph;
		if (!build_graph(m, m->main))
			return false;
		if (!mp->graph->n_output)
			model_diag(m, OSH_ERROR, DIAG_GRAPH_ERROR, m->main, -1, NULL,
				   "the graph has no outputs: ONNX Runtime has nothing to run");
		if (mp->has_ir_version && mp->ir_version <= 3 && !check_ir3_initializers(m, m->main))
			return false;
	}
	if (too_many_functions)
		return !m->nomem;
	if (mp->n_functions) {
		m->function_graphs = arena_array(m->arena, mp->n_functions, sizeof *m->function_graphs);
		if (!m->function_graphs)
			return false;
	}
	bool *called = mp->n_functions ? arena_array(m->arena, mp->n_functions, sizeof *called) : NULL;
	if (mp->n_functions && (!called || !mark_called(m, called)))
		return false;
	for (size_t i = 0; i < mp->n_functions; i++) {
		Onnx__FunctionProto *f = mp->functions[i];
		/* A definition a later one of its name replaces: ONNX Runtime never looks at
		 * it. Indexed all the same (every function has a graph), without a word. */
		bool replaced = find_function(m, str(f->domain), str(f->name)) != (int32_t)i;
		if (replaced)
			model_diag(m, OSH_WARNING, DIAG_NOT_IN_SPEC, NULL, -1, NULL,
				   "function '%s' of domain '%s' is defined again later: the spec wants each function once; "
				   "ONNX Runtime takes the last definition",
				   str(f->name), str(f->domain));
		const char *path = arena_printf(m->arena, "function %s%s%s", str(f->domain),
						f->domain && f->domain[0] ? "." : "", str(f->name));
		graph *g = path ? graph_new(m, path, NULL, -1, 0) : NULL;
		if (!g)
			return false;
		g->function = f;
		g->called = called[i];
		for (unsigned k = 0; k < f->base.n_unknown_fields; k++)
			g->attr_defaults |= f->base.unknown_fields[k].tag == 11;
		m->function_graphs[i] = g;
		size_t ndiags = m->ndiags;
		bool had_errors = m->has_errors, was_malformed = m->malformed;
		if (!build_graph(m, g))
			return false;
		if (!replaced)
			validate_function_counts(m, g);
		if (replaced) {
			m->ndiags = ndiags;
			m->has_errors = had_errors;
			m->malformed = was_malformed;
		}
	}
	return !m->nomem && check_calls(m) && check_free_names(m);
}
