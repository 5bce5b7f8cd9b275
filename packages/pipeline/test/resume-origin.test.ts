import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RunSpecSchema } from "@assay/core";
import { DEFAULT_SPEC } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { queryRows } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createOrResumeRun,
  openDataset,
  RunChangedError,
  runLocal,
  validateSpec,
} from "../src/index.js";
import { pgliteTarget, postgresTarget, type StoreTarget } from "./store-targets.js";
import { tempFiles } from "./temp-files.js";

// A run is one dataset under one spec. Resumed with another dataset (a line edited, a line
// removed) or another spec, it is refused before anything is stored, unless that change is
// allowed; with the same dataset it stores nothing twice; a dataset that only grew (a copy
// that completed) resumes, and its new lines join the run.
const files = tempFiles("assay-resume-origin-");
const registry = defaultRegistry();
const spec = validateSpec(DEFAULT_SPEC, "(default spec)", registry);
const otherSpec = validateSpec(
  RunSpecSchema.parse({ rules: [], default: { scorers: [{ name: "exact" }] } }),
  "(exact only)",
  registry,
);

const lineOf = (id: number) =>
  JSON.stringify({ id: `s${id}`, question: "q", answer: `a${id}`, target: [`a${id}`] });
const textOf = (count: number) =>
  `${Array.from({ length: count }, (_, id) => lineOf(id)).join("\n")}\n`;

type Change = "none" | "edited" | "removed" | "appended";
/** The dataset after the change; "edited" keeps its size, so only the hash can tell. */
function changed(count: number, change: Change, at: number): string {
  if (change === "edited")
    return textOf(count).replace(`"answer":"a${at % count}"`, `"answer":"z${at % count}"`);
  if (change === "removed") return textOf(count - 1);
  if (change === "appended") return textOf(count + 1);
  return textOf(count);
}

describe.each([
  ["pglite", pgliteTarget],
  ["postgres", postgresTarget],
] as const)("resuming a run on %s", (_name, makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  beforeAll(async () => {
    target = makeTarget();
    store = await target.open();
  });
  afterAll(async () => target.cleanup());

  const counts = async (runId: string) =>
    queryRows(
      store,
      `SELECT (SELECT count(*)::int FROM samples WHERE run_id = '${runId}') AS samples,
              (SELECT count(*)::int FROM scores WHERE run_id = '${runId}') AS scores,
              (SELECT count(*)::int FROM input_errors WHERE run_id = '${runId}') AS errors`,
    );

  /** createOrResumeRun and runLocal, as `assay run` does them, on the dataset as it is now. */
  const attempt = async (runId: string, path: string, options: AttemptOptions = {}) => {
    const dataset = await openDataset(path);
    try {
      const runSpec = options.spec ?? spec;
      const { created, notes } = await createOrResumeRun({
        store,
        runId,
        dataset,
        spec: runSpec,
        transport: "local",
        ...options.allow,
      });
      const outcome = await runLocal({ store, registry, dataset, spec: runSpec, runId });
      return { created, notes, outcome };
    } finally {
      await dataset.close();
    }
  };

  it("refuses a changed dataset or spec unless allowed, and stores nothing twice", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.constantFrom<Change>("none", "edited", "removed", "appended"),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (count, change, at, specChanged, allowChangedDataset, allowChangedSpec) => {
          run += 1;
          const runId = `origin-${run}`;
          const path = join(files.dir, `${runId}.jsonl`);
          writeFileSync(path, textOf(count));
          expect((await attempt(runId, path)).created).toBe(true);

          writeFileSync(path, changed(count, change, at));
          const before = await counts(runId);
          const datasetChanged = change === "edited" || change === "removed";
          const refusedDataset = datasetChanged && !allowChangedDataset;
          const refusedSpec = specChanged && !allowChangedSpec;
          const resumed = attempt(runId, path, {
            ...(specChanged && { spec: otherSpec }),
            allow: { allowChangedDataset, allowChangedSpec },
          });

          if (refusedDataset || refusedSpec) {
            const error = await resumed.then(
              () => undefined,
              (thrown: unknown) => thrown,
            );
            expect(error).toBeInstanceOf(RunChangedError);
            const message = (error as Error).message;
            expect(message.includes(`dataset ${path} changed`)).toBe(refusedDataset);
            expect(message.includes("spec changed")).toBe(refusedSpec);
            expect(await counts(runId)).toEqual(before);
            return;
          }
          const { notes, outcome } = await resumed;
          expect(outcome.complete).toBe(true);
          if (change === "none" && !specChanged) {
            expect(outcome.produced.skipped).toBe(outcome.produced.planned);
            expect(await counts(runId)).toEqual(before);
          }
          if (change === "appended") {
            expect(notes.join("\n")).toMatch(/The dataset grew from \d+ to \d+ bytes/);
            expect(outcome.summary.samples).toBe(count + 1);
          }
        },
      ),
      { numRuns: 24 },
    );
  });

  it("after an attempt stopped mid-read, its hash covers every stored line", async () => {
    const total = 4000; // more than one 128 KiB read, so the attempt stops with bytes unread
    const path = files.write("stopped.jsonl", textOf(total));
    const dataset = await openDataset(path);
    const stop = new AbortController();
    // Stops reading as the first lines are stored: the next line read ends the attempt.
    const stopping = new Proxy(store, {
      get(target, name) {
        if (name === "insertSamples") {
          return (...args: Parameters<Store["insertSamples"]>) => {
            stop.abort();
            return target.insertSamples(...args);
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    try {
      await createOrResumeRun({ store, runId: "stopped", dataset, spec, transport: "local" });
      const outcome = await runLocal({
        store: stopping,
        registry,
        dataset,
        spec,
        runId: "stopped",
        chunkSize: 500,
        signal: stop.signal,
      });
      expect(outcome.interrupted).toBe(true);
    } finally {
      await dataset.close();
    }
    const [{ lines, hashed }] = (await queryRows(
      store,
      `SELECT max(s.line)::int AS lines, r.dataset_hashed_bytes::int AS hashed
       FROM runs r JOIN samples s ON s.run_id = r.id WHERE r.id = 'stopped'
       GROUP BY r.dataset_hashed_bytes`,
    )) as [{ lines: number; hashed: number }];
    expect(lines).toBeGreaterThan(0);
    expect(hashed).toBeGreaterThanOrEqual(textOf(lines).length);
    expect(hashed).toBeLessThan(textOf(total).length);

    // The last stored line, edited in place: caught, though the run never read the whole file.
    writeFileSync(path, changed(total, "edited", lines - 1));
    await expect(attempt("stopped", path)).rejects.toThrow(/content changed/);
  });

  it("resumes a run recorded without its origin, with a note, and records it", async () => {
    const path = files.write("unrecorded.jsonl", textOf(2));
    await store.startRun({ id: "unrecorded", dataset: path, spec, transport: "local" });
    const { created, notes } = await attempt("unrecorded", path);
    expect(created).toBe(false);
    expect(notes).toEqual([
      expect.stringMatching(/created before Assay recorded what a run is made from/),
    ]);
    writeFileSync(path, changed(2, "edited", 0));
    await expect(attempt("unrecorded", path)).rejects.toThrow(/content changed/);
  });
});

interface AttemptOptions {
  spec?: typeof spec;
  allow?: { allowChangedDataset: boolean; allowChangedSpec: boolean };
}
