// A report's data, apart from the package's index: `assay report` loads neither the
// dataset readers (Parquet, CSV, zstd) nor the scorers (re2's WebAssembly) it never uses.
export { type RunReportBundle, runReportBundle } from "./report/run-report-bundle.js";
export {
  type SelectionAblationOptions,
  selectionAblation,
} from "./report/selection-ablation.js";
