import { fileURLToPath } from "node:url";
import { ExitCode } from "@assay/cli";
import { DEFAULT_SPEC } from "@assay/pipeline";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { commandAfter, pasteCommand } from "@assay/test-support/paste-command";
import { type OwnRedis, startRedis } from "@assay/test-support/redis-server";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "./support/assay-process.js";

const dataset = fileURLToPath(new URL("../../examples/mixed.jsonl", import.meta.url));

describe("distributed commands refuse unsafe or unreachable services", () => {
  const schema = freshSchema();
  let evicting: OwnRedis;
  beforeAll(async () => {
    evicting = await startRedis(["--maxmemory-policy", "allkeys-lru"]);
    // Migrated: a store without tables is refused before Redis is looked at.
    await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
  });
  afterAll(async () => {
    await evicting.remove();
    await dropSchema(schema);
  });

  const db = ["--db", DATABASE_URL, "--db-schema", schema];

  it("refuses a Redis that may evict jobs, unless --allow-eviction (then warns loudly)", async () => {
    const refused = await assayInProcess([
      "worker",
      "--pool",
      "cpu",
      ...db,
      "--redis",
      evicting.url,
    ]);
    expect(refused.code).toBe(ExitCode.unavailable);
    expect(refused.stderr).toContain('maxmemory-policy is "allkeys-lru", expected "noeviction"');

    const allowed = await assayInProcess([
      "produce",
      dataset,
      ...db,
      "--redis",
      evicting.url,
      "--allow-eviction",
      "--run-id",
      "x",
    ]);
    expect(allowed.stderr).toContain('WARNING: Redis maxmemory-policy is "allkeys-lru"');
    // The command it prints to resume works as pasted: on this Redis it needs the flag too.
    const resume = commandAfter(allowed.stderr, "Producing run x");
    expect(resume).toBe(
      `assay produce ${dataset} --run-id x --db-schema ${schema} --allow-eviction --db ${DATABASE_URL} --redis ${evicting.url}`,
    );
    const resumed = await pasteCommand(resume);
    // The same exit as the produce it resumes (its dataset has input errors: 4).
    expect(resumed.code, resumed.stderr).toBe(allowed.code);
    expect(resumed.stderr).toContain("Resuming run x");
  });

  it("status says what the eviction policy risks, without claiming a flag or repeating BullMQ", async () => {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema });
    try {
      await store.startRun({ id: "seen", spec: DEFAULT_SPEC, transport: "bullmq" });
    } finally {
      await store.close();
    }
    const status = await startAssay(["status", "seen", ...db, "--redis", evicting.url]).done;
    expect(status.code, status.stderr).toBe(ExitCode.ok);
    expect(status.stdout).toContain(
      '! Redis maxmemory-policy is "allkeys-lru", not "noeviction": under memory pressure Redis may delete queued jobs',
    );
    const printed = status.stdout + status.stderr;
    expect(printed).not.toContain("Running anyway");
    expect(printed).not.toContain("IMPORTANT! Eviction policy");
  });

  it("names an unreachable Redis without its password (exit code 5)", async () => {
    const { code, stderr } = await assayInProcess([
      "worker",
      "--pool",
      "cpu",
      ...db,
      "--redis",
      "redis://:hunter2@127.0.0.1:1",
    ]);
    expect(code).toBe(ExitCode.unavailable);
    expect(stderr).toContain("Cannot reach Redis at redis://:***@127.0.0.1:1");
    expect(stderr).not.toContain("hunter2");
  });
});
