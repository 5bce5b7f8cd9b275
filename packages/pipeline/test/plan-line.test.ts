import { InputError, RunSpecSchema, type Sample } from "@assay/core";
import { ScorerRegistry } from "@assay/scorers";
import { sample as sampleWithId } from "@assay/test-support/samples";
import { describe, expect, it } from "vitest";
import { createRouter } from "../src/index.js";
import { planLine } from "../src/run/plan.js";

const spec = RunSpecSchema.parse({
  rules: [
    {
      name: "both",
      when: { "metadata.kind": "both" },
      scorers: [
        { name: "exact", args: {} },
        { name: "f1", args: {} },
      ],
    },
  ],
  default: { scorers: [{ name: "exact", args: {} }] },
});
const route = createRouter(spec);
const registry = new ScorerRegistry();

function plan(samples: Sample[]) {
  return planLine("run", samples, route, registry, "data.jsonl");
}

describe("planLine", () => {
  it("plans one job per scorer of each sample, in order, all for the same run", () => {
    const jobs = plan([
      sampleWithId("t#0", { metadata: { kind: "both" } }),
      sampleWithId("t#1", { metadata: { kind: "other" } }),
    ]);
    expect(jobs.map((job) => [job.sample.id, job.rule, job.scorer.name])).toEqual([
      ["t#0", "both", "exact"],
      ["t#0", "both", "f1"],
      ["t#1", "default", "exact"],
    ]);
    expect(new Set(jobs.map((job) => job.runId))).toEqual(new Set(["run"]));
  });

  it("refuses a line where one sample names a scorer twice, and only then", () => {
    const twice = sampleWithId("t#1", {
      scorers: [
        { name: "f1", args: {} },
        { name: "exact", args: {} },
        { name: "f1", args: {} },
      ],
    });
    const keyed = sampleWithId("t#2", {
      scorers: [
        { name: "f1", args: {} },
        { name: "f1", args: {}, key: "f1-again" },
      ],
    });
    expect(
      plan([sampleWithId("t#0", { scorers: [{ name: "f1", args: {} }] }), keyed]),
    ).toHaveLength(3);
    // The other sample of the line names f1 too: only a repeat within one sample counts.
    const error = (() => {
      try {
        plan([sampleWithId("t#0", { scorers: [{ name: "f1", args: {} }] }), twice]);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({
      field: "scorers[2]",
      message: expect.stringContaining('scorer "f1" appears twice for one sample'),
    });
  });
});
