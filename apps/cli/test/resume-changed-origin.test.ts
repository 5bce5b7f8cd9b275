import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readEnv } from "@assay/core";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DATABASE_URL, dropSchema, freshSchema, queryRows } from "@assay/test-support/stores";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A run is one dataset under one spec: resuming a run id with another dataset or spec is
// refused (exit 3) before anything is stored, naming what changed, unless allowed.
const work = mkdtempSync(join(tmpdir(), "assay-origin-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const line = (id: string, answer: string) =>
  JSON.stringify({ id, question: "q", answer, target: ["x"] });
const write = (name: string, lines: string[]) => {
  const path = join(work, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
};

describe("assay run", () => {
  const store = join(work, "store");
  const run = (dataset: string, ...more: string[]) =>
    assayInProcess(["run", dataset, "--run-id", "nightly", "--db", store, "-q", ...more]);
  const stored = async () => {
    const opened = await openStore({ dataDir: store, create: false });
    try {
      return await queryRows(
        opened,
        "SELECT (SELECT count(*)::int FROM samples) AS samples, (SELECT count(*)::int FROM scores) AS scores",
      );
    } finally {
      await opened.close();
    }
  };

  it("refuses another dataset, a changed answer or another spec; allowed, resumes", async () => {
    const first = write("first.jsonl", [line("a", "x"), line("b", "y"), line("c", "x")]);
    expect((await run(first)).code).toBe(ExitCode.ok);
    const before = await stored();
    expect(before).toEqual([{ samples: 3, scores: 6 }]);

    const other = write("other.jsonl", [line("d", "x"), line("e", "y")]);
    const another = await run(other);
    expect(another.code, another.stderr).toBe(ExitCode.refused);
    expect(another.stderr).toMatch(
      /Run nightly was made from another dataset or spec, and resuming would mix them: dataset .*other\.jsonl changed \(path was .*first\.jsonl, now .*other\.jsonl; size was \d+ bytes, now \d+\)/,
    );
    expect(another.stderr).toMatch(/resume anyway with --allow-changed-dataset/);

    // The same size, one answer changed: only the content hash tells.
    write("first.jsonl", [line("a", "x"), line("b", "x"), line("c", "x")]);
    const edited = await run(first);
    expect(edited.code, edited.stderr).toBe(ExitCode.refused);
    expect(edited.stderr).toMatch(
      /content changed: sha256 of its first \d+ bytes was \w+, now \w+/,
    );

    const spec = join(work, "exact.yaml");
    writeFileSync(spec, "rules: []\ndefault:\n  scorers:\n    - { name: exact }\n");
    const respecced = await run(first, "--spec", spec, "--allow-changed-dataset");
    expect(respecced.code, respecced.stderr).toBe(ExitCode.refused);
    expect(respecced.stderr).toMatch(
      /spec changed \(fields default, name, rules\).*--allow-changed-spec/,
    );
    expect(respecced.stderr).not.toMatch(/dataset \S+ changed/);
    expect(await stored()).toEqual(before);

    const allowed = await run(first, "--allow-changed-dataset");
    expect(allowed.code, allowed.stderr).toBe(ExitCode.ok);
    expect(allowed.stderr).toMatch(/Resuming with a changed dataset \(content changed/);

    const again = await assayInProcess(["run", first, "--run-id", "nightly", "--db", store]);
    expect(again.code, again.stderr).toBe(ExitCode.ok);
    expect(again.stderr).toMatch(/Skipped 6 results already stored/);
    expect(await stored()).toEqual(before);
  });

  it("lists both flags in --help", async () => {
    for (const command of ["run", "produce"]) {
      const help = await assayInProcess([command, "--help"]);
      expect(help.stdout).toMatch(/--allow-changed-dataset/);
      expect(help.stdout).toMatch(/--allow-changed-spec/);
    }
  });
});

describe("assay produce", () => {
  const schema = freshSchema();
  const prefix = `assay-test-${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    await dropSchema(schema);
    const redis = new Redis(readEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const produce = (dataset: string) =>
    assayInProcess([
      "produce",
      dataset,
      "--run-id",
      "shared",
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
      "--queue-prefix",
      prefix,
      "-q",
    ]);

  it("refuses to produce another file into an existing run id", async () => {
    await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
    const first = write("produced.jsonl", [line("a", "x"), line("b", "y")]);
    expect((await produce(first)).code).toBe(ExitCode.ok);
    const second = write("produced-too.jsonl", [line("a", "z"), line("c", "x"), line("d", "x")]);
    const refused = await produce(second);
    expect(refused.code, refused.stderr).toBe(ExitCode.refused);
    expect(refused.stderr).toMatch(/dataset .*produced-too\.jsonl changed \(path was/);
    const opened = await openStore({ databaseUrl: DATABASE_URL, schema });
    try {
      expect(await queryRows(opened, "SELECT planned_results::int AS planned FROM runs")).toEqual([
        { planned: 4 },
      ]);
      expect(await queryRows(opened, "SELECT sample_id FROM samples ORDER BY 1")).toEqual([
        { sample_id: "a" },
        { sample_id: "b" },
      ]);
    } finally {
      await opened.close();
    }
  });
});
