export { AbandonedRunError } from "./abandoned-run-error.js";
export { AssayError } from "./assay-error.js";
export { ConfigError } from "./config-error.js";
export { debugEnabled } from "./debug-enabled.js";
export { describeInputError, InputError, type InputErrorDetails } from "./input-error.js";
export { NotFoundError } from "./not-found-error.js";
export { PrunedRunError } from "./pruned-run-error.js";
export { SpecError } from "./spec-error.js";
export { UnrecoverableJobError } from "./unrecoverable-error.js";
