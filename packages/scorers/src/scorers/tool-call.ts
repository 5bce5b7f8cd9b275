import { scored, unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { deepEqual, isPlainObject } from "../json/deep-equal.js";
import { extractJson } from "../text/extract-json.js";

const ToolCallArgs = z.strictObject({
  /**
   * "subset": every target argument is present in the answer with a deep-equal value
   * (extra answer arguments are fine). "exact": the argument objects are deep-equal.
   * Default "subset".
   */
  argument_match: z.enum(["subset", "exact"]).default("subset"),
});

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export const toolCall = defineScorer({
  name: "tool_call",
  pool: "cpu",
  description: "The answer's tool call has the target's name and (a superset of) its arguments",
  args: ToolCallArgs,
  create(args) {
    return (sample) => {
      const expected = readToolCall(sample.target);
      if (typeof expected === "string") return unscored("invalid_target", `target: ${expected}`);
      const parsed = extractJson(sample.answer, "fenced");
      if (!parsed.ok) return unscored("unparseable", parsed.message);
      const actual = readToolCall(parsed.value);
      if (typeof actual === "string") return unscored("unparseable", `answer: ${actual}`);
      if (actual.name !== expected.name) {
        return scored(0, { name: actual.name, expected_name: expected.name });
      }
      const difference = argumentDifference(
        expected.arguments,
        actual.arguments,
        args.argument_match,
      );
      return difference === undefined
        ? scored(1, { name: actual.name })
        : scored(0, { name: actual.name, ...difference });
    };
  },
});

/**
 * Accepts `{name, arguments}`, OpenAI's `{function: {name, arguments}}` (arguments may be a
 * JSON string), a list of either and a message's `{tool_calls: [...]}`, taking the first
 * call. Returns why when it cannot.
 */
function readToolCall(value: unknown): ToolCall | string {
  if (isPlainObject(value) && Array.isArray(value.tool_calls))
    return readToolCall(value.tool_calls);
  const first = Array.isArray(value) ? value[0] : value;
  if (!isPlainObject(first)) return "expected a tool call object {name, arguments}";
  const call = isPlainObject(first.function) ? first.function : first;
  if (typeof call.name !== "string" || call.name === "") return "the tool call has no `name`";
  const rawArguments =
    typeof call.arguments === "string" ? parseArguments(call.arguments) : (call.arguments ?? {});
  if (!isPlainObject(rawArguments))
    return "`arguments` must be an object (or a JSON string of one)";
  return { name: call.name, arguments: rawArguments };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first argument that differs, for the score's detail; undefined when they agree. */
function argumentDifference(
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  mode: "subset" | "exact",
): Record<string, unknown> | undefined {
  for (const [key, value] of Object.entries(expected)) {
    if (!Object.hasOwn(actual, key)) return { argument: key, problem: "missing", expected: value };
    if (!deepEqual(actual[key], value)) {
      return { argument: key, problem: "different", expected: value, got: actual[key] };
    }
  }
  if (mode === "exact") {
    const extra = Object.keys(actual).find((key) => !Object.hasOwn(expected, key));
    if (extra !== undefined) return { argument: extra, problem: "unexpected", got: actual[extra] };
  }
  return undefined;
}
