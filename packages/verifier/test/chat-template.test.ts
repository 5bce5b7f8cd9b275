import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AssayConfigSchema,
  type ChatSpec,
  fitPrompt,
  loadTokenizer,
  readChatSpec,
  resolvePrompt,
  type VerifierTokenizer,
} from "../src/index.js";
import { CHAT_FAMILIES, type ChatFamilyName, chatFamilyDir } from "./chat-families.js";

// Assay's chat rendering against reference renderings made by Python's jinja2 configured
// as transformers' apply_chat_template (fixtures/chat/make-fixtures.py says how to remake
// them): same text, and the same token ids from the family's real tokenizer.
interface FixtureCase {
  family: ChatFamilyName;
  name: string;
  template: unknown;
  chat: unknown;
  sample: { question: string; answer: string };
  /** The messages as the reference built them, for rendering without Assay. */
  messages: { role: string; content: string }[];
  text: string;
}
const fixtures = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "chat", "chat-fixtures.json"), "utf8"),
) as { cases: FixtureCase[] };

const dirs = new Map<string, string>();
const tokenizers = new Map<string, VerifierTokenizer>();
beforeAll(async () => {
  for (const family of CHAT_FAMILIES) {
    const dir = await chatFamilyDir(family);
    dirs.set(family, dir);
    tokenizers.set(family, await loadTokenizer(dir));
  }
}, 120_000);

/** The one BOS the prompt must start with (the template writes it; the tokenizer adds none). */
const BOS: Record<FixtureCase["family"], string | null> = {
  qwen3: null,
  llama3: "<|begin_of_text|>",
  gemma3: "<bos>",
  "llama3.2": "<|begin_of_text|>",
};

const configOf = (c: FixtureCase) =>
  AssayConfigSchema.parse({
    max_length: 8192,
    template: c.template,
    chat: c.chat,
    head: { type: "probe", probe: [1] },
  });

async function specOf(c: FixtureCase): Promise<ChatSpec> {
  const spec = await readChatSpec(dirs.get(c.family) as string, configOf(c));
  if (spec === null) throw new Error(`${c.family} has no chat template`);
  return spec;
}

describe("chat templates rendered by Assay equal the reference rendering", () => {
  it("holds the cases of each family (plain, system-prompted, few-shot, unicode, long answer, Python's stripping; Llama 3.2 a pinned date too)", () => {
    expect(fixtures.cases.map((c) => `${c.family}/${c.name}`)).toHaveLength(33);
  });

  it("holds cases @huggingface/jinja alone renders otherwise: Qwen3's few-shot reasoning, message edges under `trim`", async () => {
    // The reference's messages rendered by the library alone, with the template variables
    // Assay gives it; Llama 3.2 is left out, since the library's `strftime_now` writes today.
    const differ: string[] = [];
    for (const c of fixtures.cases.filter((one) => one.family !== "llama3.2")) {
      const spec = await specOf(c);
      const text = new Template(spec.template).render({
        ...spec.specialTokens,
        ...spec.options,
        messages: c.messages,
        add_generation_prompt: true,
      });
      if (text + spec.assistantPrefix !== c.text) differ.push(`${c.family}/${c.name}`);
    }
    expect(differ).toEqual([
      "qwen3/few-shot-reasoning",
      "llama3/edges-python-whitespace",
      "llama3/edges-bom",
      "gemma3/edges-python-whitespace",
      "gemma3/edges-bom",
    ]);
  });

  for (const c of fixtures.cases) {
    it(`${c.family}: ${c.name}`, async () => {
      const tokenizer = tokenizers.get(c.family) as VerifierTokenizer;
      const config = configOf(c);
      const spec = await specOf(c);
      const prompt = resolvePrompt(config.template, { ...c.sample, metadata: {} }, "");
      if (!prompt.ok) throw new Error(prompt.message);
      const fit = fitPrompt(
        tokenizer,
        prompt.pieces,
        { maxLength: 8192, margin: 8, policy: "error" },
        spec,
      );
      if (!fit.ok) throw new Error(fit.message);
      expect(fit.text).toBe(c.text);
      expect(fit.ids).toEqual(tokenizer.encode(c.text, false));
      const bos = BOS[c.family];
      const first = tokenizer.tokenText(fit.ids[0] ?? -1);
      const second = tokenizer.tokenText(fit.ids[1] ?? -1);
      if (bos === null) {
        expect(first).toBe("<|im_start|>");
      } else {
        expect([first, second === bos]).toEqual([bos, false]);
      }
    });
  }
});
