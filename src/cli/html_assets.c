/* html_assets.c: the style and the script of the HTML report, inline in it.
 *
 * The script is a progressive enhancement: the filter form is `hidden` in the
 * markup and only shown by the script, so a reader without JavaScript sees every
 * finding and no control that does nothing. It uses addEventListener only: the
 * policy allows no inline handler. Drawings are styled through classes, not style
 * attributes, which the policy would refuse too.
 */
#include "html.h"

static const char css[] =
	":root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#59636e;--line:#d1d9e0;--err:#cf222e;"
	"--warn:#9a6700;--note:#0969da;--hl:#d1242f;--box:#f6f8fa;--focus:#fff8c5;--io:#ddf4ff}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;"
	"--err:#ff7b72;--warn:#d29922;--note:#58a6ff;--hl:#ff7b72;--box:#151b23;--focus:#3d2f00;--io:#0c2d4b}}\n"
	"body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;"
	"max-width:1280px;padding:0 16px 48px}\n"
	"h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 4px;border-bottom:1px solid var(--line)}"
	"h3{font-size:15px;margin:16px 0 4px}\n"
	"table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid var(--line);padding:2px 8px;"
	"text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"code,.mono{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace;font-size:13px}\n"
	".muted{color:var(--muted)}.error{color:var(--err)}.warning{color:var(--warn)}.note{color:var(--note)}\n"
	"details{margin:6px 0}summary{cursor:pointer;font-weight:600}\n"
	"ol.findings{padding-left:0;list-style:none}li.finding{border:1px solid var(--line);border-left:4px solid "
	"var(--note);border-radius:4px;margin:10px 0;padding:6px 10px}\n"
	"li.finding.sev-error{border-left-color:var(--err)}li.finding.sev-warning{border-left-color:var(--warn)}\n"
	"li.finding .head{margin:0;font-weight:600}li.finding .msg{margin:4px 0 6px}"
	"li.finding:target{outline:2px solid var(--note)}\n"
	/* Findings off screen are not laid out until scrolled to, so a long report
	 * opens without laying out every drawing first. */
	"li.finding{content-visibility:auto;contain-intrinsic-size:auto 260px}\n"
	".figure{overflow-x:auto}svg.hood{display:block;max-width:100%;height:auto}\n"
	"svg.hood text{font-family:\"DejaVu Sans Mono\",ui-monospace,monospace;font-size:12px;fill:var(--fg)}\n"
	"svg.hood text.what{fill:var(--muted)}svg.hood text.name{font-weight:700}\n"
	"svg.hood text.label{font-size:11px}svg.hood tspan.hl{fill:var(--hl);font-weight:700}\n"
	".box rect{fill:var(--box);stroke:var(--muted);stroke-width:1}"
	".box.input rect,.box.initializer rect,.box.output rect{fill:var(--io)}\n"
	".box.undefined rect{stroke:var(--err);stroke-dasharray:3 2}.box.more rect{stroke-dasharray:4 3;fill:none}\n"
	".box.focus rect{fill:var(--focus);stroke:var(--err);stroke-width:2}\n"
	".edge{fill:none;stroke:var(--muted);stroke-width:1.2}.edge.hl{stroke:var(--hl);stroke-width:1.8}"
	".arrow{fill:var(--muted)}\n"
	"a .box rect:hover{stroke:var(--note);stroke-width:2}\n"
	"#filter{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:6px 0;"
	"z-index:1}#filter fieldset{display:inline-block;border:1px solid var(--line);margin:0 8px 0 0;"
	"padding:2px 8px}#filter label{margin-right:10px;white-space:nowrap}\n"
	"p.file.clean{margin:2px 0}p.file.clean code{font-weight:600}\n"
	"tr:target{background:var(--focus)}svg.bar{vertical-align:middle}svg.bar rect{fill:var(--note)}\n";

static const char js[] =
	"(function () {\n"
	"  'use strict';\n"
	"  var form = document.getElementById('filter');\n"
	"  var findings = Array.prototype.slice.call(document.querySelectorAll('li.finding'));\n"
	"  function checked(name) {\n"
	"    var on = {};\n"
	"    form.querySelectorAll('input[name=' + name + ']').forEach(function (c) { on[c.value] = c.checked; });\n"
	"    return on;\n"
	"  }\n"
	"  function apply() {\n"
	"    var sev = checked('severity'), code = checked('code'), shown = 0;\n"
	"    findings.forEach(function (li) {\n"
	"      var on = sev[li.dataset.severity] !== false && code[li.dataset.code] !== false;\n"
	"      li.hidden = !on;\n"
	"      if (on) shown++;\n"
	"    });\n"
	"    document.getElementById('shown').textContent = shown + ' of ' + findings.length + ' findings shown';\n"
	"  }\n"
	"  /* A link into a closed table opens it. */\n"
	"  function reveal() {\n"
	"    var id = decodeURIComponent(location.hash.slice(1));\n"
	"    var t = id ? document.getElementById(id) : null;\n"
	"    for (var e = t; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;\n"
	"    if (t) t.scrollIntoView({block: 'center'});\n"
	"  }\n"
	"  if (form) {\n"
	"    form.hidden = false;\n"
	"    form.addEventListener('change', apply);\n"
	"    apply();\n"
	"  }\n"
	"  window.addEventListener('hashchange', reveal);\n"
	"  reveal();\n"
	"})();\n";

const char *html_style(void) { return css; }
const char *html_script(void) { return js; }
