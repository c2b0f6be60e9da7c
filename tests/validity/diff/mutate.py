"""mutate.py: semantic mutations of a valid ONNX model, for the differential harness
(run_diff.py) that asks ONNX Runtime and `onnxshape check` whether each mutant runs.

Every mutation is a function `fn(model, rng) -> detail or None` that edits the
ModelProto in place and returns a short, stable description of what it did (the
class key's last part: an operator, an attribute, a scope), or None, having changed
nothing, when the model offers no place for it. A mutation does not know whether
its result is valid: some are meant to break the model (a dangling name), others to
keep it valid in a form nobody tuned for (a value renamed everywhere, a node
outlined into a local function); ONNX Runtime's verdict decides, never the
mutation's intent. Given the same model and the same random.Random state, a
mutation does the same edit: the harness is deterministic by seed.

TRANSFORMS are mutations that keep a model valid while giving it structure the
corpora rarely have (subgraphs, local functions, sparse initializers); the harness
may apply one before another mutation, so that the subgraph and function mutations
find something to break.
"""
import copy

from onnx import AttributeProto, TensorProto, helper

A = AttributeProto
# Element types the ORT judge can feed (judge_ort.js's ARRAYS, float16 and string):
# an input retyped to another would fail for the judge's sake, not the model's.
FEEDABLE = [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT8, TensorProto.UINT8,
            TensorProto.INT16, TensorProto.UINT16, TensorProto.INT32, TensorProto.UINT32, TensorProto.INT64,
            TensorProto.UINT64, TensorProto.BOOL, TensorProto.STRING]
# Byte width of the element types whose raw_data a retyping can reinterpret.
WIDTH = {TensorProto.FLOAT: 4, TensorProto.DOUBLE: 8, TensorProto.FLOAT16: 2, TensorProto.BFLOAT16: 2,
         TensorProto.INT8: 1, TensorProto.UINT8: 1, TensorProto.INT16: 2, TensorProto.UINT16: 2,
         TensorProto.INT32: 4, TensorProto.UINT32: 4, TensorProto.INT64: 8, TensorProto.UINT64: 8,
         TensorProto.BOOL: 1}
LOCAL_DOMAIN = "osh.diff"


# ---- walking the model ---------------------------------------------------------


def graph_attrs(node):
    """The node's graph-valued attributes' graphs."""
    out = []
    for a in node.attribute:
        if a.type == A.GRAPH or a.HasField("g"):
            out.append(a.g)
        out.extend(a.graphs)
    return out


def scopes(graph, outer=frozenset(), depth=0, parent=None):
    """Every graph of the tree under `graph`, depth first, as
    (graph, names visible from enclosing scopes, depth, parent node)."""
    out = [(graph, outer, depth, parent)]
    here = set(outer) | defined(graph)
    for n in graph.node:
        for g in graph_attrs(n):
            out.extend(scopes(g, frozenset(here), depth + 1, n))
    return out


def defined(graph):
    """Names a graph defines itself: inputs, initializers, node outputs."""
    names = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    names |= {s.values.name for s in graph.sparse_initializer}
    for n in graph.node:
        names.update(o for o in n.output if o)
    return names


def uses(graph):
    """Names a graph reads: node inputs, its outputs, and what its subgraphs read
    from outside themselves."""
    out = set()
    for n in graph.node:
        out.update(i for i in n.input if i)
        for g in graph_attrs(n):
            out |= uses(g) - defined(g)
    out.update(o.name for o in graph.output)
    return out


def subgraph_scopes(model):
    return [s for s in scopes(model.graph) if s[2] > 0]


def plain_nodes(graph):
    """Nodes without subgraphs (safe to copy or move)."""
    return [n for n in graph.node if not graph_attrs(n)]


def fresh(model, stem):
    """A name no graph of the model uses."""
    taken = set()
    for g, _, _, _ in scopes(model.graph):
        taken |= defined(g) | uses(g)
    for f in model.functions:
        for n in f.node:
            taken.update(n.input)
            taken.update(n.output)
    i = 0
    while "%s_%d" % (stem, i) in taken:
        i += 1
    return "%s_%d" % (stem, i)


def rename_in_graph(graph, old, new, io=True):
    """Replaces every reference to `old` by `new` in `graph` and in the subgraphs that
    do not define `old` themselves."""
    for n in graph.node:
        for k, v in enumerate(n.input):
            if v == old:
                n.input[k] = new
        for k, v in enumerate(n.output):
            if v == old:
                n.output[k] = new
        for g in graph_attrs(n):
            if old not in defined(g):
                rename_in_graph(g, old, new)
    if io:
        for seq in (graph.input, graph.output, graph.value_info):
            for vi in seq:
                if vi.name == old:
                    vi.name = new
        for t in graph.initializer:
            if t.name == old:
                t.name = new
        for s in graph.sparse_initializer:
            if s.values.name == old:
                s.values.name = new


def opset(model, domain=""):
    for o in model.opset_import:
        if o.domain in (domain, "ai.onnx" if domain == "" else domain):
            return o.version
    return None


def tensor_type(vi):
    return vi.type.tensor_type if vi.type.HasField("tensor_type") else None


def known_types(graph):
    """name -> TypeProto from the graph's declarations (inputs, outputs, value_info)."""
    out = {}
    for seq in (graph.input, graph.value_info, graph.output):
        for vi in seq:
            if vi.type.ByteSize():
                out[vi.name] = vi.type
    return out


def op_label(node):
    """A node's operator for a class key: DOMAIN:OP outside ai.onnx, where check's
    rules differ."""
    return node.op_type if node.domain in ("", "ai.onnx") else "%s:%s" % (node.domain, node.op_type)


def scope_name(depth):
    return "main" if depth == 0 else "subgraph"


# ---- names -------------------------------------------------------------------


def rename_use(model, rng):
    """One input of one node reads a name nothing defines."""
    sites = [(g, d, n, k) for g, _, d, _ in scopes(model.graph) for n in g.node for k, v in enumerate(n.input) if v]
    sites += [(None, -1, n, k) for f in model.functions for n in f.node for k, v in enumerate(n.input) if v]
    if not sites:
        return None
    g, d, n, k = rng.choice(sites)
    n.input[k] = fresh(model, "undefined")
    return "%s:%s" % ("function" if d < 0 else scope_name(d), n.op_type)


