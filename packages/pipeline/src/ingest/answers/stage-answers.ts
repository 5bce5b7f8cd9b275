import {
  type AnswerFormat,
  addUnjoined,
  type BatchAnswer,
  InputError,
  parseAnswerLine,
  repeatIndexOf,
  type UnjoinedUsage,
} from "@assay/core";
import type { StagedAnswer, Store } from "@assay/store";
import { readLines } from "../read-lines.js";
import type { AnswerSources } from "./answer-sources.js";

/** Lines staged per statement. */
const BATCH = 2000;
/** Staged failures reported per page, once every file is staged. */
const FAILURE_PAGE = 2000;

export interface StagingCounts {
  /** Requests that errored, were canceled or expired, and that no line answered. */
  failed: number;
  /** Answered lines whose custom id an earlier answered line gave. */
  duplicates: number;
  /** Failed lines set aside for another line of their custom id (see `resolveRepeat`). */
  retried: number;
  /** Tokens of the duplicate lines: billed, never joined. */
  duplicateUsage: UnjoinedUsage[];
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
 * Each line is staged, set aside as a retried failure, or is an input error naming its
 * file, line and field: a duplicate custom id (naming the line that gave it first), or a
 * line that is not a batch output line. Failed requests are reported once every file is
 * staged, since a retry in a later file may answer them. What an earlier attempt staged is
 * cleared first.
 */
export async function stageAnswerFiles(
  store: Store,
  runId: string,
  sources: AnswerSources,
  report: (error: InputError) => Promise<void>,
  maxLineBytes: number,
): Promise<StagingCounts> {
  await store.clearStagedAnswers(runId);
  const counts: StagingCounts = {
    failed: 0,
    duplicates: 0,
    retried: 0,
    duplicateUsage: [],
    invalid: 0,
    repeats: 0,
  };
  for (const file of sources.files) {
    await stageFile(store, runId, file, sources.format, maxLineBytes, counts, report);
  }
  let after = "";
  for (;;) {
    const page = await store.stagedFailures(runId, after, FAILURE_PAGE);
    for (const failure of page) {
      counts.failed += 1;
      await report(failedError(failure, sources.format));
    }
    if (page.length < FAILURE_PAGE) break;
    after = (page[page.length - 1] as StagedAnswer).customId;
  }
  return counts;
}

/**
 * Of two lines of one custom id, which is staged: an answer over a failure (a retry wins,
 * in whichever order the files came), else the earlier line. The other is a retried
 * failure, or, when both answered, a duplicate.
 */
export function resolveRepeat(
  earlier: StagedAnswer,
  later: StagedAnswer,
): { kept: StagedAnswer; setAside: StagedAnswer; duplicate: boolean } {
  if (earlier.outcome !== "answered" && later.outcome === "answered") {
    return { kept: later, setAside: earlier, duplicate: false };
  }
  const duplicate = earlier.outcome === "answered" && later.outcome === "answered";
  return { kept: earlier, setAside: later, duplicate };
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
    const staged = await store.stageAnswers(runId, answers);
    counts.retried += staged.retried;
    for (const { answer, first } of staged.duplicates) {
      await duplicated(answer, first);
    }
  };
  const duplicated = async (answer: StagedAnswer, first: { file: string; line: number }) => {
    counts.duplicates += 1;
    addUnjoined(counts.duplicateUsage, billedOf(answer));
    await report(duplicateError(answer, first));
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
      const line = stagedOf(file, raw.number, parsed);
      const earlier = batch.get(parsed.customId);
      if (earlier !== undefined) {
        const { kept, setAside, duplicate } = resolveRepeat(earlier, line);
        batch.set(parsed.customId, kept);
        if (duplicate) await duplicated(setAside, earlier);
        else counts.retried += 1;
        continue;
      }
      batch.set(parsed.customId, line);
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

/** What an answered line was billed, in the store's usage convention. */
export function billedOf(answer: StagedAnswer): Omit<UnjoinedUsage, "lines"> {
  return {
    model: answer.model ?? "",
    inputTokens: answer.inputTokens ?? 0,
    cachedInputTokens: answer.cachedInputTokens ?? 0,
    cacheWriteTokens: answer.cacheWriteTokens ?? 0,
    cacheWrite1hTokens: answer.cacheWrite1hTokens ?? 0,
    outputTokens: answer.outputTokens ?? 0,
  };
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
