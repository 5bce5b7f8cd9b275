import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { ANTHROPIC_OUTPUT, jsonl, OPENAI_OUTPUT, REFERENCE, SPEC } from "./batch-fixtures.js";

// An answers file the join can take nothing from is refused before the run is registered:
// no run is left behind looking unfinished, and the corrected command then runs under the
// same run id.

const work = mkdtempSync(join(tmpdir(), "assay-refused-answers-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const reference = write("reference.jsonl", jsonl(REFERENCE));
const spec = write("spec.yaml", SPEC);
const dataDir = join(work, "store");

/** Every run the store holds, and whether it finished. */
async function storedRuns(): Promise<{ id: string; finished: boolean }[]> {
  const store = await openStore({ dataDir });
  try {
    const rows = (await queryRows(store, "SELECT id, finished_at FROM runs ORDER BY id")) as {
      id: string;
      finished_at: unknown;
    }[];
    return rows.map((r) => ({ id: r.id, finished: r.finished_at !== null }));
  } finally {
    await store.close();
  }
}

function runWith(answers: string, runId: string, format = "anthropic-batch") {
  return assayInProcess(
    [
      "run",
      reference,
      "--spec",
      spec,
      "--answers",
      answers,
      "--answers-format",
      format,
      "--run-id",
      runId,
      "--db",
      dataDir,
      "--quiet",
    ],
    { cwd: work },
  );
}

describe("assay run --answers with an answers file the join refuses", () => {
  it.each([
    { name: "every line invalid", file: "not json\n{}\n", says: "invalid.jsonl:1" },
    { name: "the other provider's output", file: jsonl(OPENAI_OUTPUT), says: "openai" },
    { name: "empty", file: "\n", says: "the answers file is empty" },
  ])(
    "registers no run when $name",
    async ({ name, file, says }) => {
      const runId = `refused-${name.replace(/\W+/g, "-")}`;
      const bad = write(name === "every line invalid" ? "invalid.jsonl" : `${runId}.jsonl`, file);
      const refused = await runWith(bad, runId);
      expect(refused.code, refused.stderr).toBe(3);
      expect(refused.stderr).toContain(says);
      expect(refused.stderr).toContain("no run was registered");
      expect((await storedRuns()).filter((r) => r.id === runId)).toEqual([]);
    },
    60_000,
  );

  it("assay produce refuses the same file before registering the run or queueing", async () => {
    const bad = write("produce-invalid.jsonl", "not json\n");
    // The services are never reached: the file is checked first.
    const refused = await assayInProcess(
      [
        "produce",
        reference,
        "--spec",
        spec,
        "--answers",
        bad,
        "--answers-format",
        "anthropic-batch",
        "--db",
        "postgres://nobody@127.0.0.1:1/none",
        "--redis",
        "redis://127.0.0.1:1",
      ],
      { cwd: work },
    );
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain("produce-invalid.jsonl:1");
    expect(refused.stderr).toContain("no run was registered");
  }, 60_000);

  it("runs the corrected file under the refused run's id, to the end", async () => {
    const runId = "corrected";
    const refused = await runWith(write("wrong.jsonl", jsonl(OPENAI_OUTPUT)), runId);
    expect(refused.code, refused.stderr).toBe(3);
    const corrected = await runWith(write("right.jsonl", jsonl(ANTHROPIC_OUTPUT)), runId);
    // Exit 4: the run completed; the fixture's unjoined rows are input errors.
    expect(corrected.code, corrected.stderr).toBe(4);
    expect((await storedRuns()).filter((r) => r.id === runId)).toEqual([
      { id: runId, finished: true },
    ]);
  }, 60_000);
});
