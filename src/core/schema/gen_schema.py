#!/usr/bin/env python3
"""gen_schema.py: writes schema_table.c, the operator schemas of the ONNX documentation.

    python3 src/core/schema/gen_schema.py CHANGELOG.md CHANGELOG-ML.md [OUT.c]

reads the ONNX operator changelogs (onnx/docs/Changelog.md and Changelog-ml.md, as
onnx's gen_doc.py writes them) and writes one row per "### <a name=...>" section:
(domain, op_type, since_version), formal inputs and outputs, attributes, type
constraints, deprecation and the operator's properties, as schema.h declares them.
With OUT.c it also writes schema_ids.h beside it: each row's index, named, so that
another table can name a row at compile time. Standard library only.

The parser is strict on purpose: a line inside a section it does not recognise, a
type it cannot represent, a count that disagrees with the documentation's own
"(min - max)" or a section that yields no row stops it with the file and line, so a
new documentation format shows up as a failure, never as a silently missing rule.
"""

import io
import os
import re
import sys

# onnx.TensorProto.DataType, spelled as the documentation spells element types; the
# table names them by core/dtype.h's DT_ constants.
ELEM_TYPES = {
    "float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
    "int64": 7, "string": 8, "bool": 9, "float16": 10, "double": 11, "uint32": 12,
    "uint64": 13, "complex64": 14, "complex128": 15, "bfloat16": 16,
    "float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20,
    "uint4": 21, "int4": 22, "float4e2m1": 23, "float8e8m0": 24, "uint2": 25, "int2": 26,
}

# gen_doc.py writes an attribute type as the AttrType name in lower case, "list of"
# before the plural ones; the table names them by core/model.h's AT_ constants.
ATTR_TYPES = {
    "float": "AT_FLOAT", "int": "AT_INT", "string": "AT_STRING", "tensor": "AT_TENSOR",
    "graph": "AT_GRAPH", "list of floats": "AT_FLOATS", "list of ints": "AT_INTS",
    "list of strings": "AT_STRINGS", "list of tensors": "AT_TENSORS",
    "list of graphs": "AT_GRAPHS", "sparse_tensor": "AT_SPARSE_TENSOR",
    "list of sparse_tensors": "AT_SPARSE_TENSORS", "type_proto": "AT_TYPE_PROTO",
    "list of type_protos": "AT_TYPE_PROTOS",
}

# Map key types the documentation uses (their values may be any type below).
MAP_KEYS = {"string", "int64", "int32"}

MAX_ARITY = "INT32_MAX"


class DocError(Exception):
    pass


class Row:
    def __init__(self, domain, op_type, since, where):
        self.domain = domain
        self.op_type = op_type
        self.since = since
        self.where = where
        self.deprecated = 0
        self.version_seen = False
        self.inputs = None      # list of params, None until its heading is read
        self.outputs = None
        self.in_range = None    # (min, max) from "Inputs (min - max)", else None
        self.out_range = None
        self.attrs = None
        self.constraints = None  # list of (var, types)
        self.min_in = self.max_in = self.min_out = self.max_out = 0
        self.broadcast = "SCH_BCAST_NONE"  # from the description's own words
        self.shape = "SCH_SHAPE_RULE"      # SAME_SHAPE below
        self.pure = True                   # derive_pure below
        self.view = False                  # VIEWS below


class Types:
    """A set of types: sch_types' masks."""

    FIELDS = ("tensor", "sparse", "seq", "opt_tensor", "opt_seq")

    def __init__(self):
        self.masks = {f: 0 for f in self.FIELDS}
        self.map = False
        self.seq_map = False

    def add(self, other):
        for f in self.FIELDS:
            self.masks[f] |= other.masks[f]
        self.map |= other.map
        self.seq_map |= other.seq_map


def fail(where, msg):
    raise DocError("%s: %s" % (where, msg))


