/* opset_node.h: what the opset conversion's adapters work on and with: the scratch
 * copy of one node (its operator, attributes, inputs and output count, as the
 * adapters leave them for the editing run to write back) and the kit they edit it
 * with (reading what inference knows of its inputs, setting attributes and inputs,
 * inserting the nodes and initializers a decomposition needs, refusing). Shared by
 * rewrite_opset.c (the steps, the walk, the fit check), opset_node.c (the kit) and
 * opset_decompose.c (newer operators expressed by older ones).
 *
 * Invariant: an adapter decides from the node's IR and the copy only, never from the
 * messages, so the planning and editing runs take the same decisions; the insert
 * helpers touch the messages only in the editing run.
 */
#ifndef OSH_PASSES_REWRITE_OPSET_NODE_H
#define OSH_PASSES_REWRITE_OPSET_NODE_H

#include "core/model.h"
#include "passes/rewrite/edit_kit.h"

typedef struct sattr {
	const char *name;
	attr_type type;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	int32_t n;
	bool set;  /* added or changed: written back */
	bool gone; /* removed */
} sattr;

typedef struct nstate {
	rw *r;
	graph *g;
	int32_t ni;
	const node *n;
	int64_t step; /* the since_version being taken */
	const char *op;
	bool op_set;
	sattr *attrs;
	int32_t nattrs, cap_attrs;
	const char **inputs;
	int32_t ninputs;
	bool inputs_set;
	int32_t noutputs;
	const char *base;
	bool down;      /* the target is below the model's opset */
	bool first_row; /* the step is the operator's first version (down: replacing it) */
	bool renamed;   /* the step made the node another operator, at that version */
	bool built;     /* the node became an operator built for the target (a decomposition) */
	bool adapted;   /* an adapter ran on it (walk) */
	char what[768];
	size_t wlen;
	bool changed, refused;
} nstate;

/* An adapter: false on OOM only; a refusal is s->refused. */
typedef bool (*adapt_fn)(nstate *s);

/* ---- the kit (opset_node.c) ------------------------------------------------------------ */

