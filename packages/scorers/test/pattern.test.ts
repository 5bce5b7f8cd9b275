import { SpecError } from "@assay/core";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../src/index.js";
import { score, scoreValue } from "./helpers.js";

function argsError(args: Record<string, unknown>): string {
  try {
    defaultRegistry().validate({ name: "pattern", args }, 'rule "r" scorer #1 (pattern)');
  } catch (error) {
    if (error instanceof SpecError) return error.message;
    throw error;
  }
  throw new Error("expected a SpecError");
}

describe("pattern", () => {
  it("compares group 1 with the target when the regex has a group", async () => {
    const args = { regex: "answer is (\\w+)" };
    expect(await scoreValue("pattern", args, "so the answer is Paris.", "paris")).toBe(1);
    expect(await score("pattern", args, "the answer is Rome", "Paris")).toMatchObject({
      value: 0,
      detail: { captured: "Rome" },
    });
  });

  it("compares the whole match when the regex has no group", async () => {
    expect(await scoreValue("pattern", { regex: "\\d+" }, "about 42 apples", "42")).toBe(1);
  });

  it("uses the requested group", async () => {
    const args = { regex: "(\\w+)-(\\w+)", group: 2 };
    expect(await scoreValue("pattern", args, "pair: left-right", "right")).toBe(1);
  });

  it("honours flags", async () => {
    expect(
      await scoreValue("pattern", { regex: "ANSWER: (\\w)", flags: "i" }, "answer: b", "B"),
    ).toBe(1);
    expect(await score("pattern", { regex: "ANSWER: (\\w)" }, "answer: b", "B")).toMatchObject({
      reason: "unparseable",
    });
  });

  it("in compare=match mode scores whether the regex matches, target or not", async () => {
    const args = { regex: "^\\d{4}-\\d{2}-\\d{2}$", compare: "match" };
    expect(await scoreValue("pattern", args, "2024-01-31")).toBe(1);
    expect(await scoreValue("pattern", args, "31/01/2024")).toBe(0);
  });

  it("leaves an answer the regex cannot read unscored, not 0", async () => {
    expect(await score("pattern", { regex: "answer is (\\w+)" }, "no idea", "Paris")).toMatchObject(
      {
        status: "unscored",
        reason: "unparseable",
      },
    );
    expect(await score("pattern", { regex: "(x)?y" }, "y", "x")).toMatchObject({
      reason: "unparseable",
      message: "group 1 took no part in the match",
    });
  });

  it("finishes on catastrophic-backtracking input that hangs a backtracking engine", async () => {
    const answer = `${"a".repeat(30_000)}b`;
    const started = performance.now();
    const result = await score("pattern", { regex: "^(a+)+$", compare: "match" }, answer);
    expect(result).toEqual({ status: "scored", value: 0 });
    // A backtracking engine never finishes on it; linear time takes milliseconds, so the
    // bound stays far above what a busy machine adds.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it("rejects backreferences at spec load, saying why RE2 cannot run them", () => {
    const message = argsError({ regex: "(a)\\1" });
    expect(message).toContain("`args.regex`");
    expect(message).toContain("backreferences");
    expect(message).toContain("linear time");
  });

  it("rejects lookaround, invalid syntax, unsupported flags and missing groups", () => {
    expect(argsError({ regex: "a(?=b)" })).toContain("lookahead and lookbehind are not supported");
    expect(argsError({ regex: "[a-" })).toContain("invalid regex: ");
    expect(argsError({ regex: "a", flags: "g" })).toContain('unsupported flag "g"');
    expect(argsError({ regex: "(a)", group: 2 })).toContain("the regex has 1 group(s)");
    expect(argsError({})).toContain("`args.regex`");
  });
});
