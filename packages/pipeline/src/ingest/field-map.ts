import type { FieldsSpec, ParsedLine, RecordMapping } from "@assay/core/dataset-line";
import { formatFieldPath, parseFieldPath } from "@assay/core/dataset-line";
import { capturedReader, joinedReader, type Reader, readRowId } from "./computed-fields.js";
import { type FieldSource, isObject, missing, quoteColumn, resolve } from "./field-resolve.js";

export { type FieldSource, resolve, whyMissing } from "./field-resolve.js";

/** The spec's `fields`, checked and ready to apply to each record. */
export interface CompiledFields {
  /** Undefined without `fields`: records are validated as written. */
  mapping: RecordMapping | undefined;
  /** Every field read from a column of another name, in spec order. */
  sources: FieldSource[];
  /** Top-level fields read from their own name: a required one must be in the record. */
  sameName: ReadonlySet<string>;
  /**
   * Both `answer` and `candidates` are mapped: a record holds one or the other, so either
   * column may be missing (not both; validation refuses that).
   */
  eitherAnswer: boolean;
  /**
   * The field (`target`, ...) that reads the column called `answer` while the answer itself
   * is not mapped: that column is the gold, so the answer is not read from the record (it is
   * joined with `--answers`; without them the spec is refused).
   */
  goldInAnswerColumn?: FieldSource;
  /**
   * The fields made from columns (`question: { join }`, `target: { from, pattern }`), each
   * with its reader: the first record is read with them before the run is registered.
   */
  computed: { field: string; reader: Reader }[];
}

/** Whether the run joins its answers from batch outputs; unknown when the spec loads. */
export interface CompileOptions {
  answersJoined?: boolean;
}

export type CompileResult =
  | { ok: true; fields: CompiledFields }
  | { ok: false; field: string; message: string };

const PLAIN_FIELDS = [
  "id",
  "task_id",
  "question",
  "answer",
  "target",
  "label",
  "scorers",
  "generator",
  "steps",
] as const;
const CANDIDATE_FIELDS = ["answer", "label", "generator", "steps"] as const;
const ALL_FIELDS: readonly string[] = [...PLAIN_FIELDS, "candidates", "metadata"];

type Record_ = Record<string, unknown>;

/**
 * Checks the spec's `fields` and builds the function that rewrites each record into
 * Assay's field names: done once per run (and once per parse thread), so a record costs
 * only its reads. Without `fields` there is no mapping at all.
 */
