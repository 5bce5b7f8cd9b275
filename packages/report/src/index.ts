export { routingSplit, type ScorerTotals, totalsByScorer } from "./aggregate.js";
export { renderSummaryJson } from "./render-json.js";
export { formatMean, renderSummaryTable } from "./render-table.js";
