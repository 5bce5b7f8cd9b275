import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeSquad, squadTokens } from "../src/index.js";
import { score } from "./helpers.js";
import {
  asciiSquadText,
  DISAGREEMENT_CLASSES,
  squadTarget,
  squadText,
} from "./support/squad-arbitraries.js";
import {
  referenceExact,
  referenceF1,
  referenceNormalize,
  referenceTokens,
} from "./support/squad-reference.js";

async function scored(name: string, answer: string, target: string | string[]): Promise<number> {
  const result = await score(name, {}, answer, target);
  if (result.status !== "scored") throw new Error(`unscored: ${result.message ?? result.reason}`);
  return result.value;
}

/** Normalized text and tokens equal the reference implementation's for every generated text. */
function normalizesLikeReference(texts: fc.Arbitrary<string>, numRuns: number): void {
  fc.assert(
    fc.property(texts, (text) => {
      expect(normalizeSquad(text)).toBe(referenceNormalize(text));
      expect(squadTokens(text)).toEqual(referenceTokens(text));
    }),
    { numRuns },
  );
}

describe("exact and f1 follow evaluate-v1.1.py for any text", () => {
  it("normalizes and tokenizes like the reference implementation", () => {
    normalizesLikeReference(squadText, 3000);
  });

  it("keeps lone surrogates apart once the punctuation between them is gone, as Python does", () => {
    // Joined, "\ud800\udc00" would read as one astral letter, and "a" before it as a word.
    for (const text of ["a\ud800!\udc00", "the\ud800.\udc00 x", "\ud800-\udc00an"]) {
      expect(normalizeSquad(text)).toBe(referenceNormalize(text));
      expect(squadTokens(text)).toEqual(referenceTokens(text));
    }
    expect(normalizeSquad("a\ud800!\udc00")).toBe("\ud800\udc00");
  });

  it("normalizes ASCII text, read in one pass, like the reference implementation", () => {
    normalizesLikeReference(asciiSquadText, 5000);
  });

  it("scores exact match like the reference implementation", async () => {
    await fc.assert(
      fc.asyncProperty(squadText, squadTarget, async (answer, target) => {
        expect(await scored("exact", answer, target)).toBe(referenceExact(answer, target));
      }),
      { numRuns: 1000 },
    );
  });

  it("scores F1 like the reference implementation, to the last bit", async () => {
    await fc.assert(
      fc.asyncProperty(squadText, squadTarget, async (answer, target) => {
        expect(await scored("f1", answer, target)).toBe(referenceF1(answer, target));
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    // At most 20 words on each side: few enough pairs of words to compare one by one.
    ["short", 0, 20],
    // 40 words or more on each side: past that, the overlap is counted by a tally.
    ["long", 40, 90],
  ])(
    "scores F1 like the reference implementation on %s texts of repeated words",
    async (_, minLength, maxLength) => {
      const words = fc
        .array(fc.constantFrom("cat", "Cat,", "dog", "dog.", "x", "y-z", "1", "10"), {
          minLength,
          maxLength,
        })
        .map((list) => list.join(" "));
      await fc.assert(
        fc.asyncProperty(
          words,
          words.filter((text) => text !== ""),
          async (answer, target) => {
            expect(await scored("f1", answer, target)).toBe(referenceF1(answer, target));
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  it("scores a list of targets as the best of its non-empty entries, none as no answer", async () => {
    const targets = fc.array(fc.oneof(squadText, fc.constantFrom("", " ")), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(squadText, targets, async (answer, list) => {
        const usable = list.filter((target) => target.trim() !== "");
        for (const [name, reference] of [
          ["exact", referenceExact],
          ["f1", referenceF1],
        ] as const) {
          const result = await score(name, {}, answer, list);
          if (usable.length === 0) {
            // SQuAD 2.0's no answer: right only when the answer normalizes to nothing.
            const value = normalizeSquad(answer) === "" ? 1 : 0;
            expect(result).toMatchObject({ status: "scored", value });
          } else {
            const best = Math.max(...usable.map((target) => reference(answer, target)));
            expect(result).toMatchObject({ status: "scored", value: best });
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("exact and f1 against the official algorithm run by Python", () => {
  const script = fileURLToPath(new URL("./support/squad_official.py", import.meta.url));
  const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
  const pythonMissing = python.error !== undefined || python.status !== 0;

  it("gives Python's normalized text, exact match and F1 on a generated corpus", async (context) => {
    context.skip(pythonMissing, "python3 is not on PATH, so the official algorithm cannot run");
    const pairs = fc.sample(fc.tuple(squadText, squadTarget), { numRuns: 3000, seed: 20_161 });
    const run = spawnSync("python3", [script], {
      input: JSON.stringify(pairs),
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const official = JSON.parse(run.stdout) as {
      unicode: string;
      results: {
        prediction: string;
        ground_truth: string;
        exact: number;
        f1: number;
        comparable: boolean;
      }[];
    };

    const compared: string[] = [];
    for (const [index, [answer, target]] of pairs.entries()) {
      const expected = official.results[index];
      // Characters assigned after Python's Unicode version are letters to us, unknown to it.
      if (expected === undefined || !expected.comparable || hasUnassigned(answer + target)) {
        continue;
      }
      const where = `pair ${index} ${JSON.stringify([answer, target])} (Unicode ${official.unicode})`;
      expect(normalizeSquad(answer), where).toBe(expected.prediction);
      expect(normalizeSquad(target), where).toBe(expected.ground_truth);
      expect(await scored("exact", answer, target), where).toBe(expected.exact);
      expect(await scored("f1", answer, target), where).toBe(expected.f1);
      compared.push(answer + target);
    }

    // About a third of the pairs hold a code point Python does not know; the rest must do.
    expect(compared.length).toBeGreaterThan(2000);
    for (const [name, characters] of Object.entries(DISAGREEMENT_CLASSES)) {
      const visited = characters.filter((ch) => compared.some((text) => text.includes(ch)));
      expect(visited, `class ${name}`).toEqual(characters);
    }
  });
});

function hasUnassigned(text: string): boolean {
  return /\p{Cn}/u.test(text);
}
