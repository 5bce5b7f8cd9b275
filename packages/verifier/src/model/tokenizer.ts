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
  return {
    encode: (text, special) => tokenizer.encode(text, { add_special_tokens: special }),
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false }),
    tokenText: (id) => tokenizer.decode([id], { skip_special_tokens: false }),
    padId,
    paddingSide,
  };
}
