import {
  type AnswerChoice,
  type AnswerJoinCounts,
  addUnjoined,
  type GeneratorUsage,
  type GeneratorUsageSpec,
  InputError,
  type InputErrorSummary,
  repeatChoice,
  repeatCustomId,
  type Sample,
} from "@assay/core";
import type { StagedAnswer, Store } from "@assay/store";
import type { AnswerSources } from "./answer-sources.js";
import { billedOf, stageAnswerFiles } from "./stage-answers.js";

/**
 * Joined usage is already in the store's convention (uncached input apart from cached), so
 * it is planned as a dataset that says so, whatever the spec says of its own datasets.
 */
export const JOINED_USAGE: GeneratorUsageSpec = { input_tokens: "excludes_cached" };

/** Records an input error into a list; `produce`'s recorder, which also counts it. */
export type ErrorRecorder = (error: InputError, into: InputErrorSummary[]) => void;

const ERRORS_PER_WRITE = 500;
const UNMATCHED_PAGE = 2000;

/**
 * Joins answers from batch outputs to a reference dataset on custom id = prefix + id:
 * `start` stages the answer files in the store; `fill` gives each chunk of reference rows
 * its answers with one query; `finish` lists the answers no row took and records the
 * counts. Neither file is ever held whole in memory.
 */
export class AnswerJoin {
  readonly #store: Store;
  readonly #runId: string;
  readonly #prefix: string;
  readonly #record: ErrorRecorder;
  readonly #pending: InputErrorSummary[] = [];
  readonly #counts: AnswerJoinCounts;
  /** Sample indexes `<id>__s<k>` to look for, k < repeats (see `StagingCounts.repeats`). */
  #repeats = 0;

  private constructor(
    store: Store,
    runId: string,
    sources: AnswerSources,
    record: ErrorRecorder,
    counts: AnswerJoinCounts,
  ) {
    this.#store = store;
    this.#runId = runId;
    this.#prefix = sources.idPrefix ?? "";
    this.#record = record;
    this.#counts = counts;
  }

  /** Stages every answer file; their bad lines are stored as input errors. */
  static async start(
    store: Store,
    runId: string,
    sources: AnswerSources,
    record: ErrorRecorder,
    maxLineBytes: number,
  ): Promise<AnswerJoin> {
    const counts: AnswerJoinCounts = {
      joined: 0,
      missingAnswers: 0,
      unmatchedAnswers: 0,
      failedRequests: 0,
      duplicateAnswers: 0,
      retriedFailures: 0,
      unjoined: [],
    };
    const join = new AnswerJoin(store, runId, sources, record, counts);
    const staged = await stageAnswerFiles(
      store,
      runId,
      sources,
      (error) => join.#report(error),
      maxLineBytes,
    );
    join.#repeats = staged.repeats;
    counts.failedRequests = staged.failed;
    counts.duplicateAnswers = staged.duplicates;
    counts.retriedFailures = staged.retried;
    counts.unjoined = staged.duplicateUsage;
    await join.#flushErrors();
    return join;
  }

