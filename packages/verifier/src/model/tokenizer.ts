import { join } from "node:path";
import * as transformers from "@huggingface/transformers";
import { ModelFolderError } from "../errors/model-folder-error.js";
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
}

/** Where a head reads `ids` (from `encode(text, true)`): the last token of the text itself. */
export function scorePosition(tokenizer: VerifierTokenizer, ids: readonly number[]): number {
  return Math.max(0, ids.length - 1 - tokenizer.appendedTokens);
}

type TokenizerClass = new (json: unknown, config: unknown) => transformers.PreTrainedTokenizer;

/**
 * Builds the real tokenizer from tokenizer.json + tokenizer_config.json with
 * @huggingface/transformers, choosing the class from `tokenizer_class` like AutoTokenizer,
 * but from files already on disk (no network, no global path settings).
 */
export async function loadTokenizer(dir: string): Promise<VerifierTokenizer> {
  const json = await readJsonFile(dir, "tokenizer.json");
  const config = (await readJsonFile(dir, "tokenizer_config.json")) as Record<string, unknown>;
  const className = String(config.tokenizer_class ?? "PreTrainedTokenizer").replace(/Fast$/, "");
  const exported = (transformers as unknown as Record<string, unknown>)[className];
  const Class = (
    typeof exported === "function" ? exported : transformers.PreTrainedTokenizer
  ) as TokenizerClass;
  let tokenizer: transformers.PreTrainedTokenizer;
  try {
    tokenizer = new Class(json, config);
  } catch (error) {
    throw new ModelFolderError(
      join(dir, "tokenizer.json"),
      `cannot build the tokenizer: ${(error as Error).message}`,
    );
  }
  const padId = tokenizer.pad_token_id ?? tokenizer.eos_token_id ?? 0;
  const paddingSide = config.padding_side === "left" ? "left" : "right";
  const encode = (text: string, special: boolean) =>
    tokenizer.encode(text, { add_special_tokens: special });
  return {
    encode,
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false }),
    tokenText: (id) => tokenizer.decode([id], { skip_special_tokens: false }),
    padId,
    paddingSide,
    appendedTokens: appendedTokens(encode, join(dir, "tokenizer.json")),
  };
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
