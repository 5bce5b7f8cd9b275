import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A file in another shape than expected is not one error row per line: reading stops at
// `--max-input-errors`, what was read is stored, the exit is 4 and the resume command is
// printed; resuming with a higher limit reads the rest.

const work = mkdtempSync(join(tmpdir(), "assay-error-limit-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lines = [
  ...Array.from({ length: 3 }, (_, i) => ({
    id: `ok-${i}`,
    question: "q",
    answer: "a",
    target: "a",
  })),
  ...Array.from({ length: 40 }, (_, i) => ({ id: `bad-${i}`, question: "q", answer: 7 })),
  { id: "last", question: "q", answer: "a", target: "a" },
];
const dataset = join(work, "shape.jsonl");
writeFileSync(dataset, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
const db = join(work, "store");

async function count(table: "input_errors" | "scores"): Promise<number> {
  const store = await openStore({ dataDir: db });
  try {
    const rows = (await queryRows(
      store,
      `SELECT count(DISTINCT ${table === "scores" ? "sample_id" : "line"})::int AS n FROM ${table} WHERE run_id = 'limited'`,
    )) as { n: number }[];
    return rows[0]?.n ?? 0;
  } finally {
    await store.close();
  }
}

describe("--max-input-errors", () => {
  it("stops reading at the limit with exit 4 and the command that resumes", async () => {
    const args = ["run", dataset, "--db", db, "--run-id", "limited", "--quiet"];
    const stopped = await assayInProcess([...args, "--max-input-errors", "10"], { cwd: work });
    expect(stopped.code, stopped.stderr).toBe(ExitCode.inputErrors);
    expect(stopped.stderr).toContain("Stopped reading: 10 input errors, the limit");
    expect(stopped.stderr).toContain(`resume with: assay run ${dataset} --run-id limited`);
    // The errors it met are stored, no more: the limit bounds the store too.
    expect(await count("input_errors")).toBe(10);
    expect(await count("scores")).toBe(3);

    const resumed = await assayInProcess([...args, "--max-input-errors", "1000"], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(ExitCode.inputErrors);
    expect(resumed.stderr).not.toContain("Stopped reading");
    expect(await count("input_errors")).toBe(40);
    expect(await count("scores")).toBe(4);
  });
});
