/* codes.c: the table of diagnostic codes, and severity overrides.
 *
 * One row per code the library emits: its default severity, a one-line summary, a
 * paragraph of description and an example message copied from a real run. The text,
 * JSON and SARIF reports and the README's table all come from these rows (SARIF's
 * tool.driver.rules is printed from them; a test checks the README lists every code
 * with its severity). Codes are stable: a row may be added, never renamed.
 *
 * Invariant: every code passed to model_diag anywhere in the library has a row here
 * (a code without one still prints, but cannot be overridden and gets a generic SARIF
 * rule).
 */
#include "core/model.h"

#include <stdio.h>
#include <string.h>

static const osh_rule rules[] = {
	{"malformed-model", OSH_ERROR, "The file is not a well-formed ONNX model.",
	 "The loader's structural findings: a truncated or corrupt file, a missing graph or opset_import, an input no node produces, a cycle, a bad dimension, a tensor whose data does not fit its dims that a node reads (one nothing reads is a not-in-spec warning: ONNX Runtime drops it unread), an unsafe external-data path. Nothing else is checked in a malformed model, and check exits with status 2.",
	 "malformed_model.onnx: node 0 'relu' (Relu): error: input 'ghost' is not produced by any node, "
	 "graph input, initializer or outer scope [malformed-model]"},
	{"broadcast-mismatch", OSH_ERROR, "The inputs of a node cannot broadcast under its rule.",
	 "Two inputs meet a dimension where the sizes differ and neither is 1 (or the rule forbids "
	 "growth, or an axis does not fit). The message names both inputs and shapes, the rule "
	 "(numpy, unidirectional, pdpd, paddle, none), the dimension in PyTorch's words, and where "
	 "each offending size came from: the node that set it, followed back through operators that "
	 "pass shapes through unchanged.",
	 "broadcast_mismatch.onnx: node 3 'mul' (Mul): error: 'a' (2, 3, 4) and 'b' (2, 3, 6) do not "
	 "broadcast (numpy rule): the size of a (4) must match the size of b (6) at non-singleton "
	 "dimension 2; a's 4 comes from graph input 'x', then passed through 'relu_a' (Relu); b's 6 was "
	 "set by node 'reshape' (Reshape), then passed through 'relu_b' (Relu) [broadcast-mismatch]"},
	{"shape-conflict", OSH_ERROR, "A declared shape contradicts the inferred one.",
	 "A graph input, output or value_info declares a type or shape that inference proves wrong. Reported as an error when the element type or kind differs (ONNX Runtime refuses the model; the declaration is kept), as a warning when only the rank or sizes do (ONNX Runtime runs it, computing the sizes: the inferred ones are kept, and downstream shapes follow them).",
	 "shape_conflict.onnx: node 0 'relu' (Relu): warning: 'y' is declared FLOAT (2, 4) but inferred "
	 "(2, 3): dimension 1 is 3, declared 4 [shape-conflict]"},
	{"shape-error", OSH_ERROR, "An operator's inputs or attributes are invalid for it.",
	 "An axis out of range, a wrong number of inputs, a Reshape whose target does not fit the element count (or holds a 0 and a -1 over an empty product), dimension arithmetic that overflows, and values the file fixes that the kernel cannot run: a sequence position out of range of a sequence the graph builds, OptionalGetElement of an optional built empty, a Scan over a scan input of length 0; a Resize sizes of a rank other than 1 whose content the file does not fix, and a Resize scales of a known count other than X's rank (no axes): the node cannot run as written.",
	 "model.onnx: node 2 'softmax' (Softmax): error: Softmax axis 3 is out of range for rank 2 "
	 "(valid: -2 to 1) [shape-error]"},
	{"symbol-constraint", OSH_NOTE, "A fact learned about a symbolic dimension.",
	 "Broadcasting a symbolic size against a known one (or another symbol) is only valid for "
	 "some values of the symbol: the fact is reported once, at the first node that needs it, "
	 "and can be pinned with --assume. When facts contradict each other (a symbol must be 1 or "
	 "8 here but is 5 elsewhere) it is an error.",
	 "symbol_constraint.onnx: node 0 'add' (Add): note: 'N' must be 1 or 8 at node 'add': 'x' "
	 "(N, 3) and 'y' (8, 3) broadcast only then (numpy rule) [symbol-constraint]"},
	{"same-size-broadcast", OSH_WARNING, "Inputs of equal element count broadcast to a larger result.",
	 "The inputs hold the same number of elements in different shapes, and numpy broadcasting "
	 "makes the result larger: (4, 1) + (4,) is (4, 4), sixteen values where four were meant. "
	 "The classic converter bug (a dropped Squeeze or Reshape); legacy frameworks computed "
	 "these elementwise.",
	 "same_size_broadcast.onnx: node 0 'add' (Add): warning: 'pred' (4, 1) and 'target' (4,) hold "
	 "4 elements each but broadcast to (4, 4), 16 elements: numpy aligns shapes on the right; if an "
	 "elementwise result was meant, reshape one to the other's shape [same-size-broadcast]"},
	{"outer-broadcast", OSH_WARNING, "The result has more elements than every input.",
	 "Each input is broadcast along a different axis, an outer product: (3, 1) * (1, 4) is "
	 "(3, 4). Intended sometimes (masks, position grids), a bug often.",
	 "outer_broadcast.onnx: node 0 'mul' (Mul): warning: 'col' (3, 1) and 'row' (1, 4) broadcast "
	 "to (3, 4): 12 elements, more than any input has (at most 4): an outer product "
	 "[outer-broadcast]"},
	{"legacy-broadcast-attr", OSH_WARNING, "broadcast/axis attributes on an elementwise node of opset 7 or later.",
	 "Opset 7 removed the broadcast and axis attributes of Add, Sub, Mul, Div, Pow, And, Or, Xor, "
	 "Equal, Greater and Less: numpy broadcasting applies. Runtimes reject such a node or ignore "
	 "the attributes and silently broadcast the numpy way, which is not what axis meant. A "
	 "rewrite drops them (reshaping the second input where axis placed it).",
	 "legacy_broadcast_attr.onnx: node 0 'add' (Add): warning: attributes 'broadcast' and 'axis' "
	 "are not part of Add since opset 7 (the model imports opset 13): runtimes reject the node or "
	 "ignore them and broadcast the numpy way; read as pdpd broadcasting at axis 1, 'B' (3,) would "
	 "be reshaped to (3, 1, 1) [legacy-broadcast-attr]"},
	{"axis-broadcast", OSH_NOTE, "A node broadcasts by axis (Paddle or legacy ONNX), not numpy.",
	 "A Paddle elementwise_* operator (any domain but ai.onnx; the paddle rule: the lower-rank "
	 "input is placed at axis, then numpy both ways) or an ONNX node of opset 6 or earlier with "
	 "broadcast=1 (the strict pdpd rule). The note says which rule applies and the reshape that "
	 "makes numpy broadcasting compute the same thing.",
	 "axis_broadcast_paddle.onnx: node 0 'elementwise_add_0' (elementwise_add): note: paddle "
	 "rule: 'Y' (3,) is placed at axis 1 of 'X' (2, 3, 4, 5); with numpy broadcasting, 'Y' (3,) "
	 "would be reshaped to (3, 1, 1) [axis-broadcast]"},
	{"unknown-op", OSH_WARNING, "No shape rule for this operator and version.",
	 "The operator (or this version of it) has no shape rule: its outputs are unknown, and so is "
	 "everything computed from them unless a value_info declares it.",
	 "unknown_op.onnx: node 0 'frob' (Frobnicate): warning: no shape rule for com.example::Frobnicate "
	 "(opset 1): its outputs are unknown [unknown-op]"},
	{"dynamic-shape", OSH_ERROR, "A value's shape is not static (only with --static).",
	 "With check --static, every value whose shape is not fully known after --input-shape and "
	 "--assume: a symbolic or unknown dimension, or an unknown rank. Graph inputs first, then "
	 "graph outputs, then the other values of the main graph. Without --static it is silent.",
	 "dynamic_shape.onnx: error: graph input 'x' has shape (N, 3), not static: 'N' is symbolic "
	 "(give --input-shape or --assume) [dynamic-shape]"},
	{"rewrite-unsupported", OSH_ERROR, "A node that onnxshape rewrite cannot turn into standard ONNX.",
	 "Only reported by rewrite: the node broadcasts by axis but its shapes, attributes or types "
	 "do not allow a faithful numpy rewrite (an unknown rank, an axis that is not an integer, an "
	 "unsupported element type). Nothing is rewritten while such an error stands.",
	 "model.onnx: node 0 'add' (elementwise_add): error: cannot place 'Y' at axis 1 of 'X': the rank "
	 "of 'X' is unknown [rewrite-unsupported]"},
	{"attribute-not-in-version", OSH_WARNING, "Not reported any more (an attribute-error now); kept for --ignore.",
	 "No longer reported: an attribute the operator's schema at the model's opset does not define "
	 "is an attribute-error, since ONNX Runtime refuses such a node. The code stays so that "
	 "--ignore attribute-not-in-version keeps working.",
	 "model.onnx: node 0 'pool' (MaxPool): warning: 'dilations' is not an attribute of MaxPool at "
	 "opset 8 (it came in opset 10): runtimes differ on it, so what it would change is left unknown "
	 "[attribute-not-in-version]"},
	{"type-error", OSH_ERROR, "An input's type is not one its operator's schema allows.",
	 "Each input's type, as declared or inferred, is checked against its formal parameter in the operator's schema at the model's opset: the type constraint's list (Add-14's T has no int8 before opset 14), a literal type (Reshape's shape is int64), and the inputs bound to one type variable having one type (Add(float, int64)); an initializer defined again with another element type than the first; for ONNX Runtime's own LayerNormalization (before opset 17) and SimplifiedLayerNormalization, which ONNX has no schema of there, the schema ONNX Runtime holds them to (X, scale and B of float16, float, double or bfloat16, scale and B of one type). ONNX Runtime refuses such a model when it loads it.",
	 "model.onnx: node 0 'add' (Add): error: input 0 'a' (A) is tensor(int8), which Add-13 does not "
	 "take: T of Add is one of FLOAT, INT32, INT64, FLOAT16, DOUBLE, UINT32, UINT64, BFLOAT16 [type-error]"},
	{"arity-error", OSH_ERROR, "A node has more or fewer inputs or outputs than its operator takes.",
	 "The counts of the schema at the model's opset, and no input or output left empty ('') but an optional one: ONNX Runtime refuses an empty single parameter and fails on, or crashes at, an empty argument of a variadic one (Concat, Sum, Split's and Loop's outputs); inside a function body, an input the call leaves out is empty once ONNX Runtime inlines the body; in a function body (and its subgraphs), called or not, more inputs or outputs than the operator has at the function's own opset_import (ONNX Runtime makes the function a schema from its body there); Squeeze's optional axes listed as '' (its kernel then fails; but in a branch ONNX Runtime inlines, see not-in-spec). ONNX Runtime refuses the model; the node's shape rule still runs, quietly, for what it can tell.",
	 "model.onnx: node 0 'gemm' (Gemm): error: Gemm-13 takes 2 to 3 inputs, the node has 4 [arity-error]"},
	{"attribute-error", OSH_ERROR, "An attribute its operator does not have, or of the wrong type.",
	 "An attribute the schema at the model's opset does not list (ONNX Runtime's own LayerNormalization takes any: a not-in-spec warning), one given twice, one of another type than the schema's, one whose type field and value fields disagree (or that holds several), a required one missing (or, in a function body, referring to an attribute the call does not give, or one the call gives of another type or outside the documented values), a value outside the set the documentation enumerates and ONNX Runtime's kernel tests (auto_pad, Pad's, Resize's and GridSample's modes, Gelu's approximate, the recurrent operators' directions and activations, the ai.onnx.ml transforms..., and integer flags of 0 or 1: CumSum's, MaxPool's storage_order, Mod's fmod, NonMaxSuppression's center_point_box), a Cast saturate of 0 or a round_mode other than up for a target they do not apply to, a recurrent operator without hidden_size, RegexFullMatch without pattern, Split-18's num_outputs beside a split input listed as ''. A Constant of the main graph is held to ONNX Runtime's rule only: its first attribute must be one it makes a tensor of. ONNX Runtime refuses the model.",
	 "legacy_broadcast_attr.onnx: node 0 'add' (Add): error: 'axis' is not an attribute of Add-13 "
	 "(ai.onnx) [attribute-error]"},
	{"op-not-in-opset", OSH_ERROR, "An operator its domain does not define at the imported opset.",
	 "The node's operator does not exist in the operator set version the model imports for its domain (Gelu came in opset 20), or not at all. Only for the domains whose schemas are known: ai.onnx, ai.onnx.ml, ai.onnx.preview and ai.onnx.preview.training; the experimental operators ONNX removed in opset 10 (Crop, ImageScaler, Affine, Scale, ScaledTanh, ParametricSoftplus, DynamicSlice, and ThresholdedRelu and MeanVarianceNormalization before ONNX defined its own), which ONNX Runtime still runs up to opset 9, are not-in-spec warnings there.",
	 "model.onnx: node 0 'gelu' (Gelu): error: Gelu is not defined in opset 13 of ai.onnx: it came in "
	 "opset 20 [op-not-in-opset]"},
	{"graph-error", OSH_ERROR, "The graph breaks a rule ONNX Runtime checks when it loads it.",
	 "A graph input without a type (and no initializer), or without a name; an element type of 0; two nodes of one name (but a Constant, which ONNX Runtime makes an initializer first); an initializer whose shape contradicts the graph input of its name, or the first initializer of its name (a contradicting element type is a type-error); a graph without outputs; under IR version 3, an initializer not among the graph inputs that no node of the graph reads; a tensor holding both raw_data and typed data outside the main graph's initializers and Constants; a sparse tensor whose indices do not match its values or fall outside its dims (but for dims of no element, whose indices ONNX Runtime does not read: a not-in-spec warning); an unnamed initializer beside an omitted input, which ONNX Runtime then reads. ONNX Runtime refuses the model. Unlike malformed-model, the rest of the model is still checked.",
	 "model.onnx: node 1 'act' (Neg): error: "
	 "node name 'act' is taken by node 0 (Relu): ONNX Runtime refuses two nodes of one name [graph-error]"},
	{"opset-error", OSH_ERROR, "An opset or IR version the model cannot have.",
	 "An operator set version newer than any the schemas know (ai.onnx 28, ai.onnx.ml 5, the preview domains 1, com.microsoft and com.microsoft.nchwc 1), an IR version newer than any known (14), a node of a custom domain that no opset_import lists: ONNX Runtime refuses the model. Opsets the table knows but a given ONNX Runtime release does not run yet are not errors of the model (see docs/ARCHITECTURE.md).",
	 "model.onnx: error: "
	 "opset_import asks for ai.onnx version 99, newer than any released (the newest is 28) [opset-error]"},
	{"subgraph-error", OSH_ERROR, "An If, Loop or Scan body that does not fit its node.",
	 "If branches producing different numbers or element types of outputs, or an If branch declaring an input; a Loop or Scan body with the wrong number of inputs or outputs, or a body input declared with another type (or, for Scan, shape) than the node passes; a loop-carried value or scan state changing type; a Loop body condition that is not bool; scan inputs of different lengths (for Scan-8, batch sizes). And the rules of ONNX's checker, which ONNX Runtime runs on every subgraph and on the body of a function it inlines: a node output named as a value an enclosing graph defined already (SSA across nested graphs: ONNX Runtime checks the names its own order has defined before the node holding the subgraph, which are its graph's inputs and initializers, the main graph's Constants, the outputs of the nodes it reads from, and those of nodes fed by no other node but a Constant that it puts first; a name another node defines is a not-in-spec warning), a subgraph output that is an outer value returned as it is, nodes out of topological order, under IR version 3 an initializer not among the subgraph's inputs. ONNX Runtime refuses the model or fails to run it.",
	 "model.onnx: node 0 'if' (If): error: If's branches give output 0 ('Y') different types: FLOAT from "
	 "then_branch, INT64 from else_branch [subgraph-error]"},
	{"function-error", OSH_ERROR, "A model-local function that cannot be called as written.",
	 "A function body using a domain its own opset_import does not list, a call with more inputs or outputs than the function declares, a function whose domain the model does not import, a call to a function of a function domain that does not exist, a body reading a name that neither it nor the calling graph defines (ONNX Runtime inlines the body into the caller, where its free names are the caller's values). ONNX Runtime refuses the model.",
	 "model.onnx: node 0 'foo' (Foo): error: "
	 "calls function 'Foo' with 2 inputs: it declares 1 [function-error]"},
	{"not-in-spec", OSH_WARNING, "The spec forbids it; ONNX Runtime runs it.",
	 "What the ONNX specification forbids but ONNX Runtime loads and runs: kept apart from errors, so that --werror (or --error not-in-spec) can enforce the spec. Today: nodes of the main graph out of topological order; the default domain (or com.microsoft or com.microsoft.nchwc, or a domain the schemas know) used without an opset_import, resolved at its newest version; a domain imported twice, resolved at the last version as ONNX Runtime does; a function body whose own opset_import differs from the model's (ONNX Runtime resolves the inlined body at the model's); LayerNormalization before opset 17 and SimplifiedLayerNormalization, and the removed experimental operators up to opset 9 (ONNX Runtime has its own kernels of those names); a Constant of the main graph with attributes its version does not have, in another domain, or declared with another type (ONNX Runtime makes it an initializer from its first attribute); a ref_attr_name outside a function body (read as the attribute's own value); an initializer or function defined twice (the last is taken), an initializer without a name, a main-graph initializer holding both raw_data and typed data (raw_data is read), an initializer whose data does not fit its dims that nothing reads; a declared dimension below 0 (read as unknown); Range's start, limit or delta computed as a tensor of one element instead of a scalar (ONNX's own AffineGrid function body does it); a subgraph node output named like a value another node of an enclosing graph defines, where ONNX Runtime's order need not put that node first (see subgraph-error); a sparse tensor of no element with indices outside its dims; trailing empty inputs of a variadic operator (Max, Sum, Concat...) in a branch of an If whose condition the file fixes (ONNX Runtime inlines the branch without them); a window size (HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix's sizes) of one element in a tensor of rank above 0 that the file does not fix.",
	 "model.onnx: node 1 'range' (Range): warning: 'limit' (input 'n1') is (1,): the spec wants a scalar (ONNX Runtime runs a computed tensor of one element) [not-in-spec]"},
	{"deprecated", OSH_WARNING, "A deprecated operator version that a later one replaces.",
	 "A version the ONNX docs mark deprecated, that a later version replaces (GroupNormalization-18, replaced by 21): ONNX Runtime still runs it, and its signature is not checked (the docs give none). A deprecated operator that nothing replaces (Upsample from opset 10, Scatter from 11) is an op-not-in-opset error: ONNX Runtime refuses it.",
	 "model.onnx: node 0 (GroupNormalization): warning: GroupNormalization-18 is deprecated (GroupNormalization-21 replaces it): its signature is not checked [deprecated]"},
	{"implicit-broadcast", OSH_NOTE, "A node still broadcasts implicitly (only with --require-explicit).",
	 "Only with check --require-explicit, for deployment targets where every elementwise "
	 "operator must see inputs of identical shape (accelerators, DSP compilers, OpenVINO's "
	 "auto_broadcast=\"none\"): a node whose broadcasting inputs (the numpy family, Where, "
	 "Sum/Mean/Max/Min, PRelu's slope, Gemm's C, axis forms) do not all have its result shape. "
	 "\"may be\" when a symbol or an unknown size could hide it. rewrite --explicit-broadcast "
	 "inserts the Expand nodes that remove it.",
	 "shared_bias.onnx: node 0 'add_a' (Add): note: 'bias' (3, 1) is broadcast implicitly to "
	 "the result (2, 3, 4) (numpy rule); a target without implicit broadcasting needs it "
	 "expanded (rewrite --explicit-broadcast) [implicit-broadcast]"},
	{"no-kernel", OSH_ERROR, "ONNX Runtime's CPU provider has no kernel for this node (only under --runtime ort-cpu, the default of check).",
	 "The operator exists at the model's opset and the schema allows its types, but ONNX Runtime's CPU provider cannot run it: "
	 "it registers no kernel for that (operator, version, type binding) (\"Could not find an implementation\"), has no values of "
	 "the type at all (complex64), its own schema refuses the type, or it does not know the operator at that version "
	 "(the training operators). The message names the operator, its version, the types bound and those that would run. "
	 "Also a node of a domain no kernel table covers (not ai.onnx, ai.onnx.ml, the preview domains, com.microsoft or "
	 "com.microsoft.nchwc), which ONNX Runtime refuses unless a custom-op library registers it: declare those with "
	 "--custom-op DOMAIN or --custom-op DOMAIN::OP. The facts are ONNX Runtime's own answers to a one-node model per "
	 "schema row and type binding (src/core/schema/kernel_table.c); a type inference does not know is never held against "
	 "a node. --runtime spec turns the check off.",
	 "model.onnx: node 0 'relu' (Relu): error: Relu-14 has CPU kernels for float, int8, int32, float16, double; not "
	 "bfloat16 (onnxruntime 1.30.0) [no-kernel]"},
	{"runtime-attribute", OSH_ERROR, "An attribute ONNX Runtime refuses on this operator (only under --runtime ort-cpu, the default of check).",
	 "The specification defines the attribute, but the runtime refuses the node: either its copy of the operator's schema "
	 "predates the attribute (ONNX added it to that version later; the runtime says \"Unrecognized attribute\"), or its "
	 "CPU kernel does not implement that value (RNN, GRU and LSTM with layout=1). Both are the runtime's own answers "
	 "to a probe of every optional attribute of every schema row (src/core/schema/kernel_table.c). --runtime spec "
	 "turns the check off.",
	 "model.onnx: node 0 (GRU): error: GRU-14 with layout=1: the CPU kernel of onnxruntime 1.30.0 does not implement "
	 "it, and the runtime refuses the node when it loads the model [runtime-attribute]"},
	{"runtime-version", OSH_ERROR, "An opset or IR version newer than ONNX Runtime loads (only under --runtime ort-cpu, the default of check).",
	 "An opset_import of a domain past the newest version the runtime loads (ONNX Runtime 1.30: ai.onnx 26, ai.onnx.ml 5), "
	 "or an ir_version past its newest (13): the runtime refuses the whole model, though the specification defines it. "
	 "--runtime spec turns the check off.",
	 "model.onnx: error: opset_import asks for ai.onnx version 27; onnxruntime 1.30.0 runs it up to version 26 "
	 "[runtime-version]"},
};
const osh_rule *codes_table(size_t *n)
{
	if (n)
		*n = sizeof rules / sizeof rules[0];
	return rules;
}

