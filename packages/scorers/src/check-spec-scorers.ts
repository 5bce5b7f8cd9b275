import { ConfigError, type RunSpec, type ScorerRef, SpecError } from "@assay/core";
import type { ScorerRegistry } from "./registry.js";

export interface CheckSpecScorersOptions {
  /**
   * Called instead of failing when a scorer's resources cannot be reached from here (a
   * ConfigError, e.g. a producer without the GPU workers' model folder); without it, that
   * error is thrown.
   */
  onUnavailable?: (where: string, error: ConfigError) => void;
}

/**
 * Runs every spec scorer's own `check` (the model-dependent one: score tokens the
 * tokenizer splits, a head override the model's head does not take, a missing probe) once
 * per distinct `{ name, args }`, before anything is enqueued. A failure becomes a
 * SpecError saying which rule's scorer it is, in `file`.
 */
export async function checkSpecScorers(
  spec: RunSpec,
  file: string,
  registry: ScorerRegistry,
  options: CheckSpecScorersOptions = {},
): Promise<void> {
  const checked = new Set<string>();
  for (const { ref, where } of scorersOf(spec)) {
    const definition = registry.get(ref.name);
    if (definition?.check === undefined) continue;
    const args = registry.validate(ref, where, file);
    const key = `${ref.name}\u0000${JSON.stringify(args)}`;
    if (checked.has(key)) continue;
    checked.add(key);
    try {
      await definition.check(args);
    } catch (error) {
      if (error instanceof SpecError) throw new SpecError(file, where, error.message);
      if (error instanceof ConfigError && options.onUnavailable !== undefined) {
        options.onUnavailable(where, error);
        continue;
      }
      throw error;
    }
  }
}

/** Every scorer of the spec's rules and default, with where it is written. */
function scorersOf(spec: RunSpec): { ref: ScorerRef; where: string }[] {
  const listed = (refs: readonly ScorerRef[], owner: string) =>
    refs.map((ref, index) => ({ ref, where: `${owner} scorer #${index + 1} (${ref.name})` }));
  return [
    ...spec.rules.flatMap((rule) => listed(rule.scorers, `rule "${rule.name}"`)),
    ...(spec.default === undefined ? [] : listed(spec.default.scorers, "default")),
  ];
}
