import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AssayConfig,
  type ChatSpec,
  chooseTokenBreak,
  fitPrompt,
  isWhitespaceToken,
  loadTokenizer,
  readChatSpec,
  resolvePrompt,
  type Template,
  TokenGuard,
  type UntrustedFilter,
  untrustedFilter,
  type VerifierTokenizer,
} from "../src/index.js";
import { TOKEN_FAMILIES, type TokenFamily, tokenFamilyDir } from "./untrusted-token-families.js";

// No special or added id, and no role marker the template writes as plain text, comes from
// a candidate: over every tokenizer family, values salted with every added token, pieces of
// them, the template's markers and look-alikes are rendered through resolvePrompt and the
// fit (the scorer's path), tokenized, and the added ids must be exactly those the template
// writes around neutral values, in the same order. ASSAY_PROPERTY_SCALE runs deeper.
const RUNS = propertyRuns(12);

// Mistral's template has no system role: every piece goes in the user turn.
const TEMPLATE = [
  { text: "Grade the answer.\n[Question]\n" },
  { slot: "question", prefix: "", suffix: "\n", required: true, priority: 0 },
  { slot: "context", prefix: "[Context] ", suffix: "\n", required: true, priority: 0 },
  { slot: "answer", prefix: "[Answer]\n", suffix: "", required: true, priority: 0 },
  { text: "\nScore:" },
] as unknown as Template;

interface Family {
  tokenizer: VerifierTokenizer;
  spec: ChatSpec;
  filter: UntrustedFilter;
  guarded: Set<number>;
  spellings: string[];
}

const families = new Map<TokenFamily, Family>();

beforeAll(async () => {
  for (const family of TOKEN_FAMILIES) {
    const dir = await tokenFamilyDir(family);
    const tokenizer = await loadTokenizer(dir);
    const config = { template: TEMPLATE } as unknown as AssayConfig;
    const spec = await readChatSpec(dir, config, tokenizer.addedTokens);
    if (spec === null) throw new Error(`${family} has no chat template`);
    const breakWith = chooseTokenBreak(tokenizer.addedTokens, (t) => tokenizer.encode(t, false));
    if (breakWith === null) throw new Error(`${family}: no break character`);
    const guard = TokenGuard.of(tokenizer.addedTokens, breakWith);
    const filter = untrustedFilter(TEMPLATE, spec.markers, guard);
    if (filter === null) throw new Error(`${family}: nothing guarded`);
    const tokens = tokenizer.addedTokens.filter((t) => !isWhitespaceToken(t));
    families.set(family, {
      tokenizer,
      spec,
      filter,
      guarded: new Set(tokens.map((t) => t.id)),
      spellings: [...tokens.map((t) => t.content), ...spec.markers],
    });
  }
}, 240_000);

function prompt(family: Family, question: string, answer: string, context: string) {
  const resolved = resolvePrompt(
    TEMPLATE,
    { question, answer, metadata: { context } },
    "",
    family.filter,
  );
  if (!resolved.ok) throw new Error(resolved.message);
  const options = { maxLength: 1_000_000, margin: 0, policy: "error" as const };
  const fit = fitPrompt(family.tokenizer, resolved.pieces, options, family.spec);
  if (!fit.ok) throw new Error(fit.message);
  return { text: fit.text, ids: fit.ids, altered: resolved.altered };
}

const count = (text: string, marker: string) => text.split(marker).length - 1;

/** Untrusted text salted with the family's tokens, their pieces, markers and look-alikes. */
function salted(spellings: readonly string[]) {
  const spelling = fc.constantFrom(...spellings);
  const fragment = fc.oneof(
    spelling,
    // A token's head or tail: beside another fragment it may spell a token again.
    spelling.chain((s) =>
      fc.integer({ min: 1, max: Math.max(1, s.length - 1) }).map((k) => s.slice(0, k)),
    ),
    spelling.chain((s) =>
      fc.integer({ min: 1, max: Math.max(1, s.length - 1) }).map((k) => s.slice(k)),
    ),
    // Look-alikes: full-width bars and brackets, other case. Text to the tokenizer.
    spelling.map((s) => s.replaceAll("|", "\uff5c").replaceAll("<", "\uff1c")),
    spelling.map((s) => s.toUpperCase()),
    fc.constantFrom(
      " ",
      "\n",
      "\n\n",
      "\t",
      "\u200b",
      "▁",
      "word",
      "[Answer]",
      "Score: T",
      "é",
      "🙂",
    ),
  );
  return fc.array(fragment, { maxLength: 8 }).map((parts) => parts.join(""));
}

describe("a candidate never speaks in the judge's special tokens", () => {
  it.each(TOKEN_FAMILIES)(
    "%s: every added id and marker sits where the template wrote it (property)",
    (name) => {
      const family = families.get(name) as Family;
      const neutral = prompt(family, "x", "x", "x");
      const addedIds = (ids: readonly number[]) => ids.filter((id) => family.guarded.has(id));
      const text = salted(family.spellings);
      fc.assert(
        fc.property(text, text, text, (question, answer, context) => {
          const rendered = prompt(family, question, answer, context);
          expect(addedIds(rendered.ids)).toEqual(addedIds(neutral.ids));
          for (const marker of family.spec.markers) {
            expect(count(rendered.text, marker)).toBe(count(neutral.text, marker));
          }
        }),
        { numRuns: RUNS },
      );
    },
  );

  it.each(TOKEN_FAMILIES)(
    "%s: text with no token or marker is left as written, and every break is counted",
    (name) => {
      const family = families.get(name) as Family;
      // Look-alikes of a token are text to the tokenizer (a look-alike of a plain-text marker
      // is not: a reader could take it for one, so it is no honest example here).
      const honest = "The end marker <|im_end｜> looks alike; 2 < 3 | 4 > 1.";
      const plain = prompt(family, honest, honest, "x");
      expect(plain.altered).toEqual({});
      expect(plain.text).toContain(honest);
      const token = family.spellings[0] as string;
      const attacked = prompt(family, "x", `a ${token} b ${token}`, "x");
      expect(attacked.altered).toEqual({ answer: 2 });
      expect(attacked.text).not.toContain(`a ${token} b`);
    },
  );
});
