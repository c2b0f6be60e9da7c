/* test_image_header.c: image_size on small hand-made headers, one table row per
 * case: a valid header of each format gives its size and stored channels; the same
 * header cut short, or with a broken signature or field, is refused (and safe). */
#include <criterion/criterion.h>

#include "passes/rules/image_header.h"

#include <stdlib.h>
#include <string.h>

typedef struct row {
	const char *what;
	const uint8_t *p;
	size_t n;
	int64_t h, w; /* h < 0: refused */
	int32_t c;
} row;

#define B(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})
#define S(s) (const uint8_t *)(s), sizeof(s) - 1

/* PNG 300 wide, 200 high, colour type 2 (RGB) */
#define PNG_RGB 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', \
		0, 0, 1, 0x2c, 0, 0, 0, 0xc8, 8, 2, 0, 0, 0
/* BMP (BITMAPINFOHEADER) 5 wide, -7 high (top-down), 24 bpp */
#define BMP_24 'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 5, 0, 0, 0, \
		0xf9, 0xff, 0xff, 0xff, 1, 0, 24, 0
/* TIFF little-endian: 3 entries, width SHORT 640, length LONG 480, spp 3, + photometric 2 */
#define TIFF_II 'I', 'I', '*', 0, 8, 0, 0, 0, 4, 0, \
		0, 1, 3, 0, 1, 0, 0, 0, 0x80, 2, 0, 0, \
		1, 1, 4, 0, 1, 0, 0, 0, 0xe0, 1, 0, 0, \
		0x15, 1, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0, \
		6, 1, 3, 0, 1, 0, 0, 0, 2, 0, 0, 0
/* TIFF big-endian, width LONG 10, length SHORT 20, no spp (1), photometric 1 */
#define TIFF_MM 'M', 'M', 0, '*', 0, 0, 0, 8, 0, 3, \
		1, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 10, \
		1, 1, 0, 3, 0, 0, 0, 1, 0, 20, 0, 0, \
		1, 6, 0, 3, 0, 0, 0, 1, 0, 1, 0, 0
#define RIFF 'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P'
/* lossy 320 x 240 */
#define WEBP_VP8 RIFF, 'V', 'P', '8', ' ', 0, 0, 0, 0, 0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 1, 0xf0, 0
/* lossless, width-1 = 99, height-1 = 49, alpha hint set: bits = 99 | 49 << 14 | 1 << 28 */
#define WEBP_VP8L RIFF, 'V', 'P', '8', 'L', 0, 0, 0, 0, 0x2f, 0x63, 0x40, 0x0c, 0x10
/* extended, alpha flag, canvas 1000 x 2 (1-based: 999, 1) */
#define WEBP_VP8X RIFF, 'V', 'P', '8', 'X', 10, 0, 0, 0, 0x10, 0, 0, 0, 0xe7, 3, 0, 1, 0, 0
/* JPEG: SOI, APP0 (length 4), DHT (length 2), SOF0 17 high, 33 wide, 3 components */
#define JPEG_RGB 0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc4, 0, 2, 0xff, 0xff, 0xc0, 0, 17, 8, \
		0, 17, 0, 33, 3, 1, 0x22, 0
/* JP2: signature, ftyp (skipped), jp2h holding ihdr 64 high, 48 wide, 3 components */
#define JP2 0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n', \
		0, 0, 0, 12, 'f', 't', 'y', 'p', 'j', 'p', '2', ' ', \
		0, 0, 0, 30, 'j', 'p', '2', 'h', 0, 0, 0, 22, 'i', 'h', 'd', 'r', \
		0, 0, 0, 64, 0, 0, 0, 48, 0, 3, 7, 7, 0, 0
/* raw codestream: SOC, SIZ with Xsiz 110, Ysiz 70, XOsiz 10, YOsiz 20, Csiz 1 */
#define J2K 0xff, 0x4f, 0xff, 0x51, 0, 41, 0, 0, 0, 0, 0, 110, 0, 0, 0, 70, 0, 0, 0, 10, 0, 0, 0, 20, \
		0, 0, 0, 110, 0, 0, 0, 70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7, 1, 1

