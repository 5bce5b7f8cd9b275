import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { type AddedToken, addedTokensOf } from "./added-tokens.js";
import { readJsonFile } from "./read-assay-config.js";

/** The tokenizer surface the verifier needs. */
export interface VerifierTokenizer {
  /** Token ids of `text`; `special` adds the model's special tokens (BOS/CLS/SEP…). */
  encode(text: string, special: boolean): number[];
  decode(ids: readonly number[]): string;
  /** One token's text, for messages. */
  tokenText(id: number): string;
  readonly padId: number;
  readonly paddingSide: "left" | "right";
  /**
   * Special tokens the tokenizer appends after the text (EOS, SEP): the score is read just
   * before them, at `ids.length - 1 - appendedTokens` of `encode(text, true)`.
   */
  readonly appendedTokens: number;
  /** tokenizer.json `added_tokens` and tokenizer_config.json `added_tokens_decoder`, by id. */
  readonly addedTokens: readonly AddedToken[];
}

/** Where a head reads `ids` (from `encode(text, true)`): the last token of the text itself. */
export function scorePosition(tokenizer: VerifierTokenizer, ids: readonly number[]): number {
  return Math.max(0, ids.length - 1 - tokenizer.appendedTokens);
}

/**
 * Builds the real tokenizer from tokenizer.json + tokenizer_config.json with
 * @huggingface/tokenizers, from files already on disk (no network, no global path settings).
 * It is the tokenizer core that @huggingface/transformers wraps, without the model runtime
 * (onnxruntime-web, sharp) that the wrapper brings: same ids, a smaller install, less memory.
 */
export async function loadTokenizer(dir: string): Promise<VerifierTokenizer> {
  const json = await readJsonFile(dir, "tokenizer.json");
  const config = (await readJsonFile(dir, "tokenizer_config.json")) as Record<string, unknown>;
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json as object, config);
  } catch (error) {
    throw new ModelFolderError(
      join(dir, "tokenizer.json"),
      `cannot build the tokenizer: ${(error as Error).message}`,
    );
  }
  const padId = tokenId(tokenizer, config.pad_token) ?? tokenId(tokenizer, config.eos_token) ?? 0;
  const paddingSide = config.padding_side === "left" ? "left" : "right";
  const encode = (text: string, special: boolean) =>
    tokenizer.encode(text, { add_special_tokens: special }).ids;
  const decode = (ids: readonly number[]) =>
    ids.length === 0 ? "" : tokenizer.decode([...ids], { skip_special_tokens: false });
  return {
    encode,
    decode,
    tokenText: (id) => decode([id]),
    padId,
    paddingSide,
    appendedTokens: appendedTokens(encode, join(dir, "tokenizer.json")),
    addedTokens: addedTokensOf(json, config),
  };
}

/** The id of a special token named in tokenizer_config.json (a string or `{ content }`). */
function tokenId(tokenizer: Tokenizer, entry: unknown): number | undefined {
  const content =
    typeof entry === "string"
      ? entry
      : typeof entry === "object" && entry !== null && "content" in entry
        ? String((entry as { content: unknown }).content)
        : undefined;
  return content === undefined ? undefined : tokenizer.token_to_id(content);
}

/**
 * How many special tokens the post-processor appends after the text: the text's own ids
 * are found inside the ids with special tokens, and what follows them is counted. The
 * count is fixed by the post-processor (`[CLS] $A [SEP]`, `$A </s>`), so it is measured once.
 */
function appendedTokens(encode: (text: string, special: boolean) => number[], file: string) {
  const probe = "Is this answer correct? Score:";
  const plain = encode(probe, false);
  const special = encode(probe, true);
  for (let start = 0; start + plain.length <= special.length; start++) {
    if (plain.every((id, i) => special[start + i] === id)) {
      return special.length - start - plain.length;
    }
  }
  throw new ModelFolderError(
    file,
    `cannot find the text's tokens among those with special tokens (${JSON.stringify(plain)} in ${JSON.stringify(special)}), so the score position is unknown`,
  );
}
