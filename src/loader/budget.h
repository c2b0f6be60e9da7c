/* budget.h: the arena budget of a load (budget.c), decided from the pre-scan's
 * counts: what unpacking will take, exactly, plus room for the index and the passes
 * in proportion to it, or the caller's osh_load_options.memory_budget.
 */
#ifndef OSH_LOADER_BUDGET_H
#define OSH_LOADER_BUDGET_H

#include "loader/prescan.h"
#include "onnxshape.h"

#include <stddef.h>
#include <stdint.h>

/* Decides the budget for a model of `size` bytes whose pre-scan counted ps (`copy`:
 * bytes of input copied into the arena, osh_model_load_buffer): the caller's, or one
 * in proportion to the counts. Refuses, with an error naming `name`, a file that
 * would expand beyond what real models do, or beyond the caller's budget. err may be
 * NULL (the scan job's verdict, which the loader tells again). */
osh_status budget_decide(const char *name, const prescan_stats *ps, size_t size, uint64_t copy,
			 const osh_load_options *opts, uint64_t *budget, osh_error *err);
/* Pre-scans the whole input (prescan_message) and decides the budget. */
osh_status budget_plan(const char *name, const uint8_t *data, size_t size, uint64_t copy,
		       const osh_load_options *opts, uint64_t *budget, osh_error *err);
/* A budget no model that passes the pre-scan reaches, for a file of `size` bytes of
 * which only the outline o was scanned: the arena runs under it until the scan job's
 * counts are in. */
uint64_t budget_bound(const prescan_outline_result *o, uint64_t size);

#endif