export function compileFields(
  fields: FieldsSpec | undefined,
  options: CompileOptions = {},
): CompileResult {
  const sources: FieldSource[] = [];
  const sameName = new Set<string>(ALL_FIELDS);
  const readers: Reader[] = [];
  const computed: CompiledFields["computed"] = [];
  let rowId = false;
  const renames = (name: "answer" | "candidates") =>
    fields?.[name] !== undefined && fields[name] !== name;
  const eitherAnswer = renames("answer") && renames("candidates");
  const problem = (field: string, message: string): CompileResult => ({
    ok: false,
    field: `fields.${field}`,
    message,
  });
  const source = (field: string, column: string): FieldSource | string => {
    const parsed = parseFieldPath(column);
    return parsed.ok ? { field, column, steps: parsed.steps } : parsed.message;
  };

  for (const name of PLAIN_FIELDS) {
    const column = fields?.[name];
    if (column === undefined || column === name) {
      readers.push(readSameName(name));
      continue;
    }
    if (typeof column === "object" && "row" in column) {
      rowId = true;
      sameName.delete(name);
      readers.push(readRowId);
      continue;
    }
    if (typeof column === "object") {
      // `question: { join }` and `target: { from, pattern }`: the schema allows no other.
      const built = "join" in column ? joinedReader(column) : capturedReader(column);
      if (!built.ok) return problem(built.field, built.message);
      sources.push(...built.sources);
      sameName.delete(name);
      readers.push(built.reader);
      computed.push({ field: name, reader: built.reader });
      continue;
    }
    const from = source(name, column);
    if (typeof from === "string") return problem(name, from);
    sources.push(from);
    sameName.delete(name);
    readers.push(readMapped(name, from, eitherAnswer && name === "answer"));
  }

  const candidates = fields?.candidates;
  if (candidates === undefined || candidates === "candidates") {
    readers.push(readSameName("candidates"));
  } else {
    const spec = typeof candidates === "string" ? { from: candidates } : candidates;
    const from = source("candidates", spec.from);
    if (typeof from === "string") return problem("candidates", from);
    const items: FieldSource[] = [];
    for (const name of CANDIDATE_FIELDS) {
      const column = spec[name];
      if (column === undefined) continue;
      const item = source(`candidates.${name}`, column);
      if (typeof item === "string") return problem(`candidates.${name}`, item);
      items.push(item);
    }
    sources.push(from, ...items);
    sameName.delete("candidates");
    readers.push(readCandidates(from, items, eitherAnswer));
  }

  const metadata = fields?.metadata;
  if (metadata === undefined || metadata === "metadata") {
    readers.push(readSameName("metadata"));
  } else if (typeof metadata === "string") {
    const from = source("metadata", metadata);
    if (typeof from === "string") return problem("metadata", from);
    sources.push(from);
    sameName.delete("metadata");
    readers.push(readMapped("metadata", from));
  } else {
    const entries: FieldSource[] = [];
    for (const [index, column] of metadata.entries()) {
      const parsed = parseFieldPath(column);
      if (!parsed.ok) return problem(`metadata[${index}]`, parsed.message);
      const last = parsed.steps.at(-1);
      if (typeof last !== "string") {
        return problem(`metadata[${index}]`, "a metadata column must end in a key, its name");
      }
      const field = `metadata.${last}`;
      if (entries.some((entry) => entry.field === field)) {
        return problem(
          `metadata[${index}]`,
          `two columns would both be metadata ${quoteColumn(last)}; list each name once`,
        );
      }
      entries.push({ field, column, steps: parsed.steps });
    }
    sources.push(...entries);
    sameName.delete("metadata");
    readers.push(readMetadataList(entries));
  }

  const repeated = repeatedColumn(sources);
  if (repeated !== undefined) return problem(repeated.field, repeated.message);
  const gold = goldInAnswerColumn(fields, sources);
  if (gold !== undefined) {
    const answerMapped = fields?.answer !== undefined;
    if (answerMapped || options.answersJoined === false) {
      return problem(gold.field, goldAsAnswer(gold, answerMapped));
    }
    // The column feeds the gold: the answer comes from the batch outputs. Plain fields
    // have one reader each, in PLAIN_FIELDS order.
    readers.splice(PLAIN_FIELDS.indexOf("answer"), 1);
    sameName.delete("answer");
  }
  const mapping =
    fields === undefined
      ? undefined
      : sources.length === 0 && !rowId
        ? keepFieldColumns
        : mappingOf(readers, sources);
  return {
    ok: true,
    fields: {
      mapping,
      sources,
      sameName,
      eitherAnswer,
      computed,
      ...(gold !== undefined && { goldInAnswerColumn: gold }),
    },
  };
}

/**
 * A field other than the answer reading the top-level column `answer` (the Hugging Face
 * name for the gold) while the answer reads that column by its own name, explicitly or
 * by being left out. Metadata copies are not scored, so they do not count.
 */
function goldInAnswerColumn(
  fields: FieldsSpec | undefined,
  sources: FieldSource[],
): FieldSource | undefined {
  if (fields?.answer !== undefined && fields.answer !== "answer") return undefined;
  return sources.find(
    (source) =>
      source.field !== "answer" &&
      !source.field.startsWith("candidates") &&
      !source.field.startsWith("metadata") &&
      source.steps[0] === "answer",
  );
}

function goldAsAnswer(gold: FieldSource, answerMapped: boolean): string {
  const how = answerMapped
    ? "fields.answer names it too"
    : "fields.answer is not mapped, so it reads the column of its own name";
  return `column ${quoteColumn(gold.column)} would be read as both fields.${gold.field} and fields.answer (${how}): the gold would be scored as the model's answer; map fields.answer to the column that holds the model's output, or join the answers from batch outputs with --answers`;
}

/** A column read by two fields is most likely a slip in the spec. */
function repeatedColumn(sources: FieldSource[]): { field: string; message: string } | undefined {
  const seen = new Map<string, string>();
  for (const source of sources) {
    // Candidate fields are read inside each candidate, not from the record.
    if (source.field.startsWith("candidates.")) continue;
    const key = formatFieldPath(source.steps);
    const first = seen.get(key);
    if (first !== undefined) {
      return {
        field: source.field,
        message: `column ${quoteColumn(source.column)} is already read by fields.${first}; each column feeds one field`,
      };
    }
    seen.set(key, source.field);
  }
  return undefined;
}

