import type { AnswerJoinCounts } from "@assay/core";
import { describe, expect, it } from "vitest";
import { answerJoinLine } from "../src/answer-join-line.js";

// What `assay run` and `assay report` print of an answer join: the counts, then the tokens
// billed for lines that joined no row, and their cost when the report was given prices.

const COUNTS: AnswerJoinCounts = {
  joined: 3,
  missingAnswers: 0,
  unmatchedAnswers: 1,
  failedRequests: 0,
  duplicateAnswers: 1,
  retriedFailures: 2,
  unjoined: [
    {
      model: "claude-x",
      lines: 1,
      inputTokens: 100,
      cachedInputTokens: 0,
      cacheWriteTokens: 10,
      outputTokens: 50,
    },
    {
      model: "gpt-x",
      lines: 1,
      inputTokens: 7,
      cachedInputTokens: 3,
      cacheWriteTokens: 0,
      outputTokens: 7,
    },
  ],
};

describe("the answer join line", () => {
  it("counts retried failures and tells the billed tokens that joined no row, by model", () => {
    const [counts, billed] = answerJoinLine(COUNTS).split("\n");
    expect(counts).toContain("duplicate custom ids: 1; retried failures: 2");
    expect(billed).toBe(
      "Billed but not joined: 2 answer lines (claude-x: 1, gpt-x: 1), " +
        "107 input, 3 cached input, 10 cache-write, 57 output tokens",
    );
  });

  it("says how many of the cache writes were 1-hour ones, priced apart", () => {
    const [claude, gpt] = COUNTS.unjoined;
    const counts = { ...COUNTS, unjoined: [{ ...claude, cacheWrite1hTokens: 4 }, gpt] };
    expect(answerJoinLine(counts as AnswerJoinCounts)).toContain(
      "107 input, 3 cached input, 10 cache-write (4 of them 1-hour), 57 output tokens",
    );
  });

  it("adds their cost at the report's prices, or says it is unknown", () => {
    const priced = answerJoinLine({ ...COUNTS, unjoinedCost: { amount: 0.0012, currency: "USD" } });
    expect(priced).toMatch(/57 output tokens; cost 0\.001200 USD$/);
    const unknown = answerJoinLine({ ...COUNTS, unjoinedCost: { amount: null, currency: "USD" } });
    expect(unknown).toMatch(/; cost unknown$/);
  });

  it("prints no billed line when every billed line joined", () => {
    const line = answerJoinLine({
      ...COUNTS,
      unmatchedAnswers: 0,
      duplicateAnswers: 0,
      unjoined: [],
    });
    expect(line).not.toContain("\n");
    expect(line).toMatch(/^Answers joined: 3;/);
  });
});
