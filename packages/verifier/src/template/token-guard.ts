import type { Neutralized } from "@assay/core";
import { type AddedToken, isWhitespaceToken } from "../model/added-tokens.js";

/**
 * What goes in after a token's first character to make it text: invisible, so an honest
 * answer that mentions `<|im_end|>` reads the same, and no tokenizer the project ships
 * holds it inside an added token. The first that breaks every token of the model's
 * tokenizer is used (`chooseTokenBreak`).
 */
export const TOKEN_BREAKS = ["\u200b", "\u2060", "\u00ad"] as const;

/** What stands in for a one-character token, which has no inside to break. */
const ONE_CHARACTER = "\ufffd";

interface TrieNode {
  next: Map<number, TrieNode>;
  end: boolean;
}

/**
 * Neutralizes every spelling of the tokenizer's added tokens in untrusted text, so no
 * special or added id can come from a candidate: each occurrence gets `breakWith` after its
 * first character and tokenizes as plain text. Exact and case-sensitive, as the tokenizer
 * matches them: a look-alike (`<|im_end｜>`) is already text and is left alone.
 */
export class TokenGuard {
  readonly #root: TrieNode = { next: new Map(), end: false };
  readonly #breakWith: string;

  constructor(strings: readonly string[], breakWith: string) {
    this.#breakWith = breakWith;
    for (const text of strings) this.#add(text);
  }

  /** The guard for a tokenizer's added tokens (whitespace runs are ordinary text). */
  static of(tokens: readonly AddedToken[], breakWith: string = TOKEN_BREAKS[0]): TokenGuard {
    return new TokenGuard(guardedSpellings(tokens), breakWith);
  }

  /** It guards no spelling (a tokenizer without added tokens). */
  get empty(): boolean {
    return this.#root.next.size === 0;
  }

  neutralize(text: string): Neutralized {
    let output = "";
    let kept = 0;
    let changes = 0;
    for (let i = 0; i < text.length; i += 1) {
      if (!this.#root.next.has(text.charCodeAt(i))) continue;
      const length = this.#matchAt(text, i);
      if (length === 0) continue;
      // Broken right after its first character; the scan goes on from there, so a token
      // that starts inside this one is broken too, and no token spans a break.
      const first = String.fromCodePoint(text.codePointAt(i) as number).length;
      const oneCharacter = length === first;
      output += text.slice(kept, i) + (oneCharacter ? ONE_CHARACTER : text.slice(i, i + first));
      output += oneCharacter ? "" : this.#breakWith;
      kept = i + first;
      i = kept - 1;
      changes += 1;
    }
    return changes === 0 ? { text, changes } : { text: output + text.slice(kept), changes };
  }

  /** Length of the longest guarded spelling at `start`, 0 when none. */
  #matchAt(text: string, start: number): number {
    let node: TrieNode | undefined = this.#root;
    let longest = 0;
    for (let i = start; i < text.length; i += 1) {
      node = node.next.get(text.charCodeAt(i));
      if (node === undefined) break;
      if (node.end) longest = i + 1 - start;
    }
    return longest;
  }

  #add(text: string): void {
    let node = this.#root;
    for (let i = 0; i < text.length; i += 1) {
      const unit = text.charCodeAt(i);
      let child = node.next.get(unit);
      if (child === undefined) {
        child = { next: new Map(), end: false };
        node.next.set(unit, child);
      }
      node = child;
    }
    node.end = true;
  }
}

/**
 * The texts that tokenize into an added token: its content, and for a normalized token
 * whose content holds "▁", the same with spaces (a SentencePiece normalizer writes every
 * space as "▁" before added tokens are matched).
 */
export function guardedSpellings(tokens: readonly AddedToken[]): string[] {
  const spellings = new Set<string>();
  for (const token of tokens) {
    if (isWhitespaceToken(token)) continue;
    spellings.add(token.content);
    if (token.normalized && token.content.includes("\u2581")) {
      spellings.add(token.content.replaceAll("\u2581", " "));
    }
  }
  return [...spellings];
}

/**
 * The first of `TOKEN_BREAKS` after which every guarded token, broken, encodes to no added
 * id with this tokenizer (checked, not assumed: a normalizer that drops invisible
 * characters would rebuild the token). Null when none does.
 */
export function chooseTokenBreak(
  tokens: readonly AddedToken[],
  encode: (text: string) => readonly number[],
): string | null {
  const guarded = new Set(tokens.filter((t) => !isWhitespaceToken(t)).map((t) => t.id));
  const spellings = guardedSpellings(tokens);
  if (spellings.length === 0) return TOKEN_BREAKS[0];
  for (const breakWith of TOKEN_BREAKS) {
    if (spellings.some((s) => s.includes(breakWith))) continue;
    const guard = new TokenGuard(spellings, breakWith);
    // All spellings in one text (each after a space, as the text around them would be):
    // one encode instead of thousands for a tokenizer with many added tokens.
    const text = guard.neutralize(spellings.join(" ")).text;
    if (!encode(text).some((id) => guarded.has(id))) return breakWith;
  }
  return null;
}