def split_top(text, where):
    """Splits "a(b, c), d" at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                fail(where, "unbalanced parentheses in %r" % text)
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        fail(where, "unbalanced parentheses in %r" % text)
    parts.append(text[start:].strip())
    return parts


def unwrap(text, ctor):
    """The argument of ctor(...) when text is exactly that, else None."""
    if text.startswith(ctor + "(") and text.endswith(")"):
        return text[len(ctor) + 1:-1]
    return None


def elem_bit(name, where):
    if name not in ELEM_TYPES:
        fail(where, "unknown element type %r" % name)
    return 1 << ELEM_TYPES[name]


def is_type_term(text):
    return re.match(r"^(tensor|sparse_tensor|seq|optional|map)\(", text) is not None


def parse_type(text, where):
    """One type term (tensor(float), seq(tensor(int64)), map(string, float), ...)."""
    t = Types()
    arg = unwrap(text, "tensor")
    if arg is not None:
        t.masks["tensor"] |= elem_bit(arg, where)
        return t
    arg = unwrap(text, "sparse_tensor")
    if arg is not None:
        t.masks["sparse"] |= elem_bit(arg, where)
        return t
    arg = unwrap(text, "map")
    if arg is not None:
        parse_map(arg, where)
        t.map = True
        return t
    arg = unwrap(text, "seq")
    if arg is not None:
        inner = unwrap(arg, "tensor")
        if inner is not None:
            t.masks["seq"] |= elem_bit(inner, where)
            return t
        inner = unwrap(arg, "map")
        if inner is not None:
            parse_map(inner, where)
            t.seq_map = True
            return t
        fail(where, "cannot represent %r (a sequence of something other than tensors or maps)" % text)
    arg = unwrap(text, "optional")
    if arg is not None:
        inner = unwrap(arg, "tensor")
        if inner is not None:
            t.masks["opt_tensor"] |= elem_bit(inner, where)
            return t
        inner = unwrap(arg, "seq")
        inner = unwrap(inner, "tensor") if inner is not None else None
        if inner is not None:
            t.masks["opt_seq"] |= elem_bit(inner, where)
            return t
        fail(where, "cannot represent %r (an optional of something other than tensor or seq(tensor))" % text)
    fail(where, "cannot represent the type %r" % text)


def parse_map(arg, where):
    """Checks map(K, V); the table keeps only "some map" (sch_types.map)."""
    kv = split_top(arg, where)
    if len(kv) != 2 or kv[0] not in MAP_KEYS:
        fail(where, "cannot represent map(%s)" % arg)
    value = kv[1]
    if value in ELEM_TYPES:
        return
    parse_type(value, where)


def parse_type_list(text, where):
    types = Types()
    for term in split_top(text, where):
        types.add(parse_type(term, where))
    return types


RE_OPSET = re.compile(r"^## Version (\d+) of (?:the default ONNX|the '([a-z.]+)') operator set$")
RE_OP = re.compile(r'^### <a name="([A-Za-z0-9_.]+)-(\d+)"></a>\*\*([A-Za-z0-9_.]+)-(\d+)\*\*( \(deprecated\))?</a>$')
RE_SINCE = re.compile(r"^This version of the operator has been (available|deprecated) since version (\d+) of "
                      r"(?:the default ONNX|the '([a-z.]+)') operator set\.$")
RE_SECTION = re.compile(r"^#### (Inputs|Outputs)(?: \((\d+) - (\d+|&#8734;)\))?$")
RE_DT = re.compile(r"^<dt><tt>([A-Za-z0-9_.]+)</tt>(?: \(([a-z, -]+)\))? : (.+)</dt>$")
RE_ATTR = re.compile(r"^(.+?)(?: \((required)\)| \(default is (.*)\))?$")
EXPERIMENTAL = "No versioning maintained for experimental ops."
# How the description says an operator broadcasts (Broadcasting.md's two kinds).
RE_MULTI = re.compile(r"multidirectional \(i\.e\., Numpy-style\) broadcasting")
RE_UNI = re.compile(r"\b[Uu]nidirectional\b.*broadcast")


def read_dl(lines, i, where_of):
    """The <dt> lines of the <dl> block after a "####" heading at lines[i - 1], and the
    index after it. A heading with nothing under it (no inputs) gives []."""
    n = len(lines)
    while i < n and lines[i] == "":
        i += 1
    if i < n and lines[i] != "<dl>" and not lines[i].startswith("#"):
        fail(where_of(i), "expected a <dl> or the next heading, not %r" % lines[i])
    if i >= n or lines[i] != "<dl>":
        return [], i
    i += 1
    dts = []
    while True:
        if i >= n:
            fail(where_of(i), "unterminated <dl>")
        line = lines[i]
        if line == "</dl>":
            return dts, i + 1
        if line.startswith("<dt>"):
            dts.append((where_of(i), line))
            i += 1
        elif line.startswith("<dd>"):
            # A description may run over several lines, blank ones included.
            while "</dd>" not in lines[i]:
                i += 1
                if i >= n or lines[i].startswith(("<dt>", "</dl>", "#")):
                    fail(where_of(i), "unterminated <dd>")
            i += 1
        else:
            fail(where_of(i), "unexpected line in a <dl>: %r" % line)


def parse_params(dts):
    params = []
    for where, line in dts:
        m = RE_DT.match(line)
        if not m:
            fail(where, "cannot read the formal parameter %r" % line)
        name, opts, ty = m.group(1), m.group(2), m.group(3)
        option, hetero = "SCH_SINGLE", False
        words = [w.strip() for w in opts.split(",")] if opts else []
        rest = []
        if words[:1] == ["optional"]:
            option, rest = "SCH_OPTIONAL", words[1:]
        elif words[:2] == ["variadic", "heterogeneous"]:
            option, hetero, rest = "SCH_VARIADIC", True, words[2:]
        elif words[:1] == ["variadic"]:
            option, rest = "SCH_VARIADIC", words[1:]
        else:
            rest = words
        if rest not in ([], ["differentiable"], ["non-differentiable"]):
            fail(where, "unknown parameter options (%s)" % opts)
        if is_type_term(ty):
            var, types = None, parse_type_list(ty, where)
            if len(split_top(ty, where)) != 1:
                fail(where, "a formal parameter with several literal types: %r" % ty)
        elif re.match(r"^[A-Za-z][A-Za-z0-9_]*$", ty):
            var, types = ty, None
        else:
            fail(where, "cannot read the type %r" % ty)
        params.append({"name": name, "option": option, "hetero": hetero, "var": var,
                       "types": types, "where": where, "min_arity": 0})
    return params


def parse_attrs(dts):
    attrs = []
    for where, line in dts:
        m = RE_DT.match(line)
        if not m or m.group(2) is not None:
            fail(where, "cannot read the attribute %r" % line)
        name, spec = m.group(1), m.group(3)
        a = RE_ATTR.match(spec)
        ty, required, default = a.group(1), a.group(2) is not None, a.group(3)
        if ty not in ATTR_TYPES:
            fail(where, "unknown attribute type %r" % ty)
        attrs.append({"name": name, "type": ATTR_TYPES[ty], "required": required,
                      "default": default})
    return attrs


def parse_constraints(dts):
    out = []
    for where, line in dts:
        m = RE_DT.match(line)
        if not m or m.group(2) is not None:
            fail(where, "cannot read the type constraint %r" % line)
        if any(var == m.group(1) for var, _ in out):
            fail(where, "type variable %s declared twice" % m.group(1))
        out.append((m.group(1), parse_type_list(m.group(3), where)))
    return out


def arity(params, doc_range, where, what):
    """(min, max) as onnx's OpSchema::Finalize counts them, checked against the
    documentation's "(min - max)"; sets a trailing variadic's min_arity from it."""
    lo = hi = 0
    for k, p in enumerate(params):
        if p["option"] == "SCH_SINGLE":
            hi += 1
            lo = hi
        elif p["option"] == "SCH_OPTIONAL":
            hi += 1
        else:
            if k != len(params) - 1:
                fail(p["where"], "a variadic %s that is not the last" % what)
            if doc_range is None:
                fail(p["where"], "a variadic %s without a documented (min - max)" % what)
            p["min_arity"] = doc_range[0] - hi
            if p["min_arity"] < 0 or p["min_arity"] > 255:
                fail(p["where"], "variadic %s: %s - %d formal parameters before it is no arity"
                     % (what, doc_range[0], hi))
            lo = doc_range[0]
            hi = MAX_ARITY
    if doc_range is None:
        if lo != hi:
            fail(where, "%s: %d to %d arguments, but no (min - max) in the documentation" % (what, lo, hi))
    elif (lo, hi) != doc_range:
        fail(where, "%s: counted (%s - %s), documented (%s - %s)" % (what, lo, hi, doc_range[0], doc_range[1]))
    return lo, hi


def parse_file(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")

    def where_of(i):
        return "%s:%d" % (path, i + 1)

    rows, sections = [], []   # sections: (domain, opset, rows in it)
    domain = opset = None
    row = None
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        where = where_of(i)
        if line.startswith("## "):
            m = RE_OPSET.match(line)
            if m:
                domain, opset = m.group(2) or "", int(m.group(1))
                sections.append([domain, opset, 0, where])
            elif line != "## Operator Changelog":
                fail(where, "unknown operator set heading %r" % line)
            row = None
        elif line.startswith("### "):
            m = RE_OP.match(line)
            if not m:
                fail(where, "cannot read the operator heading %r" % line)
            if opset is None:
                fail(where, "an operator outside any operator set section")
            if m.group(1) != m.group(3) or m.group(2) != m.group(4):
                fail(where, "anchor and title disagree: %r" % line)
            full, since = m.group(1), int(m.group(2))
            prefix = domain + "." if domain else ""
            if not full.startswith(prefix) or "." in full[len(prefix):]:
                fail(where, "operator %s is not in domain %r" % (full, domain))
            if since != opset:
                fail(where, "%s in the section of version %d" % (full, opset))
            row = Row(domain, full[len(prefix):], since, where)
            if m.group(5):
                row.deprecated = since
            rows.append(row)
            sections[-1][2] += 1
        elif line.startswith("####"):
            if row is None:
                fail(where, "a %r heading outside an operator" % line)
            if line == "#### Version":
                if row.version_seen:
                    fail(where, "a second Version section")
                j = i + 1
                while j < n and lines[j] == "":
                    j += 1
                text = lines[j] if j < n else ""
                m = RE_SINCE.match(text)
                if m:
                    if int(m.group(2)) != row.since or (m.group(3) or "") != row.domain:
                        fail(where_of(j), "version text disagrees with the heading: %r" % text)
                    if (m.group(1) == "deprecated") != (row.deprecated != 0):
                        fail(where_of(j), "deprecation in the text and the heading disagree")
                elif text != EXPERIMENTAL:
                    fail(where_of(j), "cannot read the version %r" % text)
                row.version_seen = True
                i = j + 1
                continue
            if line == "#### Attributes":
                dts, i = read_dl(lines, i + 1, where_of)
                if row.attrs is not None:
                    fail(where, "a second Attributes section")
                row.attrs = parse_attrs(dts)
                continue
            if line == "#### Type Constraints":
                dts, i = read_dl(lines, i + 1, where_of)
                if row.constraints is not None:
                    fail(where, "a second Type Constraints section")
                row.constraints = parse_constraints(dts)
                continue
            m = RE_SECTION.match(line)
            if not m:
                fail(where, "unknown section %r" % line)
            rng = None
            if m.group(2) is not None:
                hi = MAX_ARITY if m.group(3) == "&#8734;" else int(m.group(3))
                rng = (int(m.group(2)), hi)
            dts, i = read_dl(lines, i + 1, where_of)
            params = parse_params(dts)
            if m.group(1) == "Inputs":
                if row.inputs is not None:
                    fail(where, "a second Inputs section")
                row.inputs, row.in_range = params, rng
            else:
                if row.outputs is not None:
                    fail(where, "a second Outputs section")
                row.outputs, row.out_range = params, rng
            continue
        elif line.startswith("<dt>") or line.startswith("<dl>"):
            fail(where, "a definition list outside a known section")
        elif row is not None and RE_MULTI.search(line):
            row.broadcast = "SCH_BCAST_MULTI"
        elif row is not None and RE_UNI.search(line):
            row.broadcast = "SCH_BCAST_UNI"
        elif line.startswith("# "):
            row = None
        i += 1

    for dom, ver, count, where in sections:
        # schema_newest_opset takes the highest since_version of a domain: exact only
        # if every version section of the documentation has an operator.
        if count == 0:
            fail(where, "operator set %r version %d has no operators" % (dom, ver))
    for r in rows:
        finish(r)
    return rows


def finish(r):
    """Checks a row's sections against each other; fills counts and indices."""
    if not r.version_seen:
        fail(r.where, "no Version section")
    if r.deprecated:
        if any(x is not None for x in (r.inputs, r.outputs, r.attrs, r.constraints)):
            fail(r.where, "a deprecated operator with a signature")
        r.inputs, r.outputs, r.attrs, r.constraints = [], [], [], []
        return
    if r.inputs is None or r.outputs is None or r.constraints is None:
        fail(r.where, "missing Inputs, Outputs or Type Constraints")
    if r.attrs is None:
        r.attrs = []
    names = [var for var, _ in r.constraints]
    for p in r.inputs + r.outputs:
        if p["var"] is None:
            p["index"] = -1
        elif p["var"] in names:
            p["index"] = names.index(p["var"])
        else:
            fail(p["where"], "type variable %s has no constraint" % p["var"])
    r.min_in, r.max_in = arity(r.inputs, r.in_range, r.where, "inputs")
    r.min_out, r.max_out = arity(r.outputs, r.out_range, r.where, "outputs")
    for what, seq, cap in (("inputs", r.inputs, 255), ("outputs", r.outputs, 255),
                           ("attributes", r.attrs, 255), ("constraints", r.constraints, 127)):
        if len(seq) > cap:
            fail(r.where, "too many %s for the table's counters" % what)


