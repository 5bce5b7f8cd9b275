// The column path syntax lives in @assay/core, where the store reads the spec's declared
// metadata fields with it too (slice rollups).
export {
  formatFieldPath,
  type ItemFilter,
  type ParsedPath,
  type PathStep,
  parseFieldPath,
} from "@assay/core";