def rename_value(model, rng):
    """A value of the main graph renamed everywhere it appears (a valid model)."""
    g = model.graph
    names = sorted(defined(g))
    if not names:
        return None
    old = rng.choice(names)
    new = fresh(model, "renamed")
    rename_in_graph(g, old, new)
    kind = ("input" if old in {i.name for i in g.input} else "initializer"
            if old in {t.name for t in g.initializer} else "node-output")
    return kind


def drop_node(model, rng):
    """A node removed, its outputs left undefined for whoever reads them."""
    sites = [(g, d, k) for g, _, d, _ in scopes(model.graph) for k in range(len(g.node))]
    if not sites:
        return None
    g, d, k = rng.choice(sites)
    op = g.node[k].op_type
    used = any(o in uses(g) for o in g.node[k].output if o)
    del g.node[k]
    return "%s:%s" % (scope_name(d), "used" if used else "unused")


def drop_graph_input(model, rng):
    """A graph input removed (its readers then dangle, unless an initializer defines it)."""
    g = model.graph
    if not g.input:
        return None
    k = rng.randrange(len(g.input))
    name = g.input[k].name
    is_init = name in {t.name for t in g.initializer}
    del g.input[k]
    return "initializer" if is_init else "used" if name in uses(g) else "unused"


def drop_graph_output(model, rng):
    """A graph output removed (the last one leaves a graph without outputs)."""
    g = model.graph
    if len(g.output) < 1:
        return None
    del g.output[rng.randrange(len(g.output))]
    return "last" if not g.output else "one"


def drop_initializer(model, rng):
    """An initializer removed (one also listed as an input becomes a required input)."""
    g = model.graph
    if not g.initializer:
        return None
    k = rng.randrange(len(g.initializer))
    name = g.initializer[k].name
    listed = name in {i.name for i in g.input}
    del g.initializer[k]
    return "listed-input" if listed else "used" if name in uses(g) else "unused"


def dup_output(model, rng):
    """Two nodes of one graph produce the same name."""
    sites = []
    for g, _, d, _ in scopes(model.graph):
        outs = [(k, j) for k, n in enumerate(g.node) for j, o in enumerate(n.output) if o]
        if len(outs) >= 2:
            sites.append((g, d, outs))
    if not sites:
        return None
    g, d, outs = rng.choice(sites)
    (k1, j1), (k2, j2) = rng.sample(outs, 2)
    if k1 == k2:
        return None
    g.node[k2].output[j2] = g.node[k1].output[j1]
    return scope_name(d)


def dup_name_scope(model, rng):
    """A subgraph node's output named like a value of an enclosing scope (and its
    uses inside the subgraph with it)."""
    sites = []
    for g, outer, d, p in subgraph_scopes(model):
        outs = [o for n in g.node for o in n.output if o]
        if outs and outer:
            sites.append((g, outer, p, outs))
    if not sites:
        return None
    g, outer, p, outs = rng.choice(sites)
    old = rng.choice(outs)
    new = rng.choice(sorted(outer))
    rename_in_graph(g, old, new)
    return p.op_type


def empty_name(model, rng):
    """A node input or output, or a graph's input, output or initializer, named ''."""
    sites = []
    for g, _, d, _ in scopes(model.graph):
        for n in g.node:
            for k, v in enumerate(n.input):
                if v:
                    sites.append(("input", d, n, k))
            for k, v in enumerate(n.output):
                if v:
                    sites.append(("output", d, n, k))
        if d == 0:
            sites += [("graph-input", d, vi, None) for vi in g.input]
            sites += [("graph-output", d, vi, None) for vi in g.output]
            sites += [("initializer", d, t, None) for t in g.initializer]
    if not sites:
        return None
    what, d, x, k = rng.choice(sites)
    if what == "input":
        last = k == len(x.input) - 1
        x.input[k] = ""
        return "%s:node-input:%s:%s" % (scope_name(d), op_label(x), "last" if last else "not-last")
    if what == "output":
        x.output[k] = ""
        return "%s:node-output:%s:%d" % (scope_name(d), x.op_type, k)
    x.name = ""
    return what


def swap_inputs(model, rng):
    """Two different inputs of a node swapped."""
    sites = [(d, n) for g, _, d, _ in scopes(model.graph) for n in g.node if len([i for i in n.input if i]) >= 2]
    if not sites:
        return None
    d, n = rng.choice(sites)
    ks = [k for k, v in enumerate(n.input) if v]
    a, b = rng.sample(ks, 2)
    if n.input[a] == n.input[b]:
        return None
    n.input[a], n.input[b] = n.input[b], n.input[a]
    return n.op_type


# ---- order and scope ---------------------------------------------------------


def reorder_main(model, rng):
    """The main graph's nodes shuffled (ONNX Runtime sorts the main graph)."""
    g = model.graph
    if len(g.node) < 2:
        return None
    nodes = list(g.node)
    rng.shuffle(nodes)
    del g.node[:]
    g.node.extend(nodes)
    return "main"


def unsort_subgraph(model, rng):
    """A subgraph's nodes reversed, so that a consumer comes before its producer."""
    sites = []
    for g, _, d, p in subgraph_scopes(model):
        made = set()
        for n in g.node:
            if any(i in made for i in n.input):
                sites.append((g, p))
                break
            made.update(n.output)
    if not sites:
        return None
    g, p = rng.choice(sites)
    nodes = list(g.node)[::-1]
    del g.node[:]
    g.node.extend(nodes)
    return p.op_type


def move_into_subgraph(model, rng):
    """A main-graph node moved into the body of a node with a subgraph."""
    g = model.graph
    hosts = [n for n in g.node if graph_attrs(n)]
    movable = plain_nodes(g)
    if not hosts or not movable:
        return None
    host = rng.choice(hosts)
    n = rng.choice(movable)
    body = rng.choice(graph_attrs(host))
    outside = set()
    for m in g.node:
        if m is not host and m is not n:
            outside.update(m.input)
            for sg in graph_attrs(m):
                outside |= uses(sg)
    outside.update(o.name for o in g.output)
    used_outside = any(o in outside for o in n.output if o)
    moved = copy.deepcopy(n)
    g.node.remove(n)
    body.node.insert(0, moved)
    return "%s:%s" % (host.op_type, "used-outside" if used_outside else "inside-only")


def outer_scope_return(model, rng):
    """A subgraph output that is an outer-scope value, returned without a node."""
    sites = [(g, outer, p) for g, outer, d, p in subgraph_scopes(model) if g.output and outer]
    if not sites:
        return None
    g, outer, p = rng.choice(sites)
    k = rng.randrange(len(g.output))
    g.output[k].name = rng.choice(sorted(outer))
    return p.op_type


