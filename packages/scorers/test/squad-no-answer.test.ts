import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeSquad } from "../src/index.js";
import { score } from "./helpers.js";
import { squadText } from "./support/squad-arbitraries.js";

// SQuAD 2.0 marks an unanswerable question with an empty answer list; its official
// script then takes "" as the only gold answer.
describe("exact and f1 on SQuAD 2.0's empty answer list", () => {
  it("give 1 to no answer and 0 to any answer", async () => {
    for (const name of ["exact", "f1"]) {
      for (const target of [[], ["", " "]]) {
        expect(await score(name, {}, "", target), name).toEqual({
          status: "scored",
          value: 1,
          detail: { no_answer: true },
        });
        // Nothing left after normalization is no answer too ("The." is an article and a dot).
        expect(await score(name, {}, "The.", target), name).toMatchObject({ value: 1 });
        expect(await score(name, {}, "Paris", target), name).toMatchObject({ value: 0 });
      }
    }
  });

  it("for every answer: 1 exactly when it normalizes to nothing", async () => {
    await fc.assert(
      fc.asyncProperty(squadText, async (answer) => {
        const expected = normalizeSquad(answer) === "" ? 1 : 0;
        expect(await score("exact", {}, answer, [])).toMatchObject({ value: expected });
        expect(await score("f1", {}, answer, [])).toMatchObject({ value: expected });
      }),
      { numRuns: 200 },
    );
  });

  it("leave other scorers refusing it, and a blank single target refused", async () => {
    expect(await score("match", {}, "", [])).toMatchObject({ reason: "invalid_target" });
    expect(await score("exact", {}, "", "")).toMatchObject({ reason: "invalid_target" });
  });
});
