/* rules_control.h: the rule functions of rules_control.c (If, Loop, Scan). */
#ifndef OSH_PASSES_RULES_CONTROL_H
#define OSH_PASSES_RULES_CONTROL_H

#include "passes/rule_api/rule_api.h"

void infer_if(infer_ctx *c);
void infer_loop(infer_ctx *c);
void infer_scan8(infer_ctx *c);
void infer_scan9(infer_ctx *c);

#endif