def if_formal_inputs(model, rng):
    """An If branch that declares a formal input."""
    sites = [(n, a) for g, _, _, _ in scopes(model.graph) for n in g.node if n.op_type == "If"
             for a in n.attribute if a.name in ("then_branch", "else_branch")]
    if not sites:
        return None
    n, a = rng.choice(sites)
    a.g.input.append(helper.make_tensor_value_info(fresh(model, "formal"), TensorProto.FLOAT, [1]))
    return a.name


def subgraph_io(model, rng):
    """A Loop or Scan body's input or output removed, or one added."""
    sites = [(n, a.g) for g, _, _, _ in scopes(model.graph) for n in g.node if n.op_type in ("Loop", "Scan")
             for a in n.attribute if a.name == "body"]
    if not sites:
        return None
    n, body = rng.choice(sites)
    what = rng.choice(["drop-input", "drop-output", "add-input", "add-output"])
    if what == "drop-input" and body.input:
        del body.input[rng.randrange(len(body.input))]
    elif what == "drop-output" and body.output:
        del body.output[rng.randrange(len(body.output))]
    elif what == "add-input":
        body.input.append(helper.make_tensor_value_info(fresh(model, "extra"), TensorProto.FLOAT, [1]))
    elif what == "add-output" and body.input:
        body.output.append(helper.make_tensor_value_info(body.input[-1].name, TensorProto.UNDEFINED, None))
    else:
        return None
    return "%s:%s" % (n.op_type, what)


def subgraph_initializer(model, rng):
    """An initializer added to a subgraph (at IR 3 it must be among its inputs)."""
    sites = subgraph_scopes(model)
    if not sites:
        return None
    g, _, _, p = rng.choice(sites)
    g.initializer.append(helper.make_tensor(fresh(model, "sub_init"), TensorProto.FLOAT, [1], [1.0]))
    return "%s:ir%d" % (p.op_type, model.ir_version if model.ir_version < 4 else 4)


# ---- types and shapes --------------------------------------------------------


def other_type(rng, t, pool=FEEDABLE):
    choices = [x for x in pool if x != t]
    return rng.choice(choices)


def elem_type_input(model, rng):
    """A graph input's element type changed (to a type the judge can feed)."""
    init = {t.name for t in model.graph.initializer}
    sites = [vi for vi in model.graph.input if tensor_type(vi) and vi.name not in init]
    if not sites:
        return None
    vi = rng.choice(sites)
    tt = tensor_type(vi)
    tt.elem_type = other_type(rng, tt.elem_type)
    return "input"


def elem_type_output(model, rng):
    """A main-graph output's declared element type changed."""
    sites = [vi for vi in model.graph.output if tensor_type(vi) and tensor_type(vi).elem_type]
    if not sites:
        return None
    tt = tensor_type(rng.choice(sites))
    tt.elem_type = other_type(rng, tt.elem_type)
    return "output"


def elem_type_value_info(model, rng):
    """A value_info entry's element type changed."""
    sites = [vi for g, _, _, _ in scopes(model.graph) for vi in g.value_info
             if tensor_type(vi) and tensor_type(vi).elem_type]
    if not sites:
        return None
    tt = tensor_type(rng.choice(sites))
    tt.elem_type = other_type(rng, tt.elem_type)
    return "value_info"


def elem_type_initializer(model, rng):
    """An initializer's data_type changed, its data left as it is: to a type of the
    same width (raw data reinterpreted) or of another."""
    sites = [t for g, _, _, _ in scopes(model.graph) for t in g.initializer]
    if not sites:
        return None
    t = rng.choice(sites)
    # Read by an operator outside ai.onnx, whose type constraints check may not hold.
    foreign = sorted({n.domain for g, _, _, _ in scopes(model.graph) for n in g.node
                      if t.name in n.input and n.domain not in ("", "ai.onnx")})
    tag = "".join(":" + d for d in foreign)
    same = [x for x, w in WIDTH.items() if w == WIDTH.get(t.data_type) and x != t.data_type]
    if same and rng.random() < 0.6:
        t.data_type = rng.choice(same)
        return "same-width" + (":raw" if t.HasField("raw_data") else ":typed") + tag
    t.data_type = other_type(rng, t.data_type, list(WIDTH))
    return "other-width" + (":raw" if t.HasField("raw_data") else ":typed") + tag


def cast_to(model, rng):
    """Cast's (or CastLike's) `to` changed, to a feedable type or to one ORT lacks."""
    sites = [n for g, _, _, _ in scopes(model.graph) for n in g.node if n.op_type in ("Cast", "CastLike")
             and any(a.name == "to" for a in n.attribute)]
    if not sites:
        return None
    n = rng.choice(sites)
    a = [a for a in n.attribute if a.name == "to"][0]
    a.i = other_type(rng, a.i, FEEDABLE + [TensorProto.BFLOAT16, 17, 19, 21, 22, 0, 99])
    return "to"


def shape_sites(model, with_param=False):
    out = []
    init = {t.name for t in model.graph.initializer}
    for where, seq in (("input", model.graph.input), ("output", model.graph.output),
                       ("value_info", model.graph.value_info)):
        for vi in seq:
            tt = tensor_type(vi)
            if where == "input" and vi.name in init:
                continue
            if tt and tt.HasField("shape"):
                for d in tt.shape.dim:
                    if d.HasField("dim_value") or (with_param and d.HasField("dim_param")):
                        out.append((where, tt, d))
    return out


def shrink_dim(model, rng):
    """A declared dimension above 1 made smaller."""
    sites = [s for s in shape_sites(model) if s[2].dim_value > 1]
    if not sites:
        return None
    where, _, d = rng.choice(sites)
    d.dim_value = rng.randrange(1, d.dim_value)
    return where


def grow_dim(model, rng):
    """A declared dimension made larger."""
    sites = [s for s in shape_sites(model) if s[2].dim_value >= 1]
    if not sites:
        return None
    where, _, d = rng.choice(sites)
    d.dim_value = d.dim_value + rng.choice([1, 2, 3])
    return where


def empty_dim(model, rng):
    """A declared dimension (input, output, value_info) set to 0."""
    sites = [s for s in shape_sites(model) if s[2].dim_value != 0]
    if not sites:
        return None
    where, _, d = rng.choice(sites)
    d.dim_value = 0
    return where


def negative_dim(model, rng):
    """A declared dimension set to -1 or -2."""
    sites = shape_sites(model, with_param=True)
    if not sites:
        return None
    where, _, d = rng.choice(sites)
    d.dim_value = rng.choice([-1, -2])
    return where


