import type { ScorerDefinition } from "@assay/core";
import { answer } from "./answer.js";
import { choice } from "./choice.js";
import { exact } from "./exact.js";
import { f1 } from "./f1.js";
import { includes } from "./includes.js";
import { json } from "./json.js";
import { match } from "./match.js";
import { numeric } from "./numeric.js";
import { pattern } from "./pattern.js";
import { toolCall } from "./tool-call.js";

export { answer, choice, exact, f1, includes, json, match, numeric, pattern, toolCall };

/** Every CPU scorer: pure functions of (answer, target, metadata), no model, no randomness. */
export const deterministicScorers: readonly ScorerDefinition<unknown>[] = [
  match,
  includes,
  pattern,
  exact,
  f1,
  answer,
  choice,
  json,
  numeric,
  toolCall,
];
