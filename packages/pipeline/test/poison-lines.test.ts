import { RunSpecSchema, type Score, type Scorer, scored } from "@assay/core";
import { defaultRegistry, defineScorer, exact, ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { sample } from "@assay/test-support/samples";
import { DRIVER_NAMES, openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkDataset,
  createBatchScoreHandler,
  createScoreHandler,
  runLocal,
} from "../src/index.js";
import { storeLines } from "../src/run/store-lines.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles();
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({ name: "poison", default: { scorers: [{ name: "exact" }] } });
const good = (id: string) => ({ id, question: "q", answer: id, target: [id] });
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

let counter = 0;
async function run(
  store: Store,
  lines: (string | object)[] | Buffer,
  options: { chunkSize?: number; runId?: string } = {},
) {
  counter += 1;
  const dataset = files.write(
    `data-${counter}.jsonl`,
    Buffer.isBuffer(lines) ? lines : jsonl(lines),
  );
  const runId = options.runId ?? `run-${counter}`;
  await store.startRun({ id: runId, dataset, spec, transport: "local" });
  const outcome = await runLocal({
    store,
    registry,
    dataset,
    spec,
    runId,
    ...(options.chunkSize !== undefined && { chunkSize: options.chunkSize }),
  });
  return { outcome, runId, dataset };
}

async function storedSamples(store: Store, runId: string): Promise<[string, number][]> {
  const rows = (await queryRows(
    store,
    `SELECT sample_id, line FROM samples WHERE run_id = '${runId}' ORDER BY line, sample_id`,
  )) as { sample_id: string; line: number }[];
  return rows.map((row) => [row.sample_id, row.line]);
}

async function inputErrors(store: Store, runId: string) {
  return (await queryRows(
    store,
    `SELECT line, field, message FROM input_errors WHERE run_id = '${runId}' ORDER BY line`,
  )) as { line: number; field: string; message: string }[];
}

describe.each(DRIVER_NAMES)("poison lines (%s)", (driver) => {
  let opened: TestStore;
  let store: Store;

  beforeAll(async () => {
    opened = await openTestStore(driver);
    store = opened.store;
  });
  afterAll(async () => {
    await opened.dispose();
  });

  it("never abort the run: each is an input error with its line, and a rerun completes", async () => {
    const dataset = Buffer.concat([
      Buffer.from(`${jsonl([good("g1")])}`),
      Buffer.from('{"id":"nul\\u0000id","question":"q","answer":"a"}\n'),
      Buffer.from(`${jsonl([good("g2")])}`),
      Buffer.from('{"id":"m","question":"q","answer":"a","metadata":{"k":"v\\u0000"}}\n'),
      Buffer.from('{"id":"raw","question":"q","answer":"a'),
      Buffer.from([0x00]),
      Buffer.from('"}\n'),
      Buffer.from('{"id":"lone","question":"q","answer":"a","target":"\\ud800"}\n'),
      Buffer.from(
        `{"id":"deep","question":"q","answer":"a","target":"a","metadata":{"k":${deep(10_000)}}}\n`,
      ),
      Buffer.from(`${jsonl([good("g3")])}`),
    ]);
    const first = await run(store, dataset, { runId: `poison-${driver}` });
    expect(first.outcome).toMatchObject({ complete: true, stored: 3 });
    expect(await storedSamples(store, first.runId)).toEqual([
      ["g1", 1],
      ["g2", 3],
      ["g3", 8],
    ]);
    const errors = await inputErrors(store, first.runId);
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [2, "id"],
      [4, "metadata.k"],
      [5, ""],
      [6, "target"],
      [
        7,
        "metadata.k[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]",
      ],
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/NUL character/),
      expect.stringMatching(/NUL character/),
      expect.stringMatching(/malformed JSON/),
      expect.stringMatching(/unpaired UTF-16 surrogate/),
      expect.stringMatching(/nested deeper than 64 levels/),
    ]);

    const again = await runLocal({
      store,
      registry,
      dataset: first.dataset,
      spec,
      runId: first.runId,
    });
    expect(again).toMatchObject({ complete: true, stored: 0 });
    expect(again.produced).toMatchObject({ samples: 3, skipped: 3, inputErrors: 5 });
  });

  it("accept a candidates line whole or refuse it whole, in one chunk or across chunks", async () => {
    const candidates = (id: string, n: number) => ({
      id,
      question: "q",
      candidates: Array.from({ length: n }, (_, i) => ({ answer: `a${i}` })),
      target: "a0",
    });
    const lines = [
      good("cand#1"), // 1
      candidates("cand", 2), // 2: cand#1 is taken: refused whole, cand#0 not kept
      candidates("dup", 2), // 3
      good("dup#0"), // 4: refused
      good("x#0"), // 5
      candidates("x", 2), // 6: refused, so x#1 stays free
      good("x#1"), // 7: stored
    ];
    const expected = [
      ["cand#1", 1],
      ["dup#0", 3],
      ["dup#1", 3],
      ["x#0", 5],
      ["x#1", 7],
    ];
    for (const chunkSize of [1, 2000]) {
      const { runId, outcome, dataset } = await run(store, lines, { chunkSize });
      expect(await storedSamples(store, runId)).toEqual(expected);
      expect(outcome.complete).toBe(true);
      const errors = await inputErrors(store, runId);
      expect(errors.map((e) => [e.line, e.field, e.message])).toEqual([
        [2, "id", expect.stringMatching(/duplicate id "cand#1" \(first used on line 1\).*<id>#0/)],
        [4, "id", expect.stringMatching(/duplicate id "dup#0" \(first used on line 3\)/)],
        [6, "id", expect.stringMatching(/duplicate id "x#0" \(first used on line 5\)/)],
      ]);
      // --strict reports the very same lines.
      const check = await checkDataset(dataset, spec, registry);
      expect(check.errors.map((e) => [e.line, e.message])).toEqual(
        errors.map((e) => [e.line, e.message]),
      );
    }
  });

  it("record a result the store refuses as an input error, store an error row, and complete", async () => {
    // A scorer that quotes the first character of the answer cuts an emoji in half.
    const firstChar = defineScorer({
      name: "first_char",
      pool: "cpu",
      description: "test scorer: quotes the answer's first UTF-16 unit",
      args: exact.args, // none
      create: () => async (s) => scored(1, { first: s.answer.slice(0, 1) }),
    });
    const quoting = new ScorerRegistry([firstChar]);
    const quotingSpec = RunSpecSchema.parse({ default: { scorers: [{ name: "first_char" }] } });
    const dataset = files.write(
      `quote-${driver}.jsonl`,
      jsonl([good("plain"), { id: "emoji", question: "q", answer: "😀 yes" }, good("after")]),
    );
    const runId = `quote-${driver}`;
    await store.startRun({ id: runId, dataset, spec: quotingSpec, transport: "local" });
    const outcome = await runLocal({ store, registry: quoting, dataset, spec: quotingSpec, runId });

    expect(outcome.complete).toBe(true);
    expect(outcome.summary.groups[0]).toMatchObject({
      results: 3,
      scored: 2,
      unscored: { error: 1 },
    });
    const errors = await inputErrors(store, runId);
    expect(errors).toEqual([
      {
        line: 2,
        field: "",
        message: expect.stringMatching(
          /^the store refused the result of scorer "first_char" for sample "emoji" \(field unknown\): .*\(22P02\)$/,
        ),
      },
    ]);
  });

  it("store what a scorer returns or resolves, and an error row where it throws or rejects", async () => {
    // A deterministic scorer returns its score; a model's returns a promise. Either may fail.
    const scorer = (name: string, create: () => Scorer) =>
      defineScorer({
        name,
        pool: "cpu",
        description: `test scorer ${name}`,
        args: exact.args,
        create,
      });
    const failing = new ScorerRegistry([
      scorer("returns", () => (s) => scored(1 / s.answer.length)),
      scorer("resolves", () => async (s) => scored(1 / (s.answer.length + 1))),
      // A promise from another realm (a vm context, another library's promises) is a
      // thenable, not an instance of this realm's Promise.
      scorer(
        "thenable",
        () => (s) =>
          ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable is what this scorer tests
            then: (resolve: (score: Score) => void) => resolve(scored(1 / (s.answer.length + 2))),
          }) as unknown as Promise<Score>,
      ),
      scorer("throws", () => () => {
        throw new Error("sync boom");
      }),
      scorer("rejects", () => async () => {
        throw new Error("async boom");
      }),
    ]);
    const names = ["returns", "resolves", "thenable", "throws", "rejects"];
    const failingSpec = RunSpecSchema.parse({
      default: { scorers: names.map((name) => ({ name })) },
    });
    const dataset = files.write(`fail-${driver}.jsonl`, jsonl([good("a"), good("bb")]));
    const runId = `fail-${driver}`;
    await store.startRun({ id: runId, dataset, spec: failingSpec, transport: "local" });
    const outcome = await runLocal({ store, registry: failing, dataset, spec: failingSpec, runId });

    expect(outcome.complete).toBe(true);
    const rows = (await queryRows(
      store,
      `SELECT sample_id, scorer, value, reason, detail->>'message' AS message FROM scores
       WHERE run_id = '${runId}' ORDER BY sample_id, scorer`,
    )) as { sample_id: string; scorer: string; value: number | null; reason: string | null }[];
    const failed = (scorerName: string, message: string) => ({
      scorer: scorerName,
      value: null,
      reason: "error",
      message: `${scorerName}: ${message}`,
    });
    const ok = (scorerName: string, value: number) => ({
      scorer: scorerName,
      value,
      reason: null,
      message: null,
    });
    expect(rows).toEqual(
      ["a", "bb"].flatMap((id) =>
        [
          failed("rejects", "async boom"),
          ok("resolves", 1 / (id.length + 1)),
          ok("returns", 1 / id.length),
          ok("thenable", 1 / (id.length + 2)),
          failed("throws", "sync boom"),
        ].map((row) => ({ sample_id: id, ...row })),
      ),
    );
  });

  it("isolate a line the store refuses for a data reason; the other lines are stored", async () => {
    const runId = `refused-${driver}`;
    await store.startRun({ id: runId, spec, transport: "local" });
    // Built directly, past the line checks, as something they might miss would be.
    const line = (n: number, id: string) => ({
      line: n,
      samples: [sample(id, { line: n })],
      jobs: [],
    });
    const lines = [line(1, "ok1"), line(2, "bad\u0000"), line(3, "ok3"), line(4, "ok4")];
    const { stored, errors } = await storeLines(store, runId, "data.jsonl", lines);
    expect(stored.map((l) => l.line).sort()).toEqual([1, 3, 4]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^data\.jsonl:2: the store refused this line \(field unknown\): invalid byte sequence .*\(22021\)$/,
      ),
    ]);
    expect(await storedSamples(store, runId)).toEqual([
      ["ok1", 1],
      ["ok3", 3],
      ["ok4", 4],
    ]);
  });

  it("drop a result not even an error row can hold, in-process, instead of stopping the run", async () => {
    const runId = `unstorable-${driver}`;
    await store.startRun({ id: runId, dataset: "jobs.jsonl", spec, transport: "local" });
    const writer = store.createResultWriter({ maxDelayMs: 1 });
    const job = (id: string, line: number) => ({
      runId,
      pool: "cpu" as const,
      rule: "default",
      scorer: { name: "exact", args: {} },
      sample: sample(id, { line, answer: "a", target: "a" }),
    });
    const stored: string[] = [];
    const options = {
      registry,
      writer,
      store,
      onStored: (_: unknown, j: { sample: { id: string } }) => void stored.push(j.sample.id),
    };
    const inProcess = createScoreHandler({ ...options, dropUnstorable: true });
    const queued = createScoreHandler(options);
    const signal = new AbortController().signal;

    // The score's own key holds NUL: neither the result nor an error row can be stored.
    await inProcess(job("key\u0000", 2), signal);
    await expect(queued(job("key2\u0000", 3), signal)).rejects.toThrow(
      /the store refused this row/,
    );
    await inProcess(job("fine", 4), signal);
    await writer.close();

    expect(stored).toEqual(["fine"]);
    const errors = await inputErrors(store, runId);
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [2, ""],
      [3, ""],
    ]);
    expect(errors[0]?.message).toMatch(/sample "key\\u0000" \(field unknown\).*\(22021\)$/);
  });

  it("give each job of a batch its own outcome: stored, dropped in-process, or an input error", async () => {
    const runId = `batch-${driver}`;
    await store.startRun({ id: runId, dataset: "jobs.jsonl", spec, transport: "local" });
    const writer = store.createResultWriter({ maxDelayMs: 1 });
    const job = (id: string, line: number, answer = "a") => ({
      runId,
      pool: "cpu" as const,
      rule: "default",
      scorer: { name: "exact", args: {} },
      sample: sample(id, { line, answer, target: "a" }),
    });
    const stored: [string, number | null][] = [];
    const handle = createBatchScoreHandler({
      registry,
      writer,
      store,
      dropUnstorable: true,
      onStored: (score, j) =>
        void stored.push([j.sample.id, score.status === "scored" ? score.value : null]),
    });
    const signal = new AbortController().signal;

    // Between good jobs, one whose key the store refuses: the batch is split around it.
    await handle([job("one", 1), job("key\u0000", 2), job("two", 3, "b"), job("three", 4)], signal);
    expect(stored).toEqual([
      ["one", 1],
      ["two", 0],
      ["three", 1],
    ]);
    const errors = await inputErrors(store, runId);
    expect(errors.map((e) => [e.line, e.field])).toEqual([[2, ""]]);
    const rows = await queryRows(
      store,
      `SELECT sample_id FROM scores WHERE run_id = '${runId}' ORDER BY sample_id`,
    );
    expect(rows.map((row) => (row as { sample_id: string }).sample_id)).toEqual([
      "one",
      "three",
      "two",
    ]);

    // A batch the writer cannot take at all fails as a whole, as one job's handler would.
    await writer.close();
    await expect(handle([job("late", 5)], signal)).rejects.toThrow(/after close/);
  });
});
