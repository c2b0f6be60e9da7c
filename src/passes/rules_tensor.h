/* rules_tensor.h: the rule functions of rules_tensor.c, for ops_tensor.def. */
#ifndef OSH_PASSES_RULES_TENSOR_H
#define OSH_PASSES_RULES_TENSOR_H

#include "passes/infer.h"

#endif
