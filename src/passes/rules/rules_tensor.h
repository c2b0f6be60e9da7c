/* rules_tensor.h: the helpers the tensor family's files share (shape manipulation and
 * shape arithmetic; its rules, named by ops_tensor.def's rows, are declared in the
 * generated rule_protos.h).
 *
 * The family is split by what the operators do:
 *   rules_tensor.c          helpers; Shape, Size, Constant, ConstantOfShape, Range, the
 *                           generators (EyeLike, Random*, Multinomial, Bernoulli), Det,
 *                           the quantize operators
 *   rules_tensor_reshape.c  Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Expand, Tile,
 *                           Pad
 *   rules_tensor_index.c    Concat, Split, Slice, Gather, GatherElements, GatherND, the
 *                           Scatter family, NonZero, Compress, Unique, OneHot,
 *                           ReverseSequence
 *   rules_tensor_seq.c      the Sequence operators, SplitToSequence, ConcatFromSequence,
 *                           Optional, OptionalHasElement, OptionalGetElement
 *
 * Data propagation: integer content (rule_api.h: in_ints / set_out_ints) is carried
 * through every operator here that moves or builds small integer tensors, so a chain
 * Shape → Gather → Unsqueeze → Concat → Reshape gives an exact (or symbolic) shape.
 * Content entries are dims: known integers, symbols (sizes, so >= 0) or unknown.
 */
#ifndef OSH_PASSES_RULES_TENSOR_H
#define OSH_PASSES_RULES_TENSOR_H

#include "passes/rule_api/rule_api.h"

/* ---- helpers shared by the family (defined in rules_tensor.c) ---- */

/* A shape-error about this node: "<op_type>: <message>". */
void tr_error(infer_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* The element count of a shape whose dims are all known (symbols with a known value
 * count as known), -1 otherwise or on overflow. */
int64_t tr_count(infer_ctx *c, int32_t rank, const dim *dims);
/* The dims of input i as integers when they are all known and the element count is at
 * most TINFO_MAX_VALUES: writes rank entries into out (capacity RULE_MAX_RANK) and
 * returns the count; -1 otherwise. */
int64_t tr_known_dims(infer_ctx *c, int32_t i, int64_t *out);

/* Where an integer list (axes, pads, starts...) stands. */
typedef enum tr_list_state {
	TR_ABSENT,  /* neither the attribute nor the input is given */
	TR_UNKNOWN, /* given, values not known (*n is the length, or -1 if unknown too) */
	TR_KNOWN,   /* values known: out[0..*n) */
} tr_list_state;
/* Reads an integer list from attribute `attr_name` (NULL: none) or, failing that, from
 * input `input` (-1: none). Lists longer than `cap` are TR_UNKNOWN with their length. */
tr_list_state tr_list(infer_ctx *c, const char *attr_name, int32_t input, int64_t *out, int32_t cap,
		      int32_t *n);

/* Output o gets input i's content (integer and floating) unchanged: for operators that
 * keep the row-major order (Reshape, Squeeze, Unsqueeze, Flatten, Identity-like). */
void tr_pass_content(infer_ctx *c, int32_t i, int32_t o);
/* Output o gets content out[k] = in[map[k]] for k < n, from input i, where known. */
void tr_map_content(infer_ctx *c, int32_t i, int32_t o, const int32_t *map, int32_t n);
/* Index maps for content that moves (Transpose, Slice, Gather...): for each flat index
 * k < n of an output of dims odims (rank r, all known), map[k] = src(its multi-index),
 * the flat index of the input entry it copies. NULL when too large, or when src gives
 * an index out of [0, TINFO_MAX_VALUES). The map lives in the arena. */
typedef int64_t (*tr_src_fn)(const int64_t *idx, int32_t r, const void *ctx);
int32_t *tr_index_map(infer_ctx *c, const int64_t *odims, int32_t r, int64_t n, tr_src_fn src, const void *ctx);
/* Output o: a tensor of x's shape (rank unknown when x has none) and element type elem. */
void tr_same_shape(infer_ctx *c, int32_t o, const tinfo *x, int32_t elem);
/* Normalises axis list `axes` (n entries) against `rank` in place, rejecting entries
 * out of range and repeats; `what` names the list in messages. */
bool tr_norm_axes(infer_ctx *c, int64_t *axes, int32_t n, int32_t rank, const char *what);

#endif
