/* tinfo.h: what is known about one value: its kind, element type, shape, and for
 * small integer tensors (shapes, axes, sizes) their content.
 *
 * This is the lattice the inference pass moves up: kind TK_UNKNOWN knows nothing; a
 * tensor may know its element type, its rank (or not), and each dim (known, symbol,
 * unknown). Content ("data propagation") is carried as dims too, so a Shape of an
 * (N, 3) tensor is the content [N, 3], and arithmetic on it keeps the symbols.
 * All arrays live in the model's arena; a tinfo is copied by value, sharing them,
 * and arrays are never modified after they are published on a value.
 */
#ifndef OSH_CORE_TINFO_H
#define OSH_CORE_TINFO_H

#include "core/shape.h"

typedef enum tkind {
	TK_UNKNOWN = 0,
	TK_TENSOR,
	TK_SPARSE,
	TK_SEQUENCE, /* elem/rank/dims describe the elements, when they agree */
	TK_OPTIONAL, /* elem/rank/dims describe the contained tensor */
	TK_MAP,      /* elem: the value's element type when the value is a tensor; key below */
} tkind;

/* Content is only tracked for tensors this small. */
#define TINFO_MAX_VALUES 4096

/* Every value of every graph holds one (its inferred type), so the fields are ordered
 * to leave no padding: 48 bytes. */
typedef struct tinfo {
	uint8_t kind;  /* tkind */
	uint8_t inner; /* tkind: for sequences and optionals, the element's kind */
	int32_t elem;  /* onnx.TensorProto.DataType; 0 unknown */
	int32_t key;   /* maps (and sequences of maps): the key's element type; 0 unknown */
	int32_t rank;  /* RANK_UNKNOWN or >= 0 */
	/* Integer content, row-major, nval entries (the element count); -1 unknown. */
	int32_t nval;
	/* Floating-point content (Resize scales, Constant floats); -1 unknown. */
	int32_t nfval;
	const dim *dims;
	const dim *val;
	const double *fval;
} tinfo;

static inline tinfo tinfo_unknown(void) { return (tinfo){.rank = RANK_UNKNOWN, .nval = -1, .nfval = -1}; }
static inline shape tinfo_shape(const tinfo *t) { return (shape){t->rank, t->dims}; }
static inline bool tinfo_has_rank(const tinfo *t) { return t->kind == TK_TENSOR && t->rank >= 0; }

#endif
