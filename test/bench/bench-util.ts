import { spawn } from "node:child_process";
import { processOutput } from "@assay/test-support/process-output";

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

export interface MeasuredProcess {
  exitCode: number;
  wallMs: number;
  /** Peak resident set size of the process, from GNU time. */
  peakRssMb: number;
  /** User plus system CPU time of the process, every thread, from GNU time. */
  cpuMs: number;
  /**
   * Garbage-collection pauses, every thread, when the command is node run with
   * `--import` of gc-pauses.mjs; else 0.
   */
  gcMs: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command under /usr/bin/time to get its wall time and peak RSS. `onStderr` sees
 * the stderr so far, e.g. to time a phase from a line the command prints.
 */
export async function measureProcess(
  command: string,
  args: string[],
  onStderr?: (text: string) => void,
): Promise<MeasuredProcess> {
  const start = performance.now();
  const child = spawn("/usr/bin/time", ["-f", "__rss_kb=%M __cpu_s=%U+%S", command, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { code, stdout, stderr } = await processOutput(child, onStderr);
  const rss = /__rss_kb=(\d+)/.exec(stderr);
  const cpu = /__cpu_s=([\d.]+)\+([\d.]+)/.exec(stderr);
  const gcMs = [...stderr.matchAll(/__gc_ms=([\d.]+)/g)].reduce(
    (total, match) => total + Number(match[1]),
    0,
  );
  return {
    exitCode: code,
    wallMs: performance.now() - start,
    peakRssMb: rss === null ? Number.NaN : Number(rss[1]) / 1024,
    cpuMs: cpu === null ? Number.NaN : (Number(cpu[1]) + Number(cpu[2])) * 1000,
    gcMs,
    stdout,
    stderr: stderr.replace(/__rss_kb=.*\n?/, "").replace(/__gc_ms=.*\n?/g, ""),
  };
}

export function fmt(value: number, digits = 0): string {
  return value.toLocaleString("en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}
