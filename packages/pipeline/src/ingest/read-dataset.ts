import { stat } from "node:fs/promises";
import {
  type DatasetLine,
  DatasetLineSchema,
  firstIssue,
  InputError,
  type Sample,
  samplesFromLine,
} from "@assay/core";
import { readLines } from "./read-lines.js";

export interface ReadDatasetOptions {
  /** Longest accepted line, in bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /**
   * Report duplicate ids here, remembering every id (memory grows with the file). Default
   * true; a producer that checks against the store passes false to stay in bounded memory.
   */
  checkDuplicateIds?: boolean;
}

export type DatasetEvent =
  | { kind: "samples"; line: number; samples: Sample[] }
  | { kind: "error"; error: InputError };

export const DEFAULT_MAX_LINE_BYTES = 1 << 20;

/**
 * Streams a JSONL dataset as validated samples. A bad line becomes an `error` event with
 * its line number and field; the lines around it are unaffected. A missing or empty file
 * throws, since nothing could be scored.
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
    const parsed = parseLine(file, raw.number, raw.text);
    if (parsed instanceof InputError) {
      yield { kind: "error", error: parsed };
      continue;
    }
    const firstLine = firstLineOfId?.get(parsed.id);
    if (firstLine !== undefined) {
      yield { kind: "error", error: duplicateIdError(file, raw.number, parsed.id, firstLine) };
      continue;
    }
    firstLineOfId?.set(parsed.id, raw.number);
    yield { kind: "samples", line: raw.number, samples: samplesFromLine(parsed, raw.number) };
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

function parseLine(file: string, line: number, text: string): DatasetLine | InputError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return new InputError({
      file,
      line,
      field: "",
      message: `malformed JSON (${detail}); each line must be one complete JSON object`,
    });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return new InputError({
      file,
      line,
      field: "",
      message: `expected a JSON object, got ${Array.isArray(json) ? "an array" : typeof json}`,
    });
  }
  const result = DatasetLineSchema.safeParse(json);
  if (!result.success) return new InputError({ file, line, ...firstIssue(result.error) });
  return result.data;
}

function lineProblem(
  file: string,
  line: number,
  problem: "too_long" | "invalid_utf8",
  maxLineBytes: number,
): InputError {
  const message =
    problem === "too_long"
      ? `line longer than ${maxLineBytes} bytes; shorten it or raise --max-line-bytes`
      : "invalid UTF-8; re-encode the file as UTF-8";
  return new InputError({ file, line, field: "", message });
}

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
  return new InputError({
    file,
    line,
    field: "id",
    message: `duplicate id "${id}" (first used on line ${firstLine}); ids must be unique`,
  });
}
