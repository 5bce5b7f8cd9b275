import type { Pool } from "@assay/core";
import { type Command, Option } from "commander";
import {
  addDistributedOptions,
  type DistributedFlags,
} from "../distributed/distributed-options.js";
import { parseDeviceList } from "../distributed/per-device.js";
import { type DeviceName, deviceName, positiveInt, wholeNumber } from "../options.js";
import { addVerifierFlags, type VerifierFlags, verifierFlagsGiven } from "../verifier-flags.js";

export interface WorkerFlags extends DistributedFlags {
  pool: Pool;
  model?: string;
  device?: DeviceName;
  devices?: number[];
  threads?: number;
  concurrency?: number;
  metricsPort?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** The verifier flags typed on the command line (see `verifierFlagsGiven`). */
  verifier: VerifierFlags;
}

export function registerWorker(program: Command): void {
  const command = program
    .command("worker")
    .description("take score jobs from Redis and store results in Postgres until SIGTERM/SIGINT")
    .addOption(
      new Option("--pool <pool>", "which pool's queue to serve")
        .choices(["cpu", "gpu"])
        .makeOptionMandatory(),
    )
    .option(
      "--model <dir|owner/name[@revision]>",
      "GPU pool: the verifier model (as in the spec's args.model) whose queue to serve: a folder, or a Hugging Face id with an optional branch, tag or commit sha",
    )
    .option("--device <device>", "GPU pool: cpu or cuda:<id> (default: cpu)", deviceName)
    .option(
      "--devices <ids>",
      "GPU pool: start one worker process per GPU, e.g. 0,1,2,3",
      parseDeviceList,
    )
    .option("--threads <n>", "GPU pool: onnxruntime threads per process", positiveInt("--threads"))
    .option(
      "--concurrency <n>",
      "jobs in flight at once (default: cpu 200, gpu 32)",
      positiveInt("--concurrency"),
    )
    .option(
      "--metrics-port <port>",
      "serve Prometheus metrics on this port",
      wholeNumber("--metrics-port", { min: 0, max: 65_535 }),
    )
    .option(
      "--lock-duration-ms <ms>",
      "how long a job stays claimed by a silent worker",
      positiveInt("--lock-duration-ms"),
    )
    .option(
      "--stalled-interval-ms <ms>",
      "how often to look for jobs of dead workers",
      positiveInt("--stalled-interval-ms"),
    );
  addVerifierFlags(command);
  addDistributedOptions(command).action(
    async (flags: Omit<WorkerFlags, "verifier">, self: Command) => {
      const { workerAction } = await import("../actions/worker.js");
      await workerAction({ ...flags, verifier: verifierFlagsGiven(self) });
    },
  );
}
