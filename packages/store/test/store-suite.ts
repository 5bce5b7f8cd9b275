import { ConfigError, type ResultKey, type ScoreJob } from "@assay/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driverOf } from "../src/driver.js";
import { runnerOf } from "../src/reports/index.js";
import type { Store } from "../src/store.js";
import { freshRunId, inputError, sample, scored, unscored } from "./fixtures.js";

/** Result keys asked about as they are, as jobs of their own. */
const keyOf = (key: ResultKey): ResultKey => key;

export interface StoreFactory {
  /** A new, empty store of this driver; `migrate: false` leaves it without tables. */
  open(options: { migrate: boolean }): Promise<Store>;
  /** Removes everything `open` created. */
  cleanup(): Promise<void>;
}

/** The same behaviour, asserted against every driver. */
export function registerStoreSuite(kind: Store["kind"], factory: StoreFactory): void {
  describe(`store (${kind})`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await factory.open({ migrate: true });
    });

    afterAll(async () => {
      await store?.close();
      await factory.cleanup();
    });

    async function startRun(): Promise<string> {
      const id = freshRunId();
      await store.startRun({ id, spec: { scorers: ["exact"] }, transport: "local" });
      return id;
    }

    it("applies migrations, and applying them again changes nothing", async () => {
      expect(store.kind).toBe(kind);
      await store.migrate();
      expect(await store.countResults("no-such-run")).toBe(0);
    });

    it("reports missing migrations with the command that fixes them", async () => {
      const bare = await factory.open({ migrate: false });
      try {
        const attempt = bare.startRun({ id: "r", spec: {}, transport: "local" });
        await expect(attempt).rejects.toBeInstanceOf(ConfigError);
        await expect(bare.countResults("r")).rejects.toThrow(
          /run `assay migrate --db \S+( --db-schema \w+)?` first/,
        );
        await bare.migrate();
        expect(await bare.startRun({ id: "r", spec: {}, transport: "local" })).toEqual({
          created: true,
        });
      } finally {
        await bare.close();
      }
    });

    it("checks migrations before report reads, rollups, answer staging and price imports", async () => {
      const bare = await factory.open({ migrate: false });
      const counts = {
        joined: 0,
        missingAnswers: 0,
        unmatchedAnswers: 0,
        failedRequests: 0,
        duplicateAnswers: 0,
        retriedFailures: 0,
        unjoined: [],
      };
      const attempts: Record<string, () => Promise<unknown>> = {
        ping: () => bare.ping(),
        reportBundle: () => bare.reportBundle("r"),
        sampleRecord: () => bare.sampleRecord("r", "s"),
        ablationCandidatePages: () =>
          bare
            .ablationCandidatePages("r", { verifierScorer: "verifier" })
            [Symbol.asyncIterator]()
            .next(),
        pairScores: () => bare.pairScores("r", "judge", ["s"]),
        hasRollups: () => bare.hasRollups("r"),
        writeRollups: () => bare.writeRollups("r"),
        dropRollups: () => bare.dropRollups("r"),
        refreshPlannerStatistics: () => bare.refreshPlannerStatistics("written", "r"),
        lockAnswerJoin: () => bare.lockAnswerJoin("r"),
        clearStagedAnswers: () => bare.clearStagedAnswers("r"),
        stageAnswers: () => bare.stageAnswers("r", []),
        takeStagedAnswers: () => bare.takeStagedAnswers("r", []),
        unmatchedAnswers: () => bare.unmatchedAnswers("r", "", 10),
        stagedFailures: () => bare.stagedFailures("r", "", 10),
        writeAnswerJoin: () => bare.writeAnswerJoin("r", counts, ""),
        joinedAnswer: () => bare.joinedAnswer("r", "t", 0),
        importPrices: () =>
          bare.importPrices(
            { currency: "USD", models: {} },
            { effectiveFrom: new Date(0), source: "test" },
          ),
      };
      try {
        for (const [name, attempt] of Object.entries(attempts)) {
          await expect(attempt(), name).rejects.toThrow(/run `assay migrate/);
        }
      } finally {
        await bare.close();
      }
    });

    it("keeps an existing run when started again", async () => {
      const id = freshRunId();
      const first = await store.startRun({
        id,
        name: "first",
        dataset: "a.jsonl",
        spec: { n: 1 },
        transport: "local",
      });
      const second = await store.startRun({
        id,
        name: "second",
        spec: { n: 2 },
        transport: "bullmq",
      });
      expect(first).toEqual({ created: true });
      expect(second).toEqual({ created: false });
      const run = await store.getRun(id);
      expect(run).toMatchObject({
        id,
        name: "first",
        dataset: "a.jsonl",
        spec: { n: 1 },
        transport: "local",
      });
      expect(run?.createdAt).toBeInstanceOf(Date);
      expect(await store.getRun("no-such-run")).toBeUndefined();
    });

    it("records the plan and finishes a run only once", async () => {
      const id = await startRun();
      await store.setPlanned(id, { results: 12, modelResults: 0 });
      expect(await store.finishRun(id)).toBe(true);
      const finishedAt = (await store.getRun(id))?.finishedAt;
      expect(await store.finishRun(id)).toBe(false);
      const run = await store.getRun(id);
      expect(run?.plannedResults).toBe(12);
      expect(run?.finishedAt).toEqual(finishedAt);
    });

    it("finishes a reopened run again, at the new time", async () => {
      const id = await startRun();
      expect(await store.finishRun(id)).toBe(true);
      const first = (await store.getRun(id))?.finishedAt as Date;
      await store.reopenRun(id);
      expect((await store.getRun(id))?.finishedAt).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await store.finishRun(id)).toBe(true);
      const second = (await store.getRun(id))?.finishedAt as Date;
      expect(second.getTime()).toBeGreaterThan(first.getTime());
    });

    it("stores each result once however often it is written", async () => {
      const id = await startRun();
      const rows = [
        scored(id, "s1", "exact", 1),
        scored(id, "s2", "exact", 0),
        unscored(id, "s3", "exact", "no_target"),
      ];
      expect(await store.writeScores(rows)).toBe(3);
      expect(await store.writeScores(rows)).toBe(0);
      expect(
        await store.writeScores([
          ...rows,
          scored(id, "s4", "exact", 1),
          scored(id, "s4", "exact", 0),
        ]),
      ).toBe(1);
      expect(await store.countResults(id)).toBe(4);
      expect(await store.writeScores([])).toBe(0);
    });

    it.each([
      ["a few rows", 0],
      ["a batch large enough for COPY", 150],
    ])("stores each row's discrete level beside its detail (%s)", async (_, padding) => {
      const id = await startRun();
      const judged = (sampleId: string, detail: Record<string, unknown> | null) => ({
        ...scored(id, sampleId, "judge", 0.5),
        detail,
      });
      const criterion = (...distributions: unknown[]) => ({
        variants: distributions.map((distribution) => ({ distribution })),
      });
      const holed: number[] = [];
      holed[0] = 0.1;
      holed[2] = 0.5;
      await store.writeScores([
        judged("argmax", { criteria: [criterion([0.1, 0.7, 0.2])] }),
        judged("mean", { criteria: [criterion([0.9, 0.1]), criterion([0.2, 0.3, 0.5])] }),
        judged("first-max", { criteria: [criterion([0.4, 0.4, 0.2])] }),
        judged("none", { criteria: [criterion("x", [1])] }),
        judged("no-criteria", { progress: [1, 2] }),
        judged("no-detail", null),
        // JSON stores NaN and a hole as null: no distribution there, unlike in memory.
        judged("nan", { criteria: [criterion([Number.NaN, 0.5, 0.1])] }),
        judged("hole", { criteria: [criterion(holed)] }),
        ...Array.from({ length: padding }, (_, i) => judged(`pad-${i}`, null)),
      ]);
      const { rows } = await runnerOf(driverOf(store)).query<{
        sample_id: string;
        discrete_level: number | null;
      }>(
        "SELECT sample_id, discrete_level FROM scores WHERE run_id = $1 AND sample_id NOT LIKE 'pad-%'",
        [id],
      );
      expect(Object.fromEntries(rows.map((r) => [r.sample_id, r.discrete_level]))).toEqual({
        argmax: 0.5,
        mean: 0.5,
        "first-max": 0,
        none: null,
        "no-criteria": null,
        "no-detail": null,
        nan: null,
        hole: null,
      });
    });

    it("keeps text, nulls and JSON detail intact", async () => {
      const id = await startRun();
      const tricky = {
        ...unscored(id, 'id "with", {braces}\\ and\ttab', "judge", "parse_error"),
        criterion: "a,b",
      };
      await store.writeScores([
        tricky,
        { ...scored(id, "s", "exact", 0.25), detail: { nested: [1, "x"] } },
      ]);
      const exported = await collect(store.exportScores(id));
      expect(exported.map((row) => row.sample_id).sort()).toEqual([tricky.sampleId, "s"].sort());
      const missing = await store.missingJobs(id, [tricky, { ...tricky, repetition: 1 }], keyOf);
      expect(missing).toEqual([{ ...tricky, repetition: 1 }]);
    });

    it("resolves add() only once the row can be read", async () => {
      const id = await startRun();
      const writer = store.createScoreWriter({ maxBatch: 1000, maxDelayMs: 5 });
      await Promise.all(["a", "b", "c"].map((s) => writer.add(scored(id, s, "exact", 1))));
      expect(await store.countResults(id)).toBe(3);
      await writer.add(scored(id, "a", "exact", 0)); // redelivered: accepted, not stored twice
      await writer.close();
      expect(await store.countResults(id)).toBe(3);
      expect(writer.stats).toMatchObject({ rows: 4, failedFlushes: 0, pending: 0 });
    });

    it("flushes a full batch without waiting for the timer", async () => {
      const id = await startRun();
      const writer = store.createScoreWriter({ maxBatch: 2, maxDelayMs: 3_600_000 });
      const added = Promise.all([
        writer.add(scored(id, "a", "exact", 1)),
        writer.add(scored(id, "b", "exact", 1)),
      ]);
      // An hour's timer cannot have fired: the full batch was stored on its own.
      await withTimeout(added, 240_000);
      expect(writer.stats).toMatchObject({ rows: 2, pending: 0 });
      expect(await store.countResults(id)).toBe(2);
      await writer.close();
    });

    it("holds back producers that run far ahead, without deadlock", async () => {
      const id = await startRun();
      const writer = store.createScoreWriter({ maxBatch: 10, maxDelayMs: 1 });
      let highestPending = 0;
      const adds = Array.from({ length: 500 }, (_, i) => {
        const added = writer.add(scored(id, `s${i}`, "exact", i % 2));
        highestPending = Math.max(highestPending, writer.stats.pending);
        return added;
      });
      await withTimeout(Promise.all(adds), 240_000);
      await writer.close();
      expect(highestPending).toBeLessThanOrEqual(4 * 10 + 1);
      expect(await store.countResults(id)).toBe(500);
    });

    it("finds the jobs whose result is not stored, by the whole result key", async () => {
      const id = await startRun();
      const other = await startRun();
      await store.writeScores([
        scored(id, "s1", "exact", 1),
        { ...scored(id, "s1", "judge", 1), criterion: "clarity", repetition: 2 },
        scored(id, "s2", "exact", 1),
        scored(other, "s3", "exact", 1),
      ]);
      const key = (sampleId: string, scorer: string, criterion = "", repetition = 0) => ({
        runId: id,
        sampleId,
        scorer,
        criterion,
        repetition,
      });
      const asked = [
        key("s1", "exact"),
        key("s1", "judge", "clarity", 2),
        key("s1", "judge", "clarity", 1),
        key("s1", "judge", "other", 2),
        key("s3", "exact"),
      ];
      expect(await store.missingJobs(id, asked, keyOf)).toEqual(asked.slice(2));
      expect(await store.missingJobs(id, [], keyOf)).toEqual([]);
    });

    it("finds the score jobs whose result is not stored", async () => {
      const id = await startRun();
      await store.writeScores([scored(id, "s1", "exact", 1)]);
      const job = (sampleId: string): ScoreJob => ({
        runId: id,
        pool: "cpu",
        rule: "default",
        scorer: { name: "exact", args: {} },
        sample: sample(sampleId),
      });
      expect(await store.missingJobs(id, [job("s1"), job("s2")])).toEqual([job("s2")]);
    });

    it("stores samples and input errors once", async () => {
      const id = await startRun();
      const samples = [
        sample("t1#0", { candidateIndex: 0, label: true }),
        sample("t1#1", { candidateIndex: 1 }),
      ];
      expect(await store.insertSamples(id, samples)).toBe(2);
      expect(await store.insertSamples(id, samples)).toBe(0);
      expect(await store.insertInputErrors(id, [inputError(3), inputError(7)])).toBe(2);
      expect(await store.insertInputErrors(id, [inputError(3)])).toBe(0);
    });

    it("stores a sample's generator usage with the sample, once", async () => {
      const id = await startRun();
      const generator = {
        model: "gen-a",
        input_tokens: 120,
        output_tokens: 30,
        cached_input_tokens: 100,
      };
      await store.insertSamples(id, [sample("g1", { generator }), sample("g2")]);
      await store.insertSamples(id, [sample("g1", { generator })]);
      const rows = await query(
        store,
        `SELECT sample_id, role, model, input_tokens, cached_input_tokens, output_tokens, scorer
         FROM usage WHERE run_id = '${id}'`,
      );
      expect(rows).toEqual([
        {
          sample_id: "g1",
          role: "generator",
          model: "gen-a",
          input_tokens: 120,
          cached_input_tokens: 100,
          output_tokens: 30,
          scorer: "",
        },
      ]);
    });

    it("summarizes a run by scorer and rule", async () => {
      const id = await startRun();
      await store.setPlanned(id, { results: 6, modelResults: 0 });
      await store.insertSamples(id, [sample("s1"), sample("s2"), sample("s3")]);
      await store.insertInputErrors(
        id,
        Array.from({ length: 12 }, (_, i) => inputError(12 - i)),
      );
      await store.writeScores([
        scored(id, "s1", "exact", 1),
        scored(id, "s2", "exact", 0),
        unscored(id, "s3", "exact", "no_target"),
        scored(id, "s1", "judge", 0.5, "hard"),
        unscored(id, "s2", "judge", "parse_error", "hard"),
        unscored(id, "s3", "judge", "parse_error", "hard"),
      ]);
      const summary = await store.runSummary(id);
      expect(summary).toMatchObject({
        runId: id,
        planned: 6,
        samples: 3,
        results: 6,
        inputErrors: 12,
        finishedAt: null,
      });
      expect(summary.groups).toEqual([
        {
          scorer: "exact",
          rule: "default",
          results: 3,
          scored: 2,
          mean: 0.5,
          unscored: { no_target: 1 },
        },
        {
          scorer: "judge",
          rule: "hard",
          results: 3,
          scored: 1,
          mean: 0.5,
          unscored: { parse_error: 2 },
        },
      ]);
      expect(summary.inputErrorExamples.map((e) => e.line)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      expect(summary.inputErrorExamples[0]).toEqual(inputError(1));
      expect(Number.isNaN(Date.parse(summary.startedAt))).toBe(false);
      await expect(store.runSummary("no-such-run")).rejects.toThrow(/No run "no-such-run"/);
    });

    it("exports every score in key order, across pages", async () => {
      const id = await startRun();
      await store.insertSamples(id, [sample("t1#0"), sample("t1#1")]);
      const rows = [
        { ...scored(id, "t1#1", "judge", 0.75), repetition: 1 },
        { ...scored(id, "t1#1", "judge", 0.25), repetition: 0 },
        unscored(id, "t1#0", "judge", "timeout"),
        { ...scored(id, "t1#0", "exact", 1), criterion: "b" },
        { ...scored(id, "t1#0", "exact", 1), criterion: "a" },
      ];
      await store.writeScores(rows);
      const exported = await collect(store.exportScores(id));
      expect(exported.map((r) => [r.sample_id, r.scorer, r.criterion, r.repetition])).toEqual([
        ["t1#0", "exact", "a", 0],
        ["t1#0", "exact", "b", 0],
        ["t1#0", "judge", "", 0],
        ["t1#1", "judge", "", 0],
        ["t1#1", "judge", "", 1],
      ]);
      expect(exported[2]).toEqual({
        run_id: id,
        sample_id: "t1#0",
        task_id: "t1",
        scorer: "judge",
        criterion: "",
        repetition: 0,
        status: "unscored",
        value: null,
        reason: "timeout",
        rule: "default",
        detail: { message: "why: timeout" },
      });
    });

    it("streams more than one page without losing or repeating rows", async () => {
      const id = await startRun();
      const ids = Array.from({ length: 10_250 }, (_, i) => `s${String(i).padStart(6, "0")}`);
      await store.writeScores(ids.map((s) => scored(id, s, "exact", 1)));
      const exported = await collect(store.exportScores(id));
      expect(exported.map((r) => r.sample_id)).toEqual(ids);
    });
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function query(store: Store, sql: string): Promise<unknown[]> {
  const driver = driverOf(store);
  const result =
    driver.kind === "pglite" ? await driver.client.query(sql) : await driver.pool.query(sql);
  return result.rows;
}
