import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore, type Store } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { commandAfter, pasteCommand } from "@assay/test-support/paste-command";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "./support/assay-process.js";
import { writeTextDataset } from "./support/dataset.js";
import { startCpuWorker, type WorkerProcess } from "./support/worker-process.js";

// A night an operator can watch: while the producer streams, status gives the share read
// and an ETA; a producer with no worker on its queue says so; a producer stopped by a
// signal or killed is named by status with the command that resumes it; status and retry
// find the run's queues without --queue-prefix, and name the --db-schema that holds it.

// 12,000 samples plan 24,000 jobs: past the queue's high-water mark (20,000), so with no
// worker the producer waits in the middle of the file, as it does for most of a real night.
const SAMPLES = 12_000;
const PLANNED = 2 * SAMPLES;

describe("a night you can watch", () => {
  const schema = freshSchema();
  const dir = mkdtempSync(join(tmpdir(), "assay-watch-"));
  const dataset = join(dir, "night.jsonl");
  const prefixes: string[] = [];
  const workers: WorkerProcess[] = [];
  let store: Store;

  beforeAll(async () => {
    writeTextDataset(dataset, SAMPLES);
    store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill("SIGKILL");
    await store?.close();
    await dropSchema(schema);
    for (const prefix of prefixes) await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  const freshQueues = (): string => {
    const prefix = freshPrefix();
    prefixes.push(prefix);
    return prefix;
  };
  const services = ["--db", DATABASE_URL, "--db-schema", schema, "--redis", REDIS_URL];
  const produceArgs = (runId: string, prefix: string) => [
    ...["produce", dataset, "--run-id", runId],
    ...services,
    ...["--queue-prefix", prefix],
  ];
  /** Status as an operator types it the morning after: no --queue-prefix. */
  const status = (runId: string) => assayInProcess(["status", runId, ...services]);

  it("shows the share read and an ETA, says no worker serves the queue, and stops on SIGTERM saying how to resume", async () => {
    const prefix = freshQueues();
    const producer = startAssay(produceArgs("watched", prefix));
    const started = Date.now();
    await waitFor(
      async () => producer.stderr().includes("! No worker serves queue cpu"),
      60_000,
      "the producer to say no worker serves its queue",
    );
    // Within a minute of its start, and it names the worker that would serve the queue.
    expect(Date.now() - started).toBeLessThan(60_000);
    const unserved = commandAfter(producer.stderr(), "! No worker serves queue cpu");
    expect(unserved).toBe(
      `assay worker --pool cpu --queue-prefix ${prefix} --db-schema ${schema} --db ${DATABASE_URL}`,
    );

    // Held at the high-water mark: the plan is not known, but the share read is.
    const watched = await status("watched");
    expect(watched.code, watched.stderr).toBe(ExitCode.ok);
    const share =
      /^planned {4}\(still reading the dataset: (\d+\.\d)% of [\d.]+ MB read, (\d+) jobs enqueued so far\)$/m.exec(
        watched.stdout,
      );
    expect(share, watched.stdout).not.toBeNull();
    expect(Number(share?.[1])).toBeGreaterThan(0);
    expect(Number(share?.[1])).toBeLessThan(100);
    expect(watched.stdout).toMatch(
      /^eta {8}\S+ \(to read the rest of the dataset, at the pace so far\)$/m,
    );
    // The queues of the prefix the run was produced under, found without --queue-prefix.
    expect(watched.stdout).toMatch(/^ {2}cpu +2\d{4} +0 +0 +0 +0$/m);
    expect(watched.stdout).not.toMatch(/no queues yet|The producer/);

    producer.child.kill("SIGTERM");
    const stopped = await producer.done;
    expect(stopped.code, stopped.stderr).toBe(ExitCode.ok);
    expect(stopped.stderr).toMatch(
      /\nstopped: 0 results stored \(the dataset was not read to its end\)/,
    );
    const resume = commandAfter(stopped.stderr, "Interrupted: ");
    expect(stopped.stderr).toMatch(
      /\nInterrupted: \d+ samples are stored and \d+ jobs enqueued, from the first \d+\.\d% of the dataset; the workers score what is enqueued\. Resume with: /,
    );
    expect(resume).toBe(
      `assay produce ${dataset} --run-id watched --queue-prefix ${prefix} --db-schema ${schema} --db ${DATABASE_URL}`,
    );

    const after = await status("watched");
    expect(after.stdout).toContain(
      `stopped at ${/(\d+\.\d)% of the dataset/.exec(after.stdout)?.[1]}% of the dataset: stopped by a signal (Ctrl-C or SIGTERM). Resume it with: ${resume}`,
    );

    // Without --db-schema, status names the schema that holds the run.
    const elsewhere = await assayInProcess([
      "status",
      "watched",
      "--db",
      DATABASE_URL,
      "--redis",
      REDIS_URL,
    ]);
    expect(elsewhere.code).toBe(ExitCode.refused);
    expect(elsewhere.stderr).toContain(`schema ${schema} holds it: add --db-schema ${schema}`);

    // The command, pasted in another folder once a worker serves the queue, reads the rest.
    workers.push(
      await startCpuWorker({
        redisUrl: REDIS_URL,
        databaseUrl: DATABASE_URL,
        schema,
        prefix,
        extraArgs: ["--concurrency", "50"],
      }),
    );
    const resumed = await pasteCommand(`cd / && ${resume}`);
    expect(resumed.code, resumed.stderr).toBe(ExitCode.ok);
    expect((await store.getRun("watched"))?.plannedResults).toBe(PLANNED);
    const planned = await status("watched");
    expect(planned.stdout).toMatch(new RegExp(`^planned {4}${PLANNED}$`, "m"));
    expect(planned.stdout).not.toContain("The producer");
  });

  it("names a producer that stopped heartbeating, with the command that resumes it", async () => {
    const prefix = freshQueues();
    const producer = startAssay(produceArgs("killed", prefix));
    await waitFor(
      async () => (await status("killed")).stdout.includes("jobs enqueued so far"),
      30_000,
      "the producer's first record of its read",
    );
    const alive = await status("killed");
    expect(alive.stdout).not.toContain("The producer");
    producer.child.kill("SIGKILL");
    await producer.done;
    // Six heartbeats missed: about 30 s.
    let silent = "";
    await waitFor(
      async () => {
        silent = (await status("killed")).stdout;
        return silent.includes("stopped heartbeating");
      },
      90_000,
      "status to name the silent producer",
    );
    const line = silent.split("\n").find((l) => l.includes("stopped heartbeating")) ?? "";
    expect(line).toMatch(
      new RegExp(
        `^! The producer [^ ]+:${producer.child.pid} stopped heartbeating \\S+ ago, at \\d+\\.\\d% of the dataset \\(killed, or its machine or pod gone\\): nothing is reading the rest\\. Resume it with: `,
      ),
    );
    expect(commandAfter(silent, "! The producer")).toBe(
      `assay produce ${dataset} --run-id killed --queue-prefix ${prefix} --db-schema ${schema} --db ${DATABASE_URL}`,
    );
  });
});
