import { resolveOptions } from "@assay/queue";
import { fmt } from "../bench-util.js";
import type { PhaseResult } from "./phase.js";

const MB = 1024 * 1024;
const { keepCompleted } = resolveOptions({ redisUrl: "" });

const rate = (r: PhaseResult): number => (r.rowsStored * 1000) / r.endToEndMs;
/** Redis CPU per job, µs. */
const redisUs = (r: PhaseResult): number => (r.redisCpuMs * 1000) / r.planned;
/** Worker CPU per job, µs, all workers together. */
const workerUs = (r: PhaseResult): number => (r.workerCpuMs * 1000) / r.planned;
/** CPU of the Postgres backends serving the workers per row stored, µs. */
const postgresUs = (r: PhaseResult): number => (r.postgresCpuMs * 1000) / r.rowsStored;
/** Achieved Postgres write rate of one worker: rows stored per second per worker. */
const rowsPerWorker = (r: PhaseResult, workers: number): number => rate(r) / workers;
/**
 * Redis memory one job takes at the peak: the growth over the empty server, over the jobs
 * then in the queue plus the finished ones kept.
 */
const bytesPerJob = (r: PhaseResult): number =>
  (r.redisPeakBytes - r.redisStartBytes) / (r.peakJobsInQueue + keepCompleted);

export function printSize(
  assay: PhaseResult,
  raw: PhaseResult | undefined,
  workers: number,
  jobBound: number,
): void {
  const ratio =
    raw === undefined
      ? ""
      : `, raw BullMQ pair ${fmt(rate(raw))} samples/s, ratio ${fmt(rate(assay) / rate(raw), 2)}× (target ≥ 0.80×)`;
  const stored = assay.rowsStored === assay.planned ? "=" : "≠ (MISMATCH)";
  console.log(
    `bench:night — ${fmt(assay.samples)} samples: Assay ${fmt(rate(assay))} samples/s end to end${ratio}; ` +
      `rows stored ${fmt(assay.rowsStored)} ${stored} planned ${fmt(assay.planned)}`,
  );
  const perJob = bytesPerJob(assay);
  console.log(
    `  Redis peak used_memory ${fmt(assay.redisPeakBytes / MB, 1)} MB (empty ${fmt(assay.redisStartBytes / MB, 1)} MB; ` +
      `at most ${fmt(assay.peakJobsInQueue)} jobs in the queue; ≈ ${fmt(perJob)} bytes/job, so the bound of ${fmt(jobBound)} jobs ` +
      `is ≈ ${fmt((assay.redisStartBytes + jobBound * perJob) / MB, 1)} MB)` +
      (raw === undefined ? "" : `; baseline ${fmt(raw.redisPeakBytes / MB, 1)} MB`),
  );
  console.log(
    `  Redis CPU ${fmt(redisUs(assay), 1)} µs/job (one Redis core ≈ ${fmt(1e6 / redisUs(assay))} jobs/s)` +
      (raw === undefined ? "" : `; baseline ${fmt(redisUs(raw), 1)} µs/job`),
  );
  console.log(
    `  workers: CPU ${fmt(workerUs(assay), 1)} µs/job (one worker core ≈ ${fmt(1e6 / workerUs(assay))} jobs/s), ` +
      `Postgres writes ${fmt(rowsPerWorker(assay, workers))} rows/s per worker` +
      (assay.rowsPerFlushSecond === undefined
        ? ""
        : ` (${fmt(assay.rowsPerFlushSecond)} rows per second of flushing)`) +
      `, peak RSS ${fmt(assay.workerPeakRssMb)} MB; Postgres backends ${fmt(postgresUs(assay), 1)} µs/row ` +
      `(one Postgres core ≈ ${fmt(1e6 / postgresUs(assay))} rows/s)` +
      (raw === undefined
        ? ""
        : `; baseline CPU ${fmt(workerUs(raw), 1)} µs/job, peak RSS ${fmt(raw.workerPeakRssMb)} MB`),
  );
  console.log(
    `  producer: CPU ${fmt((assay.producerCpuMs * 1000) / assay.planned, 1)} µs/job, peak RSS ${fmt(assay.producerPeakRssMb)} MB; last result → finished report ` +
      `${fmt(((assay.completeMs ?? 0) + (assay.reportMs ?? 0)) / 1000, 2)} s ` +
      `(produce --wait completes the run ${fmt((assay.completeMs ?? 0) / 1000, 2)} s + assay report ${fmt((assay.reportMs ?? 0) / 1000, 2)} s)`,
  );
}

export function printTable(
  results: readonly { assay: PhaseResult; raw?: PhaseResult }[],
  workers: number,
  jobBound: number,
): void {
  const head = [
    "samples",
    "Assay/s",
    "raw/s",
    "ratio",
    "rows=planned",
    "Redis peak MB",
    "peak jobs",
    "Redis µs/job",
    "worker µs/job",
    "Postgres µs/row",
    "rows/s/worker",
    "producer RSS MB",
    "worker RSS MB",
    "→report s",
  ];
  const rows = results.map(({ assay, raw }) => [
    fmt(assay.samples),
    fmt(rate(assay)),
    raw === undefined ? "—" : fmt(rate(raw)),
    raw === undefined ? "—" : `${fmt(rate(assay) / rate(raw), 2)}×`,
    assay.rowsStored === assay.planned ? "yes" : `NO (${assay.rowsStored})`,
    fmt(assay.redisPeakBytes / MB, 1),
    fmt(assay.peakJobsInQueue),
    fmt(redisUs(assay), 1),
    fmt(workerUs(assay), 1),
    fmt(postgresUs(assay), 1),
    fmt(rowsPerWorker(assay, workers)),
    fmt(assay.producerPeakRssMb),
    fmt(assay.workerPeakRssMb),
    fmt(((assay.completeMs ?? 0) + (assay.reportMs ?? 0)) / 1000, 2),
  ]);
  console.log(
    `\nbench:night summary (${workers} workers; backpressure bound ${fmt(jobBound)} jobs):`,
  );
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}
