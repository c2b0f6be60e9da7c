/* codes.h: the diagnostic codes as names the compiler checks.
 *
 * Invariant: DIAG_NAME is the position of row NAME of codes.def, in the table
 * codes_table returns as in the enum; a stage names a code only by its DIAG_ value,
 * and the code's string is written once, in codes.def.
 */
#ifndef OSH_CORE_CODES_H
#define OSH_CORE_CODES_H

typedef enum diag_code {
#define CODE(name, code, severity, summary, description, example) DIAG_##name,
#include "core/codes.def"
#undef CODE
	DIAG_CODE_COUNT
} diag_code;

/* The code's string ("shape-error"), as osh_diag.code and every report give it; it
 * lives in a static table. */
const char *diag_code_name(diag_code code);

#endif
