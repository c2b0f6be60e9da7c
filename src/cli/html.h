/* html.h: what the parts of `check --format html` share (format_html.c writes the
 * document, html_draw.c a finding's drawing, html_assets.c its style and script,
 * csp_hash.c the policy that allows them, html_text.c escaping).
 *
 * The document is one self-contained file: no network, no external script, style or
 * font, and a strict Content-Security-Policy that allows exactly its own inline
 * <style> and <script> by their SHA-256. It reads completely without JavaScript;
 * the script only filters findings and opens the value table at a link's target.
 */
#ifndef OSH_CLI_HTML_H
#define OSH_CLI_HTML_H

#include "check.h"

#include <stdint.h>

/* "'sha256-" + 44 base64 characters + "'" and a NUL. */
#define CSP_HASH_SIZE 64

void sha256(const void *data, size_t n, uint8_t out[32]);
/* The CSP source expression that allows an inline block whose text is `text`. */
void csp_hash(const char *text, char out[CSP_HASH_SIZE]);

/* s as HTML text (also fit for attribute values in double quotes): <, >, &, " and '
 * escaped, bytes that are not UTF-8 as U+FFFD, and the controls and hidden
 * characters (escape.c) as the escapes JSON writes for them ("\r", "\u202e"), so
 * that the page reads as --format json. NULL prints nothing. */
void html_text(FILE *f, const char *s);
/* The same, cut to at most `chars` characters shown with "…" at the end when longer. */
void html_text_cut(FILE *f, const char *s, size_t chars);
/* Characters the page shows for s (code points; an invalid byte counts one, an
 * escape its length). */
size_t utf8_chars(const char *s);

/* The <style> and <script> text of the document. Static strings. */
const char *html_style(void);
const char *html_script(void);

/* A finding's neighbourhood as inline SVG (or a line saying there is none to draw).
 * id: the finding's element id, from which the drawing's ids are made; anchors:
 * the file's prefix for links to node entries ("f0"), and main_nodes says, per
 * main-graph node, whether the value table has an entry to link to (NULL: none). */
void html_draw(FILE *f, osh_model *m, const osh_diag *d, const char *anchors, const bool *main_nodes);

#endif
