export { routingSplit, type ScorerTotals, totalsByScorer } from "./aggregate.js";
export { formatBucket, formatMoney, formatRate } from "./format.js";
export { formatDelta, formatInterval, verdictOf } from "./format-difference.js";
export { renderReportHtml } from "./html/render-report-html.js";
export { renderSummaryJson } from "./render-json.js";
export { renderReportJson } from "./render-report-json.js";
export { renderReportTable } from "./render-report-table.js";
export { renderSampleView } from "./render-sample.js";
export { formatMean, renderSummaryTable } from "./render-table.js";
