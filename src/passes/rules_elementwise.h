/* rules_elementwise.h: the rule functions of rules_elementwise.c, for ops_elementwise.def. */
#ifndef OSH_PASSES_RULES_ELEMENTWISE_H
#define OSH_PASSES_RULES_ELEMENTWISE_H

#include "passes/infer.h"

#endif
