import type { RunSpec } from "@assay/core";
import { DEFAULT_SPEC, loadSpec, validateSpec } from "@assay/pipeline";
import type { ScorerRegistry } from "@assay/scorers";

/** The spec from `--spec`, or the built-in default routing, checked against the registry. */
export async function specFor(
  file: string | undefined,
  registry: ScorerRegistry,
): Promise<RunSpec> {
  if (file === undefined) return validateSpec(DEFAULT_SPEC, "(default spec)", registry);
  return loadSpec(file, registry);
}
