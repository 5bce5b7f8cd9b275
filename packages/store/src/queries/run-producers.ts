import { eq, sql } from "drizzle-orm";
import { runProducers } from "../schema.js";
import type { AnyPgDatabase } from "./runs.js";

/** Where a producer is: what `assay produce` records every few seconds while it reads. */
export type ProducerState = "reading" | "planned" | "stopped" | "failed";

/** A GPU queue of the run and the model its workers load (`--model`). */
export interface ModelQueue {
  queue: string;
  model: string;
}

/** What a producer records of itself and its read (see `runProducers`). */
export interface ProducerRecord {
  runId: string;
  /** `host:pid`. */
  producer: string;
  queuePrefix: string;
  resumeCommand: string;
  modelQueues: ModelQueue[];
  state: ProducerState;
  reason: string | null;
  startedAt: Date;
  /** Seconds since the producer started, by its own clock: the read's pace is bytesRead/readSeconds. */
  readSeconds: number;
  bytesRead: number;
  bytesTotal: number;
  jobsEnqueued: number;
  inputErrors: number;
}

/** As read back: with the time of the producer's last record, by the server's clock. */
export interface ProducerStatus extends ProducerRecord {
  heartbeatAt: Date;
  /** Seconds since `heartbeatAt`, by the server's clock (producers' clocks may differ). */
  silentSeconds: number;
}

/**
 * Records the producer's latest state, taking over the row of an earlier producer of the
 * run. The heartbeat is the server's `now()`, so that status compares times of one clock.
 */
export async function recordProducer(db: AnyPgDatabase, record: ProducerRecord): Promise<void> {
  const values = { ...record, heartbeatAt: sql`now()` };
  const { runId: _runId, ...update } = values;
  await db.insert(runProducers).values(values).onConflictDoUpdate({
    target: runProducers.runId,
    set: update,
  });
}

export async function getProducer(
  db: AnyPgDatabase,
  runId: string,
): Promise<ProducerStatus | undefined> {
  const [row] = await db
    .select({
      record: runProducers,
      silentSeconds: sql<string>`extract(epoch from now() - ${runProducers.heartbeatAt})`,
    })
    .from(runProducers)
    .where(eq(runProducers.runId, runId))
    .limit(1);
  if (row === undefined) return undefined;
  return {
    ...row.record,
    state: row.record.state as ProducerState,
    modelQueues: row.record.modelQueues as ModelQueue[],
    silentSeconds: Number(row.silentSeconds),
  };
}
