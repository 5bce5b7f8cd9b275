import {
  type AnswerFormat,
  type BatchAnswer,
  InputError,
  parseAnswerLine,
  repeatIndexOf,
} from "@assay/core";
import type { StagedAnswer, Store } from "@assay/store";
import { readLines } from "../read-lines.js";
import type { AnswerSources } from "./answer-sources.js";

/** Lines staged per statement. */
const BATCH = 2000;

export interface StagingCounts {
  /** Answer lines staged (answered or failed), the first of each custom id. */
  staged: number;
  /** Requests that errored, were canceled or expired. */
  failed: number;
  /** Lines whose custom id an earlier line gave. */
  duplicates: number;
  /** Lines that are not batch output lines. */
  invalid: number;
  /**
   * One more than the highest sample index a custom id `<id>__s<k>` named (0 when none
   * did): how many repeat ids the join asks for per reference row.
   */
  repeats: number;
}

/**
 * Reads every answer file a line at a time and stages its lines in the store, a batch per
 * statement (COPY for large batches), so memory holds one batch whatever the file's size.
 * Each line is staged, or is an input error naming its file, line and field: a failed
 * request, a duplicate custom id (naming the line that gave it first), or a line that is
 * not a batch output line. What an earlier attempt staged is cleared first.
 */
export async function stageAnswerFiles(
  store: Store,
  runId: string,
  sources: AnswerSources,
  report: (error: InputError) => Promise<void>,
  maxLineBytes: number,
): Promise<StagingCounts> {
  await store.clearStagedAnswers(runId);
  const counts: StagingCounts = { staged: 0, failed: 0, duplicates: 0, invalid: 0, repeats: 0 };
  for (const file of sources.files) {
    await stageFile(store, runId, file, sources.format, maxLineBytes, counts, report);
  }
  return counts;
}

async function stageFile(
  store: Store,
  runId: string,
  file: string,
  format: AnswerFormat,
  maxLineBytes: number,
  counts: StagingCounts,
  report: (error: InputError) => Promise<void>,
): Promise<void> {
  let batch = new Map<string, StagedAnswer>();
  const flush = async (): Promise<void> => {
    const answers = [...batch.values()];
    batch = new Map();
    const duplicates = await store.stageAnswers(runId, answers);
    const duplicated = new Set(duplicates.map(({ answer }) => answer));
    for (const { answer, first } of duplicates) {
      counts.duplicates += 1;
      await report(duplicateError(answer, first));
    }
    for (const answer of answers) {
      if (duplicated.has(answer)) continue;
      counts.staged += 1;
      if (answer.outcome === "answered") continue;
      counts.failed += 1;
      await report(failedError(answer, format));
    }
  };
  let sawLine = false;
  try {
    for await (const raw of readLines(file, { maxLineBytes })) {
      if ("problem" in raw) {
        counts.invalid += 1;
        await report(lineError(file, raw.number, "", `unreadable line (${raw.problem})`));
        continue;
      }
      if (raw.text.trim() === "") continue;
      sawLine = true;
      const parsed = parseAnswerLine(raw.text, format);
      if (parsed.kind === "refused") {
        counts.invalid += 1;
        await report(lineError(file, raw.number, parsed.field, `${parsed.message} (${format})`));
        continue;
      }
      const earlier = batch.get(parsed.customId);
      if (earlier !== undefined) {
        counts.duplicates += 1;
        await report(duplicateError(stagedOf(file, raw.number, parsed), earlier));
        continue;
      }
      batch.set(parsed.customId, stagedOf(file, raw.number, parsed));
      const repeat = repeatIndexOf(parsed.customId);
      if (repeat !== undefined) counts.repeats = Math.max(counts.repeats, repeat + 1);
      if (batch.size >= BATCH) await flush();
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") {
      throw new InputError({
        file,
        line: 0,
        field: "",
        message: "answers file not found; check --answers",
      });
    }
    throw error;
  }
  await flush();
  if (!sawLine) {
    throw new InputError({ file, line: 0, field: "", message: "the answers file is empty" });
  }
}

function stagedOf(file: string, line: number, answer: BatchAnswer): StagedAnswer {
  if (answer.kind === "failed") {
    return {
      customId: answer.customId,
      file,
      line,
      outcome: answer.outcome,
      reason: answer.reason,
      model: null,
      choices: [],
      inputTokens: null,
      cachedInputTokens: null,
      cacheWriteTokens: null,
      cacheWrite1hTokens: null,
      outputTokens: null,
    };
  }
  return {
    customId: answer.customId,
    file,
    line,
    outcome: "answered",
    reason: "",
    model: answer.model,
    choices: answer.choices,
    inputTokens: answer.inputTokens,
    cachedInputTokens: answer.cachedInputTokens,
    cacheWriteTokens: answer.cacheWriteTokens,
    cacheWrite1hTokens: answer.cacheWrite1hTokens,
    outputTokens: answer.outputTokens,
  };
}

function duplicateError(answer: StagedAnswer, first: { file: string; line: number }): InputError {
  const where = first.file === answer.file ? `line ${first.line}` : `${first.file}:${first.line}`;
  return lineError(
    answer.file,
    answer.line,
    "custom_id",
    `duplicate custom_id "${answer.customId}" (first given on ${where}, which is the answer used); remove one`,
  );
}

function failedError(answer: StagedAnswer, format: AnswerFormat): InputError {
  return lineError(
    answer.file,
    answer.line,
    format === "openai-batch" ? "error" : "result.type",
    `request ${answer.customId} ${answer.outcome}: ${answer.reason}; its reference row gets no answer`,
  );
}

function lineError(file: string, line: number, field: string, message: string): InputError {
  return new InputError({ file, line, field, message });
}
