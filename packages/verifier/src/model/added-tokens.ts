/** One token the tokenizer matches whole, before its model splits the rest of the text. */
export interface AddedToken {
  id: number;
  content: string;
  special: boolean;
  /** Matched in the normalized text (the normalizer may turn spaces into "▁"). */
  normalized: boolean;
}

/**
 * Every added token of the tokenizer: tokenizer.json `added_tokens` and tokenizer_config.json
 * `added_tokens_decoder` (keyed by id), special or not. Some published configs list none
 * (DeepSeek V3's), some list tokens tokenizer.json lacks: both sources count, the first
 * entry of an id wins.
 */
export function addedTokensOf(json: unknown, config: Record<string, unknown>): AddedToken[] {
  const byId = new Map<number, AddedToken>();
  const add = (id: unknown, entry: unknown) => {
    const token = entry as Record<string, unknown> | null;
    if (typeof token !== "object" || token === null || typeof token.content !== "string") return;
    const key = Number(id);
    if (!Number.isInteger(key) || byId.has(key) || token.content === "") return;
    byId.set(key, {
      id: key,
      content: token.content,
      special: token.special === true,
      normalized: token.normalized === true,
    });
  };
  const listed = (json as { added_tokens?: unknown } | null)?.added_tokens;
  if (Array.isArray(listed)) for (const entry of listed) add(entry?.id, entry);
  const decoder = config.added_tokens_decoder;
  if (typeof decoder === "object" && decoder !== null) {
    for (const [id, entry] of Object.entries(decoder)) add(id, entry);
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * Tokens that are ordinary text in the tokenizer's own spelling: runs of newlines, tabs or
 * spaces ("▁") that Gemma's tokenizer adds as tokens. An answer's blank line is text, not a
 * role: these are no markers and stay as written.
 */
export function isWhitespaceToken(token: Pick<AddedToken, "content">): boolean {
  return /^[\s\u2581]+$/u.test(token.content);
}
