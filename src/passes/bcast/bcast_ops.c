/* bcast_ops.c: which operators broadcast (bcast_ops.h). */
#include "passes/bcast/bcast_ops.h"

#include "core/schema/schema.h"

#include <stdint.h>
#include <string.h>

int bcast_family_of(const char *op_type)
{
	const sch_row *r = schema_lookup("", op_type, INT32_MAX);
	if (!r)
		return -1;
	if (r->broadcast == SCH_BCAST_UNI)
		return r->ninputs == 2 ? FAM_PRELU : -1; /* the one input into the other */
	if (r->broadcast != SCH_BCAST_MULTI)
		return -1;
	if (r->ninputs && r->inputs[r->ninputs - 1].option == SCH_VARIADIC)
		return FAM_VARIADIC;
	if (r->ninputs == 3)
		return FAM_WHERE;
	return schema_legacy_broadcast(op_type) ? FAM_BINARY : FAM_BINARY7;
}

static const char *const paddle_ops[] = {
#define PADDLE(op, onnx, build, need_float, need_int) op,
#include "passes/bcast/paddle_ops.def"
#undef PADDLE
};

bool paddle_is_elementwise(const char *op_type)
{
	for (size_t i = 0; i < sizeof paddle_ops / sizeof paddle_ops[0]; i++)
		if (!strcmp(paddle_ops[i], op_type))
			return true;
	return false;
}

bool broadcast3_is(const char *domain, const char *op_type)
{
	return domain[0] && strcmp(domain, "ai.onnx") && strncmp(domain, "ai.onnx.", 8) && !strcmp(op_type, "Broadcast");
}

bool bcast_may_broadcast(const char *domain, const char *op_type, int64_t opset)
{
	if (opset < 0)
		return false;
	if (domain[0])
		return paddle_is_elementwise(op_type);
	return bcast_family_of(op_type) >= 0;
}
