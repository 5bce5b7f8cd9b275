import { type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import type { WorkerFlags } from "../actions/worker.js";
import { declaredFlags } from "../declared-flags.js";
import { addDistributedOptions } from "../distributed/distributed-options.js";
import { parseDeviceList } from "../distributed/per-device.js";
import { DEFAULT_WORKER_CONCURRENCY } from "../distributed/worker-concurrency.js";
import { deviceName, positiveInt, wholeNumber } from "../options.js";
import {
  addVerifierFlags,
  type ParsedVerifierFlags,
  verifierFlagsGiven,
} from "../verifier-flags.js";

export function registerWorker(program: CommandUnknownOpts): void {
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
      `jobs in flight at once (default: cpu ${DEFAULT_WORKER_CONCURRENCY.cpu}, gpu ${DEFAULT_WORKER_CONCURRENCY.gpu})`,
      positiveInt("--concurrency"),
    )
    .option(
      "--job-timeout <seconds>",
      "a job's time limit: past it the job fails with the reason and is retried, and its last try stores the result unscored (timeout); the spec's job_timeout_s wins",
      positiveInt("--job-timeout"),
      600,
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
  addDistributedOptions(addVerifierFlags(command)).action(async (flags, self) => {
    const { workerAction } = await import("../actions/worker.js");
    await workerAction({
      ...declaredFlags<Omit<WorkerFlags, "verifier"> & ParsedVerifierFlags>()(flags),
      verifier: verifierFlagsGiven(self),
    });
  });
}
