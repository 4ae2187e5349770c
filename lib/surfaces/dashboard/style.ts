/**
 * The page's stylesheet: light, large numbers, one colour per task state used everywhere (the
 * counts, the table heads, the chart, the timeline). Served inline under the response's nonce.
 */
export const CSS = `
:root {
  --bg: #f5f6f8; --card: #fff; --ink: #1b2330; --dim: #6b7687; --line: #e3e7ee; --soft: #f0f2f6;
  --ready: #2563eb; --delayed: #7c3aed; --waiting: #0891b2; --active: #0e9f6e; --dead: #dc2626;
  --expired: #b45309; --deduplicated: #64748b; --completed: #16a34a; --failed: #f59e0b;
  --radius: 12px;
  color-scheme: light;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
code, pre, .hash, .worker { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
a { color: var(--ready); text-decoration: none; }
a:hover { text-decoration: underline; }
.dim { color: var(--dim); font-weight: 400; }
.invalid { color: var(--dead); font-style: italic; white-space: nowrap; }

header.top { display: flex; align-items: center; gap: 16px; padding: 14px 28px; background: #111827; color: #f3f4f6; }
header.top .brand { font-weight: 700; font-size: 20px; letter-spacing: .02em; }
header.top .brand span { color: #a5b4fc; }
header.top .live { margin-left: auto; display: flex; align-items: center; gap: 8px; font-size: 13px; color: #cbd5e1; }
.pulse { width: 9px; height: 9px; border-radius: 50%; background: #94a3b8; }
.live[data-state="live"] .pulse { background: #34d399; box-shadow: 0 0 0 3px rgba(52, 211, 153, .25); }
.live[data-state="error"] .pulse { background: #f87171; }

main { max-width: 1240px; margin: 0 auto; padding: 22px 28px 48px; display: grid; gap: 18px; }
section.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 18px 20px; min-width: 0; }
section.plain { padding: 0; }
h1 { font-size: 26px; margin: 0; font-weight: 700; }
h2 { font-size: 16px; margin: 0 0 12px; display: flex; align-items: center; gap: 8px; }
h2 .sub { color: var(--dim); font-weight: 400; font-size: 13px; }
h2 form { margin-left: auto; }
.count { background: var(--soft); border-radius: 999px; padding: 1px 9px; font-size: 13px; font-variant-numeric: tabular-nums; }
.dot { width: 10px; height: 10px; border-radius: 50%; display: inline-block; }
.dot.delayed { background: var(--delayed); } .dot.waiting { background: var(--waiting); } .dot.active { background: var(--active); } .dot.dead { background: var(--dead); }
.empty { color: var(--dim); margin: 4px 0; }
.more { color: var(--dim); font-size: 13px; margin: 10px 0 0; }

.title { display: flex; align-items: center; gap: 12px; margin-bottom: 14px; flex-wrap: wrap; }
.badge { font-size: 12px; font-weight: 600; padding: 2px 10px; border-radius: 999px; text-transform: uppercase; letter-spacing: .04em; }
.badge.running { background: #dcfce7; color: #166534; }
.badge.paused { background: #fef3c7; color: #92400e; }
.banner { background: #fffbeb; border: 1px solid #fcd34d; color: #78350f; border-radius: 8px; padding: 10px 14px; margin: 0 0 14px; }

.stats { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 12px; }
.stat { background: var(--card); border: 1px solid var(--line); border-top: 4px solid currentColor; border-radius: 10px; padding: 12px 14px; }
.stat .label { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; font-weight: 600; }
.stat .value { font-size: 40px; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; margin: 4px 0 2px; }
.stat .note { color: var(--dim); font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.ready { color: var(--ready); } .delayed { color: var(--delayed); } .waiting { color: var(--waiting); } .active { color: var(--active); }
.dead { color: var(--dead); } .expired { color: var(--expired); } .deduplicated { color: var(--deduplicated); }
@media (max-width: 980px) { .stats { grid-template-columns: repeat(4, minmax(0, 1fr)); } }
@media (max-width: 560px) { .stats { grid-template-columns: repeat(2, minmax(0, 1fr)); } main, header.top { padding-left: 12px; padding-right: 12px; } }

.scroll { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: middle; }
thead th { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--dim); font-weight: 600; white-space: nowrap; }
tbody tr:last-child td, tbody tr:last-child th { border-bottom: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.end { text-align: right; white-space: nowrap; }
table.queues td.num { font-size: 22px; font-weight: 700; }
table.queues th[scope="row"] { font-size: 16px; min-width: 9em; word-break: break-word; }
tr.selected { background: #f5f7ff; }
tr.selected th[scope="row"] { box-shadow: inset 3px 0 0 var(--ready); }

td.task { max-width: 360px; }
code.data { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: 13px; }
.hash { color: var(--dim); font-size: 11px; margin-top: 2px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tag { display: inline-block; margin-left: 6px; padding: 0 6px; border-radius: 4px; background: var(--soft); font-family: system-ui, sans-serif; }
td.worker code { font-size: 12px; }
td.lease { font-weight: 700; }
td.lease.ok { color: var(--active); } td.lease.short { color: var(--expired); } td.lease.lapsed { color: var(--dead); }
td.error { min-width: 220px; max-width: 320px; color: #b91c1c; }
.dead-tasks td.task { max-width: 220px; }
td.error code { white-space: pre-wrap; word-break: break-word; font-size: 13px; }
td.error summary { cursor: pointer; }
td.error pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; background: #fef2f2; border-radius: 6px; padding: 8px; margin: 6px 0 0; max-height: 240px; overflow: auto; }
td.due { font-weight: 600; color: var(--delayed); }
.pin { display: inline-grid; place-items: center; width: 22px; height: 22px; border-radius: 50%; background: var(--delayed); color: #fff; font-size: 12px; font-weight: 700; }

td.progress { max-width: 220px; }
td.progress code.data { color: var(--active); }
form.find { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 0 0 4px; font-size: 13px; color: var(--dim); }
form.find label { display: flex; gap: 6px; align-items: center; }
form.find label.grow { flex: 1; min-width: 240px; }
form.find input { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; padding: 5px 8px; border-radius: 7px; border: 1px solid var(--line); color: var(--ink); min-width: 0; }
form.find label.grow input { flex: 1; }
.found h3 { font-size: 14px; font-weight: 600; margin: 14px 0 8px; word-break: break-all; }
dl.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 6px 16px; margin: 0; font-size: 14px; }
dl.fields dt { color: var(--dim); }
dl.fields dd { margin: 0; min-width: 0; }
pre.value { margin: 0; white-space: pre-wrap; word-break: break-word; font-size: 12px; background: var(--soft); border-radius: 6px; padding: 6px 8px; max-height: 240px; overflow: auto; }
pre.value.error { background: #fef2f2; color: #b91c1c; }
.state { font-weight: 700; }
.state.done { color: var(--completed); } .state.cancelled { color: var(--deduplicated); }
.state.pending { color: var(--delayed); } .state.gone { color: var(--dim); }
ul.deps { list-style: none; margin: 0; padding: 0; display: grid; gap: 2px; font-size: 13px; }
ul.deps code { word-break: break-all; }
ol.logs { list-style: none; margin: 0; padding: 6px 8px; display: grid; gap: 2px; font-size: 12px; background: var(--soft); border-radius: 6px; max-height: 240px; overflow: auto; }
ol.logs time { color: var(--dim); margin-right: 6px; }
ol.logs code { white-space: pre-wrap; word-break: break-word; }

form.act { display: inline-flex; gap: 4px; margin: 0 0 0 6px; align-items: center; }
.actions { display: flex; flex-wrap: wrap; justify-content: flex-end; gap: 6px; }
.actions form.act { margin: 0; }
.btn { font: inherit; font-size: 13px; font-weight: 600; border-radius: 7px; padding: 5px 12px; cursor: pointer; border: 1px solid var(--line); background: #fff; color: var(--ink); }
.btn:hover { background: var(--soft); }
.btn.primary { background: var(--ready); border-color: var(--ready); color: #fff; }
.btn.primary:hover { background: #1d4ed8; }
.btn.danger { color: var(--dead); border-color: #fecaca; }
.btn.danger:hover { background: #fef2f2; }
.btn:disabled { opacity: .5; cursor: progress; }
.limit-forms { display: flex; flex-wrap: wrap; gap: 10px 28px; margin-top: 14px; font-size: 13px; }
.limit-form { display: flex; align-items: center; flex-wrap: wrap; gap: 4px; }
.limit-form label { display: inline-flex; align-items: center; gap: 6px; }
.limit-form input { font: inherit; width: 7em; padding: 4px 6px; border-radius: 7px; border: 1px solid var(--line); }
select { font: inherit; font-size: 13px; padding: 4px 6px; border-radius: 7px; border: 1px solid var(--line); background: #fff; }

.legend { display: flex; gap: 22px; font-size: 14px; margin: -4px 0 6px; flex-wrap: wrap; }
.legend b { font-size: 18px; font-variant-numeric: tabular-nums; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 3px; margin-right: 6px; vertical-align: -1px; }
.swatch.completed { background: var(--completed); } .swatch.failed { background: var(--failed); } .swatch.dead { background: var(--dead); }
svg { display: block; width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: var(--dim); }
svg .grid { stroke: var(--line); stroke-dasharray: 3 4; }
svg .baseline { stroke: #c3cad6; }
svg .bar .hit { fill: transparent; }
svg .bar:hover .hit { fill: var(--soft); }
svg rect.completed { fill: var(--completed); }
svg rect.failed { fill: var(--failed); }
svg rect.dead { fill: var(--dead); }
svg .trimmed { fill: var(--soft); }
svg .tick { stroke: #c3cad6; }
svg .now { stroke: var(--delayed); stroke-width: 2; stroke-dasharray: 4 3; }
svg .stem { stroke: #c4b5fd; }
svg .dot-task circle { fill: var(--delayed); stroke: #fff; stroke-width: 2; }
svg .dot-task text { fill: #fff; font-weight: 700; font-size: 11px; }

header.top { flex-wrap: wrap; }
header.top .zone { font-size: 13px; color: #cbd5e1; }
nav.tabs { max-width: 1240px; margin: 14px auto 0; padding: 0 28px; display: flex; flex-wrap: wrap; gap: 6px; }
nav.tabs a { padding: 5px 12px; border-radius: 999px; background: var(--card); border: 1px solid var(--line); font-size: 13px; font-weight: 600; color: var(--ink); }
nav.tabs a.on { background: var(--ink); border-color: var(--ink); color: #fff; }
.head-actions { margin-left: auto; display: inline-flex; flex-wrap: wrap; gap: 6px; }
.head-actions form.act { margin: 0; }
h2 { flex-wrap: wrap; }
.pager { display: flex; align-items: center; gap: 8px; margin: 10px 0; font-size: 13px; color: var(--dim); flex-wrap: wrap; }
.pager span { margin-right: auto; font-variant-numeric: tabular-nums; }
a.btn { display: inline-block; }
a.btn:hover { text-decoration: none; }
.note { color: var(--dim); font-size: 13px; margin: 8px 0; }
.crumbs { margin: 0 0 4px; font-size: 13px; }
.actions.start { justify-content: flex-start; margin-top: 14px; }
pre.value.payload { max-height: 70vh; }
table.history pre.value { max-height: 5.6em; }
form.token { margin-top: 14px; }
.dot.ready { background: var(--ready); }
td.task a { color: inherit; }
table.workers ul.deps code, table.groups ul.deps code { word-break: normal; white-space: nowrap; }
td.task .hash a { color: var(--ready); }
@media (max-width: 560px) {
  nav.tabs { padding: 0 12px; }
  td.task { max-width: 220px; }
  form.find label.grow { min-width: 0; flex-basis: 100%; }
  .stat .value { font-size: 30px; }
}

/* The daily actions: a priority that posts when picked (its Set button only without script), the
   chart's span switch, progress bars, the add form. */
.js .btn.auto { display: none; }
form.act select[name="priority"] { max-width: 11em; }
h2 .spans { margin-left: auto; display: inline-flex; gap: 4px; }
h2 .spans + .spans, h2 .spans ~ form { margin-left: 6px; }
.btn.on { background: var(--ink); border-color: var(--ink); color: #fff; }
a.btn { display: inline-block; }
a.btn:hover { text-decoration: none; }
.bar { display: inline-flex; align-items: center; gap: 8px; white-space: nowrap; }
.bar progress { width: 120px; height: 10px; accent-color: var(--active); }
.bar b { font-variant-numeric: tabular-nums; color: var(--active); font-size: 13px; }
.tag.schedule { background: #ede9fe; color: var(--delayed); }
form.act.add { display: block; margin: 12px 0 0; }
.fields-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 10px 16px; }
label.field { display: grid; gap: 4px; font-size: 13px; color: var(--dim); min-width: 0; }
label.field.wide { margin-top: 12px; }
label.field input, label.field textarea, label.field select { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; padding: 6px 8px; border-radius: 7px; border: 1px solid var(--line); color: var(--ink); min-width: 0; width: 100%; }
label.field textarea[aria-invalid="true"] { border-color: var(--dead); background: #fef2f2; }
.field-error { color: var(--dead); font-size: 13px; min-height: 1.2em; margin: 6px 0; }
.add-result { font-size: 14px; margin: 10px 0 0; word-break: break-all; }

/* At a phone's width, a row with actions becomes a card: its cells stacked, its buttons wrapping
   under them, so every button is on screen without scrolling sideways. */
@media (max-width: 560px) {
  table.rows thead { display: none; }
  table.rows, table.rows tbody, table.rows tr { display: block; width: 100%; }
  table.rows tr { border-bottom: 1px solid var(--line); padding: 8px 0; }
  table.rows tbody tr:last-child { border-bottom: 0; }
  table.rows td, table.rows th[scope="row"] { display: block; border: 0; padding: 2px 2px; text-align: left; max-width: none; min-width: 0; width: auto; white-space: normal; }
  table.rows td.num { display: inline-block; margin-right: 12px; }
  table.rows td.end { text-align: left; padding-top: 6px; }
  table.rows .actions { justify-content: flex-start; }
  table.rows td[data-count]::before { content: attr(data-count) " "; font-size: 11px; font-weight: 600; color: var(--dim); text-transform: uppercase; }
  table.queues.rows td.num { font-size: 16px; }
  h2 { flex-wrap: wrap; }
  h2 .spans { margin-left: 0; }
}

#toast { position: fixed; right: 20px; bottom: 20px; max-width: 420px; background: #111827; color: #fff; padding: 10px 16px; border-radius: 10px; font-size: 14px; opacity: 0; transform: translateY(8px); transition: opacity .2s, transform .2s; pointer-events: none; }
#toast.show { opacity: 1; transform: none; }
#toast.error { background: #991b1b; }
`;
