import { describe, expect, expectTypeOf, it } from "vitest";
import {
  jobResultKey,
  RESULT_KEY_FIELDS,
  type ResultKey,
  type ResultKeyField,
  resultKeyText,
} from "../src/index.js";

describe("the result key", () => {
  // Checked by the type checker: a field added to one and not the other fails the build.
  it("has the fields RESULT_KEY_FIELDS lists", () => {
    expectTypeOf<keyof ResultKey>().toEqualTypeOf<ResultKeyField>();
    expect(Object.keys(jobResultKey("r", "s", "x")).sort()).toEqual([...RESULT_KEY_FIELDS].sort());
  });

  it("is written as its fields in order, joined by NUL", () => {
    const key = { runId: "r", sampleId: "s#1", scorer: "judge", criterion: "c", repetition: 3 };
    expect(resultKeyText(key)).toBe("r\u0000s#1\u0000judge\u0000c\u00003");
  });
});
