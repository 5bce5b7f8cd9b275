import { measureProcess } from "../bench-util.js";

export interface RawRun {
  /** Wall time spent in `addBulk` calls. */
  ms: number;
  /** CPU time of the client process in those calls. */
  cpuMs: number;
}

export interface RawProcessOptions {
  redisUrl: string;
  prefix: string;
  runId: string;
  dataset: string;
  lines: number;
  jobsPerCall: number;
}

/** Runs the raw `addBulk` baseline (`raw-add-bulk.ts`) as its own process. */
export async function runRawAddBulk(options: RawProcessOptions): Promise<RawRun> {
  const run = await measureProcess(process.execPath, [
    ...["--conditions=@assay/source", "--import", "tsx"],
    new URL("./raw-add-bulk.ts", import.meta.url).pathname,
    ...[options.redisUrl, options.prefix, options.runId, options.dataset],
    ...[String(options.lines), String(options.jobsPerCall)],
  ]);
  if (run.exitCode !== 0) throw new Error(`raw addBulk exited ${run.exitCode}:\n${run.stderr}`);
  return JSON.parse(run.stdout) as RawRun;
}
