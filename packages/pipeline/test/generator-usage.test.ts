import { type RunSpec, RunSpecSchema, type Sample } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { queryRows } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDataset, runLocal } from "../src/index.js";
import { toStoredGeneratorUsage } from "../src/run/generator-usage.js";
import { pgliteTarget, type StoreTarget } from "./store-targets.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();
const registry = defaultRegistry();

function specWith(inputTokens?: "includes_cached" | "excludes_cached"): RunSpec {
  return RunSpecSchema.parse({
    default: { scorers: [{ name: "exact" }] },
    generator_usage: inputTokens === undefined ? undefined : { input_tokens: inputTokens },
  });
}

function sampleWith(generator: Sample["generator"]): Sample {
  return {
    id: "s",
    taskId: "s",
    candidateIndex: 0,
    question: "q",
    answer: "a",
    metadata: {},
    generator,
    line: 7,
  };
}

describe("generator usage with cached tokens", () => {
  it("stores uncached and cached tokens apart, so their sum is what the dataset reported", () => {
    const counts = fc
      .tuple(fc.nat({ max: 1_000_000 }), fc.nat({ max: 1_000_000 }))
      .map(([a, b]) => ({ input: Math.max(a, b), cached: Math.min(a, b) }));
    fc.assert(
      fc.property(counts, ({ input, cached }) => {
        const generator = {
          model: "m",
          input_tokens: input,
          output_tokens: 1,
          cached_input_tokens: cached,
        };
        const includes = sampleWith({ ...generator });
        toStoredGeneratorUsage(includes, { input_tokens: "includes_cached" }, "d.jsonl");
        expect(includes.generator?.input_tokens).toBe(input - cached);
        expect(includes.generator?.cached_input_tokens).toBe(cached);

        const excludes = sampleWith({ ...generator });
        toStoredGeneratorUsage(excludes, { input_tokens: "excludes_cached" }, "d.jsonl");
        expect(excludes.generator?.input_tokens).toBe(input);
      }),
    );
  });

  it("refuses cached tokens when the spec does not say how input_tokens counts them", () => {
    const sample = sampleWith({
      model: "m",
      input_tokens: 100,
      output_tokens: 1,
      cached_input_tokens: 40,
    });
    expect(() => toStoredGeneratorUsage(sample, undefined, "d.jsonl")).toThrow(
      /d\.jsonl:7: field `generator\.cached_input_tokens`: .*generator_usage: \{ input_tokens: includes_cached \}/,
    );
  });

  it("refuses a total smaller than its cached part", () => {
    const sample = sampleWith({
      model: "m",
      input_tokens: 10,
      output_tokens: 1,
      cached_input_tokens: 40,
    });
    expect(() =>
      toStoredGeneratorUsage(sample, { input_tokens: "includes_cached" }, "d.jsonl"),
    ).toThrow(/field `generator\.input_tokens`: .*got 10 < 40/);
  });

  it("leaves usage without cached tokens alone whatever the spec says", () => {
    const sample = sampleWith({ model: "m", input_tokens: 10, output_tokens: 1 });
    toStoredGeneratorUsage(sample, undefined, "d.jsonl");
    expect(sample.generator?.input_tokens).toBe(10);
  });
});

describe("a run that reports cached tokens", () => {
  let target: StoreTarget;
  let store: Store;
  const dataset = files.write(
    "cached.jsonl",
    jsonl([
      {
        id: "a",
        question: "q",
        answer: "x",
        target: ["x"],
        generator: { model: "m", input_tokens: 1000, output_tokens: 10, cached_input_tokens: 800 },
      },
      { id: "b", question: "q", answer: "y", target: ["x"] },
    ]),
  );

  beforeAll(async () => {
    target = pgliteTarget();
    store = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it("stores 200 uncached + 800 cached when the spec says input_tokens includes them", async () => {
    const spec = specWith("includes_cached");
    await store.startRun({ id: "inc", dataset, spec, transport: "local" });
    const outcome = await runLocal({ store, registry, dataset, spec, runId: "inc" });
    expect(outcome.produced.inputErrors).toBe(0);
    const rows = (await queryRows(
      store,
      "SELECT input_tokens, cached_input_tokens FROM usage WHERE run_id = 'inc' AND role = 'generator'",
    )) as { input_tokens: unknown; cached_input_tokens: unknown }[];
    expect(rows.map((r) => [Number(r.input_tokens), Number(r.cached_input_tokens)])).toEqual([
      [200, 800],
    ]);
  });

  it("makes the line an input error, in --strict too, when the spec is silent", async () => {
    const spec = specWith(undefined);
    const check = await checkDataset(dataset, spec, registry);
    expect(check.errors.map((e) => [e.line, e.field])).toEqual([
      [1, "generator.cached_input_tokens"],
    ]);
    await store.startRun({ id: "silent", dataset, spec, transport: "local" });
    const outcome = await runLocal({ store, registry, dataset, spec, runId: "silent" });
    expect(outcome.produced).toMatchObject({ samples: 1, inputErrors: 1 });
    expect(outcome.summary.results).toBe(1);
  });
});
