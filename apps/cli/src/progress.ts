import type { RunProgress } from "@assay/pipeline";
import cliProgress from "cli-progress";

export interface ProgressView {
  update(progress: RunProgress): void;
  stop(): void;
}

/**
 * A progress bar on a terminal; elsewhere (CI, logs) one plain line every few seconds.
 * Everything goes to stderr so stdout stays clean for `--json`.
 */
export function createProgressView(options: { quiet: boolean }): ProgressView {
  if (options.quiet) return { update() {}, stop() {} };
  return process.stderr.isTTY ? barView() : lineView();
}

function barView(): ProgressView {
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format:
        "scoring |{bar}| {value}/{total} results | {lines} lines | {errors} input errors | {rate}/s",
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const start = Date.now();
  let started = false;
  return {
    update(progress) {
      const payload = {
        lines: progress.lines,
        errors: progress.inputErrors,
        rate: rate(progress.stored, start),
      };
      const total = Math.max(progress.enqueued, 1);
      if (!started) {
        bar.start(total, progress.stored, payload);
        started = true;
      }
      bar.setTotal(total);
      bar.update(progress.stored, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function lineView(): ProgressView {
  const start = Date.now();
  let lastPrinted = 0;
  return {
    update(progress) {
      if (Date.now() - lastPrinted < 5000) return;
      lastPrinted = Date.now();
      process.stderr.write(
        `scored ${progress.stored}/${progress.enqueued} results, ${progress.lines} lines read, ` +
          `${progress.inputErrors} input errors, ${rate(progress.stored, start)}/s\n`,
      );
    },
    stop() {},
  };
}

function rate(count: number, start: number): number {
  const seconds = (Date.now() - start) / 1000;
  return seconds > 0 ? Math.round(count / seconds) : 0;
}
