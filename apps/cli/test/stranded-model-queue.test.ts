import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gpuQueueName } from "@assay/queue/queue-names";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { deletePrefix, freshPrefix, REDIS_URL } from "@assay/test-support/services";
import { DATABASE_URL, dropSchema, freshSchema, schemaExists } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A GPU job's queue is named after its model's folder. A spec whose model is a relative
// path that is no folder where the producer runs would strand the jobs in a queue no
// worker serves: produce refuses it. One that is a folder there is recorded as the
// absolute folder, so the worker command status prints works from any folder.

const work = realpathSync(mkdtempSync(join(tmpdir(), "assay-stranded-")));
const DATA = join(work, "d.jsonl");
writeFileSync(DATA, `${JSON.stringify({ id: "a", question: "q", answer: "x" })}\n`);
const schema = freshSchema();
const prefix = freshPrefix();
const flags = ["--db", DATABASE_URL, "--db-schema", schema, "--redis", REDIS_URL];

afterAll(async () => {
  await dropSchema(schema);
  await deletePrefix(prefix);
  rmSync(work, { recursive: true, force: true });
});

function specFor(model: string): string {
  const file = join(work, `spec-${model.replace(/\W/g, "_")}.yaml`);
  writeFileSync(file, `default:\n  scorers: [{ name: verifier, args: { model: ${model} } }]\n`);
  return file;
}

describe("a spec's verifier model written as a relative path", () => {
  it("is refused by produce where it is no folder, before anything is registered", async () => {
    const spec = specFor("./models/verifier");
    const result = await assayInProcess(
      ["produce", DATA, "--spec", spec, "--run-id", "stranded", "--queue-prefix", prefix, ...flags],
      { cwd: tmpdir() },
    );
    expect(result.code).toBe(ExitCode.refused);
    expect(result.stderr).toBe(
      `assay: ${spec}: default scorer #1 (verifier): its model "./models/verifier" is a relative path, ` +
        `and ${join(tmpdir(), "models/verifier")} is no folder here: the jobs would wait in a queue named ` +
        "after a folder no GPU worker has. Run `assay produce` from the folder the path is relative to, " +
        "or write the model as an absolute path (the folder where the GPU workers have it) or a hub id (owner/name)\n",
    );
    // Refused before the store was opened: nothing was made.
    expect(await schemaExists(schema)).toBe(false);
  });

  it("is recorded as its absolute folder where it is one, for the worker command status prints", async () => {
    mkdirSync(join(work, "models", "verifier"), { recursive: true });
    // Spelled apart from the first test's: this process keeps each spelling's queue name.
    const spec = specFor("./models/verifier/");
    const migrated = await assayInProcess(
      ["migrate", "--db", DATABASE_URL, "--db-schema", schema],
      { cwd: work },
    );
    expect(migrated.code, migrated.stderr).toBe(ExitCode.ok);
    const produced = await assayInProcess(
      [
        "produce",
        DATA,
        "--spec",
        spec,
        "--run-id",
        "served",
        "--queue-prefix",
        prefix,
        "--quiet",
        ...flags,
      ],
      { cwd: work },
    );
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    // Looked at from elsewhere, without --queue-prefix: the command names the folder itself.
    const status = await assayInProcess(["status", "served", ...flags], { cwd: tmpdir() });
    expect(status.stdout).toContain(
      `! 1 of this run's jobs wait in ${gpuQueueName(realpathSync(join(work, "models/verifier")))} ` +
        "and no worker serves it; " +
        `start one with: assay worker --pool gpu --model ${join(work, "models/verifier")} ` +
        `--queue-prefix ${prefix} --db-schema ${schema} --db ${DATABASE_URL}\n`,
    );
  });
});
