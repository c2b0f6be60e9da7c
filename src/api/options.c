/* options.c: the versions of the public options structs (options.h). A struct
 * whose version this library does not know was laid out by another header, or
 * not initialised: reading its fields would read garbage, so nothing is read. */
#include "api/options.h"

#include "core/error.h"

osh_status options_version_check(const char *name, unsigned int version, unsigned int known, const char *init,
				 osh_error *err)
{
	if (version == known)
		return OSH_OK;
	return error_set(err, OSH_ERR_INVALID,
			 "%s version %u is not one this library knows (it knows version %u): initialise it with %s",
			 name, version, known, init);
}
