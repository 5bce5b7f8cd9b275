/**
 * `npm run bench:fields`: the cost of the spec's `fields` on parsing, the part of reading a
 * dataset that `fields` touches. 100,000 lines are split, decoded, parsed and validated
 * on this thread (`parseLineBytes`, as a parse thread does) without a mapping (the
 * baseline, measured in the same run), with a mapping that renames nothing, and, on the
 * same records written in a team's layout (renamed, nested, extra columns), with the
 * mapping that reads them. Target: a mapping that renames nothing ≥ 0.95 × the baseline.
 */
import { parseArgs } from "node:util";
import { type FieldsSpec, FieldsSpecSchema } from "@assay/core";
import { compileFields, parseLineBytes } from "@assay/pipeline/line-parser";
import { fmt, median } from "./bench-util.js";

const { values: flags } = parseArgs({
  options: {
    lines: { type: "string", default: "100000" },
    reps: { type: "string", default: "5" },
  },
});
const count = Number(flags.lines);
const reps = Number(flags.reps);
const MAX_LINE_BYTES = 1 << 20;

const assayLine = (i: number) => ({
  id: `s${i}`,
  question: `What is ${i} + ${i}?`,
  answer: `The total is ${2 * i} units.`,
  target: 2 * i,
  metadata: { kind: "num", level: i % 5 },
});
const teamLine = (i: number) => ({
  row_id: `s${i}`,
  prompt: `What is ${i} + ${i}?`,
  completion: { text: `The total is ${2 * i} units.`, model: "m" },
  reference: 2 * i,
  kind: "num",
  info: { level: i % 5 },
  notes: "not read",
});
const TEAM_FIELDS: FieldsSpec = {
  id: "row_id",
  question: "prompt",
  answer: "completion.text",
  target: "reference",
  metadata: ["kind", "info.level"],
};

function bytesOf(line: (i: number) => unknown): Uint8Array<ArrayBuffer> {
  const text = Array.from({ length: count }, (_, i) => JSON.stringify(line(i))).join("\n");
  return new Uint8Array(Buffer.from(text));
}

interface Case {
  bytes: Uint8Array<ArrayBuffer>;
  mapping: ReturnType<typeof compileFields>;
  rates: number[];
}

function bench(bytes: Uint8Array<ArrayBuffer>, fields: FieldsSpec | undefined): Case {
  const parsed = fields === undefined ? undefined : FieldsSpecSchema.parse(fields);
  return { bytes, mapping: compileFields(parsed), rates: [] };
}

/** Lines per second through `parseLineBytes` once; every line must become samples. */
function measure(one: Case): number {
  if (!one.mapping.ok) throw new Error(one.mapping.message);
  const { mapping } = one.mapping.fields;
  const start = performance.now();
  const outcomes = parseLineBytes(
    { firstLine: 1, bytes: one.bytes },
    MAX_LINE_BYTES,
    mapping ? { mapping } : {},
  );
  const ms = performance.now() - start;
  const refused = outcomes.find((outcome) => outcome.kind !== "samples");
  if (refused !== undefined) throw new Error(`line refused: ${JSON.stringify(refused)}`);
  return (count * 1000) / ms;
}

const assay = bytesOf(assayLine);
const team = bytesOf(teamLine);
const none = bench(assay, undefined);
const identity = bench(assay, { id: "id", question: "question" });
const renamed = bench(team, TEAM_FIELDS);
const cases = [none, identity, renamed];
// One warm-up round, then the cases take turns each rep, so load on the machine falls on
// all of them alike.
for (const one of cases) measure(one);
for (let rep = 0; rep < reps; rep += 1) for (const one of cases) one.rates.push(measure(one));
const baseline = median(none.rates);

console.log(
  `bench:fields — ${fmt(count)} lines parsed and validated on one thread, median of ${reps}`,
);
console.log("case                                   lines/s   ratio to no fields");
const row = (name: string, value: number) =>
  console.log(`${name.padEnd(36)} ${fmt(value).padStart(9)}   ${fmt(value / baseline, 2)}`);
row("no fields (baseline)", baseline);
row("fields renaming nothing", median(identity.rates));
row("fields renaming (team layout)", median(renamed.rates));
console.log(
  `fields renaming nothing ÷ no fields: ${fmt(median(identity.rates) / baseline, 2)} (target ≥ 0.95)`,
);