/* Adds to the node's change line (and marks the copy changed). */
void ns_note(nstate *s, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* A rewrite-unsupported error naming the node, the opsets and why; true (the
 * adapter's own result: it ran, the node is refused). */
bool ns_refuse(nstate *s, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* The copy's attribute name, NULL when it has none (or it was removed). */
sattr *ns_get(nstate *s, const char *name);
/* Removes attribute name where the copy has it (noted); false when it has none. */
bool ns_removed(nstate *s, const char *name);
/* A new (or replaced) attribute entry, marked for writing back. */
sattr *ns_put(nstate *s, const char *name, attr_type type);
/* ns_put of each type, with its value. False on OOM. */
bool ns_put_i(nstate *s, const char *name, int64_t v);
bool ns_put_ints(nstate *s, const char *name, const int64_t *v, int32_t n);
bool ns_put_floats(nstate *s, const char *name, const float *v, int32_t n);
bool ns_put_s(nstate *s, const char *name, const char *v);
/* Input k of the copy becomes name (the list grown as needed). False on OOM. */
bool ns_set_input(nstate *s, int32_t k, const char *name);
/* Input k's value: what inference knows about it, NULL when absent. */
const value *ns_input_value(nstate *s, int32_t k);
/* Whether output k is read by anything: a node, a subgraph, the graph's outputs. */
bool ns_output_used(nstate *s, int32_t k);
/* Keeps the first n outputs when the others are unused; refuses otherwise. */
bool ns_drop_outputs_after(nstate *s, int32_t n, const char *why);
/* An attribute turned into input k: a 1-D INT64 initializer. */
bool ns_ints_to_input(nstate *s, const char *attr, int32_t k, bool required);
/* The element type of input k, when inference knows it and initializers can hold it. */
int32_t ns_input_elem(nstate *s, int32_t k);
/* A scalar attribute turned into input k: a rank-0 initializer of input 0's type. */
bool ns_scalar_to_input(nstate *s, const char *attr, int32_t k, double v);
/* The dims of input k as inference knows them (symbols resolved); rank -1 when
 * unknown. At most 64 dims. */
int32_t ns_input_dims(nstate *s, int32_t k, dim *d);
/* Whether input k of the copy is absent (never given, or ""). */
bool ns_absent(nstate *s, int32_t k);
/* Drops input k and every absent one after the last present input. */
void ns_drop_input(nstate *s, int32_t k);
/* The integers input k holds, as inference knows them (an initializer, a Constant, a
 * computed shape): their count, or -1 when not all are known. At most max. */
int32_t ns_const_ints(nstate *s, int32_t k, int64_t *out, int32_t max);
/* The one floating-point value input k holds, when inference knows it. */
bool ns_const_float(nstate *s, int32_t k, double *out);
/* The name of input k of the copy, "" when absent. */
const char *ns_input_name(nstate *s, int32_t k);
/* Input k, a known constant list of integers, becomes attribute attr. */
bool ns_input_to_ints(nstate *s, int32_t k, const char *attr);
/* Input k, a known scalar, becomes the float attribute attr (absent: stays absent). */
bool ns_input_to_float(nstate *s, int32_t k, const char *attr);
/* A string or int attribute of the copy, dflt when it has none of that type. */
const char *ns_attr_s(nstate *s, const char *name, const char *dflt);
int64_t ns_attr_i(nstate *s, const char *name, int64_t dflt);
/* The rank of input 0 when inference knows it, else -1. */
int32_t ns_rank0(nstate *s);
/* An empty FLOAT initializer: Resize-11's roi or scales where it has none. */
bool ns_empty_floats(nstate *s, const char *role, const char **out);
/* A rank-0 constant of input 0's (floating) element type, for decompositions. */
bool ns_const_like(nstate *s, const char *role, double v, const char **out);
/* The node becomes op on inputs (a, b): the last node of a decomposition. */
bool ns_become(nstate *s, const char *op, const char *a, const char *b);
/* A node op on (a, b) (b NULL: a only) before this one, making *out. */
bool ns_ins2(nstate *s, const char *op, const char *role, const char *a, const char *b, const char **out);
/* A node before this one with attributes to set (np; NULL while planning). */
bool ns_insn(nstate *s, const char *op, const char *role, int32_t nin, const char *const *in, const char **out,
		 struct Onnx__NodeProto **np);
/* A node before this one that makes output k of this node, under its own name: how a
 * decomposition gives the outputs after the first (the node keeps output 0). */
bool ns_ins_output(nstate *s, const char *op, const char *role, int32_t k, int32_t nin, const char *const *in,
		       struct Onnx__NodeProto **np);
bool ns_ins_perm(nstate *s, const char *role, const char *x, const int64_t *perm, int32_t n, const char **out);
bool ns_ins_reshape(nstate *s, const char *role, const char *x, const int64_t *to, int32_t n, const char **out);
bool ns_ins_unsqueeze(nstate *s, const char *role, const char *x, const int64_t *axes, int32_t n, const char **out);
bool ns_ins_cast(nstate *s, const char *role, const char *x, int32_t to, const char **out);
/* Dim `axis` of x as an INT64 scalar, computed (Shape, Gather). */
bool ns_ins_dim(nstate *s, const char *role, const char *x, int64_t axis, const char **out);
/* 0, 1, ..., n - 1 for the INT64 scalar n (Range). */
bool ns_ins_iota(nstate *s, const char *role, const char *n, const char **out);
/* Slice of x along one axis, [start, end) by step. */
bool ns_ins_slice(nstate *s, const char *role, const char *x, int64_t start, int64_t end, int64_t axis, int64_t step,
		      const char **out);
/* An adapter for no direction, or an operator the target predates. */
bool ns_no_adapter(nstate *s);
/* A float attribute on a node rw_insert made (nothing while planning). */
bool ns_set_attr_f(nstate *s, struct Onnx__NodeProto *np, const char *name, float v);
/* A ReduceMean over axes, in the form of the target opset (an input from 18). */
bool ns_reduce_mean(nstate *s, const char *role, const char *x, const int64_t *axes, int32_t na, const char **out);

/* ---- decompositions (opset_decompose.c; Attention in opset_attention.c) ---------------- */

/* A Reduce operator of opset 18 with axes known only at run time, taken below 18:
 * through ReduceSum-13, which takes axes as an input (the sum of |x|, of x^2, its
 * square root or log, the mean as the sum over the count of x's elements it
 * reduced), or one axis at a time (reduce_by_axis). */
bool dn_reduce_axes_computed(nstate *s, bool *done);
/* Gelu (opset 20) before it: 0.5 x (1 + erf(x / sqrt 2)), or with approximate=tanh
 * 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), its own definition. */
bool dn_gelu(nstate *s);
/* LayerNormalization (opset 17) before it: (x - mean) / sqrt(var + epsilon) * scale
 * + B over the axes from `axis` on, its own definition, for float and double inputs
 * (stash_type computes those in their own precision); Mean and InvStdDev, where
 * used, are the ReduceMean and the reciprocal of the Sqrt. */
bool dn_layernorm(nstate *s);
/* RMSNormalization (opset 23) before it: x / sqrt(mean(x^2) + epsilon) * scale over
 * the axes from `axis` on, its definition, for float and double inputs. */
bool dn_rmsnorm(nstate *s);
/* CastLike (opset 15) before it: a Cast to the element type of its second input. */
bool dn_castlike(nstate *s);
/* HardSwish (opset 14) before it: x * HardSigmoid(x) with alpha 1/6, beta 0.5, its
 * definition. */
bool dn_hardswish(nstate *s);
/* Swish (opset 24): x * sigmoid(alpha x), its definition; before 24, and after it
 * too (ONNX Runtime runs Swish, by its function body, only in a model of opset 24). */
bool dn_swish(nstate *s);
/* Mish (opset 18) before it: x * tanh(softplus(x)), its definition. */
bool dn_mish(nstate *s);
/* GreaterOrEqual and LessOrEqual (opset 12) before it: Or of the strict comparison
 * and Equal (the same for NaN: both false), with Equal on floats from 11. */
bool dn_or_equal(nstate *s);
/* Trilu (opset 14) before it, where the last two dims and k are known: Where (And)
 * over a constant mask of the kept triangle, zero elsewhere (the definition). */
bool dn_trilu(nstate *s);
/* Attention (opset 23) before it, by its definition: the heads split (3-D inputs),
 * the past concatenated (present_key, present_value), kv heads repeated for grouped
 * queries, softmax(Q K^T * scale, softcapped, masked) V, and the heads merged back.
 * Masking: a float attn_mask is added; a boolean one, is_causal (query i sees key j
 * iff j <= i + past length) and nonpad_kv_seqlen (keys from it on are padding; the
 * causal offset then nonpad_kv_seqlen - q length) block with -inf, and a row every key
 * of which is blocked is zero, not NaN, as the operator says. float16 is computed in
 * float (as the runtime does), the outputs cast back. */
bool dn_attention(nstate *s);
/* Attention-24 added nonpad_kv_seqlen: a node that gives it is decomposed (the
 * padding becomes part of the mask), others are Attention-23 as they are. */
bool dn_attention24(nstate *s);
/* CumProd (opset 26) before it, where the dims along the axis are known: the
 * products slice by slice (cumprod_along). An axis known only at run time takes the
 * product along every axis it may be and selects (Equal, Where; rank 1 has one). */
bool dn_cumprod(nstate *s);
/* RotaryEmbedding (opset 23) before it, by its definition, where the head size is
 * known: X as (batch, sequence, heads, head size), the first rotary_embedding_dim
 * of each head rotated, its halves (or its even and odd elements, interleaved) x1
 * and x2 becoming cos x1 - sin x2 and sin x1 + cos x2 with cos and sin taken from the
 * caches at position_ids, the rest passed through, and X's own layout restored. */
bool dn_rotary(nstate *s);
/* CenterCropPad (opset 18) before it, where the rank is known: along each of its
 * axes, the crop start floor((dim - size) / 2) and the padding floor((size - dim) / 2)
 * before, the rest after, computed from the input's dims and `shape` (Shape,
 * Gather, Sub, Max, Div), then Slice and Pad with zeros. */
bool dn_center_crop_pad(nstate *s);
/* ONNX Runtime's own LayerNormalization, which it registers in the default domain
 * before opset 17 (its optimiser writes it into models of opset 14), is the
 * definition ONNX took for LayerNormalization-17: from 17 on the node is that
 * operator as it is, below 17 it is decomposed as LayerNormalization-17 is. */
bool dn_ort_layernorm(nstate *s, int32_t since);
/* ONNX Runtime's SimplifiedLayerNormalization (the default domain, any opset; no
 * ONNX operator of that name) is x / sqrt(mean(x^2) + epsilon) * scale over the axes
 * from `axis` on, RMSNormalization's definition: decomposed as that is, where its
 * inv_std_var output is unused. */
bool dn_ort_simplified_layernorm(nstate *s);

/* HannWindow, HammingWindow, BlackmanWindow (opset 17) before them: a0 - a1
 * cos(2 pi n / N) + a2 cos(4 pi n / N) for n in 0 .. size - 1, N size (periodic) or
 * size - 1, with (0.5, 0.5, 0), (25/46, 21/46, 0), (0.42, 0.5, 0.08), computed in
 * float and cast to output_datatype. */
bool dn_window(nstate *s);
/* TensorScatter (opset 24) before it: ScatterElements of update into past_cache
 * along axis, at write_indices (per batch, 0 when absent) plus 0 .. sequence length,
 * modulo the cache's length in circular mode. */
bool dn_tensor_scatter(nstate *s);
/* GroupNormalization-21 before it: (x - mean) / sqrt(var + epsilon) over each group
 * of channels (Reshape to (N, groups, -1)), back to x's shape, times scale plus bias
 * per channel; for float and double. (GroupNormalization-18 scales per group.) */
bool dn_group_norm21(nstate *s);

#endif