def drop_dim(model, rng):
    """A declared shape loses or gains a dimension (rank changed)."""
    sites = []
    init = {t.name for t in model.graph.initializer}
    for where, seq in (("input", model.graph.input), ("output", model.graph.output)):
        for vi in seq:
            tt = tensor_type(vi)
            if tt and tt.HasField("shape") and vi.name not in init:
                sites.append((where, tt))
    if not sites:
        return None
    where, tt = rng.choice(sites)
    if tt.shape.dim and rng.random() < 0.6:
        del tt.shape.dim[rng.randrange(len(tt.shape.dim))]
        return where + ":drop"
    tt.shape.dim.add().dim_value = rng.choice([1, 2])
    return where + ":add"


def symbolic_dim(model, rng):
    """A declared dimension's size replaced by a symbol."""
    sites = shape_sites(model)
    if not sites:
        return None
    where, _, d = rng.choice(sites)
    d.dim_param = rng.choice(["N", "batch", "unk__0"])
    return where


def initializer_dims(model, rng):
    """An initializer's dims changed: same element count (reshaped) or not."""
    sites = [t for g, _, _, _ in scopes(model.graph) for t in g.initializer]
    if not sites:
        return None
    t = rng.choice(sites)
    n = 1
    for x in t.dims:
        n *= x
    if rng.random() < 0.5 and n > 1:
        del t.dims[:]
        t.dims.append(n)
        return "flattened"
    if t.dims and rng.random() < 0.5:
        t.dims[rng.randrange(len(t.dims))] += 1
        return "count-changed"
    t.dims.append(1)
    return "rank-added"


# ---- opsets and IR version -----------------------------------------------------