static const row rows[] = {
	{"png", B(PNG_RGB), 200, 300, 3},
	{"bmp top-down", B(BMP_24), 7, 5, 3},
	{"bmp core header", B('B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 26, 0, 0, 0, 12, 0, 0, 0, 4, 0, 3, 0, 1, 0, 8, 0),
	 3, 4, 0},
	{"pnm P6", S("P6\n32 16\n255\n"), 16, 32, 3},
	{"pnm P5 with comments", S("P5 # a comment\n# another\n 7\t# w\n9 255 "), 9, 7, 1},
	{"tiff II", B(TIFF_II), 480, 640, 3},
	{"tiff MM", B(TIFF_MM), 20, 10, 1},
	{"webp VP8", B(WEBP_VP8), 240, 320, 3},
	{"webp VP8L", B(WEBP_VP8L), 50, 100, 4},
	{"webp VP8X", B(WEBP_VP8X), 2, 1000, 4},
	{"jpeg", B(JPEG_RGB), 17, 33, 3},
	{"jp2", B(JP2), 64, 48, 3},
	{"j2k codestream", B(J2K), 50, 100, 1},
	/* refused */
	{"empty", B(0), -1, 0, 0},
	{"garbage", S("hello, this is not an image at all......."), -1, 0, 0},
	{"png zero width", B(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 0, 0,
			     0, 0, 1, 8, 2), -1, 0, 0},
	{"png not IHDR", B(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'D', 'A', 'T', 0, 0, 0, 1, 0,
			   0, 0, 1, 8, 2), -1, 0, 0},
	{"bmp width negative", B('B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1,
				 0, 0, 0, 1, 0, 24, 0), -1, 0, 0},
	{"pnm number at the end", S("P6\n32 16"), -1, 0, 0},
	{"pnm no digits", S("P3\nab cd\n"), -1, 0, 0},
	{"pnm P7", S("P7\n3 3\n"), -1, 0, 0},
	{"pnm number overflow", S("P6 99999999999999999999999 1 255\n"), -1, 0, 0},
	{"tiff IFD outside", B('I', 'I', '*', 0, 0xff, 0xff, 0xff, 0xff, 0, 0), -1, 0, 0},
	{"tiff count past the end", B('I', 'I', '*', 0, 8, 0, 0, 0, 0xff, 0xff, 0, 1, 3, 0), -1, 0, 0},
	{"tiff no length", B('I', 'I', '*', 0, 8, 0, 0, 0, 1, 0, 0, 1, 3, 0, 1, 0, 0, 0, 9, 0, 0, 0), -1, 0, 0},
	{"webp bad start code", B(RIFF, 'V', 'P', '8', ' ', 0, 0, 0, 0, 0, 0, 0, 0x9d, 0x01, 0x2b, 1, 0, 1, 0), -1, 0, 0},
	{"webp unknown chunk", B(RIFF, 'A', 'L', 'P', 'H', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1, 0, 0},
	{"jpeg SOS before SOF", B(0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xc0, 0, 8, 8, 0, 1, 0, 1, 1), -1, 0, 0},
	{"jpeg segment past the end", B(0xff, 0xd8, 0xff, 0xe0, 0xff, 0xf0, 0, 0), -1, 0, 0},
	{"jpeg length below 2", B(0xff, 0xd8, 0xff, 0xe0, 0, 1, 0xff, 0xc0, 0, 8, 8, 0, 1, 0, 1, 1), -1, 0, 0},
	{"jpeg height 0 (DNL)", B(0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 0, 0, 1, 1, 1, 0x11, 0), -1, 0, 0},
	{"jp2 box length past the end", B(0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n', 0xff, 0, 0, 0, 'j',
					  'p', '2', 'h', 0, 0, 0, 22, 'i', 'h', 'd', 'r'), -1, 0, 0},
	{"jp2 box length 1 huge", B(0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n', 0, 0, 0, 1, 'j', 'p', '2',
				    'h', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), -1, 0, 0},
	{"j2k offset beyond size", B(0xff, 0x4f, 0xff, 0x51, 0, 41, 0, 0, 0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 10, 0, 0,
				     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), -1, 0, 0},
};

Test(image_header, table)
{
	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		const row *r = &rows[k];
		int64_t h = -1, w = -1;
		int32_t c = -1;
		bool ok = image_size(r->p, r->n, &h, &w, &c);
		if (r->h < 0) {
			cr_expect(!ok, "%s: accepted as %lld x %lld", r->what, (long long)h, (long long)w);
			cr_expect(h == -1 && w == -1 && c == -1, "%s: outputs written on refusal", r->what);
			continue;
		}
		cr_expect(ok, "%s: refused", r->what);
		cr_expect(h == r->h && w == r->w && c == r->c, "%s: got %lld x %lld x %d, want %lld x %lld x %d",
			  r->what, (long long)h, (long long)w, c, (long long)r->h, (long long)r->w, r->c);
	}
}

/* Every valid header cut at every length: never a read outside the copy (ASan sees
 * the exact-size malloc), and a cut that keeps the size fields must agree. */
Test(image_header, truncated)
{
	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		const row *r = &rows[k];
		for (size_t len = 0; len < r->n; len++) {
			uint8_t *copy = malloc(len ? len : 1);
			cr_assert_not_null(copy);
			memcpy(copy, r->p, len);
			int64_t h = -1, w = -1;
			int32_t c;
			if (image_size(copy, len, &h, &w, &c) && r->h > 0)
				cr_expect(h == r->h && w == r->w, "%s cut at %zu: %lld x %lld", r->what, len,
					  (long long)h, (long long)w);
			free(copy);
		}
	}
}

/* Pseudo-random bytes behind each format's signature: refused or a size, never a crash. */
Test(image_header, garbage_after_signatures)
{
	static const char *sigs[] = {"\x89PNG\r\n\x1a\n", "BM", "P6", "II*", "MM", "RIFF\0\0\0\0WEBP",
				     "\xff\xd8\xff", "\0\0\0\x0cjP  \r\n\x87\n", "\xff\x4f\xff\x51"};
	static const size_t siglen[] = {8, 2, 2, 3, 2, 12, 3, 12, 4};
	uint32_t seed = 12345;
	for (int round = 0; round < 2000; round++) {
		size_t s = (size_t)round % (sizeof sigs / sizeof sigs[0]);
		size_t len = siglen[s] + (size_t)(round % 97);
		uint8_t *buf = malloc(len);
		cr_assert_not_null(buf);
		memcpy(buf, sigs[s], siglen[s]);
		for (size_t i = siglen[s]; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (uint8_t)(seed >> 16);
		}
		int64_t h = 0, w = 0;
		if (image_size(buf, len, &h, &w, NULL))
			cr_expect(h >= 1 && w >= 1 && h <= INT32_MAX && w <= INT32_MAX);
		free(buf);
	}
}
