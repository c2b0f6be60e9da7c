/* image_header.c: the size of an encoded image, read from its header (image_size).
 *
 * Invariant: no read outside p[0..n). Every offset is checked against n before it is
 * read (offsets that come from the file are compared by subtraction, never by adding
 * to them), so a truncated or hostile header ends in `false`, never in a crash. A
 * size of 0 or above INT32_MAX is refused: no format here encodes one that decodes.
 */
#include "passes/rules/image_header.h"

#include <string.h>

/* ---- bounded reads -------------------------------------------------------------- */

/* True when p[off..off+len) lies inside p[0..n). */
static bool has(size_t n, size_t off, size_t len)
{
	return off <= n && len <= n - off;
}

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t le16(const uint8_t *p) { return (uint32_t)p[1] << 8 | p[0]; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static uint32_t le24(const uint8_t *p) { return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }

typedef struct img {
	int64_t h, w;
	int32_t c;
} img;

static bool set(img *r, uint64_t h, uint64_t w, int32_t c)
{
	if (h == 0 || w == 0 || h > INT32_MAX || w > INT32_MAX)
		return false;
	r->h = (int64_t)h;
	r->w = (int64_t)w;
	r->c = c;
	return true;
}

/* ---- formats -------------------------------------------------------------------- */

/* IHDR is always the first chunk: width and height big-endian at 16 and 20, the
 * colour type at 25. A palette (3) decodes to indices: no plain channel count. */
static bool png(const uint8_t *p, size_t n, img *r)
{
	static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	static const int32_t by_type[7] = {1, 0, 3, 0, 2, 0, 4};
	if (!has(n, 0, 26) || memcmp(p, sig, 8) || memcmp(p + 12, "IHDR", 4))
		return false;
	return set(r, be32(p + 20), be32(p + 16), p[25] < 7 ? by_type[p[25]] : 0);
}

/* BITMAPCOREHEADER (12 bytes) has 16-bit sizes; the later headers (40 and more)
 * signed 32-bit ones, the height negative for a top-down image. Only 24 bits per
 * pixel is plainly three channels (32 may or may not carry alpha). */
static bool bmp(const uint8_t *p, size_t n, img *r)
{
	if (!has(n, 0, 18) || p[0] != 'B' || p[1] != 'M')
		return false;
	uint32_t dib = le32(p + 14);
	if (dib == 12) {
		if (!has(n, 14, 12))
			return false;
		return set(r, le16(p + 20), le16(p + 18), le16(p + 24) == 24 ? 3 : 0);
	}
	if (dib < 40 || !has(n, 14, 16))
		return false;
	int64_t w = (int32_t)le32(p + 18), h = (int32_t)le32(p + 22);
	if (w <= 0)
		return false;
	return set(r, (uint64_t)(h < 0 ? -h : h), (uint64_t)w, le16(p + 28) == 24 ? 3 : 0);
}

/* Skips whitespace and '#' comments (to the end of the line) of a PNM header, then
 * reads one decimal number. */
static bool pnm_number(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
	while (*i < n) {
		uint8_t ch = p[*i];
		if (ch == '#') {
			while (*i < n && p[*i] != '\n' && p[*i] != '\r')
				(*i)++;
		} else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f') {
			(*i)++;
		} else {
			break;
		}
	}
	if (*i >= n || p[*i] < '0' || p[*i] > '9')
		return false;
	uint64_t x = 0;
	while (*i < n && p[*i] >= '0' && p[*i] <= '9') {
		x = x * 10 + (uint64_t)(p[*i] - '0');
		if (x > INT32_MAX)
			return false;
		(*i)++;
	}
	/* a number cut off by the end of the data may be longer than what we saw */
	if (*i >= n)
		return false;
	*v = x;
	return true;
}

