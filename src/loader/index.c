/* index.c: builds the IR of core/model.h over the unpacked messages.
 *
 * For the main graph, every subgraph held in a node attribute (If/Loop/Scan bodies,
 * recursively) and every model-local function body: the value table (graph inputs,
 * initializers, node outputs, outer-scope references), each value's producer and
 * consumers, and a topological order of the nodes. Problems are malformed-model
 * errors: an input nothing defines, a value defined twice, nodes out of order, a
 * cycle, a node whose domain is not imported. The index is complete even then (the
 * order covers every node), so later passes can keep working and report more.
 *
 * Invariant: a subgraph's reference to a name of an enclosing graph creates a
 * VAL_OUTER entry in every graph between the two, so each node depends only on values
 * of its own graph, either directly or through the outer references of its subgraphs.
 */
#include "loader/loader.h"

#include <stdio.h>
#include <string.h>

#define OOM(m) ((m)->nomem = true)

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
		int32_t cap = m->cap_graphs ? m->cap_graphs * 2 : 8;
		graph **gs = arena_grow(m->arena, m->graphs, (size_t)m->ngraphs, (size_t)cap, sizeof *gs);
		if (!gs)
			return NULL;
		m->graphs = gs;
		m->cap_graphs = cap;
	}
	m->graphs[m->ngraphs++] = g;
	return g;
}

/* Appends a value; returns its id or -1 when memory ran out. The name is not
 * registered in the map: callers decide (a duplicate keeps the first definition). */
static int32_t value_new(osh_model *m, graph *g, const char *name, value_origin origin)
{
	if (g->nvalues == g->cap_values) {
		int32_t cap = g->cap_values ? g->cap_values * 2 : 16;
		value *v = arena_grow(m->arena, g->values, (size_t)g->nvalues, (size_t)cap, sizeof *v);
		if (!v)
			return -1;
		g->values = v;
		g->cap_values = cap;
	}
	int32_t id = g->nvalues++;
	g->values[id] = (value){.name = name, .origin = origin, .producer = -1, .outer_id = -1};
	return id;
}

/* Defines name in g. Returns the new id, or -(existing id) - 2 when the name was
 * already defined (so callers can report both definitions), or -1 on OOM. */
static int32_t define(osh_model *m, graph *g, const char *name, value_origin origin)
{
	int32_t old = strmap_get(&g->names, name);
	if (old >= 0 && g->values[old].origin != VAL_OUTER)
		return -old - 2;
	int32_t id = value_new(m, g, name, origin);
	if (id < 0 || !strmap_set(&g->names, name, id))
		return -1;
	return id;
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
	if (g->nvalues == g->cap_values) {
		int32_t cap = g->cap_values ? g->cap_values * 2 : 16;
		value *v = arena_grow(a, g->values, (size_t)g->nvalues, (size_t)cap, sizeof *v);
		if (!v)
			return -1;
		g->values = v;
		g->cap_values = cap;
	}
	id = g->nvalues++;
	g->values[id] = (value){.name = g->parent->values[outer].name, .origin = VAL_OUTER,
				.producer = -1, .outer = g->parent, .outer_id = outer};
	if (!strmap_set(&g->names, g->values[id].name, id))
		return -1;
	return id;
}