# ---- Writing the C table ----------------------------------------------------------

DT_NAMES = {v: k.upper() for k, v in ELEM_TYPES.items()}


def c_str(s):
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            fail("(output)", "non-ASCII or control character in %r" % s)
    out.append('"')
    return "".join(out)


def c_mask(mask):
    bits = [DT_NAMES[k] for k in sorted(DT_NAMES) if mask & (1 << k)]
    return " | ".join("E(%s)" % b for b in bits)


def c_types(t):
    parts = [".%s = %s" % (f, c_mask(t.masks[f])) for f in Types.FIELDS if t.masks[f]]
    if t.map:
        parts.append(".map = true")
    if t.seq_map:
        parts.append(".seq_map = true")
    if not parts:
        fail("(output)", "an empty type set")
    return "{" + ", ".join(parts) + "}"


def ident(r):
    dom = re.sub(r"[^A-Za-z0-9]", "_", r.domain or "ai.onnx")
    return "%s__%s_%d" % (dom, r.op_type, r.since)


def c_param(p):
    fields = [".name = %s" % c_str(p["name"]), ".constraint = %d" % p["index"]]
    if p["option"] != "SCH_SINGLE":
        fields.append(".option = %s" % p["option"])
    if p["hetero"]:
        fields.append(".heterogeneous = true")
    if p["option"] == "SCH_VARIADIC":
        fields.append(".min_arity = %d" % p["min_arity"])
    if p["types"] is not None:
        fields.append(".types = %s" % c_types(p["types"]))
    return "\t{" + ", ".join(fields) + "},"


