/**
 * The report's stylesheet, inlined into every HTML report so it opens offline with no asset
 * to fetch. System fonts only. The print rules lay it out for A4 (and Letter): each major part
 * starts a page, and cards, tables and steps are kept whole where they fit.
 */
export const reportCss = `
:root {
  --ink: #18212f; --ink-soft: #3d4756; --muted: #6a7382; --line: #e2e6ec; --line-strong: #cfd5de;
  --paper: #ffffff; --canvas: #eef1f5; --tint: #f6f8fa; --accent: #1f5f8b; --accent-soft: #e8f1f8;
  --good: #1d7a4c; --good-soft: #e6f4ec; --warn: #9a6200; --warn-soft: #fdf3e1; --bad: #b42318; --bad-soft: #fdecea;
  --mono: "DejaVu Sans Mono", "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace;
  --sans: "Inter", "Segoe UI", "Helvetica Neue", "Liberation Sans", "DejaVu Sans", Arial, sans-serif;
}
* { box-sizing: border-box; }
html { background: var(--canvas); }
body { margin: 0; color: var(--ink); font: 14px/1.55 var(--sans); -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.page { max-width: 960px; margin: 32px auto; background: var(--paper); padding: 48px 56px 56px; border-radius: 10px; box-shadow: 0 1px 3px rgba(16,24,40,.08), 0 8px 24px rgba(16,24,40,.06); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1, h2, h3, h4 { line-height: 1.25; margin: 0; }
p { margin: 0 0 10px; }
code, pre, .mono { font-family: var(--mono); font-size: 12px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }

/* Cover */
.cover { border-bottom: 1px solid var(--line); padding-bottom: 28px; margin-bottom: 28px; }
.eyebrow { display: flex; justify-content: space-between; gap: 16px; font-size: 11px; letter-spacing: .12em; text-transform: uppercase; color: var(--muted); font-weight: 600; }
.eyebrow .run-id { font-family: var(--mono); letter-spacing: 0; text-transform: none; font-weight: 400; }
.cover h1 { font-size: 28px; font-weight: 700; margin: 14px 0 20px; letter-spacing: -.01em; }
.decision-card { display: grid; grid-template-columns: 1fr auto; gap: 6px 24px; align-items: center; background: linear-gradient(135deg, var(--accent-soft), #f4f8fb); border: 1px solid #cfe0ee; border-left: 5px solid var(--accent); border-radius: 8px; padding: 18px 22px; }
.decision-card .label { font-size: 11px; letter-spacing: .1em; text-transform: uppercase; color: var(--accent); font-weight: 700; }
.decision-card .decision { grid-column: 1; font-size: 24px; font-weight: 700; color: var(--ink); word-break: break-word; }
.decision-card .verdicts { grid-column: 2; grid-row: 1 / span 2; display: flex; flex-direction: column; gap: 6px; align-items: flex-end; }
.decision-card.none { background: var(--tint); border-color: var(--line); border-left-color: var(--muted); }
.pill { display: inline-block; border-radius: 999px; padding: 2px 10px; font-size: 12px; font-weight: 600; white-space: nowrap; border: 1px solid transparent; }
.pill.good { background: var(--good-soft); color: var(--good); border-color: #bfe3cf; }
.pill.warn { background: var(--warn-soft); color: var(--warn); border-color: #f3dcb0; }
.pill.bad { background: var(--bad-soft); color: var(--bad); border-color: #f5c6c0; }
.pill.neutral { background: var(--tint); color: var(--ink-soft); border-color: var(--line); }
.facts { display: grid; grid-template-columns: repeat(4, 1fr); gap: 0; margin: 22px 0 0; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.facts div { padding: 10px 14px; border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); min-width: 0; }
.facts div:nth-child(4n) { border-right: none; }
.facts div:nth-last-child(-n+4) { border-bottom: none; }
.facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); font-weight: 600; }
.facts dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }
.strip { display: flex; gap: 12px; align-items: baseline; margin-top: 14px; padding: 10px 14px; border-radius: 8px; background: var(--tint); border: 1px solid var(--line); font-size: 13px; }
.strip .strip-label { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); font-weight: 700; white-space: nowrap; }
.strip.signed { background: var(--good-soft); border-color: #bfe3cf; }
.strip .hash { font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; }

/* Contents */
nav.toc { margin: 0 0 8px; }
nav.toc h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .1em; color: var(--muted); margin-bottom: 8px; }
nav.toc ol { margin: 0; padding: 0; list-style: none; columns: 2; column-gap: 40px; }
nav.toc li { padding: 3px 0; border-bottom: 1px dotted var(--line-strong); break-inside: avoid; display: flex; gap: 8px; }
nav.toc .num { color: var(--muted); width: 1.6em; font-variant-numeric: tabular-nums; }

/* Sections */
section.section { margin-top: 40px; }
section.section > h2 { font-size: 20px; font-weight: 700; padding-bottom: 8px; border-bottom: 2px solid var(--ink); margin-bottom: 16px; display: flex; gap: 10px; align-items: baseline; }
section.section > h2 .num { color: var(--accent); font-variant-numeric: tabular-nums; }
h3 { font-size: 15px; margin: 20px 0 8px; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; }
.markdown p:last-child { margin-bottom: 0; }
.markdown code { background: var(--tint); border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
.markdown pre { background: var(--tint); padding: 10px; border-radius: 6px; overflow-x: auto; }
.markdown ul, .markdown ol { margin: 4px 0 10px; padding-left: 22px; }
.image-placeholder { color: var(--muted); font-style: italic; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 10px 0; background: var(--paper); }
.card.quote { border-left: 4px solid var(--line-strong); background: var(--tint); }
.card.note { border-left: 4px solid var(--warn); background: var(--warn-soft); border-color: #f3dcb0; }
.kv { width: 100%; border-collapse: collapse; }
.kv th { text-align: left; width: 32%; color: var(--muted); font-weight: 600; padding: 7px 12px 7px 0; vertical-align: top; border-bottom: 1px solid var(--line); font-size: 13px; }
.kv td { padding: 7px 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.kv tr:last-child th, .kv tr:last-child td { border-bottom: none; }
.hash { font-family: var(--mono); font-size: 12px; word-break: break-all; }

/* Plans */
ol.plan { margin: 6px 0 4px; padding-left: 0; list-style: none; counter-reset: plan; }
ol.plan li { counter-increment: plan; padding: 5px 10px 5px 36px; position: relative; border-radius: 5px; margin: 2px 0; }
ol.plan li::before { content: counter(plan); position: absolute; left: 8px; top: 5px; width: 20px; height: 20px; border-radius: 50%; background: var(--accent-soft); color: var(--accent); font-size: 11px; font-weight: 700; text-align: center; line-height: 20px; }
ol.plan li.added { background: var(--good-soft); }
ol.plan li.added::after { content: "added"; float: right; font-size: 11px; color: var(--good); font-weight: 700; }
ol.plan li.removed { background: var(--bad-soft); text-decoration: line-through; color: var(--muted); counter-increment: none; }
ol.plan li.removed::before { content: "–"; background: #f7d4d0; color: var(--bad); }
.plan-version { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; break-inside: avoid; }
.plan-version header { display: flex; justify-content: space-between; gap: 12px; align-items: baseline; }
.plan-version .reason { margin: 6px 0 2px; color: var(--ink-soft); }

/* Trace */
.step { border: 1px solid var(--line); border-radius: 10px; margin: 16px 0; overflow: hidden; }
.step > header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between; padding: 9px 16px; background: var(--tint); border-bottom: 1px solid var(--line); }
.step > header h3 { margin: 0; font-size: 14px; }
.step .chips { display: flex; gap: 6px; flex-wrap: wrap; }
.chip { font-size: 11px; padding: 1px 8px; border-radius: 999px; background: var(--paper); border: 1px solid var(--line-strong); color: var(--ink-soft); white-space: nowrap; }
.step .body { padding: 4px 16px 12px; }
.item { padding: 10px 0; border-bottom: 1px dashed var(--line); }
.item:last-child { border-bottom: none; }
.item-label { font-size: 11px; text-transform: uppercase; letter-spacing: .08em; font-weight: 700; color: var(--muted); margin-bottom: 4px; }
.item.repair .item-label, .item.review .item-label { color: var(--warn); }
.query-head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; margin-bottom: 6px; }
.query-head .qid { font-family: var(--mono); font-weight: 700; color: var(--accent); }
.evidence-mark { color: var(--good); font-weight: 700; font-size: 12px; }
pre.code { margin: 0 0 8px; padding: 10px 12px; background: #0f1b2d; color: #e6edf5; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.45; }
pre.review-diff .added { background: var(--good-soft); color: var(--good); }
pre.review-diff .removed { background: var(--bad-soft); color: var(--bad); text-decoration: line-through; }
pre.observation { margin: 6px 0 0; padding: 8px 10px; background: var(--tint); color: var(--ink-soft); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 11px; }
.error-box { background: var(--bad-soft); color: var(--bad); border: 1px solid #f5c6c0; border-radius: 6px; padding: 8px 12px; overflow-wrap: anywhere; }
table.result { border-collapse: collapse; width: 100%; font-size: 12px; margin: 4px 0 4px; font-variant-numeric: tabular-nums; }
table.result th { text-align: left; background: #f0f3f7; border-bottom: 1px solid var(--line-strong); padding: 5px 8px; font-weight: 600; white-space: nowrap; }
table.result th.num { text-align: right; }
table.result th .type { color: var(--muted); font-weight: 400; font-size: 10px; margin-left: 4px; }
table.result td { border-bottom: 1px solid var(--line); padding: 4px 8px; overflow-wrap: anywhere; max-width: 320px; vertical-align: top; }
table.result td.num { text-align: right; }
table.result td.null { color: var(--muted); font-style: italic; }
table.result tr:nth-child(even) td { background: #fafbfc; }
.table-wrap { overflow-x: auto; }
.result-note { font-size: 11px; color: var(--muted); margin-top: 2px; }
.result-note .hash { font-size: 11px; }
table.data { border-collapse: collapse; width: 100%; font-size: 12.5px; font-variant-numeric: tabular-nums; }
table.data th { text-align: left; border-bottom: 1px solid var(--line-strong); padding: 6px 8px; color: var(--ink-soft); font-weight: 600; background: #f0f3f7; }
table.data td { border-bottom: 1px solid var(--line); padding: 5px 8px; overflow-wrap: anywhere; }
table.data td.num, table.data th.num { text-align: right; }
table.data tfoot td { font-weight: 700; border-top: 2px solid var(--line-strong); border-bottom: none; }
table.data + table.data { margin-top: 14px; }
.verification { display: flex; gap: 14px; align-items: center; }
footer.report-footer { margin-top: 48px; padding-top: 14px; border-top: 1px solid var(--line); font-size: 11px; color: var(--muted); display: flex; justify-content: space-between; gap: 16px; }

@page { size: A4; margin: 16mm 14mm 18mm; }
@media print {
  html, body { background: #fff; }
  body { font-size: 12.5px; }
  .page { max-width: none; margin: 0; padding: 0; box-shadow: none; border-radius: 0; }
  .page-break { break-before: page; }
  section.section { margin-top: 28px; }
  .decision-card, .facts, .strip, .card, .plan-version, .verification, table.kv, pre.code, .item.thought, .item.review, .item.repair { break-inside: avoid; }
  .step { break-inside: auto; }
  .step > header { break-after: avoid; }
  h2, h3, .item-label, .query-head { break-after: avoid; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
  a { color: inherit; }
  nav.toc a::after { content: ""; }
  .table-wrap { overflow: visible; }
}
`;
