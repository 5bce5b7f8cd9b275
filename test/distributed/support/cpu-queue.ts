import { BullmqTransport, type QueueCounts, queueNameFor } from "@assay/queue";
import { Queue } from "bullmq";
import { Redis } from "ioredis";

/** The CPU queue's jobs by state, read on a connection of its own. */
export async function cpuQueueCounts(redisUrl: string, prefix: string): Promise<QueueCounts> {
  const transport = await BullmqTransport.connect({ redisUrl, prefix });
  try {
    const counts = await transport.queueCounts();
    return (
      counts.find((queue) => queue.queue === queueNameFor("cpu")) ?? {
        queue: "cpu",
        waiting: 0,
        active: 0,
        delayed: 0,
        failed: 0,
      }
    );
  } finally {
    await transport.close();
  }
}

/** Jobs still to run: waiting, being run, or waiting to be retried. */
export function unfinished(counts: QueueCounts): number {
  return counts.waiting + counts.active + counts.delayed;
}

/**
 * Pauses or resumes the CPU queue. Paused, workers stay connected but take no job, so a
 * whole run can be enqueued before any of it is scored.
 */
export async function setCpuQueuePaused(
  redisUrl: string,
  prefix: string,
  paused: boolean,
): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueNameFor("cpu"), { connection, prefix });
  try {
    await (paused ? queue.pause() : queue.resume());
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
