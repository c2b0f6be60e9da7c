/* dump_after.c: --dump-after STAGE, as check, infer and rewrite take it. The name is
 * checked against the library's list of the command's stages when the options are
 * read: a typo is one usage error before any model is loaded, not one per file.
 */
#include "cli.h"

#include <string.h>

/* More than any pipeline has (rewrite's is 27 long). */
#define STAGES_MAX 64

bool dump_after_valid(const char *cmd, const char *stage)
{
	const char *names[STAGES_MAX];
	size_t n = osh_pipeline_stages(cmd, names, STAGES_MAX);
	if (n > STAGES_MAX)
		n = STAGES_MAX;
	char list[1024];
	size_t len = 0;
	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(names[i], stage) && strcmp(stage, "help"))
			return true;
		int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
		if (w > 0 && (size_t)w < sizeof list - len)
			len += (size_t)w;
	}
	const char *near = closest_name(stage, names, n);
	if (!strcmp(stage, "help"))
		usage_error(cmd, "--dump-after=help: the stages of %s, in order: %s", cmd, list);
	else if (near)
		usage_error(cmd, "'%s' is not a stage of %s; did you mean '%s'? The stages, in order: %s", stage, cmd,
			    near, list);
	else
		usage_error(cmd, "'%s' is not a stage of %s; the stages, in order: %s", stage, cmd, list);
	return false;
}
