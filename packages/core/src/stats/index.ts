// The statistics have no dependencies: `@assay/core/stats` loads them without the schemas.
export * from "./calibration.js";
export * from "./counted-differences.js";
export * from "./mean-interval.js";
export * from "./paired-bootstrap.js";
export * from "./seeded-random.js";
export * from "./stratified-bootstrap.js";
