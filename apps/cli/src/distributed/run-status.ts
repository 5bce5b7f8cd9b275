import {
  type BullmqTransport,
  checkEvictionPolicy,
  type QueueCounts,
  type QueueHealth,
} from "@assay/queue";
import type { ModelQueue, Store } from "@assay/store";
import type { DistributedFlags } from "./distributed-options.js";
import {
  type ProducerView,
  producerView,
  producerWarning,
  readEtaSeconds,
  readingLine,
} from "./producer-status.js";
import { queueWarnings } from "./queue-warnings.js";

export interface RunStatus {
  runId: string;
  /** Result rows the run needs; null while the producer is still planning. */
  planned: number | null;
  /** Result rows stored (scored or unscored). */
  done: number;
  unscored: number;
  /** Unscored because the scorer itself failed (reason "error"). */
  errors: number;
  inputErrors: number;
  finished: boolean;
  finishedAt: string | null;
  /** Given up with `assay abandon`: it never completes. */
  abandonedAt: string | null;
  /** Jobs of every queue under the prefix; queues are shared by all runs. */
  queues: QueueCounts[];
  /** Each queue's live workers and the running jobs of workers that are gone. */
  queueHealth: QueueHealth[];
  /** Redis `maxmemory-policy`; anything but "noeviction" may lose jobs. */
  redisEvictionPolicy: string;
  /** Results stored per second, measured over `sampleMs`. */
  perSecond: number;
  /**
   * Seconds left at that rate; while the dataset is still read, at the read's pace; null
   * when unknown (nothing moving).
   */
  etaSeconds: number | null;
  /** The run's producer as it last recorded itself; null for a run no producer made. */
  producer: ProducerView | null;
  /** The run's GPU queues and the model each one's workers load. */
  modelQueues: ModelQueue[];
}

/**
 * Where a run stands, as the store and Redis have it; it writes nothing (`statusAction`
 * completes a run that is complete first). A run is finished when every planned result
 * row exists.
 */
export async function readRunStatus(
  store: Store,
  transport: BullmqTransport,
  runId: string,
  sampleMs = 1000,
): Promise<RunStatus> {
  const before = await store.countResults(runId);
  const started = performance.now();
  if (sampleMs > 0) await new Promise((resolve) => setTimeout(resolve, sampleMs));
  const summary = await store.runSummary(runId);
  const perSecond =
    sampleMs > 0 ? ((summary.results - before) * 1000) / (performance.now() - started) : 0;

  const complete = summary.planned !== null && summary.results >= summary.planned;
  const finishedAt = complete ? summary.finishedAt : null;
  const abandonedAt = (await store.getRun(runId))?.abandonedAt ?? null;
  const recorded = await store.getProducer(runId);
  const producer = recorded === undefined ? null : producerView(recorded);
  const queues = await transport.queueCounts();
  const left = summary.planned === null ? null : Math.max(0, summary.planned - summary.results);
  const unscoredBy = (reason?: string): number =>
    summary.groups.reduce(
      (sum, group) =>
        sum +
        Object.entries(group.unscored).reduce(
          (n, [r, count]) => n + (reason === undefined || r === reason ? count : 0),
          0,
        ),
      0,
    );
  return {
    runId,
    planned: summary.planned,
    done: summary.results,
    unscored: unscoredBy(),
    errors: unscoredBy("error"),
    inputErrors: summary.inputErrors,
    finished: complete,
    finishedAt: finishedAt === null ? null : new Date(finishedAt).toISOString(),
    abandonedAt: abandonedAt === null ? null : abandonedAt.toISOString(),
    queues,
    queueHealth: await transport.queueHealth(runId, queues),
    redisEvictionPolicy: (await checkEvictionPolicy(transport.redis, { allowEviction: true }))
      .policy,
    perSecond,
    etaSeconds: etaOf(left, perSecond, producer),
    producer,
    modelQueues: recorded?.modelQueues ?? [],
  };
}

/** At the rate results are stored; while the plan is unknown, at the read's pace. */
function etaOf(left: number | null, perSecond: number, producer: ProducerView | null) {
  if (left === null) return producer === null ? null : readEtaSeconds(producer);
  if (left === 0) return 0;
  return perSecond > 0 ? left / perSecond : null;
}

export function renderRunStatus(status: RunStatus, flags: DistributedFlags): string {
  const planned = status.planned === null ? readingLine(status.producer) : String(status.planned);
  const pct = status.planned
    ? ` (${((100 * status.done) / status.planned).toFixed(1)}%)`
    : status.planned === null && status.producer !== null
      ? ` (plan not known yet: ${(100 * status.producer.readShare).toFixed(1)}% of the dataset read)`
      : "";
  const workersOf = new Map(
    status.queueHealth.map((h) => [h.queue, h.workersKnown ? String(h.workers.length) : "?"]),
  );
  // A queue with nothing in it and no worker (a model no longer used) says nothing.
  const shown = status.queues.filter(
    (q) =>
      q.waiting + q.active + q.delayed + q.failed > 0 || (workersOf.get(q.queue) ?? "0") !== "0",
  );
  const nameWidth = Math.max(26, ...shown.map((q) => q.queue.length));
  const lines = [
    `run        ${status.runId}: ${stateOf(status)}`,
    `planned    ${planned}`,
    `done       ${status.done}${pct}`,
    `unscored   ${status.unscored} (scorer errors: ${status.errors})`,
    `input errs ${status.inputErrors}`,
    `throughput ${Math.round(status.perSecond)} results/s`,
    `eta        ${status.etaSeconds === null ? "unknown" : formatSeconds(status.etaSeconds)}${status.planned === null && status.etaSeconds !== null ? " (to read the rest of the dataset, at the pace so far)" : ""}`,
    // The name column grows with the longest queue: a model's queue carries its whole path.
    `${"queues (shared by all runs)".padEnd(nameWidth + 2)} ${COLUMNS.map((c) => c.padStart(8)).join(" ")}`,
    ...shown.map(
      (q) =>
        `  ${q.queue.padEnd(nameWidth)} ${[q.waiting, q.active, q.delayed, q.failed, workersOf.get(q.queue) ?? "0"].map((n) => String(n).padStart(8)).join(" ")}`,
    ),
  ];
  if (status.queues.length === 0) lines.push("  (no queues yet)");
  const hidden = status.queues.length - shown.length;
  if (hidden > 0) lines.push(`  (${hidden} empty queues that no worker serves not shown)`);
  const warning = producerWarning(status.producer, status.planned !== null);
  if (warning !== null) lines.push(warning);
  lines.push(...queueWarnings(status, flags));
  return lines.join("\n");
}

const COLUMNS = ["waiting", "active", "delayed", "failed", "workers"];

function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

function stateOf(status: RunStatus): string {
  if (status.abandonedAt !== null) {
    return `abandoned at ${status.abandonedAt} (never completes; \`assay prune --run ${status.runId}\` drops its raw rows)`;
  }
  return status.finished ? `finished at ${status.finishedAt}` : "in progress";
}
