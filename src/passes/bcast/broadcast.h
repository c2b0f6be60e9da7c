/* broadcast.h: every broadcasting rule family of ../shared/spec/broadcasting.md.
 *
 * Each rule is a pure function over shapes (core/shape.h): it writes the result shape
 * into caller storage, or fills a structured error naming the rule, the dimension
 * (counted from the left of the result) and both sizes, and lists the facts about
 * symbols it had to assume (N is 1 or 3, N equals M) so the caller can record them in
 * the symbol table. Nothing here allocates or prints.
 */
#ifndef OSH_PASSES_BROADCAST_H
#define OSH_PASSES_BROADCAST_H

#include "core/shape.h"

/* The rule families of the spec, in its order. */
typedef enum bcast_rule {
	BCAST_NONE = 0,       /* identical shapes required */
	BCAST_NUMPY,          /* multidirectional, right-aligned */
	BCAST_UNIDIRECTIONAL, /* B broadcasts to A; the result is A */
	BCAST_PDPD,           /* B placed at axis inside A, strict: A never grows */
	BCAST_PADDLE,         /* lower rank placed at axis, then numpy both ways */
	BCAST_BIDIRECTIONAL,  /* Expand: input against target shape, numpy both ways */
	BCAST_EXPLICIT,       /* axes_mapping places each input axis in the target */
} bcast_rule;

const char *bcast_rule_name(bcast_rule r);

/* Why a broadcast was refused. */
typedef enum bcast_fail {
	BFAIL_NONE = 0,
	BFAIL_MISMATCH,       /* two sizes differ and neither is 1 (dim, a, b set) */
	BFAIL_RANK,           /* ranks must be equal (none) or rank(B) <= rank(A) (pdpd) */
	BFAIL_GROW,           /* A would have to grow (unidirectional, pdpd): a is A's size */
	BFAIL_AXIS_NEGATIVE,  /* axis < 0 and not -1 */
	BFAIL_AXIS_RANGE,     /* axis + rank(trimmed B) > rank(A), or axis > rank(A); dims
			       * past A's end that may be 1 (symbol, unknown) do not count */
	BFAIL_MAPPING_LENGTH, /* axes_mapping length differs from the input rank */
	BFAIL_MAPPING_ORDER,  /* axes_mapping not strictly ascending */
	BFAIL_MAPPING_RANGE,  /* an axes_mapping entry outside the target rank */
} bcast_fail;

/* A structured refusal. `dim` counts from the left of the result (for pdpd: of A; for
 * explicit: of the target); a and b are the two sizes that met there, a from the first
 * operand (A, X, the input) and b from the second (B, Y, the target). For variadic
 * folds, `input` is the index of the operand that failed against the running result
 * (a is then the running result's size); binary rules set it to -1.
 *
 * Which fields each refusal sets (the others are -1, 0 or unknown):
 *   MISMATCH, GROW  dim, a, b; pdpd/paddle: axis (resolved), arank, brank;
 *                   explicit: axis = the input axis whose mapping failed
 *   RANK            arank, brank
 *   AXIS_NEGATIVE   axis (as given), arank, brank
 *   AXIS_RANGE      axis (resolved), arank, brank; brank is RANK_UNKNOWN when only
 *                   axis > rank(A) could be decided
 *   MAPPING_LENGTH  axis = the mapping's length, arank (input), brank (target)
 *   MAPPING_ORDER   dim = index into axes_mapping, axis = the entry
 *   MAPPING_RANGE   dim = index into axes_mapping, axis = the entry, brank (target)
 * For pdpd and paddle, arank/brank are the ranks of the two operands with the placed
 * one counted after trimming its trailing 1s. The placed operand is B (Y) unless
 * brank > arank (paddle with rank(X) < rank(Y)); trimming never changes that order. */
typedef struct bcast_error {
	bcast_rule rule;
	bcast_fail fail;
	int32_t dim;
	dim a, b;
	int32_t input;
	int64_t axis;
	int32_t arank, brank;
} bcast_error;

/* A fact the rule had to assume about symbols for the broadcast to be valid. */
typedef enum fact_kind {
	FACT_ONE_OR,   /* symbol `sym` is 1 or equals `k` (a known size other than 1) */
	FACT_EQUALS,   /* symbol `sym` equals `k` (unidirectional, pdpd: A may not grow) */
	FACT_ONE_OR_SYM, /* symbol `sym` is 1, or `other` is 1, or they are equal */
	FACT_SYM_EQ_OR_ONE, /* symbol `other` (B's) is 1 or equals symbol `sym` (A's) */
	FACT_SYM_EQUALS, /* symbols `sym` and `other` are equal (none: no broadcasting) */
} fact_kind;

