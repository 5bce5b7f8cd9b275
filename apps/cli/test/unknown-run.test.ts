import { openStore } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { runnerOf, runReports } from "@assay/store/reports";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { exitCodeOf } from "../src/run-cli.js";

const schema = freshSchema();
const db = ["--db", DATABASE_URL, "--db-schema", schema];

beforeAll(async () => {
  const migrate = await assayInProcess(["migrate", ...db]);
  expect(migrate.code, migrate.stderr).toBe(ExitCode.ok);
});
afterAll(() => dropSchema(schema));

describe("a run id the store does not hold", () => {
  it("is refused (3), naming the run, by every command that takes one", async () => {
    const commands = [
      ["report", "nope"],
      ["report", "nope", "--format", "json"],
      ["export", "nope"],
      ["show", "nope", "sample-1"],
      ["status", "nope"],
      ["retry", "nope"],
    ];
    const results = await Promise.all(
      commands.map(async (args) => {
        const { code, stderr } = await assayInProcess([...args, ...db]);
        return { command: args.join(" "), code, namesRun: stderr.includes('"nope"') };
      }),
    );
    expect(results).toEqual(
      commands.map((args) => ({ command: args.join(" "), code: ExitCode.refused, namesRun: true })),
    );
  });

  it("is the same refusal (3) when a store query is the one to find it missing", async () => {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema });
    try {
      const summary = await store.runSummary("nope").catch((error: unknown) => error);
      expect(String(summary)).toMatch(/No run "nope"/);
      expect(exitCodeOf(summary)).toBe(ExitCode.refused);

      const reports = await runReports(runnerOf(driverOf(store)), ["nope"]).catch(
        (e: unknown) => e,
      );
      expect(String(reports)).toMatch(/No run with id `nope`/);
      expect(exitCodeOf(reports)).toBe(ExitCode.refused);
    } finally {
      await store.close();
    }
  });
});
