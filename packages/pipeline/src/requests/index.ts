export {
  type ApproximationError,
  estimateRequests,
  type RequestsEstimate,
} from "./estimate-requests.js";
export type { RequestFile } from "./request-files.js";
export type { RowRequestOptions } from "./row-requests.js";
export {
  type WriteRequestsOptions,
  type WrittenRequests,
  writeRequests,
} from "./write-requests.js";
