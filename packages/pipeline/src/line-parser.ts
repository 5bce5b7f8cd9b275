// The dataset line parser on its own, apart from the package's index: what a parse thread
// runs on each line, for benchmarks that measure it without the rest of a run.
export { compileFields } from "./ingest/field-map.js";
export { parseLineBytes } from "./ingest/parse-lines.js";
