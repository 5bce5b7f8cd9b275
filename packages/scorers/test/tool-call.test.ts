import { describe, expect, it } from "vitest";
import { score, scoreValue } from "./helpers.js";

const target = { name: "get_weather", arguments: { city: "Paris", units: { temp: "C" } } };

describe("tool_call", () => {
  it("scores 1 for the same name and a superset of the target arguments", async () => {
    const answer = JSON.stringify({
      name: "get_weather",
      arguments: { units: { temp: "C" }, city: "Paris", days: 3 },
    });
    expect(await scoreValue("tool_call", {}, answer, target)).toBe(1);
  });

  it("accepts OpenAI-style calls with string arguments, lists, and fenced JSON", async () => {
    const call = {
      type: "function",
      function: { name: "get_weather", arguments: JSON.stringify(target.arguments) },
    };
    expect(
      await scoreValue("tool_call", {}, JSON.stringify([call, { name: "other" }]), target),
    ).toBe(1);
    expect(await scoreValue("tool_call", {}, JSON.stringify({ tool_calls: [call] }), target)).toBe(
      1,
    );
    expect(
      await scoreValue(
        "tool_call",
        {},
        `Calling:\n\`\`\`json\n${JSON.stringify(call)}\n\`\`\``,
        target,
      ),
    ).toBe(1);
  });

  it("says which argument differed", async () => {
    const answer = JSON.stringify({
      name: "get_weather",
      arguments: { city: "Lyon", units: { temp: "C" } },
    });
    expect(await score("tool_call", {}, answer, target)).toEqual({
      status: "scored",
      value: 0,
      detail: {
        name: "get_weather",
        argument: "city",
        problem: "different",
        expected: "Paris",
        got: "Lyon",
      },
    });
    const missing = JSON.stringify({ name: "get_weather", arguments: { city: "Paris" } });
    expect(await score("tool_call", {}, missing, target)).toMatchObject({
      value: 0,
      detail: { argument: "units", problem: "missing" },
    });
  });

  it("scores 0 for a different tool name", async () => {
    const answer = JSON.stringify({ name: "get_time", arguments: target.arguments });
    expect(await score("tool_call", {}, answer, target)).toMatchObject({
      value: 0,
      detail: { name: "get_time", expected_name: "get_weather" },
    });
  });

  it("with argument_match=exact, an extra argument is a difference", async () => {
    const answer = JSON.stringify({
      name: "get_weather",
      arguments: { ...target.arguments, days: 3 },
    });
    expect(await score("tool_call", { argument_match: "exact" }, answer, target)).toMatchObject({
      value: 0,
      detail: { argument: "days", problem: "unexpected" },
    });
  });

  it("leaves non-JSON or call-less answers unscored, and flags a bad target", async () => {
    expect(await score("tool_call", {}, "get_weather(Paris)", target)).toMatchObject({
      reason: "unparseable",
    });
    expect(await score("tool_call", {}, '{"tool": "x"}', target)).toMatchObject({
      reason: "unparseable",
    });
    const badArguments = JSON.stringify({ function: { name: "get_weather", arguments: "{city:" } });
    expect(await score("tool_call", {}, badArguments, target)).toMatchObject({
      reason: "unparseable",
    });
    expect(await score("tool_call", {}, "{}", "get_weather")).toMatchObject({
      reason: "invalid_target",
    });
  });
});