def c_attr(a):
    fields = [".name = %s" % c_str(a["name"]), ".type = %s" % a["type"]]
    if a["required"]:
        fields.append(".required = true")
    if a["default"] is not None:
        fields.append(".default_text = %s" % c_str(a["default"]))
    return "\t{" + ", ".join(fields) + "},"


HEADER = """\
/* schema_table.c: GENERATED by gen_schema.py from the ONNX documentation; do not edit.
 *
 *   python3 src/core/schema/gen_schema.py ../shared/reference/onnx/Changelog.md \\
 *       ../shared/reference/onnx/Changelog-ml.md src/core/schema/schema_table.c
 *
 * One row per operator version of Changelog.md and Changelog-ml.md, sorted by
 * (domain, op_type, since) in strcmp order, which schema.c's binary search relies on;
 * schema_ids.h, written with it, names each row's index. The test schema/up-to-date
 * regenerates both files and compares.
 */
#include "core/schema/schema.h"

#include "core/dtype.h"
#include "core/model.h"
#include "core/schema/schema_ids.h"

#define E(t) (UINT64_C(1) << DT_##t)
"""


def ref(name, items, suffix):
    """The array of a row's items, NULL when it has none (C has no empty arrays)."""
    return "%s_%s" % (name, suffix) if items else "NULL"


