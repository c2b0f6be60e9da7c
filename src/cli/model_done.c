/* model_done.c: the CLI is done with a model (cli.h). */
#include "cli.h"

void model_done(osh_model *m, bool last)
{
#ifdef OSH_ARENA_MALLOC
	/* Sanitizer builds free everything, so that leak checking sees every path. */
	(void)last;
	osh_model_free(m);
#else
	/* What the process does next is exit: the kernel takes the whole address space
	 * back at once, faster than unmapping the arena's chunks one by one (each a
	 * call that frees its pages and flushes the TLB). Compilers do the same (clang's
	 * -disable-free). Every thread the model started is joined already
	 * (the lint's, the writer's) or only advises the kernel (prefault, releaser). */
	if (!last)
		osh_model_free(m);
#endif
}
