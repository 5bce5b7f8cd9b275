import { describe, expect, it } from "vitest";
import {
  type BatchAnswer,
  costOfUsage,
  type PriceTableInput,
  PriceTableSchema,
  parseAnswerLine,
} from "../../src/index.js";

// The cost convention for Anthropic prompt caching, by hand: `input_tokens` are the
// uncached input, cache reads are the cached input (at the cached price) and cache writes
// are counted apart, at `cache_write_per_million` when the table has it, else at the
// input price.

const line = JSON.stringify({
  custom_id: "q1",
  result: {
    type: "succeeded",
    message: {
      model: "claude-x",
      content: [{ type: "text", text: "Paris" }],
      usage: {
        input_tokens: 100,
        cache_creation_input_tokens: 40,
        cache_read_input_tokens: 60,
        output_tokens: 10,
      },
    },
  },
});

function answered(): Extract<BatchAnswer, { kind: "answered" }> {
  const answer = parseAnswerLine(line, "anthropic-batch") as BatchAnswer;
  if (answer.kind !== "answered") throw new Error(`the line was not answered: ${answer.kind}`);
  return answer;
}

function generationCost(price: PriceTableInput["models"][string]): number | null {
  const answer = answered();
  const cost = costOfUsage(
    [
      {
        role: "generator",
        model: answer.model,
        inputTokens: answer.inputTokens,
        cachedInputTokens: answer.cachedInputTokens,
        cacheWriteTokens: answer.cacheWriteTokens,
        outputTokens: answer.outputTokens,
        computeMs: null,
        rows: 1,
      },
    ],
    PriceTableSchema.parse({ models: { "claude-x": price } }),
    { idle: ["verifier"] },
  );
  expect(cost.total).toBe(cost.generation);
  return cost.generation;
}

describe("an Anthropic answer's cache tokens, priced", () => {
  it("keeps the three kinds of input apart", () => {
    const answer = answered();
    expect([answer.inputTokens, answer.cachedInputTokens, answer.cacheWriteTokens]).toEqual([
      100, 60, 40,
    ]);
  });

  it("bills cache writes at the cache-write price and cache reads at the cached price", () => {
    const cost = generationCost({
      input_per_million: 3,
      cached_input_per_million: 0.3,
      cache_write_per_million: 3.75,
      output_per_million: 15,
    });
    // 100 × 3 + 40 × 3.75 + 60 × 0.3 + 10 × 15 = 300 + 150 + 18 + 150 = 618 per million tokens.
    expect(cost).toBeCloseTo(618 / 1e6, 15);
  });

  it("bills cache writes at the input price when the table has no cache-write price", () => {
    const cost = generationCost({
      input_per_million: 3,
      cached_input_per_million: 0.3,
      output_per_million: 15,
    });
    // (100 + 40) × 3 + 60 × 0.3 + 10 × 15 = 420 + 18 + 150 = 588 per million tokens.
    expect(cost).toBeCloseTo(588 / 1e6, 15);
  });
});

// Anthropic splits cache writes by lifetime in `usage.cache_creation`: 1-hour writes cost
// more than 5-minute ones, so each is priced at its own rate.
function lineWith(usage: Record<string, unknown>): string {
  return JSON.stringify({
    custom_id: "q1",
    result: {
      type: "succeeded",
      message: { model: "claude-x", content: [{ type: "text", text: "Paris" }], usage },
    },
  });
}

const CLAUDE_PRICE = {
  input_per_million: 3,
  cached_input_per_million: 0.3,
  cache_write_per_million: 3.75,
  cache_write_1h_per_million: 6,
  output_per_million: 15,
};

function costOfLine(text: string, price: PriceTableInput["models"][string]): number | null {
  const answer = parseAnswerLine(text, "anthropic-batch") as BatchAnswer;
  if (answer.kind !== "answered") throw new Error(`the line was not answered: ${answer.kind}`);
  return costOfUsage(
    [
      {
        role: "generator",
        model: answer.model,
        inputTokens: answer.inputTokens,
        cachedInputTokens: answer.cachedInputTokens,
        cacheWriteTokens: answer.cacheWriteTokens,
        cacheWrite1hTokens: answer.cacheWrite1hTokens,
        outputTokens: answer.outputTokens,
        computeMs: null,
        rows: 1,
      },
    ],
    PriceTableSchema.parse({ models: { "claude-x": price } }),
    { idle: ["verifier"] },
  ).generation;
}

describe("an Anthropic answer's 1-hour cache writes, priced", () => {
  const split = {
    input_tokens: 100,
    cache_read_input_tokens: 60,
    cache_creation_input_tokens: 40,
    cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 10 },
    output_tokens: 10,
  };

  it("bills 5-minute writes at the cache-write price and 1-hour writes at their own", () => {
    // 100 × 3 + 60 × 0.3 + 30 × 3.75 + 10 × 6 + 10 × 15
    //   = 300 + 18 + 112.5 + 60 + 150 = 640.5 per million tokens.
    expect(costOfLine(lineWith(split), CLAUDE_PRICE)).toBeCloseTo(640.5 / 1e6, 15);
  });

  it("bills every write at the 5-minute price when only the total is given", () => {
    const { cache_creation: _split, ...total } = split;
    // 100 × 3 + 60 × 0.3 + 40 × 3.75 + 10 × 15 = 300 + 18 + 150 + 150 = 618 per million.
    expect(costOfLine(lineWith(total), CLAUDE_PRICE)).toBeCloseTo(618 / 1e6, 15);
  });

  it("bills 1-hour writes at the cache-write price when the table has no 1-hour price", () => {
    const { cache_write_1h_per_million: _hour, ...price } = CLAUDE_PRICE;
    expect(costOfLine(lineWith(split), price)).toBeCloseTo(618 / 1e6, 15);
  });

  it("takes the total from the split when the line gives only the split", () => {
    const { cache_creation_input_tokens: _total, ...onlySplit } = split;
    expect(costOfLine(lineWith(onlySplit), CLAUDE_PRICE)).toBeCloseTo(640.5 / 1e6, 15);
  });

  it("refuses a line whose 1-hour writes exceed its cache writes, naming the field", () => {
    const answer = parseAnswerLine(
      lineWith({ ...split, cache_creation_input_tokens: 5 }),
      "anthropic-batch",
    );
    expect(answer).toMatchObject({
      kind: "refused",
      field: "result.message.usage.cache_creation.ephemeral_1h_input_tokens",
    });
  });
});
