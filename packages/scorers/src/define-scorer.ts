import type { ScorerDefinition } from "@assay/core";

/**
 * Identity helper: lets TypeScript infer `Args` from the zod schema, so `create(args)` sees
 * the parsed (defaulted) argument types without writing them twice.
 */
export function defineScorer<Args>(definition: ScorerDefinition<Args>): ScorerDefinition<Args> {
  return definition;
}