static bool add_consumer(osh_model *m, value *v, int32_t ni)
{
	if (v->nconsumers && v->consumers[v->nconsumers - 1] == ni)
		return true; /* a node counts once per distinct use site in order */
	if (v->nconsumers == v->cap_consumers) {
		int32_t cap = v->cap_consumers ? v->cap_consumers * 2 : 2;
		int32_t *c = arena_grow(m->arena, v->consumers, (size_t)v->nconsumers, (size_t)cap, sizeof *c);
		if (!c)
			return false;
		v->consumers = c;
		v->cap_consumers = cap;
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

/* Opset version for a node: a function body uses its own imports, then the model's. */
static int64_t node_opset(osh_model *m, const graph *g, const char *domain)
{
	if (g->function) {
		for (size_t i = 0; i < g->function->n_opset_import; i++) {
			const char *d = str(g->function->opset_import[i]->domain);
			if (!strcmp(d, "ai.onnx"))
				d = "";
			if (!strcmp(d, domain))
				return g->function->opset_import[i]->version;
		}
	}
	return model_opset(m, domain);
}

static bool is_local_function(const osh_model *m, const char *domain, const char *op_type)
{
	for (size_t i = 0; i < m->proto->n_functions; i++) {
		const Onnx__FunctionProto *f = m->proto->functions[i];
		if (!strcmp(str(f->domain), domain) && !strcmp(str(f->name), op_type))
			return true;
	}
	return false;
}

static bool build_graph(osh_model *m, graph *g);

/* Builds the subgraphs of node ni and records the outer values they use as extra
 * consumers, so that ordering sees the dependency. */
static bool build_subgraphs(osh_model *m, graph *g, int32_t ni)
{
	node *n = &g->nodes[ni];
	Onnx__NodeProto *np = n->proto;
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
	n->subgraph_attr = arena_array(m->arena, (size_t)count, sizeof *n->subgraph_attr);
	if (!n->subgraphs || !n->subgraph_attr)
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
			n->subgraphs[n->nsubgraphs] = sg;
			n->subgraph_attr[n->nsubgraphs++] = str(at->name);
			if (!build_graph(m, sg))
				return false;
			for (int32_t v = 0; v < sg->nvalues; v++) {
				if (sg->values[v].origin == VAL_OUTER && sg->values[v].outer == g &&
				    !add_consumer(m, &g->values[sg->values[v].outer_id], ni))
					return false;
			}
		}
	}
	return true;
}

/* Checks the attributes that carry tensors, and that the operator's domain is imported. */
static void check_node(osh_model *m, graph *g, int32_t ni)
{
	node *n = &g->nodes[ni];
	if (!n->op_type[0])
		malformed(m, g, ni, NULL, "node has no op_type");
	if (n->opset < 0 && !is_local_function(m, n->domain, n->op_type))
		malformed(m, g, ni, NULL, "operator domain '%s' is not in the model's opset_import",
			  n->domain[0] ? n->domain : "ai.onnx");
	for (size_t i = 0; i < n->proto->n_attribute; i++) {
		const Onnx__AttributeProto *at = n->proto->attribute[i];
		char what[300];
		if (at->t) {
			snprintf(what, sizeof what, "attribute '%.256s'", str(at->name));
			validate_tensor(m, g, ni, at->t, what);
		}
		for (size_t k = 0; k < at->n_tensors; k++) {
			snprintf(what, sizeof what, "attribute '%.256s'[%zu]", str(at->name), k);
			validate_tensor(m, g, ni, at->tensors[k], what);
		}
	}
}

static bool define_nodes(osh_model *m, graph *g, Onnx__NodeProto **nps, size_t count)
{
	if (count > INT32_MAX / 2) {
		malformed(m, g, -1, NULL, "the graph has %zu nodes, more than onnxshape supports", count);
		return true;
	}
	g->nnodes = (int32_t)count;
	g->nodes = arena_array(m->arena, count, sizeof *g->nodes);
	if (!g->nodes && count)
		return false;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		Onnx__NodeProto *np = nps[ni];
		node *n = &g->nodes[ni];
		n->proto = np;
		n->name = str(np->name);
		n->op_type = str(np->op_type);
		n->domain = !strcmp(str(np->domain), "ai.onnx") ? "" : str(np->domain);
		n->opset = node_opset(m, g, n->domain);
		if (!view_attrs(m, n))
			return false;
		n->ninputs = (int32_t)np->n_input;
		n->noutputs = (int32_t)np->n_output;
		n->inputs = arena_array(m->arena, np->n_input, sizeof *n->inputs);
		n->outputs = arena_array(m->arena, np->n_output, sizeof *n->outputs);
		if ((!n->inputs && np->n_input) || (!n->outputs && np->n_output))
			return false;
		for (size_t k = 0; k < np->n_output; k++) {
			const char *name = str(np->output[k]);
			if (!name[0]) {
				n->outputs[k] = -1;
				continue;
			}
			int32_t id = define(m, g, name, VAL_NODE);
			if (id == -1)
				return false;
			if (id < -1) {
				int32_t old = -id - 2;
				malformed(m, g, ni, name, "value '%s' is produced twice: by %s and by this node",
					  name, describe_def(m, g, old));
				n->outputs[k] = old;
				continue;
			}
			g->values[id].producer = ni;
			g->values[id].producer_out = (int32_t)k;
			n->outputs[k] = id;
		}
	}
	return true;
}

