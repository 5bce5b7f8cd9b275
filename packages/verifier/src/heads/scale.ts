import type { VerifierTokenizer } from "../model/tokenizer.js";

export type ScaleCheck = { ok: true; ids: number[] } | { ok: false; message: string };

/**
 * Token id of every score level. Each level must be exactly ONE token: a level that
 * splits (Qwen3 reads "10" as "1" + "0") could never be the next token, so the score would
 * silently ignore it.
 */
export function scaleTokenIds(tokenizer: VerifierTokenizer, scale: readonly string[]): ScaleCheck {
  const ids: number[] = [];
  for (const [index, level] of scale.entries()) {
    const levelIds = tokenizer.encode(level, false);
    if (levelIds.length !== 1 || levelIds[0] === undefined) {
      const pieces = levelIds.map((id) => JSON.stringify(tokenizer.tokenText(id))).join(" + ");
      return {
        ok: false,
        message: `scale level ${index + 1} ${JSON.stringify(level)} is ${levelIds.length} tokens in this tokenizer (${pieces}); every level must be one token, e.g. the letters A..T`,
      };
    }
    ids.push(levelIds[0]);
  }
  const duplicate = ids.findIndex((id, i) => ids.indexOf(id) !== i);
  if (duplicate >= 0) {
    return {
      ok: false,
      message: `scale level ${JSON.stringify(scale[duplicate])} maps to the same token as an earlier level`,
    };
  }
  return { ok: true, ids };
}
