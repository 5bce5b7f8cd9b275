import { RunSpecSchema, type ScoreJob } from "@assay/core";
import type { Transport } from "@assay/queue";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { propertyRuns } from "@assay/test-support/property-runs";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { produce } from "../src/index.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({ name: "pipelined", default: { scorers: [{ name: "exact" }] } });

/** Keeps what was enqueued; each call finishes after a random short delay, out of order. */
function recordingTransport(): Transport & { jobs: ScoreJob[] } {
  const jobs: ScoreJob[] = [];
  return {
    kind: "bullmq",
    jobs,
    async enqueue(added) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      jobs.push(...added);
    },
    consume: () => {
      throw new Error("not used");
    },
    close: async () => {},
  };
}

// A bad line and the field its error names ("" for the whole line).
const badLines: [string, string][] = [
  ['{"id": "x", "question": ', ""],
  ['["not", "an", "object"]', ""],
  ['{"id": "x", "answer": "a"}', "question"],
  ['{"id": "x", "question": 7, "answer": "a"}', "question"],
  ['{"id": "", "question": "q", "answer": "a"}', "id"],
];
// Good lines draw their ids from a small pool, so that some repeat an earlier id.
const entry = fc.oneof(
  fc.record({ kind: fc.constant("good" as const), id: fc.integer({ min: 0, max: 8 }) }),
  fc.record({ kind: fc.constant("bad" as const), which: fc.nat(badLines.length - 1) }),
);

// On Postgres the chunks' queries really run at once, over several connections.
describe.each(DRIVER_NAMES)("produce with chunks in flight (%s, property)", (driver) => {
  let opened: TestStore;
  let store: Store;
  let runs = 0;

  beforeAll(async () => {
    opened = await openTestStore(driver);
    store = opened.store;
  });
  afterAll(async () => {
    await opened.dispose();
  });

  it("enqueues every good line exactly once and reports each bad line with its number", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        async (entries, chunkSize, chunksInFlight) => {
          runs += 1;
          const runId = `pipelined-${runs}`;
          const firstLineOf = new Map<string, number>();
          const expectedErrors: { line: number; field: string }[] = [];
          const lines = entries.map((item, index) => {
            const line = index + 1;
            if (item.kind === "bad") {
              const [text, field] = badLines[item.which] as [string, string];
              expectedErrors.push({ line, field });
              return text;
            }
            const id = `s${item.id}`;
            if (firstLineOf.has(id)) expectedErrors.push({ line, field: "id" });
            else firstLineOf.set(id, line);
            return { id, question: "q", answer: id, target: id };
          });
          const dataset = files.write(`${runId}.jsonl`, jsonl(lines));
          await store.startRun({ id: runId, dataset, spec, transport: "bullmq" });
          const transport = recordingTransport();

          const result = await produce({
            ...{ store, transport, registry, dataset, spec, runId },
            ...{ chunkSize, chunksInFlight, newRun: true },
          });

          const enqueued = transport.jobs.map((job) => [job.sample.id, job.sample.line]);
          expect(enqueued.sort()).toEqual([...firstLineOf].sort());
          expect(result.enqueued).toBe(firstLineOf.size);
          expect(result.inputErrors).toBe(expectedErrors.length);
          const errors = (await queryRows(
            store,
            `SELECT line, field, message FROM input_errors WHERE run_id = '${runId}' ORDER BY line`,
          )) as { line: number; field: string; message: string }[];
          expect(errors.map(({ line, field }) => ({ line, field }))).toEqual(expectedErrors);
          for (const error of errors.filter((e) => e.message.startsWith("duplicate id"))) {
            const id = /duplicate id "([^"]+)"/.exec(error.message)?.[1] ?? "";
            expect(error.message).toContain(`first used on line ${firstLineOf.get(id)}`);
          }
        },
      ),
      { numRuns: propertyRuns(15) },
    );
  });
});