typedef struct sym_fact {
	fact_kind kind;
	int64_t sym;   /* symbol id */
	int64_t k;     /* known size, for FACT_ONE_OR / FACT_EQUALS; 0 otherwise */
	int64_t other; /* second symbol id, for the two-symbol facts */
	int32_t dim;   /* result dimension where it was learned; -1 for a trailing dim of
			* B that pdpd/paddle placed past A's end, which must then be 1 */
} sym_fact;

/* Where a rule writes its answer. `dims` must hold at least the result rank, which
 * is at most the largest operand rank (explicit/bidirectional: target rank); it may be
 * the same storage as an operand's dims (rules read each operand dim before writing
 * over it), which is how a fold accumulates in place. `facts` may be NULL; otherwise
 * it holds up to `facts_cap` entries (one per result dim is always enough; a fold may
 * need one per dim per operand), and `nfacts` is set to the number recorded: past
 * `facts_cap` facts are dropped, not counted. Facts are listed by operand, and within
 * one operand by dimension from left to right. The result rank is RANK_UNKNOWN when
 * an operand's rank is unknown (except where the rule fixes it: unidirectional and
 * pdpd with A known, explicit with the target known, none with either known). */
typedef struct bcast_out {
	int32_t rank;
	dim *dims;
	sym_fact *facts;
	int32_t facts_cap;
	int32_t nfacts;
} bcast_out;

/* Each returns true with *out filled, or false with *err filled (err may be NULL when
 * the caller only wants the verdict). On refusal *out's dims and facts are
 * unspecified. Dimensions are compared from the right, so when several disagree the
 * refusal names the rightmost one, as PyTorch does. The symbol
 * equivalence callback (may be NULL) answers whether two symbol ids are already known
 * to be equal, so results stay as precise as the facts allow. */
typedef bool (*sym_eq_fn)(void *ctx, int64_t a, int64_t b);
typedef struct sym_ctx {
	sym_eq_fn eq;
	void *ctx;
} sym_ctx;

bool bcast_none(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err);
bool bcast_numpy(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err);
/* Variadic fold (Sum, Mean, Max, Min, Where): n operands, left to right. */
bool bcast_numpy_n(const shape *ops, int n, const sym_ctx *sc, bcast_out *out, bcast_error *err);
bool bcast_unidirectional(shape a, shape b, const sym_ctx *sc, bcast_out *out, bcast_error *err);
/* axis: the attribute value, -1 for the default. */
bool bcast_pdpd(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out, bcast_error *err);
bool bcast_paddle(shape x, shape y, int64_t axis, const sym_ctx *sc, bcast_out *out, bcast_error *err);
bool bcast_bidirectional(shape input, shape target, const sym_ctx *sc, bcast_out *out, bcast_error *err);
bool bcast_explicit(shape input, shape target, const int64_t *axes_mapping, int32_t naxes,
		    const sym_ctx *sc, bcast_out *out, bcast_error *err);
/* Two operands under `rule`, whichever it is (axis: pdpd's and paddle's attribute,
 * -1 for the default; ignored by the others). False, err untouched, for
 * BCAST_EXPLICIT, which needs its axes_mapping: call bcast_explicit. */
bool bcast_two(bcast_rule rule, shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
	       bcast_error *err);

/* Where the first dim of an operand of rank r placed at `axis` falls in one of rank n:
 * the axis itself, or for the default -1 the place that right-aligns the operand as
 * given (before its trailing 1s are dropped). Not checked: bcast_pdpd and bcast_paddle
 * refuse a placement that does not fit. */
static inline int64_t bcast_axis_at(int64_t axis, int32_t r, int32_t n)
{
	return axis == -1 ? (int64_t)n - r : axis;
}

/* The numpy shape B must be reshaped to for a pdpd/paddle placement to compute the
 * same thing under numpy rules: B (trimmed of trailing 1s) followed by
 * (n - axis - r) ones. Writes the new rank into *rank and the dims into dims (capacity
 * >= rank of the higher-rank operand). Returns false where the placement is invalid
 * (call the broadcast first): either rank unknown, rank(B) > rank(A), a negative axis
 * other than -1, or axis + r > n. For the paddle rule pass the higher-rank operand as
 * `a` (X on a tie) and the lower-rank one as `b`. */
bool bcast_pdpd_reshape(shape a, shape b, int64_t axis, dim *dims, int32_t *rank);

/* Formats a refusal as one line, PyTorch-precise, e.g. "the size of A (4) must match
 * the size of B (6) at non-singleton dimension 2". `aname`/`bname` name the operands
 * (NULL: "A" and "B"); symbol names come from `symname` (may be NULL: symbols print
 * as s<id>, see dim_format). Returns the number of characters that would have been
 * written, like snprintf (buf may be NULL when cap is 0), or -1 past INT_MAX. */
int bcast_error_format(char *buf, size_t cap, const bcast_error *err, const char *aname,
		       const char *bname, sym_name_fn symname, void *symctx);

#endif
