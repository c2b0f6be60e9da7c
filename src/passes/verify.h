/* verify.h: the IR checker that pipeline.c runs between stages (in debug builds, with
 * -DONNXSHAPE_VERIFY_IR=ON, or under ONNXSHAPE_VERIFY_IR=1), as cmark checks its tree
 * and QBE its functions between passes: a stage that leaves the IR inconsistent is
 * named at once, not by whichever stage later trips over it.
 */
#ifndef OSH_PASSES_VERIFY_H
#define OSH_PASSES_VERIFY_H

#include "core/model.h"

/* Checks m's IR against the invariants core/model.h states: value and node ids in
 * range; producers, consumers and node outputs agreeing; each graph's order a
 * permutation of its nodes, topological unless the model is malformed; the name map
 * agreeing with the value table; graph inputs and outputs in range; subgraphs and
 * their parents pointing at each other; once inferred, every value's type
 * well-formed. Changes nothing. OSH_OK when they hold; OSH_ERR_INVALID with the
 * first violation in why (one line, without the model's path); OSH_ERR_NOMEM when
 * its scratch memory (malloc, not the model's arena) could not be had. */
osh_status ir_verify(const osh_model *m, char *why, size_t cap);

#endif