  /**
   * Gives each reference line (one answer-less sample each) its answer: one sample, or one
   * per choice when the response has several (`<id>#<n>`, as a candidates line). A row with
   * no line of its own custom id takes its repeats `<id>__s<k>` instead, one candidate per
   * answered request. A row with no answer, or whose request failed, is reported to
   * `missing` and left out.
   */
  async fill(lines: readonly Sample[][], file: string, missing: InputErrorSummary[]) {
    const ids = lines.map((samples) => this.#prefix + (samples[0] as Sample).id);
    const answers = await this.#store.takeStagedAnswers(this.#runId, ids);
    const repeats = await this.#takeRepeats(ids.filter((id) => !answers.has(id)));
    const joined: Sample[][] = [];
    for (const samples of lines) {
      const reference = samples[0] as Sample;
      const customId = this.#prefix + reference.id;
      const answer = answers.get(customId);
      if (answer?.outcome === "answered") {
        this.#counts.joined += 1;
        joined.push(samplesOfAnswer(reference, answer));
        continue;
      }
      const sampled = answer === undefined ? this.#repeatsOf(customId, repeats) : [];
      const answered = sampled.filter((repeat) => repeat.outcome === "answered");
      if (answered.length > 0) {
        this.#counts.joined += 1;
        joined.push(samplesOfRepeats(reference, answered));
        continue;
      }
      this.#counts.missingAnswers += 1;
      this.#record(missingError(file, reference, customId, answer ?? sampled[0]), missing);
    }
    return joined;
  }

  /** The staged repeats of these custom ids, taken in one statement; none when none was staged. */
  async #takeRepeats(customIds: readonly string[]): Promise<Map<string, StagedAnswer>> {
    if (this.#repeats === 0 || customIds.length === 0) return new Map();
    const ids = customIds.flatMap((id) =>
      Array.from({ length: this.#repeats }, (_, sample) => repeatCustomId(id, sample)),
    );
    return this.#store.takeStagedAnswers(this.#runId, ids);
  }

  #repeatsOf(customId: string, repeats: Map<string, StagedAnswer>): StagedAnswer[] {
    const found: StagedAnswer[] = [];
    for (let sample = 0; sample < this.#repeats; sample += 1) {
      const repeat = repeats.get(repeatCustomId(customId, sample));
      if (repeat !== undefined) found.push(repeat);
    }
    return found;
  }

  /** Reports the answers no reference row took and records what the join came to. */
  async finish(): Promise<AnswerJoinCounts> {
    let after = "";
    for (;;) {
      const page = await this.#store.unmatchedAnswers(this.#runId, after, UNMATCHED_PAGE);
      for (const answer of page) {
        this.#counts.unmatchedAnswers += 1;
        addUnjoined(this.#counts.unjoined, billedOf(answer));
        await this.#report(unmatchedError(answer, this.#prefix, this.#counts.joined === 0));
      }
      if (page.length < UNMATCHED_PAGE) break;
      after = (page[page.length - 1] as StagedAnswer).customId;
    }
    await this.#flushErrors();
    await this.#store.writeAnswerJoin(this.#runId, this.#counts, this.#prefix);
    return { ...this.#counts, unjoined: this.#counts.unjoined.map((usage) => ({ ...usage })) };
  }

  async #report(error: InputError): Promise<void> {
    this.#record(error, this.#pending);
    if (this.#pending.length >= ERRORS_PER_WRITE) await this.#flushErrors();
  }

  async #flushErrors(): Promise<void> {
    if (this.#pending.length === 0) return;
    await this.#store.insertInputErrors(this.#runId, this.#pending.splice(0));
  }
}

function usageOf(answer: StagedAnswer): GeneratorUsage {
  return {
    model: answer.model ?? "",
    input_tokens: answer.inputTokens ?? 0,
    output_tokens: answer.outputTokens ?? 0,
    cached_input_tokens: answer.cachedInputTokens ?? 0,
    cache_write_tokens: answer.cacheWriteTokens ?? 0,
    cache_write_1h_tokens: answer.cacheWrite1hTokens ?? 0,
  };
}

function samplesOfAnswer(reference: Sample, answer: StagedAnswer): Sample[] {
  const usage = usageOf(answer);
  if (answer.choices.length === 1) {
    return [{ ...reference, ...answerOf(answer.choices[0] as AnswerChoice), generator: usage }];
  }
  // One request produced every choice: its tokens are counted once, on the first
  // candidate; the others name the model with no tokens, so cost adds up exactly.
  const unbilled: GeneratorUsage = { model: usage.model, input_tokens: 0, output_tokens: 0 };
  return answer.choices.map((choice, index) => ({
    ...reference,
    id: `${reference.id}#${index}`,
    candidateIndex: index,
    ...answerOf(choice),
    label: undefined,
    generator: index === 0 ? usage : unbilled,
  }));
}

/**
 * One candidate per answered repeat request, numbered in sample order; each request was
 * billed on its own, so each candidate carries its own usage.
 */
function samplesOfRepeats(reference: Sample, answers: readonly StagedAnswer[]): Sample[] {
  return answers.map((answer, index) => ({
    ...reference,
    id: `${reference.id}#${index}`,
    candidateIndex: index,
    ...answerOf(repeatChoice(answer.choices)),
    label: undefined,
    generator: usageOf(answer),
  }));
}

/** A choice as a sample's answer: its text, or "" with why it has none (scored unscored). */
function answerOf(choice: AnswerChoice): Pick<Sample, "answer" | "unanswered"> {
  return typeof choice === "string" ? { answer: choice } : { answer: "", unanswered: choice };
}

function missingError(
  file: string,
  reference: Sample,
  customId: string,
  answer: StagedAnswer | undefined,
): InputError {
  const message =
    answer === undefined
      ? `missing answer: no answer line has custom_id "${customId}"`
      : `missing answer: the request with custom_id "${answer.customId}" ${answer.outcome} (${answer.file}:${answer.line}): ${answer.reason}`;
  return new InputError({ file, line: reference.line, field: "id", message });
}

/**
 * `noneJoined`: no answer matched any row, which is most often custom ids written as a
 * prefix plus the row's id (`request-12` for row `12`) without `--answers-id-prefix`.
 */
function unmatchedError(answer: StagedAnswer, prefix: string, noneJoined: boolean): InputError {
  const hint =
    prefix === ""
      ? noneJoined
        ? "no reference row has this id, and no answer matched any row: if the custom ids are a prefix plus the row's id (request-12 for row 12), pass that prefix with --answers-id-prefix"
        : "no reference row has this id"
      : `no reference row has the id this names with --answers-id-prefix "${prefix}"${noneJoined ? ", and no answer matched any row: check the prefix" : ""}`;
  return new InputError({
    file: answer.file,
    line: answer.line,
    field: "custom_id",
    message: `unmatched answer "${answer.customId}": ${hint}`,
  });
}
