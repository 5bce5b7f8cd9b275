import { describe, expect, it } from "vitest";
import {
  type BatchAnswer,
  costOfUsage,
  PriceTableSchema,
  parseAnswerLine,
} from "../../src/index.js";

// The cost convention for Anthropic prompt caching, by hand: cache reads are the cached
// input (at the cached price), cache writes join the uncached input (at the input price),
// and `cache_write_per_million`, though the table may hold it, charges nothing.

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

describe("an Anthropic answer's cache tokens, priced", () => {
  it("bills cache writes as input and cache reads at the cached price", () => {
    const answer = parseAnswerLine(line, "anthropic-batch") as BatchAnswer;
    if (answer.kind !== "answered") throw new Error(`the line was not answered: ${answer.kind}`);
    const prices = PriceTableSchema.parse({
      models: {
        "claude-x": {
          input_per_million: 3,
          cached_input_per_million: 0.3,
          cache_write_per_million: 3.75,
          output_per_million: 15,
        },
      },
    });
    const cost = costOfUsage(
      [
        {
          role: "generator",
          model: answer.model,
          inputTokens: answer.inputTokens,
          cachedInputTokens: answer.cachedInputTokens,
          outputTokens: answer.outputTokens,
          computeMs: null,
          rows: 1,
        },
      ],
      prices,
      { idle: ["verifier"] },
    );
    // (100 + 40) × 3 + 60 × 0.3 + 10 × 15 = 420 + 18 + 150 = 588 per million tokens.
    expect(cost.generation).toBeCloseTo(588 / 1e6, 15);
    expect(cost.total).toBeCloseTo(588 / 1e6, 15);
  });
});
