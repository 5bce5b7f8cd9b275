export {
  approximateTokens,
  type BatchCostEstimate,
  type BatchTokenCounts,
  estimateBatchCost,
} from "./batch-estimate.js";
export { type BatchRequest, type RequestSettings, requestsOfRow } from "./batch-request.js";
export { compileTemplate, type PromptTemplate, TemplateError } from "./prompt-template.js";
export { MAX_SAMPLES, repeatCustomId, repeatIndexOf } from "./repeat-id.js";
export {
  REQUEST_FORMATS,
  REQUEST_LIMITS,
  type RequestFormat,
  type RequestLimits,
} from "./request-format.js";
