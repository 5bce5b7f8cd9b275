import type { JobResult, Sample } from "@assay/core";
import { openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COPY_MIN_ROWS } from "../src/bulk/bulk-statement.js";
import { RejectedRowError } from "../src/rejected-row-error.js";
import type { Store } from "../src/store.js";
import { writeIsolating } from "../src/write-isolating.js";
import { sample, scored, startedRunId } from "./fixtures.js";

// A batch of COPY_MIN_ROWS rows or more travels by COPY (on Postgres through staging tables
// when a key is stored already; on PGlite from a blob, merged by the array statement then);
// a smaller one by array parameters. Both must store the same thing and isolate bad rows,
// on either store.

const COPY_BATCH = COPY_MIN_ROWS * 3;

function result(runId: string, sampleId: string, text: string, verifier: boolean): JobResult {
  const score = { ...scored(runId, sampleId, "verifier", 0.5), reason: text, detail: { text } };
  if (!verifier) return { score, truncations: [], usage: [] };
  const key = { runId, sampleId, scorer: "verifier", criterion: "", repetition: 0 };
  return {
    score,
    truncations: [
      { ...key, originalTokens: 9, keptTokens: 7, droppedTokens: 2, slot: text, policy: "error" },
    ],
    usage: [
      {
        runId,
        sampleId,
        role: "verifier",
        scorer: "verifier",
        model: text,
        inputTokens: 9,
        cachedInputTokens: 1,
        cacheWriteTokens: 0,
        outputTokens: 0,
        computeMs: 1.5,
        device: null,
        prompts: 1,
        forwardPasses: 1,
      },
    ],
  };
}

/** Text Postgres stores as it is (no NUL, no unpaired surrogate), with COPY's specials. */
const storableText = fc
  .tuple(
    fc.string({ unit: "grapheme", maxLength: 12 }),
    fc.constantFrom("\t", "\\", "\n", "\r", "\\N", ""),
  )
  .map(([text, special]) => `${text}${special}${text}`)
  .filter((text) => !text.includes("\u0000"));

async function storedRows(store: Store, runId: string): Promise<unknown[]> {
  return queryRows(
    store,
    `SELECT s.sample_id, s.reason, s.detail, t.slot, u.model, u.compute_ms, u.device
     FROM scores s
     LEFT JOIN truncations t USING (run_id, sample_id, scorer)
     LEFT JOIN usage u ON u.run_id = s.run_id AND u.sample_id = s.sample_id AND u.role = 'verifier'
     WHERE s.run_id = '${runId}' ORDER BY s.sample_id`,
  );
}

describe.each(["postgres", "pglite"] as const)("bulk writes on %s", (driver) => {
  let opened: TestStore;
  let store: Store;

  beforeAll(async () => {
    opened = await openTestStore(driver);
    store = opened.store;
  });
  afterAll(async () => {
    await opened.dispose();
  });

  it("store the same rows by COPY as by array parameters, escapes included", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(storableText, { minLength: COPY_BATCH, maxLength: COPY_BATCH }),
        async (texts) => {
          const [copied, small] = [await startedRunId(store), await startedRunId(store)];
          // Every seventh row is long: a batch spans several COPY chunks, and some rows
          // are longer than a chunk (TEXT_PART_CHARS).
          const long = (text: string, i: number) =>
            i % 7 === 3 ? `${text}${"x".repeat(20_000 * (i % 5))}` : text;
          const resultsOf = (runId: string) =>
            texts.map((text, i) =>
              result(runId, `s${String(i).padStart(4, "0")}`, long(text, i), i % 2 === 0),
            );
          // A first COPY batch goes straight into the tables; the next one meets its keys
          // and goes through the staging tables, adding only what is new.
          const all = resultsOf(copied);
          expect(await store.writeResults(all.slice(0, COPY_MIN_ROWS))).toBe(COPY_MIN_ROWS);
          expect(await store.writeResults(all)).toBe(COPY_BATCH - COPY_MIN_ROWS);
          const smallBatches = resultsOf(small);
          for (let start = 0; start < smallBatches.length; start += 10) {
            await store.writeResults(smallBatches.slice(start, start + 10));
          }
          expect(await storedRows(store, copied)).toEqual(await storedRows(store, small));
          // Written again: nothing new, nothing doubled.
          expect(await store.writeResults(resultsOf(copied))).toBe(0);
          expect(await store.countResults(copied)).toBe(COPY_BATCH);
        },
      ),
      { numRuns: 4 },
    );
  });

  it("refuse each bad row of a COPY batch alone and store every other row once", async () => {
    const badKinds = [
      (runId: string, id: string) => result(runId, `${id}\u0000`, "ok", false),
      (runId: string, id: string) => result(runId, id, "nul \u0000 in the reason", true),
      (runId: string, id: string) => ({
        ...result(runId, id, "ok", false),
        score: { ...scored(runId, id, "verifier", 1), detail: { text: "lone \ud800" } },
      }),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: COPY_BATCH - 1 }), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        async (badIndexes, kindSeed) => {
          const runId = await startedRunId(store);
          const bad = new Set(badIndexes);
          const writer = store.createResultWriter({ maxBatch: COPY_BATCH, maxDelayMs: 50 });
          const rows = Array.from({ length: COPY_BATCH }, (_, i) => {
            const kind = badKinds[(kindSeed + i) % badKinds.length];
            return bad.has(i) && kind !== undefined
              ? kind(runId, `s${i}`)
              : result(runId, `s${i}`, "ok", i % 3 === 0);
          });
          const outcomes = await Promise.allSettled(rows.map((row) => writer.add(row)));
          await writer.close();

          const refused = outcomes.flatMap((outcome, i) =>
            outcome.status === "rejected" ? [i] : [],
          );
          expect(refused).toEqual([...bad].sort((a, b) => a - b));
          for (const index of refused) {
            expect((outcomes[index] as PromiseRejectedResult).reason).toBeInstanceOf(
              RejectedRowError,
            );
          }
          expect(await store.countResults(runId)).toBe(COPY_BATCH - bad.size);
        },
      ),
      { numRuns: 5 },
    );
  });

  it("isolate a refused sample of a COPY batch; the others keep their generator usage", async () => {
    const runId = await startedRunId(store);
    const generator = { model: "gen", input_tokens: 10, output_tokens: 2 };
    const samples: Sample[] = Array.from({ length: COPY_BATCH }, (_, i) =>
      sample(`q${i}`, { line: i + 1, generator, metadata: { note: "tab\there" } }),
    );
    samples[7] = sample("q7\u0000", { line: 8, generator });
    const failures = await writeIsolating(samples, (part) => store.insertSamples(runId, part));

    expect([...failures.keys()]).toEqual([7]);
    const counts = await queryRows(
      store,
      `SELECT (SELECT count(*)::int FROM samples WHERE run_id = '${runId}') AS samples,
              (SELECT count(*)::int FROM usage WHERE run_id = '${runId}') AS usage,
              (SELECT metadata FROM samples WHERE run_id = '${runId}' AND sample_id = 'q0') AS metadata`,
    );
    expect(counts).toEqual([
      { samples: COPY_BATCH - 1, usage: COPY_BATCH - 1, metadata: { note: "tab\there" } },
    ]);
    // A second insert of the same samples adds nothing: resuming is a no-op.
    expect(await store.insertSamples(runId, samples.slice(0, 7))).toBe(0);
  });
});
