import type { RunSummary } from "@assay/core";
import cliProgress from "cli-progress";
import { safeMessage } from "../output.js";
import { finalLine } from "./final-line.js";
import { type ProgressFrame, ProgressMeter, type ProgressSnapshot } from "./progress-meter.js";

export interface ProgressView {
  update(snapshot: ProgressSnapshot): void;
  /** Prints a message on its own line below the progress, which goes on after it. */
  note(line: string): void;
  /** Ends the progress with a line of the run's final counts. */
  finish(summary: RunSummary): void;
  /** Ends the progress without a final line (the command failed; its error says why). */
  stop(): void;
}

export interface ProgressViewOptions {
  quiet: boolean;
  /** First snapshot, shown at once so the screen is never blank while work starts. */
  initial?: ProgressSnapshot;
  /** Seconds between lines when stderr is no terminal. Default 5. */
  lineIntervalSeconds?: number;
}

/**
 * A progress bar on a terminal; elsewhere (CI, logs) one plain line every few seconds.
 * Either way the last line states the final counts. Everything goes to stderr so stdout
 * stays clean for `--json`.
 */
export function createProgressView(options: ProgressViewOptions): ProgressView {
  if (options.quiet) return { update() {}, note() {}, finish() {}, stop() {} };
  const view = process.stderr.isTTY
    ? new BarView()
    : new LineView((options.lineIntervalSeconds ?? 5) * 1000);
  if (options.initial !== undefined) view.update(options.initial);
  return view;
}

abstract class MeteredView implements ProgressView {
  protected readonly meter = new ProgressMeter();
  readonly #started = Date.now();

  abstract update(snapshot: ProgressSnapshot): void;
  abstract note(line: string): void;
  abstract stop(): void;

  finish(summary: RunSummary): void {
    this.stop();
    const watched = (Date.now() - this.#started) / 1000;
    // A run short enough to land in one or two looks has no windowed rate: its mean is
    // then what it stored over the time it was watched.
    const gained = this.meter.resultsGained();
    const mean =
      this.meter.meanRate() ?? (gained > 0 && watched > 0 ? gained / watched : undefined);
    writeLine(finalLine(summary, watched, mean));
  }
}

class BarView extends MeteredView {
  readonly #bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "{label} |{bar}| {detail}",
      hideCursor: true,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  #active = false;
  // A second Ctrl-C exits at once: the terminal gets its cursor and line wrapping back.
  readonly #restoreTerminal = (): void => this.stop();

  update(snapshot: ProgressSnapshot): void {
    const frame = this.meter.frame(snapshot);
    const payload = { label: frame.label, detail: safeMessage(frame.detail) };
    // Nothing to do (a plan of no results) is all done: a full bar, not an empty one.
    const [value, total] = frame.total > 0 ? [frame.value, frame.total] : [1, 1];
    if (!this.#active) {
      this.#bar.start(total, value, payload);
      this.#active = true;
      process.once("exit", this.#restoreTerminal);
      return;
    }
    this.#bar.setTotal(total);
    this.#bar.update(value, payload);
  }

  note(line: string): void {
    // The bar is finished on its own line first, so the message never lands on it; the
    // next update draws a new bar below the message.
    this.stop();
    writeLine(line);
  }

  stop(): void {
    if (!this.#active) return;
    process.off("exit", this.#restoreTerminal);
    this.#bar.stop();
    this.#active = false;
  }
}

class LineView extends MeteredView {
  #lastPrinted = Number.NEGATIVE_INFINITY;
  #latest: ProgressFrame | undefined;

  constructor(private readonly intervalMs: number) {
    super();
  }

  update(snapshot: ProgressSnapshot): void {
    this.#latest = this.meter.frame(snapshot);
    if (Date.now() - this.#lastPrinted < this.intervalMs) return;
    this.#lastPrinted = Date.now();
    writeLine(lineOf(this.#latest));
  }

  note(line: string): void {
    writeLine(line);
  }

  stop(): void {}
}

function lineOf(frame: ProgressFrame): string {
  return frame.detail === "" ? frame.label : `${frame.label} ${frame.detail}`;
}

function writeLine(line: string): void {
  process.stderr.write(`${safeMessage(line)}\n`);
}
