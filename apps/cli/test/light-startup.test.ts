import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processOutput } from "@assay/test-support/process-output";
import { REPO_ROOT } from "@assay/test-support/run-assay";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A resolve hook that names every module the command loads, on stderr.
const HOOKS = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write("loaded " + resolved.url + "\\n");
  return resolved;
}`;
const REGISTER = `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}));`;

// What a command's implementation needs (the store, the queues, the schemas, the pipeline,
// the renderers) and its help does not: loading them cost ~0.5 s before any output.
const HEAVY = [
  "node_modules/drizzle-orm/",
  "node_modules/@electric-sql/",
  "node_modules/pg/",
  "node_modules/bullmq/",
  "node_modules/ioredis/",
  "node_modules/zod/",
  "node_modules/cli-table3/",
  "node_modules/csv-stringify/",
  "node_modules/pino/",
  "packages/core/src/index.ts",
  "packages/pipeline/",
  "packages/report/",
  "packages/scorers/",
  "packages/selection/",
  "packages/verifier/",
  "packages/model-tools/",
];

async function modulesLoadedBy(args: string[]): Promise<{ code: number; urls: string[] }> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@assay/source",
      "--import",
      `${REPO_ROOT}node_modules/tsx/dist/esm/index.mjs`,
      "--import",
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      `${REPO_ROOT}apps/cli/src/main.ts`,
      ...args,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  const { code, stderr } = await processOutput(child);
  const urls = stderr
    .split("\n")
    .filter((line) => line.startsWith("loaded "))
    .map((line) => line.slice("loaded ".length));
  return { code, urls };
}

describe("assay's help loads no command's implementation", () => {
  for (const args of [["--help"], ["run", "--help"], ["report", "--help"], ["worker", "--help"]]) {
    it(`assay ${args.join(" ")}`, async () => {
      const { code, urls } = await modulesLoadedBy(args);
      expect(code).toBe(ExitCode.ok);
      // The hook did see the CLI's own modules, so an empty list cannot pass by accident.
      expect(urls.some((url) => url.endsWith("apps/cli/src/program.ts"))).toBe(true);
      expect(urls.filter((url) => HEAVY.some((heavy) => url.includes(heavy)))).toEqual([]);
    });
  }
});

// What only a model-backed scorer, a report or a distributed worker needs: a run of
// deterministic scorers loaded them all (~180 modules) because the registry, the summary
// and the worker came from package indexes.
const MODEL_AND_REPORT_CODE = [
  "node_modules/onnxruntime-node/",
  "node_modules/onnxruntime-common/",
  "node_modules/@huggingface/",
  "packages/verifier/src/model/",
  "packages/verifier/src/session/",
  "packages/verifier/src/index.ts",
  "packages/model-tools/",
  "node_modules/onnx-proto/",
  "packages/report/src/html/",
  "packages/report/src/index.ts",
  // A distributed worker's metrics.
  "node_modules/prom-client/",
  "node_modules/@opentelemetry/",
];

// The distributed transport: an embedded run and a report reach no Redis (~0.25 s of
// start-up CPU came with them through the pipeline's and the queue package's indexes).
const QUEUE_SERVER_CODE = [
  "node_modules/bullmq/",
  "node_modules/ioredis/",
  "packages/queue/src/bullmq/index.ts",
];

// What reading a dataset and scoring it need, and a report of what was stored does not.
const INGEST_AND_SCORING_CODE = [
  "node_modules/hyparquet/",
  "node_modules/csv-parse/",
  "node_modules/fzstd/",
  "node_modules/re2-wasm/",
  "packages/scorers/",
  "packages/pipeline/src/ingest/",
];

describe("assay run with deterministic scorers loads no model or report code", () => {
  const work = mkdtempSync(join(tmpdir(), "assay-light-run-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("and still knows the verifier scorers; its report loads no dataset reader, scorer or queue", async () => {
    const runId = "light";
    const dataset = join(work, "data.jsonl");
    writeFileSync(
      dataset,
      `${JSON.stringify({ id: "s1", question: "Q?", answer: "a", target: "a" })}\n`,
    );
    const { code, urls } = await modulesLoadedBy([
      "run",
      dataset,
      "--db",
      join(work, "store"),
      "--run-id",
      runId,
      "--quiet",
    ]);
    expect(code).toBe(ExitCode.ok);
    // The registry was built with the verifier's definitions, and the run scored.
    expect(urls.some((url) => url.endsWith("packages/verifier/src/scorers.ts"))).toBe(true);
    expect(urls.some((url) => url.includes("packages/scorers/src/"))).toBe(true);
    expect(
      urls.filter((url) =>
        [...MODEL_AND_REPORT_CODE, ...QUEUE_SERVER_CODE].some((heavy) => url.includes(heavy)),
      ),
    ).toEqual([]);

    const report = await modulesLoadedBy(["report", runId, "--db", join(work, "store")]);
    expect(report.code).toBe(ExitCode.ok);
    expect(report.urls.some((url) => url.includes("packages/report/src/"))).toBe(true);
    expect(
      report.urls.filter((url) =>
        [...QUEUE_SERVER_CODE, ...INGEST_AND_SCORING_CODE].some((heavy) => url.includes(heavy)),
      ),
    ).toEqual([]);
  });
});
