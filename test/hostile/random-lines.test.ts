import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkDataset, DEFAULT_SPEC, runLocal } from "@assay/pipeline";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { openTestStore, queryRows, type TestStore } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Random lines among valid ones, through the same functions `assay run` and `--strict`
// use, in-process: bounded to a few seconds, unlike a CLI process per case.

const registry = defaultRegistry();
const work = mkdtempSync(join(tmpdir(), "assay-random-lines-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** JSON whose strings and keys are made of `unit`s, with modest numbers. */
const jsonOf = (unit: fc.Arbitrary<string>) =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ unit, maxLength: 6 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(fc.string({ unit, maxLength: 4 }), tie("value"), { maxKeys: 3 }),
    ),
  })).value;
/**
 * Any JSON, its strings and keys holding one hazard at a time (so that one check cannot
 * hide another): NUL, a lone surrogate, a bidi or zero-width character, a newline; or any
 * UTF-16 unit at all. Quotes, colons and backslashes stress the duplicate-key check.
 */
const anyJson = fc
  .oneof(
    fc
      .constantFrom("\u0000", "\ud800", "\udc00", "\u202e", "\u200b", "\n")
      .map((hazard) => fc.constantFrom(hazard, "a", '"', ":", "\\", "😀")),
    fc.constant(fc.string({ unit: "binary", minLength: 1, maxLength: 1 })),
  )
  .chain(jsonOf);
/** Number and string tokens JSON.stringify cannot write, and nesting past the limit. */
const rawToken = fc.constantFrom(
  "1e400",
  "-1e400",
  "-0",
  "12345678901234567890",
  '"\\u0000"',
  '"\\ud800"',
  '"a\\udc00b"',
  '{"__proto__":1}',
  '{"constructor":{"prototype":{}}}',
  '{"k":1,"k":2}',
  `${"[".repeat(70)}${"]".repeat(70)}`,
  '"\u202e\u200b"',
);
// Where a value goes; mostly where it is stored (ids, metadata) or quoted in a score's detail.
const field = fc.oneof(
  { arbitrary: fc.constantFrom("id", "task_id", "target", "metadata.k"), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      "question",
      "answer",
      "label",
      "metadata",
      "candidates",
      "generator",
      "scorers",
      "steps",
      "extra",
    ),
    weight: 2,
  },
);
/** A valid line with one field replaced: by any JSON value, or a raw token. */
const mutatedLine = fc
  .tuple(
    field,
    fc.oneof(
      anyJson.map((v) => JSON.stringify(v) ?? "null"),
      rawToken,
    ),
    fc.nat(999),
  )
  .map(([name, value, n]) => {
    const base = { id: `m-${n}`, question: "q", answer: "a", target: "a", metadata: { k: "v" } };
    const line =
      name === "metadata.k"
        ? { ...base, metadata: { k: "\u0001placeholder" } }
        : { ...base, [name]: "\u0001placeholder" };
    return Buffer.from(JSON.stringify(line).replace('"\\u0001placeholder"', value));
  });
const hostileLine = fc.oneof(
  fc
    .uint8Array({ minLength: 1, maxLength: 40 })
    .map((bytes) => Buffer.from(bytes.filter((b) => b !== 0x0a))),
  anyJson.map((value) => Buffer.from(JSON.stringify(value) ?? "null")),
  { arbitrary: mutatedLine, weight: 4 },
);
const dataset = fc.array(fc.option(hostileLine, { freq: 2, nil: undefined }), {
  minLength: 1,
  maxLength: 10,
});

/** Whether readDataset skips the line as blank (the only lines that leave no trace). */
function isBlank(bytes: Buffer, line: number): boolean {
  const body = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return false;
  }
  if (text.startsWith("\uFEFF")) {
    if (line > 1) return false;
    text = text.slice(1);
  }
  return text.trim() === "";
}

describe("random lines among valid ones (property)", () => {
  let opened: TestStore;
  let store: Store;
  let runs = 0;

  beforeAll(async () => {
    opened = await openTestStore("pglite");
    store = opened.store;
  });
  afterAll(async () => {
    await opened.dispose();
  });

  it("never lose a valid line, never abort, and leave every line stored or an input error", async () => {
    await fc.assert(
      fc.asyncProperty(dataset, async (entries) => {
        runs += 1;
        const runId = `random-${runs}`;
        const good = new Map<string, number>();
        const lines = entries.map((hostile, index) => {
          if (hostile !== undefined) return hostile;
          const id = `good-${index}`;
          good.set(id, index + 1);
          return Buffer.from(JSON.stringify({ id, question: "q", answer: id, target: [id] }));
        });
        const file = join(work, `${runId}.jsonl`);
        writeFileSync(file, Buffer.concat(lines.flatMap((line) => [line, Buffer.from("\n")])));
        // A file of blank lines only is refused outright, before any line is read.
        if (lines.every((line, index) => isBlank(line, index + 1))) return;

        await store.startRun({ id: runId, dataset: file, spec: DEFAULT_SPEC, transport: "local" });
        const outcome = await runLocal({
          store,
          registry,
          dataset: file,
          spec: DEFAULT_SPEC,
          runId,
        });
        expect(outcome.complete).toBe(true);

        const samples = (await queryRows(
          store,
          `SELECT sample_id, line FROM samples WHERE run_id = '${runId}'`,
        )) as { sample_id: string; line: number }[];
        const errors = (await queryRows(
          store,
          `SELECT line, message FROM input_errors WHERE run_id = '${runId}'`,
        )) as { line: number; message: string }[];
        const storedLines = new Set(samples.map((s) => s.line));
        const errorLines = new Set(errors.map((e) => e.line));

        for (const [id, line] of good) {
          expect(samples).toContainEqual({ sample_id: id, line });
          expect(errorLines.has(line)).toBe(false);
        }
        lines.forEach((bytes, index) => {
          const line = index + 1;
          if (isBlank(bytes, line)) return;
          expect(storedLines.has(line) !== errorLines.has(line), `line ${line}: ${bytes}`).toBe(
            true,
          );
        });
        // The line checks caught everything: the store never had to refuse a row.
        for (const error of errors) expect(error.message).not.toMatch(/the store refused/);
        // And --strict reports exactly the lines the run turned into input errors.
        const check = await checkDataset(file, DEFAULT_SPEC, registry, { maxErrors: 100 });
        expect(new Set(check.errors.map((e) => e.line))).toEqual(errorLines);
      }),
      { numRuns: 30 },
    );
  });
});
