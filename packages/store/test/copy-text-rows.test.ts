import { DATABASE_URL } from "@assay/test-support/stores";
import fc from "fast-check";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CopyTextRows,
  decodeBoolean,
  decodeJson,
  decodeNumber,
  decodeText,
} from "../src/queries/copy-text-rows.js";

// Selection on Postgres reads its candidates from `COPY … TO STDOUT`, where PGlite reads the
// same query through a cursor, whose rows the driver decodes. The two reads must give the
// same values: every row of a real table, read back both ways, cut into chunks anywhere.
const client = new pg.Client({ connectionString: DATABASE_URL });
beforeAll(async () => {
  await client.connect();
  await client.query(
    "CREATE TEMP TABLE copied (t text, n integer, b boolean, f double precision, j jsonb)",
  );
});
afterAll(() => client.end());

// The characters COPY escapes or that look like escapes, among any others (no NUL: text
// cannot hold one).
const char = fc.oneof(
  fc.constantFrom("\t", "\n", "\r", "\\", "\b", "\f", "\v", "N", "\u0001", "\u007f", "é", "😀"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit: char, maxLength: 12 }).filter((s) => !s.includes("\u0000"));
const row = fc.tuple(
  fc.option(fc.oneof(text, fc.constant("\\N")), { nil: null }),
  fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null }),
  fc.option(fc.boolean(), { nil: null }),
  fc.option(fc.double(), { nil: null }),
  fc.option(
    fc.jsonValue().filter((v) => !JSON.stringify(v).includes("\\u0000")),
    { nil: null },
  ),
);

describe("COPY text output", () => {
  it("reads back as the driver reads the same rows, however the output is cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (rows, cuts) => {
          await client.query("TRUNCATE copied");
          for (const [t, n, b, f, j] of rows) {
            await client.query("INSERT INTO copied VALUES ($1, $2, $3, $4, $5)", [
              t,
              n,
              b,
              f,
              j === null ? null : JSON.stringify(j),
            ]);
          }
          const select = "SELECT t, n, b, f, j FROM copied ORDER BY ctid";
          const driver = await client.query({ text: select, rowMode: "array" });
          const output = await copyOut(`COPY (${select}) TO STDOUT`);
          const reader = new CopyTextRows([
            decodeText,
            decodeNumber,
            decodeBoolean,
            decodeNumber,
            decodeJson,
          ]);
          const read = pieces(output, cuts).flatMap((piece) => reader.push(piece));
          reader.end();
          expect(read).toEqual(driver.rows);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses output that ends inside a row, or a row with other fields", () => {
    const reader = new CopyTextRows([decodeText, decodeNumber]);
    expect(reader.push(Buffer.from("a\t1\nb"))).toEqual([["a", 1]]);
    expect(() => reader.end()).toThrow("COPY output ended inside a row");
    expect(() => new CopyTextRows([decodeText]).push(Buffer.from("a\t1\n"))).toThrow(
      "COPY row has 2 fields, expected 1",
    );
  });
});

async function copyOut(statement: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(statement))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The buffer cut at these byte offsets (modulo its length), even inside a character. */
function pieces(buffer: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => (buffer.length === 0 ? 0 : cut % buffer.length)))];
  at.sort((x, y) => x - y);
  const out: Buffer[] = [];
  let start = 0;
  for (const end of [...at, buffer.length]) {
    out.push(buffer.subarray(start, end));
    start = end;
  }
  return out;
}
