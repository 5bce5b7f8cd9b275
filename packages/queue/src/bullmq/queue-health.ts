import type { ScoreJob } from "@assay/core";
import type { Job, Queue } from "bullmq";
import { isSpelledQueue, modelOf } from "./queue-names.js";
import type { RedisConnection } from "./redis-cluster.js";
import { corruptionOf } from "./tolerant-job.js";

/** Who serves a queue, and what is held up in it, as `assay status` shows it. */
export interface QueueHealth {
  queue: string;
  /** Names (`host:pid:tag`) of the workers connected to this queue now. */
  workers: string[];
  /**
   * False where Redis does not list its clients (CLIENT LIST refused, as on some managed
   * services): then nothing is said about workers, gone or missing.
   */
  workersKnown: boolean;
  /** Running jobs whose worker is no longer connected (killed, crashed, cut off). */
  orphaned: OrphanedJobs;
  /** Of this run's jobs waiting or retrying here, how many; counted only with no worker. */
  runJobsWithoutWorker: number;
  /**
   * A model those jobs name, when they are in this queue although their model's queue is
   * another (queued under an older naming of model queues): no worker will ever take them.
   */
  strayModel: string | null;
  /** A model the run's jobs here name, to say which worker would serve the queue. */
  model: string | null;
  /**
   * Jobs seen running, or waiting where no worker serves the queue, whose data cannot be
   * read (the worker that takes one fails it at once, with its id and the reason).
   */
  corrupt: { jobId: string; state: "active" | "waiting"; reason: string }[];
}

export interface OrphanedJobs {
  jobs: number;
  /** The workers that are gone, by name. */
  workers: string[];
  /**
   * When the last of their locks expires (ms from now); a live worker's stalled check then
   * puts the jobs back to waiting. Null when no lock is left (they go back at that check).
   */
  locksExpireInMs: number | null;
}

const PAGE = 500;

/** Reads a queue's live workers and what its dead ones still hold; `queue` is left open. */
export async function readQueueHealth(
  queue: Queue<ScoreJob>,
  redis: RedisConnection,
  runId: string,
  unfinished: number,
): Promise<QueueHealth> {
  const workers = await liveWorkers(queue);
  const health: QueueHealth = {
    queue: queue.name,
    workers: workers ?? [],
    workersKnown: workers !== null,
    orphaned: { jobs: 0, workers: [], locksExpireInMs: null },
    runJobsWithoutWorker: 0,
    strayModel: null,
    model: null,
    corrupt: [],
  };
  if (workers === null) return health;
  await findOrphanedJobs(queue, redis, health);
  if (workers.length === 0 && unfinished > 0) await countRunJobs(queue, runId, health);
  return health;
}

/**
 * BullMQ names each worker's blocking connection `<prefix>:<queue>:w:<worker name>` and
 * finds them in CLIENT LIST; null where Redis does not tell.
 */
export async function liveWorkers(queue: Queue<ScoreJob>): Promise<string[] | null> {
  let clients: Array<Record<string, string>>;
  try {
    clients = await queue.getWorkers();
  } catch {
    return null;
  }
  // Where CLIENT LIST is refused, BullMQ answers with one entry that has no client name.
  if (clients.some((client) => client.rawname === undefined)) return null;
  const names = clients.map((client) => {
    const raw = String(client.rawname);
    const at = raw.indexOf(":w:");
    return at === -1 ? raw : raw.slice(at + ":w:".length);
  });
  return [...new Set(names)].sort();
}

async function findOrphanedJobs(
  queue: Queue<ScoreJob>,
  redis: RedisConnection,
  health: QueueHealth,
): Promise<void> {
  const live = new Set(health.workers);
  const orphaned = health.orphaned;
  const gone = new Set<string>();
  const locks: string[] = [];
  for (let start = 0; ; start += PAGE) {
    const jobs = (await queue.getActive(start, start + PAGE - 1)) as Job<ScoreJob>[];
    for (const job of jobs) {
      const corrupt = job === undefined ? undefined : corruptionOf(job);
      if (corrupt !== undefined) {
        health.corrupt.push({ jobId: String(job?.id), state: "active", reason: corrupt });
      }
      // A job taken by an unnamed worker (an older version) cannot be told apart: skip it.
      if (job?.processedBy === undefined || live.has(job.processedBy)) continue;
      orphaned.jobs += 1;
      gone.add(job.processedBy);
      if (corrupt === undefined) health.model ??= modelOf(job.data) ?? null;
      locks.push(`${queue.toKey(String(job.id))}:lock`);
    }
    if (jobs.length < PAGE) break;
  }
  orphaned.workers = [...gone].sort();
  if (locks.length > 0) {
    const ttls = await Promise.all(locks.map((key) => redis.pttl(key)));
    const left = ttls.filter((ms) => ms > 0);
    orphaned.locksExpireInMs = left.length === 0 ? null : Math.max(...left);
  }
}

/** How many of the run's jobs wait here, and whether they are in their model's queue. */
async function countRunJobs(
  queue: Queue<ScoreJob>,
  runId: string,
  health: QueueHealth,
): Promise<void> {
  for (let start = 0; ; start += PAGE) {
    const jobs = (await queue.getJobs(
      ["waiting", "prioritized", "delayed"],
      start,
      start + PAGE - 1,
    )) as Job<ScoreJob>[];
    for (const job of jobs) {
      const corrupt = job === undefined ? undefined : corruptionOf(job);
      if (corrupt !== undefined) {
        health.corrupt.push({ jobId: String(job?.id), state: "waiting", reason: corrupt });
      }
      if (job?.data?.runId !== runId) continue;
      health.runJobsWithoutWorker += 1;
      const model = modelOf(job.data);
      if (model === undefined) continue;
      health.model ??= model;
      if (health.strayModel === null && isSpelledQueue(queue.name, model)) {
        health.strayModel = model;
      }
    }
    if (jobs.length < PAGE) break;
  }
}
