/* rules_nn.h: the rule functions of rules_nn.c, for ops_nn.def. */
#ifndef OSH_PASSES_RULES_NN_H
#define OSH_PASSES_RULES_NN_H

#include "passes/infer.h"

#endif
