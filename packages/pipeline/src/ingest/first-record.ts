import { type FieldsSpec, printable, type RecordMapping, SpecError } from "@assay/core";
import { fixedChatPositions } from "./chat-positions.js";
import { compileFields, type FieldSource, resolve, whyMissing } from "./field-map.js";
import type { OpenDataset } from "./open-dataset.js";
import { recordOutcomes } from "./read-dataset.js";

const SHOWN_KEYS = 12;

/**
 * Refuses a spec's `fields` that the dataset's first record does not have, before the run
 * is registered: a column named wrong would otherwise make every line an input error, a
 * run full of them. Checks every column the mapping reads (inside the first candidate for
 * candidate fields) and, for `id`, `question` and an answer or candidates left unmapped,
 * a column of their own name. A first line that is not a record is left to the line
 * checks. Reads through the open handle, from its start, in the dataset's format.
 * Returns warnings for what it does not refuse: a chat turn picked by a fixed position.
 */
export async function assertFieldsInFirstRecord(
  dataset: OpenDataset,
  fields: FieldsSpec | undefined,
  specFile: string,
  maxLineBytes: number,
  options: { answersJoined?: boolean } = {},
): Promise<string[]> {
  if (fields === undefined) return [];
  const compiled = compileFields(fields, { answersJoined: options.answersJoined === true });
  if (!compiled.ok) throw new SpecError(specFile, compiled.field, compiled.message);
  const first = await firstRecord(dataset, maxLineBytes);
  if (first === undefined) return [];
  const where = `the dataset's first record (${printable(dataset.path)} line ${first.line})`;
  const refuse = (field: string, message: string): never => {
    throw new SpecError(specFile, field, `${message}; ${keysOf(first.record)}`);
  };
  const { sources, sameName, eitherAnswer } = compiled.fields;
  const candidates = sources.find((source) => source.field === "candidates");
  const answers = sources.filter(({ field }) => field === "answer" || field === "candidates");
  const hasEither = answers.some((source) => resolve(first.record, source.steps).ok);
  for (const source of sources) {
    // A record holds an answer or candidates: when both are mapped, one will do.
    const isAnswer = source.field === "answer" || source.field === "candidates";
    if (eitherAnswer && isAnswer && hasEither) continue;
    const inItem = source.field.startsWith("candidates.");
    const target = inItem ? firstCandidate(first.record, candidates) : first.record;
    if (target === undefined) continue;
    const found = resolve(target, source.steps);
    if (!found.ok) {
      const place = inItem ? `the first candidate of ${where}` : where;
      refuse(
        `fields.${specKey(source)} = ${printable(source.column)}`,
        `no such field in ${place}${whyMissing(source.steps, found)}`,
      );
    }
  }
  // A pattern that misses the first row (or a join of a non-text column) would refuse
  // every row alike.
  for (const { field, reader } of compiled.fields.computed) {
    const refused = reader(first.record, {});
    if (refused !== undefined && !refused.ok) {
      throw new SpecError(specFile, `fields.${field}`, `in ${where}: ${refused.message}`);
    }
  }
  for (const name of ["id", "question"]) {
    if (sameName.has(name) && !Object.hasOwn(first.record, name)) {
      refuse(`fields.${name}`, `not mapped, and ${where} has no \`${name}\` field either; map it`);
    }
  }
  const warnings = fixedChatPositions(first.record, sources);
  // A reference row's answers come from the batch outputs (`--answers`), not its columns.
  if (options.answersJoined === true) return warnings;
  const hasAnswer = ["answer", "candidates"].some(
    (name) => !sameName.has(name) || Object.hasOwn(first.record, name),
  );
  if (!hasAnswer) {
    refuse(
      "fields.answer",
      `neither answer nor candidates is mapped, and ${where} has neither field; map fields.answer (one answer) or fields.candidates (a list)`,
    );
  }
  return warnings;
}

/** The spec key a source comes from: `metadata` for every column of a metadata list. */
function specKey(source: FieldSource): string {
  return source.field.startsWith("metadata.") ? "metadata" : source.field;
}

function firstCandidate(record: Record<string, unknown>, from: FieldSource | undefined): unknown {
  if (from === undefined) return undefined;
  const list = resolve(record, from.steps);
  return list.ok && Array.isArray(list.value) && list.value.length > 0 ? list.value[0] : undefined;
}

function keysOf(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return "it has no fields";
  const shown = keys.slice(0, SHOWN_KEYS).map((key) => printable(key));
  const more = keys.length > SHOWN_KEYS ? `, … (${keys.length} in all)` : "";
  return `its fields are ${shown.join(", ")}${more}`;
}

/**
 * The first record that is not blank, as the dataset's format reads it (a JSON object, a
 * CSV row of texts, a Parquet row), seen by a mapping that only watches; undefined when
 * that first line or row is refused before it is a record (not JSON, too long).
 */
async function firstRecord(
  dataset: OpenDataset,
  maxLineBytes: number,
): Promise<{ line: number; record: Record<string, unknown> } | undefined> {
  let seen: Record<string, unknown> | undefined;
  const watch: RecordMapping = (record, validate) => {
    seen ??= record;
    return validate(record);
  };
  const outcomes = recordOutcomes(dataset, { maxLineBytes, parseThreads: 0, mapping: watch });
  for await (const batch of outcomes) {
    const first = batch.find((outcome) => outcome.kind !== "blank");
    if (first === undefined) continue;
    return seen === undefined ? undefined : { line: first.line, record: seen };
  }
  return undefined;
}
