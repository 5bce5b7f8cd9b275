import { describe, expect, it } from "vitest";
import { normalizeLoose, normalizeSquad, squadTokens } from "../src/index.js";

describe("normalizeSquad (evaluate-v1.1.py normalize_answer)", () => {
  it("lowercases, drops punctuation and articles, collapses whitespace", () => {
    expect(normalizeSquad("  The Denver   Broncos! ")).toBe("denver broncos");
    expect(normalizeSquad("A cat, an owl & the mouse.")).toBe("cat owl mouse");
  });

  it("removes punctuation before articles, as the official order does", () => {
    // "the-end" loses its hyphen first, becoming the single word "theend".
    expect(normalizeSquad("the-end")).toBe("theend");
    expect(normalizeSquad("(the) end")).toBe("end");
  });

  it("only removes articles as whole words, treating Unicode letters as word characters", () => {
    expect(normalizeSquad("theory another")).toBe("theory another");
    expect(normalizeSquad("éthe naïve")).toBe("éthe naïve");
  });

  it("keeps non-ASCII punctuation, which string.punctuation does not list", () => {
    expect(normalizeSquad("1990–1995")).toBe("1990–1995");
  });

  it("splits on Python's whitespace (str.split), not JavaScript's", () => {
    // Python's str.isspace includes the information separators U+001C-U+001F and NEL
    // (U+0085) but not the byte order mark U+FEFF; JavaScript's \s is the other way round.
    expect(squadTokens("cat\u001cdog\u001fowl\u0085bat")).toEqual(["cat", "dog", "owl", "bat"]);
    expect(squadTokens("cat\ufeffdog")).toEqual(["cat\ufeffdog"]);
    expect(normalizeSquad("the\u001dcat")).toBe("cat");
    expect(normalizeSquad("\ufeffthe cat")).toBe("\ufeff cat");
  });

  it("splits into tokens, none for an empty or all-article text", () => {
    expect(squadTokens("The cat sat")).toEqual(["cat", "sat"]);
    expect(squadTokens("The.")).toEqual([]);
  });
});

describe("normalizeLoose", () => {
  it("trims edge punctuation and whitespace, keeps articles", () => {
    expect(normalizeLoose("  **A.** ", true)).toBe("a");
    expect(normalizeLoose("New   York!", false)).toBe("New York");
  });

  it("trims a long run of punctuation quickly", () => {
    const text = `${"!".repeat(50_000)}x${"?".repeat(50_000)}`;
    expect(normalizeLoose(text, true)).toBe("x");
  });
});
