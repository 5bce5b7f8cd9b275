import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AssayConfig } from "../config/assay-config.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { type AddedToken, addedTokensOf } from "../model/added-tokens.js";
import { readJsonFile } from "../model/read-assay-config.js";
import { type ChatSpec, chatMessages, renderChat } from "./chat-template.js";
import { DEFAULT_TEMPLATE_DATE } from "./template-date.js";

/** The special tokens Hugging Face passes to a chat template (`special_tokens_map`). */
const SPECIAL_TOKEN_KEYS = [
  "bos_token",
  "eos_token",
  "unk_token",
  "sep_token",
  "pad_token",
  "cls_token",
  "mask_token",
] as const;

/**
 * The chat template the model's prompts are rendered in, or null for plain text: assay.json
 * `chat.enabled`, else whether the model has a template (tokenizer_config.json
 * `chat_template`, or a `chat_template.jinja` file as newer exports write it). The template
 * is rendered once here over the template's own layout, so a template that refuses it
 * (a role it does not support, turns that do not alternate) fails the load, not a sample.
 * `addedTokens`: the tokenizer's (default: tokenizer_config.json's alone), which are no
 * plain-text markers.
 */
export async function readChatSpec(
  dir: string,
  config: AssayConfig,
  addedTokens?: readonly AddedToken[],
): Promise<ChatSpec | null> {
  const chat = config.chat;
  if (chat?.enabled === false) return null;
  const tokenizerConfig = (await readJsonFile(dir, "tokenizer_config.json")) as Record<
    string,
    unknown
  >;
  const template = await findChatTemplate(dir, tokenizerConfig);
  if (template === null) {
    if (chat?.enabled === true) {
      throw new ModelFolderError(
        join(dir, "assay.json"),
        'sets "chat": { "enabled": true } but tokenizer_config.json has no `chat_template` (nor is there a chat_template.jinja): add the model\'s template or set "enabled": false',
        "chat.enabled",
      );
    }
    return null;
  }
  const specialTokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const content = tokenContent(tokenizerConfig[key]);
    if (content !== undefined) specialTokens[key] = content;
  }
  const spec: ChatSpec = {
    template,
    specialTokens,
    options: chat?.options ?? {},
    examples: chat?.examples ?? [],
    assistantPrefix: chat?.assistant_prefix ?? "",
    markers: [],
    date: chat?.date ?? DEFAULT_TEMPLATE_DATE,
  };
  checkRenders(dir, spec, config);
  spec.markers = plainMarkers(spec, config, addedTokens ?? addedTokensOf(null, tokenizerConfig));
  return spec;
}

/** Stands for every message's content when the template's own text is looked for. */
const CONTENT = "\u2063content\u2063";

/**
 * The role markers the template writes as plain text (`[INST]`, `[/INST]`, `<<SYS>>`): each
 * word of its own text (every content, the assistant prefix and the added tokens taken
 * out) that holds a bracket, angle bracket, brace or bar and a letter. A candidate who
 * writes one could open a turn of its own; role names ("user") and whitespace are no
 * markers.
 */
function plainMarkers(
  spec: ChatSpec,
  config: AssayConfig,
  addedTokens: readonly AddedToken[],
): string[] {
  const frame: ChatSpec = {
    ...spec,
    assistantPrefix: "",
    examples: spec.examples.map(() => ({ user: CONTENT, assistant: CONTENT })),
  };
  const tokens = addedTokens.map((t) => t.content).sort((a, b) => b.length - a.length);
  const markers = new Set<string>();
  for (const template of [config.template, ...(config.variants ?? [])]) {
    const pieces = emptyTextPieces(template);
    const messages = chatMessages(frame, pieces, [CONTENT]);
    for (const text of [
      renderChat(frame, messages),
      renderChat(frame, [...messages, { role: "assistant", content: CONTENT }], false),
    ]) {
      let own = text.split(CONTENT).join(" ");
      for (const token of tokens) if (own.includes(token)) own = own.split(token).join(" ");
      for (const word of own.split(/\s+/u)) {
        if (/[[\]<>{}|]/u.test(word) && /\p{L}/u.test(word)) markers.add(word);
      }
    }
  }
  return [...markers];
}

/** Whether the folder has a chat template, whatever assay.json says about using it. */
export async function hasChatTemplate(dir: string): Promise<boolean> {
  const tokenizerConfig = (await readJsonFile(dir, "tokenizer_config.json")) as Record<
    string,
    unknown
  >;
  return (await findChatTemplate(dir, tokenizerConfig)) !== null;
}

async function findChatTemplate(
  dir: string,
  tokenizerConfig: Record<string, unknown>,
): Promise<string | null> {
  const entry = tokenizerConfig.chat_template;
  if (typeof entry === "string") return entry;
  // Several named templates: the one called `default` is what apply_chat_template uses.
  if (Array.isArray(entry)) {
    const named = entry.find(
      (t): t is { name: string; template: string } =>
        typeof t === "object" &&
        t !== null &&
        t.name === "default" &&
        typeof t.template === "string",
    );
    if (named !== undefined) return named.template;
  }
  try {
    return await readFile(join(dir, "chat_template.jinja"), "utf8");
  } catch {
    return null;
  }
}

function tokenContent(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  if (typeof entry === "object" && entry !== null && "content" in entry) {
    const content = (entry as { content: unknown }).content;
    return typeof content === "string" ? content : undefined;
  }
  return undefined;
}

/** Each prompt variant rendered once (with the example turns' assistant replies). */
function checkRenders(dir: string, spec: ChatSpec, config: AssayConfig): string[] {
  const texts: string[] = [];
  for (const template of [config.template, ...(config.variants ?? [])]) {
    const pieces = emptyTextPieces(template);
    try {
      const messages = chatMessages(spec, pieces, ["x"]);
      texts.push(renderChat(spec, messages));
      // The text the template writes after an answer (its end-of-turn markers).
      texts.push(renderChat(spec, [...messages, { role: "assistant", content: "x" }], false));
    } catch (error) {
      throw new ModelFolderError(
        join(dir, "assay.json"),
        `the model's chat template refuses this prompt's messages (${(error as Error).message}): check which pieces are "message": "system" and the chat examples, or set "chat": { "enabled": false }`,
        "chat",
      );
    }
  }
  return texts;
}

/** One empty text piece per template piece, in the message the piece goes to: a render of
 * the chat template's own text, with nothing of a sample in it. */
function emptyTextPieces(template: AssayConfig["template"]) {
  return template.map((piece) => ({
    role: "text" as const,
    name: "text",
    prefix: "",
    body: "",
    suffix: "",
    required: true,
    priority: 0,
    message: piece.message ?? "user",
  }));
}
