import { availableParallelism } from "node:os";
import {
  type FieldsSpec,
  InputError,
  type LineParseOptions,
  type RecordMapping,
  type Sample,
} from "@assay/core";
import { DEFAULT_MAX_LINE_BYTES } from "@assay/core/input-formats";
import { compileFields } from "./field-map.js";
import { chunkLineBatches, type StreamBatch } from "./formats/chunk-line-batches.js";
import type { DatasetFormat } from "./formats/dataset-format.js";
import { decompressed } from "./formats/decompress.js";
import { fileChunks } from "./formats/file-chunks.js";
import { csvOutcomes } from "./formats/read-csv.js";
import { parquetOutcomes } from "./formats/read-parquet.js";
import { type OpenDataset, type OpenDatasetOptions, openDataset } from "./open-dataset.js";
import { type LineOutcome, parseLine, parseLineBytes } from "./parse-lines.js";
import { ParsePool } from "./parse-pool.js";
import { readLineBatches } from "./read-line-batches.js";

export interface ReadDatasetOptions {
  /** Longest accepted line, in bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /**
   * Report duplicate ids here, remembering every sample id (memory grows with the file).
   * Default true; a producer that checks against the store passes false to stay in bounded
   * memory.
   */
  checkDuplicateIds?: boolean;
  /**
   * Threads that parse and validate lines while this one reads the file; 0 parses here.
   * Default: none for a file under 4 MiB (starting threads costs more than it saves),
   * else one per spare CPU core, at most 4.
   */
  parseThreads?: number;
  /** Sees every byte of the file as it is read, in order (e.g. to hash it). */
  onRead?: (bytes: Uint8Array) => void;
  /** For a path: the format the user named (`--format`), checked against the bytes. */
  format?: OpenDatasetOptions["format"];
  /** The spec's `fields`: the dataset column each field is read from. */
  fields?: FieldsSpec;
  /**
   * Rows are a reference whose answers are joined from batch outputs (`--answers`): they
   * must not carry `answer`, `candidates` or `generator`. Default false.
   */
  answersJoined?: boolean;
}

export type DatasetEvent =
  | { kind: "samples"; line: number; samples: Sample[] }
  | { kind: "error"; error: InputError };

export { DEFAULT_MAX_LINE_BYTES };

const PARALLEL_FROM_BYTES = 4 << 20;

/**
 * Streams a dataset (JSONL, CSV, TSV or Parquet; see `detectFormat`) as validated
 * samples, one event per line or row, in file order. A bad line becomes an `error` event
 * with its line number and field; the lines around it are unaffected. A line is accepted or refused whole: a candidates line whose `<id>#<n>`
 * collides with an id used before yields no sample at all. A missing or empty file
 * throws, since nothing could be scored. `source` is a path or a dataset held open (read
 * from its start, and left open).
 */
export async function* readDataset(
  file: string | OpenDataset,
  options: ReadDatasetOptions = {},
): AsyncGenerator<DatasetEvent> {
  for await (const events of readDatasetBatches(file, options)) yield* events;
}

/**
 * `readDataset`'s events a batch of lines at a time, for a caller that handles many
 * lines per second: one step of the stream per batch rather than per line.
 */
export async function* readDatasetBatches(
  source: string | OpenDataset,
  options: ReadDatasetOptions = {},
): AsyncGenerator<DatasetEvent[]> {
  const dataset =
    typeof source === "string"
      ? await openDataset(source, options.format !== undefined ? { format: options.format } : {})
      : source;
  try {
    yield* readOpenDataset(dataset, options);
  } finally {
    if (typeof source === "string") await dataset.close();
  }
}

async function* readOpenDataset(
  dataset: OpenDataset,
  options: ReadDatasetOptions,
): AsyncGenerator<DatasetEvent[]> {
  const file = dataset.path;
  const size = dataset.bytes;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const firstLineOfId = options.checkDuplicateIds === false ? undefined : new Map<string, number>();
  const threads = options.parseThreads ?? defaultParseThreads(size);
  let sawLine = false;

  const batches = recordOutcomes(dataset, { ...options, maxLineBytes, parseThreads: threads });
  for await (const batch of batches) {
    const events: DatasetEvent[] = [];
    for (const outcome of batch) {
      if (outcome.kind === "blank") continue;
      sawLine = true;
      events.push(eventOf(file, outcome, firstLineOfId));
    }
    if (events.length > 0) yield events;
  }
  if (!sawLine) {
    throw new InputError({
      file,
      line: 0,
      field: "",
      message: `the dataset is empty: expected ${EXPECTED[dataset.format]}`,
    });
  }
}

const EXPECTED: Record<DatasetFormat, string> = {
  jsonl: "one JSON object per line",
  csv: "a header row naming the fields, then one row per sample",
  tsv: "a header row naming the fields, then one row per sample",
  parquet: "one row per sample",
};

/**
 * Each format as batches of line outcomes, in file order. JSONL, compressed or not, is
 * split into lines here and parsed on threads; CSV, TSV and Parquet rows are made into
 * objects here and go through the same validation (`parseRecord`). `mapping` stands for
 * the spec's `fields` when parsing here (a caller's own, e.g. to see the first record).
 */
