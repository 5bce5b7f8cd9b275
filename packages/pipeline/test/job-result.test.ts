import { jobIdOf, resultKeyOfJob, type ScoreJob, scored, unscored } from "@assay/core";
import { scoreJob } from "@assay/test-support/score-job";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jobResultOf } from "../src/run/job-result.js";

function jobFor(sampleId: string, scorer: { name: string; key?: string }): ScoreJob {
  return { ...scoreJob(sampleId, { runId: "r", pool: "gpu" }), scorer: { args: {}, ...scorer } };
}

const calls = {
  truncations: [
    {
      criterion: "clarity",
      variant: 1,
      originalTokens: 90,
      keptTokens: 64,
      droppedTokens: 26,
      slot: "question",
      policy: "error",
    },
    {
      criterion: "clarity",
      variant: 2,
      originalTokens: 40,
      keptTokens: 40,
      droppedTokens: 0,
      slot: null,
      policy: "error",
    },
  ],
  usage: { model: "m", device: "cpu", inputTokens: 104, outputTokens: 0, computeMs: 5 },
};

describe("the rows one job stores", () => {
  it("stores a model scorer's calls as truncation rows per criterion and variant, and one usage row", () => {
    const result = jobResultOf(jobFor("s1", { name: "verifier", key: "judge" }), {
      ...scored(0.5),
      calls,
    });
    expect(result.score).toMatchObject({ sampleId: "s1", scorer: "judge", criterion: "" });
    expect(result.truncations).toEqual([
      expect.objectContaining({
        scorer: "judge",
        criterion: "clarity",
        repetition: 1,
        slot: "question",
      }),
      expect.objectContaining({ scorer: "judge", criterion: "clarity", repetition: 2, slot: "" }),
    ]);
    expect(result.usage).toEqual([
      expect.objectContaining({
        role: "verifier",
        scorer: "judge",
        inputTokens: 104,
        cachedInputTokens: 0,
      }),
    ]);
  });

  it("never reads usage or truncations out of a scorer's free-form detail", () => {
    // A scorer may keep keys named like the rows in its detail; they stay detail.
    const score = unscored("unparseable", "no verdict", {
      usage: calls.usage,
      truncations: calls.truncations,
    });
    const result = jobResultOf(jobFor("s1", { name: "judge-text" }), score);
    expect(result.truncations).toEqual([]);
    expect(result.usage).toEqual([]);
    expect(result.score.detail).toMatchObject({ usage: calls.usage });
  });

  it("stores the score under the key its job id is derived from", () => {
    const name = fc.string({ minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(name, name, fc.option(name, { nil: undefined }), (sampleId, scorer, key) => {
        const job = jobFor(sampleId, key === undefined ? { name: scorer } : { name: scorer, key });
        const { score } = jobResultOf(job, scored(1));
        expect(jobIdOf(score)).toBe(jobIdOf(resultKeyOfJob(job)));
        expect(score.scorer).toBe(key ?? scorer);
      }),
    );
  });
});
