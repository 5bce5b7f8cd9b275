import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { makeTinyModel } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AssayProcess, startAssay } from "../distributed/support/assay-process.js";
import { freePort } from "../distributed/support/redis-server.js";
import { ROOT } from "./support/paths.js";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
  waitFor,
} from "./support/services.js";

// What an operator scrapes from a real worker against what infra/README.md tells them to
// watch, before the worker has taken a single job.

/** The metric names of the "What to monitor" table (`name{labels}` in its first column). */
function documentedMetrics(): string[] {
  const readme = readFileSync(join(ROOT, "infra", "README.md"), "utf8");
  return [...readme.matchAll(/^\| `(assay_[a-z_]+)(?:\{[^}]*\})?`/gm)].map((m) => m[1] as string);
}

/** Every metric family the exposition declares (`# TYPE <name> <type>`). */
function servedMetrics(exposition: string): string[] {
  return [...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string);
}

/** The samples of `name` as `labels -> value`, labels written `k=v,k=v` in served order. */
function samplesOf(exposition: string, name: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const m of exposition.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, "gm"))) {
    samples.set((m[1] as string).replaceAll('"', ""), Number(m[2]));
  }
  return samples;
}

const work = mkdtempSync(join(tmpdir(), "assay-worker-metrics-"));
const schema = freshSchema();
const prefix = freshPrefix();
const workers: AssayProcess[] = [];

/** `assay worker` with its metrics on a free port; resolves with the port once it logs its start. */
async function startWorker(args: string[]): Promise<{ port: number; started: string }> {
  const port = await freePort();
  const worker = startAssay([
    "worker",
    ...args,
    "--metrics-port",
    String(port),
    "--db",
    DATABASE_URL,
    "--db-schema",
    schema,
    "--redis",
    REDIS_URL,
    "--queue-prefix",
    prefix,
  ]);
  workers.push(worker);
  const startLine = () =>
    worker
      .stderr()
      .split("\n")
      .find((line) => line.includes('"msg":"worker started"'));
  await waitFor(
    async () => startLine() !== undefined,
    120_000,
    `worker start:\n${worker.stderr()}`,
  );
  return { port, started: startLine() as string };
}

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.ok).toBe(true);
  return response.text();
}

beforeAll(async () => {
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  await store.close();
});
afterAll(async () => {
  for (const worker of workers) {
    worker.child.kill("SIGTERM");
    await worker.done;
  }
  await dropSchema(schema);
  await deletePrefix(prefix);
  rmSync(work, { recursive: true, force: true });
});

describe("a CPU worker's metrics", () => {
  let exposition = "";
  beforeAll(async () => {
    const { port } = await startWorker(["--pool", "cpu", "--concurrency", "4"]);
    exposition = await scrape(port);
  });

  it("serves every metric infra/README.md lists, and the README lists every Assay metric it serves", () => {
    const documented = documentedMetrics();
    const served = servedMetrics(exposition);
    expect(documented).toContain("assay_jobs_started_total");
    for (const name of documented) expect(served, name).toContain(name);
    // prom-client's process metrics (assay_worker_*) are standard; the README names one.
    const own = served.filter(
      (name) => name.startsWith("assay_") && !name.startsWith("assay_worker_"),
    );
    expect(own.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it("counts failures at 0 for every scorer of the pool and both kinds before any job failed", () => {
    const failed = samplesOf(exposition, "assay_jobs_failed_total");
    for (const scorer of ["exact", "f1", "json", "numeric", "tool_call"]) {
      for (const kind of ["transient", "unrecoverable"]) {
        expect(failed.get(`pool=cpu,scorer=${scorer},kind=${kind}`), `${scorer} ${kind}`).toBe(0);
      }
    }
    // The CPU pool runs no verifier, so it has no series for one.
    expect([...failed.keys()].some((labels) => labels.includes("scorer=verifier"))).toBe(false);
    expect(samplesOf(exposition, "assay_jobs_processed_total").get("pool=cpu,scorer=exact")).toBe(
      0,
    );
  });
});

describe("a GPU worker", () => {
  it("names the queue it serves when it starts, and counts its verifier's failures from 0", async () => {
    const model = await makeTinyModel(join(work, "tiny"));
    const { port, started } = await startWorker([
      "--pool",
      "gpu",
      "--model",
      model,
      "--concurrency",
      "2",
    ]);
    const line = JSON.parse(started);
    const queue = `gpu-${model.replace(/[^A-Za-z0-9_.-]+/g, "_")}`;
    expect(line).toMatchObject({ pool: "gpu", model, queue, prefix });
    const failed = samplesOf(await scrape(port), "assay_jobs_failed_total");
    expect(failed.get("pool=gpu,scorer=verifier,kind=transient")).toBe(0);
    expect(failed.get("pool=gpu,scorer=verifier,kind=unrecoverable")).toBe(0);
  });
});
