import { stat } from "node:fs/promises";
import { InputError, parseDatasetLine, type Sample, samplesFromLine } from "@assay/core";
import { type LineProblem, readLines } from "./read-lines.js";

export interface ReadDatasetOptions {
  /** Longest accepted line, in bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /**
   * Report duplicate ids here, remembering every sample id (memory grows with the file).
   * Default true; a producer that checks against the store passes false to stay in bounded
   * memory.
   */
  checkDuplicateIds?: boolean;
}

export type DatasetEvent =
  | { kind: "samples"; line: number; samples: Sample[] }
  | { kind: "error"; error: InputError };

export const DEFAULT_MAX_LINE_BYTES = 1 << 20;

/**
 * Streams a JSONL dataset as validated samples, one event per line. A bad line becomes an
 * `error` event with its line number and field; the lines around it are unaffected. A line
 * is accepted or refused whole: a candidates line whose `<id>#<n>` collides with an id
 * used before yields no sample at all. A missing or empty file throws, since nothing could
 * be scored.
 */
export async function* readDataset(
  file: string,
  options: ReadDatasetOptions = {},
): AsyncGenerator<DatasetEvent> {
  await assertReadableFile(file);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const firstLineOfId = options.checkDuplicateIds === false ? undefined : new Map<string, number>();
  let sawLine = false;

  for await (const raw of readLines(file, { maxLineBytes })) {
    if ("problem" in raw) {
      yield { kind: "error", error: lineProblem(file, raw.number, raw.problem, maxLineBytes) };
      sawLine = true;
      continue;
    }
    if (raw.text.trim() === "") continue;
    sawLine = true;
    const parsed = parseDatasetLine(raw.text);
    if (!parsed.ok) {
      const { field, message } = parsed;
      yield { kind: "error", error: new InputError({ file, line: raw.number, field, message }) };
      continue;
    }
    const samples = samplesFromLine(parsed.line, raw.number);
    if (firstLineOfId !== undefined) {
      const taken = samples.find((sample) => firstLineOfId.has(sample.id));
      if (taken !== undefined) {
        const firstLine = firstLineOfId.get(taken.id) ?? 0;
        yield { kind: "error", error: duplicateIdError(file, raw.number, taken.id, firstLine) };
        continue;
      }
      for (const sample of samples) firstLineOfId.set(sample.id, raw.number);
    }
    yield { kind: "samples", line: raw.number, samples };
  }
  if (!sawLine) {
    throw new InputError({
      file,
      line: 0,
      field: "",
      message: "the dataset is empty: expected one JSON object per line",
    });
  }
}

function lineProblem(
  file: string,
  line: number,
  problem: LineProblem,
  maxLineBytes: number,
): InputError {
  return new InputError({ file, line, field: "", message: PROBLEMS[problem](maxLineBytes) });
}

const PROBLEMS: Record<LineProblem, (maxLineBytes: number) => string> = {
  too_long: (max) => `line longer than ${max} bytes; shorten it or raise --max-line-bytes`,
  invalid_utf8: () => "invalid UTF-8; re-encode the file as UTF-8",
  stray_bom: () =>
    "byte-order mark (U+FEFF) at the start of a line past the first; were files concatenated? Remove it",
};

async function assertReadableFile(file: string): Promise<void> {
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      throw new InputError({ file, line: 0, field: "", message: "not a file; pass a .jsonl file" });
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError({ file, line: 0, field: "", message: "file not found; check the path" });
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
