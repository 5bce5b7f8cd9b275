export { type CheckSpecScorersOptions, checkSpecScorers } from "./check-spec-scorers.js";
export { defineScorer } from "./define-scorer.js";
export { defaultRegistry, ScorerRegistry } from "./registry.js";
export {
  answer,
  choice,
  deterministicScorers,
  exact,
  f1,
  includes,
  json,
  match,
  numeric,
  pattern,
  toolCall,
} from "./scorers/index.js";
export { normalizeLoose, normalizeSquad, squadTokens } from "./text/normalize.js";
