/* dump.h: the IR as text, for osh_infer_options.dump_after (pipeline.c): what a stage
 * left, read without a debugger, as QBE's -d flags print a function between passes.
 */
#ifndef OSH_PASSES_DUMP_H
#define OSH_PASSES_DUMP_H

#include "core/model.h"

#include <stdio.h>

/* Writes m's IR to f, headed by the stage it follows: the main graph, then the
 * model-local functions' bodies, each with its inputs, initializers (type and shape,
 * not their data), nodes in order, one line each,
 *
 *   %y: FLOAT[N,4] = MatMul(%x, %w) {alpha=0.5}  # node 0 'mm'
 *
 * and outputs; a subgraph follows the node that holds it, indented. A value's type
 * is what inference found, or before inference (after a re-index) what the file
 * declares. The whole dump is written under f's lock, so that dumps of models
 * checked on several threads do not interleave. False when f is in error after it. */
bool ir_dump(osh_model *m, const char *stage, FILE *f);

#endif
