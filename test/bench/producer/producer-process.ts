import { measureProcess } from "../bench-util.js";

export interface ProducerRun {
  /** From the producer's "Producing run" line to its exit: reading, checking, storing, enqueuing. */
  produceMs: number;
  peakRssMb: number;
  /** CPU time of the whole process, start-up included. */
  cpuMs: number;
}

export interface ProducerProcessOptions {
  dataset: string;
  spec: string;
  runId: string;
  databaseUrl: string;
  schema: string;
  redisUrl: string;
  prefix: string;
  cpuProfDir?: string;
}

/**
 * Runs the built producer entry point (`npm run bench:queue` builds first) on a new run.
 * Process start-up (loading modules, connecting) is left out of the time: it is the same
 * for any dataset size.
 */
export async function runProducer(options: ProducerProcessOptions): Promise<ProducerRun> {
  let started: number | undefined;
  const profile =
    options.cpuProfDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", options.cpuProfDir];
  const run = await measureProcess(
    process.execPath,
    [
      ...profile,
      "apps/producer/dist/main.js",
      options.dataset,
      ...["--spec", options.spec, "--run-id", options.runId],
      ...["--db", options.databaseUrl, "--db-schema", options.schema],
      ...["--redis", options.redisUrl, "--queue-prefix", options.prefix],
    ],
    (stderr) => {
      if (started === undefined && stderr.includes("Producing run")) started = performance.now();
    },
  );
  const ended = performance.now();
  if (run.exitCode !== 0) throw new Error(`producer exited ${run.exitCode}:\n${run.stderr}`);
  if (started === undefined) throw new Error(`the producer never said it started:\n${run.stderr}`);
  return { produceMs: ended - started, peakRssMb: run.peakRssMb, cpuMs: run.cpuMs };
}
