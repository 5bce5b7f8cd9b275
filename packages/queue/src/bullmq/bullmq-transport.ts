import type { Pool, ScoreJob } from "@assay/core";
import type { Queue } from "bullmq";
import type { ConsumeOptions, Consumer, JobHandler, Transport } from "../transport.js";
import { quietBullmqEvictionWarning } from "./bullmq-eviction-warning.js";
import { type PausableConsumer, startConsumer } from "./consumer.js";
import { EnqueueAbortedError } from "./enqueue-aborted-error.js";
import { jobOptionsOf } from "./job-options.js";
import { type KeyLayout, keyLayout } from "./key-layout.js";
import { type BullmqTransportOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { liveWorkers, type QueueHealth, readQueueHealth } from "./queue-health.js";
import { queueNameFor, queueNameOf } from "./queue-names.js";
import { connectRedisOrCluster, type RedisConnection, scanKeys } from "./redis-cluster.js";
import { TolerantQueue } from "./tolerant-job.js";

export interface BullmqConsumeOptions extends ConsumeOptions {
  /** GPU pool only: the model whose queue to take jobs from (one model per process). */
  model?: string;
  /** Called when a job starts that was started before (retry or stalled-job recovery). */
  onRedelivered?: (job: ScoreJob) => void;
}

/** A queue's jobs waiting (or retrying) and the workers connected to it now (null: unknown). */
export interface ServedQueue {
  queue: string;
  waiting: number;
  workers: number | null;
}

/** Jobs of one queue, as `assay status` shows them. */
export interface QueueCounts {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/**
 * Distributed transport: one BullMQ queue per pool (per model for the GPU pool) in Redis.
 * Job ids are `jobIdOf(result key)`, so enqueuing a job that is still queued adds nothing;
 * work already stored is left out by the producer before it gets here.
 */
export class BullmqTransport implements Transport {
  readonly kind = "bullmq" as const;
  /** The transport's own connection, also for checks such as the eviction policy. */
  readonly redis: RedisConnection;
  readonly #options: ResolvedOptions;
  readonly #layout: KeyLayout;
  readonly #queues = new Map<string, Queue<ScoreJob>>();
  readonly #consumers = new Set<Consumer>();
  /** Jobs each queue may still take before its length is looked up again (backpressure). */
  readonly #room = new Map<string, number>();
  /** Queues this transport has added jobs to. */
  readonly #fed = new Set<string>();

  private constructor(redis: RedisConnection, options: ResolvedOptions, layout: KeyLayout) {
    this.redis = redis;
    this.#options = options;
    this.#layout = layout;
  }

  /**
   * Connects to Redis, or to a Redis Cluster when the URL names one of its nodes; a
   * ConfigError names the URL when it is unreachable, or the prefix when a cluster cannot
   * use it.
   */
  static async connect(options: BullmqTransportOptions): Promise<BullmqTransport> {
    quietBullmqEvictionWarning();
    const resolved = resolveOptions(options);
    const redis = await connectRedisOrCluster(options.redisUrl, {
      waitThroughOutages: options.failOnOutage !== true,
      ...(options.redisPassword !== undefined && { password: options.redisPassword }),
    });
    try {
      return new BullmqTransport(redis, resolved, keyLayout(resolved.prefix, redis.isCluster));
    } catch (error) {
      redis.disconnect();
      throw error;
    }
  }

  /** The key prefix the transport was given (`--queue-prefix`). */
  get prefix(): string {
    return this.#options.prefix;
  }

  /** The prefix BullMQ is given for `queue`: on a cluster, one with the queue's hash tag. */
  queuePrefixOf(queue: string): string {
    return this.#layout.prefixOf(queue);
  }

  async enqueue(jobs: readonly ScoreJob[]): Promise<void> {
    for (const [name, group] of groupByQueue(jobs)) {
      const queue = this.#queue(name);
      this.#fed.add(name);
      for (let start = 0; start < group.length; start += this.#options.addChunkSize) {
        const chunk = group.slice(start, start + this.#options.addChunkSize);
        await this.#waitForRoom(name, queue, chunk.length);
        await queue.addBulk(
          chunk.map((job) => ({
            name: "score",
            data: job,
            opts: jobOptionsOf(job, this.#options),
          })),
        );
      }
    }
  }

  consume(pool: Pool, handler: JobHandler, options: BullmqConsumeOptions): PausableConsumer {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(
        `Expected \`concurrency\` to be an integer from 1 and up, got ${options.concurrency}`,
      );
    }
    const name = queueNameFor(pool, options.model);
    const consumer = startConsumer(
      name,
      handler,
      options.concurrency,
      this.redis,
      { ...this.#options, prefix: this.queuePrefixOf(name) },
      options.onRedelivered,
    );
    this.#consumers.add(consumer);
    return {
      pause: () => consumer.pause(),
      resume: () => consumer.resume(),
      stop: async () => {
        await consumer.stop();
        this.#consumers.delete(consumer);
      },
    };
  }

  /**
   * Fails unless Redis takes writes: a read-only replica answers reads and refuses the
   * first write, so a producer asks before it registers anything.
   */
  async assertWritable(): Promise<void> {
    await this.redis.set(`${this.#options.prefix}:write-check`, "1", "PX", 1000);
  }

  /**
   * The queues this transport added jobs to, each with its jobs waiting (or retrying) and
   * the workers connected to it now (null where Redis does not list its clients).
   */
  fedQueues(): Promise<ServedQueue[]> {
    return this.#served([...this.#fed].sort());
  }

  /**
   * Every queue under the prefix, as `fedQueues` gives them: for a command that waits on
   * jobs it did not add itself (`assay retry --wait`, whose jobs may wait where the
   * producer put them).
   */
  async prefixQueues(): Promise<ServedQueue[]> {
    return this.#served(await this.#queueNames());
  }

  async #served(names: readonly string[]): Promise<ServedQueue[]> {
    const served = [];
    for (const name of names) {
      const queue = this.#queue(name);
      const waiting = await queue.getJobCountByTypes("wait", "prioritized", "delayed");
      const workers = await liveWorkers(queue);
      served.push({ queue: name, waiting, workers: workers === null ? null : workers.length });
    }
    return served;
  }

  /** Waiting, active, delayed (retrying) and failed jobs of every queue under the prefix. */
  async queueCounts(): Promise<QueueCounts[]> {
    const counts: QueueCounts[] = [];
    for (const name of await this.#queueNames()) {
      const c = await this.#queue(name).getJobCounts(
        "wait",
        "prioritized",
        "active",
        "delayed",
        "failed",
      );
      counts.push({
        queue: name,
        waiting: (c.wait ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        failed: c.failed ?? 0,
      });
    }
    return counts;
  }

  /**
   * Each queue's live workers and the running jobs of workers that are gone; for a queue
   * no worker serves, how many of `runId`'s jobs wait in it. `counts` from `queueCounts`.
   */
  async queueHealth(runId: string, counts: readonly QueueCounts[]): Promise<QueueHealth[]> {
    const health: QueueHealth[] = [];
    for (const c of counts) {
      const unfinished = c.waiting + c.delayed;
      health.push(await readQueueHealth(this.#queue(c.queue), this.redis, runId, unfinished));
    }
    return health;
  }

  /** Stops every consumer (letting in-flight jobs finish), then disconnects. */
  async close(): Promise<void> {
    await Promise.all([...this.#consumers].map((consumer) => consumer.stop()));
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    this.#queues.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  // Backpressure: a producer far ahead of the workers would fill Redis memory, and with
  // `noeviction` a full Redis refuses writes, so wait for the workers instead. Workers
  // only shorten the queue, so room seen once can be spent before looking again: one look
  // per quarter of the mark rather than one per chunk. A quarter, so that several
  // producers feeding one queue pass the mark by at most a quarter each (plus a chunk
  // per concurrent call).
  async #waitForRoom(name: string, queue: Queue<ScoreJob>, jobs: number): Promise<void> {
    let room = this.#room.get(name) ?? 0;
    const { signal } = this.#options;
    while (room <= 0) {
      const mark = this.#options.highWaterMark;
      room = Math.min(mark - (await queue.count()), Math.ceil(mark / 4));
      if (room > 0) break;
      if (signal?.aborted === true) throw new EnqueueAbortedError(name);
      await new Promise((resolve) => setTimeout(resolve, this.#options.backpressurePollMs));
    }
    this.#room.set(name, room - jobs);
  }

  #queue(name: string): Queue<ScoreJob> {
    let queue = this.#queues.get(name);
    if (queue === undefined) {
      queue = new TolerantQueue(name, {
        connection: this.redis,
        prefix: this.queuePrefixOf(name),
        // The events stream is only for listeners we do not use; keep it short.
        streams: { events: { maxLen: 1000 } },
      });
      queue.on("error", (error) => this.#options.onError?.(error));
      this.#queues.set(name, queue);
    }
    return queue;
  }

  /** Queues are created on first use (GPU ones per model), so find them by their meta key. */
  async #queueNames(): Promise<string[]> {
    const names = new Set<string>();
    await scanKeys(this.redis, this.#layout.metaKeys, (keys) => {
      for (const key of keys) {
        const name = this.#layout.queueOfMetaKey(key);
        if (name !== undefined) names.add(name);
      }
    });
    return [...names].sort();
  }
}

function groupByQueue(jobs: readonly ScoreJob[]): Map<string, ScoreJob[]> {
  const groups = new Map<string, ScoreJob[]>();
  for (const job of jobs) {
    const name = queueNameOf(job);
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [job]);
    else group.push(job);
  }
  return groups;
}
