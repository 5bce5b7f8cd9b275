// The end-of-run summary alone (`@assay/report/summary`): every `assay run` prints it, and
// it needs none of the report and HTML renderers the package index loads.
export { renderSummaryJson } from "./render-json.js";
export { renderSummaryTable } from "./render-table.js";
