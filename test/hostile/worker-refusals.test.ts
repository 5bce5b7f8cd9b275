import type { ScoreJob } from "@assay/core";
import { DEFAULT_SPEC } from "@assay/pipeline";
import { BullmqTransport, queueNameFor } from "@assay/queue";
import { openStore, type Store } from "@assay/store";
import { sample } from "@assay/test-support/samples";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { queryRows } from "@assay/test-support/stores";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCpuWorker, type WorkerProcess } from "../distributed/support/worker-process.js";

// The second line of defence on the distributed path: jobs that carry what the line checks
// would have refused (as a producer of an older version, or a bug, could enqueue) must not
// poison the worker's write batches nor be retried forever.

const RUN = "refusals";

function job(id: string, line: number, target: string): ScoreJob {
  return {
    runId: RUN,
    pool: "cpu",
    rule: "default",
    scorer: { name: "exact", args: {} },
    sample: sample(id, { line, answer: "a", target }),
  };
}

describe("assay worker, given rows the store refuses", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  let store: Store;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.startRun({
      id: RUN,
      dataset: "jobs.jsonl",
      spec: DEFAULT_SPEC,
      transport: "bullmq",
    });
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await store.close();
    await dropSchema(schema);
    await deletePrefix(prefix);
  });

  it("stores the rest of the batch, an error row or a failed job for each, and retries none", async () => {
    const jobs = Array.from({ length: 30 }, (_, i) => job(`s${i}`, i + 1, "a"));
    // `exact` quotes the target in its detail: jsonb refuses a lone surrogate (22P02).
    jobs.splice(10, 0, job("lone", 31, "\ud800"));
    // The score's own key holds NUL (22021): not even an error row can be stored for it.
    jobs.splice(20, 0, job("nul\u0000", 32, "a"));
    const transport = await BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
    try {
      await transport.enqueue(jobs);
      worker = await startCpuWorker({
        redisUrl: REDIS_URL,
        databaseUrl: DATABASE_URL,
        schema,
        prefix,
        extraArgs: ["--concurrency", "64"],
      });
      await waitFor(
        async () =>
          (await store.countResults(RUN)) === 31 &&
          (await transport.queueCounts())[0]?.failed === 1,
        60_000,
        "31 results and one failed job",
      );
    } finally {
      await transport.close();
    }

    const rows = (await queryRows(
      store,
      `SELECT sample_id, status, reason, detail FROM scores WHERE run_id = '${RUN}' AND status <> 'scored'`,
    )) as { sample_id: string; reason: string; detail: { message: string } }[];
    expect(rows).toEqual([
      {
        sample_id: "lone",
        status: "unscored",
        reason: "error",
        detail: { message: expect.stringMatching(/^the store refused this result: .*\(22P02\)$/) },
      },
    ]);
    const errors = await queryRows(
      store,
      `SELECT file, line, field, message FROM input_errors WHERE run_id = '${RUN}' ORDER BY line`,
    );
    expect(errors).toEqual([
      {
        file: "jobs.jsonl",
        line: 31,
        field: "",
        message: expect.stringMatching(/scorer "exact" for sample "lone" \(field unknown\)/),
      },
      {
        file: "jobs.jsonl",
        line: 32,
        field: "",
        message: expect.stringMatching(/for sample "nul\\u0000" \(field unknown\).*\(22021\)$/),
      },
    ]);

    const queue = new Queue(queueNameFor("cpu"), { connection: { url: REDIS_URL }, prefix });
    try {
      const [failed] = await queue.getFailed();
      expect(failed?.data.sample.id).toBe("nul\u0000");
      expect(failed?.attemptsMade).toBe(1);
      expect(await queue.getDelayedCount()).toBe(0);
    } finally {
      await queue.close();
    }
  });
});
