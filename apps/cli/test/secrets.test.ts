import { Writable } from "node:stream";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMaskedLogger } from "../src/logger.js";

// A password given to Assay, in any URL form, is never printed: not in an error, not in
// a usage message, not in a log line. Each form once, through the command a user would
// run. Port 1 on localhost refuses at once, so every attempt fails fast.
const SECRET = "Sup3rSecretPw";

/** Exit code, and no secret and no stack trace in anything printed. */
async function expectMasked(args: string[], code: number, env: NodeJS.ProcessEnv = {}) {
  const result = await assayInProcess(args, { env });
  const printed = result.stdout + result.stderr;
  expect(printed).not.toContain(SECRET);
  expect(printed).not.toContain("Sup3r");
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).toMatch(/\*\*\*/);
  expect(result.code, result.stderr).toBe(code);
  return result;
}

describe.concurrent("Postgres URLs", () => {
  it.each([
    ["a password in the userinfo", `postgres://u:${SECRET}@127.0.0.1:1/db`],
    ["password= in the query", `postgres://u@127.0.0.1:1/db?password=${SECRET}`],
    [
      "a token-like key in the query",
      `postgres://u@127.0.0.1:1/db?sslmode=disable&api_token=${SECRET}`,
    ],
    ["an empty user and a port out of range", `postgres://:${SECRET}@127.0.0.1:99999/db`],
    ["a malformed percent escape", `postgres://u:${SECRET}%zz@127.0.0.1:1/db`],
  ])("report --db with %s: exit 5, masked", async (_form, url) => {
    const result = await expectMasked(["report", "x", "--db", url], 5);
    expect(result.stderr).toMatch(/^assay: Cannot connect to Postgres at postgres:\/\//);
  });

  it("DATABASE_URL with a password", async () => {
    await expectMasked(["export", "x"], 5, {
      DATABASE_URL: `postgresql://u:${SECRET}@127.0.0.1:1/db`,
    });
  });

  it("--db with another kind of URL: exit 2, masked", async () => {
    await expectMasked(["report", "x", "--db", `mysql://u:${SECRET}@h/db`], 2);
  });

  it("a URL quoted in a usage error", async () => {
    await expectMasked(["run", "data.jsonl", "--concurrency", `redis://u:${SECRET}@h`], 2);
  });
});

describe.concurrent("Redis URLs", () => {
  let schema: string;
  beforeAll(async () => {
    schema = freshSchema();
    await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
  });
  afterAll(() => dropSchema(schema));

  it.each([
    ["password= in the query", `redis://127.0.0.1:1?password=${SECRET}`],
    ["pass= in the query", `redis://127.0.0.1:1/0?pass=${SECRET}`],
    ["an empty user and a port out of range", `redis://:${SECRET}@127.0.0.1:99999`],
    ["a malformed percent escape", `redis://:${SECRET}%zz@127.0.0.1:1`],
  ])("worker --redis with %s: exit 5, masked", async (_form, url) => {
    const result = await expectMasked(
      ["worker", "--pool", "cpu", "--db", DATABASE_URL, "--db-schema", schema, "--redis", url],
      5,
    );
    expect(result.stderr).toMatch(/^assay: Cannot reach Redis at redis:\/\//);
  });
});

/** A pino destination that keeps each line. */
function capture(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, sink };
}

describe("worker logs", () => {
  it("mask every URL in a log line, messages and errors alike", () => {
    const { lines, sink } = capture();
    const log = createMaskedLogger("info", "test", sink);
    const error = new Error(`connect failed: redis://:${SECRET}@queue:6379?x=1`);
    log.warn({ err: error }, `retrying postgres://u@db/assay?password=${SECRET}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(SECRET);
    const entry = JSON.parse(lines[0] as string);
    expect(entry.msg).toBe("retrying postgres://u@db/assay?password=***");
    expect(entry.err.message).toBe("connect failed: redis://:***@queue:6379?x=1");
  });

  it("escape control characters a sample id brings, and stay valid JSON", () => {
    const { lines, sink } = capture();
    const id = 'q\u009b2J\u202e"\\';
    createMaskedLogger("info", "test", sink).warn({ sample: id }, "job failed");
    expect(lines[0]).not.toMatch(/[\u009b\u202e]/);
    expect(JSON.parse(lines[0] as string).sample).toBe(id);
  });
});