def sort_rows(rows):
    rows = sorted(rows, key=lambda r: (r.domain.encode(), r.op_type.encode(), r.since))
    seen = set()
    for r in rows:
        key = (r.domain, r.op_type, r.since)
        if key in seen:
            fail(r.where, "%s-%d defined twice" % (r.op_type, r.since))
        seen.add(key)
    return rows


IDS_HEADER = """\
/* schema_ids.h: GENERATED by gen_schema.py beside schema_table.c; do not edit.
 *
 * The index of every row of schema_table.c, named SCH_<domain>__<op_type>_<since>
 * (the domain's dots as underscores, ai.onnx for ""), so that a table outside core
 * names a schema row at compile time (rule_table.c attaches the shape rules so): a
 * name that is no row does not compile. schema_table.c asserts that the counts agree.
 */
#ifndef OSH_CORE_SCHEMA_IDS_H
#define OSH_CORE_SCHEMA_IDS_H

enum sch_id {
"""


def write_ids(rows, out):
    out.write(IDS_HEADER)
    for r in rows:
        out.write("\tSCH_%s,\n" % ident(r))
    out.write("\tSCH_NROWS\n};\n\n#endif\n")


def write_table(rows, out):
    out.write(HEADER)
    for r in rows:
        name = ident(r)
        for suffix, items, render, ctype in (
                ("in", r.inputs, c_param, "sch_param"),
                ("out", r.outputs, c_param, "sch_param"),
                ("attr", r.attrs, c_attr, "sch_attr")):
            if items:
                out.write("\nstatic const %s %s_%s[] = {\n" % (ctype, name, suffix))
                out.write("".join(render(x) + "\n" for x in items))
                out.write("};\n")
        if r.constraints:
            out.write("\nstatic const sch_constraint %s_tc[] = {\n" % name)
            for var, types in r.constraints:
                out.write("\t{%s, %s},\n" % (c_str(var), c_types(types)))
            out.write("};\n")
    out.write("\nstatic const sch_row rows[] = {\n")
    for r in rows:
        name = ident(r)
        out.write("\t{%s, %s, %d, %d, %s, %s, %s, %s,\n" % (
            c_str(r.domain), c_str(r.op_type), r.since, r.deprecated,
            r.min_in, r.max_in, r.min_out, r.max_out))
        out.write("\t %s, %s, %s, %s, %d, %d, %d, %d, %s,\n" % (
            ref(name, r.inputs, "in"), ref(name, r.outputs, "out"), ref(name, r.attrs, "attr"),
            ref(name, r.constraints, "tc"), len(r.inputs), len(r.outputs), len(r.attrs),
            len(r.constraints), r.broadcast))
        out.write("\t %s, %s, %s},\n" % (r.shape, "true" if r.pure else "false", "true" if r.view else "false"))
    out.write("};\n\n")
    out.write("_Static_assert(sizeof rows / sizeof rows[0] == SCH_NROWS, \"schema_ids.h names every row\");\n\n")
    out.write("const sch_row *schema_rows(int32_t *n)\n{\n"
              "\t*n = (int32_t)(sizeof rows / sizeof rows[0]);\n"
              "\treturn rows;\n}\n")