static bool resolve_inputs(osh_model *m, graph *g)
{
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		node *n = &g->nodes[ni];
		for (int32_t k = 0; k < n->ninputs; k++) {
			const char *name = str(n->proto->input[k]);
			if (!name[0]) {
				n->inputs[k] = -1;
				continue;
			}
			int32_t id = graph_lookup(g, name);
			if (id < 0) {
				if (m->nomem || arena_exhausted(m->arena))
					return false;
				malformed(m, g, ni, name,
					  "input '%s' is not produced by any node, graph input, initializer or outer scope",
					  name);
				id = define(m, g, name, VAL_UNDEFINED);
				if (id < 0)
					return false;
			}
			n->inputs[k] = id;
			if (!add_consumer(m, &g->values[id], ni))
				return false;
		}
	}
	return true;
}

/* Dependencies of node ni: producers of its inputs and of the outer values its
 * subgraphs use (recorded as consumers by build_subgraphs). We walk consumers lists
 * instead, from the producer side, which covers both. */
static bool order_nodes(osh_model *m, graph *g)
{
	int32_t n = g->nnodes;
	g->order = arena_array(m->arena, (size_t)n, sizeof *g->order);
	int32_t *indeg = arena_array(m->arena, (size_t)n, sizeof *indeg);
	if (n && (!g->order || !indeg))
		return false;
	/* Count edges producer → consumer; the file order is valid when every edge goes
	 * forward. Remember the first backward edge for the message. */
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
	if (bad_consumer < 0) {
		for (int32_t i = 0; i < n; i++)
			g->order[i] = i;
		return true;
	}
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
		const node *c = &g->nodes[bad_consumer];
		const value *v = &g->values[bad_value];
		const node *p = &g->nodes[v->producer];
		malformed(m, g, bad_consumer, v->name,
			  "nodes are not in topological order: this node uses '%s', which node %d '%s' (%s) produces %s",
			  v->name, v->producer, p->name, p->op_type,
			  v->producer == bad_consumer ? "itself" : "later");
		(void)c;
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

static bool attach_decls(osh_model *m, graph *g)
{
	Onnx__GraphProto *gp = g->proto;
	if (!gp)
		return true;
	for (size_t i = 0; i < gp->n_value_info; i++) {
		Onnx__ValueInfoProto *vi = gp->value_info[i];
		validate_value_info(m, g, vi);
		int32_t id = strmap_get(&g->names, str(vi->name));
		if (id >= 0 && (!g->values[id].decl || !g->values[id].decl->type))
			g->values[id].decl = vi;
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
		g->outputs[i] = id;
		g->values[id].is_output = true;
		/* A declaration with a type beats one without (an output may repeat a
		 * value_info entry, or leave its type to it). */
		if (vis && (!g->values[id].decl || (!g->values[id].decl->type && vis[i]->type)))
			g->values[id].decl = vis[i];
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
		int32_t id = define(m, g, name, VAL_INPUT);
		if (id == -1)
			return false;
		if (id < -1) {
			malformed(m, g, -1, name, "graph input '%s' is declared twice", name);
			id = -id - 2;
		}
		g->inputs[i] = id;
		if (vis)
			g->values[id].decl = vis[i];
	}
	return true;
}

static bool define_initializers(osh_model *m, graph *g)
{
	Onnx__GraphProto *gp = g->proto;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		Onnx__TensorProto *t = gp->initializer[i];
		const char *name = str(t->name);
		char what[300];
		snprintf(what, sizeof what, "initializer '%.256s'", name);
		validate_tensor(m, g, -1, t, what);
		if (!name[0]) {
			malformed(m, g, -1, NULL, "initializer #%zu has no name", i);
			continue;
		}
		int32_t id = strmap_get(&g->names, name);
		const tensor_view *tv = view_tensor(m, t);
		if (!tv)
			return false;
		if (id >= 0 && g->values[id].origin == VAL_INPUT && !g->values[id].init) {
			g->values[id].init = t;
			g->values[id].init_view = tv;
			continue;
		}
		id = define(m, g, name, VAL_INITIALIZER);
		if (id == -1)
			return false;
		if (id < -1) {
			malformed(m, g, -1, name, "initializer '%s' is defined twice", name);
			continue;
		}
		g->values[id].init = t;
		g->values[id].init_view = tv;
	}
	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		Onnx__SparseTensorProto *st = gp->sparse_initializer[i];
		const char *name = st->values ? str(st->values->name) : "";
		if (!name[0]) {
			malformed(m, g, -1, NULL, "sparse initializer #%zu has no name", i);
			continue;
		}
		int32_t id = define(m, g, name, VAL_INITIALIZER);
		if (id == -1)
			return false;
		if (id < -1)
			malformed(m, g, -1, name, "initializer '%s' is defined twice", name);
	}
	return true;
}

