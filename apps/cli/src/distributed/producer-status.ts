import { PRODUCER_SILENT_S } from "@assay/pipeline";
import type { ProducerState, ProducerStatus } from "@assay/store";
import prettyBytes from "pretty-bytes";
import { duration } from "../progress/progress-meter.js";

/** The run's producer, as `assay status` shows it (`--json`: `producer`). */
export interface ProducerView {
  /** `host:pid`. */
  producer: string;
  state: ProducerState;
  /** Why it stopped or failed. */
  reason: string | null;
  /** Reading, but silent past PRODUCER_SILENT_S: killed, or its machine or pod gone. */
  silent: boolean;
  /** Seconds since its last record. */
  silentSeconds: number;
  bytesRead: number;
  bytesTotal: number;
  /** bytesRead of bytesTotal, 0 to 1. */
  readShare: number;
  /** The read's mean pace since the producer started, in bytes per second. */
  bytesPerSecond: number;
  jobsEnqueued: number;
  resumeCommand: string;
}

export function producerView(record: ProducerStatus): ProducerView {
  return {
    producer: record.producer,
    state: record.state,
    reason: record.reason,
    silent: record.state === "reading" && record.silentSeconds > PRODUCER_SILENT_S,
    silentSeconds: record.silentSeconds,
    bytesRead: record.bytesRead,
    bytesTotal: record.bytesTotal,
    readShare: record.bytesTotal > 0 ? Math.min(1, record.bytesRead / record.bytesTotal) : 1,
    bytesPerSecond: record.readSeconds > 0 ? record.bytesRead / record.readSeconds : 0,
    jobsEnqueued: record.jobsEnqueued,
    resumeCommand: record.resumeCommand,
  };
}

/**
 * Seconds until the producer has read the rest of the dataset at its pace so far; null
 * when it is not reading or has not moved. While the run's plan is unknown this is the
 * best estimate of the run's own: a producer held back by full queues reads only as fast
 * as the workers score.
 */
export function readEtaSeconds(view: ProducerView): number | null {
  if (view.state !== "reading" || view.silent || view.bytesPerSecond <= 0) return null;
  return (view.bytesTotal - view.bytesRead) / view.bytesPerSecond;
}

/** `planned`'s line while the dataset is still being read. */
export function readingLine(view: ProducerView | null): string {
  if (view === null) return "(still planning)";
  const share = `${(100 * view.readShare).toFixed(1)}% of ${prettyBytes(view.bytesTotal)} read`;
  return `(still reading the dataset: ${share}, ${view.jobsEnqueued} jobs enqueued so far)`;
}

/**
 * What an operator must do about the producer: one that stopped heartbeating while reading
 * (killed, its pod gone), was stopped, or failed, each with the command that resumes it.
 * A producer that read the whole dataset needs nothing.
 */
export function producerWarning(view: ProducerView | null, planned: boolean): string | null {
  if (view === null || planned) return null;
  const where = `at ${(100 * view.readShare).toFixed(1)}% of the dataset`;
  const resume = `Resume it with: ${view.resumeCommand}`;
  if (view.silent) {
    return (
      `! The producer ${view.producer} stopped heartbeating ${seconds(view.silentSeconds)} ago, ` +
      `${where} (killed, or its machine or pod gone): nothing is reading the rest. ${resume}`
    );
  }
  if (view.state === "stopped" || view.state === "failed") {
    const why = view.reason === null ? "" : `: ${view.reason}`;
    return `! The producer ${view.producer} ${view.state} ${where}${why}. ${resume}`;
  }
  return null;
}

function seconds(s: number): string {
  return duration(Math.round(s));
}
