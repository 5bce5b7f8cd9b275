import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { checkDataset, DEFAULT_SPEC } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";
import { openStore, type Store } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
} from "@assay/test-support/services";
import { queryRows } from "@assay/test-support/stores";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCpuWorker, type WorkerProcess } from "../distributed/support/worker-process.js";
import { BAD_LINES, buildCorpus, type Corpus } from "./corpus.js";

const work = mkdtempSync(join(tmpdir(), "assay-hostile-"));
const corpus = buildCorpus();
const file = join(work, "hostile.jsonl");
writeFileSync(file, corpus.bytes);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every good line stored and scored, every bad line an input error naming it. */
async function expectCorpusOutcome(store: Store, runId: string, data: Corpus): Promise<void> {
  const samples = (await queryRows(
    store,
    `SELECT sample_id, line FROM samples WHERE run_id = '${runId}'`,
  )) as { sample_id: string; line: number }[];
  expect(new Map(samples.map((s) => [s.sample_id, s.line]))).toEqual(data.stored);

  const errors = (await queryRows(
    store,
    `SELECT line, field, message FROM input_errors WHERE run_id = '${runId}' ORDER BY line`,
  )) as { line: number; field: string; message: string }[];
  expect(errors.map((e) => e.line)).toEqual([...data.bad.keys()]);
  for (const error of errors) {
    const expected = data.bad.get(error.line);
    expect({ kind: expected?.kind, field: error.field }).toEqual({
      kind: expected?.kind,
      field: expected?.field,
    });
    expect(error.message, expected?.kind).toMatch(expected?.message as RegExp);
  }

  const summary = await store.runSummary(runId);
  expect(summary.planned).toBeGreaterThan(0);
  expect(summary.results).toBe(summary.planned);
  expect(summary.finishedAt).not.toBeNull();
}

describe("the hostile corpus", () => {
  it(`holds ${BAD_LINES.length} kinds of bad line, each between good lines`, () => {
    expect(BAD_LINES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(BAD_LINES.map((entry) => entry.kind)).size).toBe(BAD_LINES.length);
  });

  it("--strict's check reports exactly the bad lines, with their fields", async () => {
    const check = await checkDataset(file, DEFAULT_SPEC, defaultRegistry(), { maxErrors: 1000 });
    expect(check.errors.map((e) => [e.line, e.field])).toEqual(
      [...corpus.bad].map(([line, entry]) => [line, entry.field]),
    );
    expect(check.samples).toBe(corpus.stored.size);
  });

  it("assay run on the embedded store: every good line stored, every bad one an input error", async () => {
    const db = join(work, "pglite");
    const run = await assayInProcess(["run", file, "--db", db, "--run-id", "hostile", "--quiet"]);
    expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
    const store = await openStore({ dataDir: db });
    try {
      await expectCorpusOutcome(store, "hostile", corpus);
    } finally {
      await store.close();
    }
  });

  describe("on Postgres", () => {
    const database = `assay_hostile_${freshSchema().slice("assay_test_".length, 24)}`;
    const url = new URL(DATABASE_URL);
    url.pathname = `/${database}`;
    const admin = (sql: string) => withClient(DATABASE_URL, (client) => client.query(sql));

    beforeAll(async () => {
      await admin(`CREATE DATABASE ${database}`);
      await (await openStore({ databaseUrl: url.toString(), migrate: true })).close();
    });
    afterAll(async () => {
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    });

    it("assay run: every good line stored, every bad one an input error", async () => {
      const run = await assayInProcess([
        "run",
        file,
        "--db",
        url.toString(),
        "--run-id",
        "hostile",
        "--quiet",
      ]);
      expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
      const store = await openStore({ databaseUrl: url.toString() });
      try {
        await expectCorpusOutcome(store, "hostile", corpus);
      } finally {
        await store.close();
      }
    });
  });

  describe("through assay produce and assay worker", () => {
    const schema = freshSchema();
    const prefix = freshPrefix();
    let worker: WorkerProcess | undefined;
    let store: Store;

    beforeAll(async () => {
      store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
      worker = await startCpuWorker({
        redisUrl: REDIS_URL,
        databaseUrl: DATABASE_URL,
        schema,
        prefix,
      });
    });
    afterAll(async () => {
      worker?.child.kill("SIGKILL");
      await store.close();
      await dropSchema(schema);
      await deletePrefix(prefix);
    });

    it("every good line stored, every bad one an input error, and the run finishes", async () => {
      const produced = await assayInProcess([
        "produce",
        file,
        "--db",
        DATABASE_URL,
        "--db-schema",
        schema,
        "--redis",
        REDIS_URL as string,
        "--queue-prefix",
        prefix,
        "--run-id",
        "hostile",
        "--wait",
        "--quiet",
      ]);
      expect(produced.code, produced.stderr).toBe(ExitCode.inputErrors);
      await expectCorpusOutcome(store, "hostile", corpus);
    });
  });
});

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