# What onnx's own node-test corpus (onnx 1.23.1, ../shared/data) uses and the
# documentation does not list: operator versions widened in place in onnx's sources
# without a new version. Each is added to its row, so that no model of that corpus is
# refused; each names the corpus tests that show it. A row or a name that is not
# there is an error, as anything else the generator does not understand.
AMENDMENTS = [
    # (domain, op_type, since, "types", variable, added types, corpus tests)
    ("", "BitShift", 11, "types", "T", "tensor(int8), tensor(int16), tensor(int32), tensor(int64)",
     "test_bitshift_{left,right}_int*"),
    ("", "Compress", 11, "types", "T", "tensor(bfloat16)", "test_compress_bfloat16"),
    ("", "Einsum", 12, "types", "T", "tensor(bfloat16)", "test_einsum_*_bfloat16"),
    ("", "OneHot", 11, "types", "T3", "tensor(bfloat16)", "test_onehot_with_bfloat16_values"),
    ("", "ReverseSequence", 10, "types", "T", "tensor(bfloat16)", "test_reversesequence_bfloat16"),
    ("", "Unique", 11, "types", "T", "tensor(bfloat16)", "test_unique_bfloat16_sorted_without_axis"),
    # (domain, op_type, since, "attr", name, (type, default), corpus tests)
    ("", "SpaceToDepth", 13, "attr", "mode", ("string", "DCR"), "test_spacetodepth_{crd,dcr}_mode_example"),
]


def amend(rows):
    by_key = {(r.domain, r.op_type, r.since): r for r in rows}
    for domain, op, since, kind, name, what, _tests in AMENDMENTS:
        where = "AMENDMENTS %s-%d" % (op, since)
        r = by_key.get((domain, op, since))
        if r is None or r.deprecated:
            fail(where, "no such row")
        if kind == "types":
            for var, types in r.constraints:
                if var == name:
                    types.add(parse_type_list(what, where))
                    break
            else:
                fail(where, "no type variable %s" % name)
        elif kind == "attr":
            if any(a["name"] == name for a in r.attrs):
                fail(where, "attribute %s is documented already" % name)
            r.attrs.append({"name": name, "type": ATTR_TYPES[what[0]], "required": False, "default": what[1]})
        else:
            fail(where, "unknown kind %r" % kind)