function mappingOf(readers: Reader[], sources: FieldSource[]): RecordMapping {
  const columnOf = new Map(sources.map((source) => [source.field, source.column]));
  return (record, validate, position) => {
    const out: Record_ = {};
    for (const read of readers) {
      const refused = read(record, out, position);
      if (refused !== undefined) return refused;
    }
    const result = validate(out);
    return result.ok ? result : withColumn(result, columnOf);
  };
}

const FIELD_NAMES: ReadonlySet<string> = new Set(ALL_FIELDS);

/**
 * A mapping that renames nothing still ignores the columns no field reads: the record
 * itself when it has none (the usual case, one look at each key), else a copy without them.
 */
const keepFieldColumns: RecordMapping = (record, validate) => {
  for (const key in record) {
    if (!FIELD_NAMES.has(key)) {
      const kept: Record_ = {};
      for (const name of ALL_FIELDS) if (Object.hasOwn(record, name)) kept[name] = record[name];
      return validate(kept);
    }
  }
  return validate(record);
};

function readSameName(name: string): Reader {
  return (record, out) => {
    if (Object.hasOwn(record, name)) out[name] = record[name];
    return undefined;
  };
}

/** `optional`: a missing column leaves the field out instead of refusing the record. */
function readMapped(name: string, source: FieldSource, optional = false): Reader {
  return (record, out) => {
    const found = resolve(record, source.steps);
    if (!found.ok) return optional ? undefined : missing(name, source, found);
    out[name] = found.value;
    return undefined;
  };
}

function readMetadataList(entries: FieldSource[]): Reader {
  return (record, out) => {
    const metadata: Record_ = {};
    for (const entry of entries) {
      const found = resolve(record, entry.steps);
      if (!found.ok) return missing(entry.field, entry, found);
      metadata[entry.field.slice("metadata.".length)] = found.value;
    }
    out.metadata = metadata;
    return undefined;
  };
}

/**
 * Candidates from a list column; with item fields mapped, each item is rebuilt from them
 * (its other keys ignored). Anything but a list of objects is passed on for validation
 * to refuse.
 */
function readCandidates(from: FieldSource, items: FieldSource[], optional: boolean): Reader {
  const mapped = new Set(items.map((item) => item.field.slice("candidates.".length)));
  const unmapped = CANDIDATE_FIELDS.filter((name) => !mapped.has(name));
  return (record, out) => {
    const found = resolve(record, from.steps);
    if (!found.ok) return optional ? undefined : missing("candidates", from, found);
    const list = found.value;
    if (items.length === 0 || !Array.isArray(list)) {
      out.candidates = list;
      return undefined;
    }
    const candidates: unknown[] = [];
    for (const [index, item] of list.entries()) {
      if (!isObject(item)) {
        candidates.push(item);
        continue;
      }
      const candidate: Record_ = {};
      for (const name of unmapped) if (Object.hasOwn(item, name)) candidate[name] = item[name];
      for (const source of items) {
        const name = source.field.slice("candidates.".length);
        const value = resolve(item, source.steps);
        if (!value.ok) {
          const column = itemColumn(from.column, index, source.column);
          return missing(`candidates[${index}].${name}`, { column, steps: source.steps }, value);
        }
        candidate[name] = value.value;
      }
      candidates.push(candidate);
    }
    out.candidates = candidates;
    return undefined;
  };
}

/** A refusal of a mapped field says which column it came from. */
function withColumn(
  refused: Extract<ParsedLine, { ok: false }>,
  columnOf: ReadonlyMap<string, string>,
): ParsedLine {
  const column = columnOfField(refused.field, columnOf);
  if (column === undefined) return refused;
  return { ...refused, message: `${refused.message} (mapped from column ${quoteColumn(column)})` };
}

/** The column a refused field (`target`, `candidates[2].answer.x`) was read from, if mapped. */
function columnOfField(field: string, columnOf: ReadonlyMap<string, string>): string | undefined {
  const item = /^candidates\[(\d+)\]\.(\w+)/.exec(field);
  const itemSource = item === null ? undefined : columnOf.get(`candidates.${item[2]}`);
  if (item !== null && itemSource !== undefined) {
    return itemColumn(columnOf.get("candidates") ?? "candidates", Number(item[1]), itemSource);
  }
  const top = /^[^.[]*/.exec(field)?.[0] ?? "";
  return columnOf.get(field) ?? columnOf.get(top);
}

function itemColumn(list: string, index: number, column: string): string {
  return `${list}[${index}]${column.startsWith("[") ? "" : "."}${column}`;
}
