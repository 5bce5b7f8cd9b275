import { stat } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import {
  type DatasetReadBack,
  type FieldsSpec,
  InputError,
  type Sample,
  type SampleRecord,
} from "@assay/core";
import { readDataset } from "@assay/pipeline";
import type { JoinedAnswer } from "@assay/store";
import { modifiedAfter } from "../modified-after.js";

/** A stored sample's line fits in this; it was read under a limit no larger. */
const MAX_LINE_BYTES = 1 << 30;

/** How the run read its dataset, so that its rows are read back the same way. */
export interface ReadBackOptions {
  /** The spec's `fields`: the column each field was read from. */
  fields?: FieldsSpec;
  /** The run joined its answers from batch outputs (`--answers`): rows carry none. */
  answersJoined?: boolean;
  /** The batch output line the sample's answer was joined from, when the run kept it. */
  joinedAnswer?: JoinedAnswer;
}

/** The path `assay run -` records for standard input. */
const STDIN_PATH = "-";

/**
 * Reads the sample's question and answer back from the dataset at its recorded line, and
 * says plainly when that is not possible: the run read standard input, the file is gone,
 * or the line no longer holds the sample as stored (another id, task, label or metadata).
 * A joined answer (`--answers`) is not in the dataset: the text the join kept, with the
 * batch output line it came from, stands in its place.
 * A file modified after the run
 * started is still shown, with a warning: an edited answer cannot be told from the stored
 * rows alone.
 */
export async function readBack(
  path: string | null,
  record: SampleRecord,
  runStartedAt: string,
  options: ReadBackOptions = {},
): Promise<DatasetReadBack> {
  const line = record.line;
  if (path === null) {
    return { path, line, status: "unknown", message: "the run recorded no dataset path" };
  }
  if (path === STDIN_PATH) {
    return {
      path,
      line,
      status: "unknown",
      message:
        "the run read its dataset from standard input, which cannot be read again; the stored " +
        "scores and metadata are below. Pass --dataset <file> with a copy of what was piped in " +
        "to show the question and answer.",
    };
  }
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    return {
      path,
      line,
      status: "missing",
      message:
        `cannot read ${path}: ${info === undefined ? "no such file" : "not a file"}. The path is as ` +
        "given to `assay run`, relative to the folder it ran in; pass --dataset <file> to read another copy.",
    };
  }
  const found = await sampleAtLine(path, record, options);
  if (typeof found === "string") {
    return { path, line, status: "changed", message: `${found}: the file changed after the run` };
  }
  const mismatch = differenceFromStored(found, record, options.answersJoined === true);
  if (mismatch !== undefined) {
    return {
      path,
      line,
      status: "changed",
      message: `line ${line} holds ${record.sampleId}, but its ${mismatch} differs from what was stored: the file changed after the run`,
    };
  }
  const modified = modifiedAfter(info, runStartedAt);
  return {
    path,
    line,
    status: modified ? "modified" : "ok",
    message: modified
      ? `${path} was modified (${info.mtime.toISOString()}) after the run started (${runStartedAt}): the text below may differ from what was scored`
      : null,
    question: found.question,
    ...(options.answersJoined === true
      ? joinedAnswerText(record, options.joinedAnswer)
      : { answer: found.answer }),
    ...(found.target !== undefined && { target: found.target }),
    ...(found.steps !== undefined && { steps: found.steps }),
  };
}

/**
 * The sample on that line, or why the line no longer holds it. The file is read by the
 * readers a run uses (JSONL, CSV, TSV, Parquet, compressed or not), so the line number
 * is the one the run stored: a row's first line, or a Parquet row's place.
 */
async function sampleAtLine(
  path: string,
  record: SampleRecord,
  options: ReadBackOptions,
): Promise<Sample | string> {
  const { line, sampleId } = record;
  // A reference row reads as one sample; the join made its repeats `<id>#<k>`.
  const joined = options.answersJoined === true;
  const isStored = (s: Sample) => s.id === sampleId || (joined && s.taskId === record.taskId);
  let last = 0;
  try {
    const events = readDataset(path, {
      maxLineBytes: MAX_LINE_BYTES,
      checkDuplicateIds: false,
      parseThreads: 0,
      ...(options.fields !== undefined && { fields: options.fields }),
      answersJoined: options.answersJoined === true,
    });
    for await (const event of events) {
      const at = event.kind === "samples" ? event.line : event.error.line;
      last = Math.max(last, at);
      if (at < line) continue;
      if (at > line) break;
      if (event.kind === "error") {
        const { field, reason } = event.error;
        return `line ${line} is no longer a valid sample (${field === "" ? "" : `field \`${field}\`: `}${reason})`;
      }
      const sample = event.samples.find(isStored);
      if (sample !== undefined) return sample;
      return `line ${line} now holds ${event.samples.map((s) => `"${s.id}"`).join(", ")}, not "${sampleId}"`;
    }
  } catch (error) {
    if (error instanceof InputError) return `it cannot be read (${error.reason})`;
    throw error;
  }
  return last < line
    ? `the file has ${last} lines; line ${line} is gone`
    : `line ${line} holds no sample`;
}

/**
 * A joined answer as the run kept it: its text and the batch output line it came from, or
 * why the reply had none. A run joined before answers were kept has only the custom id.
 */
function joinedAnswerText(
  record: SampleRecord,
  joined: JoinedAnswer | undefined,
): Pick<DatasetReadBack, "answer" | "answerNote"> {
  if (joined === undefined) {
    return {
      answerNote:
        `not kept: it was joined from the batch outputs given with --answers, under custom id ` +
        `"${record.taskId}" (after any --answers-id-prefix; "${record.taskId}__s<k>" for a repeat). ` +
        "Look it up in those files; the run does not record their paths.",
    };
  }
  const from = `joined from ${joined.file}, line ${joined.line} (custom id "${joined.customId}")`;
  if (typeof joined.choice === "string") return { answer: joined.choice, answerNote: from };
  const { reason, message } = joined.choice;
  return { answerNote: `no text to score (${reason}: ${message}); ${from}` };
}

function differenceFromStored(
  sample: Sample,
  record: SampleRecord,
  answersJoined: boolean,
): string | undefined {
  if (sample.taskId !== record.taskId) return "task id";
  if (!answersJoined && sample.candidateIndex !== record.candidateIndex) return "candidate index";
  if ((sample.label ?? null) !== record.label) return "label";
  if (!isDeepStrictEqual(sample.metadata, record.metadata)) return "metadata";
  return undefined;
}
