import { join } from "node:path";
import type { Score } from "@assay/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  loadModel,
  ModelFolderError,
  prepareModel,
  type VerifierDetail,
  type VerifierModel,
} from "../src/index.js";
import { tinyDistributionTemplates } from "../src/tiny/tiny-template.js";
import { sample, tempRoot, tinyModel } from "./fixtures.js";

const TOLERANCE = 1e-4;
const STEPS = [
  "Pheromones signal members of the same species.",
  "Allomones benefit the emitter.",
  "The compound repels a predator, so it helps the emitter.",
  "So the answer is C. Allomone.",
];
const CRITERIA = ["The answer is correct.", "The steps follow from each other.", "It is brief."];

/** The same with-past export loaded twice: computing shared prefixes once, and not. */
async function loadPair(head: "distribution" | "probe", specialTokens: "none" | "eos" = "none") {
  const dir = await tinyModel({ head, withPast: true, specialTokens });
  const [reuse, plain] = await Promise.all([
    loadModel(dir, { threads: 1 }),
    loadModel(dir, { threads: 1, reusePrefixes: false }),
  ]);
  return { reuse, plain };
}

/** Every number a user can read in a verifier score: value, per-variant values, progress. */
function numbers(score: Score): number[] {
  if (score.status !== "scored") throw new Error(`unscored: ${score.reason}`);
  const detail = score.detail as VerifierDetail;
  return [
    score.value,
    ...detail.criteria.flatMap((c) =>
      c.variants.flatMap((v) => [
        v.value ?? Number.NaN,
        v.raw ?? 0,
        v.mass ?? 0,
        ...(v.distribution ?? []),
      ]),
    ),
    ...(detail.progress ?? []).map((p) => p ?? Number.NaN),
  ];
}

describe.each(["distribution", "probe"] as const)("prefix reuse, %s head", (head) => {
  let pair: { reuse: VerifierModel; plain: VerifierModel };
  beforeAll(async () => {
    pair = await loadPair(head);
  });
  afterAll(async () => {
    await pair.reuse.close();
    await pair.plain.close();
  });

  it("gives the scores of the no-reuse path and counts the reused tokens as cached", async () => {
    expect(pair.reuse.reusesPrefixes).toBe(true);
    expect(pair.plain.reusesPrefixes).toBe(false);
    const args = {
      model: pair.reuse.name,
      criteria: CRITERIA,
      variants: tinyDistributionTemplates(),
      repetitions: 2,
    };
    const input = { ...sample("Which compound is released?", STEPS.join("\n")), steps: STEPS };
    const [reused, plain] = await Promise.all([
      createVerifierScorer(pair.reuse, args)(input, {}),
      createVerifierScorer(pair.plain, args)(input, {}),
    ]);
    const a = numbers(reused);
    const b = numbers(plain);
    expect(a).toHaveLength(b.length);
    const worst = Math.max(...a.map((value, i) => Math.abs(value - (b[i] ?? Number.NaN))));
    expect(worst).toBeLessThan(TOLERANCE);

    const used = reused.calls?.usage;
    const baseline = plain.calls?.usage;
    expect(baseline?.cachedInputTokens).toBe(0);
    // Every token sent is either computed or read from the cache, once.
    expect((used?.inputTokens ?? 0) + (used?.cachedInputTokens ?? 0)).toBe(baseline?.inputTokens);
    // 3 criteria × 2 variants over the answer and 4 prefixes share most of their text.
    expect((baseline?.inputTokens ?? 0) / (used?.inputTokens ?? 1)).toBeGreaterThan(3);
  });
});

describe("prefix reuse on any set of prompts", () => {
  let pair: { reuse: VerifierModel; plain: VerifierModel };
  beforeAll(async () => {
    // A tokenizer that appends EOS: the score is read one token before the end.
    pair = await loadPair("distribution", "eos");
  });
  afterAll(async () => {
    await pair.reuse.close();
    await pair.plain.close();
  });

  // Prompts grown from one another: each extends a prefix of an earlier one (or starts
  // afresh), as criteria, variants and trajectory prefixes do; duplicates included.
  const promptSets = fc
    .array(
      fc.record({
        from: fc.nat(),
        keep: fc.nat(),
        tail: fc.array(fc.integer({ min: 0, max: 1023 }), { minLength: 0, maxLength: 12 }),
      }),
      { minLength: 1, maxLength: 12 },
    )
    .map((steps) => {
      const rows: number[][] = [];
      for (const step of steps) {
        const base = rows.length === 0 ? [] : (rows[step.from % rows.length] ?? []);
        const row = [...base.slice(0, step.keep % (base.length + 1)), ...step.tail];
        rows.push(row.length === 0 ? [7] : [...row, 151_645]);
      }
      return rows;
    });

  it("reads the same vectors as one whole pass per prompt, in any batch size, beside any other sample", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(promptSets, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 8, max: 200 }),
        async (groups, budget) => {
          const output = pair.reuse.config.head.output;
          const limits = { maxBatchTokens: budget };
          const shared = await pair.reuse.runner.runSharingPrefixes(groups, output, limits);
          for (const [g, rows] of groups.entries()) {
            const whole = await Promise.all(
              rows.map((row) => pair.plain.runner.run([row], output)),
            );
            shared.vectors[g]?.forEach((vector, i) => {
              const expected = whole[i]?.[0] ?? new Float32Array();
              expect(vector.length).toBe(expected.length);
              let worst = 0;
              vector.forEach((v, j) => {
                worst = Math.max(worst, Math.abs(v - (expected[j] ?? Number.NaN)));
              });
              expect(worst).toBeLessThan(TOLERANCE);
            });
            const sent = rows.reduce((sum, row) => sum + row.length, 0);
            const computed = (shared.computed[g] ?? []).reduce((a, b) => a + b, 0);
            expect(computed).toBeLessThanOrEqual(sent);
          }
          // A sample's token counts do not depend on the samples beside it.
          const alone = await pair.reuse.runner.runSharingPrefixes(
            [groups[0] ?? []],
            output,
            limits,
          );
          expect(alone.computed[0]).toEqual(shared.computed[0]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("what prefix reuse needs", () => {
  it("refuses a prepared graph that still takes past key values, saying which export to use", async () => {
    const dir = await tinyModel({ head: "distribution", withPast: true });
    const prepared = await prepareModel(dir, join(tempRoot, "prepared-with-past"));
    const error = await loadModel(prepared.dir, { threads: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFolderError);
    expect((error as Error).message).toMatch(/prepared .*past key values.*without past/);
  });
});
