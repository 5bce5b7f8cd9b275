import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { type AnswerJoinCounts, addUnjoined } from "@assay/core";

/** A reference dataset and an OpenAI-shaped batch output for it, with what their join comes to. */
export interface BatchAnswerFiles {
  /** Reference rows (id, question, target, no answer). */
  rows: number;
  /** What `answer_joins` records for a complete join of the two files. */
  counts: AnswerJoinCounts;
  /** Input errors a complete join stores: one per row or answer line that did not join. */
  inputErrors: number;
}

// Which rows get what, by row number: every outcome the join counts occurs many times.
const noAnswerLine = (i: number) => i % 97 === 1;
const requestErrored = (i: number) => !noAnswerLine(i) && i % 89 === 2;
const answeredTwice = (i: number) => !noAnswerLine(i) && !requestErrored(i) && i % 1000 === 3;
/** Answer lines naming no reference row, one per this many rows. */
const UNMATCHED_EVERY = 500;

/**
 * Writes `rows` reference rows to `reference` and their batch output to `answers`, a line
 * at a time (the files are large enough that a join takes a while to stage and fill). The
 * answers come in reverse row order, as a batch job returns them in its own order; every
 * tenth answered row is answered wrongly, so scores are not all equal.
 */
export async function writeBatchAnswerFiles(
  reference: string,
  answers: string,
  rows: number,
): Promise<BatchAnswerFiles> {
  const counts: AnswerJoinCounts = {
    joined: 0,
    missingAnswers: 0,
    unmatchedAnswers: 0,
    failedRequests: 0,
    duplicateAnswers: 0,
    retriedFailures: 0,
    unjoined: [],
  };
  // What each answer line is billed (see answerLine), counted when it joins no row.
  const billed = () =>
    addUnjoined(counts.unjoined, {
      model: "gpt-x",
      inputTokens: 16,
      cachedInputTokens: 4,
      cacheWriteTokens: 0,
      outputTokens: 5,
    });
  await writeLines(reference, function* () {
    for (let i = 0; i < rows; i += 1) {
      yield JSON.stringify({ id: `r${i}`, question: `question ${i}?`, target: `answer ${i}` });
    }
  });
  await writeLines(answers, function* () {
    for (let i = rows - 1; i >= 0; i -= 1) {
      if (noAnswerLine(i)) {
        counts.missingAnswers += 1;
      } else if (requestErrored(i)) {
        counts.failedRequests += 1;
        counts.missingAnswers += 1;
        yield erroredLine(`r${i}`);
      } else {
        counts.joined += 1;
        yield answerLine(`r${i}`, i % 10 === 0 ? "no idea" : `answer ${i}`);
        if (answeredTwice(i)) {
          counts.duplicateAnswers += 1;
          billed();
          yield answerLine(`r${i}`, "a later answer, which the join ignores");
        }
      }
      if (i % UNMATCHED_EVERY === 0) {
        counts.unmatchedAnswers += 1;
        billed();
        yield answerLine(`gone-${i}`, "an answer to a row the reference no longer has");
      }
    }
  });
  const inputErrors =
    counts.missingAnswers +
    counts.failedRequests +
    counts.unmatchedAnswers +
    counts.duplicateAnswers;
  return { rows, counts, inputErrors };
}

function answerLine(customId: string, content: string): string {
  return JSON.stringify({
    custom_id: customId,
    response: {
      status_code: 200,
      body: {
        model: "gpt-x",
        choices: [{ index: 0, message: { role: "assistant", content } }],
        usage: {
          prompt_tokens: 20,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 4 },
        },
      },
    },
    error: null,
  });
}

function erroredLine(customId: string): string {
  return JSON.stringify({
    custom_id: customId,
    response: null,
    error: { code: "server_error", message: "The server had an error" },
  });
}

async function writeLines(path: string, lines: () => Generator<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines()) {
    if (!out.write(`${line}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
