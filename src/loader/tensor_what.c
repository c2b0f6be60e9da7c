/* tensor_what.c: how the loader's messages name a tensor (loader.h: tensor_what).
 *
 * Its own file because both checkers of a tensor name it, validate.c and
 * external.c, and validate.c calls external.c: here, neither calls back.
 */
#include "loader/loader.h"

#include <string.h>

const char *tensor_what(const char *label, const Onnx__TensorProto *t, char *buf)
{
	if (label)
		return label;
	/* "initializer 'NAME'", NAME cut at 256 bytes, as snprintf's "%.256s" writes it. */
	static const char pre[] = "initializer '";
	const char *name = t->name ? t->name : "";
	size_t n = 0, w = sizeof pre - 1;
	while (n < 256 && name[n])
		n++;
	memcpy(buf, pre, w);
	memcpy(buf + w, name, n);
	buf[w + n] = '\'';
	buf[w + n + 1] = '\0';
	return buf;
}
