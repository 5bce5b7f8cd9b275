import { RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { propertyRuns } from "@assay/test-support/property-runs";
import { openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLocal } from "../src/index.js";
import { tempFiles } from "./temp-files.js";

// `assay run` on Postgres with lines parsed on threads, chunks stored by COPY while the
// next chunk is read: for any mix of lines, what is stored must not depend on any of it.

const files = tempFiles();
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({ name: "parallel", default: { scorers: [{ name: "exact" }] } });

const lineKinds = {
  good: (i: number) => JSON.stringify({ id: `id${i}`, question: "q", answer: "a", target: "a" }),
  /** Reuses the id of line 1. */
  duplicate: () => JSON.stringify({ id: "id0", question: "q", answer: "a", target: "a" }),
  malformed: () => '{"id": ',
  badField: (i: number) => JSON.stringify({ id: `id${i}`, question: 7, answer: "a" }),
};
type Kind = keyof typeof lineKinds;

describe("assay run with parse threads and COPY (postgres)", () => {
  let opened: TestStore;
  let store: Store;

  beforeAll(async () => {
    opened = await openTestStore("postgres");
    store = opened.store;
  });
  afterAll(async () => {
    await opened.dispose();
  });

  it("stores every good line exactly once and reports each bad line with its number", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            { weight: 8, arbitrary: fc.constant<Kind>("good") },
            { weight: 1, arbitrary: fc.constantFrom<Kind>("duplicate", "malformed", "badField") },
          ),
          { maxLength: 1200 },
        ),
        async (rest) => {
          // Line 1 is good, so a line reusing its id is always the duplicate.
          const kinds: Kind[] = ["good", ...rest];
          run += 1;
          const runId = `parallel-${run}`;
          const dataset = files.write(
            `${runId}.jsonl`,
            `${kinds.map((kind, i) => lineKinds[kind](i)).join("\n")}\n`,
          );
          await store.startRun({ id: runId, dataset, spec, transport: "local" });
          const outcome = await runLocal({
            store,
            registry,
            dataset,
            spec,
            runId,
            parseThreads: 2,
            chunkSize: 150,
          });
          const goodLines = kinds.flatMap((kind, i) => (kind === "good" ? [i + 1] : []));
          const badLines = kinds.flatMap((kind, i) => (kind === "good" ? [] : [i + 1]));

          const samples = (await queryRows(
            store,
            `SELECT line, count(*)::int AS n FROM samples WHERE run_id = '${runId}' GROUP BY line ORDER BY line`,
          )) as { line: number; n: number }[];
          expect(samples).toEqual(goodLines.map((line) => ({ line, n: 1 })));
          const errors = (await queryRows(
            store,
            `SELECT line FROM input_errors WHERE run_id = '${runId}' ORDER BY line`,
          )) as { line: number }[];
          expect(errors.map((row) => row.line)).toEqual(badLines);
          expect(outcome.complete).toBe(true);
          expect(outcome.summary.results).toBe(goodLines.length);
        },
      ),
      { numRuns: propertyRuns(6) },
    );
  });
});
