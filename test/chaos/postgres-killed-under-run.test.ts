/**
 * `assay run` on a Postgres server that is kill -9ed mid-run: the run must end with one
 * clear line (what was lost, how to resume) and the documented exit code, not an
 * unhandled 'error' event and a stack trace; rerun with its --run-id once the server is
 * back, it completes with every result stored once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { waitFor } from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { writeTextDataset } from "../distributed/support/dataset.js";
import { expectLostPostgres } from "../distributed/support/lost-postgres.js";
import { type OwnPostgres, startPostgres } from "../distributed/support/postgres-server.js";
import { storedKeys } from "../distributed/support/stored-keys.js";

const SAMPLES = 20_000;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample
const RUN = "pg-run";

describe("chaos: Postgres killed under assay run", () => {
  const dir = mkdtempSync(join(tmpdir(), "assay-pg-run-"));
  const dataset = join(dir, "data.jsonl");
  let postgres: OwnPostgres;

  beforeAll(async () => {
    postgres = await startPostgres();
    const store = await openStore({ databaseUrl: postgres.url, migrate: true });
    await store.close();
    writeTextDataset(dataset, SAMPLES);
  });
  afterAll(async () => {
    await postgres?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const args = () => ["run", dataset, "--db", postgres.url, "--run-id", RUN];

  it("ends with a clear error and exit 5, and the rerun completes without doubles", async () => {
    const run = startAssay(args());
    await waitFor(
      async () => {
        if (run.child.exitCode !== null) throw new Error(`assay run ended:\n${run.stderr()}`);
        return (await storedKeys({ url: postgres.url, runId: RUN })).rows >= PLANNED * 0.05;
      },
      90_000,
      "5% of the run stored",
    );
    expect(run.child.exitCode, "the run is still going when the server dies").toBeNull();
    await postgres.kill();
    await expect(
      storedKeys({ url: postgres.url, runId: RUN }),
      "the server is gone",
    ).rejects.toThrow();

    const failed = await run.done;
    expectLostPostgres(failed);
    expect(failed.stderr).toContain(`--run-id ${RUN}`);

    await postgres.restart();
    const before = (await storedKeys({ url: postgres.url, runId: RUN })).rows;
    expect(before).toBeLessThan(PLANNED);
    const rerun = await startAssay([...args(), "--quiet"]).done;
    expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
    expect(await storedKeys({ url: postgres.url, runId: RUN })).toEqual({
      rows: PLANNED,
      distinctKeys: PLANNED,
    });
  });
});