static bool build_graph(osh_model *m, graph *g)
{
	if (g->proto) {
		Onnx__GraphProto *gp = g->proto;
		if (!define_inputs(m, g, gp->n_input, gp->input, NULL) || !define_initializers(m, g) ||
		    !define_nodes(m, g, gp->node, gp->n_node))
			return false;
	} else {
		Onnx__FunctionProto *f = g->function;
		if (!define_inputs(m, g, f->n_input, NULL, f->input) || !define_nodes(m, g, f->node, f->n_node))
			return false;
	}
	if (!resolve_inputs(m, g))
		return false;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		check_node(m, g, ni);
		if (!build_subgraphs(m, g, ni))
			return false;
	}
	bool ok = g->proto ? define_outputs(m, g, g->proto->n_output, g->proto->output, NULL)
			   : define_outputs(m, g, g->function->n_output, NULL, g->function->output);
	if (!ok || !attach_decls(m, g))
		return false;
	for (int32_t v = 0; v < g->nvalues; v++) {
		value *val = &g->values[v];
		val->declared = val->decl ? view_type(m, val->decl->type) : tinfo_unknown();
		val->ti = tinfo_unknown();
	}
	return !m->nomem && order_nodes(m, g);
}

bool index_model(osh_model *m)
{
	Onnx__ModelProto *mp = m->proto;
	if (mp->graph) {
		m->main = graph_new(m, "", NULL, -1, 0);
		if (!m->main)
			return false;
		m->main->proto = mp->graph;
		if (!build_graph(m, m->main))
			return false;
	}
	for (size_t i = 0; i < mp->n_functions; i++) {
		Onnx__FunctionProto *f = mp->functions[i];
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(str(mp->functions[j]->domain), str(f->domain)) &&
			    !strcmp(str(mp->functions[j]->name), str(f->name)))
				malformed(m, NULL, -1, NULL, "function '%s' of domain '%s' is defined twice",
					  str(f->name), str(f->domain));
		}
		const char *path = arena_printf(m->arena, "function %s%s%s", str(f->domain),
						f->domain && f->domain[0] ? "." : "", str(f->name));
		graph *g = path ? graph_new(m, path, NULL, -1, 0) : NULL;
		if (!g)
			return false;
		g->function = f;
		if (!build_graph(m, g))
			return false;
	}
	return !m->nomem;
}
