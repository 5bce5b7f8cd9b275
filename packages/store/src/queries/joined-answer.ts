import { type AnswerChoice, repeatChoice } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";

/** The batch output line a joined candidate's answer came from, and the choice it took. */
export interface JoinedAnswer {
  customId: string;
  /** The answers file and its 1-based line, as the join read them. */
  file: string;
  line: number;
  /** Its text, or why the reply had none (stored unscored with that reason). */
  choice: AnswerChoice;
}

/**
 * Where a joined candidate's answer came from, read from the answers the join kept
 * (`answer_staging`: the answered lines a reference row took stay until the run is
 * pruned). The custom id is the run's recorded `--answers-id-prefix` plus the task id: a
 * line with several choices gave candidate n its choice n; a task answered by repeat
 * requests (`<id>__s<k>`) gave its n-th answered repeat, in k order, to candidate n.
 * Undefined when the run kept neither (a join recorded before they were kept).
 */
export async function joinedAnswer(
  runner: SqlRunner,
  runId: string,
  taskId: string,
  candidateIndex: number,
): Promise<JoinedAnswer | undefined> {
  const { rows: joins } = await runner.query<{ id_prefix: string | null }>(
    "SELECT id_prefix FROM answer_joins WHERE run_id = $1",
    [runId],
  );
  const prefix = joins[0]?.id_prefix;
  if (prefix === null || prefix === undefined) return undefined;
  const customId = prefix + taskId;
  const { rows } = await runner.query<StagedLine>(
    `SELECT custom_id, file, line, choices FROM answer_staging
     WHERE run_id = $1 AND matched AND outcome = 'answered'
       AND (custom_id = $2 OR (left(custom_id, length($2) + 3) = $2 || '__s'
                               AND substr(custom_id, length($2) + 4) ~ '^[0-9]+$'))
     ORDER BY custom_id = $2 DESC, length(custom_id), custom_id`,
    [runId, customId],
  );
  const own = rows[0];
  if (own === undefined) return undefined;
  if (own.custom_id === customId) {
    const choices = choicesOf(own);
    return lineOf(own, choices.length === 1 ? choices[0] : choices[candidateIndex]);
  }
  // Repeats: `__s2` before `__s10` (length, then text, orders the numbers).
  const repeat = rows[candidateIndex];
  return repeat === undefined ? undefined : lineOf(repeat, repeatChoice(choicesOf(repeat)));
}

interface StagedLine {
  custom_id: string;
  file: string;
  line: unknown;
  choices: unknown;
}

function choicesOf(row: StagedLine): AnswerChoice[] {
  return (
    typeof row.choices === "string" ? JSON.parse(row.choices) : row.choices
  ) as AnswerChoice[];
}

function lineOf(row: StagedLine, choice: AnswerChoice | undefined): JoinedAnswer | undefined {
  if (choice === undefined) return undefined;
  return { customId: row.custom_id, file: row.file, line: Number(row.line), choice };
}
