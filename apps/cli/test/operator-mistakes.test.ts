import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import type { AssayResult } from "@assay/test-support/run-assay";
import { DATABASE_URL, dropSchema, freshSchema, schemaExists } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { defaultRunId, isRunId } from "../src/run-id.js";

// Mistakes an operator makes at a terminal: a wrong --db, a bad dataset path, a bad run id,
// an --out that cannot be written, a port already taken. Each gets one line and the exit
// code docs/cli.md documents, and leaves nothing behind.
const work = mkdtempSync(join(tmpdir(), "assay-mistakes-"));
const store = join(work, "store");
const DATA = join(work, "one.jsonl");
writeFileSync(DATA, `${JSON.stringify({ id: "a", question: "q", answer: "x", target: ["x"] })}\n`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** One line on stderr and no JavaScript stack trace. */
function expectOneLine(result: AssayResult): void {
  expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe("--db folders", () => {
  it("refuses a folder holding other files and touches none of them", async () => {
    const mine = join(work, "mine");
    mkdirSync(mine);
    const conf = join(mine, "postgresql.conf");
    writeFileSync(conf, "mine\n");
    const past = new Date("2020-01-01T00:00:00Z");
    utimesSync(conf, past, past);
    for (const args of [
      ["run", DATA, "--db", mine],
      ["report", "x", "--db", mine],
      ["migrate", "--db", mine],
    ]) {
      const result = await assayInProcess(args);
      expect(result.code, args.join(" ")).toBe(ExitCode.refused);
      expect(result.stderr).toMatch(/mine is not an Assay store: it holds other files/);
      expectOneLine(result);
    }
    expect(readdirSync(mine)).toEqual(["postgresql.conf"]);
    expect(readFileSync(conf, "utf8")).toBe("mine\n");
    expect(statSync(conf).mtimeMs).toBe(past.getTime());
  });

  it("creates a store in a new folder and opens it again; readers never create one", async () => {
    const run = await assayInProcess(["run", DATA, "--run-id", "first", "--db", store, "--json"]);
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const report = await assayInProcess(["report", "first", "--db", store, "--json"]);
    expect(report.code, report.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(report.stdout).runId).toBe("first");

    const typo = join(work, "stroe");
    const empty = join(work, "empty");
    mkdirSync(empty);
    for (const [args, state] of [
      [["report", "first", "--db", typo], "does not exist"],
      [["export", "first", "--db", typo], "does not exist"],
      [["report", "first", "--db", empty], "is empty"],
    ] as const) {
      const result = await assayInProcess([...args]);
      expect(result.code, args.join(" ")).toBe(ExitCode.refused);
      expect(result.stderr).toMatch(new RegExp(`No embedded store in .*: the folder ${state}`));
      expectOneLine(result);
    }
    expect(existsSync(typo)).toBe(false);
    expect(readdirSync(empty)).toEqual([]);
  });

  it("refuses a dataset that cannot be scored without registering a run", async () => {
    const emptyFile = join(work, "empty.jsonl");
    writeFileSync(emptyFile, "\n  \n");
    const folder = join(work, "a-folder.jsonl");
    mkdirSync(folder);
    const cases = [
      [emptyFile, /the dataset is empty/],
      [join(work, "missing.jsonl"), /file not found/],
      [folder, /not a file/],
    ] as const;
    for (const [index, [dataset, reason]] of cases.entries()) {
      const result = await assayInProcess([
        "run",
        dataset,
        "--run-id",
        `refused-${index}`,
        "--db",
        store,
      ]);
      expect(result.code, result.stderr).toBe(ExitCode.refused);
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).not.toMatch(/resume with/);
    }
    const opened = await openStore({ dataDir: store, create: false });
    try {
      for (const index of cases.keys())
        expect(await opened.getRun(`refused-${index}`)).toBe(undefined);
    } finally {
      await opened.close();
    }
  });
});

describe("Postgres targets of commands that only read", () => {
  it("status creates no schema, and produce refuses a bad dataset before touching one", async () => {
    const schema = freshSchema();
    const status = await assayInProcess([
      "status",
      "x",
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
    ]);
    expect(status.code).toBe(ExitCode.unavailable);
    expect(status.stderr).toMatch(
      new RegExp(
        `schema ${schema}, has no Assay tables yet: run \`assay migrate --db ${DATABASE_URL} --db-schema ${schema}\` first`,
      ),
    );
    expectOneLine(status);
    const empty = join(work, "blank.jsonl");
    writeFileSync(empty, "");
    const produce = await assayInProcess([
      "produce",
      empty,
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
    ]);
    expect(produce.code).toBe(ExitCode.refused);
    expect(produce.stderr).toMatch(/the dataset is empty/);
    expect(await schemaExists(schema)).toBe(false);
  });
});

describe.concurrent("run ids", () => {
  it.each([
    ["run", DATA, "--run-id", "-x"],
    ["run", DATA, "--run-id", "a b"],
    ["report", "--", "-x"],
    ["export", "--", "-x"],
    ["status", "--", "-x"],
    ["report", "ok", "--compare", "-x"],
  ])("refuses a bad run id with exit 2: %s %s %s %s", async (...args) => {
    const result = await assayInProcess(args);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(
      /Expected a run id of .* not starting with "-"\), got "(-x|a b)"/,
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it("makes a valid default id from any dataset name", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.date({ noInvalidDate: true }),
        (name, when) => {
          fc.pre(when.getUTCFullYear() >= 0 && when.getUTCFullYear() <= 9999);
          expect(isRunId(defaultRunId(`${name}.jsonl`, when))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    expect(defaultRunId("-x.jsonl", new Date("2026-11-30T02:15:00Z"))).toBe("x-20261130-021500");
  });
});

describe.concurrent("--out", () => {
  it.each([
    [
      "export",
      "into a missing folder",
      join(work, "nope", "scores.csv"),
      /the folder .*nope does not exist/,
    ],
    ["export", "onto a folder", work, /it is a folder; give a file name/],
    [
      "report",
      "into a missing folder",
      join(work, "nope", "r.html"),
      /the folder .*nope does not exist/,
    ],
    ["report", "onto a folder", work, /it is a folder; give a file name/],
  ])("%s %s: exit 2 and the reason", async (command, _where, out, reason) => {
    const result = await assayInProcess([command, "first", "--db", store, "--out", out]);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(reason);
    expectOneLine(result);
  });
});

describe("stack traces", () => {
  it("are printed only with ASSAY_DEBUG=1 or --debug", async () => {
    const args = ["report", "x", "--db", join(work, "mine")];
    const plain = await assayInProcess(args);
    expect(plain.code).toBe(ExitCode.refused);
    expectOneLine(plain);
    for (const debug of [
      await assayInProcess(args, { env: { ASSAY_DEBUG: "1" } }),
      await assayInProcess([...args, "--debug"]),
    ]) {
      expect(debug.code).toBe(ExitCode.refused);
      expect(debug.stderr).toMatch(/StoreFolderError: .*not an Assay store/);
      expect(debug.stderr).toMatch(/^\s+at /m);
    }
  });
});

describe("worker --metrics-port", () => {
  let schema: string;
  let taken: Server;
  beforeAll(async () => {
    schema = freshSchema();
    await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
  });
  afterAll(async () => {
    taken.close();
    await dropSchema(schema);
  });

  it("on a port in use: exit 5 and a one-line reason", async () => {
    const port = (taken.address() as { port: number }).port;
    const result = await assayInProcess([
      "worker",
      "--pool",
      "cpu",
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
      "--queue-prefix",
      `assay-test-${schema}`,
      "--metrics-port",
      String(port),
    ]);
    expect(result.code).toBe(ExitCode.unavailable);
    expect(result.stderr).toMatch(
      new RegExp(`Cannot serve metrics on port ${port}: another process is listening on it`),
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
