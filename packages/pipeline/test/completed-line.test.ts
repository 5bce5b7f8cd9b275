import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_SPEC } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { propertyRuns } from "@assay/test-support/property-runs";
import { queryRows } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLocal, validateSpec } from "../src/index.js";
import { pgliteTarget, postgresTarget, type StoreTarget } from "./store-targets.js";
import { tempFiles } from "./temp-files.js";

// A dataset read while still being written ends in part of a line, which becomes an input
// error. Resumed once the file is whole, every line is stored or an input error, never both.
const files = tempFiles("assay-completed-line-");
const registry = defaultRegistry();
const spec = validateSpec(DEFAULT_SPEC, "(default spec)", registry);

const lineOf = (id: number) =>
  JSON.stringify({ id: `s${id}`, question: "q", answer: `a${id}`, target: [`a${id}`] });

describe.each([
  ["pglite", pgliteTarget],
  ["postgres", postgresTarget],
] as const)("resuming a completed dataset on %s", (_name, makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  beforeAll(async () => {
    target = makeTarget();
    store = await target.open();
  });
  afterAll(async () => target.cleanup());

  it("stores the completed line and clears its input error, for any cut", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        async (count, where) => {
          run += 1;
          const runId = `cut-${run}`;
          const dataset = join(files.dir, `${runId}.jsonl`);
          const text = `${Array.from({ length: count }, (_, id) => lineOf(id)).join("\n")}\n`;
          // Cut inside the last line (after at least its first byte, before its newline).
          const lastStart = text.lastIndexOf("\n", text.length - 2) + 1;
          const cut = lastStart + 1 + Math.floor(where * (text.length - 2 - lastStart));
          writeFileSync(dataset, text.slice(0, cut));

          await store.startRun({ id: runId, dataset, spec, transport: "local" });
          const first = await runLocal({ store, registry, dataset, spec, runId, newRun: true });
          expect(first.produced.inputErrors).toBe(1);

          appendFileSync(dataset, text.slice(cut));
          const resumed = await runLocal({ store, registry, dataset, spec, runId });
          expect(resumed.summary).toMatchObject({ samples: count, inputErrors: 0 });
          expect(
            await queryRows(store, `SELECT line FROM input_errors WHERE run_id = '${runId}'`),
          ).toEqual([]);
        },
      ),
      { numRuns: propertyRuns(12) },
    );
  });
});
