/* budget.c: the arena budget a model is loaded under, from what its pre-scan counted.
 *
 * Invariant: protobuf-c never unpacks a file whose budget was not decided here first,
 * from the pre-scan of the same bytes (or, while the scan job still runs, from
 * budget_bound, which no accepted file reaches). A file that would expand far beyond
 * its size is refused before anything is allocated for it.
 */
#include "loader/budget.h"
#include "core/arena.h"
#include "core/error.h"
#include "onnx-ml.pb-c.h"

/* A file whose messages would take more than this many bytes per byte of input
 * (beyond EXPANSION_FLOOR) is refused: real models stay far below it (weights decode
 * to their own size, a node or a shape to a small multiple of its encoding), while
 * messages that exist only to be allocated (a million empty nodes) go far above. */
#define MAX_EXPANSION 32
#define EXPANSION_FLOOR ((uint64_t)16 << 20)

/* Room for the index and the passes beside the unpacked messages. They cost per
 * message (a node's entry, its attributes' views, a declared type) and per string
 * (a value name: its table entry, its consumers, its inferred type), not per byte:
 * weights cost them nothing. The figures below cover the most that load, infer and
 * annotate take per node, with room to spare (bench/README.md), and
 * test_load_limits's budget test checks them against the heaviest use (load, infer,
 * annotate and pack). A node with its op_type, an input and an output is allowed
 * 416 + 3 * 224 = 1,088. */
#define INDEX_BYTES_PER_MESSAGE 416
#define INDEX_BYTES_PER_STRING 224
#define BUDGET_MARGIN ((uint64_t)64 << 20)

/* The arena budget for a model of `size` bytes whose pre-scan counted ps; `copy` is
 * the bytes of input copied into the arena (osh_model_load_buffer). The main graph's
 * nodes are kept as bytes besides (unpack_split.c): at most the file again. */
static uint64_t budget_for(const prescan_stats *ps, uint64_t size, uint64_t copy)
{
	return copy + size + ps->unpack_bytes + ps->messages * INDEX_BYTES_PER_MESSAGE +
	       ps->strings * INDEX_BYTES_PER_STRING + BUDGET_MARGIN;
}

/* Decides the budget for a model whose pre-scan counted ps: the caller's, or
 * budget_for. Refuses a file that would expand beyond MAX_EXPANSION, or beyond the
 * caller's budget. */
osh_status budget_decide(const char *name, const prescan_stats *ps, size_t size, uint64_t copy,
			 const osh_load_options *opts, uint64_t *budget, osh_error *err)
{
	uint64_t need = copy + ps->unpack_bytes;
	if (opts && opts->memory_budget) {
		if (need > opts->memory_budget)
			return error_set(err, OSH_ERR_LIMIT,
				    "%s: decoding needs %llu bytes, more than the memory budget of %llu bytes " ARENA_BUDGET_HINT,
				    name, (unsigned long long)need, (unsigned long long)opts->memory_budget);
		*budget = opts->memory_budget;
		return OSH_OK;
	}
	if (ps->unpack_bytes > (uint64_t)size * MAX_EXPANSION + EXPANSION_FLOOR)
		return error_set(err, OSH_ERR_LIMIT,
			    "%s: refused: its %llu messages would take %llu bytes in memory, %llu times the "
			    "file's %zu bytes (the limit is %d times): a file built to exhaust memory, not a model",
			    name, (unsigned long long)ps->messages, (unsigned long long)ps->unpack_bytes,
			    (unsigned long long)(ps->unpack_bytes / (size ? size : 1)), size, MAX_EXPANSION);
	*budget = budget_for(ps, size, copy);
	return OSH_OK;
}

/* Pre-scans the input and decides the budget (budget_decide). */
osh_status budget_plan(const char *name, const uint8_t *data, size_t size, uint64_t copy,
		       const osh_load_options *opts, uint64_t *budget, osh_error *err)
{
	prescan_stats ps;
	osh_status s = prescan_message(&onnx__model_proto__descriptor, data, size, name, &ps, err);
	return s == OSH_OK ? budget_decide(name, &ps, size, copy, opts, budget, err) : s;
}

/* A budget no model that passes the pre-scan reaches: budget_for with the worst the
 * unscanned nodes and initializers could add (a message and a string every two
 * bytes, everything unpacked to MAX_EXPANSION times the file). */
uint64_t budget_bound(const prescan_outline_result *o, uint64_t size)
{
	prescan_stats ps = o->stats;
	uint64_t rest = o->graph_end - o->graph_start;
	ps.unpack_bytes = size * MAX_EXPANSION + EXPANSION_FLOOR;
	ps.messages += rest / 2;
	ps.strings += rest / 2;
	return budget_for(&ps, size, 0);
}
