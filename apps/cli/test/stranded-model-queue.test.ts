import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gpuQueueName } from "@assay/queue/queue-names";
import { deletePrefix, freshPrefix, REDIS_URL } from "@assay/test-support/services";
import { DATABASE_URL, dropSchema, freshSchema, schemaExists } from "@assay/test-support/stores";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { runCli } from "../src/run-cli.js";

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

/** The CLI in this process, run from `cwd`, with what it printed. */
async function cliIn(
  cwd: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runCli(args);
    process.exitCode = undefined;
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
    out.mockRestore();
    err.mockRestore();
  }
}

describe("a spec's verifier model written as a relative path", () => {
  it("is refused by produce where it is no folder, before anything is registered", async () => {
    const spec = specFor("./models/verifier");
    const result = await cliIn(tmpdir(), [
      "produce",
      DATA,
      "--spec",
      spec,
      "--run-id",
      "stranded",
      "--queue-prefix",
      prefix,
      ...flags,
    ]);
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
    const migrated = await cliIn(work, ["migrate", "--db", DATABASE_URL, "--db-schema", schema]);
    expect(migrated.code, migrated.stderr).toBe(ExitCode.ok);
    const produced = await cliIn(work, [
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
    ]);
    expect(produced.code, produced.stderr).toBe(ExitCode.ok);
    // Looked at from elsewhere, without --queue-prefix: the command names the folder itself.
    const status = await cliIn(tmpdir(), ["status", "served", ...flags]);
    expect(status.stdout).toContain(
      `! 1 of this run's jobs wait in ${gpuQueueName(realpathSync(join(work, "models/verifier")))} ` +
        "and no worker serves it; " +
        `start one with: assay worker --pool gpu --model ${join(work, "models/verifier")} ` +
        `--queue-prefix ${prefix} --db-schema ${schema} --db ${DATABASE_URL}\n`,
    );
  });
});
