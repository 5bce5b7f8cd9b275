import type { Sample } from "@assay/core";
import { fitPrompts, type PromptRun, type PromptRunner, ranRun } from "./run-prompts.js";

/**
 * Every answer of one sample (the answer and each trajectory prefix) through its C×K
 * prompts, on a model that reuses prefixes: all fitted prompts go to the model together,
 * so a prefix shared by any of them (the instruction and question, the trajectory so far,
 * the text before the criterion) is computed once. Results come back per answer, in the
 * order given, as `runPrompts` would return them.
 */
export async function runSharingPrefixes(
  runner: PromptRunner,
  answers: readonly Sample[],
  signal?: AbortSignal,
): Promise<PromptRun[]> {
  const fits = await Promise.all(answers.map((answer) => fitPrompts(runner, answer)));
  signal?.throwIfAborted();
  const sequences = fits.flatMap((fit) => (fit.kind === "fitted" ? fit.ids : []));
  const { head } = runner;
  const scoreTokenIds = head.type === "distribution" ? head.scaleIds : [];
  const shared =
    sequences.length === 0
      ? { vectors: [], computed: [], computeMs: [], passShares: [] }
      : await runner.model.forwardSharingPrefixes(sequences, head.output, scoreTokenIds);
  let at = 0;
  return fits.map((fit) => {
    if (fit.kind !== "fitted") return fit;
    const range = [at, at + fit.ids.length] as const;
    at = range[1];
    const sum = (values: readonly number[]) => values.slice(...range).reduce((a, b) => a + b, 0);
    const sent = fit.ids.reduce((total, ids) => total + ids.length, 0);
    const computed = sum(shared.computed);
    return ranRun(runner, fit, {
      vectors: shared.vectors.slice(...range),
      inputTokens: computed,
      cachedTokens: sent - computed,
      computeMs: sum(shared.computeMs),
      forwardPasses: sum(shared.passShares),
    });
  });
}
