import prettyBytes from "pretty-bytes";
import prettyMs from "pretty-ms";
import { etaSeconds, RateWindow } from "./rate-window.js";

/** What a command knows of its run at one moment; every field it does not know is left out. */
export interface ProgressSnapshot {
  /** Bytes of the dataset read so far, of its size: the measure while the plan grows. */
  read?: { bytes: number; of: number };
  /** Result rows of the run stored so far, earlier attempts included. */
  done?: number;
  /** The run's whole plan, once every line is read and planned. */
  planned?: number;
  /** A count that grows as results are stored while this command watches; the rate is its. */
  scored?: number;
  /** Jobs enqueued so far, for a producer that sees no results. */
  enqueued?: number;
  inputErrors?: number;
}

/** One moment of progress, ready to draw as a bar or print as a line. */
export interface ProgressFrame {
  /** What is being measured: "reading dataset", "scored" or "waiting for results". */
  label: string;
  /** The bar's fill, of `total`. */
  value: number;
  total: number;
  /** Everything after the label: counts, percentage, rate, ETA. */
  detail: string;
}

/**
 * Turns snapshots into frames. While the dataset is read, progress is the share of its
 * bytes read, with an ETA from the read rate; once the plan is known, results stored of
 * results planned, with an ETA from the results' rate. Rates are over a moving window
 * from the first result, so neither results stored before watching nor a slow start
 * distort them.
 */
export class ProgressMeter {
  readonly #results = new RateWindow();
  readonly #bytes = new RateWindow();

  constructor(private readonly now: () => number = Date.now) {}

  frame(snapshot: ProgressSnapshot): ProgressFrame {
    const at = this.now();
    const scored = snapshot.scored ?? snapshot.done;
    if (scored !== undefined) this.#results.add({ at, count: scored });
    if (snapshot.read !== undefined) this.#bytes.add({ at, count: snapshot.read.bytes });
    if (snapshot.planned !== undefined && snapshot.done !== undefined) {
      return this.#scoring(snapshot.done, snapshot.planned, snapshot);
    }
    if (snapshot.read !== undefined) return this.#reading(snapshot.read, snapshot);
    return { label: "waiting for results", value: 0, total: 1, detail: "" };
  }

  /** Results per second from the first result to the latest snapshot. */
  meanRate(): number | undefined {
    return this.#results.meanRate();
  }

  /** Results stored while this command watched (what was there at its first look left out). */
  resultsGained(): number {
    return this.#results.gained();
  }

  #scoring(done: number, planned: number, snapshot: ProgressSnapshot): ProgressFrame {
    const rate = this.#results.rate();
    const parts = [`${done}/${planned} results (${percent(done, planned)})`];
    if (snapshot.inputErrors !== undefined) parts.push(`${snapshot.inputErrors} input errors`);
    parts.push(resultRate(rate), eta(etaSeconds(planned - done, rate)));
    return {
      label: "scored",
      value: Math.min(done, planned),
      total: planned,
      detail: parts.join(", "),
    };
  }

  #reading(read: { bytes: number; of: number }, snapshot: ProgressSnapshot): ProgressFrame {
    const head = `${percent(read.bytes, read.of)} (${prettyBytes(read.bytes)} of ${prettyBytes(read.of)})`;
    const parts: string[] = [];
    if (snapshot.done !== undefined) parts.push(`${snapshot.done} results stored`);
    if (snapshot.enqueued !== undefined) parts.push(`${snapshot.enqueued} jobs enqueued`);
    if (snapshot.inputErrors !== undefined) parts.push(`${snapshot.inputErrors} input errors`);
    const byteRate = this.#bytes.rate();
    parts.push(
      snapshot.scored !== undefined || snapshot.done !== undefined
        ? resultRate(this.#results.rate())
        : `${byteRate === undefined ? "–" : prettyBytes(byteRate)}/s`,
      eta(etaSeconds(read.of - read.bytes, byteRate)),
    );
    return {
      label: "reading dataset",
      value: Math.min(read.bytes, read.of),
      total: read.of,
      detail: `${head}: ${parts.join(", ")}`,
    };
  }
}

export function percent(part: number, whole: number): string {
  if (!(whole > 0)) return "100%";
  return `${Math.floor((100 * Math.min(part, whole)) / whole)}%`;
}

export function resultRate(perSecond: number | undefined): string {
  return `${perSecond === undefined ? "–" : Math.round(perSecond)} results/s`;
}

/** Whole seconds, rounded up, so that what is nearly done never reads "0s" too early. */
export function duration(seconds: number): string {
  const whole = Math.ceil(Math.max(0, seconds));
  return whole === 0 ? "0s" : prettyMs(whole * 1000);
}

function eta(seconds: number | undefined): string {
  return `ETA ${seconds === undefined ? "–" : duration(seconds)}`;
}
