/* image_header.h: the height, width and channel count of an encoded image, read from
 * its header alone (no decoding), for ImageDecoder's output shape. */
#ifndef OSH_IMAGE_HEADER_H
#define OSH_IMAGE_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the size of the image encoded in p[0..n): PNG, BMP, PNM (P1-P6), TIFF, WebP,
 * JPEG and JPEG 2000 (a JP2 file or a raw codestream). Every read is bounds-checked:
 * any bytes, hostile or truncated, are safe to pass.
 * Returns true with *h and *w (both at least 1) when the format is recognised and its
 * header is complete; false, leaving the outputs untouched, otherwise.
 * *channels (may be NULL) gets the number of channels the image stores when the
 * header says so plainly (1 gray, 2 gray and alpha, 3 colour, 4 colour and alpha or
 * CMYK), 0 when it does not (a palette, an unusual bit depth). */
bool image_size(const uint8_t *p, size_t n, int64_t *h, int64_t *w, int32_t *channels);

#endif