const osh_rule *code_find(const char *code)
{
	for (size_t i = 0; code && i < sizeof rules / sizeof rules[0]; i++)
		if (!strcmp(rules[i].code, code))
			return &rules[i];
	return NULL;
}

osh_status codes_override_severities(osh_model *m, const osh_severity_override *o, size_t n, osh_error *err)
{
	if (!m || (n && !o)) {
		if (err) {
			err->status = OSH_ERR_INVALID;
			snprintf(err->message, sizeof err->message, "osh_model_override_severities: %s is NULL",
				 m ? "the list of overrides" : "the model");
		}
		return OSH_ERR_INVALID;
	}
	/* The lint's diagnostics are not there yet: overriding them later is not possible
	 * from here (core runs no pass), and leaving them out would be silent. */
	if (m->pending.lint) {
		if (err) {
			err->status = OSH_ERR_INVALID;
			snprintf(err->message, sizeof err->message,
				 "%s: the lint was left for the write (osh_infer_lint_later): run osh_lint before overriding severities", m->path);
		}
		return OSH_ERR_INVALID;
	}
	for (size_t i = 0; i < n; i++) {
		int sev = (int)o[i].severity;
		const char *why = NULL;
		if (!o[i].code || !code_find(o[i].code))
			why = "is not a diagnostic code";
		else if (!strcmp(o[i].code, "malformed-model"))
			why = "cannot be overridden";
		else if (!o[i].ignore && (sev < (int)OSH_NOTE || sev > (int)OSH_ERROR))
			why = "is given a severity that osh_severity does not name";
		if (why) {
			if (err) {
				err->status = OSH_ERR_INVALID;
				snprintf(err->message, sizeof err->message, "'%s' %s", o[i].code ? o[i].code : "(null)",
					 why);
			}
			return OSH_ERR_INVALID;
		}
	}
	size_t kept = 0;
	bool errors = false;
	for (size_t k = 0; k < m->ndiags; k++) {
		osh_diag d = m->diags[k];
		bool drop = false;
		/* Last match wins, as with compiler flags. */
		for (size_t i = 0; i < n; i++) {
			if (strcmp(o[i].code, d.code))
				continue;
			drop = o[i].ignore;
			if (!drop)
				d.severity = o[i].severity;
		}
		if (drop)
			continue;
		errors |= d.severity == OSH_ERROR;
		m->diags[kept++] = d;
	}
	m->ndiags = kept;
	m->has_errors = errors || m->malformed;
	return OSH_OK;
}