# Operators whose output 0 has input 0's shape in every version (elementwise unary
# operators, normalisations, activations, Cast, Identity, Dropout): provenance.c
# follows a dimension through them. The documentation says so in words too varied to
# read ("same shape" also names the indices' shape, or If's branches), so they are
# listed; a name that is no operator of ai.onnx is an error.
SAME_SHAPE = [
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization",
    "BitwiseNot", "Cast", "CastLike", "Ceil", "Celu", "Clip", "Cos", "Cosh", "Dropout",
    "Elu", "Erf", "Exp", "Floor", "Gelu", "GroupNormalization", "HardSigmoid",
    "HardSwish", "Hardmax", "Identity", "InstanceNormalization", "IsInf", "IsNaN",
    "LayerNormalization", "LeakyRelu", "Log", "LogSoftmax", "LpNormalization",
    "MeanVarianceNormalization", "Mish", "Neg", "Not", "PRelu", "RMSNormalization",
    "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh",
    "Softmax", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu",
]


def mark_same_shape(rows):
    named = set()
    for r in rows:
        if r.domain == "" and r.op_type in SAME_SHAPE and not r.deprecated:
            r.shape = "SCH_SHAPE_SAME"
            named.add(r.op_type)
    for op in SAME_SHAPE:
        if op not in named:
            fail("SAME_SHAPE", "no operator %s in ai.onnx" % op)


# Operators whose output 0 holds input 0's elements, moved or converted and nothing
# else computed: the lint follows an operand back through them to see whether two
# operands are one tensor (mask_i * mask_j).
VIEWS = ["Cast", "Flatten", "Identity", "Reshape", "Squeeze", "Transpose", "Unsqueeze"]


def mark_views(rows):
    named = set()
    for r in rows:
        if r.domain == "" and r.op_type in VIEWS:
            r.view = True
            named.add(r.op_type)
    for op in VIEWS:
        if op not in named:
            fail("VIEWS", "no operator %s in ai.onnx" % op)


def derive_pure(rows):
    """An operator is pure (its outputs depend on its inputs and attributes alone, so
    a node nothing reads may go) unless some version of it takes a seed (RandomNormal,
    Bernoulli, Dropout's training mode...) or a graph, whose body may hold either."""
    impure = set()
    for r in rows:
        for a in r.attrs:
            if a["name"] == "seed" or a["type"] in ("AT_GRAPH", "AT_GRAPHS"):
                impure.add((r.domain, r.op_type))
    for r in rows:
        r.pure = (r.domain, r.op_type) not in impure


def inherit_broadcast(rows):
    """A version whose description no longer says how it broadcasts keeps what the
    version before it said (Mod-13 dropped Mod-10's sentence, not the behaviour)."""
    last = {}
    for r in sorted(rows, key=lambda r: (r.domain, r.op_type, r.since)):
        key = (r.domain, r.op_type)
        if r.broadcast == "SCH_BCAST_NONE" and not r.deprecated and key in last:
            r.broadcast = last[key]
        last[key] = r.broadcast


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: gen_schema.py Changelog.md Changelog-ml.md [OUT.c]\n")
        return 2
    try:
        rows = parse_file(argv[1]) + parse_file(argv[2])
        amend(rows)
        inherit_broadcast(rows)
        mark_same_shape(rows)
        mark_views(rows)
        derive_pure(rows)
        rows = sort_rows(rows)
        buf, ids = io.StringIO(), io.StringIO()
        write_table(rows, buf)
        write_ids(rows, ids)
    except (DocError, OSError) as e:
        sys.stderr.write("gen_schema.py: %s\n" % e)
        return 1
    if len(argv) == 4:
        with open(argv[3], "w", encoding="utf-8") as f:
            f.write(buf.getvalue())
        with open(os.path.join(os.path.dirname(argv[3]), "schema_ids.h"), "w", encoding="utf-8") as f:
            f.write(ids.getvalue())
    else:
        sys.stdout.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
