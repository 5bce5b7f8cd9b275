import { describe, expect, it } from "vitest";
import { GeneratorUsageSchema } from "../src/index.js";

// A dataset's `generator.cache_write_1h_tokens` is the 1-hour part of its cache writes.

describe("a dataset line's 1-hour cache writes", () => {
  const usage = { model: "claude-x", input_tokens: 100, output_tokens: 10 };

  it("are taken as part of cache_write_tokens", () => {
    const parsed = GeneratorUsageSchema.parse({
      ...usage,
      cache_write_tokens: 40,
      cache_write_1h_tokens: 10,
    });
    expect(parsed).toMatchObject({ cache_write_tokens: 40, cache_write_1h_tokens: 10 });
  });

  it("are refused beyond cache_write_tokens, naming the field", () => {
    const parsed = GeneratorUsageSchema.safeParse({ ...usage, cache_write_1h_tokens: 10 });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["cache_write_1h_tokens"]);
    expect(parsed.error?.issues[0]?.message).toContain("cannot exceed");
  });
});
