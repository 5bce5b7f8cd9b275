import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  REDIS_URL,
} from "@assay/test-support/services";
import { afterAll, describe, expect, it } from "vitest";
import { startAssay } from "./support/assay-process.js";
import { writeTextDataset } from "./support/dataset.js";

// A night whose workers never came: the operator gives it up with `assay abandon`, and
// from then on nothing adds work to it (a resumed produce, a retry) while `status` says
// what it is and `prune --run` drops it.

describe("assay abandon on a distributed run no worker served", () => {
  const schema = freshSchema();
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), "assay-abandon-"));
  const dataset = join(dir, "d.jsonl");
  const db = ["--db", DATABASE_URL, "--db-schema", schema];
  const queues = ["--redis", REDIS_URL, "--queue-prefix", prefix];
  const run = (args: string[]) => startAssay(args).done;
  afterAll(async () => {
    await dropSchema(schema);
    await deletePrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("marks it, refuses new work for it, shows it, and prunes it by id", async () => {
    writeTextDataset(dataset, 4);
    expect((await run(["migrate", ...db])).code).toBe(ExitCode.ok);
    const produce = ["produce", dataset, "--run-id", "lost-night", "--quiet", ...db, ...queues];
    const produced = await run(produce);
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);

    const abandoned = await run(["abandon", "lost-night", ...db]);
    expect(abandoned.code, abandoned.stderr).toBe(ExitCode.ok);
    expect(abandoned.stdout).toMatch(/^Abandoned lost-night \(\d{4}-\d\d-\d\dT/);
    const again = await run(["abandon", "lost-night", ...db]);
    expect(again.stdout).toMatch(/^lost-night was abandoned already/);

    for (const args of [produce, ["retry", "lost-night", ...db, ...queues]]) {
      const refused = await run(args);
      expect(refused.code, args[0]).toBe(ExitCode.refused);
      expect(refused.stderr).toContain('Run "lost-night" cannot be');
      expect(refused.stderr).toContain("it was abandoned on");
    }

    const status = await run(["status", "lost-night", ...db, ...queues]);
    expect(status.stdout + status.stderr).toContain("abandoned at");

    const pruned = await run(["prune", "--run", "lost-night", ...db]);
    expect(pruned.code, pruned.stderr).toBe(ExitCode.ok);
    expect(pruned.stdout).toContain("pruned lost-night (abandoned");
  });
});
