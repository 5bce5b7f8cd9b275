import type { VerifierTokenizer } from "../model/tokenizer.js";

const counts = new WeakMap<VerifierTokenizer, Map<string, number>>();
const CACHED_TEXT_LENGTH = 4096;

/** Tokens of `text` without special tokens; short texts (template pieces) are memoized. */
export function countTokens(tokenizer: VerifierTokenizer, text: string): number {
  if (text === "") return 0;
  if (text.length > CACHED_TEXT_LENGTH) return tokenizer.encode(text, false).length;
  let cache = counts.get(tokenizer);
  if (cache === undefined) {
    cache = new Map();
    counts.set(tokenizer, cache);
  }
  let count = cache.get(text);
  if (count === undefined) {
    count = tokenizer.encode(text, false).length;
    if (cache.size > 10_000) cache.clear();
    cache.set(text, count);
  }
  return count;
}

/** Decodes the first `count` ids, dropping a partial character at the cut. */
export function decodeHead(
  tokenizer: VerifierTokenizer,
  ids: readonly number[],
  count: number,
): string {
  if (count <= 0) return "";
  return tokenizer.decode(ids.slice(0, count)).replace(/\uFFFD+$/u, "");
}

/** Decodes the last `count` ids, dropping a partial character at the cut. */
export function decodeTail(
  tokenizer: VerifierTokenizer,
  ids: readonly number[],
  count: number,
): string {
  if (count <= 0) return "";
  return tokenizer.decode(ids.slice(ids.length - count)).replace(/^\uFFFD+/u, "");
}
