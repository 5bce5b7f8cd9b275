import type { VerifierTokenizer } from "@assay/verifier";

const WORDS =
  "the cell releases a compound that signals other members of its species while allomones benefit the emitter and kairomones benefit the receiver pheromones travel through air water and soil".split(
    " ",
  );

/** A deterministic English text of exactly `tokens` tokens (ends at a token border). */
export function fillerText(tokenizer: VerifierTokenizer, tokens: number, seed = 0): string {
  if (tokens <= 0) return "";
  let text = "";
  let i = seed;
  // About one token per word; overshoot, then cut at the token count.
  while (text.length < tokens * 8) {
    const word = WORDS[i % WORDS.length] ?? "word";
    text += i % 17 === 16 ? `${word}. Paragraph ${i}: ` : `${word} `;
    i += 7;
  }
  const ids = tokenizer.encode(text, false).slice(0, tokens);
  return tokenizer.decode(ids);
}