export function recordOutcomes(
  dataset: OpenDataset,
  options: Pick<ReadDatasetOptions, "onRead" | "fields" | "answersJoined"> & {
    maxLineBytes: number;
    parseThreads: number;
    mapping?: RecordMapping;
  },
): AsyncIterable<LineOutcome[]> {
  const { onRead, maxLineBytes, parseThreads: threads, fields } = options;
  const answersJoined = options.answersJoined === true;
  const mapping = options.mapping ?? mappingOf(fields, answersJoined);
  const parse: LineParseOptions = { answersJoined, ...(mapping !== undefined && { mapping }) };
  if (dataset.format === "parquet") {
    return parquetOutcomes(
      dataset.path,
      dataset.handle,
      dataset.bytes,
      onRead,
      parse,
      maxLineBytes,
    );
  }
  const parsed = (lines: AsyncIterable<StreamBatch>) =>
    threads > 0
      ? parsedInThreads(lines, maxLineBytes, threads, fields, answersJoined)
      : parsedHere(lines, maxLineBytes, parse);
  if (dataset.format === "jsonl" && dataset.compression === "none") {
    return parsed(readLineBatches(dataset.handle, { maxLineBytes, ...(onRead && { onRead }) }));
  }
  const bytes = decompressed(fileChunks(dataset.handle, onRead), dataset.compression);
  if (dataset.format === "jsonl") return parsed(chunkLineBatches(bytes, maxLineBytes));
  const delimiter = dataset.format === "tsv" ? "\t" : ",";
  return csvOutcomes(dataset.path, bytes, delimiter, maxLineBytes, parse);
}

/** The spec's mapping, compiled; the spec was checked when it loaded. */
function mappingOf(
  fields: FieldsSpec | undefined,
  answersJoined: boolean,
): RecordMapping | undefined {
  const compiled = compileFields(fields, { answersJoined });
  if (!compiled.ok) throw new Error(`fields: ${compiled.field}: ${compiled.message}`);
  return compiled.fields.mapping;
}

function eventOf(
  file: string,
  outcome: Exclude<LineOutcome, { kind: "blank" }>,
  firstLineOfId: Map<string, number> | undefined,
): DatasetEvent {
  const { line } = outcome;
  if (outcome.kind === "refused") {
    const { field, message } = outcome;
    return { kind: "error", error: new InputError({ file, line, field, message }) };
  }
  const { samples } = outcome;
  if (firstLineOfId !== undefined) {
    const taken = samples.find((sample) => firstLineOfId.has(sample.id));
    if (taken !== undefined) {
      const firstLine = firstLineOfId.get(taken.id) ?? 0;
      return { kind: "error", error: duplicateIdError(file, line, taken.id, firstLine) };
    }
    for (const sample of samples) firstLineOfId.set(sample.id, line);
  }
  return { kind: "samples", line, samples };
}

function defaultParseThreads(fileBytes: number): number {
  if (fileBytes < PARALLEL_FROM_BYTES) return 0;
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/**
 * A line too long to be read, or where a compressed stream broke off, is refused where it
 * is found, without a thread.
 */
function refusedHere(
  batch: Exclude<StreamBatch, { kind: "lines" }>,
  maxLineBytes: number,
): LineOutcome[] {
  if (batch.kind === "broken") {
    return [{ kind: "refused", line: batch.line, field: "", message: batch.message }];
  }
  return [parseLine({ number: batch.line, problem: "too_long", bytes: batch.bytes }, maxLineBytes)];
}

async function* parsedHere(
  batches: AsyncIterable<StreamBatch>,
  maxLineBytes: number,
  parse: LineParseOptions,
): AsyncGenerator<LineOutcome[]> {
  for await (const batch of batches) {
    yield batch.kind === "lines"
      ? parseLineBytes(batch, maxLineBytes, parse)
      : refusedHere(batch, maxLineBytes);
  }
}

/**
 * Batches go out to the threads while earlier ones are parsed (up to two per thread in
 * flight) and come back in the order they were sent, so the file's order holds.
 */
async function* parsedInThreads(
  batches: AsyncIterable<StreamBatch>,
  maxLineBytes: number,
  threads: number,
  fields: FieldsSpec | undefined,
  answersJoined: boolean,
): AsyncGenerator<LineOutcome[]> {
  const pool = new ParsePool(threads, fields);
  const inFlight: Promise<LineOutcome[]>[] = [];
  try {
    for await (const batch of batches) {
      const parsed =
        batch.kind === "lines"
          ? pool.parse(batch, maxLineBytes, { answersJoined })
          : Promise.resolve(refusedHere(batch, maxLineBytes));
      parsed.catch(() => {}); // awaited in order below; never an unhandled rejection
      inFlight.push(parsed);
      if (inFlight.length >= 2 * threads) yield await (inFlight.shift() as Promise<LineOutcome[]>);
    }
    while (inFlight.length > 0) yield await (inFlight.shift() as Promise<LineOutcome[]>);
  } finally {
    await pool.close();
  }
}

export function duplicateIdError(
  file: string,
  line: number,
  id: string,
  firstLine: number,
): InputError {
  // A candidates line's samples are `<id>#<n>`: say so when that is what collided.
  const candidate = /#\d+$/.test(id)
    ? " (a line with candidates uses the ids <id>#0, <id>#1, …)"
    : "";
  return new InputError({
    file,
    line,
    field: "id",
    message: `duplicate id "${id}" (first used on line ${firstLine}); ids must be unique${candidate}`,
  });
}
