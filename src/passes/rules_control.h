/* rules_control.h: the rule functions of rules_control.c (If, Loop, Scan). */
#ifndef OSH_PASSES_RULES_CONTROL_H
#define OSH_PASSES_RULES_CONTROL_H

#include "passes/infer.h"

#endif
