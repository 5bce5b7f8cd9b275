import { join } from "node:path";
import type { Sample } from "@assay/core";
import {
  fillerText,
  type PrepareModelOptions,
  prepareModel,
  type TinyModelOptions,
} from "@assay/model-tools";
import { sample, tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { createVerifierScorer, type VerifierDetail, type VerifierModel } from "@assay/verifier";

const prepared = new Map<string, Promise<string>>();

/** A tiny model and its prepared copy, made once per test file. */
export async function preparedPair(
  options: TinyModelOptions,
  prepare: PrepareModelOptions = {},
): Promise<{ original: string; prepared: string }> {
  const original = await tinyModel(options);
  const key = JSON.stringify([options, prepare]);
  let dir = prepared.get(key);
  if (dir === undefined) {
    dir = prepareModel(original, join(tempRoot, `prepared-${prepared.size}`), prepare).then(
      (result) => result.dir,
    );
    prepared.set(key, dir);
  }
  return { original, prepared: await dir };
}

/** Samples whose questions have these token lengths: rows of one batch get padding. */
export function mixedSamples(model: VerifierModel, lengths: readonly number[]): Sample[] {
  return lengths.map((length, i) =>
    sample(fillerText(model.tokenizer, length, i), `Answer ${i}: option ${i % 3}.`),
  );
}

/** Every prompt's value and mass, then the final value, of each sample (NaN when unscored). */
export async function scoreValues(
  model: VerifierModel,
  samples: readonly Sample[],
  together: boolean,
): Promise<number[][]> {
  const scorer = createVerifierScorer(model, { model: model.name });
  const scores = [];
  if (together) scores.push(...(await Promise.all(samples.map((s) => scorer(s, {})))));
  else for (const s of samples) scores.push(await scorer(s, {}));
  return scores.map((score) => {
    const detail = score.detail as VerifierDetail;
    const parts = detail.criteria.flatMap((c) =>
      c.variants.flatMap((v) => [v.value ?? Number.NaN, v.mass ?? 0]),
    );
    return [...parts, score.status === "scored" ? score.value : Number.NaN];
  });
}

/**
 * Largest |a − b| over matching entries (NaN, unscored, matches only NaN); Infinity when
 * the shapes differ or one side is unscored where the other is not.
 */
export function largestDelta(a: number[][], b: number[][]): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let largest = 0;
  a.forEach((row, i) => {
    const other = b[i] ?? [];
    if (row.length !== other.length) largest = Number.POSITIVE_INFINITY;
    row.forEach((value, j) => {
      const theirs = other[j] ?? Number.NaN;
      if (Number.isNaN(value) && Number.isNaN(theirs)) return;
      const delta = Math.abs(value - theirs);
      largest = Number.isNaN(delta) ? Number.POSITIVE_INFINITY : Math.max(largest, delta);
    });
  });
  return largest;
}
