import { stat } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import {
  DatasetLineSchema,
  type DatasetReadBack,
  firstIssue,
  type Sample,
  type SampleRecord,
  samplesFromLine,
} from "@assay/core";
import { readLines } from "@assay/pipeline";

/** A stored sample's line fits in this; it was read under a limit no larger. */
const MAX_LINE_BYTES = 1 << 30;

/**
 * Reads the sample's question and answer back from the dataset at its recorded line, and
 * says plainly when that is not possible: the file is gone, or the line no longer holds
 * the sample as stored (another id, task, label or metadata). A file modified after the run
 * started is still shown, with a warning: an edited answer cannot be told from the stored
 * rows alone.
 */
export async function readBack(
  path: string | null,
  record: SampleRecord,
  runStartedAt: string,
): Promise<DatasetReadBack> {
  const line = record.line;
  if (path === null) {
    return { path, line, status: "unknown", message: "the run recorded no dataset path" };
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
  const found = await sampleAtLine(path, line, record.sampleId);
  if (typeof found === "string") {
    return { path, line, status: "changed", message: `${found}: the file changed after the run` };
  }
  const mismatch = differenceFromStored(found, record);
  if (mismatch !== undefined) {
    return {
      path,
      line,
      status: "changed",
      message: `line ${line} holds ${record.sampleId}, but its ${mismatch} differs from what was stored: the file changed after the run`,
    };
  }
  const modified = info.mtime.getTime() > Date.parse(runStartedAt);
  return {
    path,
    line,
    status: modified ? "modified" : "ok",
    message: modified
      ? `${path} was modified (${info.mtime.toISOString()}) after the run started (${runStartedAt}): the text below may differ from what was scored`
      : null,
    question: found.question,
    answer: found.answer,
    ...(found.target !== undefined && { target: found.target }),
    ...(found.steps !== undefined && { steps: found.steps }),
  };
}

/** The sample on that line, or why the line no longer holds it. */
async function sampleAtLine(
  path: string,
  line: number,
  sampleId: string,
): Promise<Sample | string> {
  let last = 0;
  for await (const raw of readLines(path, { maxLineBytes: MAX_LINE_BYTES })) {
    last = raw.number;
    if (raw.number < line) continue;
    if ("problem" in raw) return `line ${line} cannot be read (${raw.problem})`;
    let json: unknown;
    try {
      json = JSON.parse(raw.text);
    } catch {
      return `line ${line} is no longer valid JSON`;
    }
    const parsed = DatasetLineSchema.safeParse(json);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      return `line ${line} is no longer a valid sample (field \`${issue.field}\`: ${issue.message})`;
    }
    const samples = samplesFromLine(parsed.data, line);
    const sample = samples.find((s) => s.id === sampleId);
    if (sample !== undefined) return sample;
    return `line ${line} now holds ${samples.map((s) => `"${s.id}"`).join(", ")}, not "${sampleId}"`;
  }
  return `the file has ${last} lines; line ${line} is gone`;
}

function differenceFromStored(sample: Sample, record: SampleRecord): string | undefined {
  if (sample.taskId !== record.taskId) return "task id";
  if (sample.candidateIndex !== record.candidateIndex) return "candidate index";
  if ((sample.label ?? null) !== record.label) return "label";
  if (!isDeepStrictEqual(sample.metadata, record.metadata)) return "metadata";
  return undefined;
}
