// What reading one dataset line needs (validation, the field mapping's paths, samples from
// a line), as an entry of its own: a parse thread imports this and not the package index,
// whose ~140 modules (specs, reports, usage, YAML) doubled each thread's start-up.

export { formatFieldPath, type PathStep, parseFieldPath } from "./field-path.js";
export {
  type CapturedField,
  DEFAULT_JOIN_SEPARATOR,
  type FieldsSpec,
  type JoinedField,
} from "./fields-spec.js";
export { type DatasetLine, type Sample, samplesFromLine } from "./sample.js";
export { TextParts } from "./text-parts.js";
export { describeValue, printable } from "./validation/describe-value.js";
export {
  type LineParseOptions,
  type ParsedLine,
  parseDatasetLine,
  parseDatasetObject,
  type RecordMapping,
  type RecordValidator,
} from "./validation/parse-dataset-line.js";
