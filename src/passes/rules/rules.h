/* rules.h: every operator rule function, for ops.def, by family. */
#ifndef OSH_PASSES_RULES_H
#define OSH_PASSES_RULES_H

#include "passes/rules/rules_control.h"
#include "passes/rules/rules_elementwise.h"
#include "passes/rules/rules_misc.h"
#include "passes/rules/rules_ml.h"
#include "passes/rules/rules_ms.h"
#include "passes/rules/rules_nn.h"
#include "passes/rules/rules_nn_more.h"
#include "passes/rules/rules_paddle.h"
#include "passes/rules/rules_broadcast3.h"
#include "passes/rules/rules_tensor.h"

#endif
