import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { scoreJob } from "@assay/test-support/score-job";
import { deletePrefix, freshPrefix, REDIS_URL, waitFor } from "@assay/test-support/services";
import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { BullmqTransport, moveSpelledQueueJobs, queueNameFor } from "../src/index.js";

const root = mkdtempSync(join(tmpdir(), "assay-model-queues-"));
const folder = join(root, ".models", "x");
mkdirSync(folder, { recursive: true });
symlinkSync(folder, join(root, "linked-x"));
const prefixes: string[] = [];

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefix(prefix);
  rmSync(root, { recursive: true, force: true });
});

async function connect(): Promise<BullmqTransport> {
  const prefix = freshPrefix();
  prefixes.push(prefix);
  return BullmqTransport.connect({ redisUrl: REDIS_URL, prefix });
}

describe("a model's queue", () => {
  it("follows the model, not how it is spelled", () => {
    const fromCwd = relative(process.cwd(), folder);
    const spellings = [
      folder,
      `${folder}/`,
      fromCwd,
      `./${fromCwd}`,
      `${fromCwd}//`,
      join(root, "linked-x"),
      join(root, ".models", "..", ".models", "x"),
    ];
    const names = new Set(spellings.map((model) => queueNameFor("gpu", model)));
    // The folder's real path, each "/" written as "_2f" (its byte in hex).
    expect([...names]).toEqual([`gpu-${folder.replaceAll("/", "_2f")}`]);
    // Another folder, and a hub id, are other models.
    expect(queueNameFor("gpu", join(root, ".models"))).not.toBe([...names][0]);
    expect(queueNameFor("gpu", "owner/verifier")).toBe("gpu-owner_2fverifier");
  });

  it("differs for two folders, whatever their names share", () => {
    const folders = [
      join(root, "one", "verifier"),
      join(root, "two", "verifier"),
      join(root, "a_b"),
      join(root, "a", "b"),
    ];
    for (const each of folders) mkdirSync(each, { recursive: true });
    const names = folders.map((each) => queueNameFor("gpu", each));
    expect(new Set(names).size).toBe(folders.length);
  });

  it("reaches a worker started with another spelling of the model", async () => {
    const transport = await connect();
    try {
      const seen: string[] = [];
      const consumer = transport.consume("gpu", async (job) => void seen.push(job.sample.id), {
        concurrency: 2,
        model: `./${relative(process.cwd(), folder)}`,
      });
      await transport.enqueue([
        scoreJob("a", { pool: "gpu", model: relative(process.cwd(), folder) }),
        scoreJob("b", { pool: "gpu", model: join(root, "linked-x") }),
      ]);
      await waitFor(async () => seen.length === 2, 30_000, "both jobs at the worker");
      await consumer.stop();
      expect(seen.sort()).toEqual(["a", "b"]);
    } finally {
      await transport.close();
    }
  });

  it.each([
    ["the spelling", (spelling: string) => spelling],
    ["the folder's path", () => folder],
  ])(
    "takes a run's jobs out of a queue an older version named after %s, into the model's queue",
    async (_, named) => {
      const transport = await connect();
      const spelling = relative(process.cwd(), folder);
      // Where an older version queued them: every character but [A-Za-z0-9_.-] as "_".
      const spelled = `gpu-${named(spelling).replace(/[^A-Za-z0-9_.-]+/g, "_")}`;
      const old = new Queue(spelled, {
        connection: transport.redis,
        prefix: transport.queuePrefixOf(spelled),
      });
      try {
        await old.add("score", scoreJob("s1", { pool: "gpu", model: spelling }), { jobId: "j1" });
        await old.add("score", scoreJob("s2", { pool: "gpu", model: spelling, runId: "other" }), {
          jobId: "j2",
        });
        expect(await moveSpelledQueueJobs(transport, "run-1")).toBe(1);
        const counts = new Map((await transport.queueCounts()).map((c) => [c.queue, c.waiting]));
        expect(counts.get(spelled)).toBe(1); // the other run's job is left for its own retry
        expect(counts.get(queueNameFor("gpu", spelling))).toBe(1);
      } finally {
        await old.close();
        await transport.close();
      }
    },
  );
});