/* P1/P4 bitmaps and P2/P5 graymaps have one channel, P3/P6 pixmaps three. */
static bool pnm(const uint8_t *p, size_t n, img *r)
{
	if (!has(n, 0, 2) || p[0] != 'P' || p[1] < '1' || p[1] > '6')
		return false;
	size_t i = 2;
	uint64_t w, h;
	if (i >= n || (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r' && p[i] != '#'))
		return false;
	if (!pnm_number(p, n, &i, &w) || !pnm_number(p, n, &i, &h))
		return false;
	return set(r, h, w, p[1] == '3' || p[1] == '6' ? 3 : 1);
}

/* The first IFD of a TIFF: ImageWidth (256), ImageLength (257), SHORT or LONG;
 * SamplesPerPixel (277, default 1) and PhotometricInterpretation (262) for the
 * channels. Values of one SHORT or LONG sit in the entry itself. */
static bool tiff(const uint8_t *p, size_t n, img *r)
{
	if (!has(n, 0, 8))
		return false;
	bool le;
	if (!memcmp(p, "II*\0", 4))
		le = true;
	else if (!memcmp(p, "MM\0*", 4))
		le = false;
	else
		return false;
	uint32_t (*u16)(const uint8_t *) = le ? le16 : be16;
	uint32_t (*u32)(const uint8_t *) = le ? le32 : be32;
	size_t ifd = u32(p + 4);
	if (!has(n, ifd, 2))
		return false;
	size_t count = u16(p + ifd);
	if (!has(n, ifd + 2, count * 12))
		return false;
	uint64_t w = 0, h = 0;
	uint32_t spp = 1, photometric = UINT32_MAX;
	for (size_t k = 0; k < count; k++) {
		const uint8_t *e = p + ifd + 2 + k * 12;
		uint32_t tag = u16(e), type = u16(e + 2), v;
		if (u32(e + 4) != 1)
			continue;
		if (type == 3)
			v = u16(e + 8);
		else if (type == 4)
			v = u32(e + 8);
		else
			continue;
		if (tag == 256)
			w = v;
		else if (tag == 257)
			h = v;
		else if (tag == 277)
			spp = v;
		else if (tag == 262)
			photometric = v;
	}
	int32_t c = 0;
	if (spp == 3 && (photometric == 2 || photometric == 6))
		c = 3;
	else if (spp == 1 && (photometric == 0 || photometric == 1))
		c = 1;
	return set(r, h, w, c);
}

/* RIFF....WEBP, then the first chunk's payload at 20: 'VP8 ' (lossy, a key frame's
 * 14-bit sizes after the start code 9d 01 2a), 'VP8L' (lossless: 14-bit size - 1
 * pairs after the signature 0x2f, then the alpha hint) or 'VP8X' (extended: 24-bit
 * canvas size - 1, the alpha flag 0x10). */
static bool webp(const uint8_t *p, size_t n, img *r)
{
	if (!has(n, 0, 20) || memcmp(p, "RIFF", 4) || memcmp(p + 8, "WEBP", 4))
		return false;
	const uint8_t *d = p + 20;
	if (!memcmp(p + 12, "VP8 ", 4)) {
		if (!has(n, 20, 10) || d[3] != 0x9d || d[4] != 0x01 || d[5] != 0x2a)
			return false;
		return set(r, le16(d + 8) & 0x3fff, le16(d + 6) & 0x3fff, 3);
	}
	if (!memcmp(p + 12, "VP8L", 4)) {
		if (!has(n, 20, 5) || d[0] != 0x2f)
			return false;
		uint32_t bits = le32(d + 1);
		return set(r, ((bits >> 14) & 0x3fff) + 1, (bits & 0x3fff) + 1, (bits >> 28) & 1 ? 4 : 3);
	}
	if (!memcmp(p + 12, "VP8X", 4)) {
		if (!has(n, 20, 10))
			return false;
		return set(r, (uint64_t)le24(d + 7) + 1, (uint64_t)le24(d + 4) + 1, d[0] & 0x10 ? 4 : 3);
	}
	return false;
}

/* Walks the marker segments to the first SOFn (C0-CF but C4 DHT, C8 JPG, CC DAC):
 * height at +5, width at +7 from its FF, then the component count. A height of 0
 * (given later by DNL) is left unknown. */
static bool jpeg(const uint8_t *p, size_t n, img *r)
{
	if (!has(n, 0, 3) || p[0] != 0xff || p[1] != 0xd8 || p[2] != 0xff)
		return false;
	size_t i = 2;
	for (;;) {
		if (!has(n, i, 2) || p[i] != 0xff)
			return false;
		while (i + 1 < n && p[i + 1] == 0xff) /* fill bytes */
			i++;
		if (!has(n, i, 2))
			return false;
		uint8_t m = p[i + 1];
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd8)) { /* no length */
			i += 2;
			continue;
		}
		if (m == 0xd9 || m == 0xda || m == 0x00) /* EOI, SOS: no frame header came */
			return false;
		if (!has(n, i + 2, 2))
			return false;
		size_t len = be16(p + i + 2);
		if (len < 2)
			return false;
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
			if (len < 8 || !has(n, i, 10))
				return false;
			uint32_t nf = p[i + 9];
			return set(r, be16(p + i + 5), be16(p + i + 7), nf >= 1 && nf <= 4 ? (int32_t)nf : 0);
		}
		if (!has(n, i + 2, len))
			return false;
		i += 2 + len;
	}
}

