import type { WorkerProcess } from "./worker-process.js";

/** A worker's job and writer counters, summed over every label, as its /metrics shows them. */
export interface WorkerCounts {
  /** Jobs taken from the queue. */
  started: number;
  /** Jobs whose row was stored. */
  processed: number;
  failed: number;
  /** Jobs that had been started before: recovered from a dead worker, or retried. */
  redelivered: number;
  /** Rows the writer found already stored: jobs that ran again after their row was stored. */
  duplicates: number;
}

/** Jobs the worker has taken and not yet stored or failed: what a kill would take down. */
export function inFlight(counts: WorkerCounts): number {
  return counts.started - counts.processed - counts.failed;
}

/**
 * Scrapes the worker's /metrics (it must run with `--metrics-port`). Throws when the port
 * is not logged or the scrape fails: a missing count must fail the test, never read as 0.
 */
export async function scrapeWorker(worker: WorkerProcess): Promise<WorkerCounts> {
  const port = /"port":(\d+)/.exec(worker.logs())?.[1];
  if (port === undefined) {
    throw new Error(`worker ${worker.child.pid} logged no metrics port:\n${worker.logs()}`);
  }
  const url = `http://127.0.0.1:${port}/metrics`;
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`scraping worker ${worker.child.pid} at ${url} failed`, { cause: error });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`scraping worker ${worker.child.pid} at ${url}: HTTP ${response.status}`);
  }
  const samples = parseSamples(text);
  const total = (name: string, labels = ""): number =>
    samples
      .filter((s) => s.name === name && s.labels.includes(labels))
      .reduce((sum, s) => sum + s.value, 0);
  return {
    started: total("assay_jobs_started_total"),
    processed: total("assay_jobs_processed_total"),
    failed: total("assay_jobs_failed_total"),
    redelivered: total("assay_jobs_redelivered_total"),
    duplicates: total("assay_writer_rows_total", 'outcome="duplicate"'),
  };
}

/** One series of the worker's /metrics, e.g. `assay_service_up` with `service="postgres"`. */
export async function scrapeSeries(
  worker: WorkerProcess,
  name: string,
  labels: string,
): Promise<number> {
  const port = /"port":(\d+)/.exec(worker.logs())?.[1];
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sample = parseSamples(text).find((s) => s.name === name && s.labels === `{${labels}}`);
  if (sample === undefined) throw new Error(`worker serves no ${name}{${labels}}:\n${text}`);
  return sample.value;
}

/** The sum of one counter over several workers. */
export async function sumOver(
  workers: readonly WorkerProcess[],
  counter: keyof WorkerCounts,
): Promise<number> {
  const counts = await Promise.all(workers.map(scrapeWorker));
  return counts.reduce((sum, c) => sum + c[counter], 0);
}

interface MetricSample {
  name: string;
  labels: string;
  value: number;
}

/** The sample lines of Prometheus' text format (`name{labels} value`), comments skipped. */
function parseSamples(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (match === null) continue;
    samples.push({ name: match[1] as string, labels: match[2] ?? "", value: Number(match[3]) });
  }
  return samples;
}
