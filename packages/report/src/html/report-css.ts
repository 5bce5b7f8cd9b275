/** Inline styles: the report must open offline, so nothing is linked. */
export const REPORT_CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;margin:24px auto;max-width:1200px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:16px 0 8px}header p{margin:2px 0;color:#556}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:16px 0}
.card{border:1px solid #dde;border-radius:8px;padding:10px 14px;min-width:130px;background:#fafbff}
.card .label{font-size:12px;color:#667;text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:24px;font-weight:600}.card .detail{font-size:12px;color:#667}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(580px,1fr));gap:16px}
.chart{margin:0;border:1px solid #eee;border-radius:8px;padding:8px}
.chart figcaption{font-weight:600;margin-bottom:4px}.chart figcaption small{display:block;font-weight:400;color:#667}
.chart svg{max-width:100%;height:auto}.chart .whisker{stroke:#1d2330;stroke-width:1.5}
.chart .legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}.chart .legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
.chart-message,.absent{color:#556;margin:6px 0}.chart.empty{align-self:start}.chart text{font-size:11px;fill:#333}.chart .axis{stroke:#999}
.ablation{margin-bottom:16px}.ablation .chart{margin-bottom:8px}
.warnings{border-left:4px solid #e08a1e;background:#fff7ec;padding:4px 12px}
.early-stops li{margin:4px 0}.sparkline{vertical-align:middle;fill:none;stroke-width:1.5}.sparkline .curve{stroke:#2f6fdf}.sparkline .fall{stroke:#d33;stroke-width:2.5}
.comparison tr.real{background:#fff4d6}.comparison .verdict,.comparison th:last-child{text-align:left}.comparison tr.real .verdict{font-weight:600}
.interval .zero{stroke:#999;stroke-dasharray:2 2}.interval .range{stroke:#2f6fdf;stroke-width:3}.interval circle{fill:#1d2330}.comparison tr.real .range{stroke:#d9822b}
table{border-collapse:collapse}th,td{padding:4px 10px;border-bottom:1px solid #eee;text-align:right}th:first-child{text-align:left}
`;