/* The SIZ segment right after SOC: the image area is Xsiz - XOsiz by Ysiz - YOsiz,
 * Csiz components. */
static bool j2k_codestream(const uint8_t *p, size_t n, img *r)
{
	if (!has(n, 0, 42) || be16(p) != 0xff4f || be16(p + 2) != 0xff51)
		return false;
	uint32_t xs = be32(p + 8), ys = be32(p + 12), xo = be32(p + 16), yo = be32(p + 20);
	uint32_t cs = be16(p + 40);
	if (xo >= xs || yo >= ys)
		return false;
	return set(r, ys - yo, xs - xo, cs >= 1 && cs <= 4 ? (int32_t)cs : 0);
}

/* One box of a JP2 file at p[i..end): its type and payload. A length of 1 is followed
 * by a 64-bit one, 0 runs to the end. */
static bool jp2_box(const uint8_t *p, size_t end, size_t i, uint32_t *type, size_t *body, size_t *next)
{
	if (!has(end, i, 8))
		return false;
	uint64_t len = be32(p + i);
	size_t hdr = 8;
	*type = be32(p + i + 4);
	if (len == 1) {
		if (!has(end, i, 16))
			return false;
		len = (uint64_t)be32(p + i + 8) << 32 | be32(p + i + 12);
		hdr = 16;
	} else if (len == 0) {
		len = end - i;
	}
	if (len < hdr || len > end - i)
		return false;
	*body = i + hdr;
	*next = i + (size_t)len;
	return true;
}

/* A JP2 file: the signature box, then top-level boxes; 'jp2h' holds 'ihdr' (height,
 * width, 32-bit big-endian, then the component count). */
static bool jp2(const uint8_t *p, size_t n, img *r)
{
	static const uint8_t sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n'};
	if (!has(n, 0, 12) || memcmp(p, sig, 12))
		return false;
	uint32_t type;
	size_t body, next;
	for (size_t i = 12; jp2_box(p, n, i, &type, &body, &next); i = next) {
		if (type != 0x6a703268) /* 'jp2h' */
			continue;
		for (size_t j = body; jp2_box(p, next, j, &type, &body, &j);) {
			if (type != 0x69686472) /* 'ihdr' */
				continue;
			if (!has(next, body, 10))
				return false;
			uint32_t nc = be16(p + body + 8);
			return set(r, be32(p + body), be32(p + body + 4), nc >= 1 && nc <= 4 ? (int32_t)nc : 0);
		}
		return false;
	}
	return false;
}

bool image_size(const uint8_t *p, size_t n, int64_t *h, int64_t *w, int32_t *channels)
{
	static bool (*const formats[])(const uint8_t *, size_t, img *) = {png, jpeg, bmp, webp, tiff, jp2,
									   j2k_codestream, pnm};
	if (!p)
		return false;
	for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
		img r;
		if (formats[k](p, n, &r)) {
			*h = r.h;
			*w = r.w;
			if (channels)
				*channels = r.c;
			return true;
		}
	}
	return false;
}
