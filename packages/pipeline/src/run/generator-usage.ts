import { type GeneratorUsageSpec, InputError, type Sample } from "@assay/core";

/**
 * Brings a sample's generator usage to the store's convention, where `input_tokens` counts
 * uncached tokens only and cached ones are counted apart, so that nothing is billed twice.
 * A sample that reports cached tokens under a spec that does not say how the dataset counts
 * them is refused: guessing would misprice it either way.
 */
export function toStoredGeneratorUsage(
  sample: Sample,
  declared: GeneratorUsageSpec | undefined,
  file: string,
): void {
  const usage = sample.generator;
  const cached = usage?.cached_input_tokens ?? 0;
  if (usage === undefined || cached === 0) return;
  if (declared === undefined) {
    throw new InputError({
      file,
      line: sample.line,
      field: "generator.cached_input_tokens",
      message:
        "cached input tokens are reported, but the spec does not say whether `input_tokens` includes them; " +
        "add `generator_usage: { input_tokens: includes_cached }` (a total that counts them) " +
        "or `excludes_cached` (counted apart) to the spec",
    });
  }
  if (declared.input_tokens === "excludes_cached") return;
  if (usage.input_tokens < cached) {
    throw new InputError({
      file,
      line: sample.line,
      field: "generator.input_tokens",
      message: `the spec says input_tokens includes cached tokens, so it cannot be smaller than cached_input_tokens; got ${usage.input_tokens} < ${cached}`,
    });
  }
  sample.generator = { ...usage, input_tokens: usage.input_tokens - cached };
}
