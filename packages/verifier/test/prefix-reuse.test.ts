import type { Score } from "@assay/core";
import { tinyDistributionTemplates } from "@assay/model-tools";
import { preparedPair } from "@assay/test-support/prepared-models";
import { sample, tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVerifierScorer, loadModel, type VerifierModel } from "../src/index.js";
import {
  CRITERIA,
  scoreNumbers as numbers,
  STEPS,
  REUSE_TOLERANCE as TOLERANCE,
  worstDifference,
} from "./reuse-fixtures.js";

/** The same with-past export loaded twice: computing shared prefixes once, and not. */
async function loadPair(
  head: "distribution" | "probe",
  specialTokens: "none" | "eos" = "none",
  graph: "exported" | "prepared" = "exported",
) {
  const options = { head, withPast: true, specialTokens };
  const dir =
    graph === "prepared" ? (await preparedPair(options)).prepared : await tinyModel(options);
  const [reuse, plain] = await Promise.all([
    loadModel(dir, { threads: 1 }),
    loadModel(dir, { threads: 1, reusePrefixes: false }),
  ]);
  return { reuse, plain };
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
    // Both score the same 30 prompts; each took part of a pass, no more than one a prompt.
    expect([used?.prompts, baseline?.prompts]).toEqual([3 * 2 * 5, 3 * 2 * 5]);
    for (const usage of [used, baseline]) {
      expect(usage?.forwardPasses).toBeGreaterThan(0);
      expect(usage?.forwardPasses).toBeLessThanOrEqual(3 * 2 * 5);
    }
  });

  // With reuse only: this model is left-padded, and without reuse a left-padded row moves
  // with its batch (within 1e-5; batch-independence.test.ts checks a right-padded one).
  it("gives a sample the same scores to the bit, alone and beside other samples", async () => {
    const scorer = createVerifierScorer(pair.reuse, {
      model: pair.reuse.name,
      criteria: CRITERIA,
      variants: tinyDistributionTemplates(),
      repetitions: 2,
    });
    const input = { ...sample("Which compound is released?", STEPS.join("\n")), steps: STEPS };
    const alone = numbers(await scorer(input, {}));
    // Other questions and answers: other prefix lengths in the same passes.
    const others = [
      sample("Name a gas.", "Oxygen, mostly."),
      { ...sample("Why?", STEPS.slice(0, 2).join("\n")), steps: STEPS.slice(0, 2) },
    ];
    const [beside] = await Promise.all([scorer(input, {}), ...others.map((o) => scorer(o, {}))]);
    expect(numbers(beside as Score)).toEqual(alone);
  });
});

// A prepared graph reads one position per row, at an offset into the row's new tokens.
describe.each(["exported", "prepared"] as const)(
  "prefix reuse on any set of prompts, %s graph",
  (graph) => {
    let pair: { reuse: VerifierModel; plain: VerifierModel };
    beforeAll(async () => {
      // A tokenizer that appends EOS: the score is read one token before the end.
      pair = await loadPair("distribution", "eos", graph);
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

    it("reads the vectors of one whole pass per prompt, and the same ones in any batch size, beside any other sample", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(promptSets, { minLength: 1, maxLength: 3 }),
          fc.integer({ min: 8, max: 200 }),
          async (groups, budget) => {
            const output = pair.reuse.config.head.output;
            const scale = pair.reuse.scaleIds ?? [];
            const limits = { maxBatchTokens: budget };
            const shared = await pair.reuse.runner.runSharingPrefixes(
              groups,
              output,
              limits,
              scale,
            );
            for (const [g, rows] of groups.entries()) {
              const whole = await Promise.all(
                rows.map((row) => pair.plain.runner.run([row], output, scale)),
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
            // A sample's vectors and token counts do not depend on the samples beside it
            // nor on the batch budget: bit for bit, not within a tolerance.
            const alone = await pair.reuse.runner.runSharingPrefixes(
              [groups[0] ?? []],
              output,
              { maxBatchTokens: 100_000 },
              scale,
            );
            expect(alone.computed[0]).toEqual(shared.computed[0]);
            expect(alone.vectors[0]).toEqual(shared.vectors[0]);
          },
        ),
        { numRuns: 40 },
      );
    });

    it("reads prompts scored at different tokens of one shared run", async () => {
      // With EOS appended, [..., 9, EOS] is read at 9 and [..., 9, EOS, EOS] at the first
      // EOS: two reads inside the run both prompts share.
      const base = [40, 41, 42, 9, 151_645];
      const rows = [base, [...base, 151_645], [...base, 151_645, 43, 151_645]];
      const output = pair.reuse.config.head.output;
      const scale = pair.reuse.scaleIds ?? [];
      const shared = await pair.reuse.runner.runSharingPrefixes([rows], output, {}, scale);
      const whole = await Promise.all(
        rows.map((row) => pair.plain.runner.run([row], output, scale)),
      );
      const vectors = shared.vectors[0] ?? [];
      expect(vectors).toHaveLength(rows.length);
      vectors.forEach((vector, i) => {
        const expected = [...(whole[i]?.[0] ?? [])];
        expect(worstDifference([...vector], expected)).toBeLessThan(TOLERANCE);
      });
      expect(shared.computed[0]?.reduce((a, b) => a + b, 0)).toBe(8);
    });
  },
);
