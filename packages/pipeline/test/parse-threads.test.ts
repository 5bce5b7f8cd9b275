import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DatasetEvent, readDataset } from "../src/index.js";
import { tempFiles } from "./temp-files.js";

const files = tempFiles();

async function collect(
  path: string,
  parseThreads: number,
  maxLineBytes = 200,
): Promise<DatasetEvent[]> {
  const events: DatasetEvent[] = [];
  for await (const event of readDataset(path, { parseThreads, maxLineBytes })) {
    events.push(event);
  }
  return events;
}

/** A line of each kind a dataset can hold; `id` makes a good line's sample unique. */
const lineKinds = {
  good: (id: string) => JSON.stringify({ id, question: "q?", answer: id, target: id }),
  malformed: () => '{"id": "x", "question": ',
  noAnswer: (id: string) => JSON.stringify({ id, question: "q?" }),
  notObject: () => "[1, 2]",
  tooLong: (id: string) => JSON.stringify({ id, question: "q".repeat(300), answer: "a" }),
  blank: () => "   ",
};
type Kind = keyof typeof lineKinds;
const kindNames = Object.keys(lineKinds) as Kind[];

describe("reading a dataset on parse threads", () => {
  it("stores every good line once, in order, and reports each bad line with its number", async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        // Enough lines for several batches, so batches cross threads and come back in order.
        fc.array(fc.constantFrom(...kindNames), { minLength: 1, maxLength: 2500 }),
        async (kinds) => {
          const text = kinds.map((kind, i) => lineKinds[kind](`id${i}`)).join("\n");
          file += 1;
          const path = files.write(`mixed-${file}.jsonl`, `${text}\n`);
          const lineOf = (i: number) => i + 1;
          const expectedGood = kinds.flatMap((kind, i) => (kind === "good" ? [lineOf(i)] : []));
          const expectedBad = kinds.flatMap((kind, i) =>
            kind === "good" || kind === "blank" ? [] : [lineOf(i)],
          );
          if (expectedGood.length + expectedBad.length === 0) {
            await expect(collect(path, 2)).rejects.toThrow(/empty/);
            return;
          }

          const events = await collect(path, 2);
          const good = events.flatMap((e) => (e.kind === "samples" ? [e] : []));
          expect(good.map((e) => e.line)).toEqual(expectedGood);
          for (const event of good) {
            expect(event.samples.map((s) => [s.id, s.line])).toEqual([
              [`id${event.line - 1}`, event.line],
            ]);
          }
          const bad = events.flatMap((e) => (e.kind === "error" ? [e.error] : []));
          expect(bad.map((error) => error.line)).toEqual(expectedBad);
          for (const error of bad) expect(error.file).toBe(path);
          // The whole stream is in file order.
          const order = events.map((e) => (e.kind === "samples" ? e.line : e.error.line));
          expect(order).toEqual([...order].sort((a, b) => a - b));
        },
      ),
      { numRuns: propertyRuns(5) },
    );
  });

  it("gives the same events as parsing in this thread, field and message included", async () => {
    const kinds = Array.from({ length: 2500 }, (_, i) => kindNames[(i * 7) % kindNames.length]);
    const text = kinds.map((kind, i) => lineKinds[kind as Kind](`id${i}`)).join("\n");
    const path = files.write("same.jsonl", text);
    expect(await collect(path, 3)).toEqual(await collect(path, 0));
  });

  it("gives, for any lines, the samples and refusals that parsing in this thread gives", async () => {
    // Lines come back from a thread as JSON: whatever a line holds (any text, nested
    // metadata, candidates sharing a line's fields, refused values) must come back the same.
    // Mostly text a dataset holds, sometimes any code units (refused when unstorable).
    const text = fc.oneof(
      { weight: 9, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
    );
    const scalar = fc.oneof(
      text,
      fc.integer(),
      // Within ±2^53 mostly: a larger whole number is refused (it would lose digits).
      fc.double({ min: -1e12, max: 1e12, noNaN: true }),
      fc.boolean(),
    );
    const nested = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 3 }),
      fc.dictionary(text, scalar, { maxKeys: 3 }),
    );
    const candidate = fc.record(
      { answer: text, label: fc.boolean(), steps: fc.array(text, { maxLength: 3 }) },
      { requiredKeys: ["answer"] },
    );
    const record = fc.record(
      {
        id: fc.oneof(text, fc.integer()),
        question: text,
        answers: fc.oneof(
          text.map((answer) => ({ answer })),
          fc.array(candidate, { minLength: 1, maxLength: 3 }).map((candidates) => ({ candidates })),
        ),
        target: fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })),
        label: fc.boolean(),
        metadata: fc.dictionary(text, nested, { maxKeys: 4 }),
        task_id: text,
        // Validation gives a scorer's missing `args` its default: such a line's record is
        // not its own text, and must cross the thread all the same.
        scorers: fc.constantFrom([{ name: "exact" }], [{ name: "f1", key: "k", args: {} }]),
      },
      { requiredKeys: ["id", "question"] },
    );
    // Blanks around a line's JSON are the line's text too.
    const padding = fc.constantFrom("", " ", "\t", " \t ");
    let file = 0;
    const seen = { samples: 0, error: 0 };
    await fc.assert(
      fc.asyncProperty(
        // Few files of many lines: each file starts two threads (~0.5 s of CPU from sources),
        // and what the property checks is per line.
        fc.array(fc.tuple(record, padding), { minLength: 50, maxLength: 750 }),
        async (padded) => {
          file += 1;
          const lines = padded.map(
            ([{ answers, ...r }, pad], i) =>
              `${pad}${JSON.stringify({ ...r, ...answers, id: `${i}-${String(r.id)}` })}${pad}`,
          );
          const path = files.write(`any-${file}.jsonl`, `${lines.join("\n")}\n`);
          const threaded = await collect(path, 2, 1 << 20);
          expect(threaded).toStrictEqual(await collect(path, 0, 1 << 20));
          for (const event of threaded) seen[event.kind] += 1;
        },
      ),
      { numRuns: propertyRuns(4) },
    );
    // Both kinds of outcome crossed the thread boundary: samples and refusals.
    expect(seen.samples).toBeGreaterThan(50);
    expect(seen.error).toBeGreaterThan(0);
  });

  it("stops its threads when the reader stops early", async () => {
    const text = Array.from({ length: 5000 }, (_, i) => lineKinds.good(`id${i}`)).join("\n");
    const path = files.write("early.jsonl", text);
    const events = readDataset(path, { parseThreads: 2 });
    const first = await events.next();
    expect(first.value).toMatchObject({ kind: "samples", line: 1 });
    await events.return(undefined);
  });
});