def opset_version(model, rng):
    """The ai.onnx opset import changed to another version (1 to 24)."""
    o = [o for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not o:
        return None
    o = o[0]
    old = o.version
    o.version = rng.choice([v for v in range(1, 25) if v != old])
    return "%s:%s" % ("up" if o.version > old else "down", "far" if abs(o.version - old) > 3 else "near")


def opset_drop(model, rng):
    """An opset import removed."""
    if not model.opset_import:
        return None
    k = rng.randrange(len(model.opset_import))
    dom = model.opset_import[k].domain or "ai.onnx"
    del model.opset_import[k]
    return dom


def opset_extra(model, rng):
    """An opset import of an unknown domain, or a second one of a domain imported."""
    if model.opset_import and rng.random() < 0.5:
        o = rng.choice(list(model.opset_import))
        model.opset_import.add(domain=o.domain, version=o.version + 1)
        return "duplicate"
    model.opset_import.add(domain="org.example.nobody", version=1)
    return "unknown-domain"


def ir_version(model, rng):
    """The model's IR version changed (1 to 13)."""
    old = model.ir_version
    model.ir_version = rng.choice([v for v in range(1, 14) if v != old])
    return "%s:%s" % ("up" if model.ir_version > old else "down", "ir%d" % model.ir_version)


# ---- attributes --------------------------------------------------------------


def attr_sites(model, kinds=None):
    out = []
    for g, _, _, _ in scopes(model.graph):
        for n in g.node:
            for a in n.attribute:
                if kinds is None or a.type in kinds:
                    out.append((n, a))
    for f in model.functions:
        for n in f.node:
            for a in n.attribute:
                if (kinds is None or a.type in kinds) and not a.ref_attr_name:
                    out.append((n, a))
    return out


def drop_attr(model, rng):
    """An attribute removed (a required one, or an optional one that takes its default)."""
    sites = attr_sites(model)
    if not sites:
        return None
    n, a = rng.choice(sites)
    name = a.name
    n.attribute.remove(a)
    return "%s.%s" % (n.op_type, name)


def retype_attr(model, rng):
    """An attribute given another type, its value carried over where it can be, the
    type field consistent with the field that holds it."""
    sites = attr_sites(model, {A.INT, A.FLOAT, A.INTS, A.FLOATS, A.STRING})
    if not sites:
        return None
    n, a = rng.choice(sites)
    t = a.type
    if t == A.INT:
        v = a.i
        a.ClearField("i")
        if rng.random() < 0.5:
            a.type, a.f = A.FLOAT, float(v)
        else:
            a.type = A.INTS
            a.ints.append(v)
    elif t == A.FLOAT:
        v = a.f
        a.ClearField("f")
        a.type, a.i = A.INT, int(v)
    elif t == A.INTS:
        v = list(a.ints)
        a.ClearField("ints")
        if rng.random() < 0.5 or not v:
            a.type = A.FLOATS
            a.floats.extend(float(x) for x in v)
        else:
            a.type, a.i = A.INT, v[0]
    elif t == A.FLOATS:
        v = list(a.floats)
        a.ClearField("floats")
        a.type = A.INTS
        a.ints.extend(int(x) for x in v)
    else:
        v = a.s
        a.ClearField("s")
        a.type = A.STRINGS
        a.strings.append(v)
    return "%s.%s" % (op_label(n), a.name)


def attr_type_field(model, rng):
    """An attribute whose `type` disagrees with the field that holds its value."""
    sites = attr_sites(model)
    if not sites:
        return None
    n, a = rng.choice(sites)
    a.type = rng.choice([t for t in (A.FLOAT, A.INT, A.STRING, A.TENSOR, A.INTS, A.FLOATS, A.STRINGS, A.GRAPH)
                         if t != a.type])
    return "%s.%s" % (op_label(n), a.name)


def attr_value(model, rng):
    """An attribute's value changed, to a value that is often out of range."""
    sites = attr_sites(model, {A.INT, A.FLOAT, A.INTS, A.FLOATS, A.STRING, A.STRINGS})
    if not sites:
        return None
    n, a = rng.choice(sites)
    if a.type == A.INT:
        a.i = rng.choice([x for x in (-100, -3, -2, -1, 0, 1, 2, 3, 7, 100, a.i + 1, a.i - 1) if x != a.i])
    elif a.type == A.FLOAT:
        a.f = rng.choice([x for x in (0.0, -1.0, 0.5, 2.0, 1e9, -1e-9) if x != a.f])
    elif a.type == A.INTS:
        v = list(a.ints)
        what = rng.choice(["drop", "add", "negate", "zero"])
        if what == "drop" and v:
            del v[rng.randrange(len(v))]
        elif what == "negate" and v:
            k = rng.randrange(len(v))
            v[k] = -v[k] - 1
        elif what == "zero" and v:
            v[rng.randrange(len(v))] = 0
        else:
            v.insert(rng.randrange(len(v) + 1), rng.choice([0, 1, 2, -1]))
        del a.ints[:]
        a.ints.extend(v)
    elif a.type == A.FLOATS:
        v = list(a.floats)
        if v and rng.random() < 0.5:
            del v[rng.randrange(len(v))]
        else:
            v.append(1.0)
        del a.floats[:]
        a.floats.extend(v)
    elif a.type == A.STRING:
        a.s = rng.choice([b"", b"bogus", a.s.upper() if a.s.upper() != a.s else a.s + b"x"])
    else:
        if a.strings and rng.random() < 0.5:
            del a.strings[rng.randrange(len(a.strings))]
        else:
            a.strings.append(b"bogus")
    return "%s.%s" % (op_label(n), a.name)


def add_attr(model, rng):
    """A node given an attribute its operator does not have."""
    sites = [n for g, _, _, _ in scopes(model.graph) for n in g.node]
    if not sites:
        return None
    n = rng.choice(sites)
    n.attribute.append(helper.make_attribute("osh_bogus", 1))
    return n.op_type


# ---- operators ----------------------------------------------------------------


UNARY = ["Abs", "Neg", "Relu", "Sigmoid", "Exp", "Identity", "Floor", "Sqrt", "Not", "Sign"]
BINARY = ["Add", "Sub", "Mul", "Div", "MatMul", "Pow", "And", "Equal", "Less", "Max"]


def change_op(model, rng):
    """A node's operator replaced by another one of the same arity, its attributes
    kept."""
    sites = [n for g, _, _, _ in scopes(model.graph) for n in g.node if n.domain in ("", "ai.onnx")
             and len(n.input) in (1, 2) and len(n.output) == 1]
    if not sites:
        return None
    n = rng.choice(sites)
    pool = UNARY if len(n.input) == 1 else BINARY
    old = n.op_type
    n.op_type = rng.choice([o for o in pool if o != old])
    return "%d-ary" % len(n.input)


def change_domain(model, rng):
    """A node moved to another domain (unimported, com.microsoft, ai.onnx.ml), or to
    ai.onnx from its own."""
    sites = [n for g, _, _, _ in scopes(model.graph) for n in g.node]
    if not sites:
        return None
    n = rng.choice(sites)
    if n.domain in ("", "ai.onnx"):
        n.domain = rng.choice(["org.example.nobody", "com.microsoft", "ai.onnx.ml"])
        return "to:" + n.domain
    n.domain = ""
    return "to:ai.onnx"


def extra_input(model, rng):
    """A node given one input more than it had (a graph input's value or an
    initializer), or one less."""
    sites = [(g, n) for g, _, _, _ in scopes(model.graph) for n in g.node if n.input]
    if not sites:
        return None
    g, n = rng.choice(sites)
    # A call of a model-local function is told apart: its arity is the function's.
    op = "call" if (n.domain, n.op_type) in {(f.domain, f.name) for f in model.functions} else op_label(n)
    if rng.random() < 0.5:
        n.input.append(n.input[0])
        return "more:%s" % op
    del n.input[-1]
    return "fewer:%s" % op


def extra_output(model, rng):
    """A node given one output more than it had, or one less."""
    sites = [n for g, _, _, _ in scopes(model.graph) for n in g.node]
    if not sites:
        return None
    n = rng.choice(sites)
    if len(n.output) > 1 and rng.random() < 0.5:
        del n.output[-1]
        return "fewer:%s" % op_label(n)
    n.output.append(fresh(model, "extra_out"))
    return "more:%s" % op_label(n)


# ---- tensors ----------------------------------------------------------------------


def raw_and_typed(model, rng):
    """An initializer holding its data both as raw_data and in its typed field."""
    sites = [t for t in model.graph.initializer if t.HasField("raw_data") and t.data_type == TensorProto.FLOAT]
    if not sites:
        return None
    t = rng.choice(sites)
    n = len(t.raw_data) // 4
    t.float_data.extend([0.0] * n)
    return "float"


def constant_value(model, rng):
    """A Constant node's tensor given another shape."""
    sites = [(n, a) for g, _, _, _ in scopes(model.graph) for n in g.node if n.op_type == "Constant"
             for a in n.attribute if a.name == "value" and a.type == A.TENSOR]
    if not sites:
        return None
    n, a = rng.choice(sites)
    t = a.t
    if t.dims:
        t.dims[rng.randrange(len(t.dims))] += 1
        return "count-changed"
    t.dims.append(rng.choice([0, 2]))
    return "scalar-ranked"


def to_sparse(model, rng):
    """A dense initializer stored as a sparse one (COO, linear indices): valid."""
    sites = [t for t in model.graph.initializer if t.data_type == TensorProto.FLOAT and t.dims
             and (t.HasField("raw_data") or t.float_data) and model.ir_version >= 4]
    if not sites:
        return None
    import numpy as np
    from onnx import numpy_helper
    t = rng.choice(sites)
    arr = numpy_helper.to_array(t)
    flat = arr.reshape(-1)
    idx = np.nonzero(flat)[0].astype(np.int64)
    vals = numpy_helper.from_array(flat[idx].astype(np.float32), t.name)
    ind = numpy_helper.from_array(idx, "")
    sp = model.graph.sparse_initializer.add()
    sp.values.CopyFrom(vals)
    sp.indices.CopyFrom(ind)
    sp.dims.extend(t.dims)
    model.graph.initializer.remove(t)
    return "float"


def break_sparse(model, rng):
    """A sparse initializer broken: an index out of range, one index more than values, or
    its dims shrunk."""
    sites = list(model.graph.sparse_initializer)
    if not sites:
        return None
    sp = rng.choice(sites)
    what = rng.choice(["index-out-of-range", "count-mismatch", "dims"])
    if what == "index-out-of-range":
        n = 1
        for x in sp.dims:
            n *= x
        raw = sp.indices
        if raw.HasField("raw_data") or raw.int64_data:
            from onnx import numpy_helper
            idx = numpy_helper.to_array(raw).copy().reshape(-1)
            if idx.size == 0:
                return None
            idx[-1] = n + 5
            sp.indices.CopyFrom(numpy_helper.from_array(idx, ""))
        else:
            return None
    elif what == "count-mismatch":
        from onnx import numpy_helper
        import numpy as np
        idx = numpy_helper.to_array(sp.indices).reshape(-1)
        sp.indices.CopyFrom(numpy_helper.from_array(np.concatenate([idx, idx[:1]]).astype(np.int64), ""))
    else:
        if not sp.dims:
            return None
        sp.dims[0] = max(0, sp.dims[0] - 1)
    return what


# ---- functions ------------------------------------------------------------------


def outline_function(model, rng):
    """A main-graph node replaced by a call of a model-local function whose body is
    that node (a valid model, at IR 8 at least)."""
    g = model.graph
    sites = [n for n in plain_nodes(g) if n.domain in ("", "ai.onnx") and all(o for o in n.output)]
    if not sites or opset(model) is None:
        return None
    n = rng.choice(sites)
    name = fresh(model, "fn")
    f = model.functions.add()
    f.name, f.domain = name, LOCAL_DOMAIN
    body = copy.deepcopy(n)
    real_in = [i for i in n.input if i]
    formal = {}
    for k, i in enumerate(real_in):
        formal.setdefault(i, "x%d" % k)
    for k, i in enumerate(body.input):
        if i:
            body.input[k] = formal[i]
    for k in range(len(body.output)):
        body.output[k] = "y%d" % k
    body.name = ""
    # Half the time the attributes become the function's own, referenced from the
    # body and given at the call.
    params = []
    if body.attribute and rng.random() < 0.5:
        for a in body.attribute:
            if a.type in (A.GRAPH, A.GRAPHS):
                continue
            params.append(copy.deepcopy(a))
            t = a.type
            a.Clear()
            a.name, a.type, a.ref_attr_name = params[-1].name, t, "p_" + params[-1].name
            params[-1].name = "p_" + params[-1].name
        f.attribute.extend(p.name for p in params)
    f.input.extend(dict.fromkeys(formal[i] for i in real_in))
    f.output.extend(body.output)
    f.node.append(body)
    f.opset_import.add(domain="", version=opset(model))
    call = helper.make_node(name, list(dict.fromkeys(real_in)), list(n.output), domain=LOCAL_DOMAIN)
    call.attribute.extend(params)
    k = list(g.node).index(n)
    g.node.remove(n)
    g.node.insert(k, call)
    if opset(model, LOCAL_DOMAIN) is None:
        model.opset_import.add(domain=LOCAL_DOMAIN, version=1)
    model.ir_version = max(model.ir_version, 8)
    return n.op_type + (":attrs" if params else "")


def function_signature(model, rng):
    """A model-local function's signature broken against its calls or its body."""
    if not model.functions:
        return None
    f = rng.choice(list(model.functions))
    what = rng.choice(["drop-input", "add-input", "drop-output", "rename-output", "call-fewer", "call-more",
                       "unsort", "opset-mismatch", "opset-drop", "duplicate", "uncalled-broken"])
    calls = [n for g, _, _, _ in scopes(model.graph) for n in g.node if n.op_type == f.name
             and n.domain == f.domain]
    if what == "drop-input" and f.input:
        del f.input[rng.randrange(len(f.input))]
    elif what == "add-input":
        f.input.append(fresh(model, "formal"))
    elif what == "drop-output" and f.output:
        del f.output[rng.randrange(len(f.output))]
    elif what == "rename-output" and f.output:
        f.output[rng.randrange(len(f.output))] = "never_made"
    elif what == "call-fewer" and calls and calls[0].input:
        del calls[0].input[-1]
    elif what == "call-more" and calls and calls[0].input:
        calls[0].input.append(calls[0].input[0])
    elif what == "unsort" and len(f.node) >= 2:
        nodes = list(f.node)[::-1]
        del f.node[:]
        f.node.extend(nodes)
    elif what == "opset-mismatch" and f.opset_import:
        o = rng.choice(list(f.opset_import))
        o.version = max(1, o.version + rng.choice([-3, -1, 1, 2]))
    elif what == "opset-drop" and f.opset_import:
        del f.opset_import[rng.randrange(len(f.opset_import))]
    elif what == "duplicate":
        model.functions.append(copy.deepcopy(f))
    elif what == "uncalled-broken":
        u = copy.deepcopy(f)
        u.name = fresh(model, "uncalled")
        for n in u.node:
            n.input.append("nowhere")
        model.functions.append(u)
    else:
        return None
    return what


# ---- subgraphs made where there are none ---------------------------------------


def wrap_if(model, rng):
    """A main-graph node, or a node and one of its consumers, moved into both branches
    of an If on a constant true condition (a valid model)."""
    g = model.graph
    if opset(model) is None:
        return None
    sites = [n for n in plain_nodes(g) if all(o for o in n.output) and n.output]
    if not sites:
        return None
    n = rng.choice(sites)
    chain = [n]
    consumers = [m for m in plain_nodes(g) if m is not n and any(i in n.output for i in m.input)
                 and all(o for o in m.output)]
    if consumers and rng.random() < 0.7:
        chain.append(rng.choice(consumers))
    outs = [o for m in chain for o in m.output]
    types = known_types(g)
    cond = fresh(model, "cond")
    branches = []
    for tag in ("then", "else"):
        local = {o: fresh(model, "%s_%s" % (o, tag)) for o in outs}
        body = []
        for m in chain:
            c = copy.deepcopy(m)
            for k, i in enumerate(c.input):
                c.input[k] = local.get(i, i)
            for k, o in enumerate(c.output):
                c.output[k] = local[o]
            c.name = ""
            body.append(c)
        # Reserve the branch-local names before the other branch picks its own.
        g.value_info.extend(helper.make_empty_tensor_value_info(x) for x in local.values())
        outputs = []
        for o in outs:
            vi = helper.make_empty_tensor_value_info(local[o])
            if o in types:
                vi.type.CopyFrom(types[o])
            outputs.append(vi)
        branches.append(helper.make_graph(body, "%s_branch" % tag, [], outputs))
    # The reservations were only there for fresh(): take them out again.
    keep = [vi for vi in g.value_info if vi.type.ByteSize() or vi.name in defined(g) | uses(g)]
    del g.value_info[:]
    g.value_info.extend(keep)
    k = list(g.node).index(chain[0])
    for m in chain:
        g.node.remove(m)
    const = helper.make_node("Constant", [], [cond],
                             value=helper.make_tensor("", TensorProto.BOOL, [], [True]))
    node = helper.make_node("If", [cond], outs, then_branch=branches[0], else_branch=branches[1])
    g.node.insert(k, node)
    g.node.insert(k, const)
    return "%d-node" % len(chain)


# ---- forms ONNX Runtime accepts that the corpora rarely use ------------------------


def add_unused_input(model, rng):
    """A graph input nothing reads."""
    g = model.graph
    g.input.append(helper.make_tensor_value_info(fresh(model, "unused"), rng.choice([1, 7]), [1, 2]))
    return "main"


def drop_value_info(model, rng):
    """Every value_info entry of one graph removed."""
    sites = [g for g, _, _, _ in scopes(model.graph) if g.value_info]
    if not sites:
        return None
    g = rng.choice(sites)
    del g.value_info[:]
    return "all"


def initializer_as_input(model, rng):
    """An initializer also listed as a graph input (a default the caller may override)."""
    g = model.graph
    listed = {i.name for i in g.input}
    sites = [t for t in g.initializer if t.name not in listed]
    if not sites:
        return None
    t = rng.choice(sites)
    g.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    return "ir%d" % min(model.ir_version, 4)


def output_forms(model, rng):
    """A graph output that is a graph input or an initializer, or one listed twice."""
    g = model.graph
    what = rng.choice(["input", "initializer", "twice"])
    if what == "input" and g.input:
        vi = rng.choice(list(g.input))
        g.output.append(copy.deepcopy(vi))
    elif what == "initializer" and g.initializer:
        t = rng.choice(list(g.initializer))
        g.output.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    elif what == "twice" and g.output:
        g.output.append(copy.deepcopy(rng.choice(list(g.output))))
    else:
        return None
    return what


def ref_attr_main(model, rng):
    """An attribute of a main-graph node that also names a ref_attr_name (meaningful
    only in a function body)."""
    sites = [(n, a) for n in model.graph.node for a in n.attribute]
    if not sites:
        return None
    n, a = rng.choice(sites)
    a.ref_attr_name = "outer_" + a.name
    return "%s.%s" % (op_label(n), a.name)


def sparse_dense_name(model, rng):
    """A sparse initializer named like a dense one."""
    g = model.graph
    sites = [t for t in g.initializer if t.data_type == TensorProto.FLOAT and t.dims]
    if not sites or model.ir_version < 4:
        return None
    t = rng.choice(sites)
    sp = g.sparse_initializer.add()
    sp.values.CopyFrom(helper.make_tensor(t.name, TensorProto.FLOAT, [0], []))
    sp.indices.CopyFrom(helper.make_tensor("", TensorProto.INT64, [0], []))
    sp.dims.extend(t.dims)
    return "float"


def constant_form(model, rng):
    """A Constant's tensor given as one of the later forms (value_float, value_ints...)
    or the other way round."""
    sites = [n for g, _, _, _ in scopes(model.graph) for n in g.node if n.op_type == "Constant"
             and len(n.attribute) == 1]
    if not sites:
        return None
    n = rng.choice(sites)
    a = n.attribute[0]
    if a.name == "value" and a.type == A.TENSOR:
        from onnx import numpy_helper
        if a.t.data_type not in (TensorProto.FLOAT, TensorProto.INT64):
            return None
        arr = numpy_helper.to_array(a.t)
        if arr.ndim > 1 or arr.size == 0:
            return None
        flat = arr.reshape(-1).tolist()
        stem = "value_float" if a.t.data_type == TensorProto.FLOAT else "value_int"
        name = stem if arr.ndim == 0 else stem + "s"
        del n.attribute[:]
        n.attribute.append(helper.make_attribute(name, flat[0] if arr.ndim == 0 else flat))
        return "to:%s:%s" % (name, "opset12+" if (opset(model) or 0) >= 12 else "before-opset12")
    if a.type in (A.INT, A.INTS, A.FLOAT, A.FLOATS):
        if a.type in (A.INTS, A.FLOATS):
            v = list(a.ints) if a.type == A.INTS else list(a.floats)
            dims = [len(v)]
        else:
            v, dims = [a.i if a.type == A.INT else a.f], []
        dt = TensorProto.INT64 if a.type in (A.INT, A.INTS) else TensorProto.FLOAT
        del n.attribute[:]
        n.attribute.append(helper.make_attribute("value", helper.make_tensor("", dt, dims, v)))
        return "to:value"
    return None


def dup_node_name(model, rng):
    """Two nodes of the main graph given the same name (names of nodes need not be
    unique)."""
    g = model.graph
    if len(g.node) < 2:
        return None
    a, b = rng.sample(range(len(g.node)), 2)
    g.node[b].name = g.node[a].name or "same_name"
    g.node[a].name = g.node[b].name
    return "main"


def add_unused_initializer(model, rng):
    """An initializer nothing reads (at IR 3, one not among the graph inputs)."""
    model.graph.initializer.append(helper.make_tensor(fresh(model, "unused_init"), TensorProto.FLOAT, [2], [1.0, 2.0]))
    return "main"


def add_dead_node(model, rng):
    """A node whose output nobody reads."""
    g = model.graph
    names = sorted(defined(g))
    if not names:
        return None
    g.node.insert(rng.randrange(len(g.node) + 1),
                  helper.make_node("Identity", [rng.choice(names)], [fresh(model, "dead")]))
    return "Identity"


def strip_types(model, rng):
    """A graph output's type, a graph input's shape, or a value_info's shape left out,
    or a value_info entry given twice."""
    g = model.graph
    what = rng.choice(["output-type", "input-shape", "value-info-shape", "value-info-twice"])
    init = {t.name for t in g.initializer}
    if what == "output-type" and g.output:
        rng.choice(list(g.output)).ClearField("type")
    elif what == "input-shape":
        sites = [vi for vi in g.input if tensor_type(vi) and tensor_type(vi).HasField("shape") and vi.name not in init]
        if not sites:
            return None
        tensor_type(rng.choice(sites)).ClearField("shape")
    elif what == "value-info-shape" and g.value_info:
        sites = [vi for vi in g.value_info if tensor_type(vi) and tensor_type(vi).HasField("shape")]
        if not sites:
            return None
        tensor_type(rng.choice(sites)).ClearField("shape")
    elif what == "value-info-twice" and g.value_info:
        g.value_info.append(copy.deepcopy(rng.choice(list(g.value_info))))
    else:
        return None
    return what


def wrap_loop(model, rng):
    """A main-graph node moved into the body of a Loop that runs once, its outputs
    taken from the Loop's scan outputs by a Squeeze of the leading axis (a valid
    model; at opset 13 or later, where Squeeze takes its axes as an input)."""
    g = model.graph
    if (opset(model) or 0) < 13:
        return None
    sites = [n for n in plain_nodes(g) if n.output and all(o for o in n.output)]
    if not sites:
        return None
    n = rng.choice(sites)
    types = known_types(g)
    local = {o: fresh(model, o + "_body") for o in n.output}
    g.value_info.extend(helper.make_empty_tensor_value_info(x) for x in local.values())
    scanned = {o: fresh(model, o + "_scan") for o in n.output}
    g.value_info.extend(helper.make_empty_tensor_value_info(x) for x in scanned.values())
    it, cin, cout = fresh(model, "iter"), fresh(model, "cond_in"), fresh(model, "cond_out")
    g.value_info.extend(helper.make_empty_tensor_value_info(x) for x in (it, cin, cout))
    trip, cond, axes = fresh(model, "trip"), fresh(model, "cond"), fresh(model, "axes")
    keep = [vi for vi in g.value_info if vi.type.ByteSize()]
    del g.value_info[:]
    g.value_info.extend(keep)
    body_node = copy.deepcopy(n)
    body_node.name = ""
    for k, o in enumerate(body_node.output):
        body_node.output[k] = local[o]
    outs = [helper.make_tensor_value_info(cout, TensorProto.BOOL, [])]
    for o in n.output:
        vi = helper.make_empty_tensor_value_info(local[o])
        if o in types:
            vi.type.CopyFrom(types[o])
        outs.append(vi)
    body = helper.make_graph(
        [body_node, helper.make_node("Identity", [cin], [cout])], "loop_body",
        [helper.make_tensor_value_info(it, TensorProto.INT64, []), helper.make_tensor_value_info(cin, TensorProto.BOOL, [])],
        outs)
    k = list(g.node).index(n)
    g.node.remove(n)
    new = [helper.make_node("Constant", [], [trip], value=helper.make_tensor("", TensorProto.INT64, [], [1])),
           helper.make_node("Constant", [], [cond], value=helper.make_tensor("", TensorProto.BOOL, [], [True])),
           helper.make_node("Constant", [], [axes], value=helper.make_tensor("", TensorProto.INT64, [1], [0])),
           helper.make_node("Loop", [trip, cond], [scanned[o] for o in n.output], body=body)]
    new += [helper.make_node("Squeeze", [scanned[o], axes], [o]) for o in n.output]
    for m in reversed(new):
        g.node.insert(k, m)
    return n.op_type if len(n.output) == 1 else "%d-outputs" % len(n.output)


MUTATIONS = {
    "rename_use": rename_use,
    "rename_value": rename_value,
    "drop_node": drop_node,
    "drop_graph_input": drop_graph_input,
    "drop_graph_output": drop_graph_output,
    "drop_initializer": drop_initializer,
    "dup_output": dup_output,
    "dup_name_scope": dup_name_scope,
    "empty_name": empty_name,
    "swap_inputs": swap_inputs,
    "reorder_main": reorder_main,
    "unsort_subgraph": unsort_subgraph,
    "move_into_subgraph": move_into_subgraph,
    "outer_scope_return": outer_scope_return,
    "if_formal_inputs": if_formal_inputs,
    "subgraph_io": subgraph_io,
    "subgraph_initializer": subgraph_initializer,
    "elem_type_input": elem_type_input,
    "elem_type_output": elem_type_output,
    "elem_type_value_info": elem_type_value_info,
    "elem_type_initializer": elem_type_initializer,
    "cast_to": cast_to,
    "shrink_dim": shrink_dim,
    "grow_dim": grow_dim,
    "empty_dim": empty_dim,
    "negative_dim": negative_dim,
    "drop_dim": drop_dim,
    "symbolic_dim": symbolic_dim,
    "initializer_dims": initializer_dims,
    "opset_version": opset_version,
    "opset_drop": opset_drop,
    "opset_extra": opset_extra,
    "ir_version": ir_version,
    "drop_attr": drop_attr,
    "retype_attr": retype_attr,
    "attr_type_field": attr_type_field,
    "attr_value": attr_value,
    "add_attr": add_attr,
    "change_op": change_op,
    "change_domain": change_domain,
    "extra_input": extra_input,
    "extra_output": extra_output,
    "raw_and_typed": raw_and_typed,
    "constant_value": constant_value,
    "break_sparse": break_sparse,
    "function_signature": function_signature,
    "outline_function": outline_function,
    "wrap_if": wrap_if,
    "wrap_loop": wrap_loop,
    "to_sparse": to_sparse,
    "add_unused_input": add_unused_input,
    "drop_value_info": drop_value_info,
    "initializer_as_input": initializer_as_input,
    "output_forms": output_forms,
    "ref_attr_main": ref_attr_main,
    "sparse_dense_name": sparse_dense_name,
    "constant_form": constant_form,
    "dup_node_name": dup_node_name,
    "add_unused_initializer": add_unused_initializer,
    "add_dead_node": add_dead_node,
    "strip_types": strip_types,
}
TRANSFORMS = ["wrap_if", "wrap_loop", "outline_function", "to_sparse"]
# What each transform opens up: the mutations worth trying after it.
AFTER = {
    "wrap_if": ["unsort_subgraph", "outer_scope_return", "if_formal_inputs", "dup_name_scope",
                "move_into_subgraph", "subgraph_initializer", "rename_use", "empty_name", "drop_node"],
    "wrap_loop": ["subgraph_io", "outer_scope_return", "dup_name_scope", "move_into_subgraph", "subgraph_initializer",
                  "rename_use", "empty_name", "drop_node", "unsort_subgraph"],
    "outline_function": ["function_signature", "rename_use", "attr_value", "drop_attr", "attr_type_field"],
    "to_sparse": ["break_sparse", "ir_version", "elem_type_initializer"],
}


def mutate(model, rng, transform_rate=0.3):
    """Applies one mutation (after a transform, with probability transform_rate) to
    `model` in place. Returns (kind, detail), or None when nothing applied."""
    kinds = sorted(MUTATIONS)
    if rng.random() < transform_rate:
        t = rng.choice(TRANSFORMS)
        saved = model.SerializeToString()
        tdetail = MUTATIONS[t](model, rng)
        if tdetail is not None:
            after = list(AFTER[t])
            rng.shuffle(after)
            if rng.random() < 0.2:
                return t, tdetail
            for k in after:
                d = MUTATIONS[k](model, rng)
                if d is not None:
                    return "%s+%s" % (t, k), d
        model.ParseFromString(saved)
    rng.shuffle(kinds)
    for k in kinds:
        d = MUTATIONS[k](model, rng)
        if d is not None:
            return k, d
    return None
