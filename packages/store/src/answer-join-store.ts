import type { AnswerJoinCounts } from "@assay/core";
import type { AnswerJoinLock } from "./queries/answer-join-lock.js";
import type { StagedAnswer, StagingOutcome } from "./queries/answer-staging.js";
import type { JoinedAnswer } from "./queries/joined-answer.js";

/** What joining batch-output answers to a reference dataset keeps in the store. */
export interface AnswerJoinStore {
  /**
   * Takes the run's answer-join lock, or refuses at once with a `RunInUseError`: a second
   * process staging the same run's answers would clear the first one's under it.
   */
  lockAnswerJoin(runId: string): Promise<AnswerJoinLock>;
  /** Forgets what an earlier attempt staged: each attempt joins the files it is given. */
  clearStagedAnswers(runId: string): Promise<void>;
  /**
   * Stages answers whose custom ids are distinct within the call. Against a custom id staged
   * before, an answer replaces a staged failure, a failure is set aside (both counted as
   * retried), and an answer to an answered id comes back as a duplicate naming that line.
   */
  stageAnswers(runId: string, answers: readonly StagedAnswer[]): Promise<StagingOutcome>;
  /** The staged answers for these custom ids, marked as taken by a reference row. */
  takeStagedAnswers(
    runId: string,
    customIds: readonly string[],
  ): Promise<Map<string, StagedAnswer>>;
  /** Staged failures (no line answered them), a page in custom id order after `after`. */
  stagedFailures(runId: string, after: string, limit: number): Promise<StagedAnswer[]>;
  /** Answered lines no reference row took, a page in custom id order after `after`. */
  unmatchedAnswers(runId: string, after: string, limit: number): Promise<StagedAnswer[]>;
  /** What the run's answer join came to; undefined for a run whose answers were not joined. */
  answerJoinCounts(runId: string): Promise<AnswerJoinCounts | undefined>;
  /**
   * Records what a complete join came to and the id prefix it read custom ids with, and
   * clears the staged lines no reference row took (the taken ones stay for `assay show`).
   */
  writeAnswerJoin(runId: string, counts: AnswerJoinCounts, idPrefix: string): Promise<void>;
  /** Where a joined candidate's answer came from; undefined when the run did not keep it. */
  joinedAnswer(
    runId: string,
    taskId: string,
    candidateIndex: number,
  ): Promise<JoinedAnswer | undefined>;
}
