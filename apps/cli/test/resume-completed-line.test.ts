import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A dataset read while it was still being copied ends in half a line. That line is an
// input error; once the copy completes, resuming the run stores it, and the error goes.
const work = mkdtempSync(join(tmpdir(), "assay-cut-line-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it("a cut-off last line, completed and resumed, is stored and no longer an input error", async () => {
  const dataset = join(work, "copying.jsonl");
  const store = join(work, "store");
  const line = (id: string) => JSON.stringify({ id, question: "q", answer: "x", target: ["x"] });
  const last = line("e");
  const cut = Math.floor(last.length / 2);
  writeFileSync(dataset, `${["a", "b", "c", "d"].map(line).join("\n")}\n${last.slice(0, cut)}`);

  const first = await assayInProcess(["run", dataset, "--run-id", "copying", "--db", store, "-q"]);
  expect(first.code, first.stderr).toBe(ExitCode.inputErrors);

  appendFileSync(dataset, `${last.slice(cut)}\n`);
  const resumed = await assayInProcess([
    "run",
    dataset,
    "--run-id",
    "copying",
    "--db",
    store,
    "--json",
  ]);
  expect(resumed.code, resumed.stderr).toBe(ExitCode.ok);
  expect(JSON.parse(resumed.stdout)).toMatchObject({ samples: 5, inputErrors: 0 });

  const opened = await openStore({ dataDir: store, create: false });
  try {
    expect(await queryRows(opened, "SELECT line FROM input_errors")).toEqual([]);
    expect(await queryRows(opened, "SELECT count(*)::int AS n FROM samples")).toEqual([{ n: 5 }]);
  } finally {
    await opened.close();
  }
});
