/**
 * The viewer's one stylesheet, served as /<token>/style.css (the CSP allows no inline style).
 * Light and dark palettes whose text pairs all meet WCAG AA (4.5:1; test/cli/serve-browser.test.ts
 * measures every text node of the pages in both modes). No fonts or images from anywhere.
 */
export const SERVE_CSS = `
:root { color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa; --link: #0550ae;
  --user: #ddf4ff; --user-edge: #0969da; --asst-edge: #8c959f; --tool: #f6f8fa;
  --compact: #fff8c5; --compact-edge: #9a6700; --reset: #ffebe9; --reset-edge: #cf222e; --mark: #fff8c5; --target: #fff1c2;
  --seg: #0969da; --seg-odd: #0550ae; --seg-current: #1a7f37; --seg-restored: #8250df; --seg-text: #ffffff;
  --err: #cf222e; --warn: #9a6700; --ok: #1a7f37; --focus: #0969da; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #161b22; --link: #58a6ff;
  --user: #0f2744; --user-edge: #4493f8; --asst-edge: #656c76; --tool: #161b22;
  --compact: #2e2400; --compact-edge: #d29922; --reset: #3b1219; --reset-edge: #f85149; --mark: #5c4700; --target: #3a3000;
  --seg: #1f6feb; --seg-odd: #1158c7; --seg-current: #1a7f37; --seg-restored: #8250df; --seg-text: #ffffff;
  --err: #ff7b72; --warn: #d29922; --ok: #3fb950; --focus: #58a6ff; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--link); } a:focus-visible, input:focus-visible, select:focus-visible, button:focus-visible, summary:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .6rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header.top nav { display: flex; gap: 1rem; } header.top form { margin-left: auto; display: flex; gap: .4rem; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
h1 { font-size: 1.3rem; margin: .4rem 0 .6rem; word-break: break-all; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
p.store, p.note { color: var(--muted); font-size: .85rem; margin: .2rem 0; word-break: break-all; }
p.warn { color: var(--warn); } p.error { color: var(--err); font-weight: 600; }
input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .25rem .5rem; }
button, a.button { cursor: pointer; background: var(--panel); }
a.button { display: inline-block; padding: .2rem .6rem; border: 1px solid var(--line); border-radius: 6px; text-decoration: none; font-size: .85rem; margin: 0 .3rem .3rem 0; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem .9rem; align-items: end; margin: .5rem 0 1rem; padding: .6rem .8rem; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
form.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); gap: .15rem; }
form.filters label.check { flex-direction: row; align-items: center; gap: .3rem; color: var(--fg); font-size: .9rem; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.key { word-break: break-all; } td.code code { word-break: normal; white-space: nowrap; } code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; word-break: break-all; }
pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .82rem; background: var(--panel); border: 1px solid var(--line); padding: .6rem .75rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: .4rem 0; }
nav.pager { display: flex; gap: .8rem; align-items: center; margin: .8rem 0; font-size: .9rem; }
nav.tabs { display: flex; gap: .4rem; margin: 1rem 0 .4rem; border-bottom: 1px solid var(--line); }
nav.tabs a { padding: .35rem .8rem; text-decoration: none; border: 1px solid transparent; border-bottom: none; border-radius: 6px 6px 0 0; }
nav.tabs a[aria-current] { border-color: var(--line); background: var(--panel); color: var(--fg); font-weight: 600; }
.sev-error { color: var(--err); font-weight: 700; } .sev-warn { color: var(--warn); font-weight: 700; } .sev-info { color: var(--muted); font-weight: 700; }
.divider { margin: 1.6rem 0 .8rem; padding: .5rem .9rem; border-left: 4px solid var(--seg); background: var(--panel); border: 1px solid var(--line); border-left-width: 4px; border-radius: 6px; }
.divider.after-reset { border-left-color: var(--reset-edge); background: var(--reset); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.divider strong { display: block; } .divider span { font-size: .85rem; }
article.msg { margin: .6rem 0; padding: .5rem .9rem .6rem; border-radius: 8px; border-left: 4px solid var(--asst-edge); background: var(--bg); border-top: 1px solid var(--line); border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); }
article.msg.user { background: var(--user); border-left-color: var(--user-edge); }
article.msg.toolResult { background: var(--tool); }
article.msg.compaction { background: var(--compact); border-left-color: var(--compact-edge); }
article.msg.reset { background: var(--reset); border-left-color: var(--reset-edge); }
article.msg.offbranch { border-style: dashed; }
article.msg:target { outline: 3px solid var(--focus); background: var(--target); }
.meta { display: flex; flex-wrap: wrap; gap: .3rem .75rem; align-items: baseline; font-size: .8rem; color: var(--muted); margin-bottom: .2rem; }
.meta .role { font-weight: 700; color: var(--fg); text-transform: uppercase; letter-spacing: .04em; font-size: .75rem; }
.meta a.pos { margin-left: auto; color: var(--muted); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
details { margin: .3rem 0; } details > summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
details.thinking .body { white-space: pre-wrap; font-style: italic; color: var(--muted); padding: .25rem 0 0 .75rem; border-left: 2px solid var(--line); }
mark { background: var(--mark); color: var(--fg); padding: 0 .1em; border-radius: 2px; }
ol.hits { padding-left: 1.4rem; } ol.hits li { margin: .6rem 0; } ol.hits .where { font-size: .85rem; color: var(--muted); }
ol.hits .snippet { white-space: pre-wrap; overflow-wrap: anywhere; }
.empty { color: var(--muted); font-style: italic; }
figure.timeline { margin: .5rem 0 1rem; padding: .5rem; border: 1px solid var(--line); border-radius: 8px; background: var(--panel); }
figure.timeline figcaption { font-size: .82rem; color: var(--muted); display: flex; flex-wrap: wrap; gap: .3rem 1.1rem; }
figure.timeline figcaption .swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: -.1rem; margin-right: .25rem; }
.swatch.seg { background: var(--seg); } .swatch.current { background: var(--seg-current); } .swatch.restored { background: var(--seg-restored); }
.swatch.reset { background: var(--reset-edge); } .swatch.compaction { background: var(--compact-edge); } .swatch.deleted { background: var(--fg); }
svg.timeline { display: block; max-width: 100%; height: auto; }
svg.timeline .segment rect { fill: var(--seg); } svg.timeline .segment.odd rect { fill: var(--seg-odd); }
svg.timeline .segment.current rect { fill: var(--seg-current); } svg.timeline .segment.restored rect { fill: var(--seg-restored); }
svg.timeline .seg-label { fill: var(--seg-text); font-size: 13px; font-weight: 700; text-anchor: middle; }
svg.timeline .boundary line { stroke-width: 3; } svg.timeline .reset line, svg.timeline .reset path { stroke: var(--reset-edge); fill: var(--reset-edge); }
svg.timeline .deleted line, svg.timeline .deleted path { stroke: var(--fg); fill: var(--fg); stroke-dasharray: 4 3; }
svg.timeline .restore line, svg.timeline .restore path { stroke: var(--seg-restored); fill: var(--seg-restored); }
svg.timeline .mark-label { fill: var(--fg); font-size: 12px; text-anchor: middle; }
svg.timeline .comp-label { fill: var(--fg); font-size: 11px; text-anchor: middle; }
svg.timeline .compaction path { fill: var(--compact-edge); stroke: var(--bg); stroke-width: 1.5; }
svg.timeline .tick.end { text-anchor: end; }
svg.timeline .axis { stroke: var(--line); stroke-width: 1; } svg.timeline .tick { fill: var(--muted); font-size: 12px; }
`;

/** The viewer's icon (a tab needs one; without it the browser asks for /favicon.ico, which has no token). */
export const SERVE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/><path d="M3 11h3V5H3zm4 0h2V5H7zm3 0h3V5h-3z" fill="#fff"/></svg>`;
