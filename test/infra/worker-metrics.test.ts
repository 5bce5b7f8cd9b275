import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { makeTinyModel } from "@assay/model-tools";
import { identityOfQueueName, queueNameFor } from "@assay/queue";
import { openStore } from "@assay/store";
import { freePort } from "@assay/test-support/redis-server";
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
import { type AssayProcess, startAssay } from "../distributed/support/assay-process.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import {
  loadDashboard,
  loadDatasources,
  panelQueries,
  promqlMetricNames,
  substitutePromqlVariables,
} from "./support/grafana.js";
import { ROOT } from "./support/paths.js";

// What an operator scrapes from real workers against what infra/README.md tells them to
// watch and what the Grafana dashboard queries.

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

/** Metric families a histogram serves under its name's suffixes, as PromQL selects them. */
function familyOf(name: string, served: string[]): string {
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return served.includes(base) ? base : name;
}

let cpu = "";
let gpu = { port: 0, model: "", started: "" };

beforeAll(async () => {
  const model = await makeTinyModel(join(work, "tiny"));
  const [cpuWorker, gpuWorker] = await Promise.all([
    startWorker(["--pool", "cpu", "--concurrency", "4"]),
    startWorker(["--pool", "gpu", "--model", model, "--concurrency", "2"]),
  ]);
  cpu = await scrape(cpuWorker.port);
  gpu = { port: gpuWorker.port, model, started: gpuWorker.started };
});

describe("a CPU worker's metrics", () => {
  it("serves every metric infra/README.md lists (with the GPU worker's), and the README lists every Assay metric either serves", async () => {
    const documented = documentedMetrics();
    const gpuServed = servedMetrics(await scrape(gpu.port));
    const served = [...servedMetrics(cpu), ...gpuServed];
    expect(documented).toContain("assay_jobs_started_total");
    expect(documented).toContain("assay_verifier_tokens_total");
    for (const name of documented) expect(served, name).toContain(name);
    // prom-client's process metrics (assay_worker_*) are standard; the README names one.
    const own = served.filter(
      (name) => name.startsWith("assay_") && !name.startsWith("assay_worker_"),
    );
    expect(own.filter((name) => !documented.includes(name))).toEqual([]);
    // The verifier's metrics are the GPU pool's only.
    expect(servedMetrics(cpu).filter((name) => name.startsWith("assay_verifier_"))).toEqual([]);
  });

  it("counts failures at 0 for every scorer of the pool and both kinds before any job failed", () => {
    const failed = samplesOf(cpu, "assay_jobs_failed_total");
    for (const scorer of ["exact", "f1", "json", "numeric", "tool_call"]) {
      for (const kind of ["transient", "unrecoverable"]) {
        expect(failed.get(`pool=cpu,scorer=${scorer},kind=${kind}`), `${scorer} ${kind}`).toBe(0);
      }
    }
    // The CPU pool runs no verifier, so it has no series for one.
    expect([...failed.keys()].some((labels) => labels.includes("scorer=verifier"))).toBe(false);
    expect(samplesOf(cpu, "assay_jobs_processed_total").get("pool=cpu,scorer=exact")).toBe(0);
  });
});

describe("the Grafana dashboard", () => {
  it("queries only metrics the workers serve: the verifier's from a GPU worker, the rest from a CPU worker", async () => {
    const prometheus = new Set(
      loadDatasources()
        .filter((source) => source.type === "prometheus")
        .map((source) => source.uid),
    );
    const queries = panelQueries(loadDashboard()).filter((q) => prometheus.has(q.datasource));
    const cpuServed = servedMetrics(cpu);
    const gpuServed = servedMetrics(await scrape(gpu.port));
    const used = new Set<string>();
    for (const query of queries) {
      for (const name of promqlMetricNames(substitutePromqlVariables(query.text))) {
        const served = name.startsWith("assay_verifier_") ? gpuServed : cpuServed;
        expect(served, `${query.panel}: ${name}`).toContain(familyOf(name, served));
        used.add(name);
      }
    }
    expect([...used]).toEqual(
      expect.arrayContaining([
        "assay_queue_depth",
        "assay_jobs_processed_total",
        "assay_jobs_failed_total",
        "assay_writer_rows_total",
        "assay_verifier_tokens_total",
      ]),
    );
  });
});

describe("a GPU worker", () => {
  it("names the queue it serves when it starts, and counts its verifier's failures from 0", async () => {
    const line = JSON.parse(gpu.started);
    const queue = queueNameFor("gpu", gpu.model);
    expect(identityOfQueueName(queue)).toBe(gpu.model);
    expect(line).toMatchObject({ pool: "gpu", model: gpu.model, queue, prefix });
    const failed = samplesOf(await scrape(gpu.port), "assay_jobs_failed_total");
    expect(failed.get("pool=gpu,scorer=verifier,kind=transient")).toBe(0);
    expect(failed.get("pool=gpu,scorer=verifier,kind=unrecoverable")).toBe(0);
  });

  it("counts the verifier's prompt, computed and padded tokens and its forward passes as it scores a run", async () => {
    const before = await scrape(gpu.port);
    expect(samplesOf(before, "assay_verifier_tokens_total").get("kind=prompt")).toBe(0);
    const spec = join(work, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        name: "tokens",
        default: { scorers: [{ name: "verifier", args: { model: gpu.model } }] },
      }),
    );
    const dataset = join(work, "tokens.jsonl");
    writeTextDataset(dataset, 12);
    const produced = await startAssay([
      "produce",
      dataset,
      "--spec",
      spec,
      "--run-id",
      "tokens",
      "--wait",
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
      "--redis",
      REDIS_URL,
      "--queue-prefix",
      prefix,
    ]).done;
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);

    const after = await scrape(gpu.port);
    const tokens = samplesOf(after, "assay_verifier_tokens_total");
    const [prompt = Number.NaN, computed = Number.NaN, padded = Number.NaN] = [
      "prompt",
      "computed",
      "padded",
    ].map((kind) => tokens.get(`kind=${kind}`) as number);
    // Each of the 12 prompts is several tokens long; a pass computes at most what was sent
    // (less when prompts share a prefix) and pads it to its longest row.
    expect(prompt).toBeGreaterThanOrEqual(12 * 5);
    expect(computed).toBeGreaterThan(0);
    expect(computed).toBeLessThanOrEqual(prompt);
    expect(padded).toBeGreaterThanOrEqual(computed);
    const passes = /^assay_verifier_forward_passes_total (\S+)$/m.exec(after)?.[1];
    expect(Number(passes)).toBeGreaterThanOrEqual(1);
    expect(Number(passes)).toBeLessThanOrEqual(12);
  });
});
